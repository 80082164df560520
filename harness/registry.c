/*
** The one table of run kinds and importers. GPU kinds are always present: built without CUDA
** they still validate and plan (--dry-run), and refuse to execute (exit 4).
*/
#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "xp.h"

#define XP_KIND(sym) extern const xp_kind sym;
XP_KIND(xp_kind_torch_trace)
XP_KIND(xp_kind_nccl_burst)
XP_KIND(xp_kind_nccl_tests)
XP_KIND(xp_kind_gemm)
XP_KIND(xp_kind_ceilings)
XP_KIND(xp_kind_kernel_variant)
XP_KIND(xp_kind_vllm_bench)
#undef XP_KIND

static const xp_kind *const table[] = {&xp_kind_torch_trace, &xp_kind_nccl_burst,
                                       &xp_kind_nccl_tests,  &xp_kind_gemm,
                                       &xp_kind_ceilings,    &xp_kind_kernel_variant,
                                       &xp_kind_vllm_bench,  NULL};

const xp_kind *const *xp_kinds_all(void) {
  return table;
}

const xp_kind *xp_kind_find(const char *name) {
  for (size_t i = 0; table[i]; i++)
    if (strcmp(table[i]->name, name) == 0) return table[i];
  return NULL;
}

/* "vllm-bench" and "vllm_bench" alike: `xp help kinds` lists kinds with underscores. */
/* A kind's or format's name as typed after --kind, xp import or xp help: '-' for '_' and any
** case (--kind Serve_Bench), as every fixed choice of the command line is taken (xp_opt_choice);
** a spec's kind, which is stored, keeps its one spelling (xp_kind_find). */
static int same_name(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b) &&
        !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
      return 0;
  return *a == *b;
}

const xp_kind *xp_importer_find(const char *import_name) {
  for (size_t i = 0; table[i]; i++)
    if (table[i]->import_name &&
        (same_name(table[i]->import_name, import_name) || same_name(table[i]->name, import_name)))
      return table[i];
  return NULL;
}

/* The runs.kind a --kind filter means: a kind's or importer's name gives the kind its runs are
** recorded as (vllm_bench -> serve_bench, nccl_tests -> nccl_burst), a recorded kind itself
** stands; NULL when no kind of this xp records runs so named. */
const char *xp_kind_recorded_as(const char *name) {
  for (size_t i = 0; table[i]; i++) {
    const char *as = table[i]->records_as ? table[i]->records_as : table[i]->name;
    if (same_name(table[i]->name, name) || same_name(as, name) ||
        (table[i]->import_name && same_name(table[i]->import_name, name)))
      return as;
  }
  return NULL;
}

/* The kind a spec's unknown kind most likely meant, or NULL: the kind spelt another way (nccl-burst,
** Gemm), the kind of the runs xp runs lists under that name (serve_bench: vllm_bench's imports;
** *as_recorded set), else the nearest kind's name (xp_near). The spec keeps the one spelling. */
const xp_kind *xp_kind_meant(const char *name, int *as_recorded) {
  *as_recorded = 0;
  for (size_t i = 0; table[i]; i++)
    if (same_name(table[i]->name, name) || (table[i]->import_name && same_name(table[i]->import_name, name)))
      return table[i];
  for (size_t i = 0; table[i]; i++)
    if (table[i]->records_as && same_name(table[i]->records_as, name)) {
      *as_recorded = 1;
      return table[i];
    }
  xp_near near;
  xp_near_init(&near, name);
  for (size_t i = 0; table[i]; i++) xp_near_offer(&near, table[i]->name);
  const char *meant = xp_near_result(&near);
  return meant ? xp_kind_find(meant) : NULL;
}

/* The spec's kind (not runs.kind: imports record as another kind) finds the sections. */
int xp_kind_show_run(sqlite3 *db, int64_t run_id, FILE *out, int fmt, cJSON *json) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT json_extract(spec_json, '$.kind') FROM runs WHERE id = ?1");
  const xp_kind *k = NULL;
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, run_id);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    k = xp_kind_find((const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return k && k->show ? k->show(db, run_id, out, fmt, json) : 0;
}

int xp_kind_filter(sqlite3 *db, const char *cmd, const char **kind) {
  if (!*kind) return 0;
  const char *as = xp_kind_recorded_as(*kind);
  if (as) {
    *kind = as;
    return 0;
  }
  /* a kind this xp does not know may still be in a database merged from another */
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT 1 FROM runs WHERE kind = ?1 LIMIT 1");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, *kind);
  const int found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  if (found) return 0;
  /* an unknown kind would quietly list nothing, as if there were no such runs */
  char known[512] = "";
  size_t o = 0;
  xp_near near;
  xp_near_init(&near, *kind);
  for (size_t i = 0; table[i] && o < sizeof known; i++) {
    o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", i ? ", " : "", table[i]->name);
    xp_near_offer(&near, table[i]->name);
    if (table[i]->records_as) xp_near_offer(&near, table[i]->records_as);
  }
  const char *meant = xp_near_result(&near);
  if (meant) return xp_usage_value_error(cmd, "--kind", *kind, "no such kind: did you mean %s? (kinds: %s)", meant, known);
  return xp_usage_value_error(cmd, "--kind", *kind, "no such kind (kinds: %s)", known);
}
