/*
** xp compare A B: two runs, or two groups of runs selected by metadata, metric by metric.
**
** Cases pair by name and workload (pair_cases: equal params; for serving benchmarks the params
** both sides record, and the prompt tokens a request), and an unpaired case says why. For each
** metric of a pair or of a case one side alone has: the median on each side, the change, and
** whether it is beyond noise by the Mann-Whitney U test on the raw samples (as Google
** Benchmark's compare.py does), with no verdict when a side has fewer than XP_MIN_SAMPLES
** samples. A group pools its runs' samples. Then every metadata difference that makes the
** comparison unfair: GPU, driver, CUDA/cuBLAS/NCCL versions, environment, spec, host, config.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "db.h"
#include "history.h"
#include "kind.h"
#include "runref.h"
#include "spec.h"
#include "stats.h"
#include "xp.h"

static const char usage[] =
    "usage: xp compare A B [--format table|json]\n"
    "       xp compare --a KEY=VALUE[,KEY=VALUE]... --b KEY=VALUE[,...] [--format F]\n"
    "  Each side is a run (a UUID or unique prefix) or, with --a/--b, the group of ok runs whose\n"
    "  metadata match every KEY=VALUE: kind (as xp runs --kind: nccl-tests is nccl_burst),\n"
    "  origin, model, tp, batch, gpu_name, interconnect, uuid (a prefix too), ... (the flattened\n"
    "  columns) or any metadata key (env.NCCL_ALGO=Ring, gpu.driver=...); a piece without '='\n"
    "  is the value's own (env.NCCL_ALGO=Ring,Tree).\n"
    "  The two forms mix: xp compare RUN --b gpu.driver=560.28.\n"
    "  Cases pair by name and params. Serving benchmarks (serve_bench) pair by workload across\n"
    "  engines' clients (vllm bench serve against sglang.bench_serving): the settings both sides\n"
    "  record must agree, and the prompt tokens a request within 5%; a setting one side alone\n"
    "  records is listed, not compared. An unpaired case says why.\n"
    "  Per metric: median A, median B, change, and the Mann-Whitney U p value on the raw\n"
    "  samples (pooled over a group's runs). With fewer than 5 samples on a side there is no\n"
    "  verdict; a metric a paired case has no value of on one side (an nccl-tests bandwidth\n"
    "  printed nan) is \"unknown in A\" (or B). p < 0.05 is beyond noise; better/worse follows\n"
    "  the unit (times: lower is better; rates such as GB/s: higher is better). Traces: the\n"
    "  step GPU time and each kernel category's share of it, every step of every rank a sample;\n"
    "  under the table each share of all steps' time taken together, as the queries and xp\n"
    "  report give it.\n"
    "  Then every metadata difference that makes the comparison unfair.\n"
    "  Runs of different kinds cannot be compared (exit 2).\n";

/* ---- shared with xp audit ---- */

void xp_compare_samples(const double *a, size_t na, const double *b, size_t nb,
                        xp_samplecmp *out) {
  xp_stats sa, sb;
  xp_stats_compute(a, na, &sa);
  xp_stats_compute(b, nb, &sb);
  out->na = na;
  out->nb = nb;
  out->median_a = sa.median;
  out->median_b = sb.median;
  out->change = (na && nb && sa.median != 0) ? (sb.median - sa.median) / fabs(sa.median) : NAN;
  out->judged = na >= XP_MIN_SAMPLES && nb >= XP_MIN_SAMPLES;
  out->p = out->judged ? xp_mann_whitney(a, na, b, nb, NULL) : NAN;
  out->beyond_noise = out->judged && out->p < XP_ALPHA;
}

/* Run ids are xp's own integers, pasted as a literal list: the read-only connection's
** authorizer refuses json_each(), and a literal IN list lets SQLite use its indexes. */
char *xp_id_list(const int64_t *ids, int n) {
  size_t cap = 16 + (size_t)n * 21, len = 0;
  char *s = xp_xmalloc(cap);
  len += (size_t)snprintf(s, cap, "(%s", n ? "" : "NULL");
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(s + len, cap - len, "%s%lld", i ? "," : "", (long long)ids[i]);
  snprintf(s + len, cap - len, ")");
  return s;
}

int xp_samples_open(sqlite3 *db, const int64_t *runs, int nruns, xp_samples_query *q) {
  char *ids = xp_id_list(runs, nruns);
  /* The unary + keeps the ORDER BY from choosing the (run_id, seq) index: with it SQLite tested
  ** every case of the runs on each call; cases_by_name_run (schema 17) finds the one case. */
  char *sql = xp_asprintf(
      "SELECT c.id, m.median, EXISTS (SELECT 1 FROM samples s WHERE s.case_id = c.id AND s.metric = m.name)"
      " FROM cases c JOIN metrics m ON m.case_id = c.id"
      " WHERE c.run_id IN %s AND c.status = 'ok' AND c.name = ?2"
      " AND " XP_CASE_KEY("c.params") " = " XP_CASE_KEY("?3") " AND m.name = ?4 ORDER BY +c.run_id, +c.seq", ids);
  q->cases = xp_db_prepare(db, sql);
  free(sql);
  free(ids);
  q->samples = q->cases ? xp_db_prepare(db, "SELECT value FROM samples WHERE case_id = ?1 AND metric = ?2 ORDER BY seq")
                        : NULL;
  if (q->samples) return 0;
  xp_samples_close(q);
  return XP_EXIT_DB;
}

static void push_sample(double **out, size_t *n, size_t *cap, double v) {
  if (*n == *cap) *out = xp_xrealloc(*out, (*cap = *cap ? 2 * *cap : 64) * sizeof **out);
  (*out)[(*n)++] = v;
}

void xp_samples_read(xp_samples_query *q, const char *case_name, const char *params, const char *metric,
                     double **out, size_t *n) {
  sqlite3_stmt *st = q->cases, *ss = q->samples;
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  xp_bind_text(st, 2, case_name);
  xp_bind_text(st, 3, params);
  xp_bind_text(st, 4, metric);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (sqlite3_column_int(st, 2)) {
      sqlite3_bind_int64(ss, 1, sqlite3_column_int64(st, 0));
      xp_bind_text(ss, 2, metric);
      while (sqlite3_step(ss) == SQLITE_ROW) push_sample(out, n, &cap, sqlite3_column_double(ss, 0));
      sqlite3_reset(ss);
    } else if (sqlite3_column_type(st, 1) != SQLITE_NULL)
      push_sample(out, n, &cap, sqlite3_column_double(st, 1));
  }
  sqlite3_reset(st);
}

void xp_samples_close(xp_samples_query *q) {
  sqlite3_finalize(q->cases);
  sqlite3_finalize(q->samples);
  q->cases = q->samples = NULL;
}

/* ---- the two sides ---- */

typedef struct side {
  const char *label;   /* what the user gave */
  int64_t *ids;
  char (*uuids)[37];
  int n;
  char *kind;
} side;

static void side_add(side *s, int64_t id, const char *uuid) {
  s->ids = xp_xrealloc(s->ids, (size_t)(s->n + 1) * sizeof *s->ids);
  s->uuids = xp_xrealloc(s->uuids, (size_t)(s->n + 1) * sizeof *s->uuids);
  s->ids[s->n] = id;
  snprintf(s->uuids[s->n], 37, "%s", uuid);
  s->n++;
}

/* A group whose every matching run another import of the same job or measurement supersedes
** (a sweep's text log with --set interconnect=nvlink, its -J file imported apart without it):
** "no ok runs match" said the runs xp runs lists were not there. st lists the matches. */
static int superseded_only(sqlite3 *db, sqlite3_stmt *st, const char *which, const char *selector) {
  int64_t count = 0;
  char first[9] = "", by[9] = "";
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (count++) continue;
    snprintf(first, sizeof first, "%s", (const char *)sqlite3_column_text(st, 1));
    sqlite3_stmt *b = xp_db_prepare(db, "SELECT b.uuid FROM trace_superseded t JOIN runs b ON b.id = t.by_run_id"
                                        " WHERE t.run_id = ?1 UNION ALL SELECT b.uuid FROM " XP_SQL_REIMPORTED
                                        " i JOIN runs b ON b.id = i.counted WHERE i.run_id = ?1 AND i.superseded");
    if (!b) return XP_EXIT_DB;
    sqlite3_bind_int64(b, 1, sqlite3_column_int64(st, 0));
    if (sqlite3_step(b) == SQLITE_ROW) snprintf(by, sizeof by, "%s", (const char *)sqlite3_column_text(b, 0));
    sqlite3_finalize(b);
  }
  if (count == 0) {
    char *cut = xp_value_cut(selector);
    xp_error(XP_EXIT_USAGE, "compare: %s %s: no ok runs match", which, cut);
    free(cut);
    return XP_EXIT_USAGE;
  }
  return xp_error(XP_EXIT_USAGE,
                  "compare: %s %s: no ok runs match but %lld superseded (run %s is another import of the same job or"
                  " measurement as run %s, which a group counts in its place): name a run to compare it",
                  which, selector, (long long)count, first, by);
}

/* "k=v,k=v" (and repeated options) -> ok runs matching all. Values are bound, never pasted. */
static int select_group(sqlite3 *db, const char *which, const char *selector, side *s) {
  char *copy = xp_strdup(selector);
  char *keys[32], *vals[32];
  int n = 0, rc = 0;
  for (char *t = copy, *next; t && rc == 0; t = next) {
    next = strchr(t, ',');
    if (next) *next++ = 0;
    char *eq = strchr(t, '=');
    if (!*t) continue; /* "a=1," */
    /* a piece without '=' is the value's own (env.CUDA_VISIBLE_DEVICES=0,1, NCCL_ALGO=Ring,Tree),
    ** as xp runs --where takes it: its comma put back */
    if (!eq && n > 0) t[-1] = ',';
    else if (!eq || eq == t) rc = xp_usage_error("compare", "%s %s: expected KEY=VALUE[,KEY=VALUE]...", which, selector);
    else if (n == 32) rc = xp_usage_error("compare", "%s: at most 32 conditions", which);
    else {
      *eq = 0;
      keys[n] = t;
      vals[n++] = eq + 1;
    }
  }
  /* kind=nccl-tests as xp runs --kind has it: the kind its runs are recorded as */
  for (int i = 0; i < n; i++) {
    const char *as = strcmp(keys[i], "kind") == 0 ? xp_kind_recorded_as(vals[i]) : NULL;
    if (as) vals[i] = (char *)as;
  }
  if (rc == 0 && n == 0) rc = xp_usage_error("compare", "%s needs KEY=VALUE conditions", which);
  /* A job counts once (README): an import superseded by a fuller or later one of the same
  ** traces, or the same result files imported again (XP_SQL_REIMPORTED, as xp report and xp
  ** audit count them), would pool its samples twice and make noise look like a change. */
  char *sql = xp_strdup(""); /* the conditions */
  for (int i = 0; i < n && rc == 0; i++) {
    const char *column = xp_run_column(keys[i]);
    char param[16];
    snprintf(param, sizeof param, "?%d", 2 * i + 2);
    char *cond = column ? xp_where_column_sql(column, param) : NULL;
    char *next = column
        ? xp_asprintf("%s AND %s", sql, cond)
        : xp_asprintf("%s AND EXISTS (SELECT 1 FROM run_meta m WHERE m.run_id = r.id AND m.key = ?%d AND m.value = ?%d)",
                      sql, 2 * i + 1, 2 * i + 2);
    free(cond);
    free(sql);
    sql = next;
  }
  for (int superseded = 0; superseded < 2 && rc == 0 && s->n == 0; superseded++) {
    char *full = xp_asprintf("SELECT r.id, r.uuid FROM runs r LEFT JOIN %s i ON i.run_id = r.id"
                             " WHERE r.status = 'ok' AND %s(r.id IN (SELECT run_id FROM trace_superseded)"
                             " OR coalesce(i.superseded, 0))%s ORDER BY r.started_at, r.id",
                             XP_SQL_REIMPORTED, superseded ? "" : "NOT ", sql);
    sqlite3_stmt *st = xp_db_prepare(db, full);
    free(full);
    if (!st) {
      rc = XP_EXIT_DB;
      break;
    }
    for (int i = 0; i < n; i++) {
      if (!xp_run_column(keys[i])) xp_bind_text(st, 2 * i + 1, keys[i]);
      xp_bind_text(st, 2 * i + 2, vals[i]);
    }
    if (superseded) rc = superseded_only(db, st, which, selector);
    else {
      int step;
      while ((step = sqlite3_step(st)) == SQLITE_ROW)
        side_add(s, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1));
      /* a damaged table is no answer: it read as "no ok runs match" (exit 2) */
      if (step != SQLITE_DONE) rc = xp_db_fail(db, "selecting runs");
    }
    sqlite3_finalize(st);
  }
  free(sql);
  free(copy);
  return rc;
}

static int side_kind(sqlite3 *db, side *s) {
  char *ids = xp_id_list(s->ids, s->n);
  char *sql = xp_asprintf("SELECT DISTINCT kind FROM runs WHERE id IN %s ORDER BY kind", ids);
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  free(s->kind);
  s->kind = NULL;
  int rc = st ? 0 : XP_EXIT_DB;
  if (st) {
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW && rc == 0) {
      const char *k = (const char *)sqlite3_column_text(st, 0);
      if (!s->kind) s->kind = xp_strdup(k);
      else rc = xp_error(XP_EXIT_USAGE, "compare: %s mixes runs of kinds %s and %s; add kind=... to select one",
                         s->label, s->kind, k);
    }
    /* a damaged runs table ends the rows with no kind read: the kinds were compared as NULL */
    if (rc == 0 && step != SQLITE_DONE) rc = xp_db_fail(db, "reading the runs' kinds");
    else if (rc == 0 && !s->kind) rc = xp_error(XP_EXIT_DB, "compare: %s: its runs are gone from the runs table", s->label);
    sqlite3_finalize(st);
  }
  free(ids);
  return rc;
}

/* ---- metadata differences ---- */

/* Facts that differ from run to run without changing what was measured (an nccl-tests
** import's report_sha256 is its results' own digest, its processes their pids: every run's own;
** a GPU's clocks, temperature and power as sampled, each run's own readings: of its state, the
** share of readings slowed by heat or a power brake and the power limit tell two runs' GPUs apart). */
static int ignored_gpu_state(const char *key) {
  const char *dot = strncmp(key, "gpu_state.", 10) == 0 ? strrchr(key, '.') : NULL;
  return dot && dot != key + 9 && strcmp(dot, ".slowdown_share") != 0 && strcmp(dot, ".power_limit_w") != 0;
}

static int ignored_fact(const char *key) {
  return strcmp(key, "host.boot_id") == 0 || strncmp(key, "import.", 7) == 0 || ignored_gpu_state(key) ||
         strcmp(key, "uuid") == 0 || strcmp(key, "nccl_tests.report_sha256") == 0 ||
         strcmp(key, "nccl_tests.processes") == 0;
}

/* All facts of a side as key -> sorted array of distinct values (JSON object). */
cJSON *xp_run_facts(sqlite3 *db, const int64_t *runs, int nruns, int *rc) {
  char *ids = xp_id_list(runs, nruns);
  char *sql = xp_asprintf(
      "WITH sel(id) AS (SELECT id FROM runs WHERE id IN %s),"
      " facts(key, value) AS ("
      "  SELECT m.key, m.value FROM run_meta m JOIN sel ON sel.id = m.run_id WHERE m.source <> 'declared'"
      "   OR NOT EXISTS (SELECT 1 FROM run_meta d WHERE d.run_id = m.run_id AND d.key = m.key AND d.source <> 'declared')"
      "  UNION ALL SELECT 'spec_sha256', spec_sha256 FROM runs JOIN sel USING (id)"
      "  UNION ALL SELECT 'origin', origin FROM runs JOIN sel USING (id)"
      "  UNION ALL SELECT 'xp_commit', xp_commit FROM runs JOIN sel USING (id)"
      /* GPUs of one model are a count ("2 x NVIDIA H200"): nccl-tests' -J file of a -g 2 run lists
      ** rank 0's device alone, and its text both, so the same two GPUs read as a difference. A
      ** one-device run (gemm, ceilings, kernel_variant) records every visible GPU and no count:
      ** it used one, the GPU it is filed under (xp_run_gpus, as xp runs, show and export give it),
      ** where the host's GPU count read as the run's ("8 x" against "2 x" for the same GEMMs) */
      "  UNION ALL SELECT 'gpus', CASE WHEN (SELECT gpu_count IS NULL AND xp_run_gpus(kind, NULL) = 1"
      "     FROM runs WHERE id = sel.id) THEN (SELECT '1 x ' || coalesce(gpu_name, '?') FROM runs WHERE id = sel.id)"
      "    WHEN (SELECT count(DISTINCT coalesce(name, '?')) FROM run_gpus g"
      "     WHERE g.run_id = sel.id) = 1 THEN (SELECT max(count(*), coalesce(r.gpu_count, 0)) || ' x ' ||"
      "     coalesce(min(g.name), '?') FROM run_gpus g JOIN runs r ON r.id = g.run_id WHERE g.run_id = sel.id)"
      "    ELSE (SELECT group_concat(coalesce(name, '?'), ' + ') FROM"
      "    (SELECT name FROM run_gpus g WHERE g.run_id = sel.id ORDER BY idx)) END FROM sel)"
      " SELECT DISTINCT key, value FROM facts WHERE value IS NOT NULL ORDER BY key, value", ids);
  xp_register_run_fns(db); /* xp_run_gpus, for xp rerun's connection too */
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  free(ids);
  cJSON *o = cJSON_CreateObject();
  if (!st) {
    *rc = XP_EXIT_DB;
    return o;
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *k = (const char *)sqlite3_column_text(st, 0);
    if (ignored_fact(k)) continue;
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!arr) cJSON_AddItemToObject(o, k, arr = cJSON_CreateArray());
    cJSON_AddItemToArray(arr, cJSON_CreateString((const char *)sqlite3_column_text(st, 1)));
  }
  sqlite3_finalize(st);
  return o;
}

static char *values_text(const cJSON *arr) {
  if (!arr) return xp_strdup("(unset)");
  char *out = xp_strdup("");
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    char *n = xp_asprintf("%s%s%s", out, *out ? " | " : "", e->valuestring);
    free(out);
    out = n;
  }
  return out;
}

/* Keys whose values differ between the sides: [{key, a, b}]. */
cJSON *xp_fact_differences(const cJSON *fa, const cJSON *fb) {
  cJSON *keys = cJSON_CreateObject(), *out = cJSON_CreateArray();
  const cJSON *e;
  cJSON_ArrayForEach(e, fa) if (!cJSON_GetObjectItemCaseSensitive(keys, e->string)) cJSON_AddTrueToObject(keys, e->string);
  cJSON_ArrayForEach(e, fb) if (!cJSON_GetObjectItemCaseSensitive(keys, e->string)) cJSON_AddTrueToObject(keys, e->string);
  char *sorted = xp_json_canonical(keys); /* sorted key order */
  cJSON *sk = cJSON_Parse(sorted);
  free(sorted);
  cJSON_ArrayForEach(e, sk) {
    char *a = values_text(cJSON_GetObjectItemCaseSensitive(fa, e->string));
    char *b = values_text(cJSON_GetObjectItemCaseSensitive(fb, e->string));
    if (strcmp(a, b) != 0) {
      cJSON *d = cJSON_CreateObject();
      cJSON_AddStringToObject(d, "key", e->string);
      cJSON_AddStringToObject(d, "a", a);
      cJSON_AddStringToObject(d, "b", b);
      cJSON_AddItemToArray(out, d);
    }
    free(a);
    free(b);
  }
  cJSON_Delete(sk);
  cJSON_Delete(keys);
  return out;
}

/* Whether a side's runs are all imported (its facts' origin is 'imported' alone). */
static int all_imported(const cJSON *facts) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(facts, "origin");
  return cJSON_GetArraySize(o) == 1 && strcmp(cJSON_GetArrayItem(o, 0)->valuestring, "imported") == 0;
}

/* Whether facts hold a key beginning with prefix. */
static int has_prefix(const cJSON *facts, const char *prefix) {
  const cJSON *e;
  cJSON_ArrayForEach(e, facts) if (strncmp(e->string, prefix, strlen(prefix)) == 0) return 1;
  return 0;
}

/*
** Whether key, which a side of imported nccl-tests runs lacks, is one its files do not state,
** not one it is without: a text log holds no -J file's environment, arguments or start time, a
** -J file none of NCCL's INFO lines (transports, channels, interconnect) or nccl-tests' version,
** a log without INFO lines none of them either. A list of settings the side does record
** (nccl_tests.env.*, nccl.env_read.*) lacks that one; xp's own env.* and the keys written only
** where something happened (a failure, errors, several reports, hosts or communicators) are absent
** for a reason.
*/
static int not_stated(const char *kind, const cJSON *lacking, const char *key) {
  static const char *const flags[] = {"nccl_tests.failure", "nccl_tests.errors", "nccl_tests.independent",
                                      "nccl_tests.reports", "nccl_tests.hosts", NULL};
  static const char *const lists[] = {"nccl_tests.env.", "nccl.env_read.", NULL};
  if (strcmp(kind, "nccl_burst") != 0 || !all_imported(lacking) || strncmp(key, "env.", 4) == 0) return 0;
  /* written where a log holds several communicators: a side whose log's connections are one's
  ** says so by its lack of it */
  if (strcmp(key, "nccl.communicators") == 0) return !has_prefix(lacking, "nccl.transports");
  for (int i = 0; flags[i]; i++)
    if (strcmp(key, flags[i]) == 0) return 0;
  for (int i = 0; lists[i]; i++)
    if (strncmp(key, lists[i], strlen(lists[i])) == 0) return !has_prefix(lacking, lists[i]);
  return 1;
}

/* Moves out of diffs the keys one side's files cannot state (not_stated): returned apart. The
** spec of two nccl-tests imports names the files each read (its --set values are facts of their
** own), which differ wherever two runs do: no difference in how they ran, dropped. */
static cJSON *split_one_sided(const char *kind, cJSON *diffs, const cJSON *fa, const cJSON *fb) {
  cJSON *apart = cJSON_CreateArray();
  const int imports = strcmp(kind, "nccl_burst") == 0 && all_imported(fa) && all_imported(fb);
  for (int i = cJSON_GetArraySize(diffs) - 1; i >= 0; i--) {
    const cJSON *d = cJSON_GetArrayItem(diffs, i);
    const char *key = cJSON_GetObjectItem(d, "key")->valuestring;
    if (imports && strcmp(key, "spec_sha256") == 0) {
      cJSON_DeleteItemFromArray(diffs, i);
      continue;
    }
    const int a_unset = !cJSON_GetObjectItemCaseSensitive(fa, key), b_unset = !cJSON_GetObjectItemCaseSensitive(fb, key);
    if ((a_unset && not_stated(kind, fa, key)) || (b_unset && not_stated(kind, fb, key)))
      cJSON_InsertItemInArray(apart, 0, cJSON_DetachItemFromArray(diffs, i));
  }
  return apart;
}

/* ---- metrics ---- */

/* A side with the case but none of its metric's samples (an nccl-tests row whose bandwidth was
** printed nan: no bandwidth recorded) does not lack the case: its value there is unknown. */
static const char *verdict(const xp_samplecmp *c, const char *metric, const char *unit, int case_a, int case_b) {
  if (c->na == 0) return case_a ? "unknown in A" : "only in B";
  if (c->nb == 0) return case_b ? "unknown in B" : "only in A";
  if (!c->judged) return "too few samples";
  if (!c->beyond_noise) return "same (noise)";
  const char *better = xp_metric_better(metric, unit);
  if (!better || c->change != c->change) return "changed";
  int up = c->median_b > c->median_a;
  return (up == (strcmp(better, "higher") == 0)) ? "better" : "worse";
}

static cJSON *num_or_null(double v) { return v == v ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

/* One row of the comparison: the two sides' samples of a metric, judged; case_a, case_b: whether
** each side has the case (a pair), whatever samples it holds. */
static void add_row(cJSON *out, const char *cname, const char *params, const char *metric, const char *unit,
                    const double *sa, size_t na, const double *sb, size_t nb, int case_a, int case_b) {
  xp_samplecmp c;
  xp_compare_samples(sa, na, sb, nb, &c);
  cJSON *row = cJSON_CreateObject();
  cJSON_AddStringToObject(row, "case", cname);
  cJSON_AddRawToObject(row, "params", params);
  cJSON_AddStringToObject(row, "metric", metric);
  cJSON_AddStringToObject(row, "unit", unit);
  cJSON_AddItemToObject(row, "median_a", num_or_null(c.median_a));
  cJSON_AddItemToObject(row, "median_b", num_or_null(c.median_b));
  cJSON_AddItemToObject(row, "change", num_or_null(c.change));
  cJSON_AddItemToObject(row, "p", num_or_null(c.p));
  cJSON_AddNumberToObject(row, "n_a", (double)na);
  cJSON_AddNumberToObject(row, "n_b", (double)nb);
  cJSON_AddStringToObject(row, "verdict", verdict(&c, metric, unit, case_a, case_b));
  cJSON_AddItemToArray(out, row);
}

/* A trace's samples: the steps of its ranks with GPU time, where the import marked steps (a whole
** window is one rank's one sample, no step). ?1 category: a step's time in it (ns). */
#define STEP_SAMPLES                                                                                  \
  " FROM trace_steps t JOIN trace_imports i ON i.run_id = t.run_id"                                   \
  " WHERE t.run_id IN %s AND t.kernel_ns > 0 AND i.step_annotation <> '(whole window)'"
#define STEP_CATEGORY_NS                                                                              \
  "coalesce((SELECT sum(c.total_ns) FROM trace_step_categories c WHERE c.run_id = t.run_id"           \
  " AND c.rank = t.rank AND c.step = t.step AND c.category = ?1), 0)"

/* (history.h) */
int xp_trace_step_samples(sqlite3 *db, const int64_t *runs, int nruns, const char *category, double **out,
                          size_t *n) {
  char *ids = xp_id_list(runs, nruns);
  char *sql = xp_asprintf(
      "SELECT CASE WHEN ?1 IS NULL THEN t.kernel_ns / 1e3 ELSE 100.0 * " STEP_CATEGORY_NS " / t.kernel_ns END"
      STEP_SAMPLES " ORDER BY t.run_id, t.rank, t.step", ids);
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  free(ids);
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, category);
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (*n == cap) *out = xp_xrealloc(*out, (cap = cap ? 2 * cap : 64) * sizeof **out);
    (*out)[(*n)++] = sqlite3_column_double(st, 0);
  }
  sqlite3_finalize(st);
  return 0;
}

/* Why a run of this kind may have too few samples to judge: the kinds that do not measure
** repeatedly (an nccl-tests log: one row a case) or a trace without marked steps (one a rank). */
const char *xp_few_samples_why(const char *kind) {
  if (strcmp(kind, "torch_trace") == 0)
    return "a trace's samples are its steps, each rank's: one a rank where it has no marked steps";
  if (strcmp(kind, "nccl_burst") == 0)
    return "an imported nccl-tests log holds one sample a case, its row";
  return "its runs recorded fewer";
}

/* A category's share of the steps' GPU time taken together, as queries/bottleneck_by_config.sql
** and xp report give it (the steps xp_trace_step_samples takes); NAN where they have none. A
** few slow steps (waiting at an all-reduce) weigh in it as they do not in the median step. */
static double pooled_share(sqlite3 *db, const int64_t *runs, int nruns, const char *category) {
  char *ids = xp_id_list(runs, nruns);
  char *sql = xp_asprintf(
      "SELECT 100.0 * sum(" STEP_CATEGORY_NS ") / sum(t.kernel_ns)" STEP_SAMPLES, ids);
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  free(ids);
  double v = NAN;
  if (!st) return v;
  xp_bind_text(st, 1, category);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Trace runs keep their figures per step, not as case metrics: the step GPU time, and each
** category's share of it, every marked step of every rank a sample (a whole-window step is no
** step to compare). */
static int compare_traces(sqlite3 *db, const side *a, const side *b, cJSON *out) {
  char *ia = xp_id_list(a->ids, a->n), *ib = xp_id_list(b->ids, b->n);
  char *sql = xp_asprintf("SELECT category FROM trace_step_categories WHERE run_id IN %s OR run_id IN %s"
                          " GROUP BY category ORDER BY sum(total_ns) DESC", ia, ib);
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  free(ia);
  free(ib);
  if (!st) return XP_EXIT_DB;
  int rc = 0;
  for (int first = 1; rc == 0; first = 0) {
    const char *category = NULL;
    if (!first) {
      if (sqlite3_step(st) != SQLITE_ROW) break;
      category = (const char *)sqlite3_column_text(st, 0);
    }
    double *sa = NULL, *sb = NULL;
    size_t na = 0, nb = 0;
    rc = xp_trace_step_samples(db, a->ids, a->n, category, &sa, &na);
    if (rc == 0) rc = xp_trace_step_samples(db, b->ids, b->n, category, &sb, &nb);
    if (rc == 0 && (na || nb)) {
      char *params = category ? xp_asprintf("{\"category\":\"%s\"}", category) : xp_strdup("{}");
      add_row(out, category ? "step share" : "step", params, category ? "share" : "gpu_time", category ? "%" : "us",
              sa, na, sb, nb, 0, 0);
      if (category) {
        cJSON *row = cJSON_GetArrayItem(out, cJSON_GetArraySize(out) - 1);
        cJSON_AddItemToObject(row, "pooled_a", num_or_null(pooled_share(db, a->ids, a->n, category)));
        cJSON_AddItemToObject(row, "pooled_b", num_or_null(pooled_share(db, b->ids, b->n, category)));
      }
      free(params);
    }
    free(sa);
    free(sb);
  }
  sqlite3_finalize(st);
  return rc;
}

/* ---- pairing cases ---- */

/* Cases pair by name and params: every setting of the one equal to the other's (XP_CASE_KEY:
** the file and the position in it aside). serve_bench's cases come from two writers, vLLM's
** and SGLang's benchmark clients, and each records settings the other does not (vLLM
** num_prompts and burstiness, SGLang the dataset and its lengths): there a setting both sides
** record must agree, one that a side alone records is named beside the pair and not required,
** and since the lengths of the prompts may then be recorded by neither, the prompt tokens a
** completed request sent (total_input_tokens / completed, which both record) must agree too. */
static int several_writers(const char *kind) { return strcmp(kind, "serve_bench") == 0; }

/* Prompt tokens a request sent, A against B: over PROMPT_SLACK apart is another load. Not exact:
** the clients draw and re-tokenize their random prompts, which moves the lengths a little. */
#define PROMPT_SLACK 0.05

typedef struct side_case {
  char *name, *key;  /* key: the params as XP_CASE_KEY gives them, JSON text */
  cJSON *params;     /* key, parsed */
  int first;         /* the case's first seq, for the order of the rows */
  double prompt;     /* prompt tokens a completed request (several_writers kinds), else NAN */
  int pair;          /* index of the other side's case it pairs with, or -1 */
  char *why;         /* unpaired: why (malloc'd) */
  cJSON *unchecked;  /* paired (on A's case): [{key, a, b}], settings one side alone records */
} side_case;

typedef struct case_list {
  side_case *c;
  int n;
} case_list;

static void cases_free(case_list *l) {
  for (int i = 0; i < l->n; i++) {
    free(l->c[i].name);
    free(l->c[i].key);
    free(l->c[i].why);
    cJSON_Delete(l->c[i].params);
    cJSON_Delete(l->c[i].unchecked);
  }
  free(l->c);
}

/* The side's ok cases with metrics, one per name and key (a group's runs pooled), in the order
** they were recorded. */
static int load_cases(sqlite3 *db, const side *s, int several, case_list *out) {
  char *ids = xp_id_list(s->ids, s->n);
  char *sql = xp_asprintf(
      "SELECT c.name, " XP_CASE_KEY("c.params") " AS key, min(c.seq) AS first,"
      " sum(CASE m.name WHEN 'total_input_tokens' THEN m.median END) / sum(CASE m.name WHEN 'completed' THEN m.median END)"
      " FROM cases c JOIN metrics m ON m.case_id = c.id WHERE c.status = 'ok' AND c.run_id IN %s"
      " GROUP BY c.name, key ORDER BY first, c.name, key", ids);
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  free(ids);
  out->c = NULL;
  out->n = 0;
  if (!st) return XP_EXIT_DB;
  while (sqlite3_step(st) == SQLITE_ROW) {
    out->c = xp_xrealloc(out->c, (size_t)(out->n + 1) * sizeof *out->c);
    side_case *c = &out->c[out->n++];
    memset(c, 0, sizeof *c);
    c->name = xp_strdup((const char *)sqlite3_column_text(st, 0));
    c->key = xp_strdup((const char *)sqlite3_column_text(st, 1));
    c->params = cJSON_Parse(c->key);
    c->first = sqlite3_column_int(st, 2);
    c->prompt = several && sqlite3_column_type(st, 3) != SQLITE_NULL ? sqlite3_column_double(st, 3) : NAN;
    c->pair = -1;
  }
  sqlite3_finalize(st);
  return 0;
}

static int same_setting(const cJSON *a, const cJSON *b, int several) {
  double x, y;
  if (several && xp_json_number(a, &x) && xp_json_number(b, &y)) return x == y;
  return cJSON_Compare(a, b, 1);
}

/* Add item (malloc'd, taken) to the comma-separated list of differences in *why. */
static void add_why(char **why, char *item) {
  char *n = xp_asprintf("%s%s%s", *why ? *why : "", *why ? ", " : "", item);
  free(item);
  free(*why);
  *why = n;
}

/* Add "key: A value, B value" to the list of differences in *why ("(unset)" for a side without). */
static void add_difference(char **why, const char *key, const cJSON *a, const cJSON *b) {
  char *ta = a ? cJSON_PrintUnformatted(a) : xp_strdup("(unset)");
  char *tb = b ? cJSON_PrintUnformatted(b) : xp_strdup("(unset)");
  add_why(why, xp_asprintf("%s: A %s, B %s", key, ta, tb));
  free(ta);
  free(tb);
}

/* Add {key, a, b} to unchecked: a setting one side alone records (the other's null). */
static void add_unchecked(cJSON *unchecked, const char *key, const cJSON *a, const cJSON *b) {
  cJSON *u = cJSON_CreateObject();
  cJSON_AddStringToObject(u, "key", key);
  cJSON_AddItemToObject(u, "a", a ? cJSON_Duplicate(a, 1) : cJSON_CreateNull());
  cJSON_AddItemToObject(u, "b", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
  cJSON_AddItemToArray(unchecked, u);
}

/* Why case a of A and case b of B, of one name, are not one workload, or NULL when they are.
** Settings one side alone records go to unchecked when the kind has several writers. */
static char *workload_differs(const side_case *a, const side_case *b, int several, cJSON *unchecked) {
  if (!several && strcmp(a->key, b->key) == 0) return NULL;
  char *why = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, a->params) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(b->params, e->string);
    if (o && !same_setting(e, o, several)) add_difference(&why, e->string, e, o);
    else if (!o && !several) add_difference(&why, e->string, e, NULL);
    else if (!o) add_unchecked(unchecked, e->string, e, NULL);
  }
  cJSON_ArrayForEach(e, b->params) {
    if (cJSON_HasObjectItem(a->params, e->string)) continue;
    if (several) add_unchecked(unchecked, e->string, NULL, e);
    else add_difference(&why, e->string, NULL, e);
  }
  if (isfinite(a->prompt) && isfinite(b->prompt) &&
      fabs(a->prompt - b->prompt) > PROMPT_SLACK * fmax(a->prompt, b->prompt))
    add_why(&why, xp_asprintf("prompt tokens a request: A %.6g, B %.6g", a->prompt, b->prompt));
  return why;
}

/* Why a case has no partner on the other side, where some of the other's cases have its name:
** named how many, matches how many of those are its workload, partner_matches how many of its
** own that one's is (when matches is 1), diff why the first of them is not. */
static char *unpaired_why(const side_case *c, const char *other, const char *self, int named, int matches,
                          int partner_matches, const char *diff) {
  const char *name = c->name;
  if (matches > 1) return xp_asprintf("%d cases of %s match it on the settings both record", matches, other);
  if (matches == 1)
    return xp_asprintf("%s's %s matches %d cases of %s on the settings both record", other, name, partner_matches, self);
  if (named > 1) return xp_asprintf("none of %s's %d cases %s has its settings, %s", other, named, name, c->key);
  return xp_asprintf("%s's %s is another workload: %s", other, name, diff);
}

/* Why a case has no partner where none of the other side's other_n cases has its name; same_name:
** how many of its own side's have it. Several of one name (a probe's "op" of each "i") each said
** the same "B has no case op", one line per case that told none apart; a side of no cases at
** all (a failed run's) is said as such. */
static char *absent_why(const side_case *c, const char *other, const char *self, int other_n, int same_name) {
  if (other_n == 0) return xp_asprintf("%s has no cases at all", other);
  if (same_name > 1) return xp_asprintf("%s has no case %s (this one of %s's %d: %s)", other, c->name, self, same_name, c->key);
  return xp_asprintf("%s has no case %s", other, c->name);
}

static int by_name(const void *x, const void *y) {
  const side_case *p = *(const side_case *const *)x, *q = *(const side_case *const *)y;
  int d = strcmp(p->name, q->name);
  return d ? d : (p > q) - (p < q);
}

/* The list's cases by name, those of one name in the list's order. */
static const side_case **sorted_by_name(const case_list *l) {
  const side_case **s = xp_xcalloc((size_t)l->n + 1, sizeof *s);
  for (int i = 0; i < l->n; i++) s[i] = &l->c[i];
  qsort(s, (size_t)l->n, sizeof *s, by_name);
  return s;
}

/* The end of the run of cases named as s[i] in a sorted_by_name list of n. */
static int name_end(const side_case *const *s, int n, int i) {
  int e = i + 1;
  while (e < n && strcmp(s[e]->name, s[i]->name) == 0) e++;
  return e;
}

/* How many cases of the list share each one's name, by index in the list; sorted: the list's
** cases by name (sorted_by_name). */
static int *same_name_counts(const case_list *l, const side_case *const *sorted) {
  int *n = xp_xcalloc((size_t)l->n + 1, sizeof *n);
  for (int i = 0, e; i < l->n; i = e) {
    e = name_end(sorted, l->n, i);
    for (int k = i; k < e; k++) n[sorted[k] - l->c] = e - i;
  }
  return n;
}

/* Pair A's cases with B's: a and b pair when each is the other's only match. Only cases of one
** name can match: both sides sorted by name, each A case meets only B's cases of its name, in
** the order of the lists (which case's difference explains an unpaired one depends on it). */
static void pair_cases(case_list *a, case_list *b, int several) {
  int *na = xp_xcalloc((size_t)a->n + 1, sizeof *na), *nb = xp_xcalloc((size_t)b->n + 1, sizeof *nb);
  int *only_a = xp_xcalloc((size_t)a->n + 1, sizeof *only_a), *only_b = xp_xcalloc((size_t)b->n + 1, sizeof *only_b);
  char **diff_a = xp_xcalloc((size_t)a->n + 1, sizeof *diff_a), **diff_b = xp_xcalloc((size_t)b->n + 1, sizeof *diff_b);
  int *named_a = xp_xcalloc((size_t)a->n + 1, sizeof *named_a), *named_b = xp_xcalloc((size_t)b->n + 1, sizeof *named_b);
  cJSON **unchecked = xp_xcalloc((size_t)a->n + 1, sizeof *unchecked);
  const side_case **sa = sorted_by_name(a), **sb = sorted_by_name(b);
  for (int ia = 0, ib = 0; ia < a->n && ib < b->n;) {
    int d = strcmp(sa[ia]->name, sb[ib]->name);
    if (d) {
      if (d < 0) ia++;
      else ib++;
      continue;
    }
    int ea = name_end(sa, a->n, ia), eb = name_end(sb, b->n, ib);
    for (int p = ia; p < ea; p++)
      for (int r = ib; r < eb; r++) {
        int i = (int)(sa[p] - a->c), j = (int)(sb[r] - b->c);
        named_a[i]++, named_b[j]++;
        cJSON *u = cJSON_CreateArray();
        char *why = workload_differs(&a->c[i], &b->c[j], several, u);
        if (!why) {
          na[i]++, nb[j]++;
          only_a[i] = j, only_b[j] = i;
          if (!unchecked[i]) unchecked[i] = u, u = NULL;
        } else {
          if (!diff_a[i]) diff_a[i] = xp_strdup(why);
          if (!diff_b[j]) diff_b[j] = xp_strdup(why);
        }
        cJSON_Delete(u);
        free(why);
      }
    ia = ea;
    ib = eb;
  }
  int *same_a = same_name_counts(a, sa), *same_b = same_name_counts(b, sb);
  free(sa);
  free(sb);
  for (int i = 0; i < a->n; i++) {
    int j = only_a[i];
    if (na[i] == 1 && nb[j] == 1) {
      a->c[i].pair = j;
      b->c[j].pair = i;
      a->c[i].unchecked = unchecked[i];
      unchecked[i] = NULL;
    }
  }
  for (int i = 0; i < a->n; i++)
    if (a->c[i].pair < 0)
      a->c[i].why = named_a[i] ? unpaired_why(&a->c[i], "B", "A", named_a[i], na[i], nb[only_a[i]], diff_a[i])
                               : absent_why(&a->c[i], "B", "A", b->n, same_a[i]);
  for (int j = 0; j < b->n; j++)
    if (b->c[j].pair < 0)
      b->c[j].why = named_b[j] ? unpaired_why(&b->c[j], "A", "B", named_b[j], nb[j], na[only_b[j]], diff_b[j])
                               : absent_why(&b->c[j], "A", "B", a->n, same_b[j]);
  free(same_a);
  free(same_b);
  for (int i = 0; i < a->n; i++) {
    free(diff_a[i]);
    cJSON_Delete(unchecked[i]);
  }
  for (int j = 0; j < b->n; j++) free(diff_b[j]);
  free(na);
  free(nb);
  free(named_a);
  free(named_b);
  free(only_a);
  free(only_b);
  free(diff_a);
  free(diff_b);
  free(unchecked);
}

/* The statements that case_rows runs for every case, prepared once for the two sides. */
typedef struct case_queries {
  sqlite3_stmt *metrics; /* the metrics either side recorded for a case */
  xp_samples_query a, b;
} case_queries;

static void case_queries_close(case_queries *q) {
  sqlite3_finalize(q->metrics);
  q->metrics = NULL;
  xp_samples_close(&q->a);
  xp_samples_close(&q->b);
}

static int case_queries_open(sqlite3 *db, const side *a, const side *b, case_queries *q) {
  memset(q, 0, sizeof *q);
  char *ia = xp_id_list(a->ids, a->n), *ib = xp_id_list(b->ids, b->n);
  char *sql = xp_asprintf(
      "SELECT m.name, m.unit FROM cases c JOIN metrics m ON m.case_id = c.id WHERE c.status = 'ok' AND c.name = ?1"
      " AND ((c.run_id IN %s AND " XP_CASE_KEY("c.params") " = ?2) OR (c.run_id IN %s AND " XP_CASE_KEY("c.params")
      " = ?3)) GROUP BY m.name, m.unit ORDER BY m.name, m.unit", ia, ib);
  q->metrics = xp_db_prepare(db, sql);
  free(sql);
  free(ia);
  free(ib);
  int rc = q->metrics ? xp_samples_open(db, a->ids, a->n, &q->a) : XP_EXIT_DB;
  if (rc == 0) rc = xp_samples_open(db, b->ids, b->n, &q->b);
  if (rc) case_queries_close(q);
  return rc;
}

/* The rows of a pair of cases, or of a case one side alone has (the other NULL): every metric
** either side recorded for it. A pair's params are the settings both record. */
static void case_rows(case_queries *q, const side_case *ca, const side_case *cb, cJSON *out) {
  sqlite3_stmt *st = q->metrics;
  const char *name = ca ? ca->name : cb->name;
  xp_bind_text(st, 1, name);
  xp_bind_text(st, 2, ca ? ca->key : NULL);
  xp_bind_text(st, 3, cb ? cb->key : NULL);
  char *params = NULL;
  if (ca && cb && strcmp(ca->key, cb->key) != 0) {
    cJSON *common = cJSON_CreateObject();
    const cJSON *e;
    cJSON_ArrayForEach(e, ca->params) if (cJSON_HasObjectItem(cb->params, e->string))
        cJSON_AddItemToObject(common, e->string, cJSON_Duplicate(e, 1));
    params = cJSON_PrintUnformatted(common);
    cJSON_Delete(common);
  } else params = xp_strdup(ca ? ca->key : cb->key);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *metric = (const char *)sqlite3_column_text(st, 0);
    const char *unit = (const char *)sqlite3_column_text(st, 1);
    double *sa = NULL, *sb = NULL;
    size_t na = 0, nb = 0;
    if (ca) xp_samples_read(&q->a, name, ca->key, metric, &sa, &na);
    if (cb) xp_samples_read(&q->b, name, cb->key, metric, &sb, &nb);
    add_row(out, name, params, metric, unit, sa, na, sb, nb, ca != NULL, cb != NULL);
    free(sa);
    free(sb);
  }
  sqlite3_reset(st);
  free(params);
}

/* What the pairing did with a case (the "cases" of --format json): its params on each side,
** the settings one side alone records (a pair), or why it has no partner. */
static void add_case(cJSON *cases, const side_case *ca, const side_case *cb) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "case", ca ? ca->name : cb->name);
  if (ca) cJSON_AddRawToObject(o, "params_a", ca->key);
  else cJSON_AddNullToObject(o, "params_a");
  if (cb) cJSON_AddRawToObject(o, "params_b", cb->key);
  else cJSON_AddNullToObject(o, "params_b");
  if (ca && cb) cJSON_AddItemToObject(o, "unchecked", ca->unchecked ? cJSON_Duplicate(ca->unchecked, 1) : cJSON_CreateArray());
  else cJSON_AddStringToObject(o, "unpaired", ca ? ca->why : cb->why);
  cJSON_AddItemToArray(cases, o);
}

typedef struct case_ref {
  const side_case *c;
  int side; /* 0: A, 1: B */
} case_ref;

static int by_first(const void *x, const void *y) {
  const case_ref *p = x, *q = y;
  if (p->c->first != q->c->first) return p->c->first < q->c->first ? -1 : 1;
  int d = strcmp(p->c->name, q->c->name);
  if (d == 0) d = strcmp(p->c->key, q->c->key);
  return d ? d : p->side - q->side;
}

/* Every case of either side, paired (pair_cases), its metrics judged: rows in the order the
** cases were recorded, a pair where A's case is. */
static int compare_metrics(sqlite3 *db, const side *a, const side *b, cJSON *out, cJSON *cases) {
  const int several = several_writers(a->kind);
  case_list ca = {0}, cb = {0};
  int rc = load_cases(db, a, several, &ca);
  if (rc == 0) rc = load_cases(db, b, several, &cb);
  if (rc == 0) pair_cases(&ca, &cb, several);
  case_queries q = {0};
  if (rc == 0) rc = case_queries_open(db, a, b, &q);
  case_ref *refs = xp_xcalloc((size_t)(ca.n + cb.n) + 1, sizeof *refs);
  int n = 0;
  for (int i = 0; rc == 0 && i < ca.n; i++) refs[n++] = (case_ref){&ca.c[i], 0};
  for (int j = 0; rc == 0 && j < cb.n; j++)
    if (cb.c[j].pair < 0) refs[n++] = (case_ref){&cb.c[j], 1};
  qsort(refs, (size_t)n, sizeof *refs, by_first);
  for (int k = 0; rc == 0 && k < n; k++) {
    const side_case *x = refs[k].side ? NULL : refs[k].c;
    const side_case *y = refs[k].side ? refs[k].c : (x->pair >= 0 ? &cb.c[x->pair] : NULL);
    case_rows(&q, x, y, out);
    add_case(cases, x, y);
  }
  case_queries_close(&q);
  free(refs);
  cases_free(&ca);
  cases_free(&cb);
  return rc;
}

/* ---- output ---- */

static char *fmt_num(const cJSON *v, const char *f) {
  if (!cJSON_IsNumber(v)) return xp_strdup("-");
  return xp_asprintf(f, v->valuedouble);
}

static void print_table(char ***cells, int nrows, int ncols) {
  size_t *w = xp_xcalloc((size_t)ncols, sizeof *w);
  for (int r = 0; r < nrows; r++)
    for (int c = 0; c < ncols; c++) {
      char *shown = xp_terminal_text(cells[r][c]);
      free(cells[r][c]);
      cells[r][c] = shown;
      if (xp_display_width(cells[r][c]) > w[c]) w[c] = xp_display_width(cells[r][c]);
    }
  for (int r = 0; r < nrows; r++) {
    for (int c = 0; c < ncols; c++) /* padded by columns, not bytes: a CJK name takes two a character */
      printf("%s%s%*s", c ? "  " : "", cells[r][c], c == ncols - 1 ? 0 : (int)(w[c] - xp_display_width(cells[r][c])), "");
    putchar('\n');
    if (r == 0) {
      for (int c = 0; c < ncols; c++) {
        printf("%s", c ? "  " : "");
        for (size_t i = 0; i < w[c]; i++) putchar('-');
      }
      putchar('\n');
    }
  }
  free(w);
}

static void print_side(const char *name, const side *s) {
  printf("%s: ", name);
  xp_print_text(stdout, s->kind);
  if (s->n == 1) printf(" run %s\n", s->uuids[0]);
  else {
    fputs(" group ", stdout);
    xp_print_text(stdout, s->label);
    printf(": %d runs (", s->n);
    for (int i = 0; i < s->n; i++) printf("%s%.8s", i ? " " : "", s->uuids[i]);
    printf(")\n");
  }
}

/* The settings a pair's sides alone record, as "A k=v, k=v; B k=v". */
static char *unchecked_text(const cJSON *unchecked) {
  char *out = xp_strdup("");
  for (int side = 0; side < 2; side++) {
    const char *which = side ? "b" : "a";
    int n = 0;
    const cJSON *u;
    cJSON_ArrayForEach(u, unchecked) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(u, which);
      if (cJSON_IsNull(v)) continue;
      char *tv = cJSON_PrintUnformatted(v);
      char *next = xp_asprintf("%s%s%s%s=%s", out, n ? ", " : *out ? "; " : "", n ? "" : side ? "B " : "A ",
                               cJSON_GetObjectItemCaseSensitive(u, "key")->valuestring, tv);
      free(tv);
      free(out);
      out = next;
      n++;
    }
  }
  return out;
}

static const char *only_in(const cJSON *c) {
  return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "params_b")) ? "A" : "B";
}

/* A side of no cases at all (a failed run's): one line, where each of the other's cases said
** so on a line of its own. 1 where it printed that line. */
static int print_one_side_empty(const cJSON *cases) {
  const int n = cJSON_GetArraySize(cases);
  int only[2] = {0, 0}; /* unpaired cases of A, of B */
  const cJSON *c;
  cJSON_ArrayForEach(c, cases) if (cJSON_HasObjectItem(c, "unpaired")) only[*only_in(c) == 'B']++;
  if (n == 0 || (only[0] < n && only[1] < n)) return 0;
  printf("\nunpaired cases: %s has no cases at all, so ", only[0] ? "B" : "A");
  if (n == 1) printf("%s's one case is unpaired\n", only[0] ? "A" : "B");
  else printf("all %d of %s's cases are unpaired\n", n, only[0] ? "A" : "B");
  return 1;
}

/* How the cases paired, where that needs saying: settings only one side records (not compared),
** and why a case has no partner. */
static void print_pairing(const cJSON *cases) {
  int head = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, cases) {
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(c, "unchecked");
    if (cJSON_GetArraySize(u) == 0) continue;
    if (!head++) puts("\npaired by the settings both sides record; recorded by one side only, not compared:");
    char *t = unchecked_text(u);
    fputs("  ", stdout);
    xp_print_text(stdout, cJSON_GetObjectItemCaseSensitive(c, "case")->valuestring);
    fputs(": ", stdout);
    xp_print_text(stdout, t);
    putchar('\n');
    free(t);
  }
  if (print_one_side_empty(cases)) return;
  head = 0;
  cJSON_ArrayForEach(c, cases) {
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(c, "unpaired");
    if (!why) continue;
    if (!head++) puts("\nunpaired cases:");
    fputs("  ", stdout);
    xp_print_text(stdout, cJSON_GetObjectItemCaseSensitive(c, "case")->valuestring);
    printf(" only in %s: ", only_in(c));
    xp_print_text(stdout, why->valuestring); /* names the settings that differ, as the files wrote them */
    putchar('\n');
  }
}

/* A trace's "step share" is the median step's; the queries and xp report pool the steps, which a
** few slow steps move far (all-reduce 54% of the median step, 93% of all steps' time): both said. */
static void print_pooled(const cJSON *metrics) {
  const cJSON *m;
  int first = 1;
  cJSON_ArrayForEach(m, metrics) {
    const cJSON *pa = cJSON_GetObjectItem(m, "pooled_a"), *pb = cJSON_GetObjectItem(m, "pooled_b");
    if (!pa || !pb) continue;
    if (first)
      puts("\nstep share: the median step's share of its GPU time; of all steps' time taken together (as\n"
           "bottleneck_by_config.sql and xp report give shares):");
    first = 0;
    char *fa = fmt_num(pa, "%.1f%%"), *fb = fmt_num(pb, "%.1f%%");
    cJSON *params = cJSON_Parse(cJSON_GetObjectItem(m, "params")->valuestring); /* raw JSON */
    const cJSON *cat = cJSON_GetObjectItem(params, "category");
    fputs("  ", stdout);
    xp_print_text(stdout, cJSON_IsString(cat) ? cat->valuestring : "?");
    printf(": A %s; B %s\n", fa, fb);
    cJSON_Delete(params);
    free(fa);
    free(fb);
  }
}

static void print_report(const side *a, const side *b, const cJSON *metrics, const cJSON *cases,
                         const cJSON *unfair, const cJSON *one_sided) {
  print_side("A", a);
  print_side("B", b);
  int n = cJSON_GetArraySize(metrics), ncols = 10;
  char ***cells = xp_xcalloc((size_t)n + 1, sizeof *cells);
  const char *head[] = {"case", "params", "metric", "unit", "median A", "median B", "change", "p", "n A/B", "verdict"};
  cells[0] = xp_xcalloc((size_t)ncols, sizeof **cells);
  for (int c = 0; c < ncols; c++) cells[0][c] = xp_strdup(head[c]);
  int r = 1;
  const cJSON *m;
  cJSON_ArrayForEach(m, metrics) {
    char **row = cells[r++] = xp_xcalloc((size_t)ncols, sizeof *row);
    row[0] = xp_strdup(cJSON_GetObjectItem(m, "case")->valuestring);
    row[1] = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "params"));
    if (strlen(row[1]) > 48) strcpy(row[1] + 45, "..."); /* the full params are in --format json */
    row[2] = xp_strdup(cJSON_GetObjectItem(m, "metric")->valuestring);
    row[3] = xp_strdup(cJSON_GetObjectItem(m, "unit")->valuestring);
    row[4] = fmt_num(cJSON_GetObjectItem(m, "median_a"), "%.6g");
    row[5] = fmt_num(cJSON_GetObjectItem(m, "median_b"), "%.6g");
    const cJSON *ch = cJSON_GetObjectItem(m, "change");
    row[6] = cJSON_IsNumber(ch) ? xp_asprintf("%+.1f%%", 100 * ch->valuedouble) : xp_strdup("-");
    row[7] = fmt_num(cJSON_GetObjectItem(m, "p"), "%.3g");
    row[8] = xp_asprintf("%d/%d", cJSON_GetObjectItem(m, "n_a")->valueint, cJSON_GetObjectItem(m, "n_b")->valueint);
    row[9] = xp_strdup(cJSON_GetObjectItem(m, "verdict")->valuestring);
  }
  putchar('\n');
  if (n) print_table(cells, n + 1, ncols);
  else puts("(no metrics on either side)");
  for (int i = 0; i <= n; i++) {
    for (int c = 0; c < ncols; c++) free(cells[i][c]);
    free(cells[i]);
  }
  free(cells);
  printf("\nverdicts: Mann-Whitney U, two-sided, p < %.2f is beyond noise; fewer than %d samples a side: no verdict\n",
         XP_ALPHA, XP_MIN_SAMPLES);
  /* a table of no verdict at all (two nccl-tests logs: one sample a case) says how to get one */
  int judged = 0;
  cJSON_ArrayForEach(m, metrics) judged += strcmp(cJSON_GetObjectItem(m, "verdict")->valuestring, "too few samples") != 0;
  if (n && !judged)
    printf("no metric has %d samples a side: give each side as a group of %d or more runs (--a KEY=VALUE\n"
           "--b KEY=VALUE) for verdicts; so few because %s\n", XP_MIN_SAMPLES, XP_MIN_SAMPLES,
           xp_few_samples_why(a->kind));
  print_pooled(metrics);
  print_pairing(cases);
  const cJSON *d;
  const int n_one = cJSON_GetArraySize(one_sided);
  if (n_one) {
    printf("\nstated by one side alone (the other's nccl-tests files do not say): %d\n", n_one);
    cJSON_ArrayForEach(d, one_sided) {
      const char *va = cJSON_GetObjectItem(d, "a")->valuestring, *vb = cJSON_GetObjectItem(d, "b")->valuestring;
      const int in_a = strcmp(va, "(unset)") != 0;
      fputs("  ", stdout);
      xp_print_text(stdout, cJSON_GetObjectItem(d, "key")->valuestring);
      printf(": %s ", in_a ? "A" : "B");
      xp_print_text(stdout, in_a ? va : vb);
      putchar('\n');
    }
  }
  if (cJSON_GetArraySize(unfair) == 0) {
    puts(n_one ? "\nno difference in what both sides state"
               : "\nsame GPU, driver, libraries, environment, spec and configuration on both sides");
    return;
  }
  printf("\nunfair: %d difference%s between A and B\n", cJSON_GetArraySize(unfair),
         cJSON_GetArraySize(unfair) == 1 ? "" : "s");
  cJSON_ArrayForEach(d, unfair) {
    fputs("  ", stdout);
    xp_print_text(stdout, cJSON_GetObjectItem(d, "key")->valuestring);
    fputs(": A ", stdout);
    xp_print_text(stdout, cJSON_GetObjectItem(d, "a")->valuestring);
    fputs("; B ", stdout);
    xp_print_text(stdout, cJSON_GetObjectItem(d, "b")->valuestring);
    putchar('\n');
  }
}

static cJSON *side_json(const side *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "selector", s->label);
  cJSON_AddStringToObject(o, "kind", s->kind);
  cJSON *runs = cJSON_AddArrayToObject(o, "runs");
  for (int i = 0; i < s->n; i++) cJSON_AddItemToArray(runs, cJSON_CreateString(s->uuids[i]));
  return o;
}

/* A run on both sides (--a interconnect=nvlink against one of its own runs) is compared with
** itself: its samples count on each side, and the change reads smaller than it is. */
static void warn_shared(const side *a, const side *b) {
  int shared = 0;
  const char *first = NULL;
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++)
      if (a->ids[i] == b->ids[j] && !shared++) first = a->uuids[i];
  if (shared)
    xp_warn("A and B share %d run%s (%.8s%s): each counts on both sides", shared, shared == 1 ? "" : "s", first,
            shared > 1 ? ", ..." : "");
}

/* A run named alone is compared whatever its status (a group takes ok runs only): an aborted
** import's side read 'only in B' for every metric beside a table of metadata differences, as if
** it had measured nothing new, not nothing at all. */
static int warn_not_ok(sqlite3 *db, const char *side_name, int64_t id, const char *uuid) {
  /* its status as xp runs gives it (xp_status): a recorder that died left 'running', which read
  ** as a run still going ("is running, not ok") where xp runs and xp show say incomplete */
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT xp_status(status, host, boot_id, pid), error FROM runs"
                                       " WHERE id = ?1 AND status <> 'ok'");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, id);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *error = (const char *)sqlite3_column_text(st, 1);
    xp_warn("%s: run %.8s is %s, not ok%s%s%s: its results are partial or none", side_name, uuid,
            (const char *)sqlite3_column_text(st, 0), error ? " (" : "", error ? error : "", error ? ")" : "");
  }
  sqlite3_finalize(st);
  return 0;
}

static int fill_side(sqlite3 *db, const char *which, const char *ref, const char *selector,
                     side *s) {
  if (selector) {
    s->label = selector;
    return select_group(db, which, selector, s);
  }
  int64_t id;
  char uuid[37];
  s->label = ref;
  int rc = xp_resolve_run(db, ref, &id, uuid);
  if (rc == 0) side_add(s, id, uuid);
  if (rc == 0) rc = warn_not_ok(db, which[2] == 'a' ? "A" : "B", id, uuid);
  return rc;
}

static char *join_selector(char *old, const char *add) {
  if (!old) return xp_strdup(add);
  char *n = xp_asprintf("%s,%s", old, add);
  free(old);
  return n;
}

int cmd_compare(int argc, char **argv, const char *db_path) {
  const char *refs[2] = {NULL, NULL};
  char *sel[2] = {NULL, NULL};
  int nrefs = 0, bad = 0, rc = 0;
  enum xp_format fmt = XP_FMT_TABLE;
  const char *format = NULL;
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *v;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      free(sel[0]);
      free(sel[1]);
      return 0;
    } else if ((v = xp_opt_value(argc, argv, &i, "--a", &bad))) sel[0] = join_selector(sel[0], v);
    else if ((v = xp_opt_value(argc, argv, &i, "--b", &bad))) sel[1] = join_selector(sel[1], v);
    else if ((v = xp_opt_value(argc, argv, &i, "--format", &bad))) {
      if ((rc = xp_opt_twice("compare", "--format", v, format)) == 0)
        rc = xp_opt_format("compare", v, (const char *const[]){"table", "json", NULL}, &fmt);
      format = v;
    } else if (bad) rc = XP_EXIT_USAGE;
    else if (argv[i][0] == '-') rc = xp_unknown_option("compare", argv[i], (const char *const[]){"--a", "--b", "--format", "--help", NULL});
    else if (nrefs == 2) {
      char *cut = xp_value_cut(argv[i]);
      rc = xp_usage_error("compare", "two sides only (got a third: %s)", cut);
      free(cut);
    }
    else refs[nrefs++] = argv[i];
  }
  /* Positional runs fill the sides that have no selector, A first. */
  const char *ref_of[2] = {NULL, NULL};
  for (int s = 0, r = 0; s < 2 && rc == 0; s++)
    if (!sel[s] && r < nrefs) ref_of[s] = refs[r++];
  if (rc == 0 && nrefs > (!sel[0]) + (!sel[1])) rc = xp_usage_error("compare", "too many runs for the sides left");
  if (rc == 0 && ((!sel[0] && !ref_of[0]) || (!sel[1] && !ref_of[1])))
    rc = xp_usage_error("compare", "two sides are needed: A B, or --a KEY=VALUE... --b KEY=VALUE...");
  side a = {0}, b = {0};
  sqlite3 *db = NULL;
  cJSON *metrics = NULL, *cases = NULL, *fa = NULL, *fb = NULL, *unfair = NULL, *one_sided = NULL;
  if (rc == 0) db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  if (rc == 0) xp_register_run_fns(db); /* --a gpus=1 selects as xp runs shows it */
  if (rc == 0) rc = fill_side(db, "--a", ref_of[0], sel[0], &a);
  if (rc == 0) rc = fill_side(db, "--b", ref_of[1], sel[1], &b);
  if (rc == 0) warn_shared(&a, &b);
  if (rc == 0) rc = side_kind(db, &a);
  if (rc == 0) rc = side_kind(db, &b);
  if (rc == 0 && strcmp(a.kind, b.kind) != 0)
    rc = xp_error(XP_EXIT_USAGE, "compare: runs of different kinds cannot be compared: A is %s, B is %s",
                  a.kind, b.kind);
  if (rc == 0) {
    metrics = cJSON_CreateArray();
    cases = cJSON_CreateArray();
    rc = strcmp(a.kind, "torch_trace") == 0 ? compare_traces(db, &a, &b, metrics)
                                            : compare_metrics(db, &a, &b, metrics, cases);
  }
  if (rc == 0) fa = xp_run_facts(db, a.ids, a.n, &rc);
  if (rc == 0) fb = xp_run_facts(db, b.ids, b.n, &rc);
  if (rc == 0) {
    unfair = xp_fact_differences(fa, fb);
    one_sided = split_one_sided(a.kind, unfair, fa, fb);
    if (fmt == XP_FMT_JSON) {
      cJSON *doc = cJSON_CreateObject();
      cJSON_AddItemToObject(doc, "a", side_json(&a));
      cJSON_AddItemToObject(doc, "b", side_json(&b));
      xp_json_exact(metrics); /* reals written to the last bit (cJSON rounds to 15 digits) */
      cJSON_AddItemReferenceToObject(doc, "metrics", metrics);
      cJSON_AddItemReferenceToObject(doc, "cases", cases);
      cJSON_AddItemReferenceToObject(doc, "unfair", unfair);
      cJSON_AddItemReferenceToObject(doc, "one_sided", one_sided);
      char *t = xp_json_print(doc);
      printf("%s\n", t);
      free(t);
      cJSON_Delete(doc);
    } else print_report(&a, &b, metrics, cases, unfair, one_sided);
  }
  cJSON_Delete(metrics);
  cJSON_Delete(cases);
  cJSON_Delete(fa);
  cJSON_Delete(fb);
  cJSON_Delete(unfair);
  cJSON_Delete(one_sided);
  free(a.ids);
  free(a.uuids);
  free(a.kind);
  free(b.ids);
  free(b.uuids);
  free(b.kind);
  free(sel[0]);
  free(sel[1]);
  xp_db_close(db);
  return rc;
}
