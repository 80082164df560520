/* Run references and the 'incomplete' status. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "meta.h"
#include "runref.h"
#include "xp.h"

int xp_local_run_uuid(sqlite3 *db, const char *digits, char uuid[37]) {
  size_t n = strlen(digits);
  if (n == 0 || n > 18 || strspn(digits, "0123456789") != n) return 0;
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT uuid FROM runs WHERE id = ?1");
  if (!st) return 0;
  sqlite3_bind_int64(st, 1, strtoll(digits, NULL, 10));
  int found = sqlite3_step(st) == SQLITE_ROW;
  if (found) snprintf(uuid, 37, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return found;
}

/* Where ref, all digits, is the local id of a run here (runs.id, as a query's r.id or run_id
** shows it), what to give instead: that id is this database's own numbering, which xp merge
** renumbers, so the same digits name another run in a merged database. "" where it is none. */
static char *local_id_hint(sqlite3 *db, const char *ref) {
  char uuid[37];
  if (!xp_local_run_uuid(db, ref, uuid)) return xp_strdup("");
  return xp_asprintf(" (runs.id %s here is run %.8s; a run's id is this database's own number, which xp merge"
                     " renumbers: name runs by UUID)", ref, uuid);
}

int xp_resolve_run(sqlite3 *db, const char *ref, int64_t *id, char uuid_out[37]) {
  size_t n = strlen(ref);
  /* named, not quoted: '' (a script's unset $RUN) read "xp: : not a run id" */
  if (n == 0) return xp_error(XP_EXIT_USAGE, "an empty run id (expected a UUID or a prefix of at least 4 hex digits)");
  if (n < 4 || n > 36 || strspn(ref, "0123456789abcdefABCDEF-") != n) {
    char *cut = xp_value_cut(ref), *hint = local_id_hint(db, ref);
    xp_error(XP_EXIT_USAGE, "%s: not a run id (a UUID or a prefix of at least 4 hex digits)%s", cut, hint);
    free(cut);
    free(hint);
    return XP_EXIT_USAGE;
  }
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT id, uuid FROM runs WHERE uuid >= lower(?1) AND uuid < lower(?1) || 'g' ORDER BY uuid LIMIT 3");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, ref);
  int count = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (count++ == 0) {
      *id = sqlite3_column_int64(st, 0);
      if (uuid_out) snprintf(uuid_out, 37, "%s", (const char *)sqlite3_column_text(st, 1));
    }
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return xp_db_fail(db, "looking up a run");
  if (count == 0) {
    char *hint = local_id_hint(db, ref);
    xp_error(XP_EXIT_USAGE, "%s: no such run%s", ref, hint);
    free(hint);
    return XP_EXIT_USAGE;
  }
  if (count > 1) return xp_error(XP_EXIT_USAGE, "%s: ambiguous run id prefix (matches %s runs); give more digits", ref, count > 2 ? "3 or more" : "2");
  return 0;
}

const char *xp_effective_status(const char *status, const char *host, const char *boot_id,
                                int64_t pid) {
  if (!status || strcmp(status, "running") != 0) return status ? status : "?";
  if (!host || strcmp(host, xp_meta_hostname()) != 0) return "running"; /* cannot tell from here */
  if (boot_id && strcmp(boot_id, xp_meta_boot_id()) != 0) return "incomplete";
  if (pid <= 0) return "incomplete";
  if (kill((pid_t)pid, 0) == 0 || errno == EPERM) return "running";
  return "incomplete";
}

/* The runs a live xp is recording in db, for a "database is locked" message: "; recording now:
** run 3f2a9c1e (serve_bench, xp pid 1234 on vm, since T)" and how many more, newest first; ""
** where none (the holder is no run: xp merge, reclassify, a sqlite3 shell). The lock is another
** process's, so it is read without waiting (a journal-mode database locked for reading too
** gives ""), and on raw statements: the error being said must not be replaced by another. */
char *xp_recording_runs_hint(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  sqlite3_busy_timeout(db, 0);
  int rc = sqlite3_prepare_v2(db, "SELECT uuid, kind, pid, host, boot_id, started_at FROM runs"
                                  " WHERE status = 'running' ORDER BY id DESC", -1, &st, NULL);
  char *hint = xp_strdup("");
  int live = 0;
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *host = (const char *)sqlite3_column_text(st, 3);
    if (strcmp(xp_effective_status("running", host, (const char *)sqlite3_column_text(st, 4),
                                   sqlite3_column_int64(st, 2)), "running") != 0)
      continue; /* its recorder is gone: incomplete, holding nothing */
    if (live++ == 0) {
      free(hint);
      hint = xp_asprintf("; recording now: run %.8s (%s, xp pid %lld on %s, since %s)",
                         (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
                         (long long)sqlite3_column_int64(st, 2), host ? host : "an unnamed host",
                         (const char *)sqlite3_column_text(st, 5));
    }
  }
  sqlite3_finalize(st);
  sqlite3_busy_timeout(db, XP_BUSY_TIMEOUT_MS);
  if (live > 1) {
    char *more = xp_asprintf("%s and %d more", hint, live - 1);
    free(hint);
    hint = more;
  }
  return hint;
}

/* A SQL function so that 'incomplete' is computed the same way in filters and output. */
static void effective_status_fn(sqlite3_context *ctx, int argc, sqlite3_value **v) {
  const char *s = xp_effective_status((const char *)sqlite3_value_text(v[0]),
                                      (const char *)sqlite3_value_text(v[1]),
                                      (const char *)sqlite3_value_text(v[2]),
                                      sqlite3_value_int64(v[3]));
  sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
}

/* Whether runs of kind drive one GPU: a kind whose spec names its `device`, not a `gpus` list
** (gemm, ceilings, kernel_variant), as the recorder files a run under that device's GPU. */
static int kind_drives_one_gpu(const char *kind) {
  const xp_kind *k = kind ? xp_kind_find(kind) : NULL;
  int device = 0;
  for (const xp_field *f = k ? k->fields : NULL; f && f->key; f++) {
    if (strcmp(f->key, "gpus") == 0) return 0;
    device |= strcmp(f->key, "device") == 0;
  }
  return device;
}

/* xp_run_gpus(kind, gpu_count): the GPUs a run used. A run of a one-device kind records no
** count (its run_gpus rows are every GPU visible beside it), so its blank read as unknown. */
static void run_gpus_fn(sqlite3_context *ctx, int argc, sqlite3_value **v) {
  (void)argc;
  if (sqlite3_value_type(v[1]) != SQLITE_NULL) sqlite3_result_value(ctx, v[1]);
  else if (kind_drives_one_gpu((const char *)sqlite3_value_text(v[0]))) sqlite3_result_int(ctx, 1);
  else sqlite3_result_null(ctx);
}

int xp_register_run_fns(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "xp_status", 4, SQLITE_UTF8, NULL, effective_status_fn, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "xp_run_gpus", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, run_gpus_fn, NULL,
                                 NULL);
  return rc;
}

const char *const xp_run_statuses[] = {"running", "ok", "failed", "aborted", "incomplete", NULL};

int xp_status_known(const char *status) {
  for (int i = 0; xp_run_statuses[i]; i++)
    if (strcmp(status, xp_run_statuses[i]) == 0) return 1;
  return 0;
}

/* The runs columns --where and --a/--b select by. */
static const char *const where_columns[] = {"model", "engine", "tp", "ep", "pp", "batch", "concurrency", "dtype",
    "quantization", "interconnect", "gpu_name", "gpu_count", "host", "kind", "origin", "uuid", "spec_sha256", NULL};

const char *xp_run_column(const char *key) {
  const char *const *columns = where_columns;
  /* the headings xp runs prints for two of them */
  if (strcmp(key, "gpu") == 0) return "gpu_name";
  if (strcmp(key, "gpus") == 0) return "gpu_count";
  for (int i = 0; columns[i]; i++)
    if (strcmp(columns[i], key) == 0) return columns[i];
  return NULL;
}

const char *xp_where_column(const char *key) { return strcmp(key, "status") == 0 ? "status" : xp_run_column(key); }

/* s[0..n) without the spaces around it */
static void trim(const char **s, size_t *n) {
  while (*n && isspace((unsigned char)**s)) ++*s, --*n;
  while (*n && isspace((unsigned char)(*s)[*n - 1])) --*n;
}

/* --where "tp = 2", as SQL and the shell's habits write it, matched no run (a key "tp " and a
** value " 2"), with a warning that named "tp" as the key meant; a comparison other than
** equality (tp>=2, tp==2, tp!=2) was read as a key "tp>" or a value "=2" and selected nothing. */
int xp_where_check(const char *cmd, const char *kv, char **normal) {
  *normal = NULL;
  const char *eq = strchr(kv, '='), *key = kv, *value = eq ? eq + 1 : NULL;
  size_t key_len = eq ? (size_t)(eq - kv) : 0, value_len = eq ? strlen(value) : 0;
  if (eq) trim(&key, &key_len), trim(&value, &value_len);
  if ((!eq && strpbrk(kv, "<>")) || (key_len && strchr("!<>", key[key_len - 1])) || (value_len && *value == '='))
    return xp_usage_value_error(cmd, "--where", kv, "only KEY=VALUE selects (tp=2); xp query compares otherwise");
  if (!eq || !key_len) return xp_usage_value_error(cmd, "--where", kv, "expected KEY=VALUE (tp=2)");
  /* --where model=$MODEL with MODEL unset listed no run, exit 0, as if none had the model: a blank
  ** is refused, as --set refuses one; runs whose key is blank or missing are xp query's to find */
  if (!value_len)
    return xp_usage_value_error(cmd, "--where", kv, "a blank value (an unset shell variable?): give the value, or "
                                "select runs without one with xp query");
  char *text = xp_asprintf("%.*s=%.*s", (int)key_len, key, (int)value_len, value);
  if (strncmp(text, "status=", 7) == 0) {
    /* status=finished would quietly list nothing, as --status would */
    const char *status = xp_choice_find(text + 7, xp_run_statuses);
    if (!status) {
      free(text);
      return xp_usage_value_error(cmd, "--where", kv, "no run has this status (statuses: running, ok, failed, aborted, incomplete)");
    }
    strcpy(text + 7, status); /* its own length: the choice matched it whatever the case */
  }
  *normal = text;
  return 0;
}

void xp_warn_unknown_where_key(sqlite3 *db, const char *cmd, const char *key, size_t key_len) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT 1 FROM run_meta WHERE key = ?1 LIMIT 1");
  if (!st) return;
  xp_bind_text_n(st, 1, key, key_len);
  if (sqlite3_step(st) == SQLITE_DONE) {
    /* --where TP=2, interconect=nvlink: the column meant, where one is near */
    char *given = xp_asprintf("%.*s", (int)key_len, key);
    xp_near near;
    xp_near_init(&near, given);
    for (size_t i = 0; where_columns[i]; i++) xp_near_offer(&near, where_columns[i]);
    xp_near_offer(&near, "gpu");
    xp_near_offer(&near, "gpus");
    xp_near_offer(&near, "status");
    const char *meant = xp_near_result(&near);
    if (meant) xp_warn("%s: --where %s: no run has this column or metadata key: did you mean \"%s\"?", cmd, given, meant);
    else xp_warn("%s: --where %s: no run has this column or metadata key (a misspelt name?)", cmd, given);
    free(given);
  }
  sqlite3_finalize(st);
}

char *xp_where_column_sql(const char *column, const char *param) {
  /* the status xp runs shows: a run whose recorder is gone is incomplete, not running */
  if (strcmp(column, "status") == 0) return xp_asprintf("xp_status(r.status, r.host, r.boot_id, r.pid) = %s", param);
  if (strcmp(column, "gpu_count") == 0) return xp_asprintf("CAST(xp_run_gpus(r.kind, r.gpu_count) AS TEXT) = %s", param);
  /* a run's UUID or a prefix of it, in any case, as every command names a run (xp_resolve_run):
  ** the prefix xp runs prints (--where uuid=3f2a9c1e, --a uuid=...) matched no run, unsaid */
  if (strcmp(column, "uuid") == 0)
    return xp_asprintf("(%s <> '' AND r.uuid >= lower(%s) AND r.uuid < lower(%s) || 'g')", param, param, param);
  if (strcmp(column, "gpu_name") != 0) return xp_asprintf("CAST(r.%s AS TEXT) = %s", column, param);
  /* The value folded as view gpu_fold folds the names runs record (schema 19: lower case,
  ** single spaces, trimmed, without a leading "nvidia " or "amd "; keep the two alike). The
  ** view cannot fold it itself: it reads only the names runs hold, and h200 may be none. */
  return xp_asprintf("r.gpu_name IN (SELECT name FROM gpu_fold WHERE fold = (SELECT CASE WHEN l LIKE 'nvidia %%'"
                     " THEN substr(l, 8) WHEN l LIKE 'amd %%' THEN substr(l, 5) ELSE l END FROM (SELECT"
                     " trim(replace(replace(replace(replace(replace(lower(%s), '  ', ' '), '  ', ' '), '  ', ' '),"
                     " '  ', ' '), '  ', ' ')) AS l)))", param);
}
