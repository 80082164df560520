/*
** xp export: runs with their metadata, GPUs, cases, metrics and raw samples, for notebooks.
** JSON is one document (runs nested: run -> cases -> metrics -> samples); CSV is a folder of
** flat tables joined by run_uuid (runs.csv, meta.csv, gpus.csv, metrics.csv, artifacts.csv,
** result_digests.csv, samples.csv),
** the shape pandas.read_csv and merge expect. In JSON a run carries its kind's own sections
** too, under the titles xp show --format json gives them (a trace's "trace: ranks", ...).
** Files are written under temporary names and renamed at the end, so an export that fails
** leaves no half-written file behind (a link's target is the file replaced; a FIFO or a
** device is written through: xp_temp_beside).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "kind.h"
#include "db.h"
#include "history.h"
#include "runref.h"
#include "xp.h"

static const char usage[] =
    "usage: xp export [--format json|csv] [--out FILE|DIR] [--kind K] [--status S]\n"
    "                 [--where KEY=VALUE]... [--run RUN]... [--no-samples]\n"
    "  Exports runs (all of them, or those matching every filter) with metadata, GPUs, cases,\n"
    "  metrics and raw samples; in JSON, the files each run kept (name, size, SHA-256) and its\n"
    "  own sections too, as xp show --format json gives them (an imported trace's ranks, steps,\n"
    "  categories, collectives, heaviest kernels; a serving import's result digests).\n"
    "  --format json  (default) one JSON document, to stdout (or --out -) or to --out FILE\n"
    "  --format csv   a folder (--out DIR, created if needed) of runs.csv, meta.csv, gpus.csv,\n"
    "                 metrics.csv, artifacts.csv, result_digests.csv and samples.csv, joined\n"
    "                 by run_uuid\n"
    "  --where        flattened columns (model, tp, gpu_name, ...) or metadata keys, as xp runs\n"
    "  --run RUN      only this run (repeatable; UUID or unique prefix)\n"
    "  --no-samples   leave raw samples out (summaries only; csv: no samples.csv, an earlier\n"
    "                 export's removed from the folder)\n";

static const char run_columns[] =
    "r.uuid, r.kind, r.origin, xp_status(r.status, r.host, r.boot_id, r.pid) AS status, r.error, r.started_at, r.finished_at, r.host,"
    " r.spec_sha256, r.spec_path, r.parent_uuid, r.model, r.engine, r.tp, r.ep, r.pp, r.batch,"
    " r.concurrency, r.dtype, r.quantization, r.interconnect, r.gpu_name, xp_run_gpus(r.kind, r.gpu_count) AS gpu_count,"
    " r.xp_version, r.xp_commit, r.content_sha256, r.chain_sha256, r.spec_json";

typedef struct export_opts {
  const char *kind, *status;
  const char **wheres, **runs;
  int nwhere, nruns;
} export_opts;

/* The ids of the runs to export, oldest first, as a literal SQL list "(1,2,3)". */
static int select_runs(sqlite3 *db, const export_opts *o, char **list_out, int *count) {
  int64_t *only = xp_xcalloc((size_t)o->nruns + 1, sizeof *only);
  int rc = 0;
  for (int i = 0; i < o->nruns && rc == 0; i++) rc = xp_resolve_run(db, o->runs[i], &only[i], NULL);
  char *only_list = xp_id_list(only, o->nruns);
  char *sql = xp_asprintf("SELECT r.id FROM runs r WHERE 1%s%s%s%s", o->nruns ? " AND r.id IN " : "",
                          o->nruns ? only_list : "", o->kind ? " AND r.kind = ?1" : "",
                          o->status ? " AND xp_status(r.status, r.host, r.boot_id, r.pid) = ?2" : "");
  /* Every user value is bound; only names from the fixed list of columns are pasted. */
  for (int i = 0; i < o->nwhere; i++) {
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(strchr(o->wheres[i], '=') - o->wheres[i]), o->wheres[i]);
    const char *column = xp_where_column(key);
    if (!column) xp_warn_unknown_where_key(db, "export", key, strlen(key));
    char param[16];
    snprintf(param, sizeof param, "?%d", 2 * i + 11);
    char *cond = column ? xp_where_column_sql(column, param) : NULL;
    char *next = column
        ? xp_asprintf("%s AND %s", sql, cond)
        : xp_asprintf("%s AND EXISTS (SELECT 1 FROM run_meta m WHERE m.run_id = r.id AND m.key = ?%d AND m.value = ?%d)",
                      sql, 2 * i + 10, 2 * i + 11);
    free(cond);
    free(sql);
    sql = next;
  }
  char *ordered = xp_asprintf("%s ORDER BY r.started_at, r.id", sql);
  sqlite3_stmt *st = rc ? NULL : xp_db_prepare(db, ordered);
  if (!rc && !st) rc = XP_EXIT_DB;
  int64_t *ids = NULL;
  int n = 0;
  if (st) {
    if (o->kind) xp_bind_text(st, 1, o->kind);
    if (o->status) xp_bind_text(st, 2, o->status);
    /* Unused numbers (a flat column needs no key) are simply out of range: harmless. */
    for (int i = 0; i < o->nwhere; i++) {
      const char *eq = strchr(o->wheres[i], '=');
      xp_bind_text_n(st, 2 * i + 10, o->wheres[i], (size_t)(eq - o->wheres[i]));
      xp_bind_text(st, 2 * i + 11, eq + 1);
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      ids = xp_xrealloc(ids, (size_t)(n + 1) * sizeof *ids);
      ids[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  *count = n;
  *list_out = xp_id_list(ids, n);
  free(ids);
  free(only);
  free(only_list);
  free(sql);
  free(ordered);
  return rc;
}

/* ---- JSON ---- */

static cJSON *query_json(sqlite3 *db, const char *sql, int64_t key, int *rc) {
  if (*rc) return cJSON_CreateArray(); /* said once: a damaged table fails every case's query */
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  if (!st) {
    *rc = XP_EXIT_DB;
    return cJSON_CreateArray();
  }
  sqlite3_bind_int64(st, 1, key);
  int r = 0;
  cJSON *rows = xp_rows_json(st, &r);
  if (r) *rc = xp_db_fail(db, "exporting");
  sqlite3_finalize(st);
  return rows;
}

/* Move an object's column into a parsed JSON value (spec_json -> spec, params). */
static void parse_field(cJSON *o, const char *from, const char *to) {
  cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(o, from);
  cJSON *parsed = cJSON_IsString(v) ? cJSON_Parse(v->valuestring) : NULL;
  cJSON_AddItemToObject(o, to, parsed ? parsed : cJSON_CreateNull());
  cJSON_Delete(v);
}

static cJSON *run_json(sqlite3 *db, int64_t id, int samples, int *rc) {
  char *sql = xp_asprintf("SELECT %s FROM runs r WHERE r.id = ?1", run_columns);
  cJSON *rows = query_json(db, sql, id, rc);
  free(sql);
  cJSON *run = cJSON_DetachItemFromArray(rows, 0);
  cJSON_Delete(rows);
  if (!run) return NULL;
  parse_field(run, "spec_json", "spec");
  /* meta: the value that counts (detected, trace or env over declared); declared: as declared */
  cJSON *meta = cJSON_AddObjectToObject(run, "meta"), *declared = cJSON_AddObjectToObject(run, "declared");
  cJSON *m = query_json(db, "SELECT key, source, value FROM run_meta WHERE run_id = ?1 ORDER BY key, source = 'declared' DESC", id, rc);
  const cJSON *e;
  cJSON_ArrayForEach(e, m) {
    const char *k = cJSON_GetObjectItem(e, "key")->valuestring;
    const cJSON *v = cJSON_GetObjectItem(e, "value");
    int is_declared = strcmp(cJSON_GetObjectItem(e, "source")->valuestring, "declared") == 0;
    cJSON *target = is_declared ? declared : meta;
    cJSON_DeleteItemFromObjectCaseSensitive(target, k);
    cJSON_AddItemToObject(target, k, cJSON_Duplicate(v, 0));
    if (is_declared && !cJSON_GetObjectItemCaseSensitive(meta, k)) cJSON_AddItemToObject(meta, k, cJSON_Duplicate(v, 0));
  }
  cJSON_Delete(m);
  cJSON_AddItemToObject(run, "gpus", query_json(db,
      "SELECT idx, name, uuid, pci_bus_id, cc, sm_count, mem_bytes, clock_mhz, mem_clock_mhz, pcie_gen,"
      " pcie_width FROM run_gpus WHERE run_id = ?1 ORDER BY idx", id, rc));
  cJSON *cases = query_json(db, "SELECT id, seq, name, params, status, note FROM cases WHERE run_id = ?1 ORDER BY seq", id, rc);
  cJSON *c;
  cJSON_ArrayForEach(c, cases) {
    int64_t cid = xp_saturate_int64(cJSON_GetObjectItem(c, "id")->valuedouble);
    cJSON_DeleteItemFromObjectCaseSensitive(c, "id");
    parse_field(c, "params", "params");
    cJSON *metrics = query_json(db, "SELECT name, unit, n, median, mean, p10, p90, min, max, stddev FROM metrics WHERE case_id = ?1 ORDER BY name", cid, rc);
    if (samples) {
      cJSON *mm;
      cJSON_ArrayForEach(mm, metrics) {
        sqlite3_stmt *st = xp_db_prepare(db, "SELECT value FROM samples WHERE case_id = ?1 AND metric = ?2 ORDER BY seq");
        cJSON *vals = cJSON_AddArrayToObject(mm, "samples");
        if (!st) { *rc = XP_EXIT_DB; continue; }
        sqlite3_bind_int64(st, 1, cid);
        xp_bind_text(st, 2, cJSON_GetObjectItem(mm, "name")->valuestring);
        while (sqlite3_step(st) == SQLITE_ROW) cJSON_AddItemToArray(vals, xp_json_real(sqlite3_column_double(st, 0)));
        sqlite3_finalize(st);
      }
    }
    cJSON_AddItemToObject(c, "metrics", metrics);
  }
  cJSON_AddItemToObject(run, "cases", cases);
  /* the files the run kept (an import's inputs, a measurement's logs), as xp show lists them: their
  ** SHA-256 tells a notebook which file a result came from; the bytes stay in the database */
  cJSON_AddItemToObject(run, "artifacts", query_json(db,
      "SELECT name, media_type, size, sha256 FROM artifacts WHERE run_id = ?1 ORDER BY name", id, rc));
  /* the kind's own sections, as xp show --format json gives them (a trace's ranks, steps,
  ** categories, collectives, heaviest kernels) */
  int krc = *rc ? 0 : xp_kind_show_run(db, id, NULL, XP_FMT_JSON, run);
  if (krc) *rc = krc;
  return run;
}

static int write_json(sqlite3 *db, const char *ids, int samples, const char *db_path, FILE *out) {
  cJSON *doc = cJSON_CreateObject(), *about = cJSON_AddObjectToObject(doc, "xp");
  char now[40];
  xp_now_iso8601(now, sizeof now);
  cJSON_AddStringToObject(about, "version", xp_build_version);
  cJSON_AddStringToObject(about, "commit", xp_build_commit);
  cJSON_AddNumberToObject(about, "schema", xp_db_schema_version());
  cJSON_AddStringToObject(about, "database", db_path);
  cJSON_AddStringToObject(about, "exported_at", now);
  cJSON *runs = cJSON_AddArrayToObject(doc, "runs");
  int rc = 0;
  /* ids is "(1,2,3)" */
  for (const char *p = ids + 1; *p && *p != ')' && rc == 0;) {
    char *end;
    long long id = strtoll(p, &end, 10);
    if (end == p) break;
    cJSON *r = run_json(db, (int64_t)id, samples, &rc);
    if (r) cJSON_AddItemToArray(runs, r);
    p = *end == ',' ? end + 1 : end;
  }
  if (rc == 0) rc = xp_db_faulted(db_path, "nothing was exported"); /* samples short of their rows */
  if (rc == 0) {
    char *text = xp_json_print(doc);
    if (fputs(text, out) < 0 || fputc('\n', out) < 0) rc = xp_error(XP_EXIT_FAILED, "cannot write the export: %s", strerror(errno));
    free(text);
  }
  cJSON_Delete(doc);
  return rc;
}

/* ---- CSV ---- */

static const struct { const char *file, *sql; int samples; } csv_tables[] = {
    {"runs.csv", NULL, 0},
    {"meta.csv", "SELECT r.uuid AS run_uuid, m.key, m.source, m.value FROM run_meta m JOIN runs r ON r.id = m.run_id"
                 " WHERE m.run_id IN %s ORDER BY r.started_at, r.id, m.key, m.source", 0},
    {"gpus.csv", "SELECT r.uuid AS run_uuid, g.idx, g.name, g.uuid, g.pci_bus_id, g.cc, g.sm_count, g.mem_bytes,"
                 " g.clock_mhz, g.mem_clock_mhz, g.pcie_gen, g.pcie_width FROM run_gpus g JOIN runs r ON r.id = g.run_id"
                 " WHERE g.run_id IN %s ORDER BY r.started_at, r.id, g.idx", 0},
    {"metrics.csv", "SELECT r.uuid AS run_uuid, r.kind, c.seq AS case_seq, c.name AS case_name, c.params,"
                    " c.status AS case_status, c.note AS case_note, m.name AS metric, m.unit, m.n, m.median, m.mean,"
                    " m.p10, m.p90, m.min, m.max, m.stddev FROM cases c JOIN runs r ON r.id = c.run_id"
                    " JOIN metrics m ON m.case_id = c.id WHERE c.run_id IN %s"
                    " ORDER BY r.started_at, r.id, c.seq, m.name", 0},
    /* the files each run kept, and a serving import's results as read (JSON: "artifacts" and
    ** "serve: result digests"): an import's digest rows are what later imports match against */
    {"artifacts.csv", "SELECT r.uuid AS run_uuid, a.name, a.media_type, a.size, a.sha256 FROM artifacts a"
                      " JOIN runs r ON r.id = a.run_id WHERE a.run_id IN %s ORDER BY r.started_at, r.id, a.name", 0},
    {"result_digests.csv", "SELECT r.uuid AS run_uuid, d.seq, d.digest, d.recorded, d.file_no, d.listed, d.file,"
                           " d.line FROM serve_result_digests d JOIN runs r ON r.id = d.run_id WHERE d.run_id IN %s"
                           " ORDER BY r.started_at, r.id, d.seq", 0},
    {"samples.csv", "SELECT r.uuid AS run_uuid, c.seq AS case_seq, c.name AS case_name, c.params, s.metric, s.seq,"
                    " s.value FROM samples s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id"
                    " WHERE c.run_id IN %s ORDER BY r.started_at, r.id, c.seq, s.metric, s.seq", 1},
};
#define NCSV (sizeof csv_tables / sizeof csv_tables[0])

static int write_csv_dir(sqlite3 *db, const char *db_path, const char *ids, int samples, const char *dir) {
  struct stat sb;
  const int made = stat(dir, &sb) != 0;
  if (made && mkdir(dir, 0777) != 0)
    return xp_error_at(XP_EXIT_USAGE, dir, 0, "cannot create the folder: %s", strerror(errno));
  if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
    return xp_error_at(XP_EXIT_USAGE, dir, 0, "is a file; --format csv writes a folder of files");
  char *tmp[NCSV] = {0};
  int rc = 0;
  for (size_t i = 0; i < NCSV && rc == 0; i++) {
    if (csv_tables[i].samples && !samples) continue;
    char *final = xp_asprintf("%s/%s", dir, csv_tables[i].file);
    FILE *f = xp_temp_beside(final, &tmp[i]);
    if (!f) {
      rc = xp_out_error(final, "cannot write");
      free(final);
      break;
    }
    char *sql = csv_tables[i].sql ? xp_asprintf(csv_tables[i].sql, ids)
        : xp_asprintf("SELECT %s FROM runs r WHERE r.id IN %s ORDER BY r.started_at, r.id", run_columns, ids);
    sqlite3_stmt *st = xp_db_prepare(db, sql);
    free(sql);
    if (!st) rc = XP_EXIT_DB;
    else {
      rc = xp_print_rows(db, st, XP_FMT_CSV, f, NULL);
      sqlite3_finalize(st);
    }
    if (fclose(f) != 0 && rc == 0) rc = xp_error_at(XP_EXIT_FAILED, final, 0, "cannot write: %s", strerror(errno));
    free(final);
  }
  if (rc == 0) rc = xp_db_faulted(db_path, "nothing was exported");
  for (size_t i = 0; i < NCSV; i++) {
    if (!tmp[i]) continue;
    char *final = xp_asprintf("%s/%s", dir, csv_tables[i].file);
    if (rc == 0 && xp_temp_commit(tmp[i]) != 0) rc = xp_error_at(XP_EXIT_FAILED, final, 0, "cannot write: %s", strerror(errno));
    if (rc) unlink(tmp[i]);
    free(final);
    free(tmp[i]);
  }
  /* The folder holds this export's tables alone: a samples.csv that an earlier export left
  ** there (without --no-samples) would join, by run_uuid, runs this one did not select. */
  for (size_t i = 0; i < NCSV && rc == 0 && !samples; i++) {
    if (!csv_tables[i].samples) continue;
    char *stale = xp_asprintf("%s/%s", dir, csv_tables[i].file);
    if (unlink(stale) != 0 && errno != ENOENT)
      rc = xp_error_at(XP_EXIT_FAILED, stale, 0, "cannot remove an earlier export's file (--no-samples): %s", strerror(errno));
    free(stale);
  }
  if (rc && made) rmdir(dir); /* a failed export leaves no folder it made */
  return rc;
}

int cmd_export(int argc, char **argv, const char *db_path) {
  export_opts o = {0};
  o.wheres = xp_xcalloc((size_t)argc, sizeof *o.wheres);
  o.runs = xp_xcalloc((size_t)argc, sizeof *o.runs);
  const char *out = NULL, *format = NULL;
  enum xp_format fmt = XP_FMT_JSON;
  int samples = 1, bad = 0, rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *v;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      goto done;
    } else if (strcmp(argv[i], "--no-samples") == 0) samples = 0;
    else if ((v = xp_opt_value(argc, argv, &i, "--format", &bad))) {
      if ((rc = xp_opt_twice("export", "--format", v, format)) == 0)
        rc = xp_opt_format("export", v, (const char *const[]){"json", "csv", NULL}, &fmt);
      format = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--out", &bad))) {
      rc = xp_opt_twice("export", "--out", v, out);
      out = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--kind", &bad))) {
      rc = xp_opt_twice("export", "--kind", v, o.kind);
      o.kind = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--status", &bad))) {
      if ((rc = xp_opt_twice("export", "--status", v, o.status)) == 0)
        o.status = xp_opt_choice("export", "--status", v, xp_run_statuses, &rc);
    } else if ((v = xp_opt_value(argc, argv, &i, "--run", &bad))) o.runs[o.nruns++] = v;
    else if ((v = xp_opt_value(argc, argv, &i, "--where", &bad))) {
      char *normal;
      if ((rc = xp_where_check("export", v, &normal)) == 0) o.wheres[o.nwhere++] = normal;
    } else if (bad) rc = XP_EXIT_USAGE;
    else if (argv[i][0] == '-')
      rc = xp_unknown_option("export", argv[i], (const char *const[]){"--format", "--out", "--kind", "--status", "--run",
                                                                      "--where", "--no-samples", "--help", NULL});
    else rc = xp_usage_value_error("export", "unexpected argument", argv[i], NULL);
  }
  if (out && strcmp(out, "-") == 0) out = NULL; /* standard output, as for xp report --out - */
  if (rc == 0 && fmt == XP_FMT_CSV && !out) rc = xp_usage_error("export", "--format csv writes a folder: give --out DIR");
  if (rc == 0 && out && fmt == XP_FMT_JSON) rc = xp_out_not_database(out);
  sqlite3 *db = NULL;
  char *ids = NULL;
  int count = 0;
  if (rc == 0) db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  /* runs.csv and metrics.csv of one history: a run exported 'running' had its metrics there */
  if (rc == 0) rc = xp_db_snapshot(db);
  if (rc == 0) xp_register_run_fns(db);
  if (rc == 0) rc = xp_kind_filter(db, "export", &o.kind);
  if (rc == 0) rc = select_runs(db, &o, &ids, &count);
  if (rc == 0 && fmt == XP_FMT_CSV) rc = write_csv_dir(db, db_path, ids, samples, out);
  else if (rc == 0 && out) {
    char *tmp = NULL;
    FILE *f = xp_temp_beside(out, &tmp);
    if (!f) rc = xp_out_error(out, "cannot write");
    else {
      rc = write_json(db, ids, samples, db_path, f);
      if (fclose(f) != 0 && rc == 0) rc = xp_error_at(XP_EXIT_FAILED, out, 0, "cannot write: %s", strerror(errno));
      if (rc == 0 && tmp && xp_temp_commit(tmp) != 0) rc = xp_error_at(XP_EXIT_FAILED, out, 0, "cannot write: %s", strerror(errno));
      if (rc && tmp) unlink(tmp);
    }
    free(tmp);
  } else if (rc == 0) rc = write_json(db, ids, samples, db_path, stdout);
  if (rc == 0 && out) fprintf(stderr, "xp: exported %d run%s to %s\n", count, count == 1 ? "" : "s", out);
  free(ids);
  xp_db_close(db);
done:
  for (int i = 0; i < o.nwhere; i++) free((char *)o.wheres[i]);
  free(o.wheres);
  free(o.runs);
  return rc;
}
