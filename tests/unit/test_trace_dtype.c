/* A collective's data type (importers/torch_trace/tt_dtype.c): each writer's spelling stored
** under torch's one name, sized, and the table of schema 22 (trace_dtype_spelling, through which
** rows stored before are read) the importer's own, spelling for spelling. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "torch_trace/tt_trace.h"
#include "xp.h"

static const char *name_of(const char *spelt) {
  const tt_dtype *t = tt_dtype_of(spelt);
  return t ? t->name : "unknown";
}

static const char *name_in(const char *kernel) {
  const tt_dtype *t = tt_dtype_in_name(kernel);
  return t ? t->name : "none";
}

/* One type, one name, whichever writer spelt it: before, each was stored as written. */
static void check_spellings(void) {
  CHECK_EQ_STR(name_of("Float"), "float32");   /* c10's ScalarType, eager record_param_comms */
  CHECK_EQ_STR(name_of("float32"), "float32"); /* str(dtype), PyTorch 2.12's graph annotations */
  CHECK_EQ_STR(name_of("f32"), "float32");     /* NCCL 2.19+'s kernel names */
  CHECK_EQ_STR(name_of("BFloat16"), "bfloat16");
  CHECK_EQ_STR(name_of("Half"), "float16");
  CHECK_EQ_STR(name_of("Float8_e4m3fn"), "float8_e4m3fn");
  CHECK_EQ_STR(name_of("f8e4m3"), "float8_e4m3fn");
  CHECK_EQ_STR(name_of("Char"), "int8");
  CHECK_EQ_STR(name_of("int8_t"), "int8");
  CHECK_EQ_STR(name_of("Long"), "int64");
  CHECK_EQ_STR(name_of("ComplexFloat"), "complex64");
  CHECK_EQ_STR(name_of("QInt8"), "unknown"); /* kept as written */
  CHECK_EQ_STR(name_of("float32float32float32float32float32"), "unknown");
  CHECK_EQ_INT(tt_dtype_of("Float8_e4m3fn")->size, 1);
  CHECK_EQ_INT(tt_dtype_of("complex64")->size, 8);
  CHECK_EQ_STR(name_in("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), "bfloat16");
  CHECK_EQ_STR(name_in("ncclKernel_AllReduce_RING_LL_Sum_int8_t(ncclWorkElem)"), "int8");
  CHECK_EQ_STR(name_in("ncclKernel_AllReduce_RING_LL_Sum_float"), "float32");
  CHECK_EQ_STR(name_in("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"), "none");
  CHECK_EQ_STR(name_in("ncclDevKernel_AllReduce_Sum_f32x_RING_LL"), "none");
  /* a stored name is a spelling of itself, so a name stored once reads the same again */
  for (int i = 0; i < tt_ndtypes; i++) CHECK_EQ_STR(name_of(tt_dtypes[i].name), tt_dtypes[i].name);
}

/* Each spelling (as c10 cases it too) read through schema 22's view gives the importer's name,
** and the view knows no spelling the importer does not: one table, not two that drift. */
static void check_schema_agrees(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  CHECK_EQ_INT(sqlite3_prepare_v2(db, "SELECT coalesce((SELECT dtype FROM trace_dtype_spelling WHERE spelling = lower(?1)), ?1)",
                                  -1, &st, NULL), SQLITE_OK);
  for (int i = 0; st && i < tt_ndtypes; i++) {
    char upper[32];
    size_t n = strlen(tt_dtypes[i].spelling);
    for (size_t k = 0; k <= n && k < sizeof upper; k++)
      upper[k] = (char)(tt_dtypes[i].spelling[k] >= 'a' && tt_dtypes[i].spelling[k] <= 'z'
                            ? tt_dtypes[i].spelling[k] - 32 : tt_dtypes[i].spelling[k]);
    const char *spelt[] = {tt_dtypes[i].spelling, upper};
    for (int j = 0; j < 2; j++) {
      sqlite3_reset(st);
      sqlite3_bind_text(st, 1, spelt[j], -1, SQLITE_STATIC);
      CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
      CHECK_EQ_STR((const char *)sqlite3_column_text(st, 0), name_of(spelt[j]));
    }
  }
  sqlite3_finalize(st);
  CHECK_EQ_INT(sqlite3_prepare_v2(db, "SELECT count(*), count(DISTINCT spelling) FROM trace_dtype_spelling", -1, &st, NULL), SQLITE_OK);
  if (st && sqlite3_step(st) == SQLITE_ROW) {
    CHECK_EQ_INT(sqlite3_column_int(st, 0), tt_ndtypes);
    CHECK_EQ_INT(sqlite3_column_int(st, 1), tt_ndtypes);
  }
  sqlite3_finalize(st);
}

int main(void) {
  check_spellings();
  if (!test_dir_make("/tmp/xp-test-dtype-XXXXXX")) return 1;
  char *path = test_path("x.db");
  int rc;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  if (db) {
    check_schema_agrees(db);
    xp_db_close(db);
  }
  free(path);
  test_dir_remove();
  CHECK_DONE();
}
