/*
** What a gemm run records of the setup it measured under, the spec's defaults among them: a
** model of FP4 experts (DeepSeek-V4-Flash) left at the default MXFP4 backend (triton) recorded
** no gemm.mxfp4_backend, so its runs could not be told from a marlin run's by run_meta.
*/
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "db.h"
#include "kind.h"
#include "runners/gemm.h"
#include "testutil.h"
#include "xp.h"

static int record_only(xp_ctx *ctx) { return xp_gemm_record_setup(ctx->run, ctx->spec); }

/* run_meta's value of key for the run whose spec is text, or NULL (caller frees). */
static char *meta_of(sqlite3 *db, const xp_kind *k, const char *text, const char *key) {
  char *p = test_write_file("spec.toml", text);
  xp_spec *s = xp_spec_load(p);
  free(p);
  CHECK(s != NULL);
  if (!s) return NULL;
  char uuid[37];
  CHECK_EQ_INT(xp_validate_spec(k, s), 0);
  CHECK_EQ_INT(xp_execute_spec(db, k, s, 0, NULL, uuid), 0);
  xp_spec_free(s);
  char *q = sqlite3_mprintf("SELECT value FROM run_meta WHERE key = %Q AND run_id = (SELECT id FROM runs "
                            "WHERE uuid = %Q)", key, uuid);
  char *v = one_text(db, q);
  sqlite3_free(q);
  return v;
}

int main(void) {
  const char *src = getenv("XP_SRC");
  if (!src) {
    printf("skipped: XP_SRC (the repository root) is not set\n");
    return 77;
  }
  if (!test_dir_make("/tmp/xp-test-gemm-setup-XXXXXX")) return 1;
  xp_kind probe = *xp_kind_find("gemm");
  probe.execute = record_only; /* the setup alone: no GPU */
  probe.needs_gpu = 0;
  char *dbp = test_path("setup.db");
  int rc;
  sqlite3 *db = xp_db_open(dbp, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  char *v4 = xp_asprintf("kind = \"gemm\"\nmodel_file = \"%s/experiments/models/DeepSeek-V4-Flash.toml\"\n"
                         "tp = 8\nm = [1]\n", src);
  char *got = meta_of(db, &probe, v4, "gemm.mxfp4_backend");
  CHECK_EQ_STR(got, "triton"); /* the default, left out of the spec */
  free(got);
  char *marlin = xp_asprintf("%smxfp4_backend = \"marlin\"\n", v4);
  got = meta_of(db, &probe, marlin, "gemm.mxfp4_backend");
  CHECK_EQ_STR(got, "marlin");
  free(got);
  /* experts in FP8 (Kimi-K2.5's are INT4, DeepSeek-V3's FP8): no MXFP4 padding to name */
  char *v3 = xp_asprintf("kind = \"gemm\"\nmodel_file = \"%s/experiments/models/DeepSeek-V3.toml\"\ntp = 8\nm = [1]\n", src);
  got = meta_of(db, &probe, v3, "gemm.mxfp4_backend");
  CHECK(got == NULL);
  free(got);
  got = meta_of(db, &probe, v3, "gemm.mla");
  CHECK_EQ_STR(got, "absorbed");
  free(got);
  free(v4);
  free(marlin);
  free(v3);
  xp_db_close(db);
  free(dbp);
  test_dir_remove();
  CHECK_DONE();
}
