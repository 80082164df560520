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
** Each import records the results its files hold as rows of serve_result_digests (schema 27),
** in the transaction of its results: the digest (vb_result.sum, the object as read, whatever its
** indent or line ends), whether it was recorded or left out as recorded before, its file's place
** among those given and whether that file is a list of results (summary.json), and FILE:LINE,
** FILE without its folder (a sweep's folders name points, and every point has a run=0.json).
** Imports of schema 26 kept the same as lines of run_meta import.vllm_bench.results, read as
** rows beside the table's (IMPORTED), and imports before either, which kept none, are read from
** the files they kept (undigested). A later import holding one of them in another
** file does not record it again: a warning names the run that has it, and the import records the
** rest (the run=1.json that summary.json adds, the lines appended since); one whose every result
** is imported already is refused, naming that run. The same file imported again, alone or with
** others (xp rerun, a corrected --set, a script run twice, a copy saved with CRLF line ends), is
** recorded: the earlier run read the same results, in the same order and form, from one file; an
** import the user repeats on purpose, which the queries count once where the bytes are the same
** (XP_SQL_REIMPORTED). A summary.json of a point run once holds its run=0.json's one result
** again, in a list: another file.
*/
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "vb_parse.h"
#include "xp.h"

/* Each result as read, kept past those left out (a row of serve_result_digests each). */
struct vb_reading {
  size_t n;
  int *file_no;     /* per result: its file's place among those given */
  int *recorded;    /* per result: 0 where left out as imported before */
  char **form;      /* per file: its form (form_add) */
  char **sum, **file; /* per result: its digest; its file's name without the folder */
  int *listed, *line;
};

/* A file's form: "L" or "-" (a list of results or not), then " SHA256" for each of its results in
** order: what a file is, here and in an earlier import alike. Built a digest at a time, in time
** linear in the file's results (a JSONL file appended to for months holds many). */
typedef struct form {
  char *text;
  size_t len, cap;
} form;

static void form_add(form *f, int listed, const char *sum) {
  if (f->len + 67 > f->cap) {
    f->cap = (f->len + 67) * 2;
    f->text = xp_xrealloc(f->text, f->cap);
  }
  if (f->len == 0) f->text[f->len++] = listed ? 'L' : '-';
  f->text[f->len++] = ' ';
  const size_t n = strnlen(sum, 64); /* a line some hand shortened: no digest of ours, so no match */
  memcpy(f->text + f->len, sum, n);
  f->len += n;
  f->text[f->len] = 0;
}

vb_reading *vb_reading_new(const vb_result *r, size_t n) {
  vb_reading *rd = xp_xcalloc(1, sizeof *rd);
  rd->n = n;
  rd->file_no = xp_xcalloc(n ? n : 1, sizeof *rd->file_no);
  rd->recorded = xp_xcalloc(n ? n : 1, sizeof *rd->recorded);
  rd->form = xp_xcalloc(n ? n : 1, sizeof *rd->form); /* a file has a result at least */
  rd->sum = xp_xcalloc(n ? n : 1, sizeof *rd->sum);
  rd->file = xp_xcalloc(n ? n : 1, sizeof *rd->file);
  rd->listed = xp_xcalloc(n ? n : 1, sizeof *rd->listed);
  rd->line = xp_xcalloc(n ? n : 1, sizeof *rd->line);
  for (size_t i = 0; i < n; i++) {
    const char *base = strrchr(r[i].file, '/');
    rd->file_no[i] = i == 0 ? 0 : rd->file_no[i - 1] + (strcmp(r[i].file, r[i - 1].file) != 0);
    rd->recorded[i] = 1;
    rd->sum[i] = xp_strdup(r[i].sum);
    rd->file[i] = xp_strdup(base ? base + 1 : r[i].file);
    rd->listed[i] = r[i].listed;
    rd->line[i] = r[i].line;
  }
  form f = {0};
  for (size_t i = 0; i < n; i++) {
    form_add(&f, r[i].listed, r[i].sum);
    if (i + 1 == n || rd->file_no[i + 1] != rd->file_no[i]) {
      rd->form[rd->file_no[i]] = f.text;
      f = (form){0};
    }
  }
  return rd;
}

void vb_reading_free(vb_reading *rd) {
  if (!rd) return;
  for (size_t i = 0; i < rd->n; i++) {
    free(rd->form[i]);
    free(rd->sum[i]);
    free(rd->file[i]);
  }
  free(rd->form);
  free(rd->sum);
  free(rd->file);
  free(rd->listed);
  free(rd->line);
  free(rd->file_no);
  free(rd->recorded);
  free(rd);
}

/* Every import's results as rows, imported: serve_result_digests', and the lines of schema 26's
** imports (run_meta import.vllm_bench.results, "SHA256 +|- K[L] FILE:LINE" each: "+" recorded,
** "-" left out; K the file's place, L a list; the line the digits after the last ':') split into
** rows alike. Those lines are their runs' sealed content: they stay where they were written. */
#define IMPORTED                                                                                                \
  "WITH RECURSIVE split (run_id, seq, line, rest) AS ("                                                         \
  " SELECT run_id, -1, NULL, value || char(10) FROM run_meta"                                                   \
  " WHERE key = 'import.vllm_bench.results' AND source = 'detected'"                                            \
  " UNION ALL SELECT run_id, seq + 1, substr(rest, 1, instr(rest, char(10)) - 1),"                              \
  " substr(rest, instr(rest, char(10)) + 1) FROM split WHERE rest <> ''),"                                      \
  " legacy (run_id, seq, digest, recorded, form, place) AS ("                                                   \
  " SELECT run_id, seq, substr(line, 1, 64), substr(line, 66, 1) = '+', substr(line, 68, instr(substr(line, 68),"\
  " ' ') - 1), substr(line, 68 + instr(substr(line, 68), ' ')) FROM split WHERE seq >= 0),"                      \
  " imported (run_id, seq, digest, recorded, file_no, listed, file, line) AS ("                                 \
  " SELECT run_id, seq, digest, recorded, file_no, listed, file, line FROM serve_result_digests"                \
  " UNION ALL SELECT run_id, seq, digest, recorded, CAST(rtrim(form, 'L') AS INTEGER), form LIKE '%L',"         \
  " substr(place, 1, length(rtrim(place, '0123456789')) - 1),"                                                  \
  " CAST(substr(place, length(rtrim(place, '0123456789')) + 1) AS INTEGER) FROM legacy"                       \
  " UNION ALL SELECT run_id, seq, digest, recorded, file_no, listed, file, line FROM temp.vb_undigested) "

/* ---- imports from before digests ----
** An xp before 2026-12-03 (schema < 26) kept no digest of the results it imported, and no
** migration can add one: a digest is of the object as read, and rows added to a sealed run break
** its seal. It kept each file whole, though, as the run's artifact vllm-bench/K-NAME: read here
** once an import (read_undigested), its results' digests are the rows that import would have
** written (each result recorded: nothing was left out then), in temp.vb_undigested, which IMPORTED reads
** beside the others. Before, such a run's results given again in another file counted twice.
** An artifact today's reader refuses gives no row. */

/* The rows of one kept file (file_no of run_id, named name) from *seq on. */
static int add_undigested(sqlite3 *db, sqlite3_stmt *ins, int64_t run_id, int file_no, const char *name,
                          const char *text, size_t len, int *seq) {
  vb_result *r = NULL;
  size_t n = 0;
  xp_error_quiet(1); /* a file an older xp took that today's refuses: no rows, and no line said */
  const int refused = vb_parse_text(name, text, len, &r, &n);
  xp_error_quiet(0);
  if (refused) xp_clear_error();
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    sqlite3_bind_int64(ins, 1, run_id);
    sqlite3_bind_int(ins, 2, (*seq)++);
    xp_bind_text(ins, 3, r[i].sum);
    sqlite3_bind_int(ins, 4, file_no);
    sqlite3_bind_int(ins, 5, r[i].listed);
    xp_bind_text(ins, 6, name);
    sqlite3_bind_int(ins, 7, r[i].line);
    rc = xp_db_step_done(db, ins);
  }
  vb_results_free(r, n);
  return rc;
}

/* temp.vb_undigested: the rows of the files every digest-less serve_bench import kept, each run's
** read once per connection. An import checks its results twice, before its run is begun and in
** its run's transaction (vllm_bench.c), and each check parsed every such run's files again: the
** runs read are kept in temp.vb_undigested_read, and a check reads only the runs new since (an
** xp merge of an older database meanwhile). A finished run's artifacts never change (append-only),
** so the rows of a run read stay its rows. Temp tables roll back with the transaction that wrote
** them, so a check in a transaction rolled back leaves the two tables agreeing. */
static int read_undigested(sqlite3 *db) {
  if (xp_db_exec(db, "CREATE TEMP TABLE IF NOT EXISTS vb_undigested (run_id INTEGER, seq INTEGER, digest TEXT,"
                     " recorded INTEGER, file_no INTEGER, listed INTEGER, file TEXT, line INTEGER);"
                     " CREATE TEMP TABLE IF NOT EXISTS vb_undigested_read (run_id INTEGER PRIMARY KEY)") != 0)
    return XP_EXIT_DB;
  sqlite3_stmt *kept = xp_db_prepare(
      db, "SELECT r.id, CAST(substr(a.name, 12) AS INTEGER), a.encoding, a.data, a.size,"
          " substr(a.name, 12 + instr(substr(a.name, 12), '-')) FROM runs r JOIN artifacts a ON a.run_id = r.id"
          " WHERE r.kind = 'serve_bench' AND r.status = 'ok' AND a.name LIKE 'vllm-bench/%'"
          " AND r.id NOT IN (SELECT run_id FROM temp.vb_undigested_read)"
          " AND NOT EXISTS (SELECT 1 FROM serve_result_digests d WHERE d.run_id = r.id)"
          " AND NOT EXISTS (SELECT 1 FROM run_meta m WHERE m.run_id = r.id AND m.key = 'import.vllm_bench.results')"
          " ORDER BY r.id, 2");
  sqlite3_stmt *ins = kept ? xp_db_prepare(db, "INSERT INTO temp.vb_undigested VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7)")
                           : NULL;
  int rc = ins ? 0 : XP_EXIT_DB, step, seq = 0;
  int64_t run = -1, *runs = NULL; /* marked read once the scan is done: its NOT IN reads the table */
  size_t nruns = 0;
  while (rc == 0 && (step = sqlite3_step(kept)) == SQLITE_ROW) {
    if (sqlite3_column_int64(kept, 0) != run) {
      run = sqlite3_column_int64(kept, 0), seq = 0;
      runs = xp_xrealloc(runs, (nruns + 1) * sizeof *runs);
      runs[nruns++] = run;
    }
    size_t len = 0;
    char *text = xp_artifact_bytes((const char *)sqlite3_column_text(kept, 2), sqlite3_column_blob(kept, 3),
                                   (size_t)sqlite3_column_bytes(kept, 3), sqlite3_column_int64(kept, 4), &len);
    if (text)
      rc = add_undigested(db, ins, run, sqlite3_column_int(kept, 1), (const char *)sqlite3_column_text(kept, 5), text,
                          len, &seq);
    free(text);
  }
  if (rc == 0 && step != SQLITE_DONE)
    rc = xp_error(XP_EXIT_DB, "reading the files imported already: %s", sqlite3_errmsg(db));
  sqlite3_finalize(kept);
  sqlite3_finalize(ins);
  sqlite3_stmt *read = rc ? NULL : xp_db_prepare(db, "INSERT INTO temp.vb_undigested_read VALUES (?1)");
  if (rc == 0 && !read) rc = XP_EXIT_DB;
  for (size_t i = 0; i < nruns && rc == 0; i++) {
    sqlite3_bind_int64(read, 1, runs[i]);
    rc = xp_db_step_done(db, read);
  }
  sqlite3_finalize(read);
  free(runs);
  return rc;
}

/* The forms of earlier imports' files read back so far, each read once: every result of a file
** imported again finds the same earlier file. */
typedef struct imported_forms {
  int64_t *run_id, *file_no;
  char **form;
  size_t n;
} imported_forms;

static void imported_forms_free(imported_forms *c) {
  for (size_t i = 0; i < c->n; i++) free(c->form[i]);
  free(c->run_id);
  free(c->file_no);
  free(c->form);
}

/* The form of file file_no of the import run_id; NULL on an error said. */
static const char *form_imported(sqlite3 *db, sqlite3_stmt *st, imported_forms *c, int64_t run_id, int64_t file_no) {
  for (size_t i = 0; i < c->n; i++)
    if (c->run_id[i] == run_id && c->file_no[i] == file_no) return c->form[i];
  sqlite3_bind_int64(st, 1, run_id);
  sqlite3_bind_int64(st, 2, file_no);
  form f = {0};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW)
    form_add(&f, sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1));
  sqlite3_reset(st);
  if (step != SQLITE_DONE) {
    free(f.text);
    xp_error(XP_EXIT_DB, "reading the results imported already: %s", sqlite3_errmsg(db));
    return NULL;
  }
  c->run_id = xp_xrealloc(c->run_id, (c->n + 1) * sizeof *c->run_id);
  c->file_no = xp_xrealloc(c->file_no, (c->n + 1) * sizeof *c->file_no);
  c->form = xp_xrealloc(c->form, (c->n + 1) * sizeof *c->form);
  c->run_id[c->n] = run_id, c->file_no[c->n] = file_no, c->form[c->n] = f.text ? f.text : xp_strdup("");
  return c->form[c->n++];
}

/* The run and FILE:LINE of the earliest import other than uuid's (NULL: any) that recorded the
** result of digest sum from another file than mine (its form), into *run and *where (new
** strings); 0 where none, 1 where one does, or XP_EXIT_DB negated. */
static int imported_already(sqlite3 *db, sqlite3_stmt *find, sqlite3_stmt *file, imported_forms *forms,
                            const char *uuid, const char *sum, const char *mine, char **run, char **where) {
  xp_bind_text(find, 1, sum);
  xp_bind_text(find, 2, uuid);
  int step, found = 0, rc = 0;
  while (!found && rc == 0 && (step = sqlite3_step(find)) == SQLITE_ROW) {
    const char *theirs = form_imported(db, file, forms, sqlite3_column_int64(find, 0), sqlite3_column_int64(find, 1));
    if (!theirs) rc = XP_EXIT_DB;
    else if ((found = strcmp(theirs, mine) != 0)) {
      *run = xp_strdup((const char *)sqlite3_column_text(find, 2));
      *where = xp_asprintf("%s:%d", (const char *)sqlite3_column_text(find, 3), sqlite3_column_int(find, 4));
    }
  }
  if (rc == 0 && !found && step != SQLITE_DONE)
    rc = xp_error(XP_EXIT_DB, "reading the results imported already: %s", sqlite3_errmsg(db));
  sqlite3_reset(find);
  return rc ? -rc : found;
}

/* Keep the results of r whose keep[] is set, in order; free the others. */
static void keep_only(vb_result **r, size_t *n, const int *keep) {
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

int vb_find_imported(sqlite3 *db, const char *uuid, vb_reading *rd, const vb_result *r, size_t n, int say) {
  char *run = NULL, *where = NULL;
  size_t first = 0, again = 0;
  imported_forms forms = {0};
  if (read_undigested(db) != 0) return XP_EXIT_DB;
  sqlite3_stmt *find = xp_db_prepare(
      db, IMPORTED "SELECT d.run_id, d.file_no, r.uuid, d.file, d.line FROM imported d JOIN runs r ON r.id = d.run_id"
          " WHERE d.digest = ?1 AND d.recorded AND r.status = 'ok' AND r.uuid IS NOT ?2 ORDER BY r.id, d.seq");
  sqlite3_stmt *file = find ? xp_db_prepare(db, IMPORTED "SELECT listed, digest FROM imported"
                                                " WHERE run_id = ?1 AND file_no = ?2 ORDER BY seq") : NULL;
  int rc = file ? 0 : XP_EXIT_DB;
  for (size_t i = 0; i < n && rc == 0; i++) {
    char *u = NULL, *w = NULL;
    const int found = imported_already(db, find, file, &forms, uuid, r[i].sum, rd->form[rd->file_no[i]], &u, &w);
    if (found < 0) rc = -found;
    rd->recorded[i] = found == 0;
    if (found == 1 && again++ == 0) {
      first = i, run = u, where = w;
      continue;
    }
    free(u);
    free(w);
  }
  sqlite3_finalize(find);
  sqlite3_finalize(file);
  imported_forms_free(&forms);
  const vb_result *f = &r[first];
  if (rc == 0 && again && again == n)
    rc = xp_error_at(XP_EXIT_USAGE, f->file, f->line, "the same result as %s, imported already as run %.8s%s: it "
                     "would count twice (vllm bench sweep's summary.json lists its run=N.json files' results again; "
                     "--append-result adds to a file that holds the earlier ones); nothing given is new", where, run,
                     again > 1 ? ", and so is every other result given" : "");
  else if (rc == 0 && again && say)
    xp_warn("%s:%d: the same result as %s, imported already as run %.8s: not recorded again, so that none counts "
            "twice (%zu of the %zu results given; the rest recorded)", f->file, f->line, where, run, again, n);
  free(run);
  free(where);
  return rc;
}

int vb_drop_imported(sqlite3 *db, const char *uuid, vb_reading *rd, vb_result **r, size_t *n, int say) {
  const int rc = vb_find_imported(db, uuid, rd, *r, *n, say);
  for (size_t i = 0; rc == 0 && i < *n; i++)
    if (!rd->recorded[i]) {
      keep_only(r, n, rd->recorded);
      break;
    }
  return rc;
}

int vb_record_reading(xp_run *run, const vb_reading *rd) {
  sqlite3_stmt *st = xp_run_stmt(run, "INSERT INTO serve_result_digests (run_id, seq, digest, recorded, file_no, listed,"
                                      " file, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  int rc = st ? 0 : XP_EXIT_DB;
  for (size_t i = 0; i < rd->n && rc == 0; i++) {
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, (int64_t)i);
    xp_bind_text(st, 3, rd->sum[i]);
    sqlite3_bind_int(st, 4, rd->recorded[i]);
    sqlite3_bind_int(st, 5, rd->file_no[i]);
    sqlite3_bind_int(st, 6, rd->listed[i]);
    xp_bind_text(st, 7, rd->file[i]);
    sqlite3_bind_int(st, 8, rd->line[i]);
    rc = xp_db_step_done(xp_run_db(run), st);
  }
  return rc;
}

/* The results the import read, as its rows hold them: what a later import matches its own
** against, so a notebook (xp export) or a reader (xp show) can tell which results a run left out
** as imported before, and from which file and line each came. An import before schema 27 has
** none: in a table, the section is left out; in JSON, an empty list. */
int vb_show_digests(sqlite3 *db, int64_t run_id, FILE *out, int fmt, cJSON *json) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT seq, digest, recorded, file_no, listed, file, line"
                                       " FROM serve_result_digests WHERE run_id = ?1 ORDER BY seq");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, run_id);
  int rc = 0;
  if (json) cJSON_AddItemToObject(json, "serve: result digests", xp_rows_json(st, &rc));
  else if (sqlite3_step(st) == SQLITE_ROW) {
    sqlite3_reset(st);
    fputs("\n== serve: result digests ==\n", out);
    rc = xp_print_rows(db, st, (enum xp_format)fmt, out, NULL);
  }
  sqlite3_finalize(st);
  return rc;
}
