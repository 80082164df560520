/*
** Run kinds and importers. Each is a small table of functions registered in harness/registry.c;
** the CLI, spec handling, lifecycle, timing, statistics and storage live once in harness/.
*/
#ifndef XP_KIND_H
#define XP_KIND_H
#include <stdio.h>
#include "recorder.h"
#include "spec.h"

typedef struct xp_ctx {
  sqlite3 *db;
  xp_run *run;          /* NULL during --dry-run */
  const xp_spec *spec;
  FILE *out;            /* where human-readable results go (stdout) */
  int quiet;
  int job;              /* an import of several jobs (runs) from one file: the one this run records */
  int njobs;            /* set by execute where its files hold more than one: xp runs it again for each */
} xp_ctx;

typedef struct xp_kind {
  const char *name;            /* spec `kind = "..."` */
  const char *summary;         /* one line for xp help */
  const xp_field *fields;      /* kind-specific keys; declared keys are always accepted */
  int needs_gpu;
  /* Optional checks beyond field types (cross-field rules, files exist). 0 or XP_EXIT_USAGE. */
  int (*check)(const xp_spec *spec);
  /* --dry-run: print what would be measured; touches nothing. */
  int (*plan)(const xp_spec *spec, FILE *out);
  /* Measure (or read) and record through ctx->run. Returns an exit code; on failure the
  ** error has been reported with xp_error() and becomes the run's error text. */
  int (*execute)(xp_ctx *ctx);
  /* For importers: `xp import <import_name> FILE...` builds a spec of this kind with the
  ** files under "files"; options map to fields by name (--step-annotation -> step_annotation). */
  const char *import_name;
  /* runs.kind written for this spec kind, when it differs (nccl_tests imports record
  ** runs of kind nccl_burst, marked origin 'imported'). NULL: same as name. */
  const char *records_as;
  /* Optional: this kind's own sections for `xp show`, after the generic ones: printed to out in
  ** fmt, or, when json is not NULL (--format json), added to it as "title": [rows]. */
  int (*show)(sqlite3 *db, int64_t run_id, FILE *out, int fmt, cJSON *json);
  /* Optional: lines for `xp help KIND` after its keys (which declared keys it reads, rules
  ** between keys). */
  const char *notes;
  /* Optional, for an importer whose files an earlier import may hold already: its check against
  ** the history in db, before a run is begun, so that a refusal (every result imported already)
  ** leaves no run behind. With plan not NULL (--dry-run, db opened as a dry run), it prints the
  ** plan of what the import would record there, in place of plan(). 0, or the error said. */
  int (*against_history)(sqlite3 *db, const xp_spec *spec, FILE *plan);
} xp_kind;

/* A GPU kind's execute exists only in a CUDA build. Without CUDA, xp_execute_spec refuses GPU
** kinds (or hands the command line to xp-cuda) before execute could be called. */
#ifdef XP_HAVE_CUDA
#define XP_GPU_EXECUTE(fn) (fn)
#else
#define XP_GPU_EXECUTE(fn) NULL
#endif

/* Path of xp-cuda beside the running binary, if it exists and is executable; 0 when found. */
int xp_cuda_sibling(char *path, size_t n);

const xp_kind *xp_kind_find(const char *name);
const xp_kind *xp_importer_find(const char *import_name);
const xp_kind *xp_kind_meant(const char *name, int *as_recorded); /* "did you mean" for a spec's kind */
const xp_kind *const *xp_kinds_all(void); /* NULL-terminated */
/* The runs.kind that --kind NAME selects (a kind, importer or recorded name), or NULL. */
const char *xp_kind_recorded_as(const char *name);
/* --kind NAME of `cmd` as the recorded kind in *kind: 0, or a usage error for a name that no
** kind of this xp records and no run in db has. */
int xp_kind_filter(sqlite3 *db, const char *cmd, const char **kind);
/* A run's own sections, by its kind's show callback (nothing for a kind without one): xp show
** prints them after the generic sections, xp show --format json and xp export add them to the
** run's object (json not NULL) under the same titles, so both documents read alike. */
int xp_kind_show_run(sqlite3 *db, int64_t run_id, FILE *out, int fmt, cJSON *json);

/* Run a validated spec of a kind: begin the run, execute, finish. Used by xp run, xp import
** and xp rerun alike, so every run goes through the same lifecycle. */
/* 0 when runs of k can be made here; for a GPU kind without a GPU or a CUDA build, the error
** said (exit 4), after handing the command line over to xp-cuda where there is one. Called
** before the database is opened, so that such a command leaves no database behind. */
int xp_kind_can_run(const xp_kind *k);
/* --dry-run's output: header (NULL for none) and k's plan, printed only when the plan is whole, so
** a plan that fails partway leaves stdout empty beside its one error line; against the history
** in db where k reads it (against_history) and db is not NULL. 0, or the error said. */
int xp_print_plan(const xp_kind *k, const xp_spec *spec, sqlite3 *db, const char *header);
int xp_execute_spec(sqlite3 *db, const xp_kind *k, const xp_spec *spec, int imported,
                    const char *parent_uuid, char run_uuid_out[37]);
/* Set a top-level key from "KEY=VALUE" (xp run --set, xp import --set), typed by the kind's
** field table or the declared fields: integers, numbers, booleans, comma-separated arrays. */
int xp_spec_set_kv(cJSON *root, const xp_kind *k, const char *kv);
char *xp_set_normal(const char *kv); /* a --set as given, "KEY = VALUE" as KEY=VALUE; malloc'd */
/* Set KEY (a field of the kind, e.g. step_annotation) from the text value of `option`, as typed
** (--step-annotation), which its errors name; with append, array values add to what is there
** (an option given twice). */
int xp_spec_set_field(cJSON *root, const xp_kind *k, const char *key, const char *option, const char *value,
                      int append);
const xp_field *xp_kind_field(const xp_kind *k, const char *key);
/* Validate a spec against its kind: field table, then kind->check. */
int xp_validate_spec(const xp_kind *k, const xp_spec *spec);
#endif
