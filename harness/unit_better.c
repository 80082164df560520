/*
** Which way is better for a metric, told by its unit: the one list that xp compare and xp audit
** (through xp_metric_better) and the queries (through the SQL function xp_metric_direction, on every
** connection xp opens: queries/regressions.sql) judge by. They kept a list each, and disagreed:
** the query knew s, ms, us, ns and cycles, the C side µs, sec and seconds too, so a vLLM summary's
** "sec" duration was "changed" in regressions.sql and "worse" in xp compare.
**
** Every unit xp's runners and importers record is here (tests/cli/unit_directions.sh imports every
** fixture and fails on a unit missing): a time or an energy is better lower; a rate (any unit
** ending in /s), tokens per joule and a real-time factor higher; a share, a count, a size or a power
** draw has no better way and is "either": a move either way is news.
**
** A few units are shared by metrics that go opposite ways, and there the metric decides
** (metric_directions): a gemm runner's "ratio" is a share of the roofline (either) or a speedup of
** the best algorithm over the default (higher), a kernel variant's "ratio" is a share of copy
** bandwidth (either) or its largest error against the reference (lower); an nccl-tests error bound
** ("abs", before 2.13) and its count of wrong elements (2.13 on) are better lower, where a count of
** samples or a minimum verified count is not. A power draw stays "either": it rises with the work
** done in the same time, so a run drawing more may be the faster one (tok/J says which is better).
*/
#include <string.h>
#include <sqlite3.h>
#include "history.h"

static const struct {
  const char *unit, *direction;
} unit_directions[] = {
    {"s", "lower"},        {"ms", "lower"},     {"us", "lower"},      {"ns", "lower"},
    {"µs", "lower"},       {"sec", "lower"},    {"seconds", "lower"}, {"cycles", "lower"},
    {"J", "lower"},        {"J/tok", "lower"},  /* energy for the same work */
    {"tok/J", "higher"},   {"x", "higher"},     /* tokens per joule; a real-time factor (rtfx) */
    {"count", "either"},   {"ratio", "either"}, {"%", "either"},      {"tokens", "either"},
    {"requests", "either"}, {"samples", "either"}, {"abs", "either"}, {"W", "either"},
    {"B", "either"},       {"bytes", "either"},
};

/* Metrics whose unit alone does not say: matched on metric and unit, so another tool's metric
** of the same name in another unit is judged by its unit. */
static const struct {
  const char *metric, *unit, *direction;
} metric_directions[] = {
    {"best_speedup", "ratio", "higher"}, /* gemm: the best algorithm's time over the default's */
    {"max_err", "ratio", "lower"},       /* kernel_variant: largest error against the reference */
    {"max_error", "abs", "lower"},       /* nccl-tests before 2.13: the largest error it printed */
    {"wrong", "count", "lower"},         /* nccl-tests 2.13 on, and xp's nccl runners: wrong elements */
};

static const char *unit_direction(const char *unit) {
  if (!unit) return NULL;
  for (size_t i = 0; i < sizeof unit_directions / sizeof *unit_directions; i++)
    if (strcmp(unit, unit_directions[i].unit) == 0) return unit_directions[i].direction;
  size_t n = strlen(unit);
  if (n > 2 && strcmp(unit + n - 2, "/s") == 0) return "higher"; /* GB/s, tok/s, req/s, TFLOP/s */
  return NULL;
}

const char *xp_metric_direction(const char *metric, const char *unit) {
  if (metric && unit)
    for (size_t i = 0; i < sizeof metric_directions / sizeof *metric_directions; i++)
      if (strcmp(metric, metric_directions[i].metric) == 0 && strcmp(unit, metric_directions[i].unit) == 0)
        return metric_directions[i].direction;
  return unit_direction(unit);
}

const char *xp_metric_better(const char *metric, const char *unit) {
  const char *d = xp_metric_direction(metric, unit);
  return d && strcmp(d, "either") != 0 ? d : NULL;
}

static void metric_direction_fn(sqlite3_context *ctx, int argc, sqlite3_value **v) {
  (void)argc;
  const char *d = xp_metric_direction((const char *)sqlite3_value_text(v[0]), (const char *)sqlite3_value_text(v[1]));
  if (d) sqlite3_result_text(ctx, d, -1, SQLITE_STATIC);
  else sqlite3_result_null(ctx);
}

int xp_register_unit_fns(sqlite3 *db) {
  return sqlite3_create_function(db, "xp_metric_direction", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                 NULL, metric_direction_fn, NULL, NULL);
}
