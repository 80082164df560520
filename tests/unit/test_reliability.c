/*
** The recorder under load and under kill -9, driven through the real lifecycle
** (xp_execute_spec: xp_run_begin, execute, xp_run_finish) with a run kind that exists only
** here. Without arguments this is a unit test; the reliability scripts (tests/cli/reliability_NAME.sh,
** tests/reliability/NAME.sh) use its subcommands as their tool:
**
**   record DB N [CASES SAMPLES PAUSE_US]  record N runs (N = 0: until killed); prints
**                                         "begun UUID" when a run's row exists and
**                                         "ok UUID" when it committed
**   hold DB SECONDS                       hold the write lock, print "held", sleep, release
**   check DB [--same-results]             the invariants below; prints figures as key=value
**
** The invariants that must hold after any crash, whatever moment it hit:
**   1. PRAGMA integrity_check is "ok" and foreign_key_check finds nothing;
**   2. no result rows (cases, metrics, samples, artifacts, GPUs, or any kind's own table keyed
**      by run_id) belong to a run that is not ok or aborted: a dead or failed run shows no data;
**   3. every ok run of the probe kind holds exactly what its spec says it recorded;
**   4. with --same-results, ok runs of the same spec hold the same number of rows in every
**      result table (a crash-tested import is the same file every time);
**   5. no run is 'running' with a dead process: those are reported as incomplete, counted.
*/
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "runref.h"
#include "xp.h"

/* ---- the probe kind: measures nothing, records a known amount ---- */

static const xp_field probe_fields[] = {
    {"cases", XP_T_INT, 1, NULL, NULL, 1, 10000, "cases per run"},
    {"samples", XP_T_INT, 1, NULL, NULL, 1, 1000000, "samples per case"},
    {"pause_us", XP_T_INT, 0, NULL, NULL, 0, 10000000, "pretend to measure this long"},
    {"seq", XP_T_INT, 0, NULL, NULL, 0, 1e15, "which run of the series"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static int announce; /* print "begun UUID" lines (the scripts need them; the unit test not) */

/* Measure first (here: make up deterministic samples), then record everything at the end,
** as real kinds do, so that the write lock is held only while writing. */
static int probe_execute(xp_ctx *ctx) {
  const cJSON *root = ctx->spec->root;
  int ncases = (int)xp_spec_int(root, "cases", 1), nsamples = (int)xp_spec_int(root, "samples", 1);
  int64_t pause = xp_spec_int(root, "pause_us", 0), seq = xp_spec_int(root, "seq", 0);
  if (announce) {
    printf("begun %s\n", xp_run_uuid(ctx->run));
    fflush(stdout);
  }
  double *s = xp_xmalloc(sizeof *s * (size_t)nsamples);
  for (int i = 0; i < nsamples; i++) s[i] = 100.0 + (double)((seq * 7919 + i * 104729) % 1000) / 10.0;
  if (pause > 0) usleep((useconds_t)pause);
  if (xp_interrupted()) { free(s); return XP_EXIT_ABORTED; }
  int rc = xp_run_meta_int(ctx->run, "probe.seq", seq, "detected");
  for (int c = 0; c < ncases && rc == 0; c++) {
    cJSON *params = cJSON_CreateObject();
    cJSON_AddNumberToObject(params, "case", c);
    char name[32];
    snprintf(name, sizeof name, "case%d", c);
    int64_t id = xp_run_case(ctx->run, name, params, "ok", NULL);
    cJSON_Delete(params);
    if (id < 0) { rc = XP_EXIT_DB; break; }
    rc = xp_run_metric(ctx->run, id, "latency", "us", s, (size_t)nsamples);
    if (rc == 0) rc = xp_run_value(ctx->run, id, "throughput", "1/s", 1e6 / s[0]);
  }
  if (rc == 0) {
    char blob[4096];
    for (size_t i = 0; i < sizeof blob; i++) blob[i] = (char)('a' + (i * 31 + (size_t)seq) % 26);
    rc = xp_run_artifact(ctx->run, "probe.txt", "text/plain", blob, sizeof blob);
  }
  free(s);
  return rc;
}

static const xp_kind probe_kind = {.name = "reliability_probe", .summary = "records a known amount of data",
                                   .fields = probe_fields, .execute = probe_execute};

static xp_spec *probe_spec(int ncases, int nsamples, int64_t pause_us, int64_t seq) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "kind", probe_kind.name);
  cJSON_AddNumberToObject(root, "cases", ncases);
  cJSON_AddNumberToObject(root, "samples", nsamples);
  cJSON_AddNumberToObject(root, "pause_us", (double)pause_us);
  cJSON_AddNumberToObject(root, "seq", (double)seq);
  return xp_spec_from_json(root, "<reliability>", ".");
}

/* Record n runs (n == 0: until killed or interrupted). Returns the first failure's code. */
static int record(const char *path, long n, int ncases, int nsamples, int64_t pause_us) {
  int rc = 0;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  if (!db) return rc;
  int64_t seq0 = (int64_t)getpid() * 1000000;
  for (long i = 0; (n == 0 || i < n) && !xp_interrupted(); i++) {
    xp_spec *spec = probe_spec(ncases, nsamples, pause_us, seq0 + i);
    char uuid[37];
    int r = xp_validate_spec(&probe_kind, spec);
    if (r == 0) r = xp_execute_spec(db, &probe_kind, spec, 0, NULL, uuid);
    xp_spec_free(spec);
    if (r != 0) {
      if (!rc) rc = r;
      continue; /* keep going: the caller counts what was lost */
    }
    printf("ok %s\n", uuid);
    fflush(stdout);
  }
  xp_db_close(db);
  return rc;
}

/* Take the write lock and keep it: another process "holding the database" for a while. */
static int hold(const char *path, double seconds) {
  int rc = 0;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
  if (!db) return rc;
  if ((rc = xp_db_begin(db)) != 0) { xp_db_close(db); return rc; }
  printf("held\n");
  fflush(stdout);
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
  xp_db_rollback(db);
  xp_db_close(db);
  return 0;
}

/* ---- checking the invariants ---- */

static int64_t scalar(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else fprintf(stderr, "check: %s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return v;
}

/* Every table other than runs and run_meta that names a run (run_id), plus the tables that
** hang off cases (metrics, samples): all of them hold results, written in the results
** transaction. A per-run row count over each, as SQL. */
static char *result_counts_sql(sqlite3 *db, int *ntables) {
  sqlite3_stmt *st = NULL;
  char *sql = xp_strdup("SELECT r.id, r.status, r.spec_sha256, r.host, r.boot_id, r.pid");
  *ntables = 0;
  sqlite3_prepare_v2(db,
      "SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND m.name NOT IN ('runs', 'run_meta')"
      " AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'run_id') ORDER BY m.name",
      -1, &st, NULL);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    char *next = xp_asprintf("%s, (SELECT count(*) FROM \"%s\" x WHERE x.run_id = r.id) AS \"%s\"", sql, t, t);
    free(sql);
    sql = next;
    (*ntables)++;
  }
  sqlite3_finalize(st);
  char *next = xp_asprintf("%s, (SELECT count(*) FROM metrics m JOIN cases c ON c.id = m.case_id WHERE c.run_id = r.id),"
                           " (SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = r.id)"
                           " FROM runs r ORDER BY r.spec_sha256, r.id", sql);
  free(sql);
  *ntables += 2;
  return next;
}

typedef struct figures {
  long runs, ok, failed, aborted, running, incomplete, violations;
} figures;

static void violation(figures *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int violations_expected; /* the self-test forges damage: say so, not "VIOLATION" */

static void violation(figures *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(violations_expected ? "check (expected, forged): " : "check: VIOLATION: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  f->violations++;
}

/* The probe's ok runs must hold exactly cases x (1 metric with n samples + 1 value). */
static void check_probe_runs(sqlite3 *db, figures *f) {
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2(db,
      "SELECT r.uuid, json_extract(r.spec_json, '$.cases'), json_extract(r.spec_json, '$.samples'),"
      " (SELECT count(*) FROM cases c WHERE c.run_id = r.id),"
      " (SELECT count(*) FROM metrics m JOIN cases c ON c.id = m.case_id WHERE c.run_id = r.id),"
      " (SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id = r.id),"
      " (SELECT count(*) FROM artifacts a WHERE a.run_id = r.id),"
      " (SELECT count(*) FROM metrics m JOIN cases c ON c.id = m.case_id WHERE c.run_id = r.id"
      "    AND m.name = 'latency' AND m.n = json_extract(r.spec_json, '$.samples'))"
      " FROM runs r WHERE r.kind = 'reliability_probe' AND r.status = 'ok'", -1, &st, NULL);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const char *uuid = (const char *)sqlite3_column_text(st, 0);
    int64_t c = sqlite3_column_int64(st, 1), n = sqlite3_column_int64(st, 2);
    int64_t cases = sqlite3_column_int64(st, 3), metrics = sqlite3_column_int64(st, 4);
    int64_t samples = sqlite3_column_int64(st, 5), arts = sqlite3_column_int64(st, 6);
    int64_t full = sqlite3_column_int64(st, 7);
    if (cases != c || metrics != 2 * c || samples != c * n || arts != 1 || full != c)
      violation(f, "ok run %s is partial: %lld/%lld cases, %lld/%lld metrics, %lld/%lld samples, %lld/1 artifacts",
                uuid, (long long)cases, (long long)c, (long long)metrics, (long long)(2 * c),
                (long long)samples, (long long)(c * n), (long long)arts);
  }
  sqlite3_finalize(st);
}

static int check(const char *path, int same_results) {
  sqlite3 *db = NULL;
  figures f = {0};
  if (access(path, F_OK) != 0) { /* killed before it created the file: nothing to break */
    printf("runs=0 ok=0 failed=0 aborted=0 incomplete=0 running=0 violations=0 (no database)\n");
    return 0;
  }
  /* Opened as the next user of the database would open it: able to roll back a hot journal
  ** or rebuild a WAL index that a killed writer left (xp does this for its readers too), but
  ** changing nothing else: query_only, and no checkpoint when closing. */
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    fprintf(stderr, "check: cannot open %s: %s\n", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return 1;
  }
  sqlite3_busy_timeout(db, XP_BUSY_TIMEOUT_MS);
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL);
  while (st && sqlite3_step(st) == SQLITE_ROW)
    if (strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0)
      violation(&f, "integrity_check: %s", sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (!st) violation(&f, "integrity_check could not run: %s", sqlite3_errmsg(db));
  int64_t fk = scalar(db, "SELECT count(*) FROM pragma_foreign_key_check");
  if (fk != 0) violation(&f, "foreign_key_check: %lld problems", (long long)fk);

  /* A database killed while being created may hold no schema yet: nothing to check. */
  if (scalar(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'runs'") == 0) {
    sqlite3_close(db);
    printf("runs=0 ok=0 failed=0 aborted=0 incomplete=0 running=0 violations=%ld\n", f.violations);
    return f.violations ? 1 : 0;
  }
  int ncounts = 0;
  char *sql = result_counts_sql(db, &ncounts);
  st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    violation(&f, "cannot list runs: %s", sqlite3_errmsg(db));
  char prev_sha[65] = "";
  int64_t *ref = xp_xcalloc((size_t)ncounts, sizeof *ref);
  int have_ref = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *status = (const char *)sqlite3_column_text(st, 1);
    const char *sha = (const char *)sqlite3_column_text(st, 2);
    const char *eff = xp_effective_status(status, (const char *)sqlite3_column_text(st, 3),
                                          (const char *)sqlite3_column_text(st, 4),
                                          sqlite3_column_int64(st, 5));
    int64_t total = 0;
    for (int i = 0; i < ncounts; i++) total += sqlite3_column_int64(st, 6 + i);
    f.runs++;
    if (strcmp(status, "ok") == 0) f.ok++;
    else if (strcmp(status, "failed") == 0) f.failed++;
    else if (strcmp(status, "aborted") == 0) f.aborted++;
    else if (strcmp(eff, "incomplete") == 0) f.incomplete++;
    else f.running++;
    int keeps_results = strcmp(status, "ok") == 0 || strcmp(status, "aborted") == 0;
    if (!keeps_results && total != 0)
      violation(&f, "run %lld is %s but holds %lld result rows", (long long)id, eff, (long long)total);
    if (same_results && strcmp(status, "ok") == 0) {
      if (!have_ref || strcmp(prev_sha, sha) != 0) {
        snprintf(prev_sha, sizeof prev_sha, "%s", sha);
        for (int i = 0; i < ncounts; i++) ref[i] = sqlite3_column_int64(st, 6 + i);
        have_ref = 1;
      } else {
        for (int i = 0; i < ncounts; i++)
          if (sqlite3_column_int64(st, 6 + i) != ref[i])
            violation(&f, "ok run %lld holds %lld rows in %s where an ok run of the same spec holds %lld",
                      (long long)id, (long long)sqlite3_column_int64(st, 6 + i),
                      sqlite3_column_name(st, 6 + i) ? sqlite3_column_name(st, 6 + i) : "?",
                      (long long)ref[i]);
      }
    }
  }
  sqlite3_finalize(st);
  free(ref);
  free(sql);
  check_probe_runs(db, &f);
  sqlite3_close(db);
  printf("runs=%ld ok=%ld failed=%ld aborted=%ld incomplete=%ld running=%ld violations=%ld\n",
         f.runs, f.ok, f.failed, f.aborted, f.incomplete, f.running, f.violations);
  return f.violations ? 1 : 0;
}

/* ---- the unit test: the same tools, small ---- */

static char tmpdir[] = "/tmp/xp-reliability-XXXXXX";

static void child_records(const char *path, int n) {
  xp_error_quiet(1);
  freopen("/dev/null", "w", stdout);
  _exit(record(path, n, 3, 20, 0) == 0 ? 0 : 1);
}

static int self_test(void) {
  if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
  char *path = xp_asprintf("%s/x.db", tmpdir);
  xp_error_quiet(1);

  /* Several processes at once, from an empty folder: all runs arrive. */
  enum { PROCS = 4, RUNS = 10 };
  pid_t kids[PROCS];
  for (int i = 0; i < PROCS; i++)
    if ((kids[i] = fork()) == 0) child_records(path, RUNS);
  for (int i = 0; i < PROCS; i++) {
    int status = 0;
    waitpid(kids[i], &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }

  /* A process killed while its results transaction is open leaves its run 'running' with no
  ** results, and that run reads as incomplete once the process is gone. */
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  pid_t victim = fork();
  if (victim == 0) {
    int rc = 0;
    sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc);
    xp_spec *spec = probe_spec(1, 5, 0, 1);
    xp_run_opts o = {probe_kind.name, 0, spec, NULL, 0};
    xp_run *run = NULL;
    if (!db || xp_run_begin(db, &o, &run) != 0) _exit(2);
    int64_t id = xp_run_case(run, "half", NULL, "ok", NULL);
    double v[5] = {1, 2, 3, 4, 5};
    xp_run_metric(run, id, "latency", "us", v, 5);
    (void)!write(pipefd[1], "x", 1);
    pause(); /* killed here, mid-transaction */
    _exit(3);
  }
  char c;
  CHECK(read(pipefd[0], &c, 1) == 1);
  kill(victim, SIGKILL);
  waitpid(victim, NULL, 0);

  sqlite3 *db = NULL;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
  CHECK_EQ_INT(scalar(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), PROCS * RUNS);
  CHECK_EQ_INT(scalar(db, "SELECT count(*) FROM runs WHERE status = 'running'"), 1);
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.pid = %d", (int)victim);
  CHECK_EQ_INT(scalar(db, sql), 0);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2(db, "SELECT status, host, boot_id, pid FROM runs WHERE status = 'running'", -1, &st, NULL);
  CHECK(st && sqlite3_step(st) == SQLITE_ROW);
  if (st) CHECK_EQ_STR(xp_effective_status((const char *)sqlite3_column_text(st, 0),
                                           (const char *)sqlite3_column_text(st, 1),
                                           (const char *)sqlite3_column_text(st, 2),
                                           sqlite3_column_int64(st, 3)), "incomplete");
  sqlite3_finalize(st);
  sqlite3_close(db);

  /* The checker agrees, and flags a partial ok run when one is forged. */
  freopen("/dev/null", "w", stdout);
  CHECK_EQ_INT(check(path, 1), 0);
  CHECK(sqlite3_open(path, &db) == SQLITE_OK);
  /* Finished runs are guarded by triggers (append-only history): lift them to forge damage. */
  sqlite3_stmt *tr = NULL;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'trigger'", -1, &tr, NULL);
  char *drops = xp_strdup("");
  while (tr && sqlite3_step(tr) == SQLITE_ROW) {
    char *next = xp_asprintf("%sDROP TRIGGER \"%s\";", drops, sqlite3_column_text(tr, 0));
    free(drops);
    drops = next;
  }
  sqlite3_finalize(tr);
  CHECK(sqlite3_exec(db, drops, NULL, NULL, NULL) == SQLITE_OK);
  free(drops);
  if (sqlite3_exec(db, "DELETE FROM samples WHERE (case_id, metric, seq) IN (SELECT case_id, metric, seq FROM samples LIMIT 1)", NULL, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "forging a partial run: %s\n", sqlite3_errmsg(db));
    check_failures++;
  }
  sqlite3_close(db);
  violations_expected = 1;
  CHECK_EQ_INT(check(path, 1), 1);

  char *cmd = xp_asprintf("rm -rf '%s'", tmpdir);
  CHECK(system(cmd) == 0);
  free(cmd);
  free(path);
  CHECK_DONE();
}

int main(int argc, char **argv) {
  if (argc < 2) return self_test();
  xp_install_signal_handlers();
  if (strcmp(argv[1], "record") == 0 && argc >= 4) {
    announce = 1;
    return record(argv[2], atol(argv[3]), argc > 4 ? atoi(argv[4]) : 8, argc > 5 ? atoi(argv[5]) : 100,
                  argc > 6 ? atoll(argv[6]) : 0);
  }
  if (strcmp(argv[1], "hold") == 0 && argc == 4) return hold(argv[2], atof(argv[3]));
  if (strcmp(argv[1], "check") == 0 && argc >= 3)
    return check(argv[2], argc > 3 && strcmp(argv[3], "--same-results") == 0);
  fprintf(stderr, "usage: %s [record DB N [CASES SAMPLES PAUSE_US] | hold DB SECONDS | check DB [--same-results]]\n", argv[0]);
  return 2;
}
