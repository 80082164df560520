/*
** xp audit [DECISION]: is a decision still true?
**
** Shows the decision as recorded, then checks it against today's history:
**  - drift: its query runs again on today's database; rows are matched to the rows recorded
**    with the decision (by their text columns, else by position) and every numeric column
**    that moved is shown, then and now, with the number of runs recorded since the decision;
**  - evidence: each evidence run is compared with the newer ok runs of the same kind and
**    configuration (schema view run_configuration, as xp report and queries/regressions.sql
**    have it: model, GPU, interconnect, tp, batch and the rest declared, engine, dtype,
**    quantization, ep, pp; a trace imported with nothing declared is one of its own) and the
**    same spec or the same case names, each job once (trace_superseded), metric by metric and
**    newer run by newer run: a metric is contradicted when every newer run judged alone moved its
**    median by more than 5% with Mann-Whitney p < 0.05, all the same way (weigh says why);
**  - integrity: whether each evidence run's rows, hashed again, are still what the decision sealed
**    (rows edited in SQLite leave the stored seal as it was), and the decision its digest.
** Exit 1 when any evidence is contradicted, so a CI job can watch decisions.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "db.h"
#include "history.h"
#include "runref.h"
#include "xp.h"

static const char usage[] =
    "usage: xp audit [DECISION] [--by-run]\n"
    "  Shows a decision (a UUID or unique prefix; without one, every decision that has not\n"
    "  been superseded, oldest first, and a line for each superseded one) and checks it against\n"
    "  today's history: its query is run again and every number that moved is shown, then and\n"
    "  now, with the count of runs recorded since the decision; each evidence run is compared\n"
    "  with newer ok runs of the same configuration (model, GPU, interconnect, tp, batch, engine,\n"
    "  dtype, quantization, ep, pp, dp, the server settings a serving result names, serve.KEY:\n"
    "  serve.kv_cache_dtype, ...; a trace imported with nothing declared is one of its own),\n"
    "  and flagged as CONTRADICTED when a median moved by more than 5% with Mann-Whitney\n"
    "  p < 0.05 in every newer run of 5 samples or more, judged alone, all the same way; SPLIT,\n"
    "  not contradicted, where some of them agree; runs of fewer samples each (one a case: an\n"
    "  nccl-tests log) pooled (NOT JUDGED where no metric has 5 samples on each side). Only a\n"
    "  worse figure contradicts where the unit says which way is better (a time lower, a rate\n"
    "  /s higher); a better one is \"MOVED, same direction\", not contradicted; a run of the\n"
    "  alternative a decision was taken over (xp decide --over) the other way: it contradicts by\n"
    "  getting better. An evidence trace\n"
    "  that another import of the same job supersedes (queries count that one) is named with it.\n"
    "  A query that no longer runs here (a table or column it read is gone) leaves its recorded\n"
    "  rows NOT CHECKED, said in its verdict. --by-run names the runs since the decision that\n"
    "  moved its query's figures, each with what it moved (on a copy of the database, the\n"
    "  newest run taken out first).\n"
    "  Newer means measured later (a trace's clock, a result's own date), not imported later.\n"
    "  Since the decision means arrived in this database after it: recorded, or merged in\n"
    "  (xp merge) whatever the dates it was measured with, or dated after it.\n"
    "  Exit status: 0 nothing contradicted, 1 some evidence is contradicted, 5 some evidence's\n"
    "  rows or seal, or the decision's record, changed since the decision, or an evidence run\n"
    "  was removed (xp verify). It hashes only the decisions and their evidence runs: other\n"
    "  runs' rows, the chain and the kernel categories its query reads are xp verify's to check\n"
    "  (exit 0 here is no word on them).\n";

#define CONTRADICT_CHANGE 0.05

static const char *txt(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

/* ---- drift of the query ---- */

/* Text longer than this is prose that carries the row's numbers (allreduce_share's `answer`),
** not a key: it changes whenever they do. */
#define KEY_TEXT_MAX 80

/* The columns that name a row, chosen per result set: its short text (and NULL) columns,
** then as many whole-number columns (tp, batch, bytes), in column order, as it takes for every
** row of both sets to have its own name. allreduce_burst names its rows by bytes and
** allreduce_share by tp and batch: keyed on text alone, their rows had one name, were matched
** by position, and a new row shifted every row after it into a false drift. */
typedef struct row_naming {
  const char *col[64];
  int n;
} row_naming;

/* A date or time ("2026-12-01", "2026-12-01T10:00:00Z") says when, not which: last_run moves
** whenever a newer run arrives, and the row it is on is still the same row. */
static int is_date(const char *s) {
  int y, m, d, n = 0;
  return sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3 && n == 10;
}

static int column_is(const cJSON *rows, const char *name, int whole) {
  const cJSON *r;
  cJSON_ArrayForEach(r, rows) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, name);
    if (!c || cJSON_IsNull(c)) continue;
    if (whole ? !(cJSON_IsNumber(c) && c->valuedouble == floor(c->valuedouble))
              : !(cJSON_IsString(c) && strlen(c->valuestring) <= KEY_TEXT_MAX && !is_date(c->valuestring)))
      return 0;
  }
  return 1;
}

/* The column's value in the row as a name part; NULL where the row lacks it or holds NULL. */
static char *cell_text(const cJSON *row, const char *name) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(row, name);
  return cJSON_IsString(c) ? xp_strdup(c->valuestring)
         : cJSON_IsNumber(c) ? xp_asprintf("%.0f", c->valuedouble) : xp_strdup("NULL");
}

static int all_null(const cJSON *then, const cJSON *now, const char *name) {
  for (int set = 0; set < 2; set++) {
    const cJSON *r, *rows = set ? now : then;
    cJSON_ArrayForEach(r, rows) {
      const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, name);
      if (c && !cJSON_IsNull(c)) return 0;
    }
  }
  return 1;
}

/* 1 when the column holds two different values over both sets. */
static int varies(const cJSON *then, const cJSON *now, const char *name) {
  char *first = NULL;
  int differs = 0;
  for (int set = 0; set < 2 && !differs; set++) {
    const cJSON *r, *rows = set ? now : then;
    cJSON_ArrayForEach(r, rows) {
      char *v = cell_text(r, name);
      if (!first) first = v;
      else {
        differs = strcmp(first, v) != 0;
        free(v);
        if (differs) break;
      }
    }
  }
  free(first);
  return differs;
}

/* A row's name under the naming: "a=x, b=y". */
static char *row_key(const cJSON *row, const row_naming *nm) {
  char *k = xp_strdup("");
  for (int i = 0; i < nm->n; i++) {
    char *v = cell_text(row, nm->col[i]);
    char *n = xp_asprintf("%s%s%s=%s", k, *k ? ", " : "", nm->col[i], v);
    free(v);
    free(k);
    k = n;
  }
  return k;
}

static int keys_unique(const cJSON *rows, const row_naming *nm) {
  int n = cJSON_GetArraySize(rows), unique = 1;
  char **keys = xp_xcalloc((size_t)n + 1, sizeof *keys);
  for (int i = 0; i < n; i++) {
    keys[i] = row_key(cJSON_GetArrayItem(rows, i), nm);
    for (int j = 0; j < i && unique; j++) unique = strcmp(keys[i], keys[j]) != 0;
  }
  for (int i = 0; i < n; i++) free(keys[i]);
  free(keys);
  return unique;
}

static int is_key(const row_naming *nm, const char *name) {
  for (int i = 0; i < nm->n; i++)
    if (strcmp(nm->col[i], name) == 0) return 1;
  return 0;
}

/* 1 with nm set when every row of then and now has its own name, else 0 (match by position). */
static int name_rows(const cJSON *then, const cJSON *now, row_naming *nm) {
  const cJSON *first = cJSON_GetArrayItem(then, 0) ? cJSON_GetArrayItem(then, 0) : cJSON_GetArrayItem(now, 0);
  const cJSON *c;
  nm->n = 0;
  for (int whole = 0; whole < 2; whole++) {
    if (whole && keys_unique(then, nm) && keys_unique(now, nm)) return 1;
    cJSON_ArrayForEach(c, first) {
      if (nm->n == (int)(sizeof nm->col / sizeof nm->col[0])) break;
      if (!c->string || is_key(nm, c->string) || !column_is(then, c->string, whole) ||
          !column_is(now, c->string, whole))
        continue;
      /* text names a row even where it never changes (model=llama); a number only where it
      ** tells rows apart, and a column of NULLs never */
      if (whole ? !varies(then, now, c->string) : all_null(then, now, c->string)) continue;
      nm->col[nm->n++] = c->string;
      if (whole && keys_unique(then, nm) && keys_unique(now, nm)) return 1;
    }
  }
  return keys_unique(then, nm) && keys_unique(now, nm);
}

static const cJSON *find_row(const cJSON *rows, const char *key, const row_naming *nm) {
  const cJSON *r;
  cJSON_ArrayForEach(r, rows) {
    char *k = row_key(r, nm);
    int eq = strcmp(k, key) == 0;
    free(k);
    if (eq) return r;
  }
  return NULL;
}

static void print_num(double v) {
  if (v == floor(v) && fabs(v) < 1e15) printf("%.0f", v);
  else printf("%.4g", v);
}

/* Numbers of one row, then and now, each moved one a line at indent. Returns how many moved. */
static int diff_row(const char *indent, const char *label, const cJSON *then, const cJSON *now,
                    const row_naming *nm, int *unchanged) {
  int moved = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, then) {
    if (!cJSON_IsNumber(c) || is_key(nm, c->string)) continue;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(now, c->string);
    /* equal to the last digits a result recorded by an older xp kept (cJSON wrote 15) */
    if (cJSON_IsNumber(n) && fabs(n->valuedouble - c->valuedouble) <= 1e-13 * fmax(fabs(n->valuedouble), fabs(c->valuedouble))) {
      (*unchanged)++;
      continue;
    }
    moved++;
    fputs(indent, stdout);
    xp_print_text(stdout, label);
    fputs(*label ? ": " : "", stdout);
    xp_print_text(stdout, c->string);
    putchar(' ');
    print_num(c->valuedouble);
    printf(" then; ");
    if (!cJSON_IsNumber(n)) printf("%s now\n", n ? "not a number" : "absent");
    else {
      print_num(n->valuedouble);
      printf(" now");
      if (c->valuedouble != 0)
        printf(" (%+.1f%%)", 100 * (n->valuedouble - c->valuedouble) / fabs(c->valuedouble));
      putchar('\n');
    }
  }
  return moved;
}

/* The rows of one result set, then and now, what moved a line each at indent (under the query's
** line, or under a run's of --by-run). Returns how many values moved. */
static int drift_set(const char *indent, const cJSON *then, const cJSON *now, int *unchanged) {
  row_naming nm;
  int moved = 0, by_key = name_rows(then, now, &nm);
  int nt = cJSON_GetArraySize(then), nn = cJSON_GetArraySize(now);
  if (!by_key) nm.n = 0; /* by position: every column is compared */
  for (int i = 0; i < nt; i++) {
    const cJSON *t = cJSON_GetArrayItem(then, i);
    char *key = row_key(t, &nm);
    const cJSON *n = by_key ? find_row(now, key, &nm) : (i < nn ? cJSON_GetArrayItem(now, i) : NULL);
    char *label = *key ? xp_strdup(key) : xp_asprintf("row %d", i + 1);
    if (!n) {
      fputs(indent, stdout);
      xp_print_text(stdout, label);
      puts(": gone (the query no longer returns this row)");
      moved++;
    } else moved += diff_row(indent, label, t, n, &nm, unchanged);
    free(label);
    free(key);
  }
  for (int i = 0; i < nn; i++) {
    const cJSON *n = cJSON_GetArrayItem(now, i);
    char *key = row_key(n, &nm);
    if (by_key ? !find_row(then, key, &nm) : i >= nt) {
      fputs(indent, stdout);
      if (*key) xp_print_text(stdout, key);
      else printf("row %d", i + 1);
      puts(": new (the query did not return this row then)");
      moved++;
    }
    free(key);
  }
  return moved;
}

/* The decision as this database saw it arrive: its date, and the newest link of the chain that
** was here when it was recorded or merged in (schema 11). */
typedef struct decided {
  const char *at;  /* created_at */
  int64_t seq;     /* decision_arrivals.run_seq; -1 where unknown (older decision, or schema) */
} decided;

/* A run came after the decision when it was sealed into this database's chain after the
** decision arrived (the chain's order is the order of arrival here: a run merged in later
** counts, whatever its dates), or when its own dates are later (a run merged in together with
** a decision from another database, and every run where the arrival is unknown). r is the
** runs table's alias with its dot. Bind with bind_decided. */
#define ARRIVED_AFTER(r) \
  "(" r "chain_seq > :decided_seq OR julianday(coalesce(" r "finished_at, " r "started_at)) > julianday(:decided_at))"

static void bind_decided(sqlite3_stmt *st, const decided *d) {
  xp_bind_text(st, sqlite3_bind_parameter_index(st, ":decided_at"), d->at);
  int i = sqlite3_bind_parameter_index(st, ":decided_seq");
  if (d->seq >= 0) sqlite3_bind_int64(st, i, d->seq);
  else sqlite3_bind_null(st, i);
}

/* Where decision id arrived in this database's chain; -1 where that is unknown: a decision
** recorded before schema 11, or a database not yet migrated (audit only reads). */
static int64_t arrival(sqlite3 *db, int64_t id) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'decision_arrivals'");
  int have = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
  sqlite3_finalize(st);
  int64_t seq = -1;
  if (have && (st = xp_db_prepare(db, "SELECT run_seq FROM decision_arrivals WHERE decision_id = ?1"))) {
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) seq = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  return seq;
}

static int count_since(sqlite3 *db, const decided *when, int64_t *all, int64_t *ok) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT count(*), count(*) FILTER (WHERE status = 'ok') FROM runs"
      " WHERE status <> 'running' AND " ARRIVED_AFTER(""));
  if (!st) return XP_EXIT_DB;
  bind_decided(st, when);
  if (sqlite3_step(st) == SQLITE_ROW) {
    *all = sqlite3_column_int64(st, 0);
    *ok = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  return 0;
}

/* Where the kernel category rules in force were put in place after the decision (xp reclassify,
** or a merge into a database without rules), a note under a query's drift: every trace category
** a query reads moved with them, whatever runs came since (AllReduce's share, 92.8% then, 0 now
** over no new run, said nothing of why). */
static void rules_note(sqlite3 *db, const char *decided_at) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'trace_rule_set'");
  int have = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
  sqlite3_finalize(st);
  /* the first trace import puts the built-in rules in place: that is no replacement */
  if (!have || !(st = xp_db_prepare(db, "SELECT source, sha256, applied_at FROM trace_rule_set WHERE julianday(applied_at) > julianday(?1)"
                                        " AND julianday(applied_at) > (SELECT min(julianday(coalesce(finished_at, started_at))) FROM runs"
                                        " WHERE kind = 'torch_trace')")))
    return;
  xp_bind_text(st, 1, decided_at);
  if (sqlite3_step(st) == SQLITE_ROW) {
    fputs("  note: the kernel category rules were replaced since the decision (xp reclassify: ", stdout);
    xp_print_text(stdout, txt(st, 0));
    printf(", at %s, sha256 %.12s): the trace categories its query reads moved with them, whatever runs came"
           " since\n", txt(st, 2), txt(st, 1));
  }
  sqlite3_finalize(st);
}

/* ---- which newer runs moved a query's figures (--by-run) ---- */

/* The decision's query on db, as decide stored its rows (reals written exactly, read back as
** numbers); NULL where it does not run (said on stderr). */
static cJSON *query_rows(sqlite3 *db, sqlite3_stmt *d) {
  const char *file = txt(d, 9);
  cJSON *p = cJSON_Parse(txt(d, 11));
  int rc = 0;
  cJSON *now = xp_decision_query(db, txt(d, 10), *file ? file : "<decision query>", p, NULL, &rc);
  cJSON_Delete(p);
  if (!now) return NULL;
  char *text = cJSON_PrintUnformatted(now);
  cJSON_Delete(now);
  now = cJSON_Parse(text);
  free(text);
  return now;
}

/* The scratch copy held in its page cache up to 512 MiB: the whole copy where it is no larger
** (SQLite takes pages for its cache as they are read, so a small database costs its size), and
** the take-outs' journal in memory. Every take-out reruns the query, which reads most pages: with
** SQLite's default cache (2 MiB) each rerun read them again from the temporary file (2.1 million
** pread calls to attribute 100 runs of a 16 MiB history, 18 s a decision). */
static const char scratch_sizing[] = "PRAGMA cache_size = -524288; PRAGMA journal_mode = MEMORY";

/* A scratch copy of the database as this audit reads it (SQLite's temporary database: pages past
** its cache go to a temporary file), its guards dropped so that runs can be taken out of it. */
static sqlite3 *scratch_copy(sqlite3 *db) {
  sqlite3 *mem = NULL;
  if (sqlite3_open_v2("", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    sqlite3_close(mem);
    return NULL;
  }
  int sized = sqlite3_exec(mem, scratch_sizing, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_backup *b = sized ? sqlite3_backup_init(mem, "main", db, "main") : NULL;
  int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
  sqlite3_backup_finish(b);
  char *drops = NULL;
  sqlite3_stmt *st = rc == SQLITE_DONE ? xp_db_prepare(mem, "SELECT group_concat('DROP TRIGGER ' || quote(name), ';')"
                                                            " FROM sqlite_schema WHERE type = 'trigger'") : NULL;
  if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) drops = xp_strdup(txt(st, 0));
  sqlite3_finalize(st);
  if (!st || (drops && sqlite3_exec(mem, drops, NULL, NULL, NULL) != SQLITE_OK) ||
      sqlite3_exec(mem, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK ||
      xp_register_unit_fns(mem) != SQLITE_OK || xp_register_run_fns(mem) != SQLITE_OK) {
    sqlite3_close(mem);
    mem = NULL;
  }
  free(drops);
  return mem;
}

/* Take run id out of the scratch copy, with its rows (ON DELETE CASCADE) and any decision's
** citation of it, the citation's side first (schema 34: it refers to the citation). */
static int take_out(sqlite3 *mem, int64_t id) {
  static const char *const deletes[] = {
      ("DELETE FROM decision_evidence_sides WHERE (decision_id, seq) IN (SELECT decision_id, seq FROM"
       " decision_evidence WHERE run_uuid = (SELECT uuid FROM runs WHERE id = ?1))"), /* one statement: () tells clang */
      "DELETE FROM decision_evidence WHERE run_uuid = (SELECT uuid FROM runs WHERE id = ?1)",
      "DELETE FROM runs WHERE id = ?1"};
  const int has_sides = strcmp(xp_evidence_side_sql(mem), "NULL") != 0;
  int rc = 0;
  for (int i = has_sides ? 0 : 1; i < 3 && rc == 0; i++) {
    sqlite3_stmt *st = xp_db_prepare(mem, deletes[i]);
    if (!st) return XP_EXIT_DB;
    sqlite3_bind_int64(st, 1, id);
    rc = xp_db_step_done(mem, st);
    sqlite3_finalize(st);
  }
  return rc;
}

/* Newer runs attributed one by one; each costs a run of the query over the copy, which grows with
** the history: attributing every run is quadratic in it. Measured (s31, bench/audit_by_run_bench.sh's
** history, 5 decisions on one query, 2 shared cores): 300 runs, all 300 attributed 4.4 s against 2.6 s
** at 100; 1000 runs, all 1000 attributed 84 s and 20 MB printed against 18 s and 2 MB at 100. The
** newest hundred say what moved the figures lately; older ones are named as not attributed. */
#define BY_RUN_MAX 100

/* A query's figures on the scratch copy as runs are taken out of it, newest first: rows[i] with
** ids[0, i) taken out (nrows - 1 ids). Decisions on one query share them: the runs since an older
** decision, newest first, begin with those since a newer one, so auditing both reruns the query
** only past the runs they share (5 decisions on one query over 300 runs reran it 505 times). */
typedef struct attribution {
  char *sql, *params;
  int64_t *ids;
  cJSON **rows;
  int nrows;
} attribution;

/* What xp audit --by-run keeps from one decision to the next: the scratch copy, the runs taken out
** of it in order, and each query's figures so far. */
typedef struct by_run_memo {
  sqlite3 *copy;
  int64_t *out;
  int nout;
  attribution *sets;
  int nsets;
} by_run_memo;

static void by_run_memo_free(by_run_memo *m) {
  for (int i = 0; i < m->nsets; i++) {
    for (int r = 0; r < m->sets[i].nrows; r++) cJSON_Delete(m->sets[i].rows[r]);
    free(m->sets[i].rows);
    free(m->sets[i].ids);
    free(m->sets[i].sql);
    free(m->sets[i].params);
  }
  free(m->sets);
  free(m->out);
  sqlite3_close(m->copy);
}

static attribution *attribution_of(by_run_memo *m, sqlite3_stmt *d) {
  for (int i = 0; i < m->nsets; i++)
    if (strcmp(m->sets[i].sql, txt(d, 10)) == 0 && strcmp(m->sets[i].params, txt(d, 11)) == 0) return &m->sets[i];
  m->sets = xp_xrealloc(m->sets, (size_t)(m->nsets + 1) * sizeof *m->sets);
  m->sets[m->nsets] = (attribution){xp_strdup(txt(d, 10)), xp_strdup(txt(d, 11)), NULL, NULL, 0};
  return &m->sets[m->nsets++];
}

/* The scratch copy with ids[0, k) taken out, and no other run: those taken out already kept
** where they are where they begin the list, else a fresh copy. 0, or 1 where it cannot be made. */
static int copy_without(by_run_memo *m, sqlite3 *db, const int64_t *ids, int k) {
  int keep = m->copy && m->nout <= k;
  for (int i = 0; keep && i < m->nout; i++) keep = m->out[i] == ids[i];
  if (!keep) {
    sqlite3_close(m->copy);
    m->nout = 0;
    if (!(m->copy = scratch_copy(db))) return 1;
  }
  m->out = xp_xrealloc(m->out, (size_t)(k + 1) * sizeof *m->out);
  for (; m->nout < k; m->nout++) {
    m->out[m->nout] = ids[m->nout];
    if (take_out(m->copy, ids[m->nout]) != 0) {
      sqlite3_close(m->copy); /* half taken out: no state to build on */
      m->copy = NULL;
      return 1;
    }
  }
  return 0;
}

/* The decision's query's rows on the copy with ids[0, k) taken out, kept in m (not to be freed);
** NULL where the copy cannot be made or the query does not run on it. */
static const cJSON *figures_without(by_run_memo *m, sqlite3 *db, sqlite3_stmt *d, const int64_t *ids, int k) {
  attribution *a = attribution_of(m, d);
  int same = 0;
  while (same < k && same < a->nrows - 1 && a->ids[same] == ids[same]) same++;
  if (same < k) /* past what the lists share, the figures are another list's */
    for (; a->nrows > same + 1; a->nrows--) cJSON_Delete(a->rows[a->nrows - 1]);
  while (a->nrows <= k) {
    cJSON *rows = copy_without(m, db, ids, a->nrows) == 0 ? query_rows(m->copy, d) : NULL;
    if (!rows) return NULL;
    a->rows = xp_xrealloc(a->rows, (size_t)(a->nrows + 1) * sizeof *a->rows);
    a->ids = xp_xrealloc(a->ids, (size_t)(a->nrows + 1) * sizeof *a->ids);
    if (a->nrows > 0) a->ids[a->nrows - 1] = ids[a->nrows - 1];
    a->rows[a->nrows++] = rows;
  }
  return a->rows[k];
}

/* Which of the runs that arrived since the decision moved its query's figures: the newest taken
** out of a scratch copy first, then the next, the query run again each time; a run moved the
** figures where taking it out changed them, and its lines say from what (without it, "then") to
** what (with it, "now"). A run that only adds to what an older newer run already moved is named
** for what it moved beyond that. */
static void drift_by_run(sqlite3 *db, sqlite3_stmt *d, const decided *when, by_run_memo *memo) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT id, substr(uuid, 1, 8), kind, coalesce(finished_at, started_at) FROM runs"
      " WHERE status <> 'running' AND " ARRIVED_AFTER("") " ORDER BY coalesce(chain_seq, 0) DESC, id DESC");
  if (!st) return;
  bind_decided(st, when);
  int n = 0, moving = 0;
  int64_t ids[BY_RUN_MAX];
  const cJSON *with = NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (n++ == 0) {
      printf("  by run, newest first (the figures with the run against without it, the runs before it kept):\n");
      if (!(with = figures_without(memo, db, d, ids, 0))) {
        printf("  NOT ATTRIBUTED: the database could not be copied, or the query did not run on the copy\n");
        break;
      }
    }
    if (n > BY_RUN_MAX) { /* counted on, for the summary: the runs since, not one past the limit */
      if (n == BY_RUN_MAX + 1) printf("  and older runs since the decision, not attributed (%d at most)\n", BY_RUN_MAX);
      continue;
    }
    ids[n - 1] = sqlite3_column_int64(st, 0);
    const cJSON *without = figures_without(memo, db, d, ids, n);
    if (!without) {
      printf("  NOT ATTRIBUTED past run %s: it could not be taken out of the copy\n", txt(st, 1));
      break;
    }
    if (!cJSON_Compare(with, without, 1)) {
      int unchanged = 0;
      moving++;
      printf("  run %s (%s, %s):\n", txt(st, 1), txt(st, 2), txt(st, 3));
      for (int s = 0; s < cJSON_GetArraySize(without) || s < cJSON_GetArraySize(with); s++) {
        cJSON *t = cJSON_GetArrayItem(without, s), *w = cJSON_GetArrayItem(with, s), *empty = cJSON_CreateArray();
        drift_set("    ", t ? t : empty, w ? w : empty, &unchanged);
        cJSON_Delete(empty);
      }
    }
    with = without;
  }
  char of[64];
  if (n > BY_RUN_MAX) snprintf(of, sizeof of, "the %d newest of the %d runs", BY_RUN_MAX, n);
  else snprintf(of, sizeof of, "%d run%s", n, n == 1 ? "" : "s");
  if (n == 0) printf("  by run: no run arrived since the decision: what moved, moved without one\n");
  else if (moving == 0 && with) printf("  by run: none of %s%s since the decision moved a figure\n", n > BY_RUN_MAX ? "" : "the ", of);
  else if (with) printf("  by run: %d of %s since the decision moved figures\n", moving, of);
  sqlite3_finalize(st);
}

/* The decision's query again, its drift said (*moved: the values that moved); 1 where it no
** longer runs here (a table or column it reads is gone: another schema, a user's table dropped),
** so its rows go unchecked. */
static int audit_query(sqlite3 *db, sqlite3_stmt *d, int64_t since, const decided *when, by_run_memo *by_run,
                       int *moved_out) {
  const char *file = txt(d, 9), *params = txt(d, 11), *result = txt(d, 12);
  cJSON *p = cJSON_Parse(params), *then = cJSON_Parse(result), *now = query_rows(db, d);
  fputs("query ", stdout);
  xp_print_text(stdout, *file ? file : "(inline)");
  if (cJSON_GetArraySize(p) > 0) {
    fputs(" with ", stdout);
    xp_print_text(stdout, params);
  }
  char *local_run = xp_decision_local_run_note(db, p);
  if (!now) {
    /* what a reviewer can do: the rows stay as recorded, and a successor's query can run */
    printf(": cannot run on this database, of schema %d (the error is above); its recorded rows are"
           " NOT CHECKED: a decision that supersedes it (xp decide --supersedes %.8s --query FILE)"
           " with the query as this schema has it can be\n", xp_db_user_version(db), txt(d, 0));
  } else {
    int unchanged = 0, moved = 0;
    putchar('\n');
    for (int s = 0; s < cJSON_GetArraySize(then) || s < cJSON_GetArraySize(now); s++) {
      cJSON *t = cJSON_GetArrayItem(then, s), *n = cJSON_GetArrayItem(now, s);
      cJSON *empty = cJSON_CreateArray();
      moved += drift_set("  ", t ? t : empty, n ? n : empty, &unchanged);
      cJSON_Delete(empty);
    }
    printf("  drift: %d value%s moved, %d unchanged, over %lld run%s recorded since the decision\n",
           moved, moved == 1 ? "" : "s", unchanged, (long long)since, since == 1 ? "" : "s");
    if (moved) rules_note(db, txt(d, 4));
    if (by_run) drift_by_run(db, d, when, by_run);
    else if (moved && since)
      printf("  (xp audit %.8s --by-run names the runs since the decision that moved them)\n", txt(d, 0));
    *moved_out = moved;
  }
  if (local_run) {
    fputs("  note: ", stdout);
    xp_print_text(stdout, local_run);
    putchar('\n');
  }
  free(local_run);
  int unchecked = now == NULL;
  cJSON_Delete(now);
  cJSON_Delete(then);
  cJSON_Delete(p);
  return unchecked;
}

/* ---- evidence against newer runs ---- */

/* Newer ok runs of the evidence run's configuration (view run_configuration: its columns
** compared with IS, so that an undeclared trace, labelled with its own run, matches no other),
** not themselves evidence of this decision, each job once: an import that another of the same
** job supersedes would count its steps twice, and the same files imported again their samples
** twice (XP_SQL_REIMPORTED), a re-import dated by the first import: the evidence's own log
** imported again is no newer run of it.
** *early: those that arrived after the decision but are dated no later than the evidence (a
** clock behind, or a measurement older than it merged or imported since), which are never
** compared and were passed over in silence; the evidence's own files imported again are not. */
static int newer_runs(sqlite3 *db, int64_t run, int64_t decision, const decided *when, int64_t **ids, int *n,
                      int *after_decision, int64_t **early, int *nearly) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "WITH e AS (SELECT * FROM runs WHERE id = ?1),"
      " names(run_id, list) AS (SELECT run_id, group_concat(name, ',') FROM"
      "   (SELECT DISTINCT run_id, name FROM cases ORDER BY run_id, name) GROUP BY run_id)"
      " SELECT r.id, " ARRIVED_AFTER("r.") ","
      " julianday(coalesce(ri.first_measured, rm.measured_at)) > julianday(coalesce(ei.first_measured, em.measured_at)) AS later,"
      " coalesce(ri.counted, -r.id) = coalesce(ei.counted, -e.id) AS same_files FROM runs r, e"
      " JOIN run_measured rm ON rm.run_id = r.id JOIN run_measured em ON em.run_id = e.id"
      " LEFT JOIN " XP_SQL_REIMPORTED " ri ON ri.run_id = r.id LEFT JOIN " XP_SQL_REIMPORTED " ei ON ei.run_id = e.id"
      " JOIN run_configuration rg ON rg.run_id = r.id JOIN run_configuration eg ON eg.run_id = e.id"
      " LEFT JOIN names rn ON rn.run_id = r.id LEFT JOIN names en ON en.run_id = e.id"
      " WHERE r.status = 'ok' AND r.id <> e.id AND r.kind = e.kind"
      " AND rg.model IS eg.model AND rg.gpu_name IS eg.gpu_name AND rg.interconnect IS eg.interconnect"
      " AND rg.tp IS eg.tp AND rg.batch IS eg.batch AND rg.config IS eg.config AND rg.undeclared IS eg.undeclared"
      " AND (r.spec_sha256 = e.spec_sha256 OR rn.list IS en.list)"
      " AND r.id NOT IN (SELECT run_id FROM trace_superseded) AND NOT coalesce(ri.superseded, 0)"
      " AND r.uuid NOT IN (SELECT run_uuid FROM decision_evidence WHERE decision_id = ?2)"
      " ORDER BY julianday(coalesce(ri.first_measured, rm.measured_at))");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, run);
  sqlite3_bind_int64(st, 2, decision);
  bind_decided(st, when);
  *n = *nearly = 0;
  *after_decision = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const int arrived_after = sqlite3_column_int(st, 1);
    if (sqlite3_column_int(st, 2)) {
      *ids = xp_xrealloc(*ids, (size_t)(*n + 1) * sizeof **ids);
      (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
      *after_decision += arrived_after;
    } else if (arrived_after && !sqlite3_column_int(st, 3)) {
      *early = xp_xrealloc(*early, (size_t)(*nearly + 1) * sizeof **early);
      (*early)[(*nearly)++] = sqlite3_column_int64(st, 0);
    }
  }
  sqlite3_finalize(st);
  return 0;
}

/* An evidence trace that another import of the same job supersedes (trace_superseded: imported
** again with other rules or step marks, or with more of its ranks) no longer counts in any
** query: the decision rests on figures the history now answers from the other import. */
static void superseded_note(sqlite3 *db, int64_t run, const char *uuid) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT r.uuid, r.status FROM trace_superseded s"
                                       " JOIN runs r ON r.id = s.by_run_id WHERE s.run_id = ?1");
  if (!st) return;
  sqlite3_bind_int64(st, 1, run);
  if (sqlite3_step(st) == SQLITE_ROW)
    printf("    superseded by run %.8s, another import of the same job: queries count that import, "
           "not this one (xp compare %.8s %.8s)\n", txt(st, 0), uuid, txt(st, 0));
  sqlite3_finalize(st);
}

/* ---- one metric's verdict, newer run by newer run ---- */

/* The samples of one metric in one newer run. */
typedef struct run_samples {
  double *v;
  size_t n;
} run_samples;

/* A metric of the evidence against the newer runs. Each newer run with enough samples to be
** judged alone (XP_MIN_SAMPLES) is: pooled, 1.0x evidence against newer runs at 1.0x and 1.3x
** read "+14.7%, contradicted" though one of them agreed. The metric is contradicted when every
** run judged alone moved, all the same way; newer runs that disagree with each other are a split,
** said, and no contradiction. Where no newer run is judged alone (a kind with one sample a case
** a run: an imported nccl-tests log, a vLLM result), the runs are pooled, as they must be.
** Which way a move goes matters where the metric's unit says which way is better (xp_metric_better:
** a time lower, a rate higher): evidence says what a decision rests on is fast or cheap enough, and only
** a worse figure undoes that; a better one moved the same way, said, and contradicts nothing (a
** 30% faster run flagged the decision it bore out). A unit that does not say (a share, a count)
** contradicts either way. A run of the alternative a decision was taken over (--over, schema 34)
** is held the other way: it undoes the decision by getting better (the alternative caught up),
** and getting worse bears it out. */
typedef struct metric_verdict {
  xp_samplecmp pooled; /* the evidence against every newer run's samples together */
  xp_samplecmp *each;  /* the evidence against each newer run, nnewer of them */
  int alone;           /* newer runs judged alone */
  int agree, up, down; /* of those: within noise or CONTRADICT_CHANGE, moved up, moved down */
  int worse, better;   /* up and down as the unit has them (worse: every move, where it does not say) */
  int against, favour; /* worse and better as the decision has them: the other way for the alternative */
  int judged;          /* a verdict was given at all */
  int contradicted, split, improved;
} metric_verdict;

static int moved(const xp_samplecmp *c) {
  return c->beyond_noise && c->change == c->change && fabs(c->change) > CONTRADICT_CHANGE;
}

/* "worse", "better", or "moved" where the unit does not say which way is better. */
static const char *way(const xp_samplecmp *c, const char *better) {
  if (!better) return "moved";
  return (c->change > 0) == (strcmp(better, "higher") == 0) ? "better" : "worse";
}

static void weigh(const double *a, size_t na, const run_samples *runs, int nnewer, const char *better,
                  int alternative, metric_verdict *v) {
  memset(v, 0, sizeof *v);
  size_t nb = 0;
  for (int i = 0; i < nnewer; i++) nb += runs[i].n;
  double *b = xp_xmalloc((nb ? nb : 1) * sizeof *b);
  nb = 0;
  for (int i = 0; i < nnewer; i++) {
    if (runs[i].n) memcpy(b + nb, runs[i].v, runs[i].n * sizeof *b);
    nb += runs[i].n;
  }
  xp_compare_samples(a, na, b, nb, &v->pooled);
  free(b);
  v->each = xp_xcalloc((size_t)nnewer + 1, sizeof *v->each);
  for (int i = 0; i < nnewer; i++) {
    xp_compare_samples(a, na, runs[i].v, runs[i].n, &v->each[i]);
    if (!v->each[i].judged) continue;
    v->alone++;
    if (!moved(&v->each[i])) v->agree++;
    else if (v->each[i].change > 0) v->up++;
    else v->down++;
  }
  int lower = better && strcmp(better, "lower") == 0, higher = better && !lower;
  v->worse = lower ? v->up : higher ? v->down : v->up + v->down;
  v->better = lower ? v->down : higher ? v->up : 0;
  v->against = better && alternative ? v->better : v->worse;
  v->favour = better && alternative ? v->worse : v->better;
  v->judged = v->alone > 0 || v->pooled.judged;
  if (v->alone == 0) {
    int is_favour = moved(&v->pooled) && better &&
                    strcmp(way(&v->pooled, better), alternative ? "worse" : "better") == 0;
    v->improved = is_favour;
    v->contradicted = moved(&v->pooled) && !is_favour;
  } else if (v->against && !v->agree && !v->favour && (better || !(v->up && v->down)))
    v->contradicted = 1;
  else if (v->against) v->split = 1;
  else v->improved = v->favour > 0;
}

/* "    each newer run: 1a2b3c4d +0.2% agrees, 5e6f7a8b +30.0% (p=0.008) worse", oldest first. */
static void print_each(sqlite3 *db, const int64_t *newer, int nnewer, const char *better, const metric_verdict *v) {
  enum { SHOWN = 8 };
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT substr(uuid, 1, 8) FROM runs WHERE id = ?1");
  if (!st) return;
  fputs("    each newer run judged alone:", stdout);
  int shown = 0;
  for (int i = 0; i < nnewer; i++) {
    const xp_samplecmp *c = &v->each[i];
    if (!c->judged || ++shown > SHOWN) continue;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, newer[i]);
    printf("%s %s %+.1f%% (p=%.2g) %s", shown > 1 ? "," : "", sqlite3_step(st) == SQLITE_ROW ? txt(st, 0) : "?",
           100 * c->change, c->p, moved(c) ? way(c, better) : "agrees");
  }
  if (shown > SHOWN) printf(" and %d more", shown - SHOWN);
  if (v->alone < nnewer) printf("; %d with too few samples to judge alone", nnewer - v->alone);
  putchar('\n');
  sqlite3_finalize(st);
}

/* The verdict's lines for a metric that moved in some newer run: CONTRADICTED; SPLIT where the
** newer runs disagree among themselves; MOVED, same direction where it only got better. what
** names the metric ("op {"i":0} time"). */
static void print_verdict_lines(sqlite3 *db, const char *uuid, const char *what, const char *unit_then,
                                const char *unit_now, const int64_t *newer, int nnewer, const char *better,
                                const char *side, const metric_verdict *v) {
  const xp_samplecmp *c = &v->pooled;
  const int alternative = side && strcmp(side, "alternative") == 0;
  printf("  %s: run %.8s%s%s%s ", v->contradicted ? "CONTRADICTED" : v->split ? "SPLIT" : "MOVED, same direction", uuid,
         side ? " (" : "", side ? side : "", side ? ")" : "");
  xp_print_text(stdout, what);
  printf(": median %.4g %s then; %.4g %s in %d newer run%s (%+.1f%%, p=%.2g)", c->median_a, unit_then, c->median_b,
         unit_now, nnewer, nnewer == 1 ? "" : "s", 100 * c->change, c->p);
  if (v->alone == 0 && nnewer > 1) printf("; pooled: no newer run has %d samples alone", XP_MIN_SAMPLES);
  if (v->split && better)
    printf("; the newer runs disagree: %d worse, %d agree, %d better: not contradicted", v->worse, v->agree, v->better);
  else if (v->split) printf("; the newer runs disagree: %d moved up, %d down, %d agree: not contradicted", v->up, v->down, v->agree);
  if (v->improved && alternative)
    printf("; the alternative got worse (%s is better for %s): not contradicted", better, unit_now);
  else if (v->improved) printf("; better (%s is better for %s): not contradicted", better, unit_now);
  if (v->contradicted && alternative && better)
    printf("; the alternative got better (%s is better for %s): the decision may no longer hold", better, unit_now);
  putchar('\n');
  if (v->alone) print_each(db, newer, nnewer, better, v);
}

/* What an evidence run's metrics came to, beside the contradictions. */
typedef struct tally {
  const char *side; /* in: the side the run stands on (schema 34), NULL where the decision gave none */
  int alternative;  /* in: it is the alternative's, the option the decision was taken over */
  int judged; /* metrics given a verdict */
  int split;  /* of those, metrics the newer runs disagree on */
  int better; /* and metrics that only got better */
} tally;

/* Judge one metric (named metric, NULL where its unit alone says which way is better) and say
** what moved. Returns 1 when it is contradicted. */
static int judge_metric(sqlite3 *db, const char *uuid, const char *what, const char *metric, const char *unit_then,
                        const char *unit_now, const double *a, size_t na, const int64_t *newer,
                        const run_samples *runs, int nnewer, tally *t) {
  metric_verdict v;
  const char *better = xp_metric_better(metric, unit_now);
  weigh(a, na, runs, nnewer, better, t->alternative, &v);
  t->judged += v.judged;
  t->split += v.split;
  t->better += v.improved;
  if (v.contradicted || v.split || v.improved)
    print_verdict_lines(db, uuid, what, unit_then, unit_now, newer, nnewer, better, t->side, &v);
  free(v.each);
  return v.contradicted;
}

static void free_runs(run_samples *runs, int n) {
  for (int i = 0; i < n; i++) free(runs[i].v);
  free(runs);
}

/* A trace run's evidence: its step GPU time and each category's share of it, every step of
** every rank a sample, against the newer runs' steps. Returns contradictions found. */
static int trace_contradictions(sqlite3 *db, int64_t run, const char *uuid, const int64_t *newer, int nnewer,
                                tally *t) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT NULL UNION ALL SELECT * FROM (SELECT category FROM trace_step_categories WHERE run_id = ?1"
      " GROUP BY category ORDER BY sum(total_ns) DESC)");
  if (!st) return 0;
  sqlite3_bind_int64(st, 1, run);
  int found = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *category = (const char *)sqlite3_column_text(st, 0);
    double *a = NULL;
    size_t na = 0;
    run_samples *runs = xp_xcalloc((size_t)nnewer + 1, sizeof *runs);
    xp_trace_step_samples(db, &run, 1, category, &a, &na);
    for (int i = 0; i < nnewer; i++) xp_trace_step_samples(db, &newer[i], 1, category, &runs[i].v, &runs[i].n);
    char *what = xp_asprintf("step %s", category ? category : "GPU time");
    found += judge_metric(db, uuid, what, NULL, category ? "% of the step" : "us", category ? "%" : "us", a, na,
                          newer, runs, nnewer, t);
    free(what);
    free(a);
    free_runs(runs, nnewer);
  }
  sqlite3_finalize(st);
  return found;
}

/* Compare the evidence run's metrics with the newer runs'. Returns contradictions found. */
static int contradictions(sqlite3 *db, int64_t run, const char *uuid, const int64_t *newer,
                          int nnewer, tally *t) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT c.name, c.params, m.name, m.unit FROM cases c JOIN metrics m ON m.case_id = c.id"
      " WHERE c.run_id = ?1 AND c.status = 'ok' ORDER BY c.seq, m.name");
  xp_samples_query qa = {0}, *qb = xp_xcalloc((size_t)nnewer + 1, sizeof *qb);
  int failed = !st || xp_samples_open(db, &run, 1, &qa);
  for (int i = 0; i < nnewer && !failed; i++) failed = xp_samples_open(db, &newer[i], 1, &qb[i]);
  int found = 0;
  if (!failed) sqlite3_bind_int64(st, 1, run);
  while (!failed && sqlite3_step(st) == SQLITE_ROW) {
    double *a = NULL;
    size_t na = 0;
    run_samples *runs = xp_xcalloc((size_t)nnewer + 1, sizeof *runs);
    xp_samples_read(&qa, txt(st, 0), txt(st, 1), txt(st, 2), &a, &na);
    for (int i = 0; i < nnewer; i++) xp_samples_read(&qb[i], txt(st, 0), txt(st, 1), txt(st, 2), &runs[i].v, &runs[i].n);
    char *what = xp_asprintf("%s %s %s", txt(st, 0), txt(st, 1), txt(st, 2)); /* case, params, metric */
    char *unit = xp_terminal_text(txt(st, 3));
    found += judge_metric(db, uuid, what, txt(st, 2), unit, unit, a, na, newer, runs, nnewer, t);
    free(unit);
    free(what);
    free(a);
    free_runs(runs, nnewer);
  }
  xp_samples_close(&qa);
  for (int i = 0; i < nnewer; i++) xp_samples_close(&qb[i]);
  free(qb);
  sqlite3_finalize(st);
  return found;
}

/* "model=llama gpu=H200 tp=8 " from columns 4..7, leaving out what is not set; each value as
** xp runs shows it (an escape sequence in a GPU's name went to the terminal raw). */
static char *config_text(sqlite3_stmt *st) {
  static const char *const names[] = {"model", "gpu", "tp", "batch"};
  char *out = xp_strdup("");
  for (int i = 0; i < 4; i++) {
    if (sqlite3_column_type(st, 4 + i) == SQLITE_NULL) continue;
    char *shown = xp_terminal_text(txt(st, 4 + i));
    char *n = xp_asprintf("%s%s=%s ", out, names[i], shown);
    free(shown);
    free(out);
    out = n;
  }
  return out;
}

/* What the evidence's seal says now. The seal the decision cites is checked against the run's rows
** as they are, recomputed (chain.c), not against the seal stored beside them: rows edited in SQLite
** (the append-only triggers dropped) leave the stored seal as it was. */
static const char *seal_state(sqlite3 *db, const xp_rtree *tree, int64_t run, const char *then, const char *stored,
                              int *seal_changed) {
  char now[65];
  if (!*then) return "(unsealed when decided)";
  /* said (exit 3 at the end): rows that cannot be read are not rows changed */
  if (xp_run_content(db, tree, run, now, NULL) != 0) return "ROWS UNREADABLE: the database is damaged (xp verify)";
  if (strcmp(then, now) != 0) {
    (*seal_changed)++;
    return "ROWS CHANGED since the decision: they no longer hash to the seal it cites (xp verify names the table)";
  }
  if (strcmp(then, stored) != 0) {
    (*seal_changed)++;
    return "SEAL CHANGED since the decision (xp verify)";
  }
  return "seal unchanged";
}

/* The newer runs a contradiction pooled, oldest first: "in 3 newer runs" named none, and the
** reviewer had to find them to look (xp show) or compare (xp compare). */
static void name_runs(sqlite3 *db, const char *which, const int64_t *ids, int n) {
  enum { SHOWN = 8 };
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT substr(uuid, 1, 8) FROM runs WHERE id = ?1");
  if (!st) return;
  printf("    %s:", which);
  for (int i = 0; i < n && i < SHOWN; i++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, ids[i]);
    if (sqlite3_step(st) == SQLITE_ROW) printf("%s %s", i ? "," : "", txt(st, 0));
  }
  if (n > SHOWN) printf(" and %d more", n - SHOWN);
  putchar('\n');
  sqlite3_finalize(st);
}

/* " (chosen)", " (alternative)": the side an evidence run stands on (--over, schema 34); "" where
** the decision gave none. */
static char *side_text(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? xp_strdup("") : xp_asprintf(" (%s)", txt(st, i));
}

/* Returns the contradictions found; *by_alternative: how many of them newer runs of the alternative
** made (by getting better). */
static int audit_evidence(sqlite3 *db, const xp_rtree *tree, int64_t decision, const decided *when,
                          int *seal_changed, int *split, int *by_alternative) {
  char *sql = xp_asprintf(
      "SELECT e.run_uuid, r.id, r.kind, r.status, r.model, r.gpu_name, r.tp, r.batch, r.started_at,"
      " e.run_content_sha256, r.content_sha256, (SELECT undeclared FROM run_configuration WHERE run_id = r.id), %s"
      " FROM decision_evidence e LEFT JOIN runs r ON r.uuid = e.run_uuid"
      " WHERE e.decision_id = ?1 ORDER BY e.seq", xp_evidence_side_sql(db));
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  int total = 0;
  if (!st) return 0;
  sqlite3_bind_int64(st, 1, decision);
  int nev = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (nev++ == 0) printf("evidence:\n");
    const char *uuid = txt(st, 0);
    if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
      /* the decision checked in with this run (decision_evidence's foreign key): gone since,
      ** its rows are no longer what the decision sealed, as rows changed are */
      char *side = side_text(st, 12);
      printf("  run %s%s: MISSING from this database: removed since the decision (xp verify)\n", uuid, side);
      free(side);
      (*seal_changed)++;
      continue;
    }
    char *config = config_text(st), *side = side_text(st, 12);
    printf("  run %.8s%s  %s  %s  %s started %s  %s\n", uuid, side, txt(st, 2), txt(st, 3), config, txt(st, 8),
           seal_state(db, tree, sqlite3_column_int64(st, 1), txt(st, 9), txt(st, 10), seal_changed));
    free(side);
    free(config);
    if (strcmp(txt(st, 3), "ok") != 0) { /* the line alone read as judged: "no evidence contradicted" */
      printf("    NOT JUDGED: the run is %s: newer runs are held against ok runs only (xp show %.8s says why)\n",
             txt(st, 3), uuid);
      continue;
    }
    if (strcmp(txt(st, 2), "torch_trace") == 0) superseded_note(db, sqlite3_column_int64(st, 1), uuid);
    int64_t *newer = NULL, *early = NULL;
    int nnewer = 0, after = 0, nearly = 0;
    tally t = {.side = sqlite3_column_type(st, 12) == SQLITE_NULL ? NULL : txt(st, 12),
               .alternative = strcmp(txt(st, 12), "alternative") == 0};
    newer_runs(db, sqlite3_column_int64(st, 1), decision, when, &newer, &nnewer, &after, &early, &nearly);
    if (nnewer == 0 && sqlite3_column_type(st, 11) != SQLITE_NULL)
      printf("    no newer ok runs of the same configuration: imported with nothing declared, this trace is a"
             " configuration of its own (%s); a job imported with --set model= tp= batch= is compared with"
             " newer ones of its configuration\n", txt(st, 11));
    else if (nnewer == 0) printf("    no newer ok runs of the same configuration\n");
    else {
      int found = strcmp(txt(st, 2), "torch_trace") == 0
                      ? trace_contradictions(db, sqlite3_column_int64(st, 1), uuid, newer, nnewer, &t)
                      : contradictions(db, sqlite3_column_int64(st, 1), uuid, newer, nnewer, &t);
      total += found;
      if (t.alternative) *by_alternative += found;
      *split += t.split;
      if (found) name_runs(db, "the newer runs", newer, nnewer);
      if (!found && t.judged == 0)
        printf("    NOT JUDGED: %d newer run%s of the same configuration, but no metric has %d samples on each side,"
               " the fewest a verdict needs (%s): record the decision with a query, --query, and audit its drift\n",
               nnewer, nnewer == 1 ? "" : "s", XP_MIN_SAMPLES, xp_few_samples_why(txt(st, 2)));
      else if (!found && t.split)
        printf("    not contradicted: %d newer run%s of the same configuration (%d after the decision; %d metric%s judged)"
               " disagree among themselves on %d metric%s (SPLIT above)\n",
               nnewer, nnewer == 1 ? "" : "s", after, t.judged, t.judged == 1 ? "" : "s", t.split, t.split == 1 ? "" : "s");
      else if (!found)
        printf("    holds against %d newer run%s of the same configuration (%d after the decision; %d metric%s judged%s)\n",
               nnewer, nnewer == 1 ? "" : "s", after, t.judged, t.judged == 1 ? "" : "s",
               !t.better ? "" : t.alternative ? ", some worse, bearing the decision out: MOVED above" : ", some better: MOVED above");
    }
    if (nearly) {
      printf("    NOT COMPARED: %d run%s of the same configuration arrived after the decision but %s dated before this"
             " evidence (a clock behind, or an older measurement merged or imported since): evidence is held"
             " against runs measured later only (xp compare %.8s RUN compares one)\n",
             nearly, nearly == 1 ? "" : "s", nearly == 1 ? "is" : "are", uuid);
      name_runs(db, "dated before it", early, nearly);
    }
    free(early);
    free(newer);
  }
  sqlite3_finalize(st);
  return total;
}

/* ---- one decision ---- */

/* The decision's verdict in one line, what breaks its record first: evidence whose rows changed
** or are gone, or a record altered, was verdict "no evidence contradicted" (exit 5 the only sign),
** read as the decision holding. */
static void print_verdict(int altered, int changed, int evidence, int contradicted, int by_alternative, int split,
                          int unchecked, int moved) {
  const char *sep = "";
  fputs("verdict: ", stdout);
  if (altered) {
    fputs("DECISION ALTERED since it was made (xp verify)", stdout);
    sep = "; ";
  }
  if (changed) {
    printf("%sEVIDENCE CHANGED since the decision (%d of %d evidence run%s): what it rests on is no longer what was"
           " recorded (xp verify)", sep, changed, evidence, evidence == 1 ? "" : "s");
    sep = "; ";
  }
  if (contradicted && by_alternative == contradicted)
    printf("%sCONTRADICTED by newer runs of the alternative: it got better", sep);
  else if (by_alternative)
    printf("%sCONTRADICTED by newer runs of the chosen option and of the alternative", sep);
  else if (contradicted) printf("%sCONTRADICTED by newer runs", sep);
  else if (!*sep) fputs("no evidence contradicted", stdout);
  /* the verdict alone read as newer runs agreeing, where they disagreed among themselves */
  if (split) printf("; newer runs SPLIT on %d metric%s (some agree)", split, split == 1 ? "" : "s");
  /* a decision on a query's rows alone has no evidence to contradict: its figures are its case */
  if (moved) printf("; its query's figures MOVED since the decision (%d value%s)", moved, moved == 1 ? "" : "s");
  printf("%s\n", unchecked ? "; its query NOT CHECKED (it no longer runs here)" : "");
}

/* by_run: NULL, or xp audit --by-run's memo */
static int audit_one(sqlite3 *db, const xp_rtree *tree, int64_t id, by_run_memo *by_run, int *contradicted,
                     int *seal_changed) {
  sqlite3_stmt *d = xp_db_prepare(db,
      "SELECT uuid, title, rationale, author, created_at, xp_version, xp_commit, supersedes,"
      " evidence_count, query_file, query_text, query_params, query_result, query_result_sha256,"
      " decision_sha256 FROM decisions d WHERE id = ?1");
  if (!d) return XP_EXIT_DB;
  sqlite3_bind_int64(d, 1, id);
  if (sqlite3_step(d) != SQLITE_ROW) {
    sqlite3_finalize(d);
    return xp_db_fail(db, "reading a decision");
  }
  const char *created = txt(d, 4);
  const decided when = {created, arrival(db, id)};
  /* decision UUID: TITLE / by AUTHOR at CREATED with xp VERSION (COMMIT) / because: RATIONALE */
  static const char *const before[] = {"decision ", ": ", "\n  by ", " at ", " with xp ", " (", ")\n  because: "};
  static const int column[] = {0, 1, 3, 4, 5, 6, 2};
  for (int i = 0; i < 7; i++) {
    fputs(before[i], stdout);
    xp_print_text(stdout, txt(d, column[i]));
  }
  putchar('\n');
  if (*txt(d, 7)) printf("  supersedes: %s\n", txt(d, 7));
  int successors;
  char *names;
  if (xp_decision_successors(db, txt(d, 0), &successors, &names) != 0) {
    sqlite3_finalize(d);
    return XP_EXIT_DB;
  }
  if (names) printf("  SUPERSEDED by: %s\n", names);
  free(names);
  char digest[65];
  /* the seals the decision cites are its own rows: edited to match edited evidence, they hash apart */
  const int altered = xp_decision_digest(db, id, digest) == 0 && strcmp(digest, txt(d, 14)) != 0;
  if (altered)
    printf("  DECISION ALTERED since it was made: its record (title, rationale, evidence or query) no longer"
           " matches its digest (xp verify)\n");
  int64_t since = 0, since_ok = 0;
  count_since(db, &when, &since, &since_ok);
  printf("  runs recorded since the decision: %lld (%lld ok)%s\n", (long long)since, (long long)since_ok,
         when.seq < 0 ? " by the runs' own dates (recorded before schema 11, this decision does not say where"
                        " it arrived: a run merged in since with an older date is not counted)" : "");
  int unchecked = 0, moved = 0;
  if (sqlite3_column_type(d, 10) != SQLITE_NULL) {
    char h[65];
    xp_sha256_hex(txt(d, 12), strlen(txt(d, 12)), h);
    if (strcmp(h, txt(d, 13)) != 0) printf("  WARNING: the recorded query result does not match its hash (xp verify)\n");
    unchecked = audit_query(db, d, since, &when, by_run, &moved);
  } else if (by_run)
    printf("  by run: NOT ATTRIBUTED: the decision has no query (--by-run names the runs that moved a query's figures;"
           " its evidence is held against newer runs below)\n");
  int changed = 0;
  int split = 0, by_alternative = 0;
  int found = audit_evidence(db, tree, id, &when, &changed, &split, &by_alternative);
  *contradicted += found > 0; /* decisions, as the summary on stderr counts them */
  *seal_changed += altered || changed;
  print_verdict(altered, changed, sqlite3_column_int(d, 8), found, by_alternative, split, unchecked, moved);
  sqlite3_finalize(d);
  return 0;
}

int cmd_audit(int argc, char **argv, const char *db_path) {
  const char *ref = NULL;
  int rc = 0, by_run = 0;
  by_run_memo memo = {0};
  for (int i = 1; i < argc && rc == 0; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(argv[i], "--by-run") == 0) by_run = 1;
    else if (argv[i][0] == '-') rc = xp_unknown_option("audit", argv[i], (const char *const[]){"--by-run", "--help", NULL});
    else if (ref) rc = xp_one_at_a_time("audit", "decision", ref, argv[i]);
    else ref = argv[i];
  }
  if (rc) return rc;
  sqlite3 *db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  if (!db) return rc;
  if ((rc = xp_db_snapshot(db)) != 0 || (rc = xp_history_schema(db, db_path)) != 0) {
    xp_db_close(db);
    return rc;
  }
  int contradicted = 0, seal_changed = 0;
  xp_rtree tree = {0};
  if ((rc = xp_rtree_load(db, &tree)) != 0) {
    xp_db_close(db);
    return rc;
  }
  if (ref) {
    int64_t id;
    if ((rc = xp_resolve_decision(db, ref, &id, NULL)) == 0) rc = audit_one(db, &tree, id, by_run ? &memo : NULL, &contradicted, &seal_changed);
  } else {
    /* every successor: two databases that each superseded a decision apart, merged, hold both,
    ** and the list named the first alone, as if the fork were settled (xp merge warns of it once) */
    sqlite3_stmt *st = xp_db_prepare(db, "SELECT id, uuid, title, created_at FROM decisions ORDER BY created_at, id");
    if (!st) rc = XP_EXIT_DB;
    int n = 0;
    while (rc == 0 && st && sqlite3_step(st) == SQLITE_ROW) {
      if (n++) putchar('\n');
      int times;
      char *names;
      if ((rc = xp_decision_successors(db, txt(st, 1), &times, &names)) != 0) break;
      if (names) {
        printf("decision %s: ", txt(st, 1));
        xp_print_text(stdout, txt(st, 2));
        fputs(" (", stdout);
        xp_print_text(stdout, txt(st, 3));
        if (times == 1) printf(") -- superseded by %s\n", names);
        else if (times == 2) printf(") -- superseded twice, by %s (made apart, then merged): both stand\n", names);
        else printf(") -- superseded %d times, by %s (made apart, then merged): all stand\n", times, names);
        free(names);
      } else rc = audit_one(db, &tree, sqlite3_column_int64(st, 0), by_run ? &memo : NULL, &contradicted,
                            &seal_changed);
    }
    sqlite3_finalize(st);
    if (rc == 0 && n == 0) printf("no decisions recorded (xp decide records one)\n");
  }
  xp_rtree_free(&tree);
  by_run_memo_free(&memo);
  xp_db_close(db);
  /* a damaged page read as no rows (a decision's evidence as none: "DECISION ALTERED", exit 5,
  ** nothing on stderr) is the database's fault: no verdict drawn from it stands */
  if (rc == 0) rc = xp_db_faulted(db_path, "no verdict stands");
  /* one line on stderr, as xp verify's "N breaks found": a CI job watching decisions sees why it
  ** failed where it keeps stderr alone */
  char also[64] = "";
  if (contradicted) snprintf(also, sizeof also, "; %d contradicted by newer runs", contradicted);
  if (rc == 0 && seal_changed) /* evidence altered since: nothing it says stands */
    rc = xp_error_at(XP_EXIT_INTEGRITY, db_path, 0, "%d decision%s evidence or record changed since %s made (xp verify)%s",
                     seal_changed, seal_changed == 1 ? "'s" : "s'", seal_changed == 1 ? "it was" : "they were", also);
  else if (rc == 0 && contradicted)
    rc = xp_error_at(XP_EXIT_FAILED, db_path, 0, "%d decision%s contradicted by newer runs", contradicted,
                     contradicted == 1 ? "" : "s");
  return rc;
}
