/*
** queries/kernel_variants.sql over kernel_variant runs recorded the way the runner records
** them, without a GPU: the best candidate per (arch, shape, M, group) and its speedups over
** dequant_cublas (same group) and the bf16 baseline (group-less, per shape and M) of the
** same run; failed and skipped cases and baselines never win; the latest run wins, of a shape
** of those sizes: another model's shape of the same name is a row of its own.
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "db.h"
#include "kind.h"
#include "query.h"
#include "xp.h"

static char dir[64];

typedef struct fake {
  const char *variant, *role, *shape, *status;
  int m, group; /* group 0: the variant ignores it */
  double us;
  double read_floor; /* 0: none recorded */
} fake;

static const fake *pending;
static int npending;
static const char *pending_arch;
static int pending_glm; /* the run measures GLM-4.5's gate_up (n 384, k 5120) */
static const double *pending_spread; /* each case's samples' spread about its median; NULL: 1% */

/* A shape's sizes, as the runner writes them (kernel_variant.c problem_params): Kimi-K2.5's at
** TP=8, as experiments/w4a16_variants.toml lists them, else GLM-4.5's gate_up. */
static void add_sizes(cJSON *p, const char *shape) {
  if (strcmp(shape, "moe_layer") == 0) {
    cJSON_AddStringToObject(p, "type", "moe");
    cJSON_AddNumberToObject(p, "hidden", 7168);
    cJSON_AddNumberToObject(p, "intermediate", 256);
    cJSON_AddNumberToObject(p, "experts", 384);
    cJSON_AddNumberToObject(p, "topk", 8);
    return;
  }
  cJSON_AddStringToObject(p, "type", "gemm");
  cJSON_AddNumberToObject(p, "n", pending_glm ? 384 : 512);
  cJSON_AddNumberToObject(p, "k", pending_glm ? 5120 : 7168);
}

static int fake_execute(xp_ctx *ctx) {
  for (int i = 0; i < npending; i++) {
    const fake *f = &pending[i];
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "family", "w4a16");
    cJSON_AddStringToObject(p, "variant", f->variant);
    cJSON_AddStringToObject(p, "role", f->role);
    cJSON_AddStringToObject(p, "shape", f->shape);
    add_sizes(p, f->shape);
    cJSON_AddNumberToObject(p, "m", f->m);
    if (f->group) cJSON_AddNumberToObject(p, "group", f->group);
    cJSON_AddStringToObject(p, "arch", pending_arch);
    cJSON_AddStringToObject(p, "gpu", "NVIDIA H200");
    char name[128];
    snprintf(name, sizeof name, "%s/%s/m%d/g%d", f->variant, f->shape, f->m, f->group);
    int64_t id = xp_run_case(ctx->run, name, p, f->status, NULL);
    cJSON_Delete(p);
    if (id < 0) return XP_EXIT_DB;
    if (strcmp(f->status, "ok") != 0) continue;
    double d = pending_spread ? pending_spread[i] : 0.01;
    double us[3] = {f->us * (1 - d), f->us, f->us * (1 + d)};
    if (xp_run_metric(ctx->run, id, "time_us", "us", us, 3) ||
        xp_run_value(ctx->run, id, "gbps", "GB/s", 1000.0 / f->us) ||
        xp_run_value(ctx->run, id, "copy_share", "ratio", 0.25 / f->us))
      return XP_EXIT_DB;
    double rf[3] = {f->read_floor, f->read_floor, f->read_floor};
    if (f->read_floor > 0 && xp_run_metric(ctx->run, id, "read_floor_us", "us", rf, 3)) return XP_EXIT_DB;
  }
  /* The runner's inline ceiling case has no variant: the query must ignore it. */
  int64_t id = xp_run_case(ctx->run, "ceiling.copy", NULL, "ok", NULL);
  double c[3] = {1, 1, 1};
  return id < 0 || xp_run_metric(ctx->run, id, "time_us", "us", c, 3) ? XP_EXIT_DB : 0;
}

static const xp_kind kv_kind = {.name = "kernel_variant", .execute = fake_execute};

static int record(sqlite3 *db, const char *arch, const fake *f, int n) {
  pending = f, npending = n, pending_arch = arch;
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"kernel_variant\"}", "<test>", dir);
  xp_error_quiet(1);
  int rc = xp_execute_spec(db, &kv_kind, s, 0, NULL, NULL);
  xp_error_quiet(0);
  xp_spec_free(s);
  return rc;
}

static char rows[32][512];
static int nrows;

static int collect(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  nrows = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && nrows < 32) {
    char *r = rows[nrows++];
    r[0] = 0;
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      snprintf(r + strlen(r), 512 - strlen(r), "%s%s", i ? "|" : "", t ? (const char *)t : "");
    }
  }
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : XP_EXIT_USAGE;
}

static int query(sqlite3 *db) {
  char *path = xp_asprintf("%s/queries/kernel_variants.sql", getenv("XP_SRC"));
  char *sql = xp_read_file(path, NULL);
  CHECK(sql != NULL);
  int rc = sql ? xp_query_text(db, sql, path, NULL, 0, collect, NULL) : 1;
  free(sql);
  free(path);
  return rc;
}

/* The row of shape (of those sizes)/M/group, or NULL. Columns: arch|gpu|family|shape|sizes|M|
** group|best|us|gbps|pct_copy|dequant_us|x_vs_dequant|bf16_baseline|bf16_us|x_vs_bf16|run|
** read_floor_us|x_read_floor */
static const char *row_sized(const char *arch, const char *shape, const char *sizes, int m, const char *group) {
  char key[192];
  snprintf(key, sizeof key, "%s|NVIDIA H200|w4a16|%s|%s|%d|%s|", arch, shape, sizes, m, group);
  for (int i = 0; i < nrows; i++)
    if (strncmp(rows[i], key, strlen(key)) == 0) return rows[i] + strlen(key);
  return NULL;
}

/* Field i (0: best) of a row's rest, as row_sized gives it; "" past its end. */
static const char *field(const char *rest, int i, char *out, size_t n) {
  for (; rest && i > 0; i--) rest = (rest = strchr(rest, '|')) ? rest + 1 : NULL;
  snprintf(out, n, "%.*s", rest ? (int)strcspn(rest, "|") : 0, rest ? rest : "");
  return out;
}

/* The first 8 digits of the UUID of the run recorded nth (1: the first), as xp runs names it. */
static const char *run_named(sqlite3 *db, int nth, char out[16]) {
  sqlite3_stmt *st = NULL;
  out[0] = 0;
  if (sqlite3_prepare_v2(db, "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id LIMIT 1 OFFSET ?1", -1, &st, NULL) ==
      SQLITE_OK) {
    sqlite3_bind_int(st, 1, nth - 1);
    if (sqlite3_step(st) == SQLITE_ROW) snprintf(out, 16, "%s", (const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  return out;
}

/* The row of one of Kimi-K2.5's shapes. */
static const char *row_of(const char *arch, const char *shape, int m, const char *group) {
  if (strcmp(shape, "moe_layer") == 0)
    return row_sized(arch, shape, "hidden=7168 intermediate=256 experts=384 topk=8", m, group);
  return row_sized(arch, shape, "n=512 k=7168", m, group);
}

int main(void) {
  if (!getenv("XP_SRC")) {
    printf("skipped: XP_SRC (the repository root) is not set\n");
    return 77;
  }
  snprintf(dir, sizeof dir, "/tmp/xp-test-w4q-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  char *path = xp_asprintf("%s/x.db", dir);
  int rc;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  if (db) {
    static const fake older[] = {
        {"fused_gemv", "candidate", "gate_up", "ok", 1, 128, 1.0, 0}, /* superseded by the newer run */
        {"cublas_bf16", "bf16", "gate_up", "ok", 1, 0, 7.0, 0}};
    static const fake run[] = {
        {"cublas_bf16", "bf16", "gate_up", "ok", 1, 0, 6.8, 0},
        {"dequant_cublas", "dequant", "gate_up", "ok", 1, 128, 9.0, 0},
        {"dequant_cublas", "dequant", "gate_up", "ok", 1, 32, 9.5, 0},
        {"fused_gemv", "candidate", "gate_up", "ok", 1, 128, 3.4, 0},
        {"fused_mma", "candidate", "gate_up", "ok", 1, 128, 2.0, 0},
        {"fused_splitk", "candidate", "gate_up", "ok", 1, 128, 1.7, 0.85},
        {"fused_splitk", "candidate", "gate_up", "failed", 1, 32, 0.1, 0},  /* failed: never best */
        {"fused_mma", "candidate", "gate_up", "ok", 1, 32, 1.9, 0},
        {"fused_gemv", "candidate", "gate_up", "skipped", 16, 128, 0, 0},
        {"fused_mma", "candidate", "gate_up", "ok", 16, 128, 2.5, 0},
        {"cublas_bf16", "bf16", "gate_up", "ok", 16, 0, 7.5, 0},
        {"cublas_bf16_per_expert", "bf16", "moe_layer", "ok", 1, 0, 90.0, 0},
        {"grouped_moe", "candidate", "moe_layer", "ok", 1, 128, 12.0, 0},
        {"grouped_moe_pdl", "candidate", "moe_layer", "ok", 1, 128, 10.0, 4.0}};
    static const fake other_arch[] = {{"fused_mma", "candidate", "gate_up", "ok", 1, 128, 4.0, 0}};
    CHECK_EQ_INT(record(db, "sm_90", older, 2), 0);
    CHECK_EQ_INT(record(db, "sm_90", run, (int)(sizeof run / sizeof run[0])), 0);
    CHECK_EQ_INT(record(db, "sm_120", other_arch, 1), 0);
    /* The newest run: GLM-4.5's gate_up, a shape of the same name but other sizes. It is a row
    ** of its own and hides none of Kimi-K2.5's (which took its place, 0.9 us best). */
    static const fake glm[] = {{"fused_mma", "candidate", "gate_up", "ok", 1, 128, 0.9, 0},
                               {"dequant_cublas", "dequant", "gate_up", "ok", 1, 128, 2.7, 0}};
    pending_glm = 1;
    CHECK_EQ_INT(record(db, "sm_90", glm, 2), 0);
    pending_glm = 0;
    /* Equal medians (a timer's resolution): the steadier kernel (lower p90), then the first
    ** name, whatever order the cases were recorded in. */
    static const fake ties[] = {{"fused_wide", "candidate", "gate_up", "ok", 1, 128, 1.5, 0},
                                {"fused_steady", "candidate", "gate_up", "ok", 1, 128, 1.5, 0},
                                {"fused_zeta", "candidate", "gate_up", "ok", 2, 128, 1.5, 0},
                                {"fused_alpha", "candidate", "gate_up", "ok", 2, 128, 1.5, 0}};
    static const double spread[] = {0.05, 0.01, 0.01, 0.01};
    pending_spread = spread;
    CHECK_EQ_INT(record(db, "sm_100", ties, 4), 0);
    pending_spread = NULL;
    CHECK_EQ_INT(query(db), 0);
    CHECK_EQ_INT(nrows, 8);
    const char *t = row_of("sm_100", "gate_up", 1, "128");
    CHECK(t && strncmp(t, "fused_steady|1.5|", 17) == 0);
    /* each row names its run as xp runs does (it read the internal row id, 5) */
    char got[64], want[16];
    CHECK_EQ_STR(field(t, 9, got, sizeof got), run_named(db, 5, want));
    CHECK_EQ_STR(field(row_of("sm_90", "gate_up", 1, "128"), 9, got, sizeof got), run_named(db, 2, want));
    CHECK_EQ_INT((int)strlen(want), 8);
    t = row_of("sm_100", "gate_up", 2, "128");
    CHECK(t && strncmp(t, "fused_alpha|1.5|", 16) == 0);
    const char *g = row_sized("sm_90", "gate_up", "n=384 k=5120", 1, "128");
    CHECK(g && strncmp(g, "fused_mma|0.9|", 14) == 0);
    CHECK(g && strstr(g, "|2.7|3.0|||") != NULL); /* its own dequant baseline; no bf16 in its run */
    const char *r = row_of("sm_90", "gate_up", 1, "128");
    CHECK(r && strncmp(r, "fused_splitk|1.7|", 17) == 0);
    CHECK(r && strstr(r, "|9.0|5.29|cublas_bf16|6.8|4.0|") != NULL);
    CHECK(r && strstr(r, "|0.85|2.0") != NULL && r[strlen(r) - 1] == '0'); /* its read floor, 2x */
    r = row_of("sm_90", "gate_up", 1, "32");
    CHECK(r && strncmp(r, "fused_mma|1.9|", 14) == 0);
    CHECK(r && strstr(r, "|9.5|5.0|cublas_bf16|6.8|3.58|") != NULL);
    r = row_of("sm_90", "gate_up", 16, "128");
    CHECK(r && strncmp(r, "fused_mma|2.5|", 14) == 0);
    CHECK(r && strstr(r, "|||cublas_bf16|7.5|3.0|") != NULL); /* no dequant case at M=16 */
    r = row_of("sm_90", "moe_layer", 1, "128");
    CHECK(r && strncmp(r, "grouped_moe_pdl|10.0|100.0|2.5|", 31) == 0);
    CHECK(r && strstr(r, "|cublas_bf16_per_expert|90.0|9.0|") != NULL);
    CHECK(r && strstr(r, "|4.0|2.5") != NULL);
    r = row_of("sm_90", "gate_up", 1, "32");
    CHECK(r && r[strlen(r) - 1] == '|' && r[strlen(r) - 2] == '|'); /* no floor recorded: empty */
    r = row_of("sm_120", "gate_up", 1, "128");
    CHECK(r && strncmp(r, "fused_mma|4.0|", 14) == 0);
    CHECK(r && strstr(r, "||||") != NULL); /* no baselines in that run */
    if (check_failures)
      for (int i = 0; i < nrows; i++) fprintf(stderr, "row: %s\n", rows[i]);
    xp_db_close(db);
  }
  free(path);
  char *cmd = xp_asprintf("rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(cmd);
  CHECK_DONE();
}
