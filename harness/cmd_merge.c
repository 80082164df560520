/*
** xp merge OTHER.db: one history from many machines' databases.
**
** Runs are united by UUID: a run already here is left alone, so merging twice changes
** nothing (but one still 'running' here that OTHER holds finished: drop_unfinished). A run is copied with every row that hangs off it, in every table found from the
** schema (chain.c's run tree: cases, metrics, samples, metadata, GPUs, artifacts, trace tables,
** kinds' own tables), its local ids translated. Before copying, the run's content in OTHER is
** checked against OTHER's seal; after copying, its content here must hash the same; then it
** is sealed at the end of this database's chain (links are per database; content hashes travel
** with runs). Copying follows the recorder's lifecycle: the row goes in as 'running', its
** results follow, and the final status and seal are written last, so the append-only
** triggers need no exception. Decisions are copied by UUID too. OTHER is opened read-only and
** must be an xp database of this schema or an older one. Everything is one transaction:
** any refusal leaves this database as it was.
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chain.h"
#include "cli.h"
#include "db.h"
#include "history.h"
#include "runref.h"
#include "torch_trace/tt_rules.h"
#include "torch_trace/tt_store.h"
#include "xp.h"

static const char usage[] =
    "usage: xp merge OTHER.db [--dry-run]\n"
    "  Copies into this database every finished run of OTHER.db that is not here yet (by run\n"
    "  UUID), with all its rows in every table, and every decision not here yet. Idempotent:\n"
    "  merging the same database again changes nothing. Each copied run's content is checked\n"
    "  against OTHER's seal and sealed again into this database's chain (xp verify).\n"
    "  Runs still 'running' in OTHER are skipped with a note; one 'running' here that OTHER\n"
    "  holds finished (this database copied while it was recorded) comes finished, in place\n"
    "  of that row. OTHER is only read; a newer schema or a file that is not an xp database\n"
    "  is refused, and nothing is changed.\n"
    "  Exit status: 5 when a run of OTHER does not match its seal there, or is finished but\n"
    "  unsealed there, or a decision's evidence run is gone there and not here: nothing is\n"
    "  merged.\n"
    "  --dry-run  say what would be merged; write nothing (a database xp cannot write: on a\n"
    "             copy in $SQLITE_TMPDIR, $TMPDIR or /var/tmp, as much disk as it, removed\n"
    "             at exit)\n";

typedef struct merger {
  sqlite3 *main, *other;
  const char *other_path;
  xp_rtree mt, ot;            /* the run trees of this database and of OTHER */
  int *map;                   /* OTHER table index -> this database's table index */
  sqlite3_stmt **sel, **ins;  /* per OTHER table */
  int same_schema;
  int64_t copied, present, skipped, differing, decisions, decisions_present;
  int64_t names_differing;    /* trace_names rows categorized otherwise in OTHER */
  int64_t last_decision;      /* the newest decision here before the merge (its id) */
  char added[512];            /* "trace_names: 30 shared rows added; ...", said once committed */
  char rules_note[512];       /* how the category rules were merged, said once committed */
} merger;

static int has_column(sqlite3 *db, const char *table, const char *col) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2");
  if (!st) return 0;
  xp_bind_text(st, 1, table);
  xp_bind_text(st, 2, col);
  int yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
  sqlite3_finalize(st);
  return yes;
}

static int table_index(const xp_rtree *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->t[i].name, name) == 0) return i;
  return -1;
}

static int col_index(const xp_rtable *t, const char *name) {
  for (int i = 0; i < t->ncols; i++)
    if (strcmp(t->cols[i], name) == 0) return i;
  return -1;
}

static int is_seal_column(const char *c) {
  return strcmp(c, "content_sha256") == 0 || strcmp(c, "chain_sha256") == 0 ||
         strcmp(c, "chain_seq") == 0 || strcmp(c, "content_digests") == 0;
}

/* Every run table of OTHER must exist here with the same place in the tree and every column;
** a column holding another table's local id cannot be translated and is refused. */
static int check_compatible(merger *m) {
  m->map = xp_xcalloc((size_t)m->ot.n, sizeof *m->map);
  for (int i = 0; i < m->ot.n; i++) {
    const xp_rtable *o = &m->ot.t[i];
    int j = table_index(&m->mt, o->name);
    if (j < 0)
      return xp_error_at(XP_EXIT_DB, m->other_path, 0,
                         "incompatible schema: table %s holds run results there and does not exist here; nothing merged",
                         o->name);
    const xp_rtable *t = &m->mt.t[j];
    if (o->parent >= 0 && (strcmp(m->ot.t[o->parent].name, m->mt.t[t->parent].name) != 0 ||
                           strcmp(o->fk, t->fk) != 0))
      return xp_error_at(XP_EXIT_DB, m->other_path, 0,
                         "incompatible schema: table %s hangs off %s.%s there but %s.%s here; nothing merged",
                         o->name, m->ot.t[o->parent].name, o->fk, m->mt.t[t->parent].name, t->fk);
    for (int c = 0; c < o->ncols; c++) {
      if (col_index(t, o->cols[c]) < 0)
        return xp_error_at(XP_EXIT_DB, m->other_path, 0,
                           "incompatible schema: column %s.%s does not exist here; nothing merged",
                           o->name, o->cols[c]);
      if (o->xref[c])
        return xp_error_at(XP_EXIT_DB, m->other_path, 0,
                           "table %s column %s holds local ids of another table, which xp merge cannot translate; nothing merged",
                           o->name, o->cols[c]);
    }
    m->map[i] = j;
  }
  return 0;
}

/* SELECT rowid-or-NULL, cols... FROM t WHERE fk = ?1 ORDER BY rowid (OTHER), and
** INSERT INTO t (cols except the rowid) VALUES (...) (here). */
static int prepare_table(merger *m, int i) {
  const xp_rtable *o = &m->ot.t[i];
  char *tn = xp_sql_ident(o->name);
  char *rid = o->rowid_col ? xp_sql_ident(o->rowid_col) : xp_strdup("NULL");
  char *cols = xp_strdup(""), *vals = xp_strdup(""), *selcols = xp_strdup("");
  int nv = 0;
  for (int c = 0; c < o->ncols; c++) {
    if ((o->rowid_col && strcmp(o->cols[c], o->rowid_col) == 0) ||
        (o->parent < 0 && is_seal_column(o->cols[c])))
      continue;
    char *q = xp_sql_ident(o->cols[c]);
    char *a = xp_asprintf("%s%s%s", cols, *cols ? ", " : "", q);
    char *b = xp_asprintf("%s%s?%d", vals, *vals ? ", " : "", ++nv);
    char *s = xp_asprintf("%s, %s", selcols, q);
    free(cols), free(vals), free(selcols), free(q);
    cols = a, vals = b, selcols = s;
  }
  char *fk = o->fk ? xp_sql_ident(o->fk) : xp_strdup("id");
  char *sel = xp_asprintf("SELECT %s%s FROM %s WHERE %s = ?1%s%s", rid, selcols, tn, fk,
                          o->rowid_col ? " ORDER BY " : "", o->rowid_col ? rid : "");
  char *ins = xp_asprintf("INSERT INTO %s (%s) VALUES (%s)", tn, cols, vals);
  m->sel[i] = xp_db_prepare(m->other, sel);
  m->ins[i] = m->sel[i] ? xp_db_prepare(m->main, ins) : NULL;
  free(sel), free(ins), free(fk), free(tn), free(rid), free(cols), free(vals), free(selcols);
  return m->sel[i] && m->ins[i] ? 0 : XP_EXIT_DB;
}

/* Copy the rows of OTHER table i whose parent key is old_parent, under new_parent here. */
static int copy_rows(merger *m, int i, int64_t old_parent, int64_t new_parent, int64_t new_run,
                     const char *run_status) {
  const xp_rtable *o = &m->ot.t[i];
  sqlite3_stmt *sel = m->sel[i], *ins = m->ins[i];
  int has_children = 0;
  for (int k = i + 1; k < m->ot.n; k++) has_children |= m->ot.t[k].parent == i;
  sqlite3_reset(sel);
  sqlite3_bind_int64(sel, 1, old_parent);
  int rc = 0, src;
  while (rc == 0 && (src = sqlite3_step(sel)) == SQLITE_ROW) {
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    int out = 1, in = 1;
    for (int c = 0; c < o->ncols; c++) {
      if ((o->rowid_col && strcmp(o->cols[c], o->rowid_col) == 0) ||
          (o->parent < 0 && is_seal_column(o->cols[c])))
        continue;
      if (o->parent < 0 && strcmp(o->cols[c], "status") == 0)
        sqlite3_bind_text(ins, out, run_status, -1, SQLITE_STATIC);
      else if (o->fk && strcmp(o->cols[c], o->fk) == 0) sqlite3_bind_int64(ins, out, new_parent);
      else if (o->runref[c]) sqlite3_bind_int64(ins, out, new_run);
      else sqlite3_bind_value(ins, out, sqlite3_column_value(sel, in));
      out++, in++;
    }
    if (sqlite3_step(ins) != SQLITE_DONE) {
      rc = xp_db_fail(m->main, "copying a run's rows");
      break;
    }
    int64_t new_rowid = sqlite3_last_insert_rowid(m->main);
    if (o->parent < 0) new_run = new_rowid;
    if (has_children) {
      int64_t old_rowid = o->parent < 0 ? old_parent : sqlite3_column_int64(sel, 0);
      for (int k = i + 1; k < m->ot.n && rc == 0; k++)
        if (m->ot.t[k].parent == i) rc = copy_rows(m, k, old_rowid, new_rowid, new_run, NULL);
    }
  }
  if (rc == 0 && src != SQLITE_DONE) rc = xp_db_fail(m->other, "reading OTHER's rows");
  return rc;
}

/* *exists: 0 not here, 1 here, 2 here but still 'running' */
static int lookup_here(merger *m, const char *uuid, int *exists, char content[65]) {
  sqlite3_stmt *st = xp_db_prepare(m->main, "SELECT content_sha256, status = 'running' FROM runs WHERE uuid = ?1");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, uuid);
  *exists = sqlite3_step(st) == SQLITE_ROW ? 1 + sqlite3_column_int(st, 1) : 0;
  const unsigned char *h = *exists ? sqlite3_column_text(st, 0) : NULL;
  snprintf(content, 65, "%s", h ? (const char *)h : "");
  sqlite3_finalize(st);
  return 0;
}

/* A run 'running' here that OTHER holds finished is a copy of this database taken while the run
** was recorded: its recorder wrote the rest, and finished it, in the database it had open, and a
** run finishes only there (xp merge copies no unfinished run). What the copy holds is what the
** recorder wrote as it began (the runs row, its metadata); the append-only triggers let an
** unfinished run go, with its rows, and OTHER's finished record takes its place. Kept, the copy
** showed the run 'incomplete' for good, merging never converged, and a decision on the run
** could not be recorded here. */
static int drop_unfinished(merger *m, const char *uuid) {
  sqlite3_stmt *st = xp_db_prepare(m->main, "DELETE FROM runs WHERE uuid = ?1 AND status = 'running'");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, uuid);
  int rc = xp_db_step_done(m->main, st);
  sqlite3_finalize(st);
  if (rc == 0)
    printf("note: run %s is unfinished here (a copy taken while it was recorded): its finished record from %s"
           " takes its place\n", uuid, m->other_path);
  return rc;
}

static int merge_run(merger *m, int64_t oid, const char *uuid, const char *status,
                     const char *sealed) {
  int exists = 0;
  char here[65];
  int rc = lookup_here(m, uuid, &exists, here);
  if (rc) return rc;
  if (exists == 2) {
    if ((rc = drop_unfinished(m, uuid)) != 0) return rc;
    exists = 0;
  }
  if (exists) m->present++;
  /* OTHER's rows are hashed even where its seal is this database's: a seal alike says nothing of
  ** rows edited there under it, which a merge passed over in silence ("1 already here") */
  char content[65];
  if ((rc = xp_run_content(m->other, &m->ot, oid, content, NULL)) != 0) return rc;
  if (exists) {
    /* not refused, as a new run's is: nothing of OTHER's copy comes, and the rest of OTHER may
    ** be whole; the user learns that file is not */
    if (sealed && strcmp(sealed, content) != 0) {
      m->differing++;
      xp_warn("run %s: its copy in %s does not match its seal there (xp --db %s verify names what changed);"
              " this database's copy is kept", uuid, m->other_path, m->other_path);
    } else if (here[0] && strcmp(here, content) != 0) {
      m->differing++;
      xp_warn("run %s is in both databases with different content; this database's copy is kept", uuid);
    } else if (!here[0]) {
      /* finished here but never sealed (an older xp's): its rows are kept (a finished run's are
      ** never deleted), so OTHER's cannot take their place */
      m->differing++;
      xp_warn("run %s is unsealed here and %s in %s; this database's copy is kept and OTHER's results are not"
              " merged (xp verify --seal seals it here)",
              uuid, status, m->other_path);
    }
    return 0;
  }
  if (sealed && strcmp(sealed, content) != 0)
    return xp_error_at(XP_EXIT_INTEGRITY, m->other_path, 0,
                       "run %s does not match its seal there (xp --db %s verify names what changed); nothing merged",
                       uuid, m->other_path);
  if ((rc = copy_rows(m, 0, oid, 0, 0, "running")) != 0) return rc;
  int64_t nid = 0;
  sqlite3_stmt *st = xp_db_prepare(m->main, "SELECT id FROM runs WHERE uuid = ?1");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, uuid);
  if (sqlite3_step(st) == SQLITE_ROW) nid = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (!(st = xp_db_prepare(m->main, "UPDATE runs SET status = ?1 WHERE id = ?2"))) return XP_EXIT_DB;
  xp_bind_text(st, 1, status);
  sqlite3_bind_int64(st, 2, nid);
  rc = sqlite3_step(st) == SQLITE_DONE ? 0 : xp_db_fail(m->main, "finishing a merged run");
  sqlite3_finalize(st);
  if (rc == 0) rc = xp_chain_seal(m->main, nid);
  if (rc == 0 && (rc = lookup_here(m, uuid, &exists, here)) == 0 && strcmp(here, content) != 0) {
    if (m->same_schema)
      return xp_error(XP_EXIT_DB, "run %s: its copy here does not hash like the original (%.12s vs %.12s); nothing merged",
                      uuid, here, content);
    xp_warn("run %s: its content hash here differs from OTHER's (%.12s vs %.12s): the newer schema's defaults fill columns OTHER lacks",
            uuid, here, content);
  }
  if (rc == 0) m->copied++;
  return rc;
}

static int merge_runs(merger *m) {
  int chained = has_column(m->other, "runs", "chain_seq");
  char *sql = xp_asprintf("SELECT id, uuid, status, %s FROM runs ORDER BY %s",
                          chained ? "content_sha256" : "NULL",
                          chained ? "chain_seq IS NULL, chain_seq, finished_at, id" : "finished_at, id");
  sqlite3_stmt *st = xp_db_prepare(m->other, sql);
  free(sql);
  if (!st) return XP_EXIT_DB;
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *uuid = (const char *)sqlite3_column_text(st, 1);
    const char *status = (const char *)sqlite3_column_text(st, 2);
    if (!uuid || !status || !xp_status_known(status)) { /* xp never writes such a row */
      rc = xp_error_at(XP_EXIT_INTEGRITY, m->other_path, 0, "a run with %s %s; nothing merged",
                       !uuid ? "no uuid" : "status", !uuid ? "" : status ? status : "NULL");
      break;
    }
    if (strcmp(status, "running") == 0) {
      printf("note: run %s is still running in %s (or its recorder died); skipped\n", uuid, m->other_path);
      m->skipped++;
      continue;
    }
    /* A finished run without a seal in a chained database is a break there (xp verify): its
    ** content has nothing to be checked against, and copying it would seal it here as if it had. */
    if (chained && sqlite3_column_type(st, 3) == SQLITE_NULL) {
      rc = xp_error_at(XP_EXIT_INTEGRITY, m->other_path, 0,
                       "run %s is finished (%s) but unsealed there, so its content cannot be checked (xp --db %s"
                       " verify; --seal seals it if it is known good); nothing merged",
                       uuid, status, m->other_path);
      break;
    }
    rc = merge_run(m, sqlite3_column_int64(st, 0), uuid, status, (const char *)sqlite3_column_text(st, 3));
  }
  sqlite3_finalize(st);
  return rc;
}

static int64_t count_rows(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  int64_t n = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

/* Decisions, by UUID, each after the one it supersedes. */
static int merge_decisions(merger *m) {
  const int64_t have = count_rows(m->other, "SELECT count(*) FROM sqlite_schema WHERE name = 'decisions'");
  if ((m->last_decision = count_rows(m->main, "SELECT coalesce(max(id), 0) FROM decisions")) < 0) return XP_EXIT_DB;
  if (have < 0) return XP_EXIT_DB;
  if (!have) return 0;
  static const char cols[] =
      "uuid, title, rationale, author, created_at, xp_version, xp_commit, supersedes, evidence_count,"
      " query_file, query_text, query_params, query_result, query_result_sha256, decision_sha256";
  /* Each after the one it supersedes, whatever the clocks said: a decision made on a machine
  ** whose clock ran ahead can be superseded by one stamped earlier, and copied in time order
  ** the successor would name a decision not here yet. */
  char *sql = xp_asprintf(
      "WITH RECURSIVE line(uuid, depth) AS ("
      " SELECT uuid, 0 FROM decisions WHERE supersedes IS NULL OR supersedes NOT IN (SELECT uuid FROM decisions)"
      " UNION SELECT d.uuid, line.depth + 1 FROM decisions d JOIN line ON d.supersedes = line.uuid"
      " WHERE line.depth < 1000000)"
      " SELECT id, %s FROM decisions JOIN (SELECT uuid AS u, max(depth) AS depth FROM line GROUP BY uuid)"
      " ON u = uuid ORDER BY depth, created_at, id",
      cols);
  sqlite3_stmt *st = xp_db_prepare(m->other, sql);
  free(sql);
  sql = xp_asprintf("INSERT INTO decisions (%s) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)", cols);
  sqlite3_stmt *ins = st ? xp_db_prepare(m->main, sql) : NULL;
  free(sql);
  /* each run's side (schema 34) with it: part of the decision's digest; none from an older database */
  sql = xp_asprintf("SELECT e.seq, e.run_uuid, e.run_content_sha256, %s FROM decision_evidence e"
                    " WHERE e.decision_id = ?1 ORDER BY e.seq", xp_evidence_side_sql(m->other));
  sqlite3_stmt *ev = ins ? xp_db_prepare(m->other, sql) : NULL;
  free(sql);
  sqlite3_stmt *evins = ev ? xp_db_prepare(m->main, "INSERT INTO decision_evidence(decision_id, seq, run_uuid, run_content_sha256) VALUES (?1,?2,?3,?4)") : NULL;
  sqlite3_stmt *here = evins ? xp_db_prepare(m->main, "SELECT decision_sha256 FROM decisions WHERE uuid = ?1") : NULL;
  sqlite3_stmt *run_here = here ? xp_db_prepare(m->main, "SELECT 1 FROM runs WHERE uuid = ?1") : NULL;
  int rc = run_here ? 0 : XP_EXIT_DB;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *uuid = (const char *)sqlite3_column_text(st, 1);
    const char *digest = (const char *)sqlite3_column_text(st, 15);
    sqlite3_reset(here);
    xp_bind_text(here, 1, uuid);
    if (sqlite3_step(here) == SQLITE_ROW) {
      m->decisions_present++;
      const char *h = (const char *)sqlite3_column_text(here, 0);
      if (h && digest && strcmp(h, digest) != 0)
        xp_warn("decision %s is in both databases with different records; this database's is kept", uuid);
      continue;
    }
    char now[65];
    if ((rc = xp_decision_digest(m->other, sqlite3_column_int64(st, 0), now)) != 0) break;
    if (!digest || strcmp(now, digest) != 0) {
      rc = xp_error_at(XP_EXIT_INTEGRITY, m->other_path, 0,
                       "decision %s does not match its digest there; nothing merged", uuid);
      break;
    }
    sqlite3_reset(ins);
    for (int c = 1; c <= 15; c++) sqlite3_bind_value(ins, c, sqlite3_column_value(st, c));
    if (sqlite3_step(ins) != SQLITE_DONE) {
      rc = xp_db_fail(m->main, "copying a decision");
      break;
    }
    int64_t nid = sqlite3_last_insert_rowid(m->main);
    sqlite3_reset(ev);
    sqlite3_bind_int64(ev, 1, sqlite3_column_int64(st, 0));
    while (rc == 0 && sqlite3_step(ev) == SQLITE_ROW) {
      /* the runs of OTHER are merged by now: a run in neither was removed there by hand (xp never
      ** deletes a finished run), and the decision cannot come without what it rests on */
      const char *run = (const char *)sqlite3_column_text(ev, 1);
      sqlite3_reset(run_here);
      xp_bind_text(run_here, 1, run);
      if (sqlite3_step(run_here) != SQLITE_ROW) {
        rc = xp_error_at(XP_EXIT_INTEGRITY, m->other_path, 0,
                         "decision %s: its evidence run %s is not there (removed since the decision: xp --db %s verify);"
                         " nothing merged", uuid, run ? run : "NULL", m->other_path);
        break;
      }
      sqlite3_reset(evins);
      sqlite3_bind_int64(evins, 1, nid);
      for (int c = 0; c < 3; c++) sqlite3_bind_value(evins, c + 2, sqlite3_column_value(ev, c));
      if (sqlite3_step(evins) != SQLITE_DONE) rc = xp_db_fail(m->main, "copying a decision's evidence");
      else if (sqlite3_column_type(ev, 3) != SQLITE_NULL)
        rc = xp_evidence_side_insert(m->main, nid, sqlite3_column_int64(ev, 0), (const char *)sqlite3_column_text(ev, 3));
    }
    if (rc == 0) m->decisions++;
  }
  sqlite3_finalize(st);
  sqlite3_finalize(ins);
  sqlite3_finalize(ev);
  sqlite3_finalize(evins);
  sqlite3_finalize(here);
  sqlite3_finalize(run_here);
  return rc;
}

/* ---- dictionaries ----
** Run tables may name shared rows by a content-derived key, as trace tables name kernels by
** trace_names.id (a hash of the name): such a dictionary is not a run table, but merged runs
** need its rows. A dictionary is recognised by its shape: an INTEGER PRIMARY KEY plus a UNIQUE
** constraint on other columns. Rows are united by key; a key that names different values in
** the two databases is reported, and this database's row is kept. */

static int is_dictionary(sqlite3 *db, const char *table, char **unique_cols) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT (SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0) = 1"
      " AND (SELECT upper(type) FROM pragma_table_info(?1) WHERE pk = 1) = 'INTEGER',"
      " (SELECT group_concat(c.name, ',') FROM pragma_index_list(?1) i, pragma_index_info(i.name) c"
      "  WHERE i.\"unique\" AND i.origin = 'u')");
  if (!st) return 0;
  xp_bind_text(st, 1, table);
  int yes = 0;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) && sqlite3_column_text(st, 1)) {
    yes = 1;
    *unique_cols = xp_strdup((const char *)sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  return yes;
}

/* Columns of a table (OTHER's), each required here; pk gets the INTEGER PRIMARY KEY's name. */
static int dictionary_columns(merger *m, const char *table, char ***cols, int *n, char **pk) {
  sqlite3_stmt *st = xp_db_prepare(m->other, "SELECT name, pk FROM pragma_table_info(?1) ORDER BY cid");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, table);
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *c = (const char *)sqlite3_column_text(st, 0);
    if (!has_column(m->main, table, c))
      rc = xp_error_at(XP_EXIT_DB, m->other_path, 0,
                       "incompatible schema: column %s.%s does not exist here; nothing merged", table, c);
    if (sqlite3_column_int(st, 1) == 1) *pk = xp_strdup(c);
    *cols = xp_xrealloc(*cols, (size_t)(*n + 1) * sizeof **cols);
    (*cols)[(*n)++] = xp_strdup(c);
  }
  sqlite3_finalize(st);
  return rc;
}

static char *join_idents(char **names, int n, const char *sep, int first_param) {
  char *out = xp_strdup("");
  for (int i = 0; i < n; i++) {
    char *q = xp_sql_ident(names[i]);
    char *next = first_param ? xp_asprintf("%s%s%s IS ?%d", out, i ? sep : "", q, first_param + i)
                             : xp_asprintf("%s%s%s", out, i ? sep : "", q);
    free(out), free(q);
    out = next;
  }
  return out;
}

/* "?1, ?2, ..., ?n": the values of an INSERT of n columns. */
static char *value_marks(int n) {
  char *marks = xp_strdup("");
  for (int j = 0; j < n; j++) {
    char *mk = xp_asprintf("%s%s?%d", marks, j ? ", " : "", j + 1);
    free(marks);
    marks = mk;
  }
  return marks;
}

static int merge_dictionary(merger *m, const char *table) {
  char **cols = NULL, *pk = NULL;
  int n = 0;
  int rc = dictionary_columns(m, table, &cols, &n, &pk);
  char *q = xp_sql_ident(table), *list = join_idents(cols, n, ", ", 0);
  char *marks = value_marks(n);
  /* A row that was not inserted must already be here as it is; else the key is in conflict. */
  char *same = join_idents(cols, n, " AND ", 1);
  char *sel = xp_asprintf("SELECT %s FROM %s", list, q);
  char *ins = xp_asprintf("INSERT OR IGNORE INTO %s (%s) VALUES (%s)", q, list, marks);
  char *chk = xp_asprintf("SELECT EXISTS (SELECT 1 FROM %s WHERE %s)", q, same);
  sqlite3_stmt *s = rc ? NULL : xp_db_prepare(m->other, sel);
  sqlite3_stmt *i = s ? xp_db_prepare(m->main, ins) : NULL;
  sqlite3_stmt *c = i ? xp_db_prepare(m->main, chk) : NULL;
  if (!rc && !c) rc = XP_EXIT_DB;
  int pkcol = 0;
  for (int j = 0; j < n; j++)
    if (pk && strcmp(cols[j], pk) == 0) pkcol = j;
  int64_t added = 0, conflicts = 0;
  const int names = strcmp(table, "trace_names") == 0;
  int namecol = -1;
  for (int j = 0; j < n && names; j++)
    if (strcmp(cols[j], "name") == 0) namecol = j;
  while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
    /* a kernel name's id is its text's hash: a row that pairs an id with another name would
    ** take that id's place here, and every later import would file the kernel under it */
    if (names && namecol >= 0) {
      const char *nm = (const char *)sqlite3_column_text(s, namecol);
      if (!nm || sqlite3_column_int64(s, pkcol) != xp_text_id(nm, (size_t)sqlite3_column_bytes(s, namecol))) {
        rc = xp_error_at(XP_EXIT_INTEGRITY, m->other_path, 0,
                         "trace_names: id %lld is not the hash of its name \"%.60s\"; nothing merged",
                         (long long)sqlite3_column_int64(s, pkcol), nm ? nm : "");
        break;
      }
    }
    sqlite3_reset(i);
    for (int j = 0; j < n; j++) sqlite3_bind_value(i, j + 1, sqlite3_column_value(s, j));
    if (sqlite3_step(i) != SQLITE_DONE) {
      rc = xp_db_fail(m->main, "copying shared rows");
      break;
    }
    if (sqlite3_changes(m->main) > 0) {
      added++;
      continue;
    }
    sqlite3_reset(c);
    for (int j = 0; j < n; j++) sqlite3_bind_value(c, j + 1, sqlite3_column_value(s, j));
    if (sqlite3_step(c) == SQLITE_ROW && !sqlite3_column_int(c, 0) && conflicts++ < 3)
      xp_warn("%s: the row with %s %s differs between the databases; this database's is kept",
              table, pk ? pk : "key", (const char *)sqlite3_column_text(s, pkcol));
  }
  if (rc == 0 && added) {
    size_t used = strlen(m->added);
    snprintf(m->added + used, sizeof m->added - used, "%s%s: %lld shared row%s added", used ? "; " : "", table,
             (long long)added, added == 1 ? "" : "s");
  }
  if (conflicts > 3) xp_warn("%s: %lld rows differ in all", table, (long long)conflicts);
  if (strcmp(table, "trace_names") == 0) m->names_differing += conflicts;
  sqlite3_finalize(s);
  sqlite3_finalize(i);
  sqlite3_finalize(c);
  for (int j = 0; j < n; j++) free(cols[j]);
  free(cols), free(pk), free(q), free(list), free(marks), free(same), free(sel), free(ins), free(chk);
  return rc;
}

static int merge_dictionaries(merger *m) {
  sqlite3_stmt *st = xp_db_prepare(m->other,
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  if (!st) return XP_EXIT_DB;
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    char *unique = NULL, *here = NULL;
    if (table_index(&m->ot, t) >= 0 || strncmp(t, "decision", 8) == 0 || !is_dictionary(m->other, t, &unique))
      continue;
    if (!is_dictionary(m->main, t, &here))
      rc = xp_error_at(XP_EXIT_DB, m->other_path, 0,
                       "incompatible schema: shared table %s does not exist here in the same form; nothing merged", t);
    else rc = merge_dictionary(m, t);
    free(unique);
    free(here);
  }
  sqlite3_finalize(st);
  return rc;
}

/* Copies the rows of OTHER's table `t` (columns cols) into this database's; `or_ignore` keeps
** rows already here. Returns the rows added, or -1 after reporting the error. */
static int64_t copy_table(merger *m, const char *t, const char *cols, int ncols, int or_ignore) {
  char *sel_sql = xp_asprintf("SELECT %s FROM %s", cols, t), *marks = value_marks(ncols);
  char *ins_sql = xp_asprintf("INSERT %sINTO %s (%s) VALUES (%s)", or_ignore ? "OR IGNORE " : "", t, cols, marks);
  free(marks);
  sqlite3_stmt *sel = xp_db_prepare(m->other, sel_sql), *ins = sel ? xp_db_prepare(m->main, ins_sql) : NULL;
  free(sel_sql);
  free(ins_sql);
  int64_t added = ins ? 0 : -1;
  while (added >= 0 && sqlite3_step(sel) == SQLITE_ROW) {
    sqlite3_reset(ins);
    for (int c = 0; c < ncols; c++) sqlite3_bind_value(ins, c + 1, sqlite3_column_value(sel, c));
    if (sqlite3_step(ins) != SQLITE_DONE) added = (xp_db_fail(m->main, "copying category rules"), -1);
    else added += sqlite3_changes(m->main);
  }
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  return added;
}

/* The kernel names here before the merge, so that those it brings are told apart. */
static int note_names_here(merger *m) {
  return xp_db_exec(m->main, "CREATE TEMP TABLE xp_merge_names_here AS SELECT id FROM trace_names");
}

/* Names new here under this database's rules in force, as every name here is (xp verify checks
** it): they came with the category OTHER's rules gave them, and a category's group lives in
** trace_categories, so one unknown here dropped out of every share (allreduce 89% became comm2
** 93%), and one OTHER's rules put elsewhere was counted there by one run and here by another. */
static int classify_new_names(merger *m) {
  tt_rules r = {0};
  int found = 0, rc = tt_rules_load_db(m->main, &r, &found);
  if (rc || !found) return rc;
  tt_name_row *rows;
  size_t n, moved;
  rc = tt_store_classify_names(m->main, &r, "id NOT IN (SELECT id FROM temp.xp_merge_names_here)", &rows, &n, &moved);
  m->names_differing += (int64_t)moved;
  tt_name_rows_free(rows, n);
  tt_rules_free(&r);
  return rc;
}

/* A database with no rules yet takes OTHER's whole, with the names they classified; one with
** rules of its own keeps them, and classifies the names new here by them. */
static int merge_rules(merger *m) {
  if (count_rows(m->other, "SELECT count(*) FROM sqlite_schema WHERE name = 'trace_rule_set'") != 1 ||
      count_rows(m->other, "SELECT count(*) FROM trace_rule_set") != 1)
    return 0;
  const int64_t here = count_rows(m->main, "SELECT count(*) FROM trace_rule_set");
  if (here < 0) return XP_EXIT_DB;
  if (here == 0) {
    if (copy_table(m, "trace_rule_set", "id, source, sha256, text, applied_at", 5, 0) < 0 ||
        copy_table(m, "trace_categories", "category, grp", 2, 1) < 0 ||
        copy_table(m, "trace_rules", "seq, category, how, pattern, line", 5, 0) < 0)
      return XP_EXIT_DB;
    snprintf(m->rules_note, sizeof m->rules_note, "kernel category rules: %s's taken (this database had none)",
             m->other_path);
    return 0;
  }
  return classify_new_names(m);
}

/* What the merged history now holds that a user must settle: decisions that two databases
** each superseded otherwise, and kernel names classified by other rules. */
/* A decision superseded on each side apart is superseded twice once merged: said by the merge that
** brought a successor in, not by every later merge (a team merging weekly was told again each
** time, however it had settled it). A decision supersedes one other: the team records which
** successor holds by superseding the other, as the advice says (it said "supersede both",
** which --supersedes, given once, cannot). */
static void warn_after_merge(merger *m) {
  sqlite3_stmt *st = xp_db_prepare(m->main,
      "SELECT supersedes FROM decisions WHERE supersedes IS NOT NULL"
      " GROUP BY supersedes HAVING count(*) > 1 AND max(id) > ?1 ORDER BY supersedes");
  if (st) sqlite3_bind_int64(st, 1, m->last_decision);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const char *uuid = (const char *)sqlite3_column_text(st, 0);
    int n;
    char *names;
    char times[32] = "twice";
    if (xp_decision_successors(m->main, uuid, &n, &names) == 0 && n > 2) snprintf(times, sizeof times, "%d times", n);
    if (names)
      xp_warn("decision %s is superseded %s, by %s (made apart, now merged): %s stand; say which holds with "
              "xp decide ... --supersedes THE_OTHER", uuid, times, names, n == 2 ? "both" : "all");
    free(names);
  }
  sqlite3_finalize(st);
  if (m->names_differing)
    xp_warn("%lld kernel name%s classified otherwise in %s (its category rules differ): here, as every name, "
            "under this database's rules", (long long)m->names_differing, m->names_differing == 1 ? " is" : "s are",
            m->other_path);
}

int cmd_merge(int argc, char **argv, const char *db_path) {
  const char *other;
  int dry;
  int rc = xp_history_args(argc, argv, "merge", usage, "database",
                           "which database? (xp merge OTHER.db)", &other, &dry);
  if (rc) return rc < 0 ? 0 : rc;
  if (xp_same_file(other, db_path))
    return xp_error_at(XP_EXIT_USAGE, other, 0, "is this database itself; nothing to merge");
  if (access(other, F_OK) != 0) /* a file named on the command line: bad input, not a database fault */
    return xp_error_at(XP_EXIT_USAGE, other, 0, "no such file");
  merger m = {0};
  m.other_path = other;
  /* OTHER first: a foreign or newer file is refused before this database is touched. */
  if (!(m.other = xp_db_open(other, XP_DB_READONLY, &rc))) return rc;
  /* xp's own reading of OTHER needs table-valued pragmas, which the authorizer for user query
  ** files refuses; query_only still forbids any write to OTHER. */
  sqlite3_set_authorizer(m.other, NULL, NULL);
  if (!(m.main = xp_db_open(db_path, dry ? XP_DB_DRY : XP_DB_READWRITE, &rc))) goto out;
  m.same_schema = xp_db_user_version(m.other) == xp_db_user_version(m.main);
  if ((rc = xp_rtree_load(m.other, &m.ot)) != 0 || (rc = xp_rtree_load(m.main, &m.mt)) != 0) goto out;
  if ((rc = check_compatible(&m)) != 0) goto out;
  m.sel = xp_xcalloc((size_t)m.ot.n, sizeof *m.sel);
  m.ins = xp_xcalloc((size_t)m.ot.n, sizeof *m.ins);
  for (int i = 0; i < m.ot.n && rc == 0; i++) rc = prepare_table(&m, i);
  if (rc) goto out;
  if (!dry && (rc = xp_db_begin(m.main)) != 0) goto out; /* a dry run is in XP_DB_DRY's */
  if ((rc = note_names_here(&m)) == 0 && (rc = merge_dictionaries(&m)) == 0 && (rc = merge_rules(&m)) == 0 &&
      (rc = merge_runs(&m)) == 0)
    rc = merge_decisions(&m);
  if (rc == 0) rc = xp_chain_head_update(m.main);
  /* The statements hold no locks past this point; finalize before the commit. */
  for (int i = 0; i < m.ot.n; i++) {
    sqlite3_finalize(m.sel[i]);
    sqlite3_finalize(m.ins[i]);
    m.sel[i] = m.ins[i] = NULL;
  }
  /* a damaged page of OTHER that a loop took for the end of its rows (its runs table's: only
  ** its decisions came) is no merge: nothing of it is committed */
  if (rc == 0) rc = xp_db_faulted(other, "nothing was merged");
  if (rc == 0) warn_after_merge(&m);
  if (rc || dry) xp_db_rollback(m.main);
  else rc = xp_db_commit(m.main);
  if (rc == 0 && m.added[0]) printf("%s%s\n", dry ? "dry run (nothing written): " : "", m.added);
  if (rc == 0 && m.rules_note[0]) printf("%s%s\n", dry ? "dry run (nothing written): " : "", m.rules_note);
  if (rc == 0) {
    printf("%sfrom %s: %lld run%s merged, %lld already here%s, %lld skipped (still running); "
           "%lld decision%s merged, %lld already here\n",
           dry ? "dry run (nothing written): " : "", other, (long long)m.copied,
           m.copied == 1 ? "" : "s", (long long)m.present,
           m.differing ? " (some with different content: see warnings)" : "",
           (long long)m.skipped, (long long)m.decisions, m.decisions == 1 ? "" : "s",
           (long long)m.decisions_present);
  }
out:
  if (m.sel)
    for (int i = 0; i < m.ot.n; i++) {
      sqlite3_finalize(m.sel[i]);
      sqlite3_finalize(m.ins[i]);
    }
  free(m.sel);
  free(m.ins);
  free(m.map);
  xp_rtree_free(&m.ot);
  xp_rtree_free(&m.mt);
  xp_db_close(m.main);
  xp_db_close(m.other);
  return rc;
}
