/*
** One process per GPU under a launcher, without MPI: rank and size from the launcher's
** environment, NCCL's unique id through a file on a shared filesystem, and every rank's
** samples and facts gathered by rank 0 through files next to it. Rank 0 records one run.
**
** Files, for rendezvous path P:
**   P             written by rank 0 (atomically, by rename): format line, world size, job id,
**                 rank 0's run id, NCCL's unique ids in hex (one for the arrival check, one for
**                 the communicators that measure; see nccl_measure.c)
**   P.rank<r>     written by rank r > 0 when it is done (or failed): a JSON document
** Rank 0 removes stale P.rank* files before publishing P, and everything when it is done.
*/
#ifndef XP_NCCL_GATHER_H
#define XP_NCCL_GATHER_H
#include <cjson/cJSON.h>
#include "nccl_record.h"

#define XP_NCCL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */
#define XP_NCCL_RDV_BYTES (2 * XP_NCCL_ID_BYTES) /* the ids rank 0 hands out */

typedef struct xp_nccl_launch {
  int rank, size, local_rank;
  char source[48];  /* "RANK/WORLD_SIZE", "OMPI_COMM_WORLD_*", "PMI_*", "SLURM_*" */
  char job[128];    /* the launcher's job id where it gives one, else "" */
  int job_unique;   /* job names this job alone (a scheduler's id); torchrun's is the user's
                    ** --rdzv-id, "none" unless given, which later jobs repeat */
} xp_nccl_launch;

typedef char *(*xp_getenv_fn)(const char *);
/* 0: found; 1: no launcher variables; XP_EXIT_USAGE after reporting inconsistent values. */
int xp_nccl_launch_from_env(xp_getenv_fn get, xp_nccl_launch *out);

/* Rank 0: publish the ids (XP_NCCL_RDV_BYTES). */
int xp_nccl_rdv_publish(const char *path, const xp_nccl_launch *l, const unsigned char *id,
                        const char *leader_run);
/* Other ranks: wait for rank 0's file of this job (same job id if both have one; written after
** not_before, a wall-clock time, unless the job id is unique) and read the ids. XP_EXIT_FAILED
** on timeout. */
int xp_nccl_rdv_wait(const char *path, const xp_nccl_launch *l, double not_before, double timeout_s,
                     unsigned char *id, char leader_run[64]);
/* Rank r > 0: leave its document for rank 0. */
int xp_nccl_rdv_put_rank(const char *path, int rank, const cJSON *doc);
/* Rank 0: wait for every other rank's document (docs[r], r = 1..size-1; docs[0] unused). */
int xp_nccl_rdv_collect(const char *path, int size, double timeout_s, cJSON **docs);
void xp_nccl_rdv_cleanup(const char *path, int size);

/* A rank's own part of the results (its samples, #wrong, facts, log) as a document, with an
** error text when it failed; and rank 0 merging one into its results. */
cJSON *xp_nccl_rank_doc(const xp_nccl_results *res, int rank, const char *error);
/* 0; XP_EXIT_FAILED when the document reports the rank's failure or does not fit the plan
** (message reported). */
int xp_nccl_rank_merge(xp_nccl_results *res, const cJSON *doc);
#endif
