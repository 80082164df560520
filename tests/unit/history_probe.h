/*
** A run kind for the history tests (issue 7): records cases with raw samples through the
** recorder, as every kind does, without a GPU. The numbers are deterministic functions of the
** spec, so a test can make two runs that differ by a known factor.
**
**   cases    number of "op" cases (params {"i": n})        default 2
**   samples  samples per case                               default 10
**   base     median of case 0, in us                        default 100
**   scale    factor on every sample (a slower GPU: 1.2)     default 1
**   share    recorded as case "summary", metric "allreduce_share" (%), when given
**   gpu      detected gpu_name; driver: detected gpu.driver
**   fail     the run fails after measuring
**   extra    rows for probe_rows (and probe_leaf, probe_names): tables a test may add to
**            the schema, as later migrations add trace tables, when they exist
*/
#ifndef XP_TEST_HISTORY_PROBE_H
#define XP_TEST_HISTORY_PROBE_H
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kind.h"
#include "xp.h"

static const xp_field probe_fields[] = {
    {"cases", XP_T_INT, 0, NULL, NULL, 0, 1000, "cases to record"},
    {"samples", XP_T_INT, 0, NULL, NULL, 0, 100000, "samples per case"},
    {"base", XP_T_NUMBER, 0, NULL, NULL, 0, 0, "median of case 0 (us)"},
    {"scale", XP_T_NUMBER, 0, NULL, NULL, 0, 0, "factor on every sample"},
    {"share", XP_T_NUMBER, 0, NULL, NULL, 0, 0, "allreduce share (%)"},
    {"gpu", XP_T_STRING, 0, NULL, NULL, 0, 0, "detected GPU name"},
    {"driver", XP_T_STRING, 0, NULL, NULL, 0, 0, "detected driver"},
    {"fail", XP_T_BOOL, 0, NULL, NULL, 0, 0, "fail after measuring"},
    {"extra", XP_T_INT, 0, NULL, NULL, 0, 1000, "rows for probe_rows"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static int probe_has_table(sqlite3 *db, const char *name) {
  sqlite3_stmt *st = NULL;
  int yes = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE name = ?1", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return yes;
}

static int probe_execute(xp_ctx *ctx) {
  const cJSON *s = ctx->spec->root;
  int64_t ncases = xp_spec_int(s, "cases", 2), nsamples = xp_spec_int(s, "samples", 10);
  double base = xp_spec_num(s, "base", 100), scale = xp_spec_num(s, "scale", 1);
  /* measure first, record after: the samples are computed before anything is written */
  double *v = xp_xmalloc((size_t)(ncases * nsamples + 1) * sizeof *v);
  for (int64_t i = 0; i < ncases; i++)
    for (int64_t j = 0; j < nsamples; j++)
      v[i * nsamples + j] = base * (double)(i + 1) * scale * (1 + 0.01 * (double)((j * 7) % 11 - 5) / 5);
  int rc = 0;
  const char *gpu = xp_spec_str(s, "gpu", NULL), *driver = xp_spec_str(s, "driver", NULL);
  if (gpu) rc = xp_run_meta(ctx->run, "gpu_name", gpu, "detected");
  if (rc == 0 && driver) rc = xp_run_meta(ctx->run, "gpu.driver", driver, "detected");
  for (int64_t i = 0; i < ncases && rc == 0; i++) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "i", (double)i);
    int64_t c = xp_run_case(ctx->run, "op", p, "ok", NULL);
    cJSON_Delete(p);
    if (c < 0) rc = XP_EXIT_DB;
    else rc = xp_run_metric(ctx->run, c, "time", "us", v + i * nsamples, (size_t)nsamples);
    if (rc == 0) rc = xp_run_value(ctx->run, c, "busbw", "GB/s", 1000.0 / (base * (double)(i + 1) * scale));
  }
  free(v);
  if (rc == 0 && cJSON_GetObjectItemCaseSensitive(s, "share")) {
    int64_t c = xp_run_case(ctx->run, "summary", NULL, "ok", NULL);
    rc = c < 0 ? XP_EXIT_DB : xp_run_value(ctx->run, c, "allreduce_share", "%", xp_spec_num(s, "share", 0));
  }
  int64_t extra = xp_spec_int(s, "extra", 0);
  if (rc == 0 && extra > 0 && probe_has_table(ctx->db, "probe_rows")) {
    int leaves = probe_has_table(ctx->db, "probe_leaf");
    for (int64_t i = 0; i < extra && rc == 0; i++) {
      /* a shared dictionary row, keyed by a value derived from its content (as trace_names) */
      sqlite3_stmt *st = xp_run_stmt(ctx->run, "INSERT OR IGNORE INTO probe_names(id, name) VALUES (?1, ?2)");
      if (!st) return XP_EXIT_DB;
      char k[32];
      snprintf(k, sizeof k, "row%lld", (long long)i);
      sqlite3_bind_int64(st, 1, 1000 + i);
      sqlite3_bind_text(st, 2, k, -1, SQLITE_TRANSIENT);
      if ((rc = xp_db_step_done(ctx->db, st)) != 0) break;
      st = xp_run_stmt(ctx->run, "INSERT INTO probe_rows(run_id, k, v, name_id) VALUES (?1, ?2, ?3, ?4)");
      if (!st) return XP_EXIT_DB;
      sqlite3_bind_int64(st, 1, xp_run_id(ctx->run));
      sqlite3_bind_text(st, 2, k, -1, SQLITE_TRANSIENT);
      sqlite3_bind_double(st, 3, (double)i / 3.0);
      sqlite3_bind_int64(st, 4, 1000 + i);
      rc = xp_db_step_done(ctx->db, st);
      int64_t row = sqlite3_last_insert_rowid(ctx->db);
      if (rc == 0 && leaves) {
        st = xp_run_stmt(ctx->run, "INSERT INTO probe_leaf(row_id, x) VALUES (?1, ?2)");
        if (!st) return XP_EXIT_DB;
        sqlite3_bind_int64(st, 1, row);
        sqlite3_bind_double(st, 2, (double)i * 2);
        rc = xp_db_step_done(ctx->db, st);
      }
    }
  }
  if (rc == 0 && xp_spec_bool(s, "fail", 0)) rc = xp_error(XP_EXIT_FAILED, "probe: planned failure");
  return rc;
}

/* Tables a later migration might add: a run table, a table under it, and a shared dictionary
** the run table names rows of by a content-derived key (trace-like). */
static const char probe_tables_sql[] =
    "CREATE TABLE IF NOT EXISTS probe_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;"
    "CREATE TABLE IF NOT EXISTS probe_rows (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL"
    " REFERENCES runs (id) ON DELETE CASCADE, k TEXT NOT NULL, v REAL, name_id INTEGER) STRICT;"
    "CREATE TABLE IF NOT EXISTS probe_leaf (row_id INTEGER NOT NULL REFERENCES probe_rows (id)"
    " ON DELETE CASCADE, x REAL NOT NULL) STRICT;";

static const xp_kind probe_kind = {
    .name = "hist_probe", .summary = "history test probe", .fields = probe_fields, .execute = probe_execute};

/* Record one probe run with "KEY=VALUE" settings; returns the exit code, uuid in out. */
static int probe_record(sqlite3 *db, const char *const *sets, int nsets, char out[37]) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "kind", "hist_probe");
  for (int i = 0; i < nsets; i++) {
    int rc = xp_spec_set_kv(root, &probe_kind, sets[i]);
    if (rc) {
      cJSON_Delete(root);
      return rc;
    }
  }
  xp_spec *spec = xp_spec_from_json(root, "<probe>", ".");
  int rc = xp_validate_spec(&probe_kind, spec);
  if (rc == 0) rc = xp_execute_spec(db, &probe_kind, spec, 0, NULL, out);
  xp_spec_free(spec);
  return rc;
}
#endif
