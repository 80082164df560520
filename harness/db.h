/*
** The results database: opening, migrating, and refusing what is not ours.
** An xp database carries PRAGMA application_id = XP_APPLICATION_ID and user_version = the
** number of the last migration applied (schema/NNN_*.sql, applied in order in one transaction).
*/
#ifndef XP_DB_H
#define XP_DB_H
#include <sqlite3.h>
#include <stddef.h>

#define XP_APPLICATION_ID 0x78704442 /* "xpDB" */
#define XP_BUSY_TIMEOUT_MS 30000

enum xp_db_mode {
  XP_DB_READWRITE, /* create if missing, migrate to the current schema */
  XP_DB_READONLY,  /* must exist and be current or older-but-readable; nothing is written */
  XP_DB_EXISTING,  /* as READWRITE, but must exist: a command about a history already there (a
                   ** dry run, verify --seal) must not leave a new empty database behind */
  XP_DB_DRY,       /* as EXISTING, for a dry run: returns inside a write transaction (BEGIN
                   ** IMMEDIATE) that holds the migration of an older schema too, which the
                   ** caller rolls back: the dry run writes nothing; a database xp cannot
                   ** write is copied to a temporary file, and the dry run works on that */
  XP_DB_CHECK      /* as READONLY, for what a writing command checks before it writes (xp rerun's
                   ** run, xp decide's evidence): no warning that an older schema is left as it
                   ** is, since the write that follows the checks migrates it */
};

/* Resolve the database path: --db, else $XP_DB, else ./xp.db. */
const char *xp_db_path(const char *cli_value);
/* Open; on failure prints one line and returns NULL with *exit_code set (XP_EXIT_DB/USAGE). */
sqlite3 *xp_db_open(const char *path, enum xp_db_mode mode, int *exit_code);
void xp_db_close(sqlite3 *db);
/* Schema version this build of xp writes (the highest embedded migration). */
int xp_db_schema_version(void);
/* The schema version an open database carries (PRAGMA user_version), -1 if it cannot be read. */
int xp_db_user_version(sqlite3 *db);

/* Helpers that report SQLite errors as "xp: <path>: <sqlite message>" and return XP_EXIT_DB. */
int xp_db_exec(sqlite3 *db, const char *sql);
/* 1 when the last error is the database's, not the statement's: damaged, unreadable, locked,
** out of memory, or interrupted (SIGINT/SIGTERM on a read-only connection). Report it with
** xp_db_fail (exit 3; 130 when interrupted) rather than as the query's fault (exit 2). */
int xp_db_fault(sqlite3 *db);
int xp_db_fail(sqlite3 *db, const char *what);
/* " (the database is of schema N, ...: ... migrates it)" where msg, a statement's failure, is a
** table or column missing from a database older than this xp; "" otherwise. */
const char *xp_db_older_hint(sqlite3 *db, const char *msg);
/* Before SQLite starts (main): note the first damaged page or I/O error that any statement
** meets, which a loop may have taken for the end of its rows. xp_db_faulted: 0 where none
** came, else says it of PATH, ending "so SO" ("nothing was written"), and returns 3; 3 alone
** where xp_db_fail said a fault already. */
void xp_db_watch_faults(void);
int xp_db_faulted(const char *path, const char *so);
/* Damage found other than by a read failing (integrity_check names a page), noted as one. */
void xp_db_note_damage(void);
sqlite3_stmt *xp_db_prepare(sqlite3 *db, const char *sql);
/* Step a statement expecting SQLITE_DONE; resets it. Returns 0 or XP_EXIT_DB. */
int xp_db_step_done(sqlite3 *db, sqlite3_stmt *st);
/* On a read-only connection: every later statement reads one snapshot of the history (a read
** transaction, ended by closing), whatever commits beside it. Returns 0 or XP_EXIT_DB. */
int xp_db_snapshot(sqlite3 *db);
/* BEGIN IMMEDIATE with retries on SQLITE_BUSY beyond the busy timeout. */
int xp_db_begin(sqlite3 *db);
int xp_db_commit(sqlite3 *db);
void xp_db_rollback(sqlite3 *db);
/* Bind helpers that treat NULL pointers as SQL NULL. */
void xp_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Text s[0, n), stored as well-formed UTF-8 (xp_utf8_mended): each bad byte becomes U+FFFD. */
void xp_bind_text_n(sqlite3_stmt *st, int i, const char *s, size_t n);
#endif
