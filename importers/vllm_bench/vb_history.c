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
** Each import records the digests of the results its files hold (vb_result.sum, the object as
** read, whatever its indent or line ends) as run_meta import.vllm_bench.results, a line
** "SHA256 + K[L] FILE:LINE" each ("-" for "+" where it was left out, recorded before): K the
** file's place among those given, L where it is a list of results (summary.json), FILE its name
** without its folder (a sweep's folders name points, and every point has a run=0.json); the
** key is under import., facts of the import that xp compare
** leaves out. A later import holding one of them in another file does not record it again: a
** warning names the run that has it, and the import records the rest (the run=1.json that
** summary.json adds, the lines appended since); one whose every result is imported already is
** refused, naming that run. The same file imported again, alone or with others (xp rerun, a
** corrected --set, a script run twice, a copy saved with CRLF line ends), is recorded: the
** earlier run read the same results, in the same order and form, from one file; an import the
** user repeats on purpose, which the queries count once where the bytes are the same
** (XP_SQL_REIMPORTED). A summary.json of a point run once holds its run=0.json's one result
** again, in a list: another file.
*/
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "kind.h"
#include "vb_parse.h"
#include "xp.h"

#define RESULTS_KEY "import.vllm_bench.results"
#define SUM_LEN 64

char *vb_result_digests(const vb_result *r, size_t n) {
  size_t len = 1, file = 0;
  for (size_t i = 0; i < n; i++) len += strlen(r[i].file) + SUM_LEN + 48;
  char *lines = xp_xcalloc(len, 1);
  for (size_t i = 0, at = 0; i < n; i++) {
    if (i && strcmp(r[i].file, r[i - 1].file) != 0) file++;
    const char *base = strrchr(r[i].file, '/');
    at += (size_t)snprintf(lines + at, len - at, "%s%s + %zu%s %s:%d", i ? "\n" : "", r[i].sum, file,
                           r[i].listed ? "L" : "", base ? base + 1 : r[i].file, r[i].line);
  }
  return lines;
}

/* The line of lines ("SHA256 +|- K[L] FILE:LINE" each) that holds sum, or NULL. */
static const char *line_of(const char *lines, const char *sum) {
  for (const char *at = strstr(lines, sum); at; at = strstr(at + 1, sum))
    if ((at == lines || at[-1] == '\n') && at[SUM_LEN] == ' ') return at;
  return NULL;
}

/* The file that holds the result of line: its form (L or not) and its results' digests in
** order, a new string. */
static char *file_of(const char *lines, const char *line) {
  const char *tok = line + SUM_LEN + 3;
  const size_t toklen = strcspn(tok, " ");
  char *out = xp_strdup(tok[toklen - 1] == 'L' ? "L" : "-");
  for (const char *p = lines; *p;) {
    const size_t len = strcspn(p, "\n");
    if (len > SUM_LEN + 3 + toklen && strncmp(p + SUM_LEN + 3, tok, toklen) == 0 && p[SUM_LEN + 3 + toklen] == ' ') {
      char *next = xp_asprintf("%s %.*s", out, SUM_LEN, p);
      free(out);
      out = next;
    }
    p += len + (p[len] == '\n');
  }
  return out;
}

/* Whether an earlier import (its lines) recorded the result of digest sum, read from another file
** than the one that holds it here (mine: this import's lines): *where then its "FILE:LINE". */
static int from_another_file(const char *lines, const char *mine, const char *sum, char **where) {
  const char *theirs = line_of(lines, sum), *here = line_of(mine, sum);
  if (!theirs || !here || theirs[SUM_LEN + 1] != '+') return 0; /* '-': read, left out as recorded before */
  char *a = file_of(lines, theirs), *b = file_of(mine, here);
  const int other = strcmp(a, b) != 0;
  free(a);
  free(b);
  if (other) {
    const char *at = theirs + SUM_LEN + 3;
    at += strcspn(at, " ") + 1;
    *where = xp_asprintf("%.*s", (int)strcspn(at, "\n"), at);
  }
  return other;
}

/* The run and file:line of the earliest import that holds result r from another file, into
** *uuid and *where (new strings); 0 where none, 1 where one does, or XP_EXIT_DB negated. */
static int imported_already(xp_ctx *ctx, sqlite3_stmt *st, const char *mine, const vb_result *r, char **uuid,
                            char **where) {
  xp_bind_text(st, 1, xp_run_uuid(ctx->run));
  xp_bind_text(st, 2, r->sum);
  int step, found = 0;
  while (!found && (step = sqlite3_step(st)) == SQLITE_ROW)
    if ((found = from_another_file((const char *)sqlite3_column_text(st, 1), mine, r->sum, where)))
      *uuid = xp_strdup((const char *)sqlite3_column_text(st, 0));
  if (!found && step != SQLITE_DONE)
    xp_error(XP_EXIT_DB, "reading the results imported already: %s", sqlite3_errmsg(ctx->db));
  sqlite3_reset(st);
  return found ? 1 : step == SQLITE_DONE ? 0 : -XP_EXIT_DB;
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

int vb_drop_imported(xp_ctx *ctx, char *digests, vb_result **r, size_t *n) {
  char *uuid = NULL, *where = NULL;
  unsigned char *keep = xp_xcalloc(*n ? *n : 1, 1);
  size_t first = 0, again = 0;
  sqlite3_stmt *st = xp_db_prepare(
      ctx->db, "SELECT r.uuid, m.value FROM run_meta m JOIN runs r ON r.id = m.run_id"
               " WHERE m.key = '" RESULTS_KEY "' AND r.status = 'ok' AND r.uuid <> ?1 AND instr(m.value, ?2) > 0"
               " ORDER BY r.id");
  int rc = st ? 0 : XP_EXIT_DB;
  for (size_t i = 0; i < *n && rc == 0; i++) {
    char *u = NULL, *w = NULL;
    const int found = imported_already(ctx, st, digests, &(*r)[i], &u, &w);
    if (found < 0) rc = -found;
    keep[i] = found == 0;
    if (found == 1) ((char *)line_of(digests, (*r)[i].sum))[SUM_LEN + 1] = '-'; /* not recorded here */
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

int vb_record_digests(xp_run *run, const char *digests) {
  return xp_run_meta(run, RESULTS_KEY, digests, "detected"); /* as import.*: xp's own */
}
