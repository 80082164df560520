/*
** xp reclassify [--rules FILE] [--dry-run]: make a set of kernel category rules the one in
** force and re-apply it to every kernel name ever imported from a trace. Queries resolve a
** kernel's category through trace_names at query time, so every imported trace answers under
** the new rules at once, without being imported again. A name's category is not always what the
** figures count: a collective kernel whose name's category is a communication one counts under
** the collective its args name (trace_kernel_stats), so the report sets beside each name what
** its kernels become in that view, read before and after the change.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "torch_trace/tt_rules.h"
#include "torch_trace/tt_store.h"
#include "xp.h"
#include "xp_blob.h"

static const char usage[] =
    "usage: xp reclassify [--rules FILE] [--dry-run]\n"
    "  Re-applies kernel category rules to every kernel name imported from traces, so that\n"
    "  all history answers under them without importing again. Without --rules the rules\n"
    "  built into this xp (importers/torch_trace/categories.tsv) become the rules in force;\n"
    "  with --rules FILE, that file's (same format). Prints every name whose category changes,\n"
    "  and what its kernels change to in the figures: a collective kernel whose name stays a\n"
    "  communication one keeps the collective its args name.\n"
    "  --dry-run  show what would change; write nothing (a database xp cannot write: on a\n"
    "             copy in $SQLITE_TMPDIR, $TMPDIR or /var/tmp, as much disk as it, removed\n"
    "             at exit)\n";

/* Kernels of one name that the figures count under one category before and another (or the
** same) after, from figures(). */
typedef struct figure_row {
  int64_t name_id, kernels;
  char *before, *after;
} figure_row;

/* The figures' category of every kernel (trace_kernel_stats, all runs), per name and the
** collective its args name, kept in a TEMP table for figures() to compare with. */
static int snapshot(sqlite3 *db) {
  return xp_db_exec(db, "CREATE TEMP TABLE xp_reclassify_figures AS"
                        " SELECT name_id, coll, category, sum(count) AS kernels FROM trace_kernel_stats"
                        " GROUP BY name_id, coll");
}

/* Per name, in read_names' order, its kernels by category before and after; the changes first. */
static int figures(sqlite3 *db, figure_row **out, size_t *n) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "WITH now AS (SELECT name_id, coll, category FROM trace_kernel_stats GROUP BY name_id, coll)"
      " SELECT b.name_id, b.category, a.category, sum(b.kernels)"
      " FROM temp.xp_reclassify_figures b JOIN now a USING (name_id, coll)"
      " JOIN trace_names t ON t.id = b.name_id"
      " GROUP BY b.name_id, b.category, a.category ORDER BY t.name, b.category = a.category, b.category, a.category");
  if (!st) return XP_EXIT_DB;
  size_t cap = 0;
  int rc;
  *out = NULL;
  *n = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (*n == cap) *out = xp_xrealloc(*out, (cap = cap ? cap * 2 : 64) * sizeof **out);
    (*out)[(*n)++] = (figure_row){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 3),
                                  xp_strdup((const char *)sqlite3_column_text(st, 1)),
                                  xp_strdup((const char *)sqlite3_column_text(st, 2))};
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : xp_db_fail(db, "reading trace_kernel_stats");
}

/* What the kernels of one name, f[0..nf), become in the figures: "31 kernels allreduce ->
** communication, 256 stay allreduce (the collective their args name)". */
static void print_figures(const tt_name_row *row, const figure_row *f, size_t nf) {
  printf("  %-14s    %-14s figures:", "", "");
  if (nf == 0) printf(" no kernels in the database");
  int moved = nf > 0 && strcmp(f[0].before, f[0].after) != 0; /* the changes come first */
  for (size_t j = 0; j < nf; j++) {
    const char *sep = j ? "," : "";
    if (strcmp(f[j].before, f[j].after) != 0)
      printf("%s %lld kernel%s %s -> %s", sep, (long long)f[j].kernels, f[j].kernels == 1 ? "" : "s",
             f[j].before, f[j].after);
    else /* "unchanged: 256 kernels stay allreduce" where nothing moves */
      printf("%s%s %lld %sstay %s%s", sep, j || moved ? "" : " unchanged:", (long long)f[j].kernels,
             moved ? "" : f[j].kernels == 1 ? "kernel " : "kernels ", f[j].after,
             strcmp(f[j].after, row->now) != 0 ? " (the collective their args name)" : "");
  }
  putchar('\n');
}

/* Every name whose category changes, or whose kernels change in the figures, with what they
** become there; *kernels and *moved count the kernels of all runs and those that change. */
static void report(const tt_name_row *rows, size_t n, const figure_row *f, size_t nf, int64_t *kernels,
                   int64_t *moved) {
  size_t j = 0;
  *kernels = *moved = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = j, changes = 0;
    for (; k < nf && f[k].name_id == rows[i].id; k++) {
      *kernels += f[k].kernels;
      if (strcmp(f[k].before, f[k].after) != 0) changes++, *moved += f[k].kernels;
    }
    if (changes || strcmp(rows[i].now, rows[i].category) != 0) {
      char *name = xp_terminal_text(rows[i].name); /* a trace's kernel name, as xp query shows it */
      printf("  %-14s -> %-14s %.100s\n", rows[i].category, rows[i].now, name);
      free(name);
      print_figures(&rows[i], f + j, k - j);
    }
    j = k;
  }
}

static int load(const char *file, tt_rules *rules, char **text, size_t *len) {
  if (!file) {
    const struct xp_blob *b = xp_datafile("categories.tsv");
    if (!b) return xp_error(XP_EXIT_ENV, "categories.tsv is not built into this xp");
    *text = xp_xmalloc(b->len + 1);
    memcpy(*text, b->data, b->len + 1);
    *len = b->len;
    return tt_rules_builtin(rules);
  }
  *text = xp_read_file(file, len);
  if (!*text) return xp_error_at(XP_EXIT_USAGE, file, 0, "cannot read the rules file: %s", strerror(errno));
  return tt_rules_parse(*text, *len, file, rules);
}

int cmd_reclassify(int argc, char **argv, const char *db_path) {
  const char *file = NULL;
  int dry = 0, bad = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
    if ((v = xp_opt_value(argc, argv, &i, "--rules", &bad))) {
      if (xp_opt_twice("reclassify", "--rules", v, file)) return XP_EXIT_USAGE;
      file = v;
    }    else if (bad) return XP_EXIT_USAGE;
    else if (strcmp(argv[i], "--dry-run") == 0) dry = 1;
    else if (argv[i][0] == '-')
      return xp_unknown_option("reclassify", argv[i], (const char *const[]){"--rules", "--dry-run", "--help", NULL});
    else return xp_usage_value_error("reclassify", "unexpected argument", argv[i], NULL);
  }
  tt_rules rules;
  char *text = NULL;
  size_t len = 0;
  int rc = load(file, &rules, &text, &len);
  if (rc) {
    free(text);
    return rc;
  }
  sqlite3 *db = xp_db_open(db_path, dry ? XP_DB_DRY : XP_DB_READWRITE, &rc);
  tt_name_row *rows = NULL;
  figure_row *figs = NULL;
  size_t n = 0, nfigs = 0, changed = 0;
  if (db && (dry || (rc = xp_db_begin(db)) == 0)) { /* a dry run is in XP_DB_DRY's transaction */
    rc = snapshot(db);
    if (!rc) rc = tt_rules_save(db, &rules, file ? file : "built-in", text, len);
    if (!rc) rc = tt_store_classify_names(db, &rules, NULL, &rows, &n, &changed);
    if (!rc) rc = figures(db, &figs, &nfigs);
    if (rc || dry) xp_db_rollback(db);
    else rc = xp_db_commit(db);
  }
  if (!rc) {
    int64_t kernels, moved;
    report(rows, n, figs, nfigs, &kernels, &moved);
    char sha[65];
    xp_sha256_hex(text, len, sha);
    printf("rules: %s (sha256 %.12s), %d rules, %d categories%s\n", file ? file : "built-in", sha,
           rules.nrules, rules.ncats, dry ? "; dry run, nothing written" : "");
    printf("names: %zu in the database, %zu %s category\n", n, changed, dry ? "would change" : "changed");
    printf("kernels: %lld in the database, %lld %s category in the figures\n", (long long)kernels,
           (long long)moved, dry ? "would change" : "changed");
  }
  tt_name_rows_free(rows, n);
  for (size_t i = 0; i < nfigs; i++) {
    free(figs[i].before);
    free(figs[i].after);
  }
  free(figs);
  free(text);
  tt_rules_free(&rules);
  if (db) xp_db_close(db);
  return rc;
}
