/*
** Writing an import into the database (schema/002_trace.sql), and the rule set kept there.
*/
#ifndef XP_TT_STORE_H
#define XP_TT_STORE_H
#include <sqlite3.h>
#include "recorder.h"
#include "tt_trace.h"

/* The rule set in force in db (trace_rule_set); *found = 0 and nothing loaded if none. */
int tt_rules_load_db(sqlite3 *db, tt_rules *out, int *found);
/* Replace the rule set in db (within the caller's transaction). */
int tt_rules_save(sqlite3 *db, const tt_rules *r, const char *source, const char *text, size_t len);
/* A kernel name as trace_names held it, and the category the rules applied give it. */
typedef struct tt_name_row {
  int64_t id;
  char *name, *kind, *category; /* category: as it was */
  const char *now;              /* as the rules give it (the rules' string) */
  int rule_seq;                 /* as it was; 0: none */
} tt_name_row;
/* Apply rules r to the kernel names in trace_names, those whose id `only` keeps (an SQL condition
** on id; NULL: every name), in name order: each one's category and rule_seq rewritten where
** they are not what r gives (xp reclassify, and xp merge for the names it brings). *moved counts
** the names whose category moved; *rows (tt_name_rows_free) gets every name applied to. */
int tt_store_classify_names(sqlite3 *db, const tt_rules *r, const char *only, tt_name_row **rows, size_t *n,
                            size_t *moved);
void tt_name_rows_free(tt_name_row *rows, size_t n);
/* Record a finished import through the run's transaction. */
int tt_store_import(xp_run *run, tt_import *imp, const tt_options *opt, int64_t events_kept);
/* Copy JSON text without whitespace outside strings (Input Dims as "[[1,4096],[]]"). */
char *tt_json_compact(const char *s, size_t n);
#endif
