/*
** xp verify: is the history what was recorded? Recomputes every finished run's content hash
** and every link of the chain (chain.c says what they cover), every decision's digest, the
** kernel categories derived from the rule set in force, and runs SQLite's own integrity_check
** and foreign_key_check. Each break is named: the run, the
** table whose rows differ from the seal, the link that does not follow. Exit 5 on any break.
**
** --seal: seal finished runs that have no seal (recorded by an xp without the chain, or
** merged from one), appending them to the chain in the order they finished. It cannot touch a
** sealed run: the append-only triggers allow a seal to be written once.
**
** The chain shows any change to a sealed run unless every later link is rewritten as well;
** the head printed here, noted somewhere else (a decision, a lab notebook, CI logs), makes
** that visible too.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "chain.h"
#include "cli.h"
#include "db.h"
#include "history.h"
#include "torch_trace/tt_rules.h"
#include "torch_trace/tt_store.h"
#include "xp.h"

static const char usage[] =
    "usage: xp verify [--seal] [--quiet]\n"
    "  Checks the history: every finished run's content against its seal (content_sha256 over\n"
    "  per-table digests of its rows), every link of the hash chain, every decision's digest,\n"
    "  and SQLite's integrity_check and foreign_key_check; kernel categories (trace_names,\n"
    "  trace_rules, trace_categories) against the rule set in force, which they derive from\n"
    "  (xp reclassify). Names each break (run, table, link).\n"
    "  --seal   first seal finished runs that have none (runs recorded before the chain\n"
    "           existed), appending them to the chain in finish order\n"
    "  --quiet  print only breaks\n"
    "  Exit status: 0 intact, 5 a break was found, 3 the database is missing or cannot be read\n"
    "  (--seal never creates one), or has a damaged page (integrity_check's BREAK names it).\n";

typedef struct verify_state {
  sqlite3 *db;
  xp_rtree tree;
  int breaks;
  int quiet;
  char head[65]; /* the last link: note it elsewhere, and a rewritten history shows */
  int64_t last_seq; /* its number (links removed from the middle leave it where it was) */
} verify_state;

static void brk(verify_state *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A break names what it found, stored text included (a planted category name): shown as
** tables show it, so no stored escape sequence reaches the terminal. */
static void brk(verify_state *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char line[1024];
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fputs("BREAK: ", stdout);
  xp_print_text(stdout, line);
  fputc('\n', stdout);
  v->breaks++;
}

/* Name the tables whose digest differs between the seal and now. */
static void diff_digests(verify_state *v, const char *uuid, const char *stored_json,
                         const char *now_json) {
  cJSON *then = cJSON_Parse(stored_json ? stored_json : "");
  cJSON *now = cJSON_Parse(now_json);
  if (!cJSON_IsObject(then)) {
    brk(v, "run %s: its seal's table digests are unreadable", uuid);
    goto out;
  }
  int named = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, then) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(now, e->string);
    if (!n) brk(v, "run %s: its rows in %s are gone (sealed digest %.12s)", uuid, e->string,
                cJSON_IsString(e) ? e->valuestring : "?"), named++;
    else if (!cJSON_IsString(e) || strcmp(e->valuestring, n->valuestring) != 0)
      brk(v, "run %s: its rows in %s differ from the seal (sealed %.12s, now %.12s)", uuid,
          e->string, cJSON_IsString(e) ? e->valuestring : "?", n->valuestring), named++;
  }
  cJSON_ArrayForEach(e, now) {
    if (!cJSON_GetObjectItemCaseSensitive(then, e->string))
      brk(v, "run %s: rows were added to %s after it was sealed", uuid, e->string), named++;
  }
  if (!named) brk(v, "run %s: the seal's record of its tables was altered (content_sha256 does not match it)", uuid);
out:
  cJSON_Delete(then);
  cJSON_Delete(now);
}

static int check_runs(verify_state *v, int64_t *sealed, int64_t *unsealed_finished) {
  sqlite3_stmt *st = xp_db_prepare(v->db,
      "SELECT id, uuid, status, chain_seq, content_sha256, chain_sha256, content_digests FROM runs"
      " ORDER BY chain_seq IS NULL, chain_seq, finished_at, id");
  if (!st) return XP_EXIT_DB;
  char prev[65];
  int64_t expect_seq = 1;
  snprintf(prev, sizeof prev, "%s", xp_chain_genesis);
  int step, rc = 0;
  while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *uuid = (const char *)sqlite3_column_text(st, 1);
    const char *status = (const char *)sqlite3_column_text(st, 2);
    const char *content = (const char *)sqlite3_column_text(st, 4);
    const char *link = (const char *)sqlite3_column_text(st, 5);
    const char *digests = (const char *)sqlite3_column_text(st, 6);
    if (sqlite3_column_type(st, 3) == SQLITE_NULL) {
      if (strcmp(status, "running") == 0) continue; /* not finished: nothing to seal yet */
      (*unsealed_finished)++;
      brk(v, "run %s: finished (%s) but never sealed (xp verify --seal seals it)", uuid, status);
      continue;
    }
    int64_t seq = sqlite3_column_int64(st, 3);
    (*sealed)++;
    if (strcmp(status, "running") == 0)
      brk(v, "run %s: sealed but its status is 'running' again", uuid);
    if (seq != expect_seq) {
      brk(v, "chain: link %lld follows link %lld (run %s): %s", (long long)seq,
          (long long)expect_seq - 1, uuid,
          seq > expect_seq ? "runs were removed from the chain" : "a link is repeated");
      expect_seq = seq;
    }
    expect_seq++;
    char now[65], want_link[65];
    char *now_digests = NULL;
    if ((rc = xp_run_content(v->db, &v->tree, id, now, &now_digests)) != 0) break;
    if (!content || strcmp(now, content) != 0 || !digests || strcmp(digests, now_digests) != 0)
      diff_digests(v, uuid, digests, now_digests);
    free(now_digests);
    xp_chain_link(prev, content ? content : "", want_link);
    if (!link || strcmp(link, want_link) != 0)
      brk(v, "chain: link %lld (run %s) does not follow the previous link (stored %.12s, expected %.12s)",
          (long long)seq, uuid, link ? link : "NULL", want_link);
    snprintf(prev, sizeof prev, "%s", link ? link : "");
  }
  if (rc == 0 && step != SQLITE_DONE) rc = xp_db_fail(v->db, "reading runs");
  sqlite3_finalize(st);
  snprintf(v->head, sizeof v->head, "%s", prev);
  v->last_seq = expect_seq - 1;
  return rc;
}

static int check_decisions(verify_state *v, int64_t *count) {
  sqlite3_stmt *st = xp_db_prepare(v->db,
      "SELECT d.id, d.uuid, d.decision_sha256, d.query_result, d.query_result_sha256,"
      " (SELECT count(*) FROM decision_evidence e WHERE e.decision_id = d.id), d.evidence_count"
      " FROM decisions d ORDER BY d.created_at, d.id");
  if (!st) return XP_EXIT_DB;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    (*count)++;
    const char *uuid = (const char *)sqlite3_column_text(st, 1);
    const char *stored = (const char *)sqlite3_column_text(st, 2);
    const char *result = (const char *)sqlite3_column_text(st, 3);
    const char *result_sha = (const char *)sqlite3_column_text(st, 4);
    char now[65];
    if (xp_decision_digest(v->db, sqlite3_column_int64(st, 0), now) != 0) {
      sqlite3_finalize(st);
      return XP_EXIT_DB;
    }
    if (!stored || strcmp(stored, now) != 0)
      brk(v, "decision %s: its record differs from its digest (title, rationale, evidence or query changed)", uuid);
    if (result) {
      char h[65];
      xp_sha256_hex(result, strlen(result), h);
      if (!result_sha || strcmp(h, result_sha) != 0)
        brk(v, "decision %s: its query result differs from the hash taken when it was recorded", uuid);
    }
    if (sqlite3_column_int64(st, 5) != sqlite3_column_int64(st, 6))
      brk(v, "decision %s: %lld evidence runs recorded, %lld declared", uuid,
          (long long)sqlite3_column_int64(st, 5), (long long)sqlite3_column_int64(st, 6));
  }
  /* a damaged page is no end of the decisions: read as one, the head's count said some were removed */
  int rc = step == SQLITE_DONE ? 0 : xp_db_fail(v->db, "reading decisions");
  sqlite3_finalize(st);
  if (rc) return rc;
  /* Evidence that no longer exists, or whose content changed since the decision. */
  st = xp_db_prepare(v->db,
      "SELECT d.uuid, e.run_uuid, e.run_content_sha256, r.content_sha256, r.id IS NULL"
      " FROM decision_evidence e JOIN decisions d ON d.id = e.decision_id"
      " LEFT JOIN runs r ON r.uuid = e.run_uuid ORDER BY d.created_at, e.seq");
  if (!st) return XP_EXIT_DB;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 0);
    const char *run = (const char *)sqlite3_column_text(st, 1);
    const char *then = (const char *)sqlite3_column_text(st, 2);
    const char *now = (const char *)sqlite3_column_text(st, 3);
    if (sqlite3_column_int(st, 4)) brk(v, "decision %s: evidence run %s is missing", d, run);
    else if (then && (!now || strcmp(then, now) != 0))
      brk(v, "decision %s: evidence run %s was sealed as %.12s when decided, now %.12s", d, run,
          then, now ? now : "NULL");
  }
  rc = step == SQLITE_DONE ? 0 : xp_db_fail(v->db, "reading decisions' evidence");
  sqlite3_finalize(st);
  return rc;
}

/* "run_meta.run_id = 42": the keys the rows of table hold under foreign key fkid that parent
** lacks, the first few, for a reviewer to look for in a backup; "" for a key of several columns.
** "points at a missing row of runs" named no run, and run_meta has no rowid to find the row by. */
static char *missing_keys(sqlite3 *db, const char *table, const char *parent, int fkid) {
  enum { SHOWN = 3 };
  char *out = xp_strdup("");
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT \"from\", coalesce(\"to\", (SELECT name FROM pragma_table_info(?2) WHERE pk = 1)), count(*) OVER ()"
      " FROM pragma_foreign_key_list(?1) WHERE id = ?3");
  if (!st) return out;
  xp_bind_text(st, 1, table);
  xp_bind_text(st, 2, parent);
  sqlite3_bind_int(st, 3, fkid);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 2) == 1 && sqlite3_column_type(st, 1) != SQLITE_NULL) {
    const char *from = (const char *)sqlite3_column_text(st, 0), *to = (const char *)sqlite3_column_text(st, 1);
    char *sql = sqlite3_mprintf("SELECT DISTINCT c.\"%w\" FROM \"%w\" c WHERE c.\"%w\" IS NOT NULL AND NOT EXISTS"
                                " (SELECT 1 FROM \"%w\" p WHERE p.\"%w\" = c.\"%w\") ORDER BY 1",
                                from, table, from, parent, to, from);
    sqlite3_stmt *keys = sql ? xp_db_prepare(db, sql) : NULL;
    int n = 0;
    while (keys && sqlite3_step(keys) == SQLITE_ROW) {
      if (++n > SHOWN) continue;
      char *shown = xp_terminal_text((const char *)sqlite3_column_text(keys, 0));
      char *next = xp_asprintf("%s%s%s", out, n == 1 ? "" : ", ", shown);
      free(shown);
      free(out);
      out = next;
    }
    if (n) {
      char *next = n > SHOWN ? xp_asprintf("%s.%s = %s and %d more", table, from, out, n - SHOWN)
                             : xp_asprintf("%s.%s = %s", table, from, out);
      free(out);
      out = next;
    }
    sqlite3_finalize(keys);
    sqlite3_free(sql);
  }
  sqlite3_finalize(st);
  return out;
}

static int check_sqlite(verify_state *v) {
  sqlite3_stmt *st = xp_db_prepare(v->db, "PRAGMA integrity_check");
  if (!st) return XP_EXIT_DB;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *msg = (const char *)sqlite3_column_text(st, 0);
    if (!msg || strcmp(msg, "ok") == 0) continue;
    brk(v, "sqlite integrity_check: %s", msg);
    /* A page or index it finds damaged is the file's (exit 3, as where a read meets one), not an
    ** edit to rows, which keeps both whole: an overflow page's bad link ('On tree page 20 cell
    ** 0: invalid page number ...'), met by no read of verify's, was a broken history, exit 5.
    ** A CHECK, NOT NULL or STRICT type failure is rows edited past their constraints. */
    if (strstr(msg, "page") || strstr(msg, "Page") || strstr(msg, "Freelist") || strstr(msg, "index"))
      xp_db_note_damage();
  }
  sqlite3_finalize(st);
  /* One break per table and the table it points at: a run deleted with foreign keys off left
  ** a break per row of it, each metadata row "rowid 0" (run_meta has no rowid). */
  if (!(st = xp_db_prepare(v->db, "SELECT \"table\", parent, count(*), min(rowid), min(fkid) FROM pragma_foreign_key_check"
                                  " GROUP BY 1, 2 ORDER BY 1, 2")))
    return XP_EXIT_DB;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *table = (const char *)sqlite3_column_text(st, 0), *parent = (const char *)sqlite3_column_text(st, 1);
    const long long rows = sqlite3_column_int64(st, 2), rowid = sqlite3_column_int64(st, 3);
    const int has_rowid = sqlite3_column_type(st, 3) != SQLITE_NULL;
    char *keys = missing_keys(v->db, table, parent, sqlite3_column_int(st, 4));
    char first[48] = "";
    if (rows > 1 && has_rowid) snprintf(first, sizeof first, "%sthe first rowid %lld", *keys ? "; " : "", rowid);
    char *why = *keys || *first ? xp_asprintf(" (%s%s)", keys, first) : xp_strdup("");
    if (rows == 1 && has_rowid)
      brk(v, "sqlite foreign_key_check: a row of %s (rowid %lld) points at a missing row of %s%s", table, rowid, parent,
          why);
    else if (rows == 1) brk(v, "sqlite foreign_key_check: a row of %s points at a missing row of %s%s", table, parent, why);
    else brk(v, "sqlite foreign_key_check: %lld rows of %s point at missing rows of %s%s", rows, table, parent, why);
    free(why);
    free(keys);
  }
  sqlite3_finalize(st);
  return 0;
}

/* Seal finished runs without a seal, oldest first, in one transaction. */
static int seal_unsealed(sqlite3 *db, int quiet) {
  int rc = xp_db_begin(db);
  if (rc) return rc;
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT id, uuid FROM runs WHERE status <> 'running' AND chain_seq IS NULL"
      " ORDER BY coalesce(finished_at, started_at), id");
  if (!st) { xp_db_rollback(db); return XP_EXIT_DB; }
  int64_t *ids = NULL;
  char (*uuids)[37] = NULL;
  size_t n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ids = xp_xrealloc(ids, (n + 1) * sizeof *ids);
    uuids = xp_xrealloc(uuids, (n + 1) * sizeof *uuids);
    ids[n] = sqlite3_column_int64(st, 0);
    snprintf(uuids[n], 37, "%s", (const char *)sqlite3_column_text(st, 1));
    n++;
  }
  sqlite3_finalize(st);
  for (size_t i = 0; i < n && rc == 0; i++) {
    rc = xp_chain_seal(db, ids[i]);
    if (rc == 0 && !quiet) printf("sealed run %s\n", uuids[i]);
  }
  if (rc == 0) rc = xp_db_commit(db);
  else xp_db_rollback(db);
  if (rc == 0 && !quiet) printf("%zu unsealed run%s sealed\n", n, n == 1 ? "" : "s");
  free(ids);
  free(uuids);
  return rc;
}

/* Kernel names are a dictionary shared by every trace run, outside any run's seal: each id is
** its name's hash (xp_text_id), so a row edited or planted under another name's id shows. */
static int check_names(verify_state *v) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(v->db, "SELECT id, name FROM trace_names", -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return 0; /* a schema without traces */
  }
  int bad = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (name && sqlite3_column_int64(st, 0) == xp_text_id(name, (size_t)sqlite3_column_bytes(st, 1))) continue;
    if (bad++ < 3)
      brk(v, "trace_names: id %lld is not the hash of its name \"%.60s\"", (long long)sqlite3_column_int64(st, 0),
          name ? name : "");
  }
  int rc = step == SQLITE_DONE ? 0 : xp_db_fail(v->db, "reading trace_names");
  sqlite3_finalize(st);
  if (bad > 3) brk(v, "trace_names: %d more names with ids not their hashes", bad - 3);
  return rc;
}

/* The kernel categories every trace query reads are derived, outside any run's seal: the rule
** set's text (trace_rule_set, what xp reclassify made the rules in force) gives the rules
** (trace_rules), the categories' groups (trace_categories) and each name's category
** (trace_names). Each is derived again here and compared: one edited in SQLite (NCCL kernels
** called gemm) turned allreduce_share.sql's 92.8% into 0.0% under an 'intact' history. */
static const char *rule_how(const tt_rules *r, int i) { return tt_match_names[r->rule[i].how]; }

static void check_rule_rows(verify_state *v, const tt_rules *r) {
  sqlite3_stmt *st = xp_db_prepare(v->db, "SELECT seq, category, how, pattern, line FROM trace_rules ORDER BY seq");
  if (!st) return;
  int i = 0, bad = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *cat = (const char *)sqlite3_column_text(st, 1), *how = (const char *)sqlite3_column_text(st, 2),
               *pat = (const char *)sqlite3_column_text(st, 3);
    if (i >= r->nrules || sqlite3_column_int64(st, 0) != i + 1 || strcmp(cat, r->rule[i].category) != 0 ||
        strcmp(how, rule_how(r, i)) != 0 || strcmp(pat, r->rule[i].pattern) != 0 ||
        sqlite3_column_int64(st, 4) != r->rule[i].line)
      if (bad++ == 0)
        brk(v, "trace_rules: rule %lld (%s %s \"%.60s\") is not what the rule set's text gives%s", (long long)sqlite3_column_int64(st, 0),
            cat, how, pat, i < r->nrules ? "" : " (it gives fewer rules)");
    i++;
  }
  sqlite3_finalize(st);
  if (i < r->nrules && bad++ == 0) brk(v, "trace_rules: %d rules, the rule set's text gives %d", i, r->nrules);
  if (bad > 1) brk(v, "trace_rules: %d more rules differ from the rule set's text", bad - 1);
}

static void check_category_groups(verify_state *v, const tt_rules *r) {
  sqlite3_stmt *st = xp_db_prepare(v->db, "SELECT category, grp FROM trace_categories ORDER BY category");
  if (!st) return;
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *cat = (const char *)sqlite3_column_text(st, 0), *grp = (const char *)sqlite3_column_text(st, 1);
    int k = 0;
    while (k < r->ncats && strcmp(r->cat[k].name, cat) != 0) k++;
    if (k == r->ncats) brk(v, "trace_categories: category %.60s is not one the rule set's text declares", cat);
    else if (strcmp(grp, r->cat[k].group) != 0)
      brk(v, "trace_categories: category %s is in group %s, the rule set's text puts it in %s", cat, grp, r->cat[k].group);
    n++;
  }
  sqlite3_finalize(st);
  if (n < r->ncats) brk(v, "trace_categories: %d categories, the rule set's text declares %d", n, r->ncats);
}

static int check_name_categories(verify_state *v, const tt_rules *r) {
  sqlite3_stmt *st = xp_db_prepare(v->db, "SELECT name, kind, category, rule_seq FROM trace_names ORDER BY name");
  if (!st) return XP_EXIT_DB;
  int bad = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0), *kind = (const char *)sqlite3_column_text(st, 1),
               *stored = (const char *)sqlite3_column_text(st, 2);
    const int rule = tt_rules_match(r, name);
    const char *now = tt_rules_category_of(r, rule, kind);
    const int seq_ok = rule < 0 ? sqlite3_column_type(st, 3) == SQLITE_NULL : sqlite3_column_int64(st, 3) == rule + 1;
    if (strcmp(stored, now) == 0 && seq_ok) continue;
    if (bad++ >= 3) continue;
    if (strcmp(stored, now) != 0)
      brk(v, "trace_names: \"%.100s\" is category %s, the rules in force give %s (%s; xp reclassify re-applies them)",
          name, stored, now, tt_rules_describe(r, rule));
    else brk(v, "trace_names: \"%.100s\" names another rule than the one of the rules in force that matches it (%s)",
             name, tt_rules_describe(r, rule));
  }
  int rc = step == SQLITE_DONE ? 0 : xp_db_fail(v->db, "reading trace_names");
  sqlite3_finalize(st);
  if (bad > 3) brk(v, "trace_names: %d more names not classified as the rules in force classify them", bad - 3);
  return rc;
}

static int check_rules(verify_state *v) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(v->db, "SELECT text, sha256 FROM trace_rule_set WHERE id = 1", -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return 0; /* a schema without traces */
  }
  int step = sqlite3_step(st), rc = 0;
  if (step == SQLITE_ROW) {
    char now[65];
    xp_sha256_hex(sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0), now);
    const char *sha = (const char *)sqlite3_column_text(st, 1);
    if (strcmp(now, sha) != 0)
      brk(v, "trace_rule_set: its text does not hash to its sha256 (stored %.12s, now %.12s)", sha, now);
  } else if (step != SQLITE_DONE) rc = xp_db_fail(v->db, "reading trace_rule_set");
  sqlite3_finalize(st);
  tt_rules r = {0};
  int found = 0;
  if (rc == 0 && step == SQLITE_ROW) {
    xp_error_quiet(1); /* text that no longer parses is a break, said as one */
    rc = tt_rules_load_db(v->db, &r, &found);
    xp_error_quiet(0);
    if (rc == XP_EXIT_USAGE)
      brk(v, "trace_rule_set: its text is no rule set (%s); kernel categories cannot be checked", xp_last_error());
    else if (rc) xp_error(rc, "%s", xp_last_error());
    rc = rc == XP_EXIT_USAGE ? 0 : rc;
  }
  if (rc || !found) return rc;
  check_rule_rows(v, &r);
  check_category_groups(v, &r);
  rc = check_name_categories(v, &r);
  tt_rules_free(&r);
  return rc;
}

/* The chain as it ends against the head recorded apart (schema 8): links or decisions removed
** from the end leave a shorter chain that is whole, which only the head shows. */
static void check_head(verify_state *v, int64_t decisions) {
  sqlite3_stmt *st = NULL;
  const int version = xp_db_user_version(v->db);
  /* before schema 8 no head is kept: asked there, SQLite would only say the table is missing */
  if (version < 8 || !(st = xp_db_prepare(v->db, "SELECT run_seq, run_chain, decisions FROM chain_head WHERE id = 1")))
    return;
  if (sqlite3_step(st) != SQLITE_ROW) {
    /* schema 9 writes the head at migration: from then on it is never absent */
    if (version >= 9) brk(v, "chain: its head record is missing (it is never deleted)");
  } else {
    const int64_t seq = sqlite3_column_int64(st, 0), held = sqlite3_column_int64(st, 2);
    const char *chain = (const char *)sqlite3_column_text(st, 1);
    if (seq > v->last_seq)
      brk(v, "chain: the head records link %lld, but the chain ends at link %lld: runs were removed from its end",
          (long long)seq, (long long)v->last_seq);
    else if (seq == v->last_seq && seq > 0 && (!chain || strcmp(chain, v->head) != 0))
      brk(v, "chain: its last link (%.12s) is not the head recorded (%.12s)", v->head, chain ? chain : "NULL");
    if (held > decisions)
      brk(v, "decisions: the head records %lld, %lld are here: decisions were removed", (long long)held,
          (long long)decisions);
  }
  sqlite3_finalize(st);
}

int cmd_verify(int argc, char **argv, const char *db_path) {
  int seal = 0, quiet = 0, rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(argv[i], "--seal") == 0) seal = 1;
    else if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
    else if (argv[i][0] == '-') rc = xp_unknown_option("verify", argv[i], (const char *const[]){"--seal", "--quiet", "--help", NULL});
    else rc = xp_usage_value_error("verify", "unexpected argument", argv[i], NULL);
  }
  if (rc) return rc;
  if (seal) {
    sqlite3 *w = xp_db_open(db_path, XP_DB_EXISTING, &rc);
    if (!w) return rc;
    rc = seal_unsealed(w, quiet);
    xp_db_close(w);
    if (rc) return rc;
  }
  verify_state v = {0};
  v.quiet = quiet;
  v.db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  if (!v.db) return rc;
  /* xp's own checks need integrity_check and table-valued pragmas, which the read-only
  ** authorizer (meant for user query files) refuses; query_only still forbids writes. */
  sqlite3_set_authorizer(v.db, NULL, NULL);
  int64_t sealed = 0, unsealed = 0, decisions = 0;
  if ((rc = xp_db_snapshot(v.db)) != 0) goto out;
  if ((rc = xp_history_schema(v.db, db_path)) != 0) goto out;
  if ((rc = xp_rtree_load(v.db, &v.tree)) != 0) goto out;
  if ((rc = check_sqlite(&v)) != 0) goto out;
  if ((rc = check_runs(&v, &sealed, &unsealed)) != 0) goto out;
  if ((rc = check_decisions(&v, &decisions)) != 0) goto out;
  if ((rc = check_names(&v)) != 0) goto out;
  if ((rc = check_rules(&v)) != 0) goto out;
  check_head(&v, decisions);
  char **unguarded = NULL;
  int nung = 0;
  if (xp_history_unguarded(v.db, &v.tree, &unguarded, &nung) == 0) {
    for (int i = 0; i < nung; i++) {
      xp_warn("table %s holds run results but lacks its append-only triggers (the next recorded or merged run adds them)",
              unguarded[i]);
      free(unguarded[i]);
    }
    free(unguarded);
  }
  if (!quiet || v.breaks) {
    printf("%s: %lld sealed run%s, chain of %lld link%s (head %.16s), %lld decision%s, %d table%s of run results; %s\n",
           db_path, (long long)sealed, sealed == 1 ? "" : "s", (long long)sealed,
           sealed == 1 ? "" : "s", v.head, (long long)decisions, decisions == 1 ? "" : "s", v.tree.n,
           v.tree.n == 1 ? "" : "s",
           v.breaks ? "BROKEN" : "intact (integrity_check ok, foreign keys ok)");
  }
  /* A damaged page (integrity_check names it, or a read met it) is the database's fault, exit 3
  ** in one line as any reading command's: the breaks beside it may be the damage read as rows
  ** gone, not rows altered. */
  rc = xp_db_faulted(db_path, "no verdict on the history stands");
  if (rc == 0 && v.breaks) rc = xp_error(XP_EXIT_INTEGRITY, "%s: %d break%s found", db_path, v.breaks,
                              v.breaks == 1 ? "" : "s");
out:
  xp_rtree_free(&v.tree);
  xp_db_close(v.db);
  return rc;
}
