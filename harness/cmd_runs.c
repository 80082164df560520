/* xp runs: the history, newest first, filtered by kind, status and metadata. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "kind.h"
#include "db.h"
#include "runref.h"
#include "xp.h"

int cmd_runs(int argc, char **argv, const char *db_path) {
  const char *kind = NULL, *status = NULL, *limit = NULL, *format = NULL;
  enum xp_format fmt = XP_FMT_TABLE;
  char **wheres = xp_xcalloc((size_t)argc, sizeof *wheres);
  int nwhere = 0, bad = 0, rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *v;
    if ((v = xp_opt_value(argc, argv, &i, "--kind", &bad))) {
      rc = xp_opt_twice("runs", "--kind", v, kind);
      kind = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--status", &bad))) {
      if ((rc = xp_opt_twice("runs", "--status", v, status)) == 0)
        status = xp_opt_choice("runs", "--status", v, xp_run_statuses, &rc);
    } else if ((v = xp_opt_value(argc, argv, &i, "--limit", &bad))) {
      rc = xp_opt_twice("runs", "--limit", v, limit);
      limit = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--where", &bad))) {
      rc = xp_where_check("runs", v, &wheres[nwhere]);
      nwhere += rc == 0;
    } else if ((v = xp_opt_value(argc, argv, &i, "--format", &bad))) {
      if ((rc = xp_opt_twice("runs", "--format", v, format)) == 0)
        rc = xp_opt_format("runs", v, (const char *const[]){"table", "csv", "json", NULL}, &fmt);
      format = v;
    } else if (bad) rc = XP_EXIT_USAGE;
    else if (argv[i][0] == '-')
      rc = xp_unknown_option("runs", argv[i],
                             (const char *const[]){"--kind", "--status", "--where", "--limit", "--format", "--help", NULL});
    else rc = xp_usage_value_error("runs", "unexpected argument", argv[i], NULL);
  }
  int64_t lim = 0;
  if (!limit) limit = "50";
  if (rc == 0) rc = xp_opt_int("runs", "--limit", limit, 1, INT64_MAX, &lim);
  sqlite3 *db = NULL;
  if (rc == 0) db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  if (rc) goto out;
  xp_register_run_fns(db);
  if ((rc = xp_kind_filter(db, "runs", &kind)) != 0) goto out;
  /* Build the filter from fixed SQL pieces; every user value is bound, never pasted. */
  char *sql = xp_asprintf(
      "SELECT substr(r.uuid, 1, 8) AS run, r.kind, xp_status(r.status, r.host, r.boot_id, r.pid) AS status,"
      " replace(substr(r.started_at, 1, 19), 'T', ' ') AS started, r.origin, r.model, r.gpu_name AS gpu,"
      " xp_run_gpus(r.kind, r.gpu_count) AS gpus, r.interconnect, r.tp, r.batch, r.error"
      " FROM runs r WHERE 1");
  /* grown piece by piece (any number of --where): every user value is bound, never pasted */
#define SQL_ADD(...)                              \
  do {                                            \
    char *piece = xp_asprintf(__VA_ARGS__);       \
    char *joined = xp_asprintf("%s%s", sql, piece); \
    free(piece);                                  \
    free(sql);                                    \
    sql = joined;                                 \
  } while (0)
  if (kind) SQL_ADD(" AND r.kind = :kind");
  if (status) SQL_ADD(" AND xp_status(r.status, r.host, r.boot_id, r.pid) = :status");
  for (int i = 0; i < nwhere; i++) {
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(strchr(wheres[i], '=') - wheres[i]), wheres[i]);
    const char *column = xp_where_column(key);
    if (column) {
      char param[16];
      snprintf(param, sizeof param, ":w%d", i);
      char *cond = xp_where_column_sql(column, param);
      SQL_ADD(" AND %s", cond);
      free(cond);
    } else {
      xp_warn_unknown_where_key(db, "runs", key, strlen(key));
      SQL_ADD(" AND EXISTS (SELECT 1 FROM run_meta m WHERE m.run_id = r.id AND m.key = :k%d AND m.value = :w%d)", i, i);
    }
  }
  SQL_ADD(" ORDER BY r.started_at DESC, r.id DESC LIMIT :limit");
#undef SQL_ADD
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  if (!st) { rc = XP_EXIT_DB; goto out; }
  if (kind) sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":kind"), kind, -1, SQLITE_STATIC);
  if (status) sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":status"), status, -1, SQLITE_STATIC);
  for (int i = 0; i < nwhere; i++) {
    char name[32];
    const char *eq = strchr(wheres[i], '=');
    snprintf(name, sizeof name, ":w%d", i);
    xp_bind_text(st, sqlite3_bind_parameter_index(st, name), eq + 1); /* mended, as stored text is */
    snprintf(name, sizeof name, ":k%d", i);
    int k = sqlite3_bind_parameter_index(st, name);
    if (k) xp_bind_text_n(st, k, wheres[i], (size_t)(eq - wheres[i]));
  }
  sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":limit"), lim);
  rc = xp_print_rows(db, st, fmt, stdout, NULL);
  sqlite3_finalize(st);
out:
  xp_db_close(db);
  for (int i = 0; i < nwhere; i++) free(wheres[i]);
  free(wheres);
  return rc;
}
