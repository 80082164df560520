/*
** nccl_burst on the GPUs: communicators, buffers, verification, and the timed bursts. Only in
** CUDA builds. One process drives `nlocal` GPUs (all ranks in the default mode, one rank under
** a launcher); every wait has the plan's timeout, so a missing peer fails the run instead of
** hanging it (see nccl_measure.c for how).
*/
#ifndef XP_NCCL_MEASURE_H
#define XP_NCCL_MEASURE_H
#ifdef XP_HAVE_CUDA
#include "nccl_gather.h"
#include "nccl_record.h"

#define XP_NCCL_MAX_LOCAL 64

typedef struct xp_nccl_local {
  int nlocal;
  int device[XP_NCCL_MAX_LOCAL];
  int rank[XP_NCCL_MAX_LOCAL];
  int nranks;
  int have_id;                     /* per-process: ids from rank 0; else this process makes them */
  unsigned char id[XP_NCCL_RDV_BYTES]; /* arrival check's id, then the measuring communicators' */
  const char *timing_log;          /* NCCL_DEBUG_FILE for the timed part (TUNING off), or NULL */
} xp_nccl_local;

/* NCCL's version code (22809), 0 if unknown. Does not initialise NCCL. */
int xp_nccl_library_version(void);
/* Fresh unique ids (rank 0 of a launcher job). Reads the NCCL_* environment: set it first. */
int xp_nccl_new_id(unsigned char id[XP_NCCL_RDV_BYTES]);

/* Initialise, probe every size once (NCCL logs its algorithm choices), switch NCCL's log to
** `timing_log` without TUNING lines, time every case, verify, tear down. Fills res for the local
** ranks (samples, #wrong, GPU facts). Returns 0 or an exit code (reported). */
int xp_nccl_measure(const xp_nccl_plan *p, const xp_nccl_local *loc, xp_nccl_results *res);
#endif
#endif
