/*
** The foundation's promises (issue 2): migrations, refusal of foreign and newer databases,
** canonical spec hashing, validation messages, the run lifecycle (ok, failed, aborted,
** incomplete), metadata, and read-only queries. Uses a kind defined here, so nothing
** depends on a GPU or on other kinds.
*/
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "kind.h"
#include "query.h"
#include "runref.h"
#include "xp.h"
#include "xp_blob.h"

static void file_hash(const char *path, char out[65]) {
  size_t n = 0;
  char *d = xp_read_file(path, &n);
  xp_sha256_hex(d ? d : "", d ? n : 0, out);
  free(d);
}

/* ---- a kind for tests: records `cases` cases, then behaves as `mode` says ---- */

static const char *const modes[] = {"ok", "fail", "abort", "die", "print", NULL};
static const xp_field test_fields[] = {
    {"cases", XP_T_INT, 1, NULL, NULL, 0, 100, "cases to record"},
    {"mode", XP_T_STRING, 0, modes, NULL, 0, 0, "ok, fail, abort, die or print"},
    {"sizes", XP_T_INTS, 0, NULL, NULL, 0, 0, "unused"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static int test_execute(xp_ctx *ctx) {
  const char *mode = xp_spec_str(ctx->spec->root, "mode", "ok");
  int64_t n = xp_spec_int(ctx->spec->root, "cases", 1);
  if (strcmp(mode, "die") == 0) _exit(9); /* the recording process vanishes mid-run */
  for (int64_t i = 0; i < n; i++) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "i", (double)i);
    int64_t c = xp_run_case(ctx->run, "case", p, "ok", NULL);
    cJSON_Delete(p);
    double s[5] = {5 + i, 1 + i, 3 + i, 2 + i, 4 + i};
    if (c < 0 || xp_run_metric(ctx->run, c, "time", "us", s, 5)) return XP_EXIT_DB;
    if (strcmp(mode, "abort") == 0 && i == 0) raise(SIGINT);
    /* progress written as the runners write it, to a reader that may have gone away */
    if (strcmp(mode, "print") == 0) fprintf(ctx->out, "case %lld\n", (long long)i), fflush(ctx->out);
    if (xp_interrupted()) return XP_EXIT_ABORTED;
  }
  if (xp_run_meta(ctx->run, "interconnect", "nvlink", "detected")) return XP_EXIT_DB;
  if (strcmp(mode, "fail") == 0) return xp_error(XP_EXIT_FAILED, "planned failure");
  return 0;
}

static const xp_kind test_kind = {
    .name = "test_kind", .summary = "for tests", .fields = test_fields, .execute = test_execute};

static xp_spec *spec_text(const char *name, const char *text) {
  char *p = test_write_file(name, text);
  xp_spec *s = xp_spec_load(p);
  free(p);
  return s;
}

/* ---- tests ---- */

static void test_migrations_fresh(void) {
  char *p = test_path("fresh.db");
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  CHECK_EQ_INT(one_int(db, "PRAGMA user_version"), xp_db_schema_version());
  CHECK_EQ_INT(one_int(db, "PRAGMA application_id"), XP_APPLICATION_ID);
  char *mode = one_text(db, "PRAGMA journal_mode");
  CHECK_EQ_STR(mode, "wal");
  free(mode);
  CHECK_EQ_INT(one_int(db, "PRAGMA foreign_keys"), 1);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM sqlite_schema WHERE name='runs' AND sql LIKE '%STRICT%'"), 1);
  xp_db_close(db);
  free(p);
}

/* An xp database as the xp that knew the first k migrations made it, still open (the caller
** closes it): its schema is that of xp_migrations[k - 1]. */
static sqlite3 *older_db(const char *path, int k) {
  sqlite3 *raw;
  CHECK(sqlite3_open(path, &raw) == SQLITE_OK);
  for (int i = 0; i < k; i++) CHECK(sqlite3_exec(raw, xp_migrations[i].data, NULL, NULL, NULL) == SQLITE_OK);
  char pragmas[128];
  snprintf(pragmas, sizeof pragmas, "PRAGMA application_id=%d; PRAGMA user_version=%d;", XP_APPLICATION_ID,
           atoi(xp_migrations[k - 1].name));
  CHECK(sqlite3_exec(raw, pragmas, NULL, NULL, NULL) == SQLITE_OK);
  return raw;
}

/* A database made by an xp that knew only migration 001 keeps its runs when upgraded. */
static void test_migrations_older(void) {
  char *p = test_path("older.db");
  sqlite3 *raw = older_db(p, 1);
  CHECK(sqlite3_exec(raw, "INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256)"
                          " VALUES ('00000000-0000-4000-8000-000000000001', 'k', 'ok', '2026-01-01', '{}', 'x')",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(raw);
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  CHECK_EQ_INT(one_int(db, "PRAGMA user_version"), xp_db_schema_version());
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM runs"), 1);
  xp_db_close(db);
  free(p);
}

/* Every object of the schema, as its statement says it: equal for two databases that have
** the same tables, views, indexes and triggers. */
static char *schema_of(sqlite3 *db) {
  return one_text(db, "SELECT group_concat(type || ' ' || name || ': ' || coalesce(sql, ''), char(10))"
                      " FROM (SELECT * FROM sqlite_schema ORDER BY type, name)");
}

/* A database left at any older schema (the migrations up to it, as the xp of that schema ran
** them) is upgraded to what a fresh one is: each later migration applied once, in order, and
** none of them failing on what an earlier one made (migrate() stops the upgrade at the first). */
static void test_migrations_every_older(void) {
  char *p = test_path("fresh-schema.db");
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  char *fresh = schema_of(db);
  CHECK(fresh && strstr(fresh, "view run_configuration: ") && strstr(fresh, "view trace_step_totals: "));
  xp_db_close(db);
  free(p);
  for (int k = 1; k < xp_migrations_count; k++) {
    char name[32];
    snprintf(name, sizeof name, "schema-%d.db", atoi(xp_migrations[k - 1].name));
    p = test_path(name);
    sqlite3_close(older_db(p, k));
    db = xp_db_open(p, XP_DB_READWRITE, &rc);
    free(p);
    CHECK(db != NULL);
    if (!db) continue;
    CHECK_EQ_INT(one_int(db, "PRAGMA user_version"), xp_db_schema_version());
    char *upgraded = schema_of(db);
    if (!upgraded || !fresh || strcmp(upgraded, fresh) != 0) fprintf(stderr, "upgraded from %s:\n", name);
    CHECK_EQ_STR(upgraded, fresh);
    free(upgraded);
    xp_db_close(db);
  }
  free(fresh);
}

/* The view that a connection reads under a name: its TEMP one where it has one, as written
** in a migration (CREATE VIEW). */
static char *view_read(sqlite3 *db, const char *name) {
  char *sql = xp_asprintf("SELECT replace(coalesce((SELECT sql FROM sqlite_temp_schema WHERE type = 'view'"
                          " AND name = '%s'), (SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = '%s')),"
                          " 'CREATE TEMP VIEW', 'CREATE VIEW')", name, name);
  char *v = one_text(db, sql);
  free(sql);
  return v;
}

/* A database of an older schema opened read-only reads today's views (db.c temp_views): where
** the later migrations add views alone, every one of them, also one that a migration replaces
** (DROP VIEW, then CREATE VIEW): a read-only connection cannot drop the file's own, and a
** database left at schema 14 read schema 14's run_configuration, undeclared for every kind. */
static void test_migrations_older_read_only(void) {
  char *p = test_path("fresh-views.db");
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
  CHECK(db != NULL);
  sqlite3_stmt *st = NULL;
  CHECK(sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name", -1, &st,
                           NULL) == SQLITE_OK);
  /* the last migrations that make no view (020 makes a table anew) change none that is read */
  int last = xp_migrations_count;
  while (last > 0 && !strstr(xp_migrations[last - 1].data, "CREATE VIEW")) last--;
  int first = last; /* the first of the migrations after the last to add a table */
  while (first > 0 && !strstr(xp_migrations[first - 1].data, "CREATE TABLE")) first--;
  CHECK(first < last); /* at least one migration after it adds views: the loop below checks it */
  for (int k = first; k < xp_migrations_count; k++) {
    char name[32];
    snprintf(name, sizeof name, "views-%d.db", atoi(xp_migrations[k - 1].name));
    char *q = test_path(name);
    sqlite3_close(older_db(q, k));
    xp_error_quiet(1); /* the warning that the schema is older */
    sqlite3 *ro = xp_db_open(q, XP_DB_READONLY, &rc);
    xp_error_quiet(0);
    free(q);
    CHECK(ro != NULL);
    if (!ro) continue;
    sqlite3_reset(st);
    while (sqlite3_step(st) == SQLITE_ROW) {
      char *read = view_read(ro, (const char *)sqlite3_column_text(st, 0));
      if (!read || strcmp(read, (const char *)sqlite3_column_text(st, 1)) != 0)
        fprintf(stderr, "%s read-only: view %s is not today's\n", name, sqlite3_column_text(st, 0));
      CHECK_EQ_STR(read, (const char *)sqlite3_column_text(st, 1));
      free(read);
    }
    xp_db_close(ro);
  }
  sqlite3_finalize(st);
  xp_db_close(db);
  free(p);
}

static void expect_refused(const char *name, const char *label) {
  char *p = test_path(name);
  char before[65], after[65];
  file_hash(p, before);
  int rc = 0;
  xp_error_quiet(1);
  sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
  xp_error_quiet(0);
  if (db) fprintf(stderr, "%s: opened but should have been refused\n", label);
  CHECK(db == NULL);
  CHECK_EQ_INT(rc, XP_EXIT_DB);
  file_hash(p, after);
  CHECK_EQ_STR(before, after);
  struct stat st;
  char *wal = xp_asprintf("%s-wal", p);
  CHECK(stat(wal, &st) != 0); /* not even a WAL file was created */
  free(wal);
  free(p);
  xp_db_close(db);
}

static void test_refusals(void) {
  free(test_write_file("text.db", "this is not a database at all, just text that is long enough\n"));
  expect_refused("text.db", "text file");
  char *p = test_path("other.db");
  sqlite3 *raw;
  sqlite3_open(p, &raw);
  sqlite3_exec(raw, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL, NULL, NULL);
  sqlite3_close(raw);
  expect_refused("other.db", "foreign SQLite");
  free(p);
  p = test_path("newer.db");
  sqlite3_open(p, &raw);
  char sql[160];
  snprintf(sql, sizeof sql, "CREATE TABLE runs(x); PRAGMA application_id=%d; PRAGMA user_version=%d;",
           XP_APPLICATION_ID, xp_db_schema_version() + 1);
  sqlite3_exec(raw, sql, NULL, NULL, NULL);
  sqlite3_close(raw);
  expect_refused("newer.db", "newer schema");
  free(p);
  int rc;
  xp_error_quiet(1);
  CHECK(xp_db_open("/nonexistent-folder-xp/x.db", XP_DB_READWRITE, &rc) == NULL);
  xp_error_quiet(0);
  CHECK_EQ_INT(rc, XP_EXIT_DB);
  CHECK(strstr(xp_last_error(), "folder does not exist") != NULL);
}

static void test_spec_hash(void) {
  xp_spec *a = spec_text("a.toml", "kind = \"test_kind\"\ncases = 3\n[extra]\nb = 1\na = [1, 2]\n");
  xp_spec *b = spec_text("b.toml", "[extra]\na=[1,2]\nb=1\n\n\n");
  xp_spec *c = spec_text("c.json", "{\"extra\": {\"b\": 1, \"a\": [1, 2]}, \"cases\": 3, \"kind\": \"test_kind\"}");
  xp_spec *d = spec_text("d.toml", "cases = 3\nkind = \"test_kind\"\n[extra]\nb = 2\na = [1, 2]\n");
  CHECK(a && b && c && d);
  /* b lacks the top-level keys: put them back in another order */
  cJSON_AddNumberToObject(b->root, "cases", 3);
  cJSON_AddStringToObject(b->root, "kind", "test_kind");
  char ha[65], hb[65], hc[65], hd[65];
  xp_spec_hash(a, ha);
  xp_spec_hash(b, hb);
  xp_spec_hash(c, hc);
  xp_spec_hash(d, hd);
  CHECK_EQ_STR(ha, hb);
  CHECK_EQ_STR(ha, hc);
  CHECK(strcmp(ha, hd) != 0);
  xp_spec_free(a);
  xp_spec_free(b);
  xp_spec_free(c);
  xp_spec_free(d);
}

static void test_spec_errors(void) {
  xp_error_quiet(1);
  xp_spec *s = spec_text("bad1.toml", "kind = \"test_kind\"\ncases = 2\n\nsizes = [1, \"x\"]\n");
  CHECK(s != NULL);
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "bad1.toml:4: sizes[1]: expected an integer, found a string (\"x\") (sizes is an array of integers)") != NULL);
  xp_spec_free(s);
  s = spec_text("bad2.toml", "kind = \"test_kind\"\ncases = 2\ncasess = 3\n");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "bad2.toml:3: casess: unknown key") != NULL);
  xp_spec_free(s);
  s = spec_text("bad3.toml", "kind = \"test_kind\"\nmode = \"sometimes\"\ncases = 1\n");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "bad3.toml:2: mode: unknown value \"sometimes\"") != NULL);
  xp_spec_free(s);
  s = spec_text("bad4.toml", "kind = \"test_kind\"\n");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "cases: required key is missing") != NULL);
  xp_spec_free(s);
  s = spec_text("bad5.toml", "kind = \"test_kind\"\ncases = [1,\n");
  CHECK(s == NULL);
  CHECK(strstr(xp_last_error(), "bad5.toml:") != NULL && strstr(xp_last_error(), "invalid TOML") != NULL);
  s = spec_text("bad6.json", "{\"kind\": \"test_kind\",\n \"cases\": 1,\n \"tp\": \"eight\"}");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "bad6.json:3: tp: expected an integer") != NULL);
  xp_spec_free(s);
  /* a number that is no integer says why: a fraction, or a size a double holds only rounded */
  s = spec_text("bad7.toml", "kind = \"test_kind\"\ncases = 2.5\nsizes = [1, 18014398509481985]\n");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "bad7.toml:2: cases: expected an integer, not a fraction") != NULL);
  xp_spec_free(s);
  s = spec_text("bad8.toml", "kind = \"test_kind\"\ncases = 2\nsizes = [1, 18014398509481985]\n");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "bad8.toml:3: sizes[1]: expected an integer below 2^53 (9007199254740992) in size") !=
        NULL);
  xp_spec_free(s);
  xp_error_quiet(0);
}

/* "did you mean": case, '_' and '-' folded away, one edit for short names and two for longer,
** a swap of neighbours one edit, and no guess where two keys are as close. */
static void test_nearest_key(void) {
  static const xp_field f[] = {{"warmup", XP_T_INT, 0, NULL, NULL, 0, 0, ""},
                               {"iterations", XP_T_INT, 0, NULL, NULL, 0, 0, ""},
                               {"modes", XP_T_STRINGS, 0, NULL, NULL, 0, 0, ""},
                               {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};
  CHECK_EQ_STR(xp_nearest_key("Warm_Up", f, 0), "warmup");
  CHECK_EQ_STR(xp_nearest_key("iteration", f, 0), "iterations");
  CHECK_EQ_STR(xp_nearest_key("itreations", f, 0), "iterations");
  CHECK(xp_nearest_key("iters", f, 0) == NULL);
  CHECK(xp_nearest_key("zebra", f, 0) == NULL);
  CHECK_EQ_STR(xp_nearest_key("model", f, 0), "modes");   /* one letter from modes */
  CHECK_EQ_STR(xp_nearest_key("model", f, 1), "model");     /* declared keys where asked */
  CHECK_EQ_STR(xp_nearest_key("modle", f, 1), "model");     /* one swap from model, two edits from modes */
  CHECK(xp_nearest_key("tpp", f, 1) == NULL);               /* tp and pp: as close, no guess */
  CHECK_EQ_STR(xp_nearest_key("gpu_declared", f, 1), "gpus_declared");
  xp_error_quiet(1);
  xp_spec *s = spec_text("near.toml", "kind = \"test_kind\"\ncases = 2\nmode = \"Abort\"\n");
  CHECK_EQ_INT(xp_validate_spec(&test_kind, s), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "near.toml:3: mode: unknown value \"Abort\": did you mean \"abort\"?") != NULL);
  xp_spec_free(s);
  xp_error_quiet(0);
}

static sqlite3 *open_db(const char *name) {
  char *p = test_path(name);
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
  free(p);
  return db;
}

static int run_mode(sqlite3 *db, const char *mode, char uuid[37]) {
  char *text = xp_asprintf("kind = \"test_kind\"\ncases = 3\nmode = \"%s\"\ntp = 8\ninterconnect = \"pcie\"\n", mode);
  xp_spec *s = spec_text("run.toml", text);
  free(text);
  xp_error_quiet(1);
  int rc = xp_execute_spec(db, &test_kind, s, 0, NULL, uuid);
  xp_error_quiet(0);
  xp_spec_free(s);
  return rc;
}

static char *status_of(sqlite3 *db, const char *uuid) {
  char *sql = xp_asprintf("SELECT status FROM runs WHERE uuid='%s'", uuid);
  char *s = one_text(db, sql);
  free(sql);
  return s;
}

static void test_lifecycle(void) {
  sqlite3 *db = open_db("life.db");
  char uuid[37], *st, *sql;
  setenv("XP_TEST_MARKER", "42", 1);
  CHECK_EQ_INT(run_mode(db, "ok", uuid), 0);
  CHECK_EQ_STR(st = status_of(db, uuid), "ok");
  free(st);
  sql = xp_asprintf("SELECT count(*) FROM cases c JOIN runs r ON r.id=c.run_id WHERE r.uuid='%s'", uuid);
  CHECK_EQ_INT(one_int(db, sql), 3);
  free(sql);
  /* raw samples kept, summary computed from them: samples {5,1,3,2,4} -> median 3 */
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM samples"), 15);
  CHECK_NEAR((double)one_int(db, "SELECT median*1000 FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=0 AND c.run_id=(SELECT max(id) FROM runs)"), 3000.0, 1e-12);
  /* metadata gathered without asking; declared and detected both kept, detected wins */
  sql = xp_asprintf("SELECT value FROM run_meta m JOIN runs r ON r.id=m.run_id WHERE r.uuid='%s' AND key='env.XP_TEST_MARKER'", uuid);
  CHECK_EQ_STR(st = one_text(db, sql), "42");
  free(st);
  free(sql);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM run_meta WHERE key IN ('host.name','host.cpu_model','host.cores','host.mem_bytes','xp.version','xp.commit','host.kernel')"), 7);
  CHECK_EQ_INT(one_int(db, "SELECT tp FROM runs ORDER BY id DESC LIMIT 1"), 8);
  CHECK_EQ_STR(st = one_text(db, "SELECT interconnect FROM runs ORDER BY id DESC LIMIT 1"), "nvlink");
  free(st);
  CHECK_EQ_STR(st = one_text(db, "SELECT value FROM run_meta WHERE key='mismatch.interconnect'"), "declared pcie, detected nvlink");
  free(st);

  /* failed: error kept, no results */
  CHECK_EQ_INT(run_mode(db, "fail", uuid), XP_EXIT_FAILED);
  CHECK_EQ_STR(st = status_of(db, uuid), "failed");
  free(st);
  sql = xp_asprintf("SELECT error FROM runs WHERE uuid='%s'", uuid);
  CHECK_EQ_STR(st = one_text(db, sql), "planned failure");
  free(st);
  free(sql);
  sql = xp_asprintf("SELECT count(*) FROM cases c JOIN runs r ON r.id=c.run_id WHERE r.uuid='%s'", uuid);
  CHECK_EQ_INT(one_int(db, sql), 0);
  free(sql);

  /* the reader of its output went away (xp run spec.toml | head): the run still ends ok,
  ** recorded whole, where SIGPIPE killed it mid-run and left it 'running'; xp ends at the
  ** write of its summary after that, as a pipeline expects (exec.c checks that write) */
  int fds[2];
  CHECK(pipe(fds) == 0);
  close(fds[0]);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    sqlite3 *child = open_db("life.db");
    _exit(run_mode(child, "print", uuid) == 0 ? 0 : 3);
  }
  close(fds[1]);
  int status;
  waitpid(pid, &status, 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0) || (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE));
  sqlite3_stmt *q = NULL;
  sqlite3_prepare_v2(db, "SELECT status, (SELECT count(*) FROM cases c WHERE c.run_id = r.id) FROM runs r ORDER BY id DESC LIMIT 1", -1, &q, NULL);
  CHECK(sqlite3_step(q) == SQLITE_ROW);
  CHECK_EQ_STR((const char *)sqlite3_column_text(q, 0), "ok");
  CHECK_EQ_INT(sqlite3_column_int(q, 1), 3);
  sqlite3_finalize(q);

  /* aborted by SIGINT: what was measured is kept and the run says so */
  xp_install_signal_handlers();
  CHECK_EQ_INT(run_mode(db, "abort", uuid), XP_EXIT_ABORTED);
  CHECK_EQ_STR(st = status_of(db, uuid), "aborted");
  free(st);
  sql = xp_asprintf("SELECT count(*) FROM cases c JOIN runs r ON r.id=c.run_id WHERE r.uuid='%s'", uuid);
  CHECK_EQ_INT(one_int(db, sql), 1);
  free(sql);
  signal(SIGINT, SIG_DFL);

  /* the recording process dies: the row stays 'running' and is shown as incomplete */
  pid = fork();
  if (pid == 0) {
    sqlite3 *child = open_db("life.db");
    run_mode(child, "die", uuid);
    _exit(0);
  }
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);
  sqlite3_prepare_v2(db, "SELECT status, host, boot_id, pid FROM runs ORDER BY id DESC LIMIT 1", -1, &q, NULL);
  CHECK(sqlite3_step(q) == SQLITE_ROW);
  CHECK_EQ_STR((const char *)sqlite3_column_text(q, 0), "running");
  CHECK_EQ_STR(xp_effective_status((const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1),
                                   (const char *)sqlite3_column_text(q, 2), sqlite3_column_int64(q, 3)),
               "incomplete");
  sqlite3_finalize(q);
  CHECK_EQ_STR(xp_effective_status("running", "somewhere-else", "b", 1), "running");

  CHECK_EQ_STR(xp_effective_status("running", NULL, NULL, (int64_t)getpid()), "running");
  xp_db_close(db);
}

static int count_rows(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  while (sqlite3_step(st) == SQLITE_ROW) (*(int *)arg)++;
  return 0;
}

static void test_readonly_queries(void) {
  char *p = test_path("life.db");
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READONLY, &rc);
  CHECK(db != NULL);
  int64_t before = one_int(db, "SELECT count(*) FROM runs");
  int rows = 0;
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_query_text(db, "SELECT 1;\nUPDATE runs SET status='ok';", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "q.sql:2:") != NULL);
  CHECK_EQ_INT(xp_query_text(db, "DELETE FROM runs", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  char *attach = xp_asprintf("ATTACH '%s/evil.db' AS e", test_dir);
  CHECK_EQ_INT(xp_query_text(db, attach, "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  free(attach);
  CHECK_EQ_INT(xp_query_text(db, "SELECT load_extension('/tmp/x.so')", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK_EQ_INT(xp_query_text(db, "PRAGMA journal_mode=DELETE", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK_EQ_INT(xp_query_text(db, "PRAGMA user_version=7", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK_EQ_INT(xp_query_text(db, "UPDATE sqlite_master SET sql=''", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK_EQ_INT(xp_query_text(db, "CREATE TEMP TABLE t(x)", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK_EQ_INT(xp_query_text(db, "SELECT * FROM runs WHERE tp = :tp", "q.sql", NULL, 0, count_rows, &rows), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "--param tp=") != NULL);
  xp_error_quiet(0);
  struct stat st;
  char *evil = test_path("evil.db");
  CHECK(stat(evil, &st) != 0);
  free(evil);
  xp_param prm;
  CHECK_EQ_INT(xp_param_parse("tp=8", &prm), 0);
  rows = 0;
  CHECK_EQ_INT(xp_query_text(db, "-- comment\nSELECT * FROM runs WHERE tp = :tp; SELECT 2;", "q.sql", &prm, 1, count_rows, &rows), 0);
  CHECK_EQ_INT(rows, (int)one_int(db, "SELECT count(*) FROM runs WHERE tp=8") + 1);
  /* reading helpers that query files need: table-valued JSON functions, introspection */
  rows = 0;
  CHECK_EQ_INT(xp_query_text(db, "SELECT value FROM json_each('[1,2,3]'); PRAGMA table_info(runs);", "q.sql", NULL, 0, count_rows, &rows), 0);
  CHECK(rows > 3 + 10);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM runs"), before);
  CHECK(xp_param_parse("t p=1", &prm) != 0 && xp_param_parse("=1", &prm) != 0);
  xp_db_close(db);
  free(p);
}

static void test_run_refs(void) {
  sqlite3 *db = open_db("life.db");
  char *uuid = one_text(db, "SELECT uuid FROM runs ORDER BY id LIMIT 1");
  int64_t id = 0;
  char full[37];
  char prefix[9];
  snprintf(prefix, sizeof prefix, "%.8s", uuid);
  CHECK_EQ_INT(xp_resolve_run(db, prefix, &id, full), 0);
  CHECK_EQ_STR(full, uuid);
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_resolve_run(db, "zzzz", &id, NULL), XP_EXIT_USAGE);
  CHECK_EQ_INT(xp_resolve_run(db, "ffffffff", &id, NULL) == 0 ? 0 : XP_EXIT_USAGE, XP_EXIT_USAGE);
  xp_error_quiet(0);
  free(uuid);
  xp_db_close(db);
}

static void test_sizes_and_stats(void) {
  int64_t v;
  CHECK(xp_parse_size("14336", &v) == 0 && v == 14336);
  CHECK(xp_parse_size("1M", &v) == 0 && v == 1048576);
  CHECK(xp_parse_size("256MiB", &v) == 0 && v == 268435456);
  CHECK(xp_parse_size("8B", &v) == 0 && v == 8);
  CHECK(xp_parse_size("1X", &v) != 0 && xp_parse_size("-1", &v) != 0);
  /* numbers from users' files as integers: never an undefined cast */
  CHECK(xp_saturate_int64(1e300) == INT64_MAX && xp_saturate_int64(-1e300) == INT64_MIN);
  CHECK(xp_saturate_int64(NAN) == 0 && xp_saturate_int64(-2.9) == -2 && xp_saturate_int64(9.2e18) == 9200000000000000000LL);
  CHECK(xp_saturate_int(HUGE_VAL) == INT_MAX && xp_saturate_int(-3e9) == INT_MIN && xp_saturate_int(2147483647.5) == INT_MAX);
  CHECK(xp_saturate_int(-2147483648.5) == INT_MIN && xp_saturate_int(7.9) == 7);
  double a[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, b[] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  xp_stats s;
  xp_stats_compute(a, 10, &s);
  CHECK_NEAR(s.median, 5.5, 1e-12);
  CHECK_NEAR(s.p10, 1.9, 1e-12);
  CHECK_NEAR(s.p90, 9.1, 1e-12);
  double u, p = xp_mann_whitney(a, 10, b, 10, &u);
  CHECK_NEAR(u, 0.0, 1e-12);
  /* scipy.stats.mannwhitneyu(a, b, method="asymptotic").pvalue = 0.00018267... */
  CHECK_NEAR(p, 0.00018267, 1e-3);
  CHECK(xp_mann_whitney(a, 10, a, 10, &u) > 0.9);
}

/* UTF-8 as JSON needs it: overlong forms, surrogates and stray continuation bytes are not. */
static void test_utf8(void) {
  CHECK_EQ_INT(xp_utf8_invalid_at("plain, na\xc3\xaf" "ve \xe6\xa8\xa1\xf0\x9f\x98\x80", 21), -1);
  CHECK_EQ_INT(xp_utf8_invalid_at("ab\xff" "cd", 5), 2);
  CHECK_EQ_INT(xp_utf8_invalid_at("\xc0\xaf", 2), 0);         /* overlong '/' */
  CHECK_EQ_INT(xp_utf8_invalid_at("x\xed\xa0\x80", 4), 1);    /* a UTF-16 surrogate */
  CHECK_EQ_INT(xp_utf8_invalid_at("x\xe6\xa8", 3), 1);         /* cut short */
  char *m = xp_utf8_mend("a\xff\xe6\xa8\xa1" "b\x80");
  CHECK_EQ_STR(m, "a\xef\xbf\xbd\xe6\xa8\xa1" "b\xef\xbf\xbd");
  free(m);
  /* mended only where needed, to the length given (a name inside a larger buffer) */
  size_t len = 0;
  CHECK(xp_utf8_mended("ok \xe6\xa8\xa1", 6, &len) == NULL);
  m = xp_utf8_mended("k\xfe\xffzzz", 3, &len);
  CHECK_EQ_STR(m, "k\xef\xbf\xbd\xef\xbf\xbd");
  CHECK_EQ_INT(len, 7);
  free(m);
}

int main(void) {
  if (!test_dir_make("/tmp/xp-test-foundation-XXXXXX")) return 1;
  test_utf8();
  test_migrations_fresh();
  test_migrations_older();
  test_migrations_every_older();
  test_migrations_older_read_only();
  test_refusals();
  test_spec_hash();
  test_spec_errors();
  test_nearest_key();
  test_lifecycle();
  test_readonly_queries();
  test_run_refs();
  test_sizes_and_stats();
  test_dir_remove();
  CHECK_DONE();
}
