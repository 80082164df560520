/*
** History you can trust (issue 7): what a run's content is (chain.c), how two sets of samples
** are compared (cmd_compare.c), and decisions (cmd_decide.c). Shared by compare, decide,
** audit, rerun, verify, merge and export.
*/
#ifndef XP_HISTORY_H
#define XP_HISTORY_H
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the run tree (chain.c) ----
** Every table whose rows belong to a run, found from the schema: tables with a foreign key to
** runs(id) or a run_id column, and, transitively, tables with a foreign key to the rowid of
** such a table (cases -> metrics, samples). Table 0 is runs itself. */
typedef struct xp_rtable {
  char *name;
  int parent;            /* index of the parent table; -1 for runs */
  int depth;             /* 0 for runs, 1 for its direct children, ... */
  char *fk;              /* column holding the parent row's rowid (NULL for runs) */
  char *rowid_col;       /* the INTEGER PRIMARY KEY column, NULL if the table has none */
  int ncols;
  char **cols;           /* every column, in declaration order */
  unsigned char *local;  /* 1: a local id (rowid, parent key, run_id): not content */
  unsigned char *runref; /* 1: holds the owning run's id */
  int *pkpos;            /* position in the primary key (1-based), 0 if not part of it */
  unsigned char *xref;   /* 1: holds the rowid of a row of another table (not the parent):
                         ** a local id that xp merge cannot translate */
} xp_rtable;

typedef struct xp_rtree {
  int n;
  xp_rtable *t; /* parents come before their children */
} xp_rtree;

/* Discover the tree. Returns 0 or an exit code (reported). */
int xp_rtree_load(sqlite3 *db, xp_rtree *tree);
void xp_rtree_free(xp_rtree *tree);
/* Quote an SQL identifier ("name", with embedded quotes doubled). Caller frees. */
char *xp_sql_ident(const char *name);

/* The run's content: one SHA-256 per table over its rows for this run (a JSON object
** {table: sha256}, only tables with rows, keys sorted), and content = SHA-256 of that JSON.
** Independent of local ids, so a run merged into another database keeps its content hash. */
int xp_run_content(sqlite3 *db, const xp_rtree *tree, int64_t run_id, char content[65],
                   char **digests_json);

/* The link of the chain: SHA-256 over the previous link's hex and this content's hex.
** The first link's previous is 64 zeros. */
void xp_chain_link(const char *prev_hex, const char *content_hex, char out[65]);
extern const char xp_chain_genesis[65];

/* Append-only triggers for every run table (CREATE TRIGGER IF NOT EXISTS): the core tables
** get theirs from schema/006_history.sql; tables added by later migrations get theirs here,
** from the same template. Run inside a write transaction. */
int xp_history_guard(sqlite3 *db, const xp_rtree *tree);
/* Tables of the tree that hold rows but lack one of their three append-only triggers. */
int xp_history_unguarded(sqlite3 *db, const xp_rtree *tree, char ***names, int *n);

/* 0 if the database has schema 6's tables (decisions, seals); else reports how to upgrade. */
int xp_history_schema(sqlite3 *db, const char *path);

/* ---- comparing samples (cmd_compare.c) ---- */
#define XP_MIN_SAMPLES 5   /* per side, below which no verdict is given */
#define XP_ALPHA 0.05

typedef struct xp_samplecmp {
  size_t na, nb;
  double median_a, median_b;
  double change;    /* (median_b - median_a) / |median_a|, NaN when median_a is 0 */
  double p;         /* Mann-Whitney two-sided p, NaN when not judged */
  int judged;       /* both sides have at least XP_MIN_SAMPLES */
  int beyond_noise; /* judged and p < XP_ALPHA */
} xp_samplecmp;
void xp_compare_samples(const double *a, size_t na, const double *b, size_t nb,
                        xp_samplecmp *out);
/* Which way is better for a metric (unit_better.c, the one list): "lower" (a time, an energy, an
** error), "higher" (a rate: any unit ending in /s; tok/J; a speedup), "either" (a share, a count: no
** better way), NULL for a unit xp does not record. The unit decides, but for the few metrics whose
** unit is shared with ones going the other way. xp_metric_better is it less "either" (NULL then too).
** xp_register_unit_fns gives SQL xp_metric_direction(metric, unit), on every connection xp_db_open
** makes. */
const char *xp_metric_direction(const char *metric, const char *unit);
const char *xp_metric_better(const char *metric, const char *unit);
int xp_register_unit_fns(sqlite3 *db);

/* "(1,2,3)": run ids as a literal SQL list ("(NULL)" when empty). */
char *xp_id_list(const int64_t *ids, int n);

/* Per-step samples of trace runs: each marked step of each rank is one, its GPU time (us) where
** category is NULL, else that category's share of it (%), 0 where the step had none. A run
** whose whole window stands in for a step gives none. *out is malloc'd. */
/* Why runs of a kind may hold too few samples for a verdict (an imported nccl-tests log: one a
** case), for xp audit and xp compare to say. */
const char *xp_few_samples_why(const char *kind);
int xp_trace_step_samples(sqlite3 *db, const int64_t *runs, int nruns, const char *category, double **out,
                          size_t *n);

/* A case's identity across runs, as SQL over its params column: the params less where an
** import read the case (the file and the position of a result in it), so that a vLLM result
** saved under a new name is the same case. */
#define XP_CASE_KEY(params) "json_remove(" params ", '$.file', '$.result')"

/* Samples of one metric of a set of runs, case by case: xp_samples_open prepares the lookups
** once for the runs whose ids are given (preparing is most of a lookup's cost, and xp compare
** makes one for each metric of thousands of cases), xp_samples_read gives those of the case
** with this name and params (as XP_CASE_KEY: file and position aside): the raw samples where
** they were kept, else each run's recorded median (a derived value has no samples). *out is
** malloc'd. xp_samples_close finalizes (and takes a query that failed to open or is zeroed). */
typedef struct xp_samples_query {
  sqlite3_stmt *cases;   /* the runs' ok cases of a name, params and metric */
  sqlite3_stmt *samples; /* one case's raw samples of a metric */
} xp_samples_query;
int xp_samples_open(sqlite3 *db, const int64_t *runs, int nruns, xp_samples_query *q);
void xp_samples_read(xp_samples_query *q, const char *case_name, const char *params, const char *metric,
                     double **out, size_t *n);
void xp_samples_close(xp_samples_query *q);

/* What was true of a set of runs: metadata (detected over declared), spec hash, origin, xp
** commit, GPUs, as an object key -> sorted array of distinct values. Facts that change from
** run to run without changing what was measured (boot id, the importing host) are left out. */
cJSON *xp_run_facts(sqlite3 *db, const int64_t *runs, int nruns, int *rc);
/* Keys whose values differ: [{key, a, b}] with values as "v1 | v2" text, "(unset)" if absent. */
cJSON *xp_fact_differences(const cJSON *a, const cJSON *b);

/* ---- the same result files imported again ----
** An imported run whose result files (all of them, by content, under any name) another import
** holds alike: xp rerun of an import, a corrected --set, a script run twice. Each set of files
** counts once, its latest import, measured when the first was (a log that names no date is
** dated by its import: a re-import is no newer measurement). A derived table of
** (run_id, first_measured, superseded, counted: the import that counts in its place), one row
** per imported run with files; joined LEFT, a run
** without a row counts as itself. queries/regressions.sql spells the same rule out in SQL (CTE
** reimported); keep the two alike. Trace imports keep no files: view trace_superseded has them. */
#define XP_SQL_REIMPORTED                                                                          \
  "(WITH files AS (SELECT r.id, (SELECT group_concat(sha256, ',') FROM (SELECT sha256 FROM artifacts a" \
  "                 WHERE a.run_id = r.id ORDER BY sha256)) AS shas"                               \
  "                FROM runs r WHERE r.origin = 'imported' AND r.status = 'ok')"                  \
  " SELECT a.id AS run_id, (SELECT t.measured_at FROM files o JOIN run_measured t ON t.run_id = o.id" \
  "                         WHERE o.shas = a.shas ORDER BY julianday(t.measured_at) LIMIT 1)"      \
  "                        AS first_measured,"                                                    \
  "        EXISTS (SELECT 1 FROM files b WHERE b.shas = a.shas AND b.id > a.id) AS superseded,"  \
  "        (SELECT max(b.id) FROM files b WHERE b.shas = a.shas) AS counted"                      \
  " FROM files a WHERE a.shas IS NOT NULL)"

/* ---- decisions (cmd_decide.c) ---- */
int xp_resolve_decision(sqlite3 *db, const char *ref, int64_t *id, char uuid_out[37]);
/* The decisions that supersede decision `uuid` (two or more: superseded apart on two databases,
** then merged), oldest first, "A and B": by created_at, then uuid, so that every database holding
** them names them in one order, whatever order their rows arrived in. *names is malloc'd, NULL
** where none; *count is how many. xp audit, xp decide and xp merge name a fork with it. */
int xp_decision_successors(sqlite3 *db, const char *uuid, int *count, char **names);
/* The decision's record as canonical JSON and its SHA-256 (what decision_sha256 holds). */
int xp_decision_digest(sqlite3 *db, int64_t id, char out[65]);
/* SQL for the side of evidence row `e` (schema 34's decision_evidence_sides): "chosen",
** "alternative", or NULL where none was given; "NULL" in a database older than schema 34 (xp
** audit's, read unmigrated, or xp merge's other). xp_evidence_side_insert records one. */
const char *xp_evidence_side_sql(sqlite3 *db);
int xp_evidence_side_insert(sqlite3 *db, int64_t decision_id, int64_t seq, const char *side);
/* Run a decision's query text against db (read-only rules as xp query) into a JSON array of
** result sets, one per statement, each an array of row objects;
** *unused (where not NULL): the first of params that no statement names, or NULL; given (a
** decision being recorded), two columns of one name are refused too, an older decision's
** query re-run as it was. */
cJSON *xp_decision_query(sqlite3 *db, const char *sql, const char *label,
                         const cJSON *params, const char **unused, int *rc);
/* Where one of a decision's query params names a run by its local id (runs.id: --param run=3),
** which differs in every database xp merge copies the decision into, what to say of it (xp
** decide warns, xp audit notes it under the query); NULL where none does. Malloc'd. */
char *xp_decision_local_run_note(sqlite3 *db, const cJSON *params);

/* ---- rerun (cmd_rerun.c) ---- */
struct xp_kind;
/* Run a recorded run's stored spec again as a new run linked to it (parent_uuid). kind: the
** kind to run it with, NULL to look up the spec's "kind". Warns when the xp commit, the
** environment or the hardware differ. Returns the new run's exit code. */
int xp_rerun(sqlite3 *db, int64_t run_id, const struct xp_kind *kind, char new_uuid[37]);

/* The command line of rerun and merge, which take one thing (a run, a database) and
** --dry-run: `xp CMD TARGET [--dry-run]`. --help or -h prints usage. Another option, a second
** TARGET (said as "one ONE at a time", naming both: xp_one_at_a_time) or none (said with
** `missing`) is a usage error. Returns 0 with *target and
** *dry set, -1 after printing usage (the command exits 0), or the usage error's exit code. */
int xp_history_args(int argc, char **argv, const char *cmd, const char *help,
                    const char *one, const char *missing, const char **target, int *dry);
#endif
