/*
** The queries behind the report's charts. Each chart reads only finished, successful runs of
** its kind and says, when there are none, which command would produce them: a report of a
** young database is mostly "no data yet", and says so chart by chart.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "history.h"
#include "query.h"
#include "report.h"
#include "xp.h"
#include "xp_blob.h"

/* Series beyond this many make a chart unreadable; the newest are kept and the note says so. */
#define MAX_SERIES 8

int rp_table_exists(sqlite3 *db, const char *name) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE name = ?1 AND type IN ('table', 'view')",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

static const char *col(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st) {
  if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
    return xp_db_fail(db, "reading");
  return 0;
}

static int finish(sqlite3 *db, sqlite3_stmt *st, int step_rc) {
  sqlite3_finalize(st);
  if (step_rc != SQLITE_DONE) return xp_db_fail(db, "reading");
  return 0;
}

/* Series are found in query order; a new key starts a new series. Past MAX_SERIES a key is
** left out, and counted once however many points it has (c->dropped holds the keys). */
static rp_series *series_for(rp_xy *c, const char *name) {
  for (size_t i = 0; i < c->nseries; i++)
    if (strcmp(c->series[i].name, name) == 0) return &c->series[i];
  if (c->nseries == MAX_SERIES) {
    xp_strtab_intern(&c->dropped, name, strlen(name), NULL);
    return NULL;
  }
  return rp_xy_series(c, name, NULL);
}

static void note_dropped(rp_section *s, const rp_xy *c) {
  if (c->dropped.n)
    xb_printf(&s->note, " Showing the %zu newest series; %u older %s left out.", c->nseries, (unsigned)c->dropped.n,
              c->dropped.n == 1 ? "is" : "are");
}

/* Said under a chart, or in place of it, when some rows had a figure its axes cannot place
** (rp_xy_holds): drawn nowhere, they are not counted among its points either. */
static void note_off_axes(xp_buf *b, size_t n) {
  if (n)
    xb_printf(b, " %zu point%s not shown: a value the axes cannot place (0 or below on a logarithmic "
              "axis, or not a finite number).", n, n == 1 ? " is" : "s are");
}

/* ---- collective bus bandwidth against message size (nccl_burst, measured or imported) ---- */

static const char busbw_sql[] =
    "SELECT substr(r.uuid, 1, 8),"
    /* the job's size as allreduce_burst.sql reads it: a log of several reports (an 8-GPU and a
    ** 16-GPU sweep) is one run whose cases each say their ranks, and those are a series each */
    "       coalesce(coalesce(json_extract(c.params, '$.ranks'), xp_run_gpus(r.kind, r.gpu_count)) || 'x ', '')"
    "       || coalesce(r.gpu_name, 'GPU?'),"
    "       coalesce(r.interconnect, ''), json_extract(c.params, '$.collective'),"
    "       json_extract(c.params, '$.dtype'), json_extract(c.params, '$.mode'),"
    "       json_extract(c.params, '$.placement'), json_extract(c.params, '$.burst'),"
    "       json_extract(c.params, '$.bytes'), b.median, t.median, r.origin"
    " FROM runs r JOIN cases c ON c.run_id = r.id"
    " JOIN metrics b ON b.case_id = c.id AND b.name = 'busbw_GBps'"
    " LEFT JOIN metrics t ON t.case_id = c.id AND t.name = 'time_us'"
    " JOIN run_measured w ON w.run_id = r.id LEFT JOIN " XP_SQL_REIMPORTED " i ON i.run_id = r.id"
    " WHERE r.kind = 'nccl_burst' AND r.status = 'ok' AND c.status = 'ok'"
    "   AND json_extract(c.params, '$.bytes') > 0 AND b.median > 0"
    /* a text log and its -J file imported apart, and an import and its xp rerun (the rerun counts) */
    "   AND r.id NOT IN (SELECT run_id FROM trace_superseded)"
    "   AND NOT coalesce(i.superseded, 0)" /* the same files imported again (xp rerun, a script run twice): drawn once */
    " ORDER BY julianday(coalesce(i.first_measured, w.measured_at)) DESC, r.id DESC, c.seq"; /* newest measured, not newest imported */

static int chart_busbw(sqlite3 *db, rp_section *s) {
  sqlite3_stmt *st;
  int rc = prepare(db, busbw_sql, &st);
  if (rc) return rc;
  /* The size nccl-tests prints and nccl_burst's sizes take: a rank's largest buffer, which
  ** holds every rank's part for all_gather (its output), reduce_scatter (its input) and alltoall
  ** (nccl-tests' src/common.cu prints max(sendBytes, expectedBytes); xp_nccl_counts_for) */
  rp_xy c = {{RP_LOG2_BYTES, "message size (bytes, nccl-tests' size: all ranks' data for all_gather, "
              "reduce_scatter, alltoall)", 0, 0, 0},
             {RP_LINEAR, "bus bandwidth (GB/s)", 0, 0, 1}, NULL, 0, {0}};
  size_t points = 0, off_axes = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    double bytes = sqlite3_column_double(st, 8), bw = sqlite3_column_double(st, 9);
    if (!rp_xy_holds(&c, bytes, bw)) {
      off_axes++;
      continue;
    }
    int64_t burst = sqlite3_column_int64(st, 7);
    char *name = xp_asprintf("%s %s %s%s%s%s · %s%s%s · %s", col(st, 3), col(st, 4), col(st, 5),
                             strcmp(col(st, 6), "in_place") == 0 ? " in-place" : "",
                             burst > 1 ? " burst " : "", burst > 1 ? col(st, 7) : "", col(st, 1),
                             *col(st, 2) ? " " : "", col(st, 2), col(st, 0));
    rp_series *ser = series_for(&c, name);
    if (ser) {
      ser->lines = 1;
      char *tip = sqlite3_column_type(st, 10) == SQLITE_NULL
                      ? xp_asprintf("%s: %.0f B, busbw %.2f GB/s", name, bytes, bw)
                      : xp_asprintf("%s: %.0f B, busbw %.2f GB/s, %.2f us per collective", name,
                                    bytes, bw, sqlite3_column_double(st, 10));
      rp_series_add(ser, bytes, bw, tip);
      points++;
    }
    free(name);
  }
  if ((rc = finish(db, st, rc)) != 0) {
    rp_xy_free(&c);
    return rc;
  }
  if (points) {
    xb_printf(&s->note, "Median bus bandwidth per message size (nccl-tests' busbw formula), %zu point%s "
              "from nccl_burst runs, measured or imported from nccl-tests.", points, points == 1 ? "" : "s");
    note_off_axes(&s->note, off_axes);
    note_dropped(s, &c);
    rp_xy_svg(&s->svg, &c);
  } else {
    xb_puts(&s->empty, "No nccl_burst runs yet: xp run an nccl_burst spec on a GPU host, or "
            "xp import nccl-tests LOG.txt.");
    note_off_axes(&s->empty, off_axes);
  }
  rp_xy_free(&c);
  return 0;
}

/* ---- GEMMs against the roofline (the latest gemm run of each GPU) ---- */

/* Each GPU's latest ok gemm run, as queries/gemm_roofline.sql picks them (the GPU as view
** run_configuration spells it): an H200's run measured after an RTX PRO 6000's must not hide
** the RTX's, whose ceilings are 2-3x apart. Newest run first, its cases in order. */
static const char roofline_sql[] =
    "WITH run AS (SELECT id, uuid, gpu, started_at FROM ("
    "               SELECT r.id, r.uuid, g.gpu_name AS gpu, r.started_at, row_number() OVER ("
    "                 PARTITION BY g.gpu_name ORDER BY r.started_at DESC, r.id DESC) AS recency"
    "               FROM runs r JOIN run_configuration g ON g.run_id = r.id"
    "               WHERE r.kind = 'gemm' AND r.status = 'ok')"
    "             WHERE recency = 1)"
    " SELECT substr(run.uuid, 1, 8), coalesce(run.gpu, 'GPU?'), c.name,"
    "        json_extract(c.params, '$.m'), json_extract(c.params, '$.n'),"
    "        json_extract(c.params, '$.k'), json_extract(c.params, '$.dtype'),"
    "        json_extract(c.params, '$.cache'), json_extract(c.params, '$.flops'),"
    "        json_extract(c.params, '$.bytes'), tf.median, t.median, gb.median, bs.median,"
    "        cs.median"
    " FROM run JOIN cases c ON c.run_id = run.id"
    " JOIN metrics tf ON tf.case_id = c.id AND tf.name = 'tflops_best'"
    " LEFT JOIN metrics t ON t.case_id = c.id AND t.name = 'time_best_us'"
    " LEFT JOIN metrics gb ON gb.case_id = c.id AND gb.name = 'gbps_best'"
    " LEFT JOIN metrics bs ON bs.case_id = c.id AND bs.name = 'bw_share_best'"
    " LEFT JOIN metrics cs ON cs.case_id = c.id AND cs.name = 'compute_share_best'"
    " WHERE c.status = 'ok' AND json_extract(c.params, '$.n') IS NOT NULL"
    "   AND json_extract(c.params, '$.bytes') > 0 AND tf.median > 0"
    " ORDER BY run.started_at DESC, run.id DESC, c.seq";

/* GPUs beyond this many (each its points and its roofline) make the chart unreadable. */
#define MAX_ROOF_RUNS 4
/* A roofline per dtype of a run: a run at a checkpoint's dtypes (fp8_block and bf16 GEMMs)
** judged each GEMM against its dtype's matmul peak, and those are up to 2x apart. */
#define MAX_ROOFS (MAX_ROOF_RUNS * 4)

typedef struct roof {
  double copy_gbps, peak_tflops; /* recovered from the run's shares of its ceilings */
  double ai_lo, ai_hi;
  char dtype[16];
  char run[16], gpu[128];
  size_t points;
} roof;

/* The ceilings a gemm run was judged against: gbps / share of copy, tflops / share of peak. */
static void learn_roof(roof *r, sqlite3_stmt *st, double ai) {
  double gb = sqlite3_column_double(st, 12), bs = sqlite3_column_double(st, 13);
  double tf = sqlite3_column_double(st, 10), cs = sqlite3_column_double(st, 14);
  if (!(r->copy_gbps > 0) && bs > 0 && gb > 0) r->copy_gbps = gb / bs;
  if (!(r->peak_tflops > 0) && cs > 0 && tf > 0) r->peak_tflops = tf / cs;
  if (!(r->ai_lo > 0) || ai < r->ai_lo) r->ai_lo = ai;
  if (ai > r->ai_hi) r->ai_hi = ai;
}

/* The roof of a run's GEMMs of one dtype, made when its first GEMM is met; NULL past MAX_ROOFS. */
static roof *roof_for(roof *roofs, int *n, const char *run, const char *gpu, const char *dtype) {
  for (int i = 0; i < *n; i++)
    if (strcmp(roofs[i].run, run) == 0 && strcmp(roofs[i].dtype, dtype) == 0) return &roofs[i];
  if (*n == MAX_ROOFS) return NULL;
  roof *r = &roofs[(*n)++];
  snprintf(r->run, sizeof r->run, "%s", run);
  snprintf(r->gpu, sizeof r->gpu, "%s", gpu);
  snprintf(r->dtype, sizeof r->dtype, "%s", dtype);
  return r;
}

/* min(peak, bandwidth x intensity), sampled densely enough to show the ridge; named by its GPU
** where the chart holds several, and grey where it is the only roof. */
static void add_roofline(rp_xy *c, const roof *r, int several_gpus, int several_roofs) {
  if (!(r->copy_gbps > 0) || !(r->peak_tflops > 0)) return;
  char *name = xp_asprintf("roofline: %.0f GB/s copy, %.0f TFLOP/s %s%s%s", r->copy_gbps, r->peak_tflops, r->dtype,
                           several_gpus ? " · " : "", several_gpus ? r->gpu : "");
  rp_series *s = rp_xy_series(c, name, several_roofs ? NULL : "#555555");
  free(name);
  s->dashed = 1;
  double ridge = r->peak_tflops * 1e3 / r->copy_gbps;
  double lo = fmin(r->ai_lo, ridge) / 2, hi = fmax(r->ai_hi, ridge) * 2;
  for (double ai = lo; ai <= hi * 1.0001; ai *= pow(hi / lo, 1.0 / 48))
    rp_series_add(s, ai, fmin(r->peak_tflops, r->copy_gbps * ai / 1e3), NULL);
  rp_series_add(s, ridge, r->peak_tflops, NULL);
}

/* What the chart shows, run by run: "3 GEMMs of a1b2c3d4 on NVIDIA H200 (roofline from ...)". */
static void roofline_note(rp_section *s, const roof *roofs, int n, int gpus, int left_out) {
  xb_printf(&s->note, "The latest gemm run of %s: the best of cuBLASLt's candidates, median time.",
            gpus > 1 ? "each GPU" : "the GPU");
  for (int i = 0; i < n; i++) {
    const roof *r = &roofs[i];
    xb_printf(&s->note, " %zu GEMM%s of run %s on %s", r->points, r->points == 1 ? "" : "s", r->run, r->gpu);
    if (r->copy_gbps > 0 && r->peak_tflops > 0)
      xb_printf(&s->note, ", against the ceilings it was judged by: %.0f GB/s copy bandwidth, %.0f TFLOP/s %s "
                "matmul peak", r->copy_gbps, r->peak_tflops, r->dtype);
    xb_puts(&s->note, ".");
  }
  if (left_out)
    xb_printf(&s->note, " Showing the %d GPUs measured last; %d other%s left out.", gpus, left_out,
              left_out == 1 ? " is" : "s are");
}

static int chart_roofline(sqlite3 *db, rp_section *s) {
  sqlite3_stmt *st;
  int rc = prepare(db, roofline_sql, &st);
  if (rc) return rc;
  rp_xy c = {{RP_LOG10, "arithmetic intensity (FLOP per byte of weight, activation and output)", 0, 0, 0},
             {RP_LOG10, "achieved TFLOP/s (best cuBLASLt algorithm)", 0, 0, 0}, NULL, 0, {0}};
  roof roofs[MAX_ROOFS] = {{0}};
  int nroofs = 0, gpus = 0, left_out = 0;
  size_t off_axes = 0;
  char last[16] = "";
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (strcmp(last, col(st, 0)) != 0) { /* the next GPU's run */
      snprintf(last, sizeof last, "%s", col(st, 0));
      if (gpus == MAX_ROOF_RUNS) left_out++;
      else gpus++;
    }
    if (left_out) continue;
    roof *r = roof_for(roofs, &nroofs, last, col(st, 1), col(st, 6));
    if (!r) continue; /* a run of more dtypes than MAX_ROOFS leaves room for */
    double flops = sqlite3_column_double(st, 8), bytes = sqlite3_column_double(st, 9);
    double ai = flops / bytes, tf = sqlite3_column_double(st, 10);
    if (!rp_xy_holds(&c, ai, tf)) { /* no flops recorded: nowhere on the intensity axis */
      off_axes++;
      continue;
    }
    learn_roof(r, st, ai);
    char *sname = xp_asprintf("%s, %s weights · %s", col(st, 6), col(st, 7), r->gpu);
    rp_series *ser = series_for(&c, sname);
    free(sname);
    if (!ser) continue;
    rp_series_add(ser, ai, tf,
                  xp_asprintf("%s m=%s n=%s k=%s (%s, %s): %.2f us, %.1f TFLOP/s, %.0f GB/s, "
                              "%.1f FLOP/B · %s, run %s", col(st, 2), col(st, 3), col(st, 4), col(st, 5),
                              col(st, 6), col(st, 7), sqlite3_column_double(st, 11), tf,
                              sqlite3_column_double(st, 12), ai, r->gpu, r->run));
    r->points++;
  }
  if ((rc = finish(db, st, rc)) != 0) {
    rp_xy_free(&c);
    return rc;
  }
  if (nroofs) {
    roofline_note(s, roofs, nroofs, gpus, left_out);
    note_off_axes(&s->note, off_axes);
    note_dropped(s, &c); /* the GEMMs' series, before the roofs join them */
    for (int i = 0; i < nroofs; i++) add_roofline(&c, &roofs[i], gpus > 1, nroofs > 1);
    rp_xy_svg(&s->svg, &c);
  } else
    xb_puts(&s->empty, "No gemm runs yet: on a GPU host, xp run experiments/ceilings.toml, then "
            "a gemm spec (experiments/gemm_*.toml).");
  rp_xy_free(&c);
  return 0;
}

/* ---- serving throughput against concurrency (serve_bench) ---- */

static const char serving_sql[] =
    "SELECT substr(r.uuid, 1, 8), coalesce(r.model, '?'), coalesce(r.gpu_name, ''),"
    "       json_extract(c.params, '$.max_concurrency'), o.median, ttft.median, tpot.median,"
    "       c.name"
    " FROM runs r JOIN cases c ON c.run_id = r.id"
    " JOIN metrics o ON o.case_id = c.id AND o.name = 'output_throughput'"
    " LEFT JOIN metrics ttft ON ttft.case_id = c.id AND ttft.name = 'median_ttft_ms'"
    " LEFT JOIN metrics tpot ON tpot.case_id = c.id AND tpot.name = 'median_tpot_ms'"
    " JOIN run_measured w ON w.run_id = r.id LEFT JOIN " XP_SQL_REIMPORTED " i ON i.run_id = r.id"
    " WHERE r.kind = 'serve_bench' AND r.status = 'ok' AND c.status = 'ok'"
    /* paced by concurrency or rate: SGLang's offline and one-batch benchmarks are neither */
    "   AND (json_type(c.params, '$.max_concurrency') IS NOT NULL OR json_type(c.params, '$.request_rate') IS NOT NULL)"
    "   AND r.id NOT IN (SELECT run_id FROM trace_superseded)" /* a text log and its -J file imported apart */
    "   AND NOT coalesce(i.superseded, 0)" /* the same files imported again (xp rerun, a script run twice): drawn once */
    " ORDER BY julianday(coalesce(i.first_measured, w.measured_at)) DESC, r.id DESC, c.seq";

static int chart_serving(sqlite3 *db, rp_section *s) {
  sqlite3_stmt *st;
  int rc = prepare(db, serving_sql, &st);
  if (rc) return rc;
  rp_xy c = {{RP_LOG2, "max concurrency (requests in flight)", 0, 0, 0},
             {RP_LINEAR, "output throughput (tokens/s)", 0, 0, 1}, NULL, 0, {0}};
  size_t points = 0, by_rate = 0, off_axes = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 3) == SQLITE_NULL) {
      by_rate++; /* paced by request rate, not concurrency: no x to put it at */
      continue;
    }
    double conc = sqlite3_column_double(st, 3), tok = sqlite3_column_double(st, 4);
    if (!rp_xy_holds(&c, conc, tok)) { /* "max_concurrency": 0 on the log axis */
      off_axes++;
      continue;
    }
    char *name = xp_asprintf("%s%s%s · %s", col(st, 1), *col(st, 2) ? " · " : "", col(st, 2), col(st, 0));
    rp_series *ser = series_for(&c, name);
    if (ser) {
      ser->lines = 1;
      char ttft[32] = "-", tpot[32] = "-";
      if (sqlite3_column_type(st, 5) != SQLITE_NULL) snprintf(ttft, sizeof ttft, "%.1f ms", sqlite3_column_double(st, 5));
      if (sqlite3_column_type(st, 6) != SQLITE_NULL) snprintf(tpot, sizeof tpot, "%.2f ms", sqlite3_column_double(st, 6));
      rp_series_add(ser, conc, tok, xp_asprintf("%s, concurrency %.0f: %.1f output tok/s, TTFT p50 %s, "
                                                "TPOT p50 %s", name, conc, tok, ttft, tpot));
      points++;
    }
    free(name);
  }
  if ((rc = finish(db, st, rc)) != 0) {
    rp_xy_free(&c);
    return rc;
  }
  if (points) {
    xb_printf(&s->note, "Output token throughput of serving benchmarks (vLLM's own numbers), %zu "
              "point%s; hover a point for its TTFT and TPOT.", points, points == 1 ? "" : "s");
    if (by_rate)
      xb_printf(&s->note, " %zu case%s paced by request rate rather than concurrency %s not shown.",
                by_rate, by_rate == 1 ? "" : "s", by_rate == 1 ? "is" : "are");
    note_off_axes(&s->note, off_axes);
    note_dropped(s, &c);
    rp_xy_svg(&s->svg, &c);
  } else {
    xb_printf(&s->empty, "No serving benchmarks at a fixed concurrency yet%s: xp import vllm-bench "
              "RESULT.json (vllm bench serve --max-concurrency N --save-result).",
              by_rate ? " (only request-rate runs)" : "");
    note_off_axes(&s->empty, off_axes);
  }
  rp_xy_free(&c);
  return 0;
}

/* ---- traces: where the GPU time goes ---- */

/* The runs of queries/bottleneck_by_config.sql and allreduce_share.sql, so that the page and
** the queries agree: each trace job once, with its step GPU time and AllReduce time (schema view
** trace_step_totals), grouped by configuration (view run_configuration: model, GPU,
** interconnect, tp, batch and the rest of the declared configuration, shown here after the
** model in brackets; a job with none of it declared is a configuration of its own, labelled by
** what is known). A run's shares of its step GPU time add up to 100%; categories are those in
** force now (xp reclassify); a trace is dated by its own clock (first GPU activity) when it has
** an absolute one, else by its import. ranked is materialized: the view's sums are taken once a
** run, however many of the columns below name them. */
/* A job's configuration columns (CONFIG_COLUMNS below) from run_configuration g: the rest of
** the declared configuration after the model, in brackets. */
#define CONFIG_OF_G                                                                              \
  "g.tp, g.batch, CASE WHEN g.config = '' THEN g.model"                                          \
  " ELSE coalesce(g.model, '?') || ' [' || g.config || ']' END AS model,"                        \
  " g.gpu_name, g.interconnect, g.undeclared AS job"
#define TRACE_RUNS_CTE                                                                           \
  "WITH run AS (SELECT r.id AS run_id, substr(r.uuid, 1, 8) AS uuid8, " CONFIG_OF_G ","          \
  "                t.step_ns, t.clock_ns IS NOT NULL AS own_clock,"                              \
  "                coalesce(t.clock_ns / 1e9, (julianday(r.started_at) - 2440587.5) * 86400) AS at," \
  "                CAST(t.allreduce_ns AS REAL) / t.step_ns AS ar_share,"                        \
  "                t.whole_window"                                                               \
  "         FROM trace_step_totals t JOIN runs r ON r.id = t.run_id"                             \
  "         JOIN run_configuration g ON g.run_id = t.run_id),"                                   \
  " ranked AS MATERIALIZED ("                                                                    \
  "   SELECT run.*, row_number() OVER cfg_latest AS recency, count(*) OVER cfg AS runs,"         \
  "          min(ar_share) OVER cfg AS ar_min, max(ar_share) OVER cfg AS ar_max"                 \
  "   FROM run WINDOW cfg AS (PARTITION BY model, gpu_name, interconnect, tp, batch, job),"      \
  "   cfg_latest AS (cfg ORDER BY at DESC, run_id DESC))"

/* Configuration columns, in the order the label is written; job is set for a run with no
** declared configuration, and is then its label. */
#define CONFIG_COLUMNS "model, tp, batch, gpu_name, interconnect, job"
#define NCONFIG 6

/* "Kimi-K2.5 · tp=8 · batch=16 · NVIDIA H200 · nvlink" from a job's model, tp, batch, GPU and
** interconnect (NULL: not known, left out), or the label of a job with none of its configuration
** declared: "undeclared: rank0.json.gz · 2 ranks · NVIDIA H200 · run 1a2b3c4d". */
static char *label_of(const char *const part[5], const char *undeclared) {
  static const char *const prefix[] = {"", "tp=", "batch=", "", ""};
  if (undeclared) return xp_strdup(undeclared);
  xp_buf b = {0};
  for (int k = 0; k < 5; k++)
    if (part[k]) xb_printf(&b, "%s%s%s", b.n ? " · " : "", prefix[k], part[k]);
  if (!b.n) xb_puts(&b, "undeclared");
  return b.s;
}

static const char *text_or_null(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : col(st, i);
}

/* The label of the job whose CONFIG_COLUMNS are at i. */
static char *config_label(sqlite3_stmt *st, int i) {
  const char *part[5];
  for (int k = 0; k < 5; k++) part[k] = text_or_null(st, i + k);
  return label_of(part, text_or_null(st, i + 5));
}

/* Said under a chart with undeclared jobs: how to make them one configuration. */
static const char undeclared_note[] =
    " A job imported without its configuration is shown on its own (undeclared: its first rank's file, "
    "ranks, GPU and run); import with --set model=... tp=... batch=... to group it with its configuration.";

static const char no_traces[] =
    "No torch.profiler traces with marked steps imported yet: xp import torch-trace RANK0.json.gz "
    "RANK1.json.gz --set model=... tp=... batch=... (steps are ProfilerStep#N, or name yours "
    "with --step-annotation).";

/* Bars beyond this many make the chart a page long each dozen (an undeclared job is a
** configuration of its own: a folder of traces imported without --set gives one per job). The
** configurations measured last are drawn, their latest runs ?1 (bound to this). */
#define MAX_BAR_ROWS 16

/* Both trace charts' rows from one statement, so that the trace runs are read once a page:
** part 0, the bars' categories, communication first (the AllReduce share reads from the left
** edge); part 1, the bars, a row per configuration shown and category; part 2, the line's
** points, every run, newest first. Each part's columns are those its chart reads, padded to
** TRACE_PART; the keys after it order the part. A shown run's time per category is summed
** from its own step kernels (view trace_step_kernel_stats), not from trace_step_categories,
** whose GROUP BY sums every run in the database before a join picks the shown ones. */
#define TRACE_PART 15
static const char trace_sql[] =
    TRACE_RUNS_CTE
    ", shown AS MATERIALIZED (SELECT run_id FROM ranked WHERE recency = 1 ORDER BY at DESC, run_id DESC LIMIT ?1),"
    " cat AS MATERIALIZED (SELECT k.run_id, k.category, sum(k.total_ns) AS ns"
    "                      FROM shown JOIN trace_step_kernel_stats k ON k.run_id = shown.run_id"
    "                      GROUP BY k.run_id, k.category)"
    " SELECT cat.category, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    "        0 AS part, CASE coalesce(g.grp, 'other') WHEN 'communication' THEN 0 WHEN 'compute' THEN 1"
    "                   WHEN 'memory' THEN 2 ELSE 3 END AS k1, -sum(cat.ns) AS k2, cat.category AS k3,"
    "        NULL AS k4, NULL AS k5, NULL AS k6"
    " FROM cat LEFT JOIN trace_categories g ON g.category = cat.category GROUP BY cat.category"
    " UNION ALL"
    " SELECT " CONFIG_COLUMNS ", cat.category, CAST(cat.ns AS REAL) / ranked.step_ns,"
    "        ranked.uuid8, ranked.runs, ranked.ar_min, ranked.ar_max, ranked.step_ns,"
    "        ranked.whole_window, (SELECT count(*) FROM ranked WHERE recency = 1), 1, " CONFIG_COLUMNS
    " FROM ranked JOIN cat ON cat.run_id = ranked.run_id"
    " UNION ALL"
    " SELECT " CONFIG_COLUMNS ", uuid8, at, 100 * ar_share, own_clock, NULL, NULL, NULL, NULL, NULL,"
    "        2, at IS NULL, -at, -run_id, NULL, NULL, NULL FROM ranked"
    " ORDER BY part, k1, k2, k3, k4, k5, k6";

/* The page's trace statement at its first row of part (prepared on the first call, the rows
** of the parts before skipped): 0, or an error's exit code. */
static int trace_rows(sqlite3 *db, rp_shared *sh, int part) {
  if (!sh->trace) {
    int rc = prepare(db, trace_sql, &sh->trace);
    if (rc) return rc;
    sqlite3_bind_int(sh->trace, 1, MAX_BAR_ROWS);
    sh->step = sqlite3_step(sh->trace);
  }
  while (sh->step == SQLITE_ROW && sqlite3_column_int(sh->trace, TRACE_PART) < part) sh->step = sqlite3_step(sh->trace);
  if (sh->step != SQLITE_ROW && sh->step != SQLITE_DONE) return xp_db_fail(db, "reading");
  return 0;
}

/* Whether the trace statement holds a row of part. */
static int trace_row_of(rp_shared *sh, int part) {
  return sh->step == SQLITE_ROW && sqlite3_column_int(sh->trace, TRACE_PART) == part;
}

/* After a part's rows: 0, or the exit code of the step that failed. */
static int trace_step(sqlite3 *db, rp_shared *sh) {
  sh->step = sqlite3_step(sh->trace);
  return sh->step == SQLITE_ROW || sh->step == SQLITE_DONE ? 0 : xp_db_fail(db, "reading");
}

static int bar_categories(sqlite3 *db, rp_shared *sh, rp_bars *b) {
  int rc = trace_rows(db, sh, 0);
  for (; rc == 0 && trace_row_of(sh, 0); rc = trace_step(db, sh)) rp_bars_category(b, col(sh->trace, 0));
  return rc;
}

/* "latest of 3 runs (1a2b3c4d), 12.3 ms of step GPU time; AllReduce 38-52% across them"; a
** trace without step marks says its time is its whole window's. */
static char *row_detail(sqlite3_stmt *st) {
  int runs = sqlite3_column_int(st, NCONFIG + 3);
  double ms = sqlite3_column_double(st, NCONFIG + 6) / 1e6;
  const char *of = sqlite3_column_int(st, NCONFIG + 7) ? "GPU time in its whole window (no step marks)" : "step GPU time";
  if (runs == 1) return xp_asprintf("run %s, %.*f ms of %s", col(st, NCONFIG + 2), ms < 10 ? 2 : 1, ms, of);
  return xp_asprintf("latest of %d runs (%s), %.*f ms of %s; AllReduce %.0f-%.0f%% across them",
                     runs, col(st, NCONFIG + 2), ms < 10 ? 2 : 1, ms, of, 100 * sqlite3_column_double(st, NCONFIG + 4),
                     100 * sqlite3_column_double(st, NCONFIG + 5));
}

static int chart_shares(sqlite3 *db, rp_section *s) {
  if (!rp_table_exists(db, "trace_step_categories")) {
    xb_puts(&s->empty, "This database has no trace tables.");
    return 0;
  }
  rp_bars b = {0};
  rp_shared *sh = s->shared;
  int rc = bar_categories(db, sh, &b);
  sqlite3_stmt *st = sh->trace;
  rp_bar_row *row = NULL;
  size_t undeclared = 0, configs = 0;
  for (; rc == 0 && trace_row_of(sh, 1); rc = trace_step(db, sh)) {
    configs = (size_t)sqlite3_column_int64(st, NCONFIG + 8);
    char *label = config_label(st, 0);
    if (!row || strcmp(row->label, label) != 0) {
      char *detail = row_detail(st);
      row = rp_bars_row(&b, label, detail);
      free(detail);
    }
    free(label);
    row->share[rp_bars_category(&b, col(st, NCONFIG))] += sqlite3_column_double(st, NCONFIG + 1);
    undeclared += sqlite3_column_type(st, 5) != SQLITE_NULL;
  }
  if (rc == 0) {
    if (b.nrows) {
      xb_printf(&s->note, "For each of %zu configuration%s of imported torch.profiler traces, its latest "
                "run: each kernel category's share of step GPU time (the summed durations of the GPU "
                "activities inside the marked steps, all imported ranks), categories as the rules in "
                "force say (xp reclassify). AllReduce includes waiting for the other ranks; xp query "
                "queries/bottleneck_by_config.sql gives the transfer-only figure and the spread across runs.",
                b.nrows, b.nrows == 1 ? "" : "s");
      if (configs > b.nrows)
        xb_printf(&s->note, " Showing the %zu configurations measured last; %zu other%s left out (xp query "
                  "queries/bottleneck_by_config.sql lists them all).", b.nrows, configs - b.nrows,
                  configs - b.nrows == 1 ? " is" : "s are");
      if (undeclared) xb_puts(&s->note, undeclared_note);
      rp_bars_svg(&s->svg, &b);
    } else
      xb_puts(&s->empty, no_traces);
  }
  rp_bars_free(&b);
  return rc;
}

static int chart_allreduce(sqlite3 *db, rp_section *s) {
  if (!rp_table_exists(db, "trace_step_categories")) {
    xb_puts(&s->empty, "This database has no trace tables.");
    return 0;
  }
  rp_shared *sh = s->shared;
  int rc = trace_rows(db, sh, 2);
  if (rc) return rc;
  sqlite3_stmt *st = sh->trace;
  rp_xy c = {{RP_TIME, "when the trace was recorded (UTC)", 0, 0, 0},
             {RP_LINEAR, "AllReduce share of step GPU time (%)", 0, 0, 1}, NULL, 0, {0}};
  size_t points = 0, import_clock = 0, undeclared = 0, off_axes = 0;
  for (; rc == 0 && trace_row_of(sh, 2); rc = trace_step(db, sh)) {
    double at = sqlite3_column_double(st, NCONFIG + 1);
    double share = sqlite3_column_type(st, NCONFIG + 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, NCONFIG + 2);
    if (!rp_xy_holds(&c, at, share)) {
      off_axes++;
      continue;
    }
    char *name = config_label(st, 0);
    rp_series *ser = series_for(&c, name);
    if (ser) {
      ser->lines = 1;
      int own_clock = sqlite3_column_int(st, NCONFIG + 3);
      const int job = sqlite3_column_type(st, 5) != SQLITE_NULL; /* its label names the run */
      undeclared += job;
      import_clock += !own_clock;
      rp_series_add(ser, at, share,
                    xp_asprintf("%s%s%s: AllReduce %.1f%% of step GPU time%s", name, job ? "" : ", run ",
                                job ? "" : col(st, NCONFIG), share,
                                own_clock ? "" : " (dated by its import: the trace has no absolute clock)"));
      points++;
    }
    free(name);
  }
  if (rc) {
    rp_xy_free(&c);
    return rc;
  }
  if (points) {
    xb_printf(&s->note, "Each imported trace run (%zu): the share of step GPU time in AllReduce kernels, "
              "waiting included, at the time the trace was recorded; one line per configuration. "
              "xp query queries/allreduce_share.sql answers it for one TP and interconnect.", points);
    if (import_clock)
      xb_printf(&s->note, " %zu run%s dated by import (no absolute clock in the trace).",
                import_clock, import_clock == 1 ? " is" : "s are");
    if (undeclared) xb_puts(&s->note, undeclared_note);
    note_off_axes(&s->note, off_axes);
    note_dropped(s, &c);
    rp_xy_svg(&s->svg, &c);
  } else {
    xb_puts(&s->empty, no_traces);
    note_off_axes(&s->empty, off_axes);
  }
  rp_xy_free(&c);
  return 0;
}

/* ---- communication exposure per traced job: queries/comm_overlap.sql's rows ---- */

/* The columns of the query the chart reads, by name. Its config is view run_configuration's
** declared configuration, or, for a job with none declared, the job's own label. */
enum { Q_RUN, Q_MODEL, Q_TP, Q_BATCH, Q_GPU, Q_INTERCONNECT, Q_CONFIG, Q_BUSY_MS, Q_COMM_MS, Q_EXPOSED_MS,
       Q_COMM_PCT, Q_EXPOSED_PCT, Q_COMPUTE_EXPOSED_MS, Q_COMPUTE_EXPOSED_PCT, Q_COLUMNS };
static const char *const comm_columns[Q_COLUMNS] = {
    "run", "model", "tp", "batch", "gpu_name", "interconnect", "config", "busy_ms", "comm_ms", "exposed_ms",
    "comm_pct", "exposed_pct", "compute_exposed_ms", "compute_exposed_pct"};

/* The bars' parts, stacked in this order. Exposed: communication with nothing beside it; beside
** copies: with only copies or fills beside it, which hide none of it from compute's point of
** view (HTA's comm_comp_overlap: compute_exposed_ms less exposed_ms); hidden: compute beside it. */
static const char *const comm_parts[] = {"communication, exposed", "communication, beside copies or fills only",
                                         "communication, hidden by compute", "other GPU activity"};
enum { PART_EXPOSED, PART_BESIDE_COPIES, PART_HIDDEN, PART_OTHER };

typedef struct comm_chart {
  rp_bars bars;
  size_t jobs; /* the query's rows, the newest MAX_BAR_ROWS drawn */
  int at[Q_COLUMNS];
  char run[MAX_BAR_ROWS][16]; /* each bar's run */
} comm_chart;

/* The label config_label gives the job's configuration in the trace charts above. */
static char *comm_label(sqlite3_stmt *st, const int *at) {
  const char *model = text_or_null(st, at[Q_MODEL]), *config = text_or_null(st, at[Q_CONFIG]);
  const char *part[5] = {model, text_or_null(st, at[Q_TP]), text_or_null(st, at[Q_BATCH]),
                         text_or_null(st, at[Q_GPU]), text_or_null(st, at[Q_INTERCONNECT])};
  if (config && !model && !part[1] && !part[2] && strncmp(config, "undeclared: ", 12) == 0)
    return label_of(part, config);
  char *with_config = config && *config ? xp_asprintf("%s [%s]", model ? model : "?", config) : NULL;
  if (with_config) part[0] = with_config;
  char *label = label_of(part, NULL);
  free(with_config);
  return label;
}

/* A job's bar: the query's times (to the microsecond) as shares of its busy time, and its
** percentages in words. */
static void comm_row(rp_bars *b, sqlite3_stmt *st, const int *at) {
  double busy = sqlite3_column_double(st, at[Q_BUSY_MS]), comm = sqlite3_column_double(st, at[Q_COMM_MS]),
         exposed = sqlite3_column_double(st, at[Q_EXPOSED_MS]);
  /* NULL for a job imported before schema 33: its exposure to compute is not known, not made up */
  const int known = sqlite3_column_type(st, at[Q_COMPUTE_EXPOSED_MS]) != SQLITE_NULL;
  const double to_compute = known ? sqlite3_column_double(st, at[Q_COMPUTE_EXPOSED_MS]) : exposed;
  const int apart = to_compute > exposed; /* copies or fills, and nothing else, beside some of it */
  char *label = comm_label(st, at);
  char *to_compute_pct = apart ? xp_asprintf(", %s%% with no compute beside it", col(st, at[Q_COMPUTE_EXPOSED_PCT])) : NULL;
  char *detail = xp_asprintf("run %s, %.2f ms busy: communication %s%% of it, %s%% exposed%s%s", col(st, at[Q_RUN]),
                             busy, col(st, at[Q_COMM_PCT]), col(st, at[Q_EXPOSED_PCT]), apart ? to_compute_pct : "",
                             comm > 0 ? "" : " (no communication kernels in its steps)");
  rp_bar_row *row = rp_bars_row(b, label, detail);
  free(label);
  free(to_compute_pct);
  free(detail);
  row->share[PART_EXPOSED] = exposed / busy;
  row->share[PART_BESIDE_COPIES] = apart ? (to_compute - exposed) / busy : 0;
  row->share[PART_HIDDEN] = (comm - (apart ? to_compute : exposed)) / busy;
  row->share[PART_OTHER] = 1 - comm / busy;
}

/* xp_query_text's callback for the query's one statement: its newest jobs become bars. */
static int comm_rows(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  comm_chart *c = arg;
  for (int k = 0; k < Q_COLUMNS; k++) {
    c->at[k] = -1;
    for (int i = 0; i < sqlite3_column_count(st); i++)
      if (strcmp(sqlite3_column_name(st, i), comm_columns[k]) == 0) c->at[k] = i;
    if (c->at[k] < 0) return xp_error_at(XP_EXIT_FAILED, file, line, "no column %s, which xp report draws", comm_columns[k]);
  }
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW)
    if (c->jobs++ < MAX_BAR_ROWS) {
      snprintf(c->run[c->bars.nrows], sizeof c->run[0], "%s", col(st, c->at[Q_RUN]));
      comm_row(&c->bars, st, c->at);
    }
  return step == SQLITE_DONE ? 0 : xp_db_fail(db, "reading");
}

/* Bars of one configuration (two TP=2 batch=8 jobs) would read as one name: each of those
** is told apart by its run, the others keep their configuration alone. */
static void comm_labels_apart(comm_chart *c) {
  char same[MAX_BAR_ROWS] = {0};
  for (size_t i = 0; i < c->bars.nrows; i++)
    for (size_t j = i + 1; j < c->bars.nrows; j++)
      if (strcmp(c->bars.rows[i].label, c->bars.rows[j].label) == 0) same[i] = same[j] = 1;
  for (size_t i = 0; i < c->bars.nrows; i++)
    if (same[i]) {
      char *label = xp_asprintf("%s · run %s", c->bars.rows[i].label, c->run[i]);
      free(c->bars.rows[i].label);
      c->bars.rows[i].label = label;
    }
}

static int chart_comm(sqlite3 *db, rp_section *s) {
  if (!rp_table_exists(db, "trace_step_comm")) {
    xb_puts(&s->empty, "This database has no communication tables (written by an xp before schema 31).");
    return 0;
  }
  comm_chart c = {.jobs = 0};
  for (size_t i = 0; i < sizeof comm_parts / sizeof comm_parts[0]; i++) rp_bars_category(&c.bars, comm_parts[i]);
  const struct xp_blob *q = xp_query_file("comm_overlap.sql");
  int rc = xp_query_text(db, q->data, "queries/comm_overlap.sql", NULL, 0, comm_rows, &c);
  const size_t shown = c.bars.nrows;
  comm_labels_apart(&c);
  /* a part no job has (copies beside communication, mostly) is not in the legend */
  const int beside_copies = rp_bars_drop_empty(&c.bars, PART_BESIDE_COPIES);
  if (rc == 0 && shown) {
    if (shown == 1) xb_puts(&s->note, "For the newest traced job, ");
    else xb_printf(&s->note, "For each of the %zu newest traced jobs, ", shown);
    xb_puts(&s->note, "the GPU time its steps kept the GPUs busy: the part communication kernels ran "
                      "while nothing else did (exposed: what the steps would lose if communication were free), the "
                      "part compute overlapped (hidden), and the rest. A job on one stream hides nothing; where "
                      "much is hidden, the AllReduce share above overstates what removing it saves. xp query "
                      "queries/comm_overlap.sql gives every job's figures.");
    if (beside_copies)
      xb_puts(&s->note, " Beside copies or fills only: communication that nothing but a copy or a fill ran "
                        "beside, exposed as HTA counts it (no compute beside it: compute_exposed_ms).");
    if (c.jobs > shown) xb_printf(&s->note, " %zu older job%s left out.", c.jobs - shown, c.jobs - shown == 1 ? " is" : "s are");
    rp_bars_svg(&s->svg, &c.bars);
  } else if (rc == 0)
    xb_puts(&s->empty, "No torch.profiler trace imported by this xp (schema 31 on): xp import "
                       "torch-trace RANK0.json.gz RANK1.json.gz --set model=... tp=... batch=... (traces imported "
                       "before have no communication figures: import them again).");
  rp_bars_free(&c.bars);
  return rc;
}

const rp_chart rp_charts[] = {
    {"shares", "Where the GPU time goes, per configuration", chart_shares},
    {"allreduce", "AllReduce share over time", chart_allreduce},
    {"comm", "Communication hidden and exposed, per traced job", chart_comm},
    {"busbw", "Collective bus bandwidth against message size", chart_busbw},
    {"roofline", "GEMMs against the roofline", chart_roofline},
    {"serving", "Serving throughput against concurrency", chart_serving},
    {NULL, NULL, NULL}};
