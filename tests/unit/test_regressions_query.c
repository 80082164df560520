/*
** queries/regressions.sql over gemm and kernel_variant runs recorded the way their runners
** record them (harness/runners/gemm.c case_params and record_result, kernel_variant.c
** problem_params and its seed), without a GPU: a newer run 50% slower is listed, worse, though
** what the run found beside its time changed with it (cuBLASLt's best algorithm and its index,
** the bound, the check's error; the random seed a kernel_variant run draws afresh). Those are in
** each case's params, and a series keyed on them held one run each: nothing was ever compared.
*/
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "kind.h"
#include "query.h"
#include "xp.h"

/* What one fake run measures: its case's time and what the runner found with it. */
static struct {
  double us;
  const char *algo_best, *bound;
  int best_index;
  double err;
  int seed;
} now;

static int record_times(xp_run *run, int64_t id) {
  double us[3] = {now.us * 0.99, now.us, now.us * 1.01};
  return id < 0 || xp_run_metric(run, id, "time_us", "us", us, 3) ? XP_EXIT_DB : 0;
}

static int fake_gemm(xp_ctx *ctx) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "batch", 1);
  cJSON_AddNumberToObject(p, "m", 1);
  cJSON_AddNumberToObject(p, "n", 7168);
  cJSON_AddNumberToObject(p, "k", 1024);
  cJSON_AddNumberToObject(p, "bmm", 1);
  cJSON_AddNumberToObject(p, "count", 61);
  cJSON_AddStringToObject(p, "dtype", "bf16");
  cJSON_AddStringToObject(p, "cache", "cold");
  cJSON_AddNumberToObject(p, "bytes", 14696448);
  cJSON_AddNumberToObject(p, "flops", 14680064);
  cJSON_AddNumberToObject(p, "candidates", 8);
  cJSON_AddNumberToObject(p, "candidates_wrong", 0);
  cJSON_AddNumberToObject(p, "candidates_refused", 0);
  cJSON_AddNumberToObject(p, "check_max_err_rms", now.err);
  cJSON_AddNumberToObject(p, "cold_buffers", 12);
  cJSON_AddNumberToObject(p, "launches", 20);
  cJSON_AddStringToObject(p, "algo_default", "algo=6 tile=20 stages=8");
  cJSON_AddStringToObject(p, "algo_best", now.algo_best);
  cJSON_AddNumberToObject(p, "default_index", 0);
  cJSON_AddNumberToObject(p, "best_index", now.best_index);
  cJSON_AddStringToObject(p, "bound", now.bound);
  cJSON_AddStringToObject(p, "bound_best", now.bound);
  int64_t id = xp_run_case(ctx->run, "o_proj", p, "ok", NULL);
  cJSON_Delete(p);
  return record_times(ctx->run, id);
}

static int fake_variant(xp_ctx *ctx) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "family", "w4a16");
  cJSON_AddStringToObject(p, "variant", "fused_mma");
  cJSON_AddStringToObject(p, "role", "candidate");
  cJSON_AddStringToObject(p, "shape", "gate_up");
  cJSON_AddStringToObject(p, "type", "gemm");
  cJSON_AddNumberToObject(p, "n", 512);
  cJSON_AddNumberToObject(p, "k", 7168);
  cJSON_AddNumberToObject(p, "m", 1);
  cJSON_AddNumberToObject(p, "group", 128);
  cJSON_AddStringToObject(p, "arch", "sm_90");
  cJSON_AddStringToObject(p, "gpu", "NVIDIA H200");
  cJSON_AddNumberToObject(p, "seed", now.seed);
  int64_t id = xp_run_case(ctx->run, "fused_mma/gate_up/m1/g128", p, "ok", NULL);
  cJSON_Delete(p);
  return record_times(ctx->run, id);
}

static const xp_kind gemm_kind = {.name = "gemm", .execute = fake_gemm};
static const xp_kind variant_kind = {.name = "kernel_variant", .execute = fake_variant};

static int run_kind(sqlite3 *db, const xp_kind *k, const char *spec_json) {
  xp_spec *s = xp_spec_parse_json(spec_json, "<test>", test_dir);
  xp_error_quiet(1);
  int rc = s ? xp_execute_spec(db, k, s, 0, NULL, NULL) : 1;
  xp_error_quiet(0);
  xp_spec_free(s);
  return rc;
}

/* Rows: kind|case_name|metric|older_runs|change_pct|verdict */
static const char *const cols[] = {"kind", "case_name", "metric", "older_runs", "change_pct", "verdict"};

int main(void) {
  if (!getenv("XP_SRC")) {
    printf("skipped: XP_SRC (the repository root) is not set\n");
    return 77;
  }
  if (!test_dir_make("/tmp/xp-test-regq-XXXXXX")) return 1;
  char *path = test_path("x.db");
  int rc;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  if (db) {
    static const char gemm_spec[] = "{\"kind\":\"gemm\",\"model\":\"Kimi-K2.5\",\"tp\":8,\"dtype\":\"bf16\",\"m\":[1]}";
    static const char kv_spec[] = "{\"kind\":\"kernel_variant\",\"model\":\"Kimi-K2.5\",\"tp\":8}";
    /* older: 6 us, memory-bound on algorithm 21; newer: 9 us (+50%), another best algorithm,
    ** latency-bound, a check error a little apart. The variant: 2 us, then 3 us, each its seed. */
    now.us = 6, now.algo_best = "algo=21 tile=18", now.bound = "memory", now.best_index = 3;
    now.err = 0.0011, now.seed = 1234567;
    CHECK_EQ_INT(run_kind(db, &gemm_kind, gemm_spec), 0);
    now.us = 2;
    CHECK_EQ_INT(run_kind(db, &variant_kind, kv_spec), 0);
    now.us = 9, now.algo_best = "algo=6 tile=20 stages=8", now.bound = "latency", now.best_index = 0;
    now.err = 0.0012, now.seed = 7654321;
    CHECK_EQ_INT(run_kind(db, &gemm_kind, gemm_spec), 0);
    now.us = 3;
    CHECK_EQ_INT(run_kind(db, &variant_kind, kv_spec), 0);
    test_rows rows = {.cols = cols, .ncols = sizeof cols / sizeof *cols};
    CHECK_EQ_INT(test_query_rows(db, "regressions.sql", &rows), 0);
    CHECK_EQ_INT(rows.n, 2);
    /* (9 - 6) / 6 and (3 - 2) / 2: each against the one older run */
    CHECK(test_has_row(&rows, "gemm|o_proj|time_us|1|50.0|worse"));
    CHECK(test_has_row(&rows, "kernel_variant|fused_mma/gate_up/m1/g128|time_us|1|50.0|worse"));
    if (check_failures)
      for (int i = 0; i < rows.n; i++) fprintf(stderr, "row: %s\n", rows.row[i]);
    xp_db_close(db);
  }
  free(path);
  test_dir_remove();
  CHECK_DONE();
}
