/*
** Which way is better for a metric, told by its unit: the one list that xp compare and xp audit
** (through xp_unit_better) and the queries (through the SQL function xp_unit_direction, on every
** connection xp opens: queries/regressions.sql) judge by. They kept a list each, and disagreed:
** the query knew s, ms, us, ns and cycles, the C side µs, sec and seconds too, so a vLLM summary's
** "sec" duration was "changed" in regressions.sql and "worse" in xp compare.
**
** Every unit xp's runners and importers record is here (tests/cli/unit_directions.sh imports every
** fixture and fails on a unit missing): a time or an energy is better lower; a rate (any unit
** ending in /s), tokens per joule and a real-time factor higher; a share, a count, a size, a power
** draw or an error bound has no better way and is "either": a move either way is news.
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

const char *xp_unit_direction(const char *unit) {
  if (!unit) return NULL;
  for (size_t i = 0; i < sizeof unit_directions / sizeof *unit_directions; i++)
    if (strcmp(unit, unit_directions[i].unit) == 0) return unit_directions[i].direction;
  size_t n = strlen(unit);
  if (n > 2 && strcmp(unit + n - 2, "/s") == 0) return "higher"; /* GB/s, tok/s, req/s, TFLOP/s */
  return NULL;
}

const char *xp_unit_better(const char *unit) {
  const char *d = xp_unit_direction(unit);
  return d && strcmp(d, "either") != 0 ? d : NULL;
}

static void unit_direction_fn(sqlite3_context *ctx, int argc, sqlite3_value **v) {
  (void)argc;
  const char *d = xp_unit_direction((const char *)sqlite3_value_text(v[0]));
  if (d) sqlite3_result_text(ctx, d, -1, SQLITE_STATIC);
  else sqlite3_result_null(ctx);
}

int xp_register_unit_fns(sqlite3 *db) {
  return sqlite3_create_function(db, "xp_unit_direction", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                 NULL, unit_direction_fn, NULL, NULL);
}
