/*
** The integrity chain, append-only runs, merge and rerun (issue 7, items 3-5), with a kind
** defined in history_probe.h so nothing depends on a GPU or other kinds.
**
** Also a fixture tool for the shell tests (tests/cli/history_*.sh), which need runs of a kind
** the xp binary does not have:
**   test_history_chain record DB [KEY=VALUE]...   record a probe run, print its UUID
**   test_history_chain tables DB                  add the probe tables (as a later migration)
**   test_history_chain tamper DB SQL              run SQL with xp's triggers out of the way
**                                                 (then put back), as an attacker would
*/
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "chain.h"
#include "check.h"
#include "db.h"
#include "history.h"
#include "history_probe.h"
#include "kind.h"
#include "runref.h"
#include "testutil.h"
#include "xp.h"

int cmd_verify(int argc, char **argv, const char *db_path);
int cmd_merge(int argc, char **argv, const char *db_path);

/* Run a command function with stdout and stderr captured; returns the text. */
static char *capture(int (*fn)(int, char **, const char *), int argc, char **argv,
                     const char *db, int *rc) {
  fflush(stdout);
  fflush(stderr);
  char *path = test_path("capture.txt");
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  int save1 = dup(1), save2 = dup(2);
  dup2(fd, 1);
  dup2(fd, 2);
  *rc = fn(argc, argv, db);
  fflush(stdout);
  fflush(stderr);
  dup2(save1, 1);
  dup2(save2, 2);
  close(save1);
  close(save2);
  close(fd);
  char *text = xp_read_file(path, NULL);
  free(path);
  return text ? text : xp_strdup("");
}

static int verify(const char *db, char **out) {
  char *argv[] = {"verify", NULL};
  int rc;
  char *text = capture(cmd_verify, 1, argv, db, &rc);
  if (out) *out = text;
  else free(text);
  return rc;
}

static int merge(const char *db, const char *other, char **out) {
  char *argv[] = {"merge", (char *)other, NULL};
  int rc;
  char *text = capture(cmd_merge, 2, argv, db, &rc);
  if (out) *out = text;
  else free(text);
  return rc;
}

static sqlite3 *open_rw(const char *p) {
  int rc;
  return xp_db_open(p, XP_DB_READWRITE, &rc);
}

static void record(sqlite3 *db, const char *const *sets, int n, char uuid[37]) {
  char u[37];
  int rc = probe_record(db, sets, n, uuid ? uuid : u);
  (void)rc;
}

/* Every table's rows of the database, in a stable text form, hashed: "byte-level" sameness of
** the content that merge could change. */
static void dump_hash(const char *p, char out[65]) {
  sqlite3 *db;
  sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL);
  sqlite3_stmt *t = NULL;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type IN ('table','trigger','index') ORDER BY name", -1, &t, NULL);
  char *all = xp_strdup("");
  while (sqlite3_step(t) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(t, 0);
    char *q = xp_sql_ident(name);
    char *sql = xp_asprintf("SELECT * FROM %s", q);
    sqlite3_stmt *st = NULL;
    char *acc = xp_asprintf("%s#%s\n", all, name);
    free(all);
    all = acc;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
          const unsigned char *v = sqlite3_column_text(st, c);
          acc = xp_asprintf("%s%s|", all, v ? (const char *)v : "NULL");
          free(all);
          all = acc;
        }
        acc = xp_asprintf("%s\n", all);
        free(all);
        all = acc;
      }
    }
    sqlite3_finalize(st);
    free(sql);
    free(q);
  }
  sqlite3_finalize(t);
  sqlite3_close(db);
  xp_sha256_hex(all, strlen(all), out);
  free(all);
}

/* Run SQL with every xp trigger dropped, then put the triggers back (a determined editor). */
static int tamper(const char *p, const char *sql) {
  sqlite3 *db;
  if (sqlite3_open(p, &db) != SQLITE_OK) return 1;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'xp\\_%' ESCAPE '\\'", -1, &st, NULL);
  char **names = NULL, **sqls = NULL;
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    names = xp_xrealloc(names, (size_t)(n + 1) * sizeof *names);
    sqls = xp_xrealloc(sqls, (size_t)(n + 1) * sizeof *sqls);
    names[n] = xp_strdup((const char *)sqlite3_column_text(st, 0));
    sqls[n++] = xp_strdup((const char *)sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char *q = xp_sql_ident(names[i]), *drop = xp_asprintf("DROP TRIGGER %s", q);
    sqlite3_exec(db, drop, NULL, NULL, NULL);
    free(q);
    free(drop);
  }
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "tamper: %s\n", err);
    sqlite3_free(err);
    rc = 1;
  }
  for (int i = 0; i < n; i++) {
    sqlite3_exec(db, sqls[i], NULL, NULL, NULL);
    free(names[i]);
    free(sqls[i]);
  }
  free(names);
  free(sqls);
  sqlite3_close(db);
  return rc;
}

/* A recording process that dies after beginning a run: the run stays 'running'. */
static int64_t begin_and_die(const char *p) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    int rc;
    sqlite3 *db = xp_db_open(p, XP_DB_READWRITE, &rc);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "kind", "hist_probe");
    xp_spec *spec = xp_spec_from_json(root, "<probe>", ".");
    xp_run_opts o = {"hist_probe", 0, spec, NULL, 0};
    xp_run *r = NULL;
    _exit(db && xp_run_begin(db, &o, &r) == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  int rc;
  sqlite3 *db = xp_db_open(p, XP_DB_READONLY, &rc);
  int64_t id = db ? one_int(db, "SELECT max(id) FROM runs WHERE status = 'running'") : -1;
  xp_db_close(db);
  return id;
}

static int exec_err(sqlite3 *db, const char *sql, const char *expect) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  int ok = rc != SQLITE_OK && err && strstr(err, expect);
  if (!ok) fprintf(stderr, "expected refusal \"%s\" for: %s (got: %s)\n", expect, sql, err ? err : "success");
  sqlite3_free(err);
  return ok;
}

/* ---- tests ---- */

static void test_seal_and_chain(void) {
  char *p = test_path("chain.db");
  sqlite3 *db = open_rw(p);
  const char *a[] = {"cases=3"}, *b[] = {"fail=true"}, *c[] = {"scale=1.5"};
  record(db, a, 1, NULL);
  record(db, b, 1, NULL); /* failed runs are sealed too: their failure is history */
  record(db, c, 1, NULL);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM runs WHERE chain_seq IS NOT NULL"), 3);
  CHECK_EQ_INT(one_int(db, "SELECT group_concat(chain_seq) = '1,2,3' FROM (SELECT chain_seq FROM runs ORDER BY id)"), 1);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM runs WHERE status = 'failed'"), 1);
  /* recompute each link by hand */
  xp_rtree tree;
  CHECK_EQ_INT(xp_rtree_load(db, &tree), 0);
  char prev[65];
  snprintf(prev, sizeof prev, "%s", xp_chain_genesis);
  for (int64_t id = 1; id <= 3; id++) {
    char content[65], link[65];
    char *digests = NULL;
    CHECK_EQ_INT(xp_run_content(db, &tree, id, content, &digests), 0);
    char *sql = xp_asprintf("SELECT content_sha256 || ' ' || chain_sha256 || ' ' || content_digests FROM runs WHERE id = %lld", (long long)id);
    char *stored = one_text(db, sql);
    xp_chain_link(prev, content, link);
    char *want = xp_asprintf("%s %s %s", content, link, digests);
    CHECK_EQ_STR(stored, want);
    snprintf(prev, sizeof prev, "%s", link);
    free(sql), free(stored), free(want), free(digests);
  }
  /* the digests name the tables that hold the run's rows */
  char *dg = one_text(db, "SELECT content_digests FROM runs WHERE id = 1");
  CHECK(dg && strstr(dg, "\"cases\"") && strstr(dg, "\"metrics\"") && strstr(dg, "\"samples\"") &&
        strstr(dg, "\"run_meta\"") && strstr(dg, "\"runs\""));
  free(dg);
  xp_rtree_free(&tree);
  xp_db_close(db);
  char *out = NULL;
  CHECK_EQ_INT(verify(p, &out), 0);
  CHECK(strstr(out, "3 sealed runs") && strstr(out, "intact"));
  free(out);
  free(p);
}

static void test_append_only(void) {
  char *p = test_path("append.db");
  sqlite3 *db = open_rw(p);
  const char *a[] = {"cases=2"};
  char uuid[37];
  record(db, a, 1, uuid);
  const char *msg = "append-only";
  CHECK(exec_err(db, "UPDATE metrics SET median = 1", msg));
  CHECK(exec_err(db, "DELETE FROM samples", msg));
  CHECK(exec_err(db, "INSERT INTO cases(run_id, seq, name) VALUES (1, 99, 'late')", msg));
  CHECK(exec_err(db, "UPDATE run_meta SET value = 'x'", msg));
  CHECK(exec_err(db, "DELETE FROM run_meta", msg));
  CHECK(exec_err(db, "INSERT INTO run_meta(run_id, key, source, value) VALUES (1, 'late', 'declared', 'x')", msg));
  CHECK(exec_err(db, "UPDATE runs SET model = 'other'", msg));
  CHECK(exec_err(db, "UPDATE runs SET status = 'failed'", msg));
  CHECK(exec_err(db, "UPDATE runs SET chain_sha256 = 'x'", msg));
  CHECK(exec_err(db, "DELETE FROM runs", msg));
  CHECK(exec_err(db, "INSERT INTO artifacts(run_id, name, media_type, encoding, size, sha256, data) VALUES (1, 'a', 't', 'identity', 0, 'x', x'')", msg));
  CHECK(exec_err(db, "INSERT INTO run_gpus(run_id, idx) VALUES (1, 7)", msg));
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM runs"), 1);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM samples"), 20);
  /* a run whose recorder died takes no seal: its rows may still be changed or removed
  ** (an abandoned run's cleanup) */
  int64_t rid = begin_and_die(p);
  CHECK(rid > 0);
  char *sql = xp_asprintf("INSERT INTO cases(run_id, seq, name) VALUES (%lld, 0, 'c');"
                          "UPDATE cases SET note = 'n' WHERE run_id = %lld;"
                          "DELETE FROM runs WHERE id = %lld;", (long long)rid, (long long)rid, (long long)rid);
  CHECK_EQ_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM runs"), 1);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM cases WHERE name = 'c'"), 0);
  free(sql);
  xp_db_close(db);
  free(p);
}

/* Tables added later (trace tables, kinds' own) are covered without naming them anywhere. */
static void test_new_tables_covered(void) {
  char *p = test_path("tables.db");
  sqlite3 *db = open_rw(p);
  CHECK_EQ_INT(sqlite3_exec(db, probe_tables_sql, NULL, NULL, NULL), SQLITE_OK);
  const char *a[] = {"extra=4"};
  record(db, a, 1, NULL);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'xp_append_only_probe_%'"), 6);
  /* the dictionary is not a run table: its rows stay editable (xp reclassify rewrites them) */
  CHECK_EQ_INT(sqlite3_exec(db, "UPDATE probe_names SET name = name || '!'", NULL, NULL, NULL), SQLITE_OK);
  CHECK(exec_err(db, "INSERT INTO probe_rows(run_id, k, v) VALUES (1, 'late', 0)", "append-only"));
  CHECK(exec_err(db, "UPDATE probe_leaf SET x = 99", "append-only"));
  CHECK(exec_err(db, "DELETE FROM probe_leaf", "append-only"));
  char *dg = one_text(db, "SELECT content_digests FROM runs WHERE id = 1");
  CHECK(dg && strstr(dg, "\"probe_rows\"") && strstr(dg, "\"probe_leaf\""));
  free(dg);
  xp_db_close(db);
  CHECK_EQ_INT(verify(p, NULL), 0);
  /* a leaf row (two levels below the run) changed behind xp's back is caught and named */
  CHECK_EQ_INT(tamper(p, "UPDATE probe_leaf SET x = x + 1 WHERE rowid = 2"), 0);
  char *out = NULL;
  CHECK_EQ_INT(verify(p, &out), XP_EXIT_INTEGRITY);
  CHECK(strstr(out, "probe_leaf differ from the seal") != NULL);
  free(out);
  free(p);
}

/* Statements that read the run tables' tree from the schema (xp_rtree_load), counted; and
** those that read tables' columns or look for a guard, which a seal that reads the tree runs
** once each (per table and operation, they were most of every import's seal). */
static int tree_reads, column_reads, guard_reads;
static int count_tree_reads(unsigned type, void *ctx, void *p, void *x) {
  (void)type, (void)ctx, (void)x;
  const char *sql = sqlite3_sql((sqlite3_stmt *)p);
  tree_reads += sql && strstr(sql, "FROM sqlite_schema WHERE type = 'table'") != NULL;
  column_reads += sql && strstr(sql, "pragma_table_info") != NULL;
  guard_reads += sql && strstr(sql, "type = 'trigger'") != NULL;
  return 0;
}

/* A finished run written by hand into the caller's transaction, with a row in `table` (whose
** run_id points at it), and sealed. Returns its id. */
static int64_t sealed_by_hand(sqlite3 *db, const char *uuid, const char *table) {
  char *sql = xp_asprintf("INSERT INTO runs (uuid, kind, status, started_at, spec_json, spec_sha256)"
                          " VALUES ('%s', 'hist_probe', 'running', '2026-01-01T00:00:00Z', '{}', 'x');"
                          " INSERT INTO %s (run_id, v) VALUES (last_insert_rowid(), 7);"
                          " UPDATE runs SET status = 'ok' WHERE uuid = '%s'", uuid, table, uuid);
  CHECK_EQ_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  free(sql);
  int64_t id = one_int(db, "SELECT max(id) FROM runs");
  CHECK_EQ_INT(xp_chain_seal(db, id), 0);
  return id;
}

/* Every seal reuses the tree of the last while the schema stays the same, reads it again when a
** table appears, and seals exactly as a fresh tree does. */
static void test_kept_tree(void) {
  char *p = test_path("kept.db");
  sqlite3 *db = open_rw(p);
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT, count_tree_reads, NULL);
  const char *a[] = {"cases=2"};
  for (int i = 0; i < 3; i++) record(db, a, 1, NULL);
  int before = tree_reads;
  record(db, a, 1, NULL);
  record(db, a, 1, NULL);
  CHECK_EQ_INT(tree_reads - before, 0); /* the schema did not change: the kept tree served */
  CHECK_EQ_INT(sqlite3_exec(db, probe_tables_sql, NULL, NULL, NULL), SQLITE_OK);
  const char *b[] = {"extra=4"};
  before = tree_reads;
  const int columns_before = column_reads, guards_before = guard_reads;
  record(db, b, 1, NULL);
  CHECK(tree_reads - before > 0); /* new tables: read again, and guarded */
  CHECK_EQ_INT(column_reads - columns_before, 1);
  CHECK_EQ_INT(guard_reads - guards_before, 1);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'xp_append_only_probe_%'"), 6);
  char *dg = one_text(db, "SELECT content_digests FROM runs WHERE id = 6");
  CHECK(dg && strstr(dg, "\"probe_rows\"") && strstr(dg, "\"probe_leaf\""));
  free(dg);
  record(db, b, 1, NULL);
  /* A table and its guards made in a transaction that rolls back are gone with it, though the
  ** schema version comes back to the number they had when the next transaction makes as many
  ** changes: there, a table of its own is read and guarded, not the vanished one. */
  CHECK_EQ_INT(sqlite3_exec(db, "BEGIN; CREATE TABLE gone_rows (run_id INTEGER REFERENCES runs (id), v REAL)",
                            NULL, NULL, NULL), SQLITE_OK);
  sealed_by_hand(db, "gone-1", "gone_rows");
  sealed_by_hand(db, "gone-2", "gone_rows"); /* the tree with gone_rows is kept here */
  CHECK_EQ_INT(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(sqlite3_exec(db, "BEGIN; CREATE TABLE new_rows (run_id INTEGER REFERENCES runs (id), v REAL);"
                            " CREATE INDEX new_a ON new_rows (v); CREATE INDEX new_b ON new_rows (v);"
                            " CREATE INDEX new_c ON new_rows (v)", NULL, NULL, NULL), SQLITE_OK);
  int64_t id = sealed_by_hand(db, "new-1", "new_rows");
  CHECK_EQ_INT(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  char *sql = xp_asprintf("SELECT content_digests FROM runs WHERE id = %lld", (long long)id);
  dg = one_text(db, sql);
  free(sql);
  CHECK(dg && strstr(dg, "\"new_rows\"") && !strstr(dg, "gone_rows"));
  free(dg);
  CHECK(exec_err(db, "DELETE FROM new_rows", "append-only"));
  xp_db_close(db);
  CHECK_EQ_INT(verify(p, NULL), 0); /* every seal matches the content read with a fresh tree */
  free(p);
}

/* A table's digest is SHA-256 of its rows as chain.c's header and hash_row describe them,
** written here with snprintf: integers at both ends of 64 bits, a negative real, text and blobs longer than
** hash_row's buffer, an empty text, NUL bytes and a NULL (left out). Seals already in
** databases depend on every byte of it. */
static void test_row_encoding(void) {
  char *p = test_path("encoding.db");
  sqlite3 *db = open_rw(p);
  CHECK_EQ_INT(sqlite3_exec(db,
      "CREATE TABLE edge_rows (id INTEGER PRIMARY KEY, run_id INTEGER REFERENCES runs (id), a INTEGER,"
      " b REAL, c TEXT, d BLOB);"
      "INSERT INTO runs (uuid, kind, status, started_at, spec_json, spec_sha256)"
      " VALUES ('edge', 'hist_probe', 'running', '2026-01-01T00:00:00Z', '{}', 'x');"
      "INSERT INTO edge_rows (run_id, a, b, c, d) VALUES"
      " ((SELECT id FROM runs WHERE uuid = 'edge'), -9223372036854775808, -0.1, printf('%.1500c', 'x'), x'00ff10'),"
      " ((SELECT id FROM runs WHERE uuid = 'edge'), -1, 1.5, '', NULL),"
      " ((SELECT id FROM runs WHERE uuid = 'edge'), 9223372036854775807, 1e300, 'caf\xc3\xa9', zeroblob(2000));"
      "UPDATE runs SET status = 'ok' WHERE uuid = 'edge'", NULL, NULL, NULL), SQLITE_OK);
  const int64_t id = one_int(db, "SELECT id FROM runs WHERE uuid = 'edge'");
  CHECK_EQ_INT(xp_chain_seal(db, id), 0);
  static const char *const c[] = {"xxx", "", "caf\xc3\xa9"};
  static const long long a[] = {INT64_MIN, -1, INT64_MAX};
  static const double b[] = {-0.1, 1.5, 1e300};
  size_t cap = 16384, n = 0;
  char *ref = xp_xmalloc(cap);
  for (int r = 0; r < 3; r++) {
    char num[64];
    snprintf(num, sizeof num, "%lld", a[r]);
    n += (size_t)snprintf(ref + n, cap - n, "@0|1:ai%zu:%s", strlen(num), num);
    snprintf(num, sizeof num, "%.17g", b[r]);
    n += (size_t)snprintf(ref + n, cap - n, "|1:br%zu:%s", strlen(num), num);
    if (r == 0) { /* 1500 x's */
      n += (size_t)snprintf(ref + n, cap - n, "|1:ct1500:");
      memset(ref + n, 'x', 1500), n += 1500;
      n += (size_t)snprintf(ref + n, cap - n, "|1:db3:");
      memcpy(ref + n, "\x00\xff\x10", 3), n += 3;
    } else {
      n += (size_t)snprintf(ref + n, cap - n, "|1:ct%zu:%s", strlen(c[r]), c[r]);
      if (r == 2) {
        n += (size_t)snprintf(ref + n, cap - n, "|1:db2000:");
        memset(ref + n, 0, 2000), n += 2000;
      }
    }
    ref[n++] = '\n';
  }
  char want[65];
  xp_sha256_hex(ref, n, want);
  free(ref);
  char *dg = one_text(db, "SELECT content_digests FROM runs WHERE uuid = 'edge'");
  char *expect = xp_asprintf("\"edge_rows\":\"%s\"", want);
  CHECK(dg && strstr(dg, expect));
  if (dg && !strstr(dg, expect)) fprintf(stderr, "digests %s, want %s\n", dg, want);
  free(expect);
  free(dg);
  xp_db_close(db);
  CHECK_EQ_INT(verify(p, NULL), 0);
  free(p);
}

static void test_tampering_caught(void) {
  char *p = test_path("tamper.db");
  sqlite3 *db = open_rw(p);
  const char *a[] = {"cases=2"}, *b[] = {"cases=2", "scale=2"}, *c[] = {"cases=1"};
  char u1[37], u2[37], u3[37];
  record(db, a, 1, u1);
  record(db, b, 1, u2);
  record(db, c, 1, u3);
  xp_db_close(db);
  CHECK_EQ_INT(verify(p, NULL), 0);
  /* one sample of run 2 edited */
  CHECK_EQ_INT(tamper(p, "UPDATE samples SET value = value * 1.01 WHERE case_id = (SELECT min(id) FROM cases WHERE run_id = 2) AND seq = 3"), 0);
  char *out = NULL;
  CHECK_EQ_INT(verify(p, &out), XP_EXIT_INTEGRITY);
  char *want = xp_asprintf("run %s: its rows in samples differ from the seal", u2);
  CHECK(strstr(out, want) != NULL);
  CHECK(strstr(out, u1) == NULL); /* the other runs are fine */
  free(want);
  free(out);
  /* put it back, then remove run 2 entirely: the chain names the gap */
  CHECK_EQ_INT(tamper(p, "UPDATE samples SET value = value / 1.01 WHERE case_id = (SELECT min(id) FROM cases WHERE run_id = 2) AND seq = 3"), 0);
  CHECK_EQ_INT(tamper(p, "DELETE FROM runs WHERE id = 2"), 0);
  CHECK_EQ_INT(verify(p, &out), XP_EXIT_INTEGRITY);
  CHECK(strstr(out, "runs were removed from the chain") != NULL);
  want = xp_asprintf("(run %s) does not follow the previous link", u3);
  CHECK(strstr(out, want) != NULL);
  free(want);
  free(out);
  /* a metric's summary edited in a fresh database: named by table */
  char *q = test_path("tamper2.db");
  db = open_rw(q);
  record(db, a, 1, u1);
  xp_db_close(db);
  CHECK_EQ_INT(tamper(q, "UPDATE metrics SET median = median * 0.9 WHERE name = 'time'"), 0);
  CHECK_EQ_INT(verify(q, &out), XP_EXIT_INTEGRITY);
  CHECK(strstr(out, "its rows in metrics differ from the seal") != NULL);
  free(out);
  free(q);
  free(p);
}

static void test_merge(void) {
  char *pa = test_path("a.db"), *pb = test_path("b.db");
  sqlite3 *a = open_rw(pa), *b = open_rw(pb);
  const char *s1[] = {"cases=2", "gpu=H100"}, *s2[] = {"cases=3", "extra=3"};
  char ua1[37], ua2[37], ub1[37], ub2[37];
  record(a, s1, 2, ua1);
  record(a, s1, 1, ua2);
  CHECK_EQ_INT(sqlite3_exec(b, probe_tables_sql, NULL, NULL, NULL), SQLITE_OK);
  record(b, s2, 2, ub1);
  record(b, s1, 2, ub2);
  xp_db_close(b);
  CHECK(begin_and_die(pb) > 0); /* a run B never finished */

  /* B holds a run table A does not have: refused, A untouched */
  char before[65], after[65];
  xp_db_close(a);
  dump_hash(pa, before);
  char *out = NULL;
  CHECK_EQ_INT(merge(pa, pb, &out), XP_EXIT_DB);
  CHECK(strstr(out, "incompatible schema: table probe_") != NULL);
  free(out);
  dump_hash(pa, after);
  CHECK_EQ_STR(before, after);

  a = open_rw(pa);
  CHECK_EQ_INT(sqlite3_exec(a, probe_tables_sql, NULL, NULL, NULL), SQLITE_OK);
  /* a dictionary row A already has under the same key, with another value: A's is kept */
  CHECK_EQ_INT(sqlite3_exec(a, "INSERT INTO probe_names(id, name) VALUES (1002, 'not row2')", NULL, NULL, NULL), SQLITE_OK);
  xp_db_close(a);
  CHECK_EQ_INT(merge(pa, pb, &out), 0);
  CHECK(strstr(out, "2 runs merged, 0 already here, 1 skipped") != NULL);
  CHECK(strstr(out, "still running") != NULL);
  CHECK(strstr(out, "probe_names: 2 shared rows added") != NULL);
  CHECK(strstr(out, "probe_names: the row with id 1002 differs between the databases") != NULL);
  free(out);
  a = open_rw(pa);
  b = open_rw(pb);
  CHECK_EQ_INT(one_int(a, "SELECT count(*) FROM runs"), 4);
  /* every row came along: same counts per run, same content hashes */
  char *sql = xp_asprintf("SELECT content_sha256 FROM runs WHERE uuid = '%s'", ub1);
  char *ha = one_text(a, sql), *hb = one_text(b, sql);
  CHECK_EQ_STR(ha, hb);
  free(ha), free(hb), free(sql);
  CHECK_EQ_INT(one_int(a, "SELECT count(*) FROM probe_rows"), 3);
  CHECK_EQ_INT(one_int(a, "SELECT count(*) FROM probe_leaf"), 3);
  CHECK_EQ_INT(one_int(a, "SELECT count(*) FROM probe_rows p JOIN probe_names n ON n.id = p.name_id"), 3);
  CHECK_EQ_INT(one_int(a, "SELECT count(*) FROM probe_names WHERE name = 'not row2'"), 1);
  CHECK_EQ_INT(one_int(a, "SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.origin = 'measured'"),
               one_int(a, "SELECT 10 * count(*) FROM cases WHERE name = 'op'"));
  CHECK_EQ_INT(one_int(a, "SELECT max(chain_seq) FROM runs"), 4);
  xp_db_close(a);
  xp_db_close(b);
  CHECK_EQ_INT(verify(pa, NULL), 0);

  /* merging twice changes nothing */
  dump_hash(pa, before);
  CHECK_EQ_INT(merge(pa, pb, &out), 0);
  CHECK(strstr(out, "0 runs merged, 2 already here") != NULL);
  free(out);
  dump_hash(pa, after);
  CHECK_EQ_STR(before, after);

  /* the other direction: B gets A's two runs; both chains verify */
  CHECK_EQ_INT(merge(pb, pa, &out), 0);
  CHECK(strstr(out, "2 runs merged, 2 already here") != NULL);
  free(out);
  CHECK_EQ_INT(verify(pb, NULL), 0);
  b = open_rw(pb);
  CHECK_EQ_INT(one_int(b, "SELECT count(*) FROM runs WHERE status <> 'running'"), 4);
  xp_db_close(b);

  /* refusals: not an xp file, a newer schema, a tampered run; each leaves A as it was */
  char *junk = test_write_file("junk.db", "this is not a database\n");
  dump_hash(pa, before);
  CHECK_EQ_INT(merge(pa, junk, NULL), XP_EXIT_DB);
  char *newer = test_path("newer.db");
  char *cp = xp_asprintf("cp '%s' '%s'", pb, newer);
  CHECK_EQ_INT(system(cp), 0);
  sqlite3 *n;
  sqlite3_open(newer, &n);
  sqlite3_exec(n, "PRAGMA user_version = 999", NULL, NULL, NULL);
  sqlite3_close(n);
  CHECK_EQ_INT(merge(pa, newer, &out), XP_EXIT_DB);
  CHECK(strstr(out, "newer xp") != NULL);
  free(out);
  char *bad = test_path("bad.db");
  free(cp);
  cp = xp_asprintf("cp '%s' '%s'", pb, bad);
  CHECK_EQ_INT(system(cp), 0);
  /* a run A has, altered in B together with its seal: A's copy stays, with a warning (an
  ** altered run whose seal was left alone is B's own problem: its xp verify names it) */
  CHECK_EQ_INT(tamper(bad, "INSERT INTO probe_rows(run_id, k, v) SELECT id, 'forged', 1 FROM runs WHERE chain_seq = 1;"
                           "UPDATE runs SET content_sha256 = substr(content_sha256, 2) || '0' WHERE chain_seq = 1"), 0);
  /* bad now also holds a brand-new run A lacks, so that the refusal is not about "already here" */
  sqlite3 *bdb = open_rw(bad);
  record(bdb, s1, 1, NULL);
  xp_db_close(bdb);
  CHECK_EQ_INT(merge(pa, bad, &out), 0); /* the forged run is one A already has: A's copy is kept */
  CHECK(strstr(out, "different content") != NULL);
  free(out);
  dump_hash(pa, after);
  CHECK(strcmp(before, after) != 0); /* the new run came in */
  char *bad2 = test_path("bad2.db");
  free(cp);
  cp = xp_asprintf("cp '%s' '%s'", pb, bad2);
  CHECK_EQ_INT(system(cp), 0);
  bdb = open_rw(bad2);
  char fresh[37];
  const char *s3[] = {"cases=1", "extra=1"};
  record(bdb, s3, 2, fresh);
  xp_db_close(bdb);
  char *forge = xp_asprintf("UPDATE probe_rows SET v = 42 WHERE run_id = (SELECT id FROM runs WHERE uuid = '%s')", fresh);
  CHECK_EQ_INT(tamper(bad2, forge), 0);
  dump_hash(pa, before);
  CHECK_EQ_INT(merge(pa, bad2, &out), XP_EXIT_INTEGRITY);
  CHECK(strstr(out, fresh) != NULL && strstr(out, "does not match its seal") != NULL);
  free(out);
  dump_hash(pa, after);
  CHECK_EQ_STR(before, after);
  free(forge), free(bad2), free(bad), free(cp), free(newer), free(junk);
  free(pa);
  free(pb);
}

static void test_rerun(void) {
  char *p = test_path("rerun.db");
  sqlite3 *db = open_rw(p);
  const char *a[] = {"cases=2", "model=llama", "tp=2"};
  char old[37], fresh[37];
  record(db, a, 3, old);
  int64_t id;
  CHECK_EQ_INT(xp_resolve_run(db, old, &id, NULL), 0);
  setenv("NCCL_PROBE_SETTING", "changed", 1);
  fflush(stderr);
  char *errpath = test_path("rerun.err");
  int fd = open(errpath, O_CREAT | O_TRUNC | O_WRONLY, 0600), save = dup(2);
  dup2(fd, 2);
  int rc = xp_rerun(db, id, &probe_kind, fresh);
  fflush(stderr);
  dup2(save, 2);
  close(save);
  close(fd);
  unsetenv("NCCL_PROBE_SETTING");
  CHECK_EQ_INT(rc, 0);
  char *err = xp_read_file(errpath, NULL);
  CHECK(err && strstr(err, "environment differs: env.NCCL_PROBE_SETTING was (unset), now changed"));
  free(err);
  char *sql = xp_asprintf("SELECT parent_uuid = '%s' AND spec_sha256 = (SELECT spec_sha256 FROM runs WHERE uuid = '%s')"
                          " AND model = 'llama' AND tp = 2 FROM runs WHERE uuid = '%s'", old, old, fresh);
  CHECK_EQ_INT(one_int(db, sql), 1);
  free(sql);
  free(errpath);
  xp_db_close(db);
  free(p);
}

static void test_sample_comparison(void) {
  double a[10], b[10], c[10];
  for (int i = 0; i < 10; i++) a[i] = 100 + (i * 7) % 11 - 5;
  for (int i = 0; i < 10; i++) {
    b[i] = a[9 - i];          /* the same values: no difference */
    c[i] = 1.2 * a[i];        /* 20% slower */
  }
  xp_samplecmp r;
  xp_compare_samples(a, 10, b, 10, &r);
  CHECK(r.judged && !r.beyond_noise && r.p > 0.5);
  CHECK_NEAR(r.change, 0.0, 1e-12);
  xp_compare_samples(a, 10, c, 10, &r);
  CHECK(r.judged && r.beyond_noise && r.p < 0.001);
  CHECK_NEAR(r.change, 0.2, 1e-9);
  xp_compare_samples(a, 4, c, 10, &r); /* too few on one side: no verdict */
  CHECK(!r.judged && !r.beyond_noise && r.p != r.p);
  CHECK_EQ_STR(xp_metric_better("time_us", "us"), "lower");
  CHECK_EQ_STR(xp_metric_better("busbw_GBps", "GB/s"), "higher");
  CHECK(xp_metric_better("share", "%") == NULL);
  /* a unit shared by metrics going opposite ways: the metric decides */
  CHECK_EQ_STR(xp_metric_better("best_speedup", "ratio"), "higher");
  CHECK_EQ_STR(xp_metric_better("max_err", "ratio"), "lower");
  CHECK(xp_metric_better("bw_share", "ratio") == NULL);
  CHECK_EQ_STR(xp_metric_better("max_error", "abs"), "lower");
  CHECK_EQ_STR(xp_metric_better("wrong", "count"), "lower");
  CHECK(xp_metric_better("verify_min_count", "count") == NULL);
  CHECK(xp_metric_better("gpu_avg_power_w", "W") == NULL);
  CHECK_EQ_STR(xp_metric_better("max_err", "ms"), "lower"); /* by its unit, another tool's metric */
  CHECK(xp_metric_better(NULL, "ratio") == NULL);
}

/* ---- fixture tool for the shell tests ---- */

static int fixture(int argc, char **argv) {
  int rc = 0;
  if (strcmp(argv[1], "tamper") == 0 && argc == 4) return tamper(argv[2], argv[3]) ? XP_EXIT_DB : 0;
  sqlite3 *db = xp_db_open(argv[2], XP_DB_READWRITE, &rc);
  if (!db) return rc;
  if (strcmp(argv[1], "tables") == 0) {
    rc = sqlite3_exec(db, probe_tables_sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : XP_EXIT_DB;
  } else if (strcmp(argv[1], "record") == 0) {
    char uuid[37];
    rc = probe_record(db, (const char *const *)argv + 3, argc - 3, uuid);
    if (uuid[0]) printf("%s\n", uuid);
  } else rc = xp_error(XP_EXIT_USAGE, "fixture: record DB [KEY=VALUE]... | tables DB | tamper DB SQL");
  xp_db_close(db);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 3) return fixture(argc, argv);
  if (!test_dir_make("/tmp/xp-history-chain-XXXXXX")) return 1;
  test_sample_comparison();
  test_seal_and_chain();
  test_append_only();
  test_new_tables_covered();
  test_kept_tree();
  test_row_encoding();
  test_tampering_caught();
  test_merge();
  test_rerun();
  if (!check_failures) test_dir_remove();
  CHECK_DONE();
}
