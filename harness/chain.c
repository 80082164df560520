/*
** The integrity chain over finished runs.
**
** What a run's content is. A run is its runs row plus every row that hangs off it: rows of
** tables with a foreign key to runs(id) (or a run_id column), and, transitively, rows of
** tables with a foreign key to the rowid of such a table (cases -> metrics, samples). The
** tables are found from the schema (xp_rtree_load), so trace tables and kinds' own tables are
** covered without changes here. Local ids (rowids and the columns that point at them) differ
** between databases, so they are not content: a row is its other columns, NULLs left out (so
** that a column added by a later migration does not change old runs' hashes), and the
** position of its parent row. Rows are hashed in a defined order: by rowid where the table has
** an INTEGER PRIMARY KEY (xp merge copies rows in that order, so the order survives), else by
** the primary key's content columns, then the others. This serialisation is part of the
** database format: changing it would break every existing seal.
**
** Shared tables that are not a run's (trace_names, rule sets) are not content: xp reclassify
** may rewrite them without touching any seal.
**
** The seal. When a run finishes, the recorder calls xp_chain_seal() in the transaction that
** writes the final status: it hashes each table's rows for the run (content_digests), hashes
** that JSON (content_sha256) and links it to the previous sealed run:
** chain_sha256 = SHA-256(previous chain_sha256 hex || content_sha256 hex), chain_seq = previous
** + 1. Writers are serialised by SQLite's write lock (BEGIN IMMEDIATE), so the order is the
** order in which runs finished in this database.
**
** Merged runs. The chain is per database: xp merge copies a run, checks that its content hash
** here equals the one the other database sealed, and seals it again at the end of this
** database's chain. Content hashes travel with runs; links are local, and every database's
** chain stays verifiable on its own.
*/
#include <ctype.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chain.h"
#include "db.h"
#include "history.h"
#include "spec.h"
#include "xp.h"

const char xp_chain_genesis[65] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* Columns of runs that are the seal itself, not content. */
static const char *const seal_columns[] = {"content_sha256", "chain_sha256", "chain_seq",
                                           "content_digests", NULL};

char *xp_sql_ident(const char *name) {
  size_t n = strlen(name), q = 0;
  for (size_t i = 0; i < n; i++) q += name[i] == '"';
  char *out = xp_xmalloc(n + q + 3), *o = out;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    if (name[i] == '"') *o++ = '"';
    *o++ = name[i];
  }
  *o++ = '"';
  *o = 0;
  return out;
}

static int in_list(const char *const *list, const char *s) {
  for (; *list; list++)
    if (strcmp(*list, s) == 0) return 1;
  return 0;
}

/* ---- discovering the tree ---- */

typedef struct candidate {
  char *name;
  char **cols;
  int *pkpos;  /* per column: position in the primary key (1-based), 0 if not in it */
  int ncols;
  char *rowid_col;
  /* single-column foreign keys to a table's rowid: from column, target table */
  char **fk_from, **fk_to;
  int nfk;
  int without_rowid;
  int placed;
} candidate;

static void candidate_free(candidate *c) {
  for (int i = 0; i < c->ncols; i++) free(c->cols[i]);
  for (int i = 0; i < c->nfk; i++) {
    free(c->fk_from[i]);
    free(c->fk_to[i]);
  }
  free(c->cols);
  free(c->pkpos);
  free(c->fk_from);
  free(c->fk_to);
  free(c->rowid_col);
  free(c->name);
}

static int upper_eq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return 0;
  return *a == *b;
}

static candidate *find_candidate(candidate *cs, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(cs[i].name, name) == 0) return &cs[i];
  return NULL;
}

/* Every candidate's columns, and its rowid alias: a single INTEGER PRIMARY KEY column of a
** rowid table. One statement for all tables: a statement per table was most of reading the
** tree, and every import reads it once. */
static int read_columns(sqlite3 *db, candidate *cs, int n) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT m.name, p.name, p.type, p.pk FROM sqlite_schema AS m, pragma_table_info(m.name) AS p"
      " WHERE m.type = 'table' ORDER BY m.name, p.cid");
  if (!st) return XP_EXIT_DB;
  int *npk = xp_xcalloc((size_t)n + 1, sizeof *npk);
  char **pk_type = xp_xcalloc((size_t)n + 1, sizeof *pk_type);
  candidate *c = NULL;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *table = (const char *)sqlite3_column_text(st, 0);
    if (!c || strcmp(c->name, table) != 0) c = find_candidate(cs, n, table);
    if (!c) continue; /* sqlite_ and decision tables */
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *type = (const char *)sqlite3_column_text(st, 2);
    c->cols = xp_xrealloc(c->cols, (size_t)(c->ncols + 1) * sizeof *c->cols);
    c->pkpos = xp_xrealloc(c->pkpos, (size_t)(c->ncols + 1) * sizeof *c->pkpos);
    c->pkpos[c->ncols] = sqlite3_column_int(st, 3);
    c->cols[c->ncols++] = xp_strdup(name);
    if (sqlite3_column_int(st, 3) > 0) {
      const size_t i = (size_t)(c - cs);
      npk[i]++;
      free(c->rowid_col);
      free(pk_type[i]);
      c->rowid_col = xp_strdup(name); /* kept below only where it is the rowid's alias */
      pk_type[i] = xp_strdup(type ? type : "");
    }
  }
  sqlite3_finalize(st);
  for (int i = 0; i < n; i++) {
    if (cs[i].rowid_col && (npk[i] != 1 || cs[i].without_rowid || !upper_eq(pk_type[i], "INTEGER"))) {
      free(cs[i].rowid_col);
      cs[i].rowid_col = NULL;
    }
    free(pk_type[i]);
  }
  free(npk);
  free(pk_type);
  return rc == SQLITE_DONE ? 0 : xp_db_fail(db, "reading the tables' columns");
}

/* Single-column foreign keys of every candidate (multi-column keys never point at a rowid). */
static int read_foreign_keys(sqlite3 *db, candidate *cs, int n) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT name, table_name, from_col, to_col FROM"
      " (SELECT m.name AS name, f.id AS id, f.\"table\" AS table_name, f.\"from\" AS from_col,"
      "  f.\"to\" AS to_col, count(*) OVER (PARTITION BY m.name, f.id) AS width"
      "  FROM sqlite_schema AS m, pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table')"
      " WHERE width = 1 ORDER BY name, id");
  if (!st) return XP_EXIT_DB;
  candidate *c = NULL;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *table = (const char *)sqlite3_column_text(st, 0);
    if (!c || strcmp(c->name, table) != 0) c = find_candidate(cs, n, table);
    if (!c) continue;
    const char *to_col = (const char *)sqlite3_column_text(st, 3);
    c->fk_from = xp_xrealloc(c->fk_from, (size_t)(c->nfk + 1) * sizeof *c->fk_from);
    c->fk_to = xp_xrealloc(c->fk_to, (size_t)(c->nfk + 1) * sizeof *c->fk_to);
    c->fk_from[c->nfk] = xp_strdup((const char *)sqlite3_column_text(st, 2));
    /* "table\ncolumn": the column is checked against the target's rowid once all are read. */
    c->fk_to[c->nfk] = xp_asprintf("%s\n%s", (const char *)sqlite3_column_text(st, 1),
                                   to_col ? to_col : "");
    c->nfk++;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : xp_db_fail(db, "reading the tables' foreign keys");
}

/* Does this key point at the rowid of `target`? (An omitted column means its primary key.) */
static int links_to_rowid(const char *fk_to, candidate *cs, int n, candidate **target) {
  const char *nl = strchr(fk_to, '\n');
  char table[256];
  snprintf(table, sizeof table, "%.*s", (int)(nl - fk_to), fk_to);
  candidate *t = find_candidate(cs, n, table);
  if (!t || !t->rowid_col) return 0;
  if (nl[1] && strcmp(nl + 1, t->rowid_col) != 0) return 0;
  *target = t;
  return 1;
}

static int tree_index(const xp_rtree *tree, const char *name) {
  for (int i = 0; i < tree->n; i++)
    if (strcmp(tree->t[i].name, name) == 0) return i;
  return -1;
}

static void place(xp_rtree *tree, candidate *c, int parent, const char *fk) {
  tree->t = xp_xrealloc(tree->t, (size_t)(tree->n + 1) * sizeof *tree->t);
  xp_rtable *t = &tree->t[tree->n++];
  memset(t, 0, sizeof *t);
  t->name = xp_strdup(c->name);
  t->parent = parent;
  t->depth = parent < 0 ? 0 : tree->t[parent].depth + 1;
  t->fk = fk ? xp_strdup(fk) : NULL;
  t->rowid_col = c->rowid_col ? xp_strdup(c->rowid_col) : NULL;
  t->ncols = c->ncols;
  t->cols = xp_xcalloc((size_t)c->ncols, sizeof *t->cols);
  t->local = xp_xcalloc((size_t)c->ncols, 1);
  t->runref = xp_xcalloc((size_t)c->ncols, 1);
  t->xref = xp_xcalloc((size_t)c->ncols, 1);
  t->pkpos = xp_xcalloc((size_t)c->ncols, sizeof *t->pkpos);
  memcpy(t->pkpos, c->pkpos, (size_t)c->ncols * sizeof *t->pkpos);
  for (int i = 0; i < c->ncols; i++) {
    t->cols[i] = xp_strdup(c->cols[i]);
    const char *col = c->cols[i];
    if ((t->rowid_col && strcmp(col, t->rowid_col) == 0) || (fk && strcmp(col, fk) == 0))
      t->local[i] = 1;
    if (parent < 0 && in_list(seal_columns, col)) t->local[i] = 1;
    if (parent >= 0 && strcmp(col, "run_id") == 0) t->local[i] = t->runref[i] = 1;
    for (int k = 0; k < c->nfk; k++)
      if (parent >= 0 && strcmp(c->fk_from[k], col) == 0 && strncmp(c->fk_to[k], "runs\n", 5) == 0)
        t->local[i] = t->runref[i] = 1;
  }
  c->placed = 1;
}

/* The parent link of a table whose parent candidates are all placed: the deepest one, so that
** a table with both run_id and case_id hangs under cases. NULL: not a run table (yet). */
static int choose_parent(xp_rtree *tree, candidate *cs, int n, candidate *c, const char **fk) {
  int best = -1;
  for (int k = 0; k < c->nfk; k++) {
    candidate *target = NULL;
    if (!links_to_rowid(c->fk_to[k], cs, n, &target)) continue;
    int idx = tree_index(tree, target->name);
    if (idx < 0) continue;
    if (best < 0 || tree->t[idx].depth > tree->t[best].depth) {
      best = idx;
      *fk = c->fk_from[k];
    }
  }
  if (best < 0) {
    for (int i = 0; i < c->ncols; i++)
      if (strcmp(c->cols[i], "run_id") == 0) {
        *fk = c->cols[i];
        return 0;
      }
  }
  return best;
}

/* Whether another unplaced table could still become this one's deeper parent. */
static int waits_for_unplaced(candidate *cs, int n, candidate *c) {
  for (int k = 0; k < c->nfk; k++) {
    candidate *target = NULL;
    if (links_to_rowid(c->fk_to[k], cs, n, &target) && !target->placed && target != c &&
        strncmp(target->name, "decision", 8) != 0)
      return 1;
  }
  return 0;
}

/* Columns of run tables that point at the rowid of a table other than their parent and runs:
** their values are local ids. */
static void mark_cross_references(xp_rtree *tree, candidate *cs, int n) {
  for (int i = 1; i < tree->n; i++) {
    xp_rtable *t = &tree->t[i];
    candidate *c = find_candidate(cs, n, t->name);
    for (int k = 0; c && k < c->nfk; k++) {
      candidate *target = NULL;
      if (!links_to_rowid(c->fk_to[k], cs, n, &target) || strcmp(target->name, "runs") == 0) continue;
      for (int col = 0; col < t->ncols; col++)
        if (strcmp(t->cols[col], c->fk_from[k]) == 0 && !t->local[col]) t->xref[col] = 1;
    }
  }
}

static int is_internal_table(const char *name) {
  /* Decisions name runs by UUID and are guarded by their own triggers. */
  return strncmp(name, "sqlite_", 7) == 0 || strcmp(name, "decisions") == 0 ||
         strcmp(name, "decision_evidence") == 0;
}

int xp_rtree_load(sqlite3 *db, xp_rtree *tree) {
  memset(tree, 0, sizeof *tree);
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT name, upper(sql) LIKE '%WITHOUT ROWID%' FROM sqlite_schema WHERE type = 'table'"
      " ORDER BY name");
  if (!st) return XP_EXIT_DB;
  candidate *cs = NULL;
  int n = 0, rc = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    if (is_internal_table(name)) continue;
    cs = xp_xrealloc(cs, (size_t)(n + 1) * sizeof *cs);
    memset(&cs[n], 0, sizeof cs[n]);
    cs[n].name = xp_strdup(name);
    cs[n++].without_rowid = sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  if ((rc = read_columns(db, cs, n)) == 0) rc = read_foreign_keys(db, cs, n);
  candidate *runs = rc ? NULL : find_candidate(cs, n, "runs");
  if (!rc && !runs) rc = xp_error(XP_EXIT_DB, "not an xp database: no runs table");
  if (rc == 0) {
    place(tree, runs, -1, NULL);
    /* Place tables until nothing changes. A table waits while a table it points at could still
    ** become its deeper parent; when nothing else moves, waiting ends (what it points at is
    ** not a run table). Names are sorted, so the tree's order (and every digest JSON built from
    ** it) does not depend on the order in which tables were created. */
    for (int patient = 1;;) {
      int changed = 0;
      for (int i = 0; i < n; i++) {
        candidate *c = &cs[i];
        const char *fk = NULL;
        if (c->placed || (patient && waits_for_unplaced(cs, n, c))) continue;
        int parent = choose_parent(tree, cs, n, c, &fk);
        if (parent < 0) continue;
        place(tree, c, parent, fk);
        changed = 1;
      }
      if (changed) patient = 1;
      else if (patient) patient = 0;
      else break;
    }
  }
  if (rc == 0) mark_cross_references(tree, cs, n);
  for (int i = 0; i < n; i++) candidate_free(&cs[i]);
  free(cs);
  if (rc) xp_rtree_free(tree);
  return rc;
}

void xp_rtree_free(xp_rtree *tree) {
  for (int i = 0; i < tree->n; i++) {
    xp_rtable *t = &tree->t[i];
    for (int c = 0; c < t->ncols; c++) free(t->cols[c]);
    free(t->cols);
    free(t->local);
    free(t->runref);
    free(t->xref);
    free(t->pkpos);
    free(t->name);
    free(t->fk);
    free(t->rowid_col);
  }
  free(tree->t);
  memset(tree, 0, sizeof *tree);
}

/* ---- hashing a run ---- */

typedef struct walker {
  sqlite3 *db;
  const xp_rtree *tree;
  sqlite3_stmt **st;   /* per table: its rows under one parent row */
  EVP_MD_CTX **md;     /* per table */
  int64_t *rows;       /* per table: rows hashed so far (the next row's ordinal) */
} walker;

/* Append to a malloc'd string. */
static void append(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(char **s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *piece = NULL;
  if (vasprintf(&piece, fmt, ap) < 0) abort();
  va_end(ap);
  char *joined = xp_asprintf("%s%s", *s, piece);
  free(piece);
  free(*s);
  *s = joined;
}

/* SELECT rowid_or_NULL, content columns... FROM t WHERE fk = ?1 ORDER BY ... */
static char *rows_sql(const xp_rtable *t) {
  char *rid = t->rowid_col ? xp_sql_ident(t->rowid_col) : xp_strdup("NULL");
  char *sql = xp_asprintf("SELECT %s", rid), *order = xp_strdup("");
  for (int c = 0; c < t->ncols; c++) {
    if (t->local[c]) continue;
    char *q = xp_sql_ident(t->cols[c]);
    append(&sql, ", %s", q);
    free(q);
  }
  /* Order: primary key columns first (in key order), so that SQLite walks the key's index
  ** instead of sorting a big trace table, then every other content column. */
  int maxk = 0;
  for (int c = 0; c < t->ncols; c++)
    if (t->pkpos[c] > maxk) maxk = t->pkpos[c];
  for (int k = 0; k <= maxk; k++) {
    for (int c = 0; c < t->ncols; c++) {
      if (t->local[c] || t->pkpos[c] != (k < maxk ? k + 1 : 0)) continue;
      char *q = xp_sql_ident(t->cols[c]);
      append(&order, "%s%s", *order ? ", " : "", q);
      free(q);
    }
  }
  char *tn = xp_sql_ident(t->name);
  if (t->parent < 0) append(&sql, " FROM %s WHERE id = ?1", tn);
  else {
    char *fk = xp_sql_ident(t->fk);
    append(&sql, " FROM %s WHERE %s = ?1", tn, fk);
    if (t->rowid_col) append(&sql, " ORDER BY %s", rid);
    else if (*order) append(&sql, " ORDER BY %s", order);
    free(fk);
  }
  free(tn);
  free(rid);
  free(order);
  return sql;
}

/* A row's bytes on their way to its table's digest, gathered so that SHA-256 is fed once a
** row (the digest is that of the bytes, however they are split), and integers written
** without snprintf: a call of each per column was most of hashing a run, which xp merge does
** twice per run and xp verify once per run in the database. */
typedef struct row_out {
  EVP_MD_CTX *md;
  size_t n;
  char buf[1024];
} row_out;

static void out_flush(row_out *o) {
  if (o->n) EVP_DigestUpdate(o->md, o->buf, o->n);
  o->n = 0;
}

static void out_bytes(row_out *o, const void *p, size_t n) {
  if (o->n + n > sizeof o->buf) {
    out_flush(o);
    if (n > sizeof o->buf) {
      EVP_DigestUpdate(o->md, p, n);
      return;
    }
  }
  memcpy(o->buf + o->n, p, n);
  o->n += n;
}

/* v in decimal, as "%lld" writes it; out holds 21 bytes. Returns the length. */
static size_t decimal(char *out, long long v) {
  char rev[20];
  size_t n = 0, len = 0;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do rev[n++] = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0) out[len++] = '-';
  while (n) out[len++] = rev[--n];
  return len;
}

/* c, v in decimal, then end (a character, or 0 for none). */
static void out_mark(row_out *o, char c, long long v, char end) {
  char t[24];
  size_t n = 0;
  t[n++] = c;
  n += decimal(t + n, v);
  if (end) t[n++] = end;
  out_bytes(o, t, n);
}

/* One row: "@<parent ordinal>" then, per non-NULL content column, name, a type letter, the
** byte length and the bytes. Lengths make the encoding unambiguous. */
static void hash_row(EVP_MD_CTX *md, const xp_rtable *t, sqlite3_stmt *st, int64_t parent_ord) {
  row_out o = {.md = md};
  out_mark(&o, '@', parent_ord, 0);
  int col = 1;
  for (int c = 0; c < t->ncols; c++) {
    if (t->local[c]) continue;
    int type = sqlite3_column_type(st, col);
    if (type != SQLITE_NULL) {
      const size_t name = strlen(t->cols[c]);
      out_mark(&o, '|', (long long)name, ':');
      out_bytes(&o, t->cols[c], name);
      const void *data;
      size_t n;
      char num[64];
      char tag;
      if (type == SQLITE_INTEGER) {
        n = decimal(num, (long long)sqlite3_column_int64(st, col));
        data = num, tag = 'i';
      } else if (type == SQLITE_FLOAT) {
        snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, col));
        data = num, n = strlen(num), tag = 'r';
      } else if (type == SQLITE_TEXT) {
        data = sqlite3_column_text(st, col), n = (size_t)sqlite3_column_bytes(st, col), tag = 't';
      } else {
        data = sqlite3_column_blob(st, col), n = (size_t)sqlite3_column_bytes(st, col), tag = 'b';
      }
      out_mark(&o, tag, (long long)n, ':');
      if (n) out_bytes(&o, data, n);
    }
    col++;
  }
  out_bytes(&o, "\n", 1);
  out_flush(&o);
}

static int walk_children(walker *w, int parent, int64_t parent_rowid, int64_t parent_ord) {
  for (int i = 0; i < w->tree->n; i++) {
    const xp_rtable *t = &w->tree->t[i];
    if (t->parent != parent) continue;
    sqlite3_stmt *st = w->st[i];
    int has_children = 0;
    for (int k = i + 1; k < w->tree->n; k++) has_children |= w->tree->t[k].parent == i;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, parent_rowid);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t ord = w->rows[i]++;
      hash_row(w->md[i], t, st, parent_ord);
      if (has_children) {
        int64_t rowid = sqlite3_column_int64(st, 0);
        int crc = walk_children(w, i, rowid, ord);
        if (crc) return crc;
      }
    }
    if (rc != SQLITE_DONE) return xp_db_fail(w->db, "reading a run's rows");
  }
  return 0;
}

static void hex_digest(EVP_MD_CTX *md, char out[65]) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(md, d, &n);
  for (unsigned int i = 0; i < n && i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
  out[64] = 0;
}

int xp_run_content(sqlite3 *db, const xp_rtree *tree, int64_t run_id, char content[65],
                   char **digests_json) {
  walker w = {db, tree, xp_xcalloc((size_t)tree->n, sizeof(sqlite3_stmt *)),
              xp_xcalloc((size_t)tree->n, sizeof(EVP_MD_CTX *)),
              xp_xcalloc((size_t)tree->n, sizeof(int64_t))};
  int rc = 0;
  for (int i = 0; i < tree->n && rc == 0; i++) {
    char *sql = rows_sql(&tree->t[i]);
    if (!(w.st[i] = xp_db_prepare(db, sql))) rc = XP_EXIT_DB;
    free(sql);
    w.md[i] = EVP_MD_CTX_new();
    EVP_DigestInit_ex(w.md[i], EVP_sha256(), NULL);
  }
  if (rc == 0) {
    sqlite3_bind_int64(w.st[0], 1, run_id);
    int src = sqlite3_step(w.st[0]);
    if (src == SQLITE_ROW) {
      hash_row(w.md[0], &tree->t[0], w.st[0], 0);
      w.rows[0] = 1;
      rc = walk_children(&w, 0, run_id, 0);
    } else rc = src == SQLITE_DONE ? xp_error(XP_EXIT_USAGE, "run %lld does not exist", (long long)run_id)
                                   : xp_db_fail(db, "reading a run");
  }
  cJSON *digests = cJSON_CreateObject();
  for (int i = 0; i < tree->n; i++) {
    if (w.md[i]) {
      char hex[65];
      hex_digest(w.md[i], hex);
      if (w.rows[i] > 0) cJSON_AddStringToObject(digests, tree->t[i].name, hex);
      EVP_MD_CTX_free(w.md[i]);
    }
    sqlite3_finalize(w.st[i]);
  }
  if (rc == 0) {
    char *text = xp_json_canonical(digests);
    xp_sha256_hex(text, strlen(text), content);
    if (digests_json) *digests_json = text;
    else free(text);
  }
  cJSON_Delete(digests);
  free(w.st);
  free(w.md);
  free(w.rows);
  return rc;
}

void xp_chain_link(const char *prev_hex, const char *content_hex, char out[65]) {
  char buf[129];
  snprintf(buf, sizeof buf, "%.64s%.64s", prev_hex, content_hex);
  xp_sha256_hex(buf, strlen(buf), out);
}

/* ---- guards ---- */

static const char guard_message[] =
    "xp: finished runs are append-only: their results cannot be added to, changed or deleted";

/* The status of the run that owns a row of table i, given the row as REF (NEW or OLD):
** (SELECT runs.status FROM p1 AS a1 JOIN p2 AS a2 ON a2.id = a1.fk ... JOIN runs ON ...
**  WHERE a1.id = REF.fk). NULL when the owner is gone, which lets a cascade through. */
static char *owner_status_sql(const xp_rtree *tree, int i, const char *ref) {
  const xp_rtable *t = &tree->t[i];
  char *fk = xp_sql_ident(t->fk);
  char *s;
  if (t->parent == 0) {
    s = xp_asprintf("(SELECT status FROM runs WHERE id = %s.%s)", ref, fk);
    free(fk);
    return s;
  }
  const xp_rtable *p1 = &tree->t[t->parent];
  char *pn = xp_sql_ident(p1->name), *prid = xp_sql_ident(p1->rowid_col);
  char *from = xp_asprintf("%s AS a1", pn);
  char *where = xp_asprintf("a1.%s = %s.%s", prid, ref, fk);
  free(pn);
  free(prid);
  int level = 1;
  for (int p = t->parent; p > 0; p = tree->t[p].parent, level++) {
    const xp_rtable *pt = &tree->t[p], *up = &tree->t[pt->parent];
    char *pfk = xp_sql_ident(pt->fk), *next;
    if (pt->parent == 0) next = xp_asprintf("%s JOIN runs ON runs.id = a%d.%s", from, level, pfk);
    else {
      char *un = xp_sql_ident(up->name), *urid = xp_sql_ident(up->rowid_col);
      next = xp_asprintf("%s JOIN %s AS a%d ON a%d.%s = a%d.%s", from, un, level + 1, level + 1,
                         urid, level, pfk);
      free(un);
      free(urid);
    }
    free(pfk);
    free(from);
    from = next;
  }
  s = xp_asprintf("(SELECT runs.status FROM %s WHERE %s)", from, where);
  free(from);
  free(where);
  free(fk);
  return s;
}

static char *guard_name(const char *table, const char *op) {
  char *raw = xp_asprintf("xp_append_only_%s_%s", table, op);
  char *q = xp_sql_ident(raw);
  free(raw);
  return q;
}

/* The append-only guards that exist, by name: read once for every table, where a statement
** per table and operation was a third of reading the tree and guarding it. */
typedef struct guard_set {
  char **names;
  int n;
} guard_set;

static void guards_free(guard_set *g) {
  for (int i = 0; i < g->n; i++) free(g->names[i]);
  free(g->names);
  memset(g, 0, sizeof *g);
}

static int guards_read(sqlite3 *db, guard_set *g) {
  memset(g, 0, sizeof *g);
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT name FROM sqlite_schema WHERE type = 'trigger'"
                                       " AND substr(name, 1, 15) = 'xp_append_only_'");
  if (!st) return XP_EXIT_DB;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    g->names = xp_xrealloc(g->names, (size_t)(g->n + 1) * sizeof *g->names);
    g->names[g->n++] = xp_strdup((const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) return 0;
  guards_free(g);
  return xp_db_fail(db, "reading the append-only guards");
}

static int guard_exists(const guard_set *g, const char *table, const char *op) {
  char *name = xp_asprintf("xp_append_only_%s_%s", table, op);
  int i = 0;
  while (i < g->n && strcmp(g->names[i], name) != 0) i++;
  free(name);
  return i < g->n;
}

static const char *const guard_ops[] = {"insert", "update", "delete", NULL};

int xp_history_guard(sqlite3 *db, const xp_rtree *tree) {
  guard_set have;
  int rc = guards_read(db, &have);
  for (int i = 1; i < tree->n && rc == 0; i++) {
    const xp_rtable *t = &tree->t[i];
    for (int k = 0; guard_ops[k] && rc == 0; k++) {
      if (guard_exists(&have, t->name, guard_ops[k])) continue;
      char *newst = owner_status_sql(tree, i, "NEW"), *oldst = owner_status_sql(tree, i, "OLD");
      char *cond = k == 0 ? xp_asprintf("%s <> 'running'", newst)
                 : k == 1 ? xp_asprintf("%s <> 'running' OR %s <> 'running'", oldst, newst)
                          : xp_asprintf("%s <> 'running'", oldst);
      char *name = guard_name(t->name, guard_ops[k]), *tn = xp_sql_ident(t->name);
      char *sql = xp_asprintf("CREATE TRIGGER IF NOT EXISTS %s BEFORE %s ON %s WHEN %s"
                              " BEGIN SELECT RAISE(ABORT, '%s'); END",
                              name, k == 0 ? "INSERT" : k == 1 ? "UPDATE" : "DELETE", tn, cond,
                              guard_message);
      rc = xp_db_exec(db, sql);
      free(sql);
      free(name);
      free(tn);
      free(cond);
      free(newst);
      free(oldst);
    }
  }
  guards_free(&have);
  return rc;
}

static int table_has_rows(sqlite3 *db, const char *table) {
  char *q = xp_sql_ident(table), *sql = xp_asprintf("SELECT EXISTS (SELECT 1 FROM %s)", q);
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  int yes = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  free(sql);
  free(q);
  return yes;
}

int xp_history_unguarded(sqlite3 *db, const xp_rtree *tree, char ***names, int *n) {
  *names = NULL;
  *n = 0;
  guard_set have;
  if (guards_read(db, &have) != 0) return XP_EXIT_DB;
  for (int i = 1; i < tree->n; i++) {
    /* An empty table (a migration's, before any run used it) gets its guards with the next seal. */
    if (!table_has_rows(db, tree->t[i].name)) continue;
    for (int k = 0; guard_ops[k]; k++) {
      if (guard_exists(&have, tree->t[i].name, guard_ops[k])) continue;
      *names = xp_xrealloc(*names, (size_t)(*n + 1) * sizeof **names);
      (*names)[(*n)++] = xp_strdup(tree->t[i].name);
      break;
    }
  }
  guards_free(&have);
  return 0;
}

int xp_history_schema(sqlite3 *db, const char *path) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'decisions'");
  int ok = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
  sqlite3_finalize(st);
  if (ok) return 0;
  return xp_error_at(XP_EXIT_DB, path, 0,
                     "this database predates decisions and the integrity chain; a writing command"
                     " (xp verify --seal) upgrades it and seals its finished runs");
}

/* ---- sealing ---- */

/* The run tables' tree of the last seal, with the schema it was read from. Reading it
** (pragma_table_info and the foreign keys of every table) and checking every table's guards
** was two thirds of a seal, and a merge, an import of many traces or a fuzzing session seals
** run after run under one schema. Both are functions of the schema alone, so the tree is
** reused while the schema is the same, on any connection: the same tables and triggers with
** the same SQL, including the guards the last check found or made. A schema
** version number would not do: a transaction that creates a table and its guards and then
** rolls back takes the version back, and the next change brings the same number back with
** other tables. */
static struct {
  int valid;
  char *schema; /* schema_text() after the guard check */
  xp_rtree tree;
} kept;

/* What the tree and the guards are read from: every table and trigger of the temp and main
** schemas (temp first: pragma_table_info finds a temp table before the main one of that name),
** with its SQL, which a column added by ALTER TABLE changes. Malloc'd; NULL after reporting a
** database error. Compared whole: it is a few tens of KB, and hashing it cost more than reading. */
static char *schema_text(sqlite3 *db) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT type, name, sql FROM sqlite_temp_schema WHERE type IN ('table', 'trigger')"
      " UNION ALL SELECT type, name, sql FROM sqlite_schema WHERE type IN ('table', 'trigger')");
  if (!st) return NULL;
  sqlite3_str *text = sqlite3_str_new(db);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    for (int c = 0; c < 3; c++) { /* each field's length before it: no two schemas read alike */
      const char *field = (const char *)sqlite3_column_text(st, c);
      const int n = sqlite3_column_bytes(st, c);
      sqlite3_str_appendf(text, "%d:", n);
      if (field) sqlite3_str_append(text, field, n);
    }
  sqlite3_finalize(st);
  char *s = sqlite3_str_finish(text);
  if (rc == SQLITE_DONE && s) return s;
  sqlite3_free(s);
  xp_db_fail(db, "reading the schema");
  return NULL;
}

/* The tree to seal with, its guards in place: the kept one if the schema is the one it was
** kept at, else read and guarded afresh, and kept. */
static int sealing_tree(sqlite3 *db, const xp_rtree **tree) {
  char *now = schema_text(db);
  if (!now) return XP_EXIT_DB;
  const int same = kept.valid && strcmp(kept.schema, now) == 0;
  sqlite3_free(now);
  *tree = &kept.tree;
  if (same) return 0;
  if (kept.valid) {
    xp_rtree_free(&kept.tree);
    sqlite3_free(kept.schema);
    kept.valid = 0;
  }
  int rc = xp_rtree_load(db, &kept.tree);
  if (rc) return rc;
  /* Tables that appeared since the last seal get their guards before this run is sealed; the
  ** schema is read after, so that it holds them (and a rollback that takes them away is seen). */
  if ((rc = xp_history_guard(db, &kept.tree)) == 0 && !(kept.schema = schema_text(db))) rc = XP_EXIT_DB;
  if (rc) xp_rtree_free(&kept.tree);
  else kept.valid = 1;
  return rc;
}

int xp_chain_seal(sqlite3 *db, int64_t run_id) {
  const xp_rtree *tree;
  int rc = sealing_tree(db, &tree);
  if (rc) return rc;
  char content[65], link[65], prev[65];
  char *digests = NULL;
  int64_t seq = 1;
  if ((rc = xp_run_content(db, tree, run_id, content, &digests)) != 0) goto out;
  snprintf(prev, sizeof prev, "%s", xp_chain_genesis);
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT chain_seq, chain_sha256 FROM runs WHERE chain_seq IS NOT NULL ORDER BY chain_seq DESC LIMIT 1");
  if (!st) { rc = XP_EXIT_DB; goto out; }
  if (sqlite3_step(st) == SQLITE_ROW) {
    seq = sqlite3_column_int64(st, 0) + 1;
    const unsigned char *h = sqlite3_column_text(st, 1);
    snprintf(prev, sizeof prev, "%s", h ? (const char *)h : xp_chain_genesis);
  }
  sqlite3_finalize(st);
  xp_chain_link(prev, content, link);
  st = xp_db_prepare(db,
      "UPDATE runs SET chain_seq = ?1, content_sha256 = ?2, chain_sha256 = ?3, content_digests = ?4"
      " WHERE id = ?5 AND chain_seq IS NULL");
  if (!st) { rc = XP_EXIT_DB; goto out; }
  sqlite3_bind_int64(st, 1, seq);
  xp_bind_text(st, 2, content);
  xp_bind_text(st, 3, link);
  xp_bind_text(st, 4, digests);
  sqlite3_bind_int64(st, 5, run_id);
  if (sqlite3_step(st) != SQLITE_DONE) rc = xp_db_fail(db, "sealing the run");
  sqlite3_finalize(st);
  if (rc == 0) rc = xp_chain_head_update(db);
out:
  free(digests);
  return rc;
}

int xp_chain_head_update(sqlite3 *db) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "INSERT INTO chain_head (id, run_seq, run_chain, decisions) SELECT 1,"
           " coalesce((SELECT max(chain_seq) FROM runs), 0),"
           " coalesce((SELECT chain_sha256 FROM runs WHERE chain_seq = (SELECT max(chain_seq) FROM runs)), '%s'),"
           " (SELECT count(*) FROM decisions) WHERE true"
           " ON CONFLICT (id) DO UPDATE SET run_seq = excluded.run_seq, run_chain = excluded.run_chain,"
           " decisions = excluded.decisions",
           xp_chain_genesis);
  return xp_db_exec(db, sql);
}
