/*
** Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c) and by their replay in every build
** (tests/unit/test_fuzz_replay.c): inputs as files, and importers driven through the real run
** lifecycle against an in-memory xp database, so that a fuzz input meets exactly the code a
** user's file meets.
*/
#ifndef XP_FUZZ_COMMON_H
#define XP_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "db.h"
#include "kind.h"
#include "xp.h"

/* A property the code must keep was broken: report and abort, which libFuzzer records as a
** crash with its input. */
#define FUZZ_ASSERT(cond, ...) do { if (!(cond)) { fprintf(stderr, "fuzz: property broken: " \
  __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

/* Errors are expected by the thousand: keep them quiet, and the kinds' printed summaries too. */
static inline void fuzz_quiet(void) {
  static int done;
  if (done) return;
  done = 1;
  xp_error_quiet(1);
  if (!freopen("/dev/null", "w", stdout)) abort();
}

/* Write the input to a file of this process with the given suffix (importers and the spec
** loader choose the format by name, as they do for users). The name stays the same, so the
** file is simply overwritten by the next input. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
  static char dir[256], path[320];
  if (!dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/xp-fuzz-%d", t && *t ? t : "/tmp", (int)getpid());
    char *cmd = xp_asprintf("mkdir -p '%s'", dir);
    if (system(cmd) != 0) abort();
    free(cmd);
  }
  snprintf(path, sizeof path, "%s/input%s", dir, suffix);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
  return path;
}

/* The first byte that is not whitespace, or 0. */
static inline int fuzz_first_char(const uint8_t *data, size_t size) {
  for (size_t i = 0; i < size; i++)
    if (data[i] != ' ' && data[i] != '\n' && data[i] != '\r' && data[i] != '\t') return data[i];
  return 0;
}

/* An in-memory xp database, opened (and migrated) again every fuzz_db_turn inputs so that the
** runs of a long fuzzing session do not pile up. It turns between inputs (fuzz_next_input),
** never between the imports of one: fuzz_import_crlf's CRLF import must meet the history its LF
** import met. vllm-bench leaves out a result an earlier import recorded from another file
** (vb_history.c); where the database turned between the two, the CRLF import, in a fresh one,
** recorded the result the LF import had left out, a property broken by the target itself
** (regressions/vllm_bench/property-crlf-database-turned-between-lf-and-crlf.json). */
static sqlite3 *fuzz_db_open; /* the one fuzz_db() returns */
static int fuzz_db_inputs;    /* inputs since it was opened */
static int fuzz_db_turn = 1000; /* inputs a database: two imports each at most, 2000 runs, which its pages
                                ** hold (test_fuzz_replay.c turns it faster) */

/* Pages of the database, before SQLite starts: FUZZ_DB_PAGES slots of a buffer of the process
** (SQLITE_CONFIG_PAGECACHE), more than its 2000 runs fill. libFuzzer runs an input again, then
** checks the whole heap for leaks (LSan), whenever the input made more allocations than it
** freed; a run that grew the in-memory database by a malloc'd page did, so half the inputs
** were run twice and scanned. Pages past the buffer are malloc'd, as before. */
enum { FUZZ_DB_PAGES = 8192, FUZZ_DB_PAGE_SIZE = 4096 };

static inline void fuzz_db_pages(void) {
  static char *pages;
  int header = 0;
  if (pages) return;
  sqlite3_shutdown(); /* no connection is open yet: the configuration applies from here */
  FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &header) == SQLITE_OK, "no page header size");
  pages = xp_xmalloc((size_t)FUZZ_DB_PAGES * (FUZZ_DB_PAGE_SIZE + header));
  FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_PAGECACHE, pages, FUZZ_DB_PAGE_SIZE + header, FUZZ_DB_PAGES) == SQLITE_OK,
              "cannot give SQLite its page buffer");
}

/* A new input begins: the database is closed after its fuzz_db_turn-th, for fuzz_db to open
** afresh. */
static inline void fuzz_next_input(void) {
  if (!fuzz_db_open || ++fuzz_db_inputs < fuzz_db_turn) return;
  xp_db_close(fuzz_db_open);
  fuzz_db_open = NULL;
  fuzz_db_inputs = 0;
}

static inline sqlite3 *fuzz_db(void) {
  if (!fuzz_db_open) {
    int rc = 0;
    fuzz_db_pages();
    fuzz_db_open = xp_db_open(":memory:", XP_DB_READWRITE, &rc);
    FUZZ_ASSERT(fuzz_db_open, "cannot open an in-memory database: %s", xp_last_error());
  }
  return fuzz_db_open;
}

static inline int64_t fuzz_count(sqlite3 *db, const char *sql, int64_t id) {
  sqlite3_stmt *st = NULL;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return n;
}

/* Import one file with an importer, as `xp import NAME FILE` does: validate, begin the run,
** execute, finish. The lifecycle's promise is checked on every input: the run ends ok exactly
** when the importer said so, and a failed run keeps no results. Returns the importer's code;
** -1 when this build has no such importer. *run_id: the run recorded, 0 when none began. */
static inline int fuzz_import_run(const char *import_name, const char *path, int64_t *run_id) {
  const xp_kind *k = xp_importer_find(import_name);
  *run_id = 0;
  if (!k) return -1;
  fuzz_quiet();
  cJSON *root = cJSON_CreateObject(), *files = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "kind", k->name);
  cJSON_AddItemToArray(files, cJSON_CreateString(path));
  cJSON_AddItemToObject(root, "files", files);
  xp_spec *spec = xp_spec_from_json(root, "<fuzz>", "/");
  int rc = xp_validate_spec(k, spec);
  if (rc != 0) {
    xp_spec_free(spec);
    return rc;
  }
  sqlite3 *db = fuzz_db();
  xp_run_opts o = {k->records_as ? k->records_as : k->name, 1, spec, NULL, 0};
  xp_run *run = NULL;
  FUZZ_ASSERT(xp_run_begin(db, &o, &run) == 0, "xp_run_begin failed: %s", xp_last_error());
  int64_t id = xp_run_id(run);
  *run_id = id;
  xp_clear_error();
  xp_ctx ctx = {db, run, spec, stdout, 1, 0, 1};
  rc = k->execute(&ctx);
  FUZZ_ASSERT(rc != 0 || !*xp_last_error() || xp_last_error_code() == 0,
              "%s returned 0 after reporting an error: %s", import_name, xp_last_error());
  int frc = xp_run_finish(run, rc == 0 ? XP_RUN_OK : XP_RUN_FAILED, rc ? xp_last_error() : NULL);
  FUZZ_ASSERT(frc == 0, "finishing the run failed: %s", xp_last_error());
  int64_t ok = fuzz_count(db, "SELECT count(*) FROM runs WHERE id = ?1 AND status = 'ok'", id);
  FUZZ_ASSERT(ok == (rc == 0), "%s returned %d but the run is %s", import_name, rc, ok ? "ok" : "not ok");
  if (rc != 0) {
    int64_t kept = fuzz_count(db, "SELECT (SELECT count(*) FROM cases WHERE run_id = ?1)"
                                  " + (SELECT count(*) FROM artifacts WHERE run_id = ?1)"
                                  " + (SELECT count(*) FROM run_gpus WHERE run_id = ?1)", id);
    FUZZ_ASSERT(kept == 0, "a failed %s run kept %lld result rows", import_name, (long long)kept);
  }
  xp_spec_free(spec);
  xp_clear_error(); /* its message, malloc'd, would outlive the input (see fuzz_db_pages) */
  return rc;
}

static inline int fuzz_import(const char *import_name, const char *path) {
  int64_t id;
  fuzz_next_input();
  return fuzz_import_run(import_name, path, &id);
}

/* What a run recorded from its file, as text: its cases and their samples, and the facts it
** read from the file (run_meta of source 'trace'). Malloc'd. */
static inline char *fuzz_results(int64_t id) {
  static const char *const sql =
      "SELECT coalesce(group_concat(r, char(10)), '') FROM ("
      " SELECT 'case ' || c.seq || ' ' || c.name || ' ' || c.params || ' ' || c.status || ' ' ||"
      "  coalesce(c.note, '') || ' ' || coalesce(s.metric, '') || ' ' || coalesce(s.seq, '') || ' ' ||"
      "  coalesce(quote(s.value), '') AS r, 0 AS k, c.seq AS a, s.metric AS b, s.seq AS d"
      " FROM cases c LEFT JOIN samples s ON s.case_id = c.id WHERE c.run_id = ?1"
      " UNION ALL SELECT 'meta ' || key || ' = ' || coalesce(value, 'NULL'), 1, 0, key, 0"
      " FROM run_meta WHERE run_id = ?1 AND source = 'trace'"
      " ORDER BY k, a, b, d)";
  sqlite3_stmt *st = NULL;
  char *out = NULL;
  if (id == 0) return xp_strdup(""); /* refused before a run began */
  if (sqlite3_prepare_v2(fuzz_db_open, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) out = xp_strdup((const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  FUZZ_ASSERT(out, "cannot read run %lld's results", (long long)id);
  return out;
}

/* Import the input as a file with the given suffix (fuzz_import), and check that a text file
** saved on Windows, or passed through a tool that writes CRLF, holds the same results: the
** input with every "\n" written "\r\n" ends alike and records the same. Inputs holding a '\r'
** already are not converted (a lone CR is no line end of either form). */
static inline int fuzz_import_crlf(const char *import_name, const uint8_t *data, size_t size,
                                   const char *suffix) {
  int64_t a, b;
  fuzz_next_input();
  int rca = fuzz_import_run(import_name, fuzz_file(data, size, suffix), &a);
  if (rca < 0 || memchr(data, '\r', size) || !memchr(data, '\n', size)) return rca;
  uint8_t *crlf = xp_xmalloc(2 * size + 1);
  size_t n = 0;
  for (size_t i = 0; i < size; i++) {
    if (data[i] == '\n') crlf[n++] = '\r';
    crlf[n++] = data[i];
  }
  char *ra = fuzz_results(a);
  int rcb = fuzz_import_run(import_name, fuzz_file(crlf, n, suffix), &b);
  char *rb = fuzz_results(b);
  FUZZ_ASSERT(rca == rcb, "%s: the file with CRLF line ends returned %d, with LF %d", import_name, rcb, rca);
  FUZZ_ASSERT(strcmp(ra, rb) == 0, "%s: the file with CRLF line ends records differently:\n--- LF\n%.3000s\n"
              "--- CRLF\n%.3000s", import_name, ra, rb);
  free(ra);
  free(rb);
  free(crlf);
  return rca;
}

/* For LLVMFuzzerInitialize of importer targets: a build without the importer cannot fuzz it. */
static inline void fuzz_require_importer(const char *import_name) {
  if (!xp_importer_find(import_name)) {
    fprintf(stderr, "fuzz: this build has no '%s' importer\n", import_name);
    exit(77);
  }
}
#endif
