/*
** The recorder: the one way results enter the database.
**
** Lifecycle: xp_run_begin() inserts the run as 'running' and commits it at once, with the
** metadata xp gathers without being asked (host, software, environment, GPUs for measured
** runs, what the spec declares). Everything a runner records afterwards goes into ONE
** transaction, opened by the first write; xp_run_finish() writes the final status into the
** same transaction and commits. A crash before that leaves the run 'running' with no results,
** which `xp runs` shows as 'incomplete' once its process is gone.
**
** Measure first, then record: the results transaction holds SQLite's write lock, so runners
** keep results in memory while measuring and write them at the end.
*/
#ifndef XP_RECORDER_H
#define XP_RECORDER_H
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdint.h>
#include "spec.h"
#include "stats.h"

typedef struct xp_run xp_run;

typedef struct xp_run_opts {
  const char *kind;         /* registered run kind, e.g. "nccl_burst" */
  int imported;             /* 1: data read from files (origin 'imported'): no local GPU facts */
  const xp_spec *spec;      /* required; its canonical JSON and hash are stored */
  const char *parent_uuid;  /* xp rerun: the run this one repeats */
  int collect_gpus;         /* measured GPU kinds: record every visible GPU (needs CUDA build) */
} xp_run_opts;

/* The devices a measured run drives, as its spec names them: `gpus` (a list), else `device`,
** else every visible one (all_by_default) or device 0. Fills used[] with at most max indices and
** returns how many. */
int xp_spec_devices(const cJSON *root, int all_by_default, int visible, int *used, int max);
/* The GPU a run is filed under: the one name of the devices it drove (names[d] for d in used,
** indices past nnames left out), or NULL where they are different GPUs, or none is known. A run
** on device 1 of a host whose device 0 is another GPU is filed under device 1's. */
const char *xp_devices_gpu_name(const char *const *names, int nnames, const int *used, int nused);

int xp_run_begin(sqlite3 *db, const xp_run_opts *o, xp_run **out);
/* An import's later job (a log of several jobs, a run each): the run is begun inside `within`'s
** open results transaction, and its row, results and status commit with that run's finish, or
** roll back with it. Its own xp_run_finish writes its status there and commits nothing; one that
** does not end ok writes nothing, and the caller then fails `within`, which rolls back every run
** begun inside it: an import is recorded whole or marked failed. */
int xp_run_begin_within(xp_run *within, const xp_run_opts *o, xp_run **out);
const char *xp_run_uuid(const xp_run *r);
int64_t xp_run_id(const xp_run *r);
sqlite3 *xp_run_db(xp_run *r);
const char *xp_run_kind(const xp_run *r);

/* Open the results transaction now (done implicitly by every write below). */
int xp_run_results_begin(xp_run *r);

/* Metadata: source is "declared", "detected", "env" or "trace". Keys that queries group by
** (model, engine, tp, ep, pp, batch, concurrency, dtype, quantization, interconnect, gpu_name,
** gpu_count, host) are also copied into the runs row: a detected value wins over a declared one,
** and a disagreement is reported as a warning and kept as metadata key "mismatch.<key>". */
int xp_run_meta(xp_run *r, const char *key, const char *value, const char *source);
int xp_run_meta_int(xp_run *r, const char *key, int64_t value, const char *source);

/* A GPU the run used or the trace describes (run_gpus row). Unknown numbers are < 0. */
typedef struct xp_gpu_info {
  int index;
  char name[128], uuid[64], pci_bus_id[32], cc[16];
  int sm_count;
  int64_t mem_bytes;
  int clock_mhz, mem_clock_mhz, pcie_gen, pcie_width;
} xp_gpu_info;
int xp_run_gpu(xp_run *r, const xp_gpu_info *g);

/* Cases: one measured configuration (a message size in a mode, a GEMM shape, a variant on a
** shape). params is an object of scalars (copied, canonicalised). status: "ok", "failed"
** or "skipped", with note saying why. Returns the case id, or -1 after reporting an error. */
int64_t xp_run_case(xp_run *r, const char *name, const cJSON *params, const char *status,
                    const char *note);
/* A metric of a case from raw samples: samples are kept and the summary computed here. */
int xp_run_metric(xp_run *r, int64_t case_id, const char *metric, const char *unit,
                  const double *samples, size_t n);
/* A derived single value (busbw from a median time, share of a ceiling, ...). */
int xp_run_value(xp_run *r, int64_t case_id, const char *metric, const char *unit, double v);

/* A file kept with the run (topology dump, NCCL log): stored zlib-compressed. */
int xp_run_artifact(xp_run *r, const char *name, const char *media_type, const void *data,
                    size_t len);
/* An artifact's bytes again, from its row's encoding, data and size columns, NUL-terminated
** (malloc'd, *len set); NULL where they do not give its size (damaged, or an unknown encoding). */
char *xp_artifact_bytes(const char *encoding, const void *data, size_t stored, int64_t size, size_t *len);

/* A statement for a kind's own tables, prepared on the run's connection and cached by SQL text.
** Use within the results transaction; do not finalize it. */
sqlite3_stmt *xp_run_stmt(xp_run *r, const char *sql);

enum xp_run_status { XP_RUN_OK, XP_RUN_FAILED, XP_RUN_ABORTED };
/* Roll back what r has recorded since its begin, and every run begun within it (xp_run_begin_within),
** so that an ABORTED finish keeps none of it: an import of several jobs interrupted at a later one. */
void xp_run_discard(xp_run *r);
/* Final status. OK and ABORTED commit what was recorded (aborted says the run stopped early);
** FAILED rolls results back and keeps the run row with its error text. Frees r.
** Returns 0, or XP_EXIT_DB if the commit failed (the run is then marked failed if possible). */
int xp_run_finish(xp_run *r, enum xp_run_status status, const char *error);
#endif
