/*
** A result imported already, by another import of other files: refused.
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
** them in another file is refused, naming the run that has it. A file imported again, alone or
** with others (xp rerun, a corrected --set, a script run twice), is not: the run that has the
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

int vb_refuse_imported(xp_ctx *ctx, const vb_result *r, size_t n) {
  char file_sum[65] = "";
  sqlite3_stmt *st = xp_db_prepare(
      ctx->db, "SELECT r.uuid, m.value FROM run_meta m JOIN runs r ON r.id = m.run_id"
               " WHERE m.key = '" RESULTS_KEY "' AND r.status = 'ok' AND r.uuid <> ?1 AND instr(m.value, ?2) > 0"
               "   AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.run_id = r.id AND a.sha256 = ?3)"
               " ORDER BY r.id LIMIT 1");
  int rc = st ? 0 : XP_EXIT_DB;
  for (size_t i = 0; i < n && rc == 0; i++) {
    if ((i == 0 || strcmp(r[i].file, r[i - 1].file) != 0) && xp_file_sha256(r[i].file, file_sum) != 0)
      rc = xp_error_at(XP_EXIT_USAGE, r[i].file, 0, "cannot read it again");
    if (rc) break;
    xp_bind_text(st, 1, xp_run_uuid(ctx->run));
    xp_bind_text(st, 2, r[i].sum);
    xp_bind_text(st, 3, file_sum);
    const int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
      char *where = where_recorded((const char *)sqlite3_column_text(st, 1), r[i].sum);
      rc = xp_error_at(XP_EXIT_USAGE, r[i].file, r[i].line, "the same result as %s, imported already as run %.8s: "
                       "it would count twice (vllm bench sweep's summary.json lists its run=N.json files' results "
                       "again; --append-result keeps a file's earlier results); import each result once",
                       where, (const char *)sqlite3_column_text(st, 0));
      free(where);
    } else if (step != SQLITE_DONE)
      rc = xp_error(XP_EXIT_DB, "reading the results imported already: %s", sqlite3_errmsg(ctx->db));
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
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
