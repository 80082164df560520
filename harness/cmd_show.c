/* xp show RUN: everything recorded for one run, generic sections then the kind's own. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "runref.h"
#include "xp.h"

static const struct { const char *title; const char *sql; } sections[] = {
    {"run",
     "SELECT uuid, kind, origin, xp_status(status, host, boot_id, pid) AS status, error, started_at,"
     " finished_at, host, pid, spec_path, spec_sha256, parent_uuid, model, engine, tp, ep, pp, batch,"
     " concurrency, dtype, quantization, interconnect, gpu_name, xp_run_gpus(kind, gpu_count) AS gpu_count, xp_version, xp_commit,"
     " content_sha256, chain_sha256 FROM runs WHERE id = ?1"},
    {"spec", "SELECT spec_json AS spec FROM runs WHERE id = ?1"},
    {"metadata", "SELECT key, source, value FROM run_meta WHERE run_id = ?1 ORDER BY key, source"},
    {"gpus",
     "SELECT idx, name, uuid, pci_bus_id, cc, sm_count, mem_bytes, clock_mhz, mem_clock_mhz,"
     " pcie_gen, pcie_width FROM run_gpus WHERE run_id = ?1 ORDER BY idx"},
    {"results",
     "SELECT c.seq, c.name AS case_name, c.status, c.params, m.name AS metric, m.unit, m.n, m.median,"
     " m.p10, m.p90, m.min, m.max, coalesce(c.note, '') AS note FROM cases c LEFT JOIN metrics m"
     " ON m.case_id = c.id WHERE c.run_id = ?1 ORDER BY c.seq, m.name"},
    {"artifacts", "SELECT name, media_type, size, sha256 FROM artifacts WHERE run_id = ?1 ORDER BY name"},
    /* the decisions that cite the run, and on which side of each it stands (xp decide --over) */
    {"decisions",
     "SELECT d.uuid AS decision, d.title, d.created_at, s.side FROM decision_evidence e"
     " JOIN decisions d ON d.id = e.decision_id LEFT JOIN decision_evidence_sides s"
     " ON s.decision_id = e.decision_id AND s.seq = e.seq"
     " WHERE e.run_uuid = (SELECT uuid FROM runs WHERE id = ?1) ORDER BY d.created_at, d.id"},
};

static int has_table(sqlite3 *db, const char *name) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  if (st) xp_bind_text(st, 1, name);
  int has = st && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return has;
}

static int row_count(sqlite3 *db, const char *sql, int64_t id) {
  char *count_sql = xp_asprintf("SELECT count(*) FROM (%s)", sql);
  sqlite3_stmt *st = xp_db_prepare(db, count_sql);
  free(count_sql);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, id);
  int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

int cmd_show(int argc, char **argv, const char *db_path) {
  const char *ref = NULL, *format = NULL;
  enum xp_format fmt = XP_FMT_TABLE;
  int bad = 0, rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *v;
    if ((v = xp_opt_value(argc, argv, &i, "--format", &bad))) {
      if ((rc = xp_opt_twice("show", "--format", v, format)) == 0)
        rc = xp_opt_format("show", v, (const char *const[]){"table", "json", NULL}, &fmt);
      format = v;
    } else if (bad) rc = XP_EXIT_USAGE;
    else if (argv[i][0] == '-') rc = xp_unknown_option("show", argv[i], (const char *const[]){"--format", "--help", NULL});
    else if (ref) rc = xp_one_at_a_time("show", "run", ref, argv[i]);
    else ref = argv[i];
  }
  if (rc == 0 && !ref) rc = xp_usage_error("show", "which run? (xp runs lists them)");
  sqlite3 *db = NULL;
  int64_t id = 0;
  if (rc == 0) db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  if (rc == 0) rc = xp_resolve_run(db, ref, &id, NULL);
  if (rc) goto out;
  xp_register_run_fns(db);
  cJSON *all = fmt == XP_FMT_JSON ? cJSON_CreateObject() : NULL;
  for (size_t s = 0; s < sizeof sections / sizeof sections[0] && rc == 0; s++) {
    /* a database older than schema 34, read unmigrated, has no sides to show */
    if (strcmp(sections[s].title, "decisions") == 0 && !has_table(db, "decision_evidence_sides")) continue;
    if (!all && s > 1 && row_count(db, sections[s].sql, id) == 0) continue;
    sqlite3_stmt *st = xp_db_prepare(db, sections[s].sql);
    if (!st) { rc = XP_EXIT_DB; break; }
    sqlite3_bind_int64(st, 1, id);
    if (all) {
      cJSON *rows = xp_rows_json(st, &rc);
      cJSON_AddItemToObject(all, sections[s].title, rows);
    } else {
      printf("%s== %s ==\n", s ? "\n" : "", sections[s].title);
      rc = xp_print_rows(db, st, fmt, stdout, NULL);
    }
    sqlite3_finalize(st);
  }
  /* the kind's own sections (a trace's steps, categories, collectives) */
  if (rc == 0) rc = xp_kind_show_run(db, id, stdout, (int)fmt, all);
  if (all) {
    char *text = xp_json_print(all);
    if (rc == 0) printf("%s\n", text);
    free(text);
    cJSON_Delete(all);
  }
out:
  xp_db_close(db);
  return rc;
}
