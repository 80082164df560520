/* Helpers shared by xp's C tests (tests/unit): one value read with SQL, a scratch folder that
** a test makes at its start and removes at its end, and the repository's test data. Each test
** is its own executable, so these are static and a test compiles only what it calls. */
#ifndef XP_TESTUTIL_H
#define XP_TESTUTIL_H
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "db.h"
#include "query.h"
#include "xp.h"

/* ---- one value: the first column of the first row ---- */

/* As an integer; -1 when there is no row (or the SQL does not prepare). */
static inline int64_t one_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* As a double; -1, said on stderr with SQLite's reason, when there is no row. */
static inline double one_double(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  double v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_double(st, 0);
  else
    fprintf(stderr, "query gave no row: %s (%s)\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return v;
}

/* As text the caller frees; NULL when there is no row or the value is NULL. */
static inline char *one_text(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  char *v = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0))
    v = xp_strdup((const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return v;
}

/* ---- a fresh database ---- */

/* A new xp database at a path made from template (mkstemp's "/tmp/xp-test-NAME-XXXXXX", filled
** in place; the file is left for xp to create, so the schema is made as for a first run); NULL
** when it cannot be made. */
static inline sqlite3 *test_db_new(char *template) {
  int fd = mkstemp(template), rc;
  if (fd < 0) return NULL;
  close(fd);
  unlink(template);
  return xp_db_open(template, XP_DB_READWRITE, &rc);
}

/* ---- a query file's rows ---- */

enum { TEST_ROWS = 16, TEST_ROW_LEN = 256 };
/* Rows as text: each the columns named in cols, in that order, joined by '|' (NULL as empty). */
typedef struct test_rows {
  const char *const *cols;
  size_t ncols;
  int n;
  char row[TEST_ROWS][TEST_ROW_LEN];
} test_rows;

static int test_rows_collect(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  test_rows *out = arg;
  for (out->n = 0; out->n < TEST_ROWS && sqlite3_step(st) == SQLITE_ROW; out->n++) {
    char *r = out->row[out->n];
    r[0] = 0;
    for (size_t w = 0; w < out->ncols; w++)
      for (int i = 0; i < sqlite3_column_count(st); i++)
        if (strcmp(sqlite3_column_name(st, i), out->cols[w]) == 0) {
          const unsigned char *t = sqlite3_column_text(st, i);
          snprintf(r + strlen(r), TEST_ROW_LEN - strlen(r), "%s%s", w ? "|" : "", t ? (const char *)t : "");
        }
  }
  return 0;
}

/* $XP_SRC/queries/NAME run on db through xp's query path, its rows into *out (cols and ncols set
** by the caller). Returns the query's exit code, 1 where the file cannot be read. */
static inline int test_query_rows(sqlite3 *db, const char *name, test_rows *out) {
  char *path = xp_asprintf("%s/queries/%s", getenv("XP_SRC") ? getenv("XP_SRC") : "../..", name);
  char *sql = xp_read_file(path, NULL);
  int rc = sql ? xp_query_text(db, sql, path, NULL, 0, test_rows_collect, out) : 1;
  if (!sql) fprintf(stderr, "%s: cannot read\n", path);
  free(sql);
  free(path);
  return rc;
}

/* Whether out holds row. */
static inline int test_has_row(const test_rows *out, const char *row) {
  for (int i = 0; i < out->n; i++)
    if (strcmp(out->row[i], row) == 0) return 1;
  return 0;
}

/* ---- the scratch folder ---- */

static char test_dir[256];

/* Make test_dir from a mkdtemp template ("/tmp/xp-test-NAME-XXXXXX"). Returns 0 on failure. */
static inline int test_dir_make(const char *template) {
  snprintf(test_dir, sizeof test_dir, "%s", template);
  return mkdtemp(test_dir) != NULL;
}

/* NAME inside test_dir; the caller frees. */
static inline char *test_path(const char *name) { return xp_asprintf("%s/%s", test_dir, name); }

/* Write TEXT to NAME inside test_dir; returns its path, which the caller frees. */
static inline char *test_write_file(const char *name, const char *text) {
  char *p = test_path(name);
  FILE *f = fopen(p, "w");
  fputs(text, f);
  fclose(f);
  return p;
}

/* DIR/FILE inside test_dir holding TEXT, DIR made with its parents (a laid-out sysfs tree). */
static inline void test_put_file(const char *dir, const char *file, const char *text) {
  char *cmd = xp_asprintf("mkdir -p '%s/%s'", test_dir, dir);
  if (system(cmd) != 0) fprintf(stderr, "mkdir failed: %s\n", cmd);
  free(cmd);
  char *name = xp_asprintf("%s/%s", dir, file);
  free(test_write_file(name, text));
  free(name);
}

/* Remove test_dir and everything in it; a failure is said, not fatal. */
static inline void test_dir_remove(void) {
  char *cmd = xp_asprintf("rm -rf '%s'", test_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", test_dir);
  free(cmd);
}

/* ---- the repository's test data: tests/data/SUB/NAME under $XP_SRC ---- */

/* Its path; the caller frees. */
static inline char *test_data_path(const char *sub, const char *name) {
  const char *src = getenv("XP_SRC");
  return xp_asprintf("%s/tests/data/%s/%s", src ? src : "../..", sub, name);
}

/* Its whole text (the caller frees); a test without it is skipped (exit 77). */
static inline char *test_data(const char *sub, const char *name, size_t *len) {
  char *path = test_data_path(sub, name);
  char *text = xp_read_file(path, len);
  if (!text) {
    fprintf(stderr, "skipped: %s not readable (set XP_SRC)\n", path);
    exit(77);
  }
  free(path);
  return text;
}
#endif
