/*
** "database is locked" past the busy timeout names the runs a live xp is recording in the
** database (xp_recording_runs_hint, runref.c), where it said only "another process": the user
** could not tell which xp to wait for. A run whose recorder is gone (incomplete) is not named,
** and a holder that is no run (a sqlite3 shell here) leaves the message as it was.
*/
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "db.h"
#include "meta.h"
#include "xp.h"

static void add_running(sqlite3 *db, const char *uuid, long long pid, const char *started) {
  char *sql = sqlite3_mprintf("INSERT INTO runs (uuid, kind, status, started_at, pid, host, boot_id, spec_json,"
                              " spec_sha256) VALUES (%Q, 'serve_bench', 'running', %Q, %lld, %Q, %Q, '{}', 'x')",
                              uuid, started, pid, xp_meta_hostname(), xp_meta_boot_id());
  CHECK_EQ_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_free(sql);
}

/* The error xp_db_fail says for db's BEGIN IMMEDIATE while another connection holds the lock. */
static char *locked_message(sqlite3 *db, int *code) {
  sqlite3_busy_timeout(db, 0);
  CHECK_EQ_INT(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_BUSY);
  xp_error_quiet(1);
  *code = xp_db_fail(db, "starting a transaction");
  xp_error_quiet(0);
  return xp_strdup(xp_last_error());
}

int main(void) {
  char path[] = "/tmp/xp_test_db_locked_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  unlink(path);
  int rc = 0;
  sqlite3 *db = xp_db_open(path, XP_DB_READWRITE, &rc), *holder = NULL;
  CHECK(db != NULL);
  /* a process gone: its run is incomplete, named by no message */
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, NULL, 0);
  add_running(db, "dead0000-0000-4000-8000-000000000000", gone, "2026-12-04T10:00:00.000Z");
  CHECK_EQ_INT(sqlite3_open(path, &holder), SQLITE_OK);
  CHECK_EQ_INT(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);

  int code = 0;
  char *msg = locked_message(db, &code);
  CHECK_EQ_INT(code, XP_EXIT_DB);
  char *want = xp_asprintf("%s: starting a transaction: database is locked (another process holds the database"
                           " longer than the busy timeout)", path);
  CHECK_EQ_STR(msg, want);
  free(msg);
  free(want);

  /* two runs recording (this process stands for their xp): the newest named, the other counted */
  CHECK_EQ_INT(sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  add_running(db, "3f2a9c1e-0000-4000-8000-000000000001", getpid(), "2026-12-04T14:50:00.000Z");
  add_running(db, "9c1e3f2a-0000-4000-8000-000000000002", getpid(), "2026-12-04T14:52:01.000Z");
  CHECK_EQ_INT(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
  msg = locked_message(db, &code);
  CHECK_EQ_INT(code, XP_EXIT_DB);
  want = xp_asprintf("%s: starting a transaction: database is locked (another process holds the database"
                     " longer than the busy timeout; recording now: run 9c1e3f2a (serve_bench, xp pid %lld on %s,"
                     " since 2026-12-04T14:52:01.000Z) and 1 more)", path, (long long)getpid(), xp_meta_hostname());
  CHECK_EQ_STR(msg, want);
  free(msg);
  free(want);

  sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(holder);
  xp_db_close(db);
  char *side = xp_asprintf("%s-wal", path);
  unlink(side);
  free(side);
  side = xp_asprintf("%s-shm", path);
  unlink(side);
  free(side);
  unlink(path);
  CHECK_DONE();
}
