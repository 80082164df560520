/*
** nccl_burst: what a spec asks for, as plain data, and the arithmetic that goes with it
** (message sizes, element counts per collective, nccl-tests' bandwidth formulas). Nothing
** here touches a GPU, so all of it is tested without one.
*/
#ifndef XP_NCCL_PLAN_H
#define XP_NCCL_PLAN_H
#include <stdint.h>
#include <stdio.h>
#include "nccl_types.h"
#include "spec.h"

enum xp_nccl_mode { XP_MODE_EAGER, XP_MODE_GRAPH, XP_MODE_N };
enum xp_nccl_place { XP_PLACE_OUT, XP_PLACE_IN, XP_PLACE_N };

/* Longest size list a spec may expand to: a sweep of 8 B..256 MiB by 2 is 26 sizes. */
#define XP_NCCL_MAX_SIZES 4096

typedef struct xp_nccl_plan {
  int ncoll, ndtype, nmode, nplace;
  enum xp_nccl_coll coll[XP_COLL_N];
  enum xp_nccl_dtype dtype[XP_DT_N];
  enum xp_nccl_mode mode[XP_MODE_N];
  enum xp_nccl_place place[XP_PLACE_N];
  int nsizes;
  int64_t *sizes;        /* ascending, distinct, bytes as nccl-tests counts them */
  int burst;             /* collectives back to back in one sample */
  int warmup;            /* untimed bursts before the samples */
  int iterations;        /* timed bursts: one sample each */
  int ngpus;             /* 0: every visible GPU (one process) */
  int *gpus;             /* device indices */
  int root;              /* broadcast root */
  int verify;
  double timeout_s;
  int alloc_nccl;        /* buffers from ncclMemAlloc (as nccl-tests) rather than cudaMalloc */
  const char *rendezvous;/* per-process mode: file for the unique id (spec, else $XP_RENDEZVOUS) */
  const cJSON *env;      /* NCCL_* settings to apply before NCCL starts */
} xp_nccl_plan;

extern const xp_field xp_nccl_burst_fields[];

const char *xp_nccl_coll_name(enum xp_nccl_coll c);   /* "allreduce" */
const char *xp_nccl_coll_func(enum xp_nccl_coll c);   /* NCCL's own name: "AllReduce" */
const char *xp_nccl_dtype_name(enum xp_nccl_dtype d); /* "bf16" */
const char *xp_nccl_mode_name(enum xp_nccl_mode m);
const char *xp_nccl_place_name(enum xp_nccl_place p);
int xp_nccl_coll_parse(const char *s);   /* -1 if unknown */
int xp_nccl_dtype_parse(const char *s);  /* accepts xp's and nccl-tests' names; -1 if unknown */
size_t xp_nccl_dtype_size(enum xp_nccl_dtype d);

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): busbw = algbw * factor. */
double xp_nccl_busbw_factor(enum xp_nccl_coll c, int nranks);
/* algbw in GB/s (1e9) for `bytes` moved in `time_us`. */
double xp_nccl_algbw(int64_t bytes, double time_us);

/* How a message of `bytes` (nccl-tests' size column: the larger per-rank buffer) maps onto
** one call. count: the count argument NCCL is given (per peer for alltoall). */
typedef struct xp_nccl_counts {
  size_t count;      /* elements passed to the NCCL call */
  size_t send_elems; /* elements in each rank's send buffer */
  size_t recv_elems; /* elements in each rank's receive buffer */
} xp_nccl_counts;
/* 0, or -1 when bytes cannot be split into whole elements for this collective and rank count;
** then *need gets the multiple of bytes that would work. */
int xp_nccl_counts_for(enum xp_nccl_coll c, enum xp_nccl_dtype d, int64_t bytes, int nranks,
                       xp_nccl_counts *out, int64_t *need);

/* Geometric sizes min, min*factor, ... up to max (as nccl-tests -b/-e/-f). Returns the count
** (malloc'd *out), or -1 if it would exceed XP_NCCL_MAX_SIZES. */
int xp_nccl_size_range(int64_t min, int64_t max, double factor, int64_t **out);

/* From a validated spec. Returns 0 or XP_EXIT_USAGE after reporting the key at fault. */
int xp_nccl_plan_load(const xp_spec *s, xp_nccl_plan *p);
void xp_nccl_plan_free(xp_nccl_plan *p);
/* Every size must split into whole elements for every collective at this rank count. */
int xp_nccl_plan_check_ranks(const xp_spec *s, const xp_nccl_plan *p, int nranks);
/* The declared tp and gpus_declared label the run; where the ranks it has (or will have) are
** another number, a warning says so, since its figures are for the ranks it had. */
void xp_nccl_warn_declared_ranks(const xp_spec *s, int nranks);
/* The device a launcher's process drives, in *dev: gpus[local rank] where the spec lists devices,
** else the local rank. 0; or the exit code after saying, at the key that chose the device, that
** the list has none for its local rank (2), or that the device is past the `visible` GPUs (4:
** the spec may run on a larger machine): gpus[i], or without gpus the rendezvous that made each
** local rank drive the device of its number (XP_RENDEZVOUS where the environment set the mode).
** visible < 0: not checked against the GPUs (a plan's). */
struct xp_nccl_launch;
int xp_nccl_launch_device(const xp_spec *s, const xp_nccl_plan *p, const struct xp_nccl_launch *l, int visible,
                          int *dev);

/* An env table value as the string setenv gets (true -> "1"). 0, or -1 for a non-scalar. */
/* Longest env value a spec may set (bytes, with the NUL). */
enum { XP_NCCL_ENV_MAX = 1024 };
int xp_nccl_env_value(const cJSON *v, char *buf, size_t n);

/* Kind callbacks. */
int xp_nccl_burst_check(const xp_spec *s);
int xp_nccl_burst_plan(const xp_spec *s, FILE *out);
#endif
