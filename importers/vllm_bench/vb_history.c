/*
** A result imported already, by another import of other files: not recorded again.
**
** vllm bench sweep serve writes each run of a point to run=N.json and then the same objects
** again, as a list, to the point's summary.json (run_comb of vllm/benchmarks/sweep/serve.py,
** commit 0031557: json.dump of the run_data dicts it read back from the run files); vllm bench
** serve --append-result, and SGLang's benchmarks, add a run's result to a file that holds the
** earlier ones. Given in one import, load_all refuses such a pair (result_twice). Imported
** apart, each was a run of its own: the measurement counted twice in every reader of the
** history, and queries/regressions.sql compared a point with itself.
**
** Each import records the digests of its results (vb_result.sum, the object as read, whatever
** its indent) as run_meta import.vllm_bench.results, a line "SHA256 FILE:LINE" each (the file's
** name without its folder, as the sweep's folders name points, not runs); the key is
** under import., facts of the import that xp compare leaves out. A later import holding one of
** them in another file does not record it again: a warning names the run that has it, and the
** import records the rest (the run=1.json that summary.json adds, the lines appended since); one
** whose every result is imported already is refused, naming that run. A file imported again,
** alone or with others (xp rerun, a corrected --set, a script run twice), is: the run that has the
** result read it from a file of the same contents, an import the user repeats on purpose, and
** the queries count the same files imported again once, the latest (XP_SQL_REIMPORTED).
*/
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "kind.h"
#include "vb_parse.h"
#include "xp.h"

#define RESULTS_KEY "import.vllm_bench.results"

/* Where the earlier import read the result of digest sum: "FILE:LINE" from its line of
** import.vllm_bench.results (a new string). */
static char *where_recorded(const char *lines, const char *sum) {
  const char *at = strstr(lines, sum);
  if (!at) return xp_strdup("?");
  at += strlen(sum) + 1;
  return xp_asprintf("%.*s", (int)strcspn(at, "\n"), at);
}

/* The run and file:line of an earlier import that holds result r from a file of other contents,
** into *uuid and *where (new strings); 0 where none, 1 where one does, or XP_EXIT_DB negated. */
static int imported_already(xp_ctx *ctx, sqlite3_stmt *st, const vb_result *r, const char *file_sum, char **uuid,
                            char **where) {
  xp_bind_text(st, 1, xp_run_uuid(ctx->run));
  xp_bind_text(st, 2, r->sum);
  xp_bind_text(st, 3, file_sum);
  const int step = sqlite3_step(st);
  if (step == SQLITE_ROW) {
    *uuid = xp_strdup((const char *)sqlite3_column_text(st, 0));
    *where = where_recorded((const char *)sqlite3_column_text(st, 1), r->sum);
  } else if (step != SQLITE_DONE)
    xp_error(XP_EXIT_DB, "reading the results imported already: %s", sqlite3_errmsg(ctx->db));
  sqlite3_reset(st);
  return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -XP_EXIT_DB;
}

/* Keep the results of r whose keep[] is set, in order; free the others. */
static void keep_only(vb_result **r, size_t *n, const unsigned char *keep) {
  vb_result *kept = xp_xcalloc(*n, sizeof *kept), *dropped = xp_xcalloc(*n, sizeof *dropped);
  size_t nk = 0, nd = 0;
  for (size_t i = 0; i < *n; i++) {
    if (keep[i]) kept[nk++] = (*r)[i];
    else dropped[nd++] = (*r)[i];
  }
  vb_results_free(dropped, nd);
  free(*r);
  *r = kept;
  *n = nk;
}

int vb_drop_imported(xp_ctx *ctx, vb_result **r, size_t *n) {
  char file_sum[65] = "", *uuid = NULL, *where = NULL;
  unsigned char *keep = xp_xcalloc(*n ? *n : 1, 1);
  size_t first = 0, again = 0;
  sqlite3_stmt *st = xp_db_prepare(
      ctx->db, "SELECT r.uuid, m.value FROM run_meta m JOIN runs r ON r.id = m.run_id"
               " WHERE m.key = '" RESULTS_KEY "' AND r.status = 'ok' AND r.uuid <> ?1 AND instr(m.value, ?2) > 0"
               "   AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.run_id = r.id AND a.sha256 = ?3)"
               " ORDER BY r.id LIMIT 1");
  int rc = st ? 0 : XP_EXIT_DB;
  for (size_t i = 0; i < *n && rc == 0; i++) {
    const vb_result *x = &(*r)[i];
    if ((i == 0 || strcmp(x->file, (*r)[i - 1].file) != 0) && xp_file_sha256(x->file, file_sum) != 0)
      rc = xp_error_at(XP_EXIT_USAGE, x->file, 0, "cannot read it again");
    char *u = NULL, *w = NULL;
    const int found = rc ? 0 : imported_already(ctx, st, x, file_sum, &u, &w);
    if (found < 0) rc = -found;
    keep[i] = found == 0;
    if (found == 1 && again++ == 0) {
      first = i, uuid = u, where = w;
      continue;
    }
    free(u);
    free(w);
  }
  sqlite3_finalize(st);
  const vb_result *f = &(*r)[first];
  if (rc == 0 && again && again == *n)
    rc = xp_error_at(XP_EXIT_USAGE, f->file, f->line, "the same result as %s, imported already as run %.8s%s: it "
                     "would count twice (vllm bench sweep's summary.json lists its run=N.json files' results again; "
                     "--append-result adds to a file that holds the earlier ones); nothing given is new", where, uuid,
                     again > 1 ? ", and so is every other result given" : "");
  else if (rc == 0 && again)
    xp_warn("%s:%d: the same result as %s, imported already as run %.8s: not recorded again, so that none counts "
            "twice (%zu of the %zu results given; the rest recorded)", f->file, f->line, where, uuid, again, *n);
  if (rc == 0 && again) keep_only(r, n, keep);
  free(keep);
  free(uuid);
  free(where);
  return rc;
}

int vb_record_digests(xp_run *run, const vb_result *r, size_t n) {
  size_t len = 1;
  for (size_t i = 0; i < n; i++) len += strlen(r[i].sum) + strlen(r[i].file) + 24;
  char *lines = xp_xcalloc(len, 1);
  for (size_t i = 0, at = 0; i < n; i++) {
    const char *base = strrchr(r[i].file, '/');
    at += (size_t)snprintf(lines + at, len - at, "%s%s %s:%d", i ? "\n" : "", r[i].sum, base ? base + 1 : r[i].file,
                           r[i].line);
  }
  const int rc = xp_run_meta(run, RESULTS_KEY, lines, "detected"); /* as import.*: xp's own */
  free(lines);
  return rc;
}
