/*
** xp decide "TITLE" --because "..." --evidence RUN... [--over RUN...] [--query FILE.sql
**           --param K=V ...] [--supersedes DECISION]
**
** A decision records who decided what, when, with which xp, and on which evidence: the runs
** (by UUID, with each run's seal at that moment, and with --over the side each stands on: the
** chosen option's runs and the alternative's, schema/034) and, optionally, a query with its text,
** parameters and result rows as they were, hashed. Nothing is written unless everything checks
** out. Decisions are never edited (schema/006_history.sql refuses it); a new decision may
** supersede an old one. xp audit re-runs the query later and shows what moved.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "chain.h"
#include "db.h"
#include "history.h"
#include "meta.h"
#include "query.h"
#include "runref.h"
#include "spec.h"
#include "xp.h"

static const char usage[] =
    "usage: xp decide \"TITLE\" --because \"WHY\" --evidence RUN... [--over RUN...]\n"
    "                 [--query FILE.sql|- [--param NAME=VALUE]...] [--supersedes DECISION]\n"
    "  Records a decision: title, rationale, author ($XP_AUTHOR, else git config user.name,\n"
    "  else $USER), time, xp's commit, the evidence runs (UUIDs or unique prefixes; finished\n"
    "  runs only) and, with --query, the query's text, parameters and result rows as they are\n"
    "  now, with their SHA-256. At least one evidence run or a query is required.\n"
    "  --over names the alternative's runs where the decision picks one option over another\n"
    "  (\"NVLink over PCIe\": --evidence NVLINK_RUN --over PCIE_RUN): the --evidence runs are\n"
    "  then the chosen side, and xp audit holds a newer run of the alternative that got better\n"
    "  against the decision, where one of the chosen side must get worse.\n"
    "  Decisions are never edited: --supersedes names the decision this one replaces (and a\n"
    "  --param the query does not name, a misspelt one, is refused).\n"
    "  xp audit DECISION shows it later, with what has changed since. --evidence takes every\n"
    "  word up to the next option as a run: the title goes before it, or after -- (a title\n"
    "  that starts with a dash too): xp decide -- \"-20% TTFT\" --because ...\n";

/* ---- the record and its digest ---- */

typedef struct decision_rec {
  const char *uuid, *title, *rationale, *author, *created_at, *xp_version, *xp_commit;
  const char *supersedes, *query_file, *query_text, *query_params, *query_result_sha256;
  int64_t evidence_count;
  cJSON *evidence; /* array of {run_uuid, run_content_sha256[, side]} in order */
} decision_rec;

static void add_str(cJSON *o, const char *k, const char *v) {
  if (v) cJSON_AddStringToObject(o, k, v);
  else cJSON_AddNullToObject(o, k);
}

/* The digest covers every field of the record; the result rows are covered by their hash. */
static void digest_of(const decision_rec *d, char out[65]) {
  cJSON *o = cJSON_CreateObject();
  add_str(o, "uuid", d->uuid);
  add_str(o, "title", d->title);
  add_str(o, "rationale", d->rationale);
  add_str(o, "author", d->author);
  add_str(o, "created_at", d->created_at);
  add_str(o, "xp_version", d->xp_version);
  add_str(o, "xp_commit", d->xp_commit);
  add_str(o, "supersedes", d->supersedes);
  add_str(o, "query_file", d->query_file);
  add_str(o, "query_text", d->query_text);
  add_str(o, "query_params", d->query_params);
  add_str(o, "query_result_sha256", d->query_result_sha256);
  cJSON_AddNumberToObject(o, "evidence_count", (double)d->evidence_count);
  cJSON_AddItemToObject(o, "evidence", cJSON_Duplicate(d->evidence, 1));
  char *text = xp_json_canonical(o);
  xp_sha256_hex(text, strlen(text), out);
  free(text);
  cJSON_Delete(o);
}

static const char *col(sqlite3_stmt *st, int i) { return (const char *)sqlite3_column_text(st, i); }

/* One evidence run as the record has it. The side is left out where there is none (evidence
** without --over, every decision before schema 34), so their digests stay what they were. */
static cJSON *evidence_item(const char *uuid, const char *seal, const char *side) {
  cJSON *e = cJSON_CreateObject();
  add_str(e, "run_uuid", uuid);
  add_str(e, "run_content_sha256", seal);
  if (side) cJSON_AddStringToObject(e, "side", side);
  return e;
}

const char *xp_evidence_side_sql(sqlite3 *db) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT 1 FROM sqlite_schema WHERE name = 'decision_evidence_sides'");
  int has = st && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return has ? "(SELECT s.side FROM decision_evidence_sides s WHERE s.decision_id = e.decision_id AND s.seq = e.seq)" : "NULL";
}

int xp_decision_digest(sqlite3 *db, int64_t id, char out[65]) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT uuid, title, rationale, author, created_at, xp_version, xp_commit, supersedes,"
      " query_file, query_text, query_params, query_result_sha256, evidence_count"
      " FROM decisions WHERE id = ?1");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, id);
  if (sqlite3_step(st) != SQLITE_ROW) {
    sqlite3_finalize(st);
    return xp_error(XP_EXIT_USAGE, "decision %lld does not exist", (long long)id);
  }
  decision_rec d = {col(st, 0), col(st, 1), col(st, 2), col(st, 3), col(st, 4), col(st, 5),
                    col(st, 6), col(st, 7), col(st, 8), col(st, 9), col(st, 10), col(st, 11),
                    sqlite3_column_int64(st, 12), cJSON_CreateArray()};
  /* a database older than schema 34 (xp merge's other, xp audit's unmigrated) has no sides */
  char *sql = xp_asprintf("SELECT e.run_uuid, e.run_content_sha256, %s FROM decision_evidence e"
                          " WHERE e.decision_id = ?1 ORDER BY e.seq", xp_evidence_side_sql(db));
  sqlite3_stmt *ev = xp_db_prepare(db, sql);
  free(sql);
  if (!ev) {
    sqlite3_finalize(st);
    cJSON_Delete(d.evidence);
    return XP_EXIT_DB;
  }
  sqlite3_bind_int64(ev, 1, id);
  while (sqlite3_step(ev) == SQLITE_ROW) cJSON_AddItemToArray(d.evidence, evidence_item(col(ev, 0), col(ev, 1), col(ev, 2)));
  digest_of(&d, out);
  sqlite3_finalize(ev);
  sqlite3_finalize(st);
  cJSON_Delete(d.evidence);
  return 0;
}

int xp_resolve_decision(sqlite3 *db, const char *ref, int64_t *id, char uuid_out[37]) {
  size_t n = strlen(ref);
  if (n == 0) /* as xp_resolve_run: '' read "xp: : not a decision id" */
    return xp_error(XP_EXIT_USAGE, "an empty decision id (expected a UUID or a prefix of at least 4 hex digits)");
  if (n < 4 || n > 36 || strspn(ref, "0123456789abcdefABCDEF-") != n) {
    char *cut = xp_value_cut(ref);
    xp_error(XP_EXIT_USAGE, "%s: not a decision id (a UUID or a prefix of at least 4 hex digits)", cut);
    free(cut);
    return XP_EXIT_USAGE;
  }
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT id, uuid FROM decisions WHERE uuid >= lower(?1) AND uuid < lower(?1) || 'g' ORDER BY uuid LIMIT 2");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, ref);
  int count = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (count++ == 0) {
      *id = sqlite3_column_int64(st, 0);
      if (uuid_out) snprintf(uuid_out, 37, "%s", col(st, 1));
    }
  }
  sqlite3_finalize(st);
  if (count == 0) return xp_error(XP_EXIT_USAGE, "%s: no such decision (xp audit lists them)", ref);
  if (count > 1) return xp_error(XP_EXIT_USAGE, "%s: ambiguous decision id prefix; give more digits", ref);
  return 0;
}

/* ---- the query ---- */

struct collect {
  cJSON *sets;
  const xp_param *params;
  int nparams;
  char *used; /* which params the statements name */
  int names_apart; /* refuse two columns of one name: its stored rows would keep one of them */
};

static int collect_rows(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  struct collect *c = arg;
  xp_params_named(st, c->params, c->nparams, c->used);
  if (c->names_apart && xp_json_names_apart(st, file, line)) return XP_EXIT_USAGE;
  int rc = 0;
  cJSON *rows = xp_rows_json(st, &rc);
  if (rc) {
    cJSON_Delete(rows);
    /* as xp query's step_error: a damaged or locked database is its fault (3), not the query's */
    if (xp_db_fault(db)) return xp_db_fail(db, "reading");
    return xp_error_at(XP_EXIT_USAGE, file, line, "%s", sqlite3_errmsg(db));
  }
  cJSON_AddItemToArray(c->sets, rows);
  return 0;
}

cJSON *xp_decision_query(sqlite3 *db, const char *sql, const char *label, const cJSON *params,
                         const char **unused, int *rc) {
  int n = cJSON_GetArraySize(params), i = 0;
  xp_param *p = xp_xcalloc((size_t)(n ? n : 1), sizeof *p);
  const cJSON *e;
  cJSON_ArrayForEach(e, params) {
    snprintf(p[i].name, sizeof p[i].name, "%s", e->string);
    p[i].value = cJSON_IsString(e) ? e->valuestring : "";
    i++;
  }
  struct collect c = {cJSON_CreateArray(), p, i, xp_xcalloc((size_t)i + 1, 1), unused != NULL};
  *rc = xp_query_text(db, sql, label, p, i, collect_rows, &c);
  if (unused) { /* the first param no statement names, as params spells it */
    *unused = NULL;
    i = 0;
    cJSON_ArrayForEach(e, params) if (!*unused && !c.used[i++]) *unused = e->string;
  }
  free(c.used);
  free(p);
  if (*rc) {
    cJSON_Delete(c.sets);
    return NULL;
  }
  return c.sets;
}

/* Whether a --param's name says it holds a run (run, run_id, baseline_run, id): its digits
** are then the run's local id, not a count or a size. */
static int names_a_run(const char *name) {
  char low[64];
  size_t n = strlen(name);
  if (n >= sizeof low) return 0;
  for (size_t i = 0; i <= n; i++) low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
  return strcmp(low, "id") == 0 || strncmp(low, "run", 3) == 0 || (n >= 3 && strcmp(low + n - 3, "run") == 0) ||
         (n >= 3 && strcmp(low + n - 3, "_id") == 0);
}

char *xp_decision_local_run_note(sqlite3 *db, const cJSON *params) {
  const cJSON *e;
  char uuid[37];
  cJSON_ArrayForEach(e, params) {
    const char *v = cJSON_IsString(e) ? e->valuestring : "";
    if (names_a_run(e->string) && xp_local_run_uuid(db, v, uuid))
      return xp_asprintf("--param %s=%s names a run by its local id (runs.id %s is run %.8s here): each database"
                         " numbers its runs itself, and xp merge renumbers those it copies, so in another the"
                         " query reads another run; select runs by UUID (r.uuid LIKE :%s || '%%')",
                         e->string, v, v, uuid, e->string);
  }
  return NULL;
}

/* ---- recording ---- */

static char *author_name(void) {
  const char *a = getenv("XP_AUTHOR");
  if (a && *a) return xp_strdup(a);
  char buf[256];
  char *git[] = {"git", "config", "user.name", NULL};
  if (xp_capture_line(git, buf, sizeof buf) == 0) {
    buf[strcspn(buf, "\n")] = 0;
    if (buf[0]) return xp_strdup(buf);
  }
  a = getenv("USER");
  return xp_strdup(a && *a ? a : "unknown");
}

typedef struct decide_args {
  const char *title, *because, *query_file, *supersedes;
  const char **evidence;
  const char **side; /* each evidence run's: "chosen" (--evidence beside --over), "alternative"
                     ** (--over), NULL without --over */
  int nevidence, nover;
  cJSON *params; /* object NAME -> VALUE */
} decide_args;

/* --evidence and --over take every word up to the next option (and --opt=RUN) as a run. Returns
** 1 where argv[*i] is the option, with its runs added as of side; -1 where it has none (said). */
static int take_runs(int argc, char **argv, int *i, const char *opt, const char *side, decide_args *a) {
  size_t n = strlen(opt);
  if (strncmp(argv[*i], opt, n) != 0 || (argv[*i][n] != 0 && argv[*i][n] != '=')) return 0;
  int taken = argv[*i][n] == '=';
  if (taken) a->evidence[a->nevidence] = argv[*i] + n + 1, a->side[a->nevidence++] = side;
  while (*i + 1 < argc && argv[*i + 1][0] != '-') {
    a->evidence[a->nevidence] = argv[++*i], a->side[a->nevidence++] = side;
    taken = 1;
  }
  if (!taken) return xp_usage_error("decide", "%s needs at least one run", opt), -1;
  return 1;
}

static int parse_args(int argc, char **argv, decide_args *a) {
  int bad = 0, took;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((took = take_runs(argc, argv, &i, "--evidence", "chosen", a)) != 0 ||
        (took = take_runs(argc, argv, &i, "--over", "alternative", a)) != 0) {
      if (took < 0) return XP_EXIT_USAGE;
    } else if ((v = xp_opt_value(argc, argv, &i, "--because", &bad))) {
      if (xp_opt_twice("decide", "--because", v, a->because)) return XP_EXIT_USAGE;
      a->because = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--query", &bad))) {
      if (xp_opt_twice("decide", "--query", v, a->query_file)) return XP_EXIT_USAGE;
      a->query_file = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--supersedes", &bad))) {
      if (xp_opt_twice("decide", "--supersedes", v, a->supersedes)) return XP_EXIT_USAGE;
      a->supersedes = v;
    } else if ((v = xp_opt_value(argc, argv, &i, "--param", &bad))) {
      xp_param p;
      if (xp_param_parse(v, &p) != 0)
        return xp_usage_value_error("decide", "--param", v, "expected NAME=VALUE with NAME of letters, digits and _");
      if (cJSON_GetObjectItemCaseSensitive(a->params, p.name)) {
        char *name = xp_value_cut(p.name);
        int rc = xp_usage_value_error("decide", "--param", v, "%s given twice", name);
        free(name);
        return rc;
      }
      cJSON_AddStringToObject(a->params, p.name, p.value);
    } else if (bad) return XP_EXIT_USAGE;
    /* a title that starts with a dash ("-20% TTFT with an fp8 KV cache") was an unknown option */
    else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !a->title) a->title = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) return xp_unknown_option("decide", argv[i], (const char *const[]){"--because", "--evidence", "--query", "--param", "--supersedes", "--help", NULL});
    else if (a->title) return xp_usage_error("decide", "one title (quote it); runs go after --evidence");
    else a->title = argv[i];
  }
  if (!a->title || !*a->title) {
    /* --evidence takes every word up to the next option: a title after the runs was taken for one,
    ** and the user who gave one was asked for it */
    for (int i = 0; i < a->nevidence; i++) {
      size_t n = strlen(a->evidence[i]);
      if (n < 4 || n > 36 || strspn(a->evidence[i], "0123456789abcdefABCDEF-") != n)
        return xp_usage_value_error("decide", "--evidence", a->evidence[i],
                                    "not a run id (a UUID or a prefix of at least 4 hex digits); the title goes"
                                    " before --evidence, or after --");
    }
    /* every word reads as a run id, and the last could be the title too ("cafe", "deadbeef",
    ** "add-bf16"): it was asked for as if none were given */
    if (a->nevidence > 0)
      return xp_usage_error("decide", "no title given: '%s', after --evidence, was read as a run; if it is the title, put it"
                                      " before --evidence, or after --", a->evidence[a->nevidence - 1]);
    return xp_usage_error("decide", "what was decided? give a title");
  }
  if (!a->because || !*a->because) return xp_usage_error("decide", "why? --because \"...\" is required");
  for (int i = 0; i < a->nevidence; i++) a->nover += a->side[i][0] == 'a';
  if (a->nover && a->nover == a->nevidence)
    return xp_usage_error("decide", "--over names the alternative's runs; --evidence names the chosen option's");
  if (a->nevidence == 0 && !a->query_file)
    return xp_usage_error("decide", "a decision needs evidence: --evidence RUN... and/or --query FILE.sql");
  if (cJSON_GetArraySize(a->params) > 0 && !a->query_file)
    return xp_usage_error("decide", "--param is for the --query file; there is none");
  return 0;
}

/* A sealed run's rows must still hash to its seal: the decision stores that seal as its
** evidence, and rows edited in SQLite since (the append-only triggers dropped) would be sealed
** into it under the old seal, read by xp audit as changed after the decision. */
static int check_sealed(sqlite3 *db, xp_rtree *tree, int64_t id, const char *seal, const char *arg, const char *uuid) {
  char now[65];
  int rc;
  if (!seal || !*seal) return 0; /* unsealed (an older xp's): xp verify --seal seals it */
  if (!tree->n && (rc = xp_rtree_load(db, tree)) != 0) return rc;
  if ((rc = xp_run_content(db, tree, id, now, NULL)) != 0) return rc;
  if (strcmp(now, seal) != 0)
    return xp_error(XP_EXIT_INTEGRITY, "%s: run %s: its rows no longer hash to its seal (xp verify names the table); "
                    "it is no evidence", arg, uuid);
  return 0;
}

static int resolve_one(sqlite3 *db, const char *arg, const char *side, cJSON *evidence, xp_rtree *tree) {
  int64_t id;
  char uuid[37];
  int rc = xp_resolve_run(db, arg, &id, uuid);
  if (rc) return rc;
  const cJSON *e;
  cJSON_ArrayForEach(e, evidence) {
    if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "run_uuid")->valuestring, uuid) != 0) continue;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "side");
    if (!side || strcmp(s->valuestring, side) == 0) return 0; /* given twice */
    return xp_usage_value_error("decide", side[0] == 'a' ? "--over" : "--evidence", arg, "run %.8s is given with --evidence too: a run stands on one side", uuid);
  }
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT status, content_sha256 FROM runs WHERE id = ?1");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, id);
  if (sqlite3_step(st) != SQLITE_ROW) {
    sqlite3_finalize(st);
    return xp_db_fail(db, "reading a run");
  }
  if (strcmp(col(st, 0), "running") == 0)
    rc = xp_error(XP_EXIT_USAGE, "%s: run %s has not finished; only finished runs are evidence", arg, uuid);
  /* an interrupted run holds part of a measurement, or none: a failed one is evidence (of
  ** the failure), an aborted one is not */
  else if (strcmp(col(st, 0), "aborted") == 0)
    rc = xp_error(XP_EXIT_USAGE, "%s: run %s was interrupted (aborted); it is no evidence: run it again", arg, uuid);
  else if ((rc = check_sealed(db, tree, id, col(st, 1), arg, uuid)) == 0) {
    cJSON_AddItemToArray(evidence, evidence_item(uuid, col(st, 1), side));
  }
  sqlite3_finalize(st);
  return rc;
}

/* Evidence runs must exist and be finished, and not interrupted: a running run's results are
** not yet evidence, an aborted one's never are. */
static int resolve_evidence(sqlite3 *db, decide_args *a, cJSON *evidence) {
  xp_rtree tree = {0};
  int rc = 0;
  for (int i = 0; i < a->nevidence && rc == 0; i++)
    rc = resolve_one(db, a->evidence[i], a->nover ? a->side[i] : NULL, evidence, &tree);
  xp_rtree_free(&tree);
  return rc;
}

/* The query runs on its own read-only connection, under the same rules as xp query. A --param
** it never names is refused where xp query only warns: a decision is never edited, and would
** keep a misspelt name with its evidence for good. */
static int run_query(const char *db_path, const char *file, const char *sql, const cJSON *params,
                     char **result_json, size_t *nrows) {
  int rc = 0;
  sqlite3 *ro = xp_db_open(db_path, XP_DB_CHECK, &rc);
  if (!ro) return rc;
  const char *unused = NULL;
  cJSON *sets = xp_decision_query(ro, sql, file, params, &unused, &rc);
  char *local_run = sets && !unused ? xp_decision_local_run_note(ro, params) : NULL;
  if (local_run) xp_warn("%s", local_run);
  free(local_run);
  xp_db_close(ro);
  if (!sets) return rc;
  if (unused) {
    cJSON_Delete(sets);
    char *cut = xp_value_cut(unused);
    xp_error_at(XP_EXIT_USAGE, file, 0, "--param %s: the query has no :%s (a misspelt name?)", cut, cut);
    free(cut);
    return XP_EXIT_USAGE;
  }
  *nrows = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, sets) *nrows += (size_t)cJSON_GetArraySize(s);
  *result_json = cJSON_PrintUnformatted(sets);
  cJSON_Delete(sets);
  return 0;
}

static int insert_decision(sqlite3 *db, const decision_rec *d, const char *result,
                           const char *digest) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "INSERT INTO decisions(uuid, title, rationale, author, created_at, xp_version, xp_commit,"
      " supersedes, evidence_count, query_file, query_text, query_params, query_result,"
      " query_result_sha256, decision_sha256) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)");
  if (!st) return XP_EXIT_DB;
  const char *texts[] = {d->uuid, d->title, d->rationale, d->author, d->created_at,
                         d->xp_version, d->xp_commit, d->supersedes};
  for (int i = 0; i < 8; i++) xp_bind_text(st, i + 1, texts[i]);
  sqlite3_bind_int64(st, 9, d->evidence_count);
  xp_bind_text(st, 10, d->query_file);
  xp_bind_text(st, 11, d->query_text);
  xp_bind_text(st, 12, d->query_params);
  xp_bind_text(st, 13, result);
  xp_bind_text(st, 14, d->query_result_sha256);
  xp_bind_text(st, 15, digest);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : xp_db_fail(db, "recording the decision");
  sqlite3_finalize(st);
  if (rc) return rc;
  int64_t id = sqlite3_last_insert_rowid(db);
  if (!(st = xp_db_prepare(db, "INSERT INTO decision_evidence(decision_id, seq, run_uuid, run_content_sha256) VALUES (?1,?2,?3,?4)")))
    return XP_EXIT_DB;
  int seq = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, d->evidence) {
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, seq++);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(e, "run_uuid");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(e, "run_content_sha256");
    xp_bind_text(st, 3, u->valuestring);
    xp_bind_text(st, 4, cJSON_IsString(h) ? h->valuestring : NULL);
    if ((rc = xp_db_step_done(db, st)) != 0) break;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "side");
    if (cJSON_IsString(s) && (rc = xp_evidence_side_insert(db, id, seq - 1, s->valuestring)) != 0) break;
  }
  sqlite3_finalize(st);
  return rc ? rc : xp_chain_head_update(db);
}

int xp_evidence_side_insert(sqlite3 *db, int64_t decision_id, int64_t seq, const char *side) {
  sqlite3_stmt *st = xp_db_prepare(db, "INSERT INTO decision_evidence_sides(decision_id, seq, side) VALUES (?1,?2,?3)");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, decision_id);
  sqlite3_bind_int64(st, 2, seq);
  xp_bind_text(st, 3, side);
  int rc = xp_db_step_done(db, st);
  sqlite3_finalize(st);
  return rc;
}

int xp_decision_successors(sqlite3 *db, const char *uuid, int *count, char **names) {
  *count = 0;
  *names = NULL;
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT count(*), group_concat(uuid, ' and ') FROM (SELECT uuid FROM decisions"
                                       " WHERE supersedes = ?1 ORDER BY created_at, uuid)");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, uuid);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *count = sqlite3_column_int(st, 0);
    if (*count) *names = xp_strdup((const char *)sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? 0 : xp_db_fail(db, "reading a decision's successors");
}

/* A decision is superseded once: a second successor would fork the history, and audit, which
** follows one line of decisions, would show only one of them. The newest is what to supersede.
** Two databases that each superseded it apart, merged, hold two: both named, and the one that
** does not hold is what to supersede (it named the older alone, as if that one were the line). */
static int check_not_superseded(sqlite3 *db, const char *uuid) {
  int n;
  char *names;
  int rc = xp_decision_successors(db, uuid, &n, &names);
  if (rc == 0 && n == 1)
    rc = xp_usage_error("decide", "decision %s is already superseded by %s: supersede that one instead", uuid, names);
  else if (rc == 0 && n > 1)
    rc = xp_usage_error("decide", "decision %s is already superseded more than once, by %s (made apart, then"
                        " merged): supersede the one that does not hold", uuid, names);
  free(names);
  return rc;
}

static int count_side(const cJSON *evidence, const char *side) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, evidence) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "side");
    n += cJSON_IsString(s) && strcmp(s->valuestring, side) == 0;
  }
  return n;
}

int cmd_decide(int argc, char **argv, const char *db_path) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) /* -- "-h" is a title, as main reads it */
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
  decide_args a = {0};
  a.evidence = xp_xcalloc((size_t)argc, sizeof *a.evidence);
  a.side = xp_xcalloc((size_t)argc, sizeof *a.side);
  a.params = cJSON_CreateObject();
  cJSON *evidence = cJSON_CreateArray();
  char *sql = NULL, *result = NULL, *author = NULL, *params_text = NULL;
  sqlite3 *db = NULL;
  int rc = parse_args(argc, argv, &a);
  if (rc) goto out;
  if (a.query_file && !(sql = xp_query_read(a.query_file, &rc))) goto out;
  if (a.query_file) a.query_file = xp_query_name(a.query_file); /* recorded as read: <stdin> */
  /* Everything is checked on a read-only connection first: misspelt evidence or a --param the
  ** query lacks leaves the database as it was, where opening it to write had already migrated
  ** an older xp's database (which that xp then refuses as newer). Read-only also refuses a
  ** missing database rather than creating an empty one to refuse. */
  if (!(db = xp_db_open(db_path, XP_DB_CHECK, &rc))) goto out;
  if ((rc = resolve_evidence(db, &a, evidence)) != 0) goto out;
  char sup_uuid[37] = "";
  if (a.supersedes) {
    int64_t sid;
    if ((rc = xp_resolve_decision(db, a.supersedes, &sid, sup_uuid)) != 0) goto out;
    if ((rc = check_not_superseded(db, sup_uuid)) != 0) goto out;
  }
  size_t nrows = 0;
  char result_sha[65] = "";
  if (sql) {
    if ((rc = run_query(db_path, a.query_file, sql, a.params, &result, &nrows)) != 0) goto out;
    xp_sha256_hex(result, strlen(result), result_sha);
    params_text = xp_json_canonical(a.params);
  }
  xp_db_close(db);
  if (!(db = xp_db_open(db_path, XP_DB_READWRITE, &rc))) goto out;
  char uuid[37], now[40], commit[80], digest[65];
  if (xp_uuid4(uuid) != 0) {
    rc = xp_error(XP_EXIT_ENV, "cannot generate a decision id: no randomness available");
    goto out;
  }
  xp_now_iso8601(now, sizeof now);
  snprintf(commit, sizeof commit, "%s%s", xp_build_commit, xp_build_dirty ? "-dirty" : "");
  author = author_name();
  decision_rec d = {uuid, a.title, a.because, author, now, xp_build_version, commit,
                    a.supersedes ? sup_uuid : NULL, a.query_file, sql, params_text,
                    sql ? result_sha : NULL, cJSON_GetArraySize(evidence), evidence};
  digest_of(&d, digest);
  if ((rc = xp_db_begin(db)) != 0) goto out;
  /* again inside the write lock: another xp decide may have superseded it since the check */
  if ((a.supersedes && (rc = check_not_superseded(db, sup_uuid)) != 0) ||
      (rc = insert_decision(db, &d, result, digest)) != 0) {
    xp_db_rollback(db);
    goto out;
  }
  if ((rc = xp_db_commit(db)) != 0) goto out;
  printf("decision %s recorded: %s\n", uuid, a.title);
  printf("  by %s at %s; evidence: %d run%s", author, now, cJSON_GetArraySize(evidence),
         cJSON_GetArraySize(evidence) == 1 ? "" : "s");
  if (a.nover) printf(" (%d chosen, %d alternative)", cJSON_GetArraySize(evidence) - count_side(evidence, "alternative"),
                     count_side(evidence, "alternative"));
  if (sql) printf("; query %s: %zu row%s (sha256 %.16s)", a.query_file, nrows, nrows == 1 ? "" : "s", result_sha);
  if (a.supersedes) printf("; supersedes %s", sup_uuid);
  putchar('\n');
out:
  xp_db_close(db);
  cJSON_Delete(evidence);
  cJSON_Delete(a.params);
  free(a.evidence);
  free(a.side);
  free(sql);
  free(result);
  free(author);
  free(params_text);
  return rc;
}
