/* What GEMM runs leave in the database, read back without a GPU: finding the latest ceilings
** run of a device and driver, queries/gemm_decode_step.sql and queries/gemm_roofline.sql
** over runs recorded the way the gemm and ceilings runners record them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "kind.h"
#include "query.h"
#include "runners/ceilings.h"
#include "runners/gemm_pick.h"
#include "xp.h"


/* ---- a ceilings run as the runner files it ---- */

static struct {
  const char *uuid, *name, *driver;
  double copy_gbps, bf16_tflops;
  int fail;
  const char *fp8_failed; /* a matmul_fp8 peak cuBLASLt ran no plan for: why */
  int copy_only;          /* matmul_dtypes = []: the copy alone */
} ceil_in;

static int fake_ceilings(xp_ctx *ctx) {
  if (ceil_in.fail) return xp_error(XP_EXIT_FAILED, "planned failure");
  xp_ceilings_meas m = {0};
  double copy_us[3] = {500, 499, 501}, copy_rate[3], mm_us[3] = {1400, 1390, 1410}, mm_rate[3];
  for (int i = 0; i < 3; i++) {
    copy_rate[i] = ceil_in.copy_gbps * (1 + 0.01 * (i - 1));
    mm_rate[i] = ceil_in.bf16_tflops * (1 - 0.01 * (i - 1));
  }
  m.nr = 2;
  m.r[0] = (xp_ceiling_result){.name = "copy", .algo = "copy16", .bytes = 1 << 30, .blocks = 1056,
                               .launches = 10, .n = 3, .time_us = copy_us, .rate = copy_rate};
  m.r[1] = (xp_ceiling_result){.name = "matmul_bf16", .algo = "algo=66", .size = 8192, .launches = 5,
                               .n = 3, .time_us = mm_us, .rate = mm_rate};
  /* the peak's candidates as ceilings.c leaves them: the second refused by cuBLASLt, left out */
  const xp_gemm_cand cand[3] = {{.outcome = XP_GEMM_RIGHT, .algo = 66},
                                {.outcome = XP_GEMM_REFUSED, .algo = 31, .status = "CUBLAS_STATUS_NOT_SUPPORTED"},
                                {.outcome = XP_GEMM_WRONG, .algo = 21}};
  m.r[1].ncand = 3;
  m.r[1].nrefused = xp_gemm_count(cand, 3, XP_GEMM_REFUSED);
  xp_gemm_refused_list(cand, 3, m.r[1].refused, sizeof m.r[1].refused);
  if (ceil_in.copy_only) m.nr = 1;
  if (ceil_in.fp8_failed) {
    m.r[m.nr] = (xp_ceiling_result){.name = "matmul_fp8", .size = 8192, .failed = 1};
    snprintf(m.r[m.nr++].note, sizeof m.r[0].note, "%s", ceil_in.fp8_failed);
  }
  xp_ceilings summary;
  xp_ceilings_summarize(&m, &summary);
  if (summary.fp8_tflops != 0) return xp_error(XP_EXIT_FAILED, "a failed peak summarized");
  if (xp_ceilings_record_identity(ctx->run, 0, ceil_in.uuid, ceil_in.name, ceil_in.driver) ||
      xp_ceilings_record(ctx->run, &m, ""))
    return XP_EXIT_DB;
  return 0;
}

static const xp_kind ceilings_kind = {.name = "ceilings", .execute = fake_ceilings};

static int run_kind(sqlite3 *db, const xp_kind *k, const char *spec_json) {
  xp_spec *s = xp_spec_parse_json(spec_json, "<test>", test_dir);
  CHECK(s != NULL);
  xp_error_quiet(1);
  int rc = xp_execute_spec(db, k, s, 0, NULL, NULL);
  xp_error_quiet(0);
  xp_spec_free(s);
  return rc;
}

static int add_ceilings(sqlite3 *db, const char *uuid, const char *driver, double copy, int fail) {
  ceil_in.uuid = uuid, ceil_in.name = "NVIDIA H200", ceil_in.driver = driver;
  ceil_in.copy_gbps = copy, ceil_in.bf16_tflops = 790, ceil_in.fail = fail;
  return run_kind(db, &ceilings_kind, "{\"kind\":\"ceilings\"}");
}

static void test_lookup(sqlite3 *db) {
  xp_ceilings c;
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-a", "NVIDIA H200", "580.1", &c), 1); /* none yet */
  CHECK_EQ_INT(add_ceilings(db, "GPU-a", "580.1", 4300, 0), 0);
  CHECK_EQ_INT(add_ceilings(db, "GPU-b", "580.1", 4100, 0), 0);    /* newer, other GPU */
  CHECK_EQ_INT(add_ceilings(db, "GPU-a", "575.9", 3000, 0), 0);    /* other driver */
  CHECK_EQ_INT(add_ceilings(db, "GPU-a", "580.1", 1, 1), XP_EXIT_FAILED); /* failed: ignored */

  /* This very GPU wins over a newer run of another GPU of the same name. */
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-a", "NVIDIA H200", "580.1", &c), 0);
  CHECK_NEAR(c.copy_gbps, 4300, 1e-9);
  CHECK_NEAR(c.bf16_tflops, 790, 1e-9);
  CHECK_EQ_INT(c.fp8_tflops, 0);
  CHECK_EQ_STR(c.match, "uuid");
  CHECK_EQ_INT(strlen(c.run_uuid), 36);
  /* A GPU without ceilings of its own borrows the latest of its model under its driver. */
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-c", "NVIDIA H200", "580.1", &c), 0);
  CHECK_NEAR(c.copy_gbps, 4100, 1e-9);
  CHECK_EQ_STR(c.match, "name");
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-a", "NVIDIA H200", "575.9", &c), 0);
  CHECK_NEAR(c.copy_gbps, 3000, 1e-9);
  /* No match: other driver, other GPU model. */
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-a", "NVIDIA H200", "590.0", &c), 1);
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-z", "NVIDIA B200", "580.1", &c), 1);
  /* a peak's candidates cuBLASLt refused are named in its case, as gemm's cases name theirs */
  sqlite3_stmt *st = NULL;
  CHECK_EQ_INT(sqlite3_prepare_v2(db, "SELECT json_extract(params, '$.candidates'), json_extract(params,"
               " '$.candidates_refused'), json_extract(params, '$.refused') FROM cases WHERE name = 'matmul_bf16'"
               " LIMIT 1", -1, &st, NULL), SQLITE_OK);
  CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_EQ_INT(sqlite3_column_int(st, 0), 3);
  CHECK_EQ_INT(sqlite3_column_int(st, 1), 1);
  CHECK_EQ_STR((const char *)sqlite3_column_text(st, 2), "#1 algo=31 CUBLAS_STATUS_NOT_SUPPORTED");
  sqlite3_finalize(st);
  /* a peak cuBLASLt ran no plan for: its case failed with why, the run and its other ceilings ok */
  ceil_in.fp8_failed = "cuBLASLt refused every candidate: #0 algo=7 CUBLAS_STATUS_NOT_SUPPORTED";
  CHECK_EQ_INT(add_ceilings(db, "GPU-f", "580.1", 4200, 0), 0);
  ceil_in.fp8_failed = NULL;
  CHECK_EQ_INT(sqlite3_prepare_v2(db, "SELECT c.status || '|' || c.note || '|' || r.status FROM cases c JOIN runs r"
               " ON r.id = c.run_id WHERE c.name = 'matmul_fp8'", -1, &st, NULL), SQLITE_OK);
  CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_EQ_STR((const char *)sqlite3_column_text(st, 0),
               "failed|cuBLASLt refused every candidate: #0 algo=7 CUBLAS_STATUS_NOT_SUPPORTED|ok");
  sqlite3_finalize(st);
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-f", "NVIDIA H200", "580.1", &c), 0);
  CHECK_NEAR(c.copy_gbps, 4200, 1e-9);
  CHECK_NEAR(c.bf16_tflops, 790, 1e-9);
  CHECK_EQ_INT(c.fp8_tflops, 0);
  /* a later run of matmul_dtypes = [] serves the copy alone; a bf16 gemm gets the latest run
  ** that measured bf16 (it got the copy-only run: "has no bf16 matmul peak") */
  ceil_in.copy_only = 1;
  CHECK_EQ_INT(add_ceilings(db, "GPU-a", "580.1", 4400, 0), 0);
  ceil_in.copy_only = 0;
  CHECK_EQ_INT(xp_ceilings_lookup(db, "GPU-a", "NVIDIA H200", "580.1", &c), 0);
  CHECK_NEAR(c.copy_gbps, 4400, 1e-9);
  CHECK_EQ_INT(c.bf16_tflops, 0);
  CHECK_EQ_INT(xp_ceilings_lookup_peaks(db, "GPU-a", "NVIDIA H200", "580.1", 1, 0, &c), 0);
  CHECK_NEAR(c.copy_gbps, 4300, 1e-9);
  CHECK_NEAR(c.bf16_tflops, 790, 1e-9);
  /* an fp8 peak failed on GPU-f: no run of this driver has one */
  CHECK_EQ_INT(xp_ceilings_lookup_peaks(db, "GPU-f", "NVIDIA H200", "580.1", 0, 1, &c), 1);
}

/* ---- gemm runs as the runner records them ---- */

struct gcase {
  const char *name, *cache, *status;
  int batch, m, n, k, count;
  double def_us, best_us;
};
static const struct gcase *gcases;
static size_t ngcases;

static int fake_gemm(xp_ctx *ctx) {
  for (size_t i = 0; i < ngcases; i++) {
    const struct gcase *g = &gcases[i];
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "batch", g->batch);
    cJSON_AddNumberToObject(p, "m", g->m);
    cJSON_AddNumberToObject(p, "n", g->n);
    cJSON_AddNumberToObject(p, "k", g->k);
    cJSON_AddNumberToObject(p, "bmm", 1);
    cJSON_AddNumberToObject(p, "count", g->count);
    cJSON_AddStringToObject(p, "dtype", "bf16");
    cJSON_AddStringToObject(p, "cache", g->cache);
    int ok = strcmp(g->status, "ok") == 0;
    if (ok) cJSON_AddStringToObject(p, "bound_best", "memory");
    int64_t id = xp_run_case(ctx->run, g->name, p, g->status, ok ? NULL : "default algorithm wrong");
    cJSON_Delete(p);
    if (id < 0) return XP_EXIT_DB;
    if (!ok) continue;
    double d[3] = {g->def_us * 1.01, g->def_us, g->def_us * 0.99};
    double b[3] = {g->best_us, g->best_us * 1.02, g->best_us * 0.98};
    if (xp_run_metric(ctx->run, id, "time_us", "us", d, 3) ||
        xp_run_metric(ctx->run, id, "time_best_us", "us", b, 3) ||
        xp_run_value(ctx->run, id, "gbps_best", "GB/s", 3000) ||
        xp_run_value(ctx->run, id, "bw_share_best", "ratio", 0.7))
      return XP_EXIT_DB;
  }
  return 0;
}

static const xp_kind gemm_kind = {.name = "gemm", .execute = fake_gemm};

static char rows[16][512];
static int nrows;

static int collect(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  nrows = 0;
  while (sqlite3_step(st) == SQLITE_ROW && nrows < 16) {
    char *r = rows[nrows++];
    r[0] = 0;
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      snprintf(r + strlen(r), 512 - strlen(r), "%s%s", i ? "|" : "", t ? (const char *)t : "");
    }
  }
  return 0;
}

static int query(sqlite3 *db, const char *name, const xp_param *params, int np) {
  char *path = xp_asprintf("%s/queries/%s", getenv("XP_SRC"), name);
  char *sql = xp_read_file(path, NULL);
  CHECK(sql != NULL);
  int rc = sql ? xp_query_text(db, sql, path, params, np, collect, NULL) : 1;
  free(sql);
  free(path);
  return rc;
}

static void test_decode_step(sqlite3 *db) {
  static const struct gcase older[] = {
      {"o_proj", "cold", "ok", 1, 1, 7168, 1024, 61, 99, 99}};
  static const struct gcase cases[] = {
      {"o_proj", "cold", "ok", 1, 1, 7168, 1024, 61, 6.0, 5.0},
      {"moe_gate_up", "cold", "ok", 1, 1, 512, 7168, 480, 7.0, 6.5},
      {"o_proj", "hot", "ok", 1, 1, 7168, 1024, 61, 5.0, 4.0},       /* hot: not a decode step */
      {"o_proj", "cold", "ok", 16, 16, 7168, 1024, 61, 7.0, 6.0},
      {"moe_gate_up", "cold", "failed", 16, 2, 512, 7168, 6600, 0, 0},
      {"moe_down", "cold", "skipped", 16, 2, 7168, 256, 6600, 0, 0}};
  gcases = older, ngcases = 1;
  CHECK_EQ_INT(run_kind(db, &gemm_kind, "{\"kind\":\"gemm\",\"model\":\"Kimi-K2.5\",\"tp\":8,"
                        "\"dtype\":\"bf16\",\"m\":[1]}"), 0);
  gcases = cases, ngcases = sizeof cases / sizeof *cases;
  CHECK_EQ_INT(run_kind(db, &gemm_kind, "{\"kind\":\"gemm\",\"model\":\"Kimi-K2.5\",\"tp\":8,"
                        "\"dtype\":\"bf16\",\"m\":[1,16]}"), 0);
  /* another model's run must not leak in */
  CHECK_EQ_INT(run_kind(db, &gemm_kind, "{\"kind\":\"gemm\",\"model\":\"DeepSeek-V3\",\"tp\":8,"
                        "\"m\":[1]}"), 0);

  /* a later run at another TP must not replace this one's answer */
  CHECK_EQ_INT(run_kind(db, &gemm_kind, "{\"kind\":\"gemm\",\"model\":\"Kimi-K2.5\",\"tp\":4,"
                        "\"dtype\":\"bf16\",\"m\":[1]}"), 0);

  xp_param p[3] = {{"model", "Kimi-K2.5"}, {"batch", "1"}, {"tp", "8"}};
  CHECK_EQ_INT(query(db, "gemm_decode_step.sql", p, 3), 0);
  CHECK_EQ_INT(nrows, 3);
  /* gemm|m|n|k|bmm|count|default_us|best_us|step_default_us|step_best_us|pct_of_step */
  CHECK_EQ_STR(rows[0], "o_proj|1|7168|1024|1|61|6.0|5.0|366.0|305.0|8.9");
  CHECK_EQ_STR(rows[1], "moe_gate_up|1|512|7168|1|480|7.0|6.5|3360.0|3120.0|91.1");
  /* 61 x 5 + 480 x 6.5 = 3425 us with the best algorithms; 61 x 6 + 480 x 7 = 3726 default */
  CHECK(strncmp(rows[2], "decode step total (bf16, tp=8, run ", 35) == 0);
  if (strncmp(rows[2], "decode step total (bf16, tp=8, run ", 35)) fprintf(stderr, "%s\n", rows[2]);
  CHECK(strstr(rows[2], "|||||541|||3726.0|3425.0|100.0") != NULL);

  p[1].value = "16";
  CHECK_EQ_INT(query(db, "gemm_decode_step.sql", p, 3), 0);
  CHECK_EQ_INT(nrows, 4);
  /* a skipped GEMM (FP4 in a checkpoint run, fp8_block off Hopper) is not a failed one */
  CHECK(strstr(rows[3], "incomplete: 1 GEMM(s) failed, 1 GEMM(s) skipped (not measured at their dtype)") != NULL);
  if (!strstr(rows[3], "1 GEMM(s) skipped")) fprintf(stderr, "%s\n", rows[3]);
  CHECK(strstr(rows[3], "|427.0|366.0|") != NULL);

  /* A newer run of the model on another GPU (declared, as --set gpu=): the answer is its, and
  ** the total says which GPU it is, where it named neither (an RTX PRO 6000's step read as
  ** the H200's measured before it). */
  static const struct gcase pro[] = {{"o_proj", "cold", "ok", 1, 1, 7168, 1024, 61, 12.0, 10.0}};
  gcases = pro, ngcases = 1;
  CHECK_EQ_INT(run_kind(db, &gemm_kind, "{\"kind\":\"gemm\",\"model\":\"Kimi-K2.5\",\"tp\":8,"
                        "\"dtype\":\"bf16\",\"m\":[1],\"gpu\":\"NVIDIA RTX PRO 6000 Blackwell Server Edition\"}"), 0);
  p[1].value = "1";
  CHECK_EQ_INT(query(db, "gemm_decode_step.sql", p, 3), 0);
  CHECK_EQ_INT(nrows, 2);
  const char *named = "decode step total (bf16, tp=8, NVIDIA RTX PRO 6000 Blackwell Server Edition, run ";
  CHECK(strncmp(rows[1], named, strlen(named)) == 0);
  if (strncmp(rows[1], named, strlen(named))) fprintf(stderr, "%s\n", rows[1]);
  CHECK(strstr(rows[1], "|732.0|610.0|100.0") != NULL); /* 61 x 12, 61 x 10 */
  /* The model in any case, as a gemm spec takes it against its model file: kimi-k2.5 said
  ** 'no gemm run of this model at this tp measured this batch cold'. */
  p[0].value = "kimi-k2.5";
  CHECK_EQ_INT(query(db, "gemm_decode_step.sql", p, 3), 0);
  CHECK_EQ_INT(nrows, 2);
  CHECK(nrows == 2 && strstr(rows[1], "|732.0|610.0|100.0") != NULL);
  p[0].value = "Kimi-K2.5";

  /* Unknown batch or model: only the total row, empty. */
  p[1].value = "7";
  CHECK_EQ_INT(query(db, "gemm_decode_step.sql", p, 3), 0);
  CHECK_EQ_INT(nrows, 1);
  CHECK_EQ_STR(rows[0], "decode step total (no gemm run of this model at this tp measured this batch "
                        "cold)||||||||||");
  xp_error_quiet(1);
  CHECK_EQ_INT(query(db, "gemm_decode_step.sql", p, 1), XP_EXIT_USAGE); /* :batch missing */
  xp_error_quiet(0);
}

static void test_roofline(sqlite3 *db) {
  static const struct gcase cases[] = {
      {"dense_gate_up", "cold", "ok", 1, 1, 4608, 7168, 1, 21.0, 20.0},
      {"dense_gate_up", "hot", "ok", 1, 1, 4608, 7168, 1, 20.5, 20.5},
      {"lm_head", "cold", "failed", 1, 1, 20480, 7168, 1, 0, 0}};
  gcases = cases, ngcases = 3;
  CHECK_EQ_INT(run_kind(db, &gemm_kind, "{\"kind\":\"gemm\",\"m\":[1],\"gpu\":\"NVIDIA H200\"}"), 0);
  CHECK_EQ_INT(query(db, "gemm_roofline.sql", NULL, 0), 0);
  /* The latest run of each GPU, named with its run: the RTX PRO 6000's of test_decode_step
  ** stays beside this newer H200's (it was hidden, and the H200's rows named no GPU), and
  ** the runs that name no GPU are a GPU of their own (its latest: 6 rows, first). */
  CHECK_EQ_INT(nrows, 10);
  /* gpu|run|gemm|batch|m|n|k|bmm|dtype|cache|default_us|best_us|best_speedup|gbps|pct_copy|... */
  CHECK(strncmp(rows[0], "|", 1) == 0);
  const char *h200[] = {"|dense_gate_up|1|1|4608|7168|1|bf16|cold|21.0|20.0|1.05|3000.0|70.0|||memory||",
                        "|dense_gate_up|1|1|4608|7168|1|bf16|hot|20.5|20.5|1.0|3000.0|70.0|||memory||",
                        "|lm_head|1|1|20480|7168|1|bf16|cold||||||||failed||default algorithm wrong"};
  for (int i = 0; i < 3; i++) {
    CHECK(strncmp(rows[6 + i], "NVIDIA H200|", 12) == 0 && strlen(rows[6 + i]) == 12 + 8 + strlen(h200[i]));
    CHECK_EQ_STR(rows[6 + i] + 20, h200[i]);
  }
  CHECK(strncmp(rows[9], "NVIDIA RTX PRO 6000 Blackwell Server Edition|", 45) == 0);
  CHECK(strstr(rows[9], "|o_proj|1|1|7168|1024|1|bf16|cold|12.0|10.0|1.2|") != NULL);
}

int main(void) {
  if (!getenv("XP_SRC")) {
    printf("skipped: XP_SRC (the repository root) is not set\n");
    return 77;
  }
  if (!test_dir_make("/tmp/xp-test-gemmq-XXXXXX")) return 1;
  char *path = test_path("x.db");
  int rc;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  if (db) {
    test_lookup(db);
    test_decode_step(db);
    test_roofline(db);
    xp_db_close(db);
  }
  free(path);
  test_dir_remove();
  CHECK_DONE();
}
