/*
** xp report: the page's charts come from the runs in the database, and say "no data yet"
** without them. Runs of the kinds the report draws (gemm, nccl_burst, serve_bench) are
** recorded here through the recorder with the case parameters and metric names their runners
** write, so the test needs no GPU; the trace charts are covered by tests/cli/report_chromium.sh
** with real traces.
**
**   test_report              run the checks
**   test_report --keep DIR   also leave DIR/x.db (with those runs) and DIR/empty.db (none) for
**                            the Chromium test, which imports real traces on top and renders
**                            every chart
*/
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "kind.h"
#include "report.h"
#include "xp.h"

int cmd_report(int argc, char **argv, const char *db_path);

static const char *keep_dir; /* --keep: where the databases are left */

typedef struct rec {
  xp_run *run;
  xp_spec *spec;
} rec;

static rec begin(sqlite3 *db, const char *kind, const char *model, int tp, const char *gpu) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "kind", kind);
  if (model) cJSON_AddStringToObject(root, "model", model);
  if (tp) cJSON_AddNumberToObject(root, "tp", tp);
  rec r = {NULL, xp_spec_from_json(root, "<test>", test_dir)};
  xp_run_opts o = {kind, 1, r.spec, NULL, 0};
  CHECK_EQ_INT(xp_run_begin(db, &o, &r.run), 0);
  if (gpu) {
    CHECK_EQ_INT(xp_run_meta(r.run, "gpu_name", gpu, "trace"), 0);
    CHECK_EQ_INT(xp_run_meta_int(r.run, "gpu_count", 2, "trace"), 0);
  }
  return r;
}

static void end(rec *r) {
  CHECK_EQ_INT(xp_run_finish(r->run, XP_RUN_OK, NULL), 0);
  xp_spec_free(r->spec);
}

/* The ceilings the next gemm cases are judged against: an H200's unless a test sets others. */
static double ceiling_gbps = 4000, ceiling_tflops = 800;
static const char *gemm_dtype = "bf16"; /* the next gemm cases' */

/* A gemm run as harness/runners/gemm.c records one: params m, n, k, dtype, cache, bytes,
** flops; metrics time_us / time_best_us (samples) and the derived values, judged against
** ceilings of ceiling_gbps copy and ceiling_tflops bf16. */
static void gemm_case(xp_run *run, const char *name, int64_t m, int64_t n, int64_t k, double us,
                      const char *status) {
  double bytes = 2.0 * (double)(m * k + k * n + m * n), flops = 2.0 * (double)(m * n * k);
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "batch", (double)m);
  cJSON_AddNumberToObject(p, "m", (double)m);
  cJSON_AddNumberToObject(p, "n", (double)n);
  cJSON_AddNumberToObject(p, "k", (double)k);
  cJSON_AddNumberToObject(p, "bmm", 1);
  cJSON_AddNumberToObject(p, "count", 61);
  cJSON_AddStringToObject(p, "dtype", gemm_dtype);
  cJSON_AddStringToObject(p, "cache", "cold");
  cJSON_AddNumberToObject(p, "bytes", bytes);
  cJSON_AddNumberToObject(p, "flops", flops);
  int64_t id = xp_run_case(run, name, p, status, strcmp(status, "ok") ? "wrong results" : NULL);
  cJSON_Delete(p);
  CHECK(id > 0);
  if (strcmp(status, "ok") != 0) return;
  double samples[5] = {us * 0.99, us, us * 1.01, us * 1.02, us * 0.98};
  double gbps = bytes / (us * 1e3), tflops = flops / (us * 1e6);
  CHECK_EQ_INT(xp_run_metric(run, id, "time_us", "us", samples, 5), 0);
  CHECK_EQ_INT(xp_run_metric(run, id, "time_best_us", "us", samples, 5), 0);
  CHECK_EQ_INT(xp_run_value(run, id, "gbps_best", "GB/s", gbps), 0);
  CHECK_EQ_INT(xp_run_value(run, id, "tflops_best", "TFLOP/s", tflops), 0);
  CHECK_EQ_INT(xp_run_value(run, id, "bw_share_best", "ratio", gbps / ceiling_gbps), 0);
  CHECK_EQ_INT(xp_run_value(run, id, "compute_share_best", "ratio", tflops / ceiling_tflops), 0);
}

/* nccl_burst as harness/runners/nccl_record.c records it: busbw_GBps and time_us per size. */
static void nccl_run(sqlite3 *db, const char *mode, double peak) {
  rec r = begin(db, "nccl_burst", NULL, 0, "NVIDIA H200");
  for (int64_t bytes = 1024; bytes <= 1 << 20; bytes *= 4) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "collective", "allreduce");
    cJSON_AddStringToObject(p, "dtype", "bf16");
    cJSON_AddNumberToObject(p, "bytes", (double)bytes);
    cJSON_AddStringToObject(p, "mode", mode);
    cJSON_AddStringToObject(p, "placement", "out_of_place");
    cJSON_AddNumberToObject(p, "burst", 122);
    char name[64];
    snprintf(name, sizeof name, "allreduce/bf16/%lld/%s/out_of_place", (long long)bytes, mode);
    int64_t id = xp_run_case(r.run, name, p, "ok", NULL);
    cJSON_Delete(p);
    /* Curved, as a real series is (latency-bound small messages, then bandwidth-bound; here
       the time per byte grows with the size): on a straight line any two points interpolate
       a size alike, so a prediction that took the wrong neighbours would pass. */
    double us = 8 + (double)bytes / (peak * 1e3) * (1 + (double)bytes / (1 << 18));
    CHECK_EQ_INT(xp_run_metric(r.run, id, "time_us", "us", &us, 1), 0);
    CHECK_EQ_INT(xp_run_value(r.run, id, "busbw_GBps", "GB/s", (double)bytes / (us * 1e3)), 0);
  }
  end(&r);
}

static void gpu_state(xp_run *run, int device, const char *slowed, const char *events, int limit_w, int default_w) {
  char key[64];
  snprintf(key, sizeof key, "gpu_state.%d.slowdown_share", device);
  CHECK_EQ_INT(xp_run_meta(run, key, slowed, "detected"), 0);
  snprintf(key, sizeof key, "gpu_state.%d.clock_events", device);
  CHECK_EQ_INT(xp_run_meta(run, key, events, "detected"), 0);
  snprintf(key, sizeof key, "gpu_state.%d.power_limit_w", device);
  CHECK_EQ_INT(xp_run_meta_int(run, key, limit_w, "detected"), 0);
  snprintf(key, sizeof key, "gpu_state.%d.power_limit_default_w", device);
  CHECK_EQ_INT(xp_run_meta_int(run, key, default_w, "detected"), 0);
}

static void serve_case(xp_run *run, const char *name, int64_t concurrency, double tok_s) {
  cJSON *p = cJSON_CreateObject();
  if (concurrency > 0) cJSON_AddNumberToObject(p, "max_concurrency", (double)concurrency);
  else cJSON_AddNumberToObject(p, "request_rate", 4);
  int64_t id = xp_run_case(run, name, p, "ok", NULL);
  cJSON_Delete(p);
  CHECK_EQ_INT(xp_run_value(run, id, "output_throughput", "tok/s", tok_s), 0);
  CHECK_EQ_INT(xp_run_value(run, id, "median_ttft_ms", "ms", 30), 0);
  CHECK_EQ_INT(xp_run_value(run, id, "median_tpot_ms", "ms", 11), 0);
}

static void record_runs(sqlite3 *db) {
  /* Also what tests/cli/report_decode_gap.sh predicts a decode step from (tp=2, batch 1 and 64). */
  rec g = begin(db, "gemm", "Kimi-K2.5", 2, "NVIDIA H200");
  gemm_case(g.run, "o_proj", 1, 7168, 8192, 40, "ok");
  gemm_case(g.run, "o_proj", 64, 7168, 8192, 45, "ok");
  gemm_case(g.run, "moe_up", 4096, 4096, 4096, 250, "ok");
  gemm_case(g.run, "q_b_proj", 1, 24576, 1536, 0, "failed");
  /* Its GPUs' state as harness/gpu_watch.c records it: GPU 0's clocks held down in some
     readings, GPU 1 under a power limit below its default; GPU 2 at full speed. */
  gpu_state(g.run, 0, "0.125", "hw_slowdown", 700, 700);
  gpu_state(g.run, 1, "0.000", "", 500, 700);
  gpu_state(g.run, 2, "0.000", "", 700, 700);
  end(&g);
  nccl_run(db, "eager", 300);
  nccl_run(db, "graph", 350);
  /* A model name with markup: it must reach the page as text. */
  rec s = begin(db, "serve_bench", "<b>x&y</b>", 0, NULL);
  serve_case(s.run, "concurrency=1", 1, 90);
  serve_case(s.run, "concurrency=4", 4, 330);
  serve_case(s.run, "concurrency=16", 16, 640);
  serve_case(s.run, "rate=4", 0, 300);
  end(&s);
}

/* The HTML of one chart's section. */
static char *section(const char *html, const char *id) {
  char *key = xp_asprintf("id=\"%s\"", id);
  const char *a = strstr(html, key);
  free(key);
  if (!a) return xp_strdup("");
  const char *b = strstr(a, "</section>");
  return xp_asprintf("%.*s", (int)(b ? b - a : (long)strlen(a)), a);
}

static int count(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static char *report(const char *db_path, const char *name) {
  char *out = test_path(name);
  char *argv[] = {"report", "--out", out, NULL};
  CHECK_EQ_INT(cmd_report(3, argv, db_path), 0);
  char *html = xp_read_file(out, NULL);
  free(out);
  return html ? html : xp_strdup("");
}

static void test_empty_database(void) {
  char *path = xp_asprintf("%s/empty.db", keep_dir ? keep_dir : test_dir);
  int rc = 0;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  xp_db_close(db);
  char *html = report(path, "empty.html");
  CHECK_EQ_INT(count(html, "<section class=\"chart-section\""), 6);
  CHECK_EQ_INT(count(html, "data-has-data=\"0\""), 6);
  CHECK_EQ_INT(count(html, "<strong>No data yet.</strong>"), 6);
  CHECK_EQ_INT(count(html, "<svg"), 0);
  CHECK(strstr(html, "No runs recorded yet.") != NULL);
  free(html);
  free(path);
}

static void test_charts(const char *path) {
  char *html = report(path, "full.html");
  /* No script or style is fetched: the page stands alone. */
  CHECK(strstr(html, "src=") == NULL && strstr(html, "href=\"http") == NULL);
  CHECK(strstr(html, "<b>x&y</b>") == NULL);
  CHECK(strstr(html, "&lt;b&gt;x&amp;y&lt;/b&gt;") != NULL);

  /* The runs table marks the gemm run whose GPUs were not at full speed, and says how. */
  CHECK(strstr(html, "<th>GPU slowed</th>") != NULL);
  CHECK(strstr(html, "<tr><td>gemm</td><td>imported</td><td class=\"n\">1</td><td class=\"n\">0</td>"
                     "<td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">1</td>") != NULL);
  CHECK_EQ_INT(count(html, "<table class=\"runs slowed\">"), 1);
  CHECK(strstr(html, "<td>GPU 0: clocks held down in 12.5% of readings (hw_slowdown); "
                     "GPU 1: power limit 500 W, below its default 700 W</td>") != NULL);
  CHECK(strstr(html, "GPU 2:") == NULL);

  char *roof = section(html, "roofline");
  CHECK(strstr(roof, "data-has-data=\"1\"") != NULL);
  CHECK_EQ_INT(count(roof, "<circle class=\"mark point\""), 3); /* the failed GEMM is left out */
  /* The ceilings are recovered from the run's own shares of them. */
  CHECK(strstr(roof, "roofline: 4000 GB/s copy, 800 TFLOP/s bf16") != NULL);
  CHECK_EQ_INT(count(roof, "class=\"mark line ref\""), 1);
  CHECK(strstr(roof, "o_proj m=64 n=7168 k=8192 (bf16, cold): 45.00 us") != NULL);

  char *bw = section(html, "busbw");
  CHECK(strstr(bw, "data-has-data=\"1\"") != NULL);
  CHECK_EQ_INT(count(bw, "<circle class=\"mark point\""), 12); /* 2 runs x 6 sizes */
  CHECK_EQ_INT(count(bw, "<polyline class=\"mark line\""), 2);
  CHECK(strstr(bw, "allreduce bf16 graph burst 122 · 2x NVIDIA H200") != NULL);
  CHECK(strstr(bw, ">1 MiB</text>") != NULL); /* byte-size ticks */
  /* nccl-tests' size, not a rank's share: all_gather's is every rank's part (was "bytes per rank") */
  CHECK(strstr(bw, "all ranks&#39; data for all_gather") != NULL); /* escaped */

  char *sv = section(html, "serving");
  CHECK_EQ_INT(count(sv, "<circle class=\"mark point\""), 3);
  CHECK(strstr(sv, "1 case paced by request rate") != NULL);
  CHECK(strstr(sv, "concurrency 16: 640.0 output tok/s, TTFT p50 30.0 ms, TPOT p50 11.00 ms") != NULL);

  /* No traces were recorded here: those two charts say so. */
  char *sh = section(html, "shares"), *ar = section(html, "allreduce");
  CHECK(strstr(sh, "No data yet.") != NULL && strstr(ar, "No data yet.") != NULL);
  free(sh);
  free(ar);
  free(sv);
  free(bw);
  free(roof);
  free(html);
}

/* A database of its own for one test, in the test folder: *path gets its name (malloc'd). */
static sqlite3 *new_database(const char *name, char **path) {
  int rc = 0;
  *path = test_path(name);
  sqlite3 *db = xp_db_open(*path, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  if (!db) free(*path);
  return db;
}

/* The roofline section of the report of a test's database, once it is closed. */
static char *roofline_closed(sqlite3 *db, const char *path, const char *page) {
  xp_db_close(db);
  char *html = report(path, page);
  char *roof = section(html, "roofline");
  free(html);
  return roof;
}

/* Each GPU's latest gemm run, as queries/gemm_roofline.sql answers: an RTX PRO 6000's run
** recorded after an H200's drew the RTX's alone, the H200's GEMMs and ceilings gone. Both are
** drawn, each with its roofline, and the note names each run and its GPU; an older run of a GPU
** is not. */
static void test_roofline_gpus(void) {
  char *path = NULL;
  sqlite3 *db = new_database("gpus.db", &path);
  if (!db) return;
  rec old = begin(db, "gemm", "Kimi-K2.5", 2, "NVIDIA H200");
  gemm_case(old.run, "o_proj", 1, 7168, 8192, 60, "ok");
  end(&old);
  rec h = begin(db, "gemm", "Kimi-K2.5", 2, "NVIDIA H200");
  gemm_case(h.run, "o_proj", 1, 7168, 8192, 40, "ok");
  gemm_case(h.run, "moe_up", 4096, 4096, 4096, 250, "ok");
  char h8[9], x8[9];
  snprintf(h8, sizeof h8, "%s", xp_run_uuid(h.run));
  end(&h);
  ceiling_gbps = 1600, ceiling_tflops = 500;
  rec x = begin(db, "gemm", "Kimi-K2.5", 2, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
  gemm_case(x.run, "o_proj", 1, 7168, 8192, 95, "ok");
  snprintf(x8, sizeof x8, "%s", xp_run_uuid(x.run));
  end(&x);
  ceiling_gbps = 4000, ceiling_tflops = 800;
  char *roof = roofline_closed(db, path, "gpus.html");
  CHECK_EQ_INT(count(roof, "<circle class=\"mark point\""), 3);
  CHECK_EQ_INT(count(roof, "class=\"mark line ref\""), 2);
  CHECK(strstr(roof, "roofline: 4000 GB/s copy, 800 TFLOP/s bf16 · NVIDIA H200") != NULL);
  CHECK(strstr(roof, "roofline: 1600 GB/s copy, 500 TFLOP/s bf16 · NVIDIA RTX PRO 6000") != NULL);
  char *named = xp_asprintf("2 GEMMs of run %s on NVIDIA H200", h8);
  CHECK(strstr(roof, named) != NULL);
  free(named);
  named = xp_asprintf("1 GEMM of run %s on NVIDIA RTX PRO 6000 Blackwell Server Edition", x8);
  CHECK(strstr(roof, named) != NULL);
  free(named);
  CHECK(strstr(roof, "60.00 us") == NULL); /* the H200's older run */
  free(roof);
  free(path);
}

/* A run at the checkpoint's dtypes (experiments/gemm_deepseek_v4_flash_checkpoint_tp8.toml:
** fp8_block and bf16 GEMMs in one run), each judged against its dtype's matmul peak: a
** roofline each, where the first case's peak was drawn for all (the bf16 points under an FP8
** roof twice as high, or FP8 points above a bf16 one). */
static void test_roofline_dtypes(void) {
  char *path = NULL;
  sqlite3 *db = new_database("dtypes.db", &path);
  if (!db) return;
  rec g = begin(db, "gemm", "DeepSeek-V4-Flash", 8, "NVIDIA H200");
  gemm_dtype = "fp8_block", ceiling_tflops = 1600;
  gemm_case(g.run, "wq_a", 1, 1536, 7168, 20, "ok");
  gemm_dtype = "bf16", ceiling_tflops = 800;
  gemm_case(g.run, "o_proj", 1, 7168, 8192, 40, "ok");
  gemm_case(g.run, "moe_up", 4096, 4096, 4096, 250, "ok");
  end(&g);
  char *roof = roofline_closed(db, path, "dtypes.html");
  CHECK_EQ_INT(count(roof, "<circle class=\"mark point\""), 3);
  CHECK_EQ_INT(count(roof, "class=\"mark line ref\""), 2);
  CHECK(strstr(roof, "<title>roofline: 4000 GB/s copy, 1600 TFLOP/s fp8_block</title>") != NULL);
  CHECK(strstr(roof, "<title>roofline: 4000 GB/s copy, 800 TFLOP/s bf16</title>") != NULL);
  CHECK(strstr(roof, "1 GEMM of run") != NULL && strstr(roof, "2 GEMMs of run") != NULL);
  free(roof);
  free(path);
}

/* Past 8 series (a GPU's dtypes and cache modes, each GPU's apart) the chart keeps the newest
** and says how many it left out, as the other line charts do: 3 GPUs' runs of 3 dtypes each
** are 9 series, and the ninth's GEMMs were left out without a word. */
static void test_roofline_series(void) {
  char *path = NULL;
  sqlite3 *db = new_database("series.db", &path);
  if (!db) return;
  static const char *const gpus[] = {"NVIDIA H100", "NVIDIA H200", "NVIDIA B200"};
  static const char *const dtypes[] = {"bf16", "fp8", "fp8_block"};
  for (int i = 0; i < 3; i++) {
    rec g = begin(db, "gemm", "DeepSeek-V4-Flash", 8, gpus[i]);
    for (int d = 0; d < 3; d++) {
      gemm_dtype = dtypes[d];
      gemm_case(g.run, "o_proj", 1, 7168, 8192, 40, "ok");
    }
    end(&g);
  }
  gemm_dtype = "bf16";
  char *roof = roofline_closed(db, path, "series.html");
  CHECK_EQ_INT(count(roof, "<circle class=\"mark point\""), 8);
  CHECK(strstr(roof, "Showing the 8 newest series; 1 older is left out.") != NULL);
  free(roof);
  free(path);
}

static void test_bad_usage(const char *path) {
  xp_error_quiet(1);
  char *argv1[] = {"report", "--bogus", NULL};
  CHECK_EQ_INT(cmd_report(2, argv1, path), XP_EXIT_USAGE);
  char *argv2[] = {"report", "--out", NULL};
  CHECK_EQ_INT(cmd_report(2, argv2, path), XP_EXIT_USAGE);
  /* A directory that does not exist: an error, and no partial file left behind. */
  char *out = test_path("missing/r.html");
  char *argv3[] = {"report", "--out", out, NULL};
  CHECK_EQ_INT(cmd_report(3, argv3, path), XP_EXIT_USAGE);
  free(out);
  /* --out "": refused as a bad --out (2), as a missing folder is; it was made in the working
  ** folder, written whole, and only then failed to be renamed (1, "cannot write") */
  char *argv5[] = {"report", "--out", "", NULL};
  CHECK_EQ_INT(cmd_report(3, argv5, path), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "an empty path names no file") != NULL);
  char *none = test_path("none.db");
  char *argv4[] = {"report", "--out", "-", NULL};
  CHECK_EQ_INT(cmd_report(3, argv4, none), XP_EXIT_DB); /* read-only: never creates one */
  struct stat st;
  CHECK(stat(none, &st) != 0);
  free(none);
  xp_error_quiet(0);
}

/* A SIGINT that no query saw (here before the first: an empty history's queries are too short
** for SQLite's progress handler to look) stops the report: 130 and no page, where the page was
** written and xp exited 0. Last: the handler is the default after one signal. */
static void test_late_signal(void) {
  char *db_path = xp_asprintf("%s/empty.db", keep_dir ? keep_dir : test_dir);
  char *out = test_path("late.html");
  char *argv[] = {"report", "--out", out, NULL};
  xp_error_quiet(1);
  xp_install_signal_handlers();
  raise(SIGINT);
  CHECK_EQ_INT(cmd_report(3, argv, db_path), XP_EXIT_ABORTED);
  xp_error_quiet(0);
  struct stat st;
  CHECK(stat(out, &st) != 0);
  free(out);
  free(db_path);
}

/* A time axis over decades labels its whole span: at a year a tick, 60 years ran past the 24
** ticks a chart holds, and the labels stopped at the 24th year. Here the x ticks (centred under
** the plot) count at most 8 and the last is within 10 years of the last point. */
static void test_time_axis_decades(void) {
  const double year = 365.25 * 86400, t2000 = 946684800;
  rp_xy c = {{RP_TIME, "when", 0, 0, 0}, {RP_LINEAR, "share", 0, 0, 1}, NULL, 0, {0}};
  rp_series *ser = rp_xy_series(&c, "a", NULL);
  for (int y = 0; y <= 60; y += 20) rp_series_add(ser, t2000 + y * year, y, xp_strdup("p"));
  xp_buf o = {0};
  rp_xy_svg(&o, &c);
  int ticks = 0, last_year = 0;
  for (const char *p = o.s; (p = strstr(p, "text-anchor=\"middle\">")) != NULL; p++)
    if (sscanf(p + strlen("text-anchor=\"middle\">"), "%d-", &last_year) == 1) ticks++;
  CHECK(ticks >= 3 && ticks <= 8);
  CHECK(last_year >= 2050);
  xb_free(&o);
  rp_xy_free(&c);
}

int main(int argc, char **argv) {
  if (!test_dir_make("/tmp/xp-test-report-XXXXXX")) return 1;
  keep_dir = argc == 3 && strcmp(argv[1], "--keep") == 0 ? argv[2] : NULL;
  char *path = xp_asprintf("%s/x.db", keep_dir ? keep_dir : test_dir);
  int rc = 0;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  if (!db) return 1;
  record_runs(db);
  xp_db_close(db);
  test_empty_database();
  test_charts(path);
  test_roofline_gpus();
  test_roofline_dtypes();
  test_roofline_series();
  test_bad_usage(path);
  test_late_signal();
  test_time_axis_decades();
  free(path);
  test_dir_remove();
  CHECK_DONE();
}
