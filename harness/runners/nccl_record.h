/*
** nccl_burst's results in memory, and how they enter the database. Measuring fills the
** per-rank burst times; recording turns them into cases, metrics with raw samples, bandwidths,
** #wrong, NCCL's facts and artifacts. The same path serves one process driving every GPU and
** rank 0 of a launcher job after gathering the other ranks' samples.
*/
#ifndef XP_NCCL_RECORD_H
#define XP_NCCL_RECORD_H
#include <cjson/cJSON.h>
#include "nccl_info.h"
#include "nccl_plan.h"
#include "recorder.h"

typedef struct xp_nccl_case {
  enum xp_nccl_coll coll;
  enum xp_nccl_dtype dtype;
  int64_t bytes;
  enum xp_nccl_mode mode;
  enum xp_nccl_place place;
  xp_nccl_counts counts;
  const char *skip;      /* why the case is not measured (static text), or NULL */
  int measured;          /* samples present for every rank */
  int64_t wrong;         /* mismatching elements over all ranks, both checks; -1: not verified */
  uint64_t check_min;    /* the count from which the check sees every rank's fault
                         ** (xp_nccl_pattern_min_count); below it, a check is a partial one */
  double *burst_us;      /* [rank * iterations + i]: rank's duration of burst i */
} xp_nccl_case;

typedef struct xp_nccl_rank {
  int present;           /* facts filled (own rank, or gathered) */
  int device;
  char host[128];
  xp_gpu_info gpu;
  char *info_log;        /* this rank's NCCL INFO log (one process: the whole log on rank 0) */
} xp_nccl_rank;

typedef struct xp_nccl_results {
  const xp_nccl_plan *plan;
  int nranks;
  int ncases;
  xp_nccl_case *cases;
  xp_nccl_rank *ranks;
  int per_process;       /* one process per GPU under a launcher */
  char launcher[48];     /* where rank and size came from */
  int nccl_version;      /* ncclGetVersion; 0 unknown */
  char *topo_xml;        /* NCCL_TOPO_DUMP_FILE contents, or NULL */
  size_t topo_len;
  const char *tuning_log;/* "probe": TUNING lines were on only for one untimed call per case */
  int nenv;
  char env_key[32][64], env_val[32][192]; /* what xp put in the environment before NCCL */
  char config[128];      /* communicator settings, e.g. "blocking=0 nvlinkCentricSched=1" */
} xp_nccl_results;

/* Cases in plan order (collective, dtype, size, mode, placement), burst_us zeroed. Every rank
** builds the same list, so rank documents line up by index. */
void xp_nccl_results_init(xp_nccl_results *res, const xp_nccl_plan *plan, int nranks);
void xp_nccl_results_free(xp_nccl_results *res);
void xp_nccl_results_env(xp_nccl_results *res, const char *key, const char *value);
/* 1 if the case was checked but its count is too small for every rank's fault to show. */
int xp_nccl_case_partial(const xp_nccl_case *c);
/* "allreduce/bf16/14336/graph/out_of_place" */
void xp_nccl_case_name(const xp_nccl_case *c, char *buf, size_t n);

/* The run's per-sample figures for one case: burst_us[i] = mean over ranks of burst i, and the
** spread max - min across ranks. out arrays have plan->iterations entries. */
void xp_nccl_case_samples(const xp_nccl_results *res, const xp_nccl_case *c, double *burst_mean,
                          double *spread);

/* Write everything; called once, after measuring (and gathering). */
int xp_nccl_record(xp_run *r, const xp_nccl_results *res);

/* ---- pieces shared with the nccl-tests importer ---- */
/* Case params as canonical fields. dtype is xp's name where known, else the file's. */
cJSON *xp_nccl_case_params(const char *coll, const char *dtype, int64_t bytes, int64_t count,
                           const char *mode, const char *placement, int64_t burst, int nranks);
/* algbw_GBps and busbw_GBps from a per-collective time. */
int xp_nccl_record_bw(xp_run *r, int64_t case_id, enum xp_nccl_coll c, int64_t bytes, int nranks,
                      double time_us);
/* NCCL facts from its INFO lines and topology (either may be empty/NULL), with the given source
** ("detected" for a measured run, "trace" for an import): channels, transports per rank pair,
** GPU pair paths, the environment NCCL read, and the derived interconnect. */
int xp_nccl_record_info(xp_run *r, const xp_nccl_info *info, const xp_topo *topo, const char *source);
#endif
