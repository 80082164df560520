/*
** Opening the results database. The rules:
**  - an xp database is marked with PRAGMA application_id; any other SQLite file, and any file
**    that is not SQLite at all, is refused and left byte-for-byte untouched;
**  - a database written by a newer xp (user_version above ours) is refused, untouched;
**  - an older one is migrated: every embedded schema/NNN_*.sql above its version, in order,
**    in ONE transaction, so a failed migration leaves the old database as it was;
**  - read-only opens install an authorizer that refuses anything but reading, so a query
**    file can never change history, attach other files or load extensions.
*/
#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "db.h"
#include "history.h"
#include "runref.h"
#include "xp.h"
#include "xp_blob.h"

const char *xp_db_path(const char *cli_value) {
  if (cli_value && *cli_value) return cli_value;
  const char *env = getenv("XP_DB");
  if (env && *env) return env;
  return "xp.db";
}

static int migration_number(const struct xp_blob *b) { return atoi(b->name); }

int xp_db_schema_version(void) {
  int v = 0;
  for (int i = 0; i < xp_migrations_count; i++)
    if (migration_number(&xp_migrations[i]) > v) v = migration_number(&xp_migrations[i]);
  return v;
}

int xp_db_user_version(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int v = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW
              ? sqlite3_column_int(st, 0)
              : -1;
  sqlite3_finalize(st);
  return v;
}

/* What to do where a statement failed on a database of an older schema for want of a table or
** column that a later migration adds (xp query of trace_step_comm on schema 30: "no such table"
** with no word of why); "" for any other failure. A read-only command leaves the file as it
** is (an older xp sharing it could read it no more), so the user is told which command migrates
** it. msg is the failure's message, read before this asks the version (which replaces it). */
const char *xp_db_older_hint(sqlite3 *db, const char *msg) {
  static char hint[256];
  if (strncmp(msg, "no such table", 13) != 0 && strncmp(msg, "no such column", 14) != 0) return "";
  const int version = xp_db_user_version(db);
  if (version <= 0 || version >= xp_db_schema_version()) return "";
  snprintf(hint, sizeof hint, " (the database is of schema %d, an older xp's; this xp reads schema %d:"
           " xp verify --seal, or any recording command, migrates it)", version, xp_db_schema_version());
  return hint;
}

/* The first damage any statement met (SQLite's error log sees every one, where a loop that
** stops at its first non-row may have taken it for the end of its rows). */
static int fault_code;
/* Whether a command has said one already (xp_db_fail): a second line for one fault would
** be one too many (xp audit went on past an unreadable run's rows, and said it twice). */
static int fault_said;

static void log_fault(void *unused, int code, const char *msg) {
  (void)unused, (void)msg;
  const int primary = code & 0xff;
  if (!fault_code && (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_IOERR))
    fault_code = code;
}

void xp_db_watch_faults(void) { sqlite3_config(SQLITE_CONFIG_LOG, log_fault, NULL); }

void xp_db_note_damage(void) {
  if (!fault_code) fault_code = SQLITE_CORRUPT;
}

int xp_db_faulted(const char *path, const char *so) {
  if (!fault_code) return 0;
  if (fault_said) return XP_EXIT_DB;
  return xp_error_at(XP_EXIT_DB, path, 0, "reading: %s: some rows could not be read, so %s",
                     sqlite3_errstr(fault_code), so);
}

int xp_db_fault(sqlite3 *db) {
  const int ec = sqlite3_errcode(db) & 0xff;
  return ec == SQLITE_CORRUPT || ec == SQLITE_NOTADB || ec == SQLITE_IOERR || ec == SQLITE_BUSY ||
         ec == SQLITE_LOCKED || ec == SQLITE_CANTOPEN || ec == SQLITE_NOMEM || ec == SQLITE_INTERRUPT;
}

/* Whether a file size limit (ulimit -f) is set. A write past it fails with EFBIG, but SQLite
** keeps that errno on the file, not the connection: sqlite3_system_errno says 0. */
static int file_size_limited(void) {
  struct rlimit rl;
  return getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

/* Whether the folder holding path is on a file system mounted read-only. */
static int on_read_only_fs(const char *path) {
  char *copy = xp_strdup(path);
  struct statvfs vfs;
  const int ro = statvfs(dirname(copy), &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
  free(copy);
  return ro;
}

/* Locked past the busy timeout: said with the runs a live xp is recording there, which name the
** process to wait for (or stop) where the holder is one of them. */
static int locked(sqlite3 *db, const char *file, const char *what) {
  char *message = xp_strdup(sqlite3_errmsg(db)); /* before the runs are read, which reset it */
  char *runs = xp_recording_runs_hint(db);
  const int rc = xp_error_at(XP_EXIT_DB, file && *file ? file : "database", 0,
                             "%s: %s (another process holds the database longer than the busy timeout%s)", what,
                             message, runs);
  free(runs);
  free(message);
  return rc;
}

int xp_db_fail(sqlite3 *db, const char *what) {
  const char *file = sqlite3_db_filename(db, "main");
  int ec = sqlite3_extended_errcode(db);
  if ((ec & 0xff) == SQLITE_CORRUPT || (ec & 0xff) == SQLITE_NOTADB || (ec & 0xff) == SQLITE_IOERR) fault_said = 1;
  if ((ec & 0xff) == SQLITE_INTERRUPT)
    return xp_error_at(XP_EXIT_ABORTED, file && *file ? file : "database", 0, "%s: interrupted", what);
  /* A reader, not a writer: SQLite's "attempt to write a readonly database" would mislead. */
  if (ec == SQLITE_READONLY_DIRECTORY)
    return xp_error_at(XP_EXIT_DB, file && *file ? file : "database", 0,
                       "%s: its folder is not writable, and SQLite reads a WAL database only with its"
                       " -shm file beside it (copy the database to a writable folder)", what);
  const char *hint = "";
  int sys = sqlite3_system_errno(db);
  if (sys == ENOSPC || sys == EDQUOT)
    hint = " (disk full: nothing was written)"; /* SQLite says only "disk I/O error" for some */
  else if ((ec & 0xff) == SQLITE_IOERR && file_size_limited())
    hint = " (a file would grow past the size limit that ulimit -f sets)";
  else if ((ec & 0xff) == SQLITE_BUSY || (ec & 0xff) == SQLITE_LOCKED)
    return locked(db, file, what);
  else if ((ec & 0xff) == SQLITE_READONLY)
    hint = " (the database or its folder is not writable)";
  else if ((ec & 0xff) == SQLITE_FULL)
    hint = " (disk full: nothing was written)";
  else if ((ec & 0xff) == SQLITE_CANTOPEN && file && *file && on_read_only_fs(file))
    /* results a killed writer left in the -wal are read only through a -shm file, and none
    ** can be made there: "its folder must be writable" asked for what a mount forbids */
    hint = " (it is on a read-only file system, and SQLite reads the results still in its -wal file only with"
           " a -shm file beside it: copy the database and its -wal file to a writable folder)";
  else if ((ec & 0xff) == SQLITE_CANTOPEN)
    hint = " (its folder must be writable, for the -wal and -shm files beside it)";
  char *message = xp_strdup(sqlite3_errmsg(db)); /* before the version is read, which resets it */
  if (!*hint) hint = xp_db_older_hint(db, message);
  const int rc = xp_error_at(XP_EXIT_DB, file && *file ? file : "database", 0, "%s: %s%s", what, message, hint);
  free(message);
  return rc;
}

int xp_db_exec(sqlite3 *db, const char *sql) {
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) return xp_db_fail(db, "SQL error");
  return 0;
}

sqlite3_stmt *xp_db_prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    xp_db_fail(db, "preparing a statement");
    return NULL;
  }
  return st;
}

int xp_db_step_done(sqlite3 *db, sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return xp_db_fail(db, "writing");
  return 0;
}

void xp_bind_text(sqlite3_stmt *st, int i, const char *s) {
  if (s) xp_bind_text_n(st, i, s, strlen(s));
  else sqlite3_bind_null(st, i);
}

/* SQLite stores whatever bytes it is given as TEXT, and a reader that decodes (Python's
** sqlite3, JSON) then fails on the row: text from logs, traces and the command line is stored
** as well-formed UTF-8, each bad byte U+FFFD. Checking costs one pass over text already read. */
void xp_bind_text_n(sqlite3_stmt *st, int i, const char *s, size_t n) {
  size_t len;
  char *m = xp_utf8_mended(s, n, &len);
  if (m) sqlite3_bind_text64(st, i, m, len, free, SQLITE_UTF8);
  else sqlite3_bind_text64(st, i, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* BEGIN IMMEDIATE takes the write lock up front, so a transaction never fails half-way with
** SQLITE_BUSY on its first write. The busy handler already waits XP_BUSY_TIMEOUT_MS; a few
** extra attempts cover the WAL corner cases where SQLite returns BUSY without waiting, but
** only within the timeout: after a full wait, retrying would multiply it (six waits of 30 s
** for one locked database; tests/reliability/env_faults.sh). */
static int retry_busy(int rc, int attempt, double started) {
  return (rc & 0xff) == SQLITE_BUSY && attempt < 5 &&
         xp_now_seconds() - started < XP_BUSY_TIMEOUT_MS / 1000.0;
}

int xp_db_begin(sqlite3 *db) {
  double started = xp_now_seconds();
  for (int attempt = 0;; attempt++) {
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return 0;
    if (!retry_busy(rc, attempt, started)) return xp_db_fail(db, "starting a transaction");
    usleep(50000u * (unsigned)(attempt + 1));
  }
}

int xp_db_commit(sqlite3 *db) {
  double started = xp_now_seconds();
  for (int attempt = 0;; attempt++) {
    int rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return 0;
    if (!retry_busy(rc, attempt, started)) {
      int code = xp_db_fail(db, "committing");
      xp_db_rollback(db);
      return code;
    }
    usleep(50000u * (unsigned)(attempt + 1));
  }
}

/* A command that reads in several statements (xp verify: the chain's links, then its head)
** saw each commit that came between them: a run sealed meanwhile read as "the head records link
** 4, but the chain ends at link 3: runs were removed from its end", a tampered history (exit 5)
** where an import had only finished beside it. BEGIN takes its snapshot at the first read. */
int xp_db_snapshot(sqlite3 *db) { return xp_db_exec(db, "BEGIN"); }

void xp_db_rollback(sqlite3 *db) {
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/* What kind of file is this? Reading the header through SQLite both checks it is SQLite
** ("file is not a database") and gets our marks, without writing anything. */
static int inspect(sqlite3 *db, const char *path, int *app_id, int *version, int *ntables) {
  /* One statement, so one snapshot: read separately, the marks could predate another
  ** process's migration and the table count follow it, and a fresh xp database being created
  ** beside us would look foreign (found by tests/cli/reliability_concurrency.sh). */
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db,
      "SELECT (SELECT application_id FROM pragma_application_id),"
      " (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)",
      -1, &st, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    *app_id = sqlite3_column_int(st, 0);
    *version = sqlite3_column_int(st, 1);
    *ntables = sqlite3_column_int(st, 2);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) {
    int ec = sqlite3_errcode(db);
    if (ec == SQLITE_NOTADB || ec == SQLITE_CORRUPT)
      return xp_error_at(XP_EXIT_DB, path, 0, "not an xp database (not an SQLite file, or corrupt); left untouched");
    return xp_db_fail(db, "reading the database header");
  }
  if (*app_id != XP_APPLICATION_ID && !(*app_id == 0 && *ntables == 0))
    return xp_error_at(XP_EXIT_DB, path, 0,
                       "not an xp database (SQLite file with application_id %d and %d objects); left untouched",
                       *app_id, *ntables);
  if (*version > xp_db_schema_version())
    return xp_error_at(XP_EXIT_DB, path, 0,
                       "written by a newer xp (schema %d; this xp knows up to %d); left untouched",
                       *version, xp_db_schema_version());
  return 0;
}

/* Reading a database of an older schema, untouched: the views of later migrations that add
** nothing but views (007: trace_superseded, run_measured) are made as TEMP views of this
** connection, so that today's queries run on it; a TEMP view hides the main one of its name.
** A migration that replaces a view drops it first: that DROP goes to the TEMP one only (none
** yet, or an earlier migration's), since dropping the file's own fails on a read-only
** connection and the statements after it, the new view's, would never run. Best effort: a
** view whose tables the old schema lacks fails when used, as the query would have. */
static void temp_views(sqlite3 *db, int version) {
  static const char drop_if[] = "DROP VIEW IF EXISTS ", drop[] = "DROP VIEW ", temp_drop[] = "DROP VIEW IF EXISTS temp.";
  for (int i = 0; i < xp_migrations_count; i++) {
    const struct xp_blob *m = &xp_migrations[i];
    if (migration_number(m) <= version) continue;
    const char *text = m->data;
    if (strstr(text, "CREATE TABLE") || strstr(text, "ALTER TABLE") || strstr(text, "CREATE TRIGGER") ||
        strstr(text, "CREATE INDEX") || strstr(text, "CREATE UNIQUE INDEX") || !strstr(text, "CREATE VIEW"))
      continue;
    char *sql = xp_xmalloc(strlen(text) * 3 + 1), *o = sql;
    for (const char *p = text; *p;) {
      if (strncmp(p, "CREATE VIEW", 11) == 0) {
        memcpy(o, "CREATE TEMP VIEW", 16);
        o += 16, p += 11;
      } else if (strncmp(p, drop, sizeof drop - 1) == 0) {
        p += strncmp(p, drop_if, sizeof drop_if - 1) == 0 ? sizeof drop_if - 1 : sizeof drop - 1;
        memcpy(o, temp_drop, sizeof temp_drop - 1);
        o += sizeof temp_drop - 1;
      } else *o++ = *p++;
    }
    *o = 0;
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    free(sql);
  }
}

/* With commit 0, the migration is left in its open transaction (a dry run's, XP_DB_DRY). */
static int migrate(sqlite3 *db, const char *path, int commit) {
  int target = xp_db_schema_version();
  int rc = xp_db_begin(db);
  if (rc) return rc;
  /* Re-read inside the write lock: another process may have migrated meanwhile. */
  int app_id = 0, version = 0, ntables = 0;
  if ((rc = inspect(db, path, &app_id, &version, &ntables)) != 0) goto fail;
  for (int i = 0; i < xp_migrations_count; i++) {
    const struct xp_blob *m = &xp_migrations[i];
    if (migration_number(m) <= version) continue;
    char *err = NULL;
    if (sqlite3_exec(db, m->data, NULL, NULL, &err) != SQLITE_OK) {
      rc = xp_error_at(XP_EXIT_DB, path, 0, "migration %s failed: %s; database left as it was",
                       m->name, err ? err : "?");
      sqlite3_free(err);
      goto fail;
    }
  }
  char sql[128];
  snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
           XP_APPLICATION_ID, target);
  if ((rc = xp_db_exec(db, sql)) != 0) goto fail;
  return commit ? xp_db_commit(db) : 0;
fail:
  xp_db_rollback(db);
  return rc;
}

/* Read-only connections: reading and a few harmless pragmas, nothing else. */
/* Read-only connections: reading and a few harmless pragmas, nothing else. Table-valued
** functions (json_each, json_tree) declare their virtual table through an authorizer check
** that looks like an UPDATE of sqlite_master; it is allowed, since the connection is opened
** read-only with query_only set, and xp_query_text refuses any statement that is not
** read-only as well. */
static int readonly_authorizer(void *arg, int action, const char *a, const char *b,
                               const char *c, const char *d) {
  static const char *const introspection[] = {"table_info", "table_xinfo", "index_list",
                                              "index_info", "index_xinfo", "foreign_key_list",
                                              NULL};
  switch (action) {
  case SQLITE_SELECT:
  case SQLITE_READ:
  case SQLITE_RECURSIVE:
  case SQLITE_TRANSACTION:
  case SQLITE_SAVEPOINT:
    return SQLITE_OK;
  case SQLITE_FUNCTION:
    /* load_extension loads code; fts3_tokenizer (on in Debian's SQLite) reveals a pointer
    ** with one argument and, with two, registers a tokenizer at any address, which a virtual
    ** table that a shared database brings along then calls */
    return b && (strcmp(b, "load_extension") == 0 || strcmp(b, "fts3_tokenizer") == 0) ? SQLITE_DENY : SQLITE_OK;
  case SQLITE_UPDATE:
    return a && strcmp(a, "sqlite_master") == 0 ? SQLITE_OK : SQLITE_DENY;
  case SQLITE_PRAGMA:
    if (!a) return SQLITE_DENY;
    for (int i = 0; introspection[i]; i++)
      if (strcmp(a, introspection[i]) == 0) return SQLITE_OK;
    if ((strcmp(a, "user_version") == 0 || strcmp(a, "application_id") == 0) && !b) return SQLITE_OK;
    return SQLITE_DENY;
  default:
    return SQLITE_DENY;
  }
}

static int folder_exists(const char *path) {
  char *copy = xp_strdup(path);
  struct stat st;
  int ok = stat(dirname(copy), &st) == 0 && S_ISDIR(st.st_mode);
  free(copy);
  return ok;
}

/* A -wal or -shm file beside the database that this user cannot write, or NULL: SQLite makes
** them as whoever opens the database first, a reader too (and a reader leaves them, since it
** cannot checkpoint), each with the database's mode. A colleague's `xp runs` on the owner's
** 644 database left two 644 files of theirs, and the owner's next import failed with
** "attempt to write a readonly database (the database or its folder is not writable)", though
** both were. Said with whose they are; an empty -wal (a reader's) holds nothing to lose. */
static const char *sidecar_not_writable(const char *path) {
  static char why[512];
  static const char *const sidecars[] = {"-wal", "-shm"};
  for (size_t i = 0; i < sizeof sidecars / sizeof sidecars[0]; i++) {
    const char *suffix = sidecars[i];
    char *side = xp_asprintf("%s%s", path, suffix);
    struct stat st;
    const int blocked = stat(side, &st) == 0 && access(side, W_OK) != 0;
    free(side);
    if (!blocked) continue;
    const struct passwd *pw = getpwuid(st.st_uid);
    char owner[64];
    if (pw) snprintf(owner, sizeof owner, "%s", pw->pw_name);
    else snprintf(owner, sizeof owner, "uid %u", (unsigned)st.st_uid);
    /* the -shm is an index SQLite rebuilds from the -wal; only a -wal's contents can be lost */
    const int is_wal = strcmp(suffix, "-wal") == 0, wal_empty = is_wal && st.st_size == 0;
    snprintf(why, sizeof why, "its %s file is %s's and not writable by you (SQLite makes it as whoever opens the"
             " database first, a reader too); %s", suffix, owner,
             !is_wal    ? "once nobody is reading the database, remove its -shm file (an index SQLite rebuilds:"
                          " nothing is lost)"
             : wal_empty ? "once nobody is reading the database, remove its -wal and -shm files (the -wal is empty:"
                           " nothing is lost)"
                         : "its owner can make it writable to you (a shared group, chmod g+w)");
    return why;
  }
  return NULL;
}

/* Why a database cannot be written, or NULL. Asked before opening: SQLite finds out only at
** the first write, and then says "unable to open database file" when it cannot create the
** -wal and -shm files beside the database (tests/reliability/env_faults.sh). */
static const char *unwritable(const char *path, int exists) {
  char *copy = xp_strdup(path);
  char *dir = xp_strdup(dirname(copy));
  const char *why = NULL;
  if (on_read_only_fs(path)) why = "it is on a read-only file system";
  else if (access(dir, W_OK) != 0) why = "its folder is not writable";
  else if (exists && access(path, W_OK) != 0) why = "the file is not writable";
  else if (exists) why = sidecar_not_writable(path);
  free(dir);
  free(copy);
  return why;
}

/* On a read-only file system nobody can change the database, and SQLite cannot create the
** -shm file that reading a WAL database needs; opened as immutable it needs none (unless a
** -wal file holds results not yet copied into the database). The URI form needs the path
** percent-encoded. */
static char *immutable_uri(const char *path) {
  const int ro = on_read_only_fs(path);
  /* Committed results still in a -wal file (the writer was killed) would be ignored. */
  char *wal = xp_asprintf("%s-wal", path);
  struct stat st;
  int pending = stat(wal, &st) == 0 && st.st_size > 0;
  free(wal);
  if (!ro || pending) return NULL;
  size_t n = strlen(path);
  char *uri = xp_xmalloc(3 * n + 32), *o = uri;
  /* an absolute path after an empty authority: "file:" followed by "//data/xp.db" (a path
  ** "$ROOT/xp.db" makes with ROOT=/) read "data" as the URI's authority, refused */
  o += sprintf(o, path[0] == '/' ? "file://" : "file:");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
    if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
        strchr("/._-~", *c))
      *o++ = (char)*c;
    else o += sprintf(o, "%%%02X", *c);
  }
  strcpy(o, "?immutable=1");
  return uri;
}

static int stop_if_interrupted(void *unused) {
  (void)unused;
  return xp_interrupted();
}

static int read_only(enum xp_db_mode mode) { return mode == XP_DB_READONLY || mode == XP_DB_CHECK; }

static sqlite3 *connect(const char *path, enum xp_db_mode mode) {
  sqlite3 *db = NULL;
  int flags = read_only(mode) ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  char *uri = read_only(mode) ? immutable_uri(path) : NULL;
  int orc = sqlite3_open_v2(uri ? uri : path, &db, flags | SQLITE_OPEN_NOFOLLOW | (uri ? SQLITE_OPEN_URI : 0), NULL);
  free(uri);
  if (orc != SQLITE_OK) {
    xp_error_at(XP_EXIT_DB, path, 0, "cannot open: %s", db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, XP_BUSY_TIMEOUT_MS);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  /* SIGINT and SIGTERM only set a flag (xp_install_signal_handlers), so that a run can still
  ** be recorded as aborted; a reading command (a long query, a report) is stopped here. */
  if (read_only(mode)) sqlite3_progress_handler(db, 10000, stop_if_interrupted, NULL);
  return db;
}

/* A writer killed mid-transaction leaves a hot journal to roll back (while it was switching a
** new database to WAL) or a WAL index to rebuild, and a read-only connection can do neither:
** `xp runs` would fail until some writer came by (tests/reliability/crash_trials.sh). Any
** connection that may write does it on its first read, restoring the last committed state,
** which is what the next writer would do anyway; so one does just that, and closes without
** checkpointing. Nothing committed changes. */
static int needs_recovery(sqlite3 *db) {
  int rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
  int ec = sqlite3_extended_errcode(db);
  return rc != SQLITE_OK && (ec == SQLITE_READONLY_ROLLBACK || ec == SQLITE_READONLY_RECOVERY ||
                             ec == SQLITE_READONLY_CANTINIT);
}

static void recover(const char *path) {
  sqlite3 *rw = NULL;
  if (sqlite3_open_v2(path, &rw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(rw, XP_BUSY_TIMEOUT_MS);
    sqlite3_db_config(rw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    sqlite3_exec(rw, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
  }
  sqlite3_close(rw);
}

/* A dry run of a database xp cannot write (a read-only file system, a colleague's file): it
** writes nothing, so it works on a copy, read as xp runs reads the file (its errors are a
** reading command's: a WAL database in a read-only folder is unreadable there too). The copy
** is SQLite's temporary database (the empty name): pages past its cache go to a file in
** $SQLITE_TMPDIR, $TMPDIR or /var/tmp, removed when it closes, so a large history costs that
** much disk, not memory (":memory:" held all 205 MB of one). NULL with *exit_code set on
** failure. */
static sqlite3 *dry_copy(const char *path, int *exit_code) {
  sqlite3 *file = xp_db_open(path, XP_DB_CHECK, exit_code), *mem = NULL;
  if (!file) return NULL;
  *exit_code = XP_EXIT_DB;
  if (sqlite3_open_v2("", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) == SQLITE_OK) {
    sqlite3_backup *b = sqlite3_backup_init(mem, "main", file, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
      xp_error_at(XP_EXIT_DB, path, 0, "copying the database for a dry run: %s", sqlite3_errmsg(mem));
      sqlite3_close(mem);
      mem = NULL;
    }
  }
  sqlite3_close(file);
  if (mem) {
    sqlite3_extended_result_codes(mem, 1);
    sqlite3_db_config(mem, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
    sqlite3_db_config(mem, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  }
  return mem;
}

sqlite3 *xp_db_open(const char *path, enum xp_db_mode mode, int *exit_code) {
  sqlite3 *db = NULL;
  struct stat st;
  int exists = stat(path, &st) == 0;
  *exit_code = XP_EXIT_DB;
  /* XP_DB="~/results/xp.db" (quoted, or from a systemd unit or a .env file) names a folder
  ** "~" here: the shell expands ~ only unquoted, and xp, as SQLite, takes the path as written */
  const char *tilde = path[0] == '~' ? " (a leading ~ is the shell's, not expanded where quoted: write $HOME)" : "";
  if (!exists && mode != XP_DB_READWRITE) {
    xp_error_at(XP_EXIT_DB, path, 0, "no such database (record a run first, or pass --db)%s", tilde);
    return NULL;
  }
  if (!exists && !folder_exists(path)) {
    xp_error_at(XP_EXIT_DB, path, 0, "cannot create the database: its folder does not exist%s", tilde);
    return NULL;
  }
  if (exists && S_ISDIR(st.st_mode)) {
    xp_error_at(XP_EXIT_DB, path, 0, "is a directory, not a database");
    return NULL;
  }
  if (exists && !S_ISREG(st.st_mode)) { /* opening a FIFO blocks until a writer comes */
    xp_error_at(XP_EXIT_DB, path, 0, "is not a regular file (a FIFO, socket or device), not a database");
    return NULL;
  }
  struct stat lst;
  if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
    xp_error_at(XP_EXIT_DB, path, 0,
                "is a symbolic link: xp opens a database by its own path, so that its -wal and -shm files"
                " sit beside it (give the path the link points to)");
    return NULL;
  }
  const char *why = !read_only(mode) ? unwritable(path, exists) : NULL;
  if (why && mode == XP_DB_DRY) {
    if (!(db = dry_copy(path, exit_code))) return NULL;
  } else if (why) {
    xp_error_at(XP_EXIT_DB, path, 0, "cannot record into this database: %s", why);
    return NULL;
  } else if (!(db = connect(path, mode))) return NULL;
  if (read_only(mode) && needs_recovery(db)) {
    sqlite3_close(db);
    recover(path);
    if (!(db = connect(path, mode))) return NULL;
  }

  int app_id = 0, version = 0, ntables = 0;
  if (inspect(db, path, &app_id, &version, &ntables) != 0) goto fail;

  if (read_only(mode)) {
    if (version == 0) {
      xp_error_at(XP_EXIT_DB, path, 0, "empty database: no xp runs recorded yet");
      goto fail;
    }
    /* said where a statement misses what a migration adds (xp_db_older_hint): a warning here
    ** came before every read, and before that statement's error, two lines for one */
    if (version < xp_db_schema_version()) temp_views(db, version);
    xp_db_exec(db, "PRAGMA query_only = 1");
    sqlite3_set_authorizer(db, readonly_authorizer, NULL);
  } else if (mode == XP_DB_EXISTING && version == 0) {
    /* a zero-byte file (touch xp.db) is no history yet: xp verify --seal made it one */
    xp_error_at(XP_EXIT_DB, path, 0, "empty database: no xp runs recorded yet");
    goto fail;
  } else {
    /* WAL lets readers run beside one writer; set once, it stays with the file. */
    if (version == 0 && mode != XP_DB_DRY) sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if (xp_db_exec(db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL") != 0) goto fail;
    if (version < xp_db_schema_version()) {
      if (migrate(db, path, mode != XP_DB_DRY) != 0) goto fail;
    } else if (mode == XP_DB_DRY && xp_db_begin(db) != 0) goto fail;
  }
  /* which way is better for a unit, as xp compare and xp audit judge it (queries/regressions.sql) */
  if (xp_register_unit_fns(db) != SQLITE_OK) {
    xp_db_fail(db, "opening");
    goto fail;
  }
  *exit_code = 0;
  return db;
fail:
  sqlite3_close(db);
  return NULL;
}

void xp_db_close(sqlite3 *db) {
  if (db) sqlite3_close_v2(db);
}
