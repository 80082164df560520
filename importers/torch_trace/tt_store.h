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
/* Record a finished import through the run's transaction. */
int tt_store_import(xp_run *run, tt_import *imp, const tt_options *opt, int64_t events_kept);
/* Copy JSON text without whitespace outside strings (Input Dims as "[[1,4096],[]]"). */
char *tt_json_compact(const char *s, size_t n);
#endif
