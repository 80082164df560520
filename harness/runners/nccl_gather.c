/*
** Per-process mode: where a rank learns who it is, how rank 0 hands out NCCL's unique id, and
** how rank 0 collects the other ranks' results. Everything goes through plain files on a
** filesystem all ranks share, written to a temporary name and renamed, so a reader never sees
** half a file. Waits poll with a deadline: a rank that never arrives fails the run.
*/
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nccl_gather.h"
#include "xp.h"

#define RDV_FORMAT "xp-nccl-rendezvous 2"
#define RANK_FORMAT "xp-nccl-rank 1"

/* ---- launcher environment ---- */

static const struct {
  const char *rank, *size, *local, *source;
} schemes[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "RANK/WORLD_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_*"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_*"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_*"},
};

/* 0 found, 1 unset, -1 not a non-negative integer. */
static int env_int(xp_getenv_fn get, const char *key, int *out) {
  const char *v = get(key);
  int64_t x;
  if (!v || !*v) return 1;
  if (xp_parse_int64(v, &x) != 0 || x < 0 || x > INT_MAX) return -1;
  *out = (int)x;
  return 0;
}

/* job = "prefix:value" where the variable is set; 1 when it was. */
static int job_from(xp_getenv_fn get, const char *var, const char *prefix, xp_nccl_launch *l) {
  const char *v = get(var), *step = get("SLURM_STEP_ID");
  if (!v || !*v) return 0;
  if (strcmp(var, "SLURM_JOB_ID") == 0) snprintf(l->job, sizeof l->job, "%s:%s.%s", prefix, v, step ? step : "");
  else snprintf(l->job, sizeof l->job, "%s:%s", prefix, v);
  return 1;
}

/* The launcher's job id, and whether it names this launch alone: the id of the launcher that
** numbered the ranks does (srun's job and step, Open MPI's PMIx namespace or job id). Another
** is kept, to tell other jobs' files apart, but vouches for none: torchrun's
** TORCHELASTIC_RUN_ID is its --rdzv-id, "none" by default (torch/distributed/run.py) and often a
** fixed number in scripts, and ids the ranks inherited (a batch script's Slurm job, the srun or
** PMIx namespace that ran torchrun or mpirun) are the same for every launch inside it. */
static void launcher_job(xp_getenv_fn get, const char *source, xp_nccl_launch *l) {
  const int by_srun = strcmp(source, "SLURM_*") == 0, by_ompi = strcmp(source, "OMPI_COMM_WORLD_*") == 0;
  l->job[0] = 0;
  l->job_unique = (by_srun && job_from(get, "SLURM_JOB_ID", "slurm", l)) ||
                  (by_ompi && (job_from(get, "PMIX_NAMESPACE", "pmix", l) ||
                               job_from(get, "OMPI_MCA_ess_base_jobid", "ompi", l)));
  if (!l->job_unique)
    (void)(job_from(get, "TORCHELASTIC_RUN_ID", "torchrun", l) || job_from(get, "PMIX_NAMESPACE", "pmix", l) ||
           job_from(get, "OMPI_MCA_ess_base_jobid", "ompi", l) || job_from(get, "SLURM_JOB_ID", "slurm", l));
  /* one word in the rendezvous file, which is read word by word (--rdzv-id "sweep 3") */
  for (char *c = l->job; *c; c++)
    if (isspace((unsigned char)*c)) *c = '_';
}

int xp_nccl_launch_from_env(xp_getenv_fn get, xp_nccl_launch *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
    int rank = 0, size = 0, local = 0;
    int hr = env_int(get, schemes[i].rank, &rank), hs = env_int(get, schemes[i].size, &size);
    if (hr == 1 && hs == 1) continue;
    if (hr < 0 || hs < 0)
      return xp_error(XP_EXIT_USAGE, "%s=%s, %s=%s: not process numbers", schemes[i].rank,
                      get(schemes[i].rank) ? get(schemes[i].rank) : "", schemes[i].size,
                      get(schemes[i].size) ? get(schemes[i].size) : "");
    if (hr == 1 || hs == 1)
      return xp_error(XP_EXIT_USAGE, "%s is set but %s is not", hr == 1 ? schemes[i].size : schemes[i].rank,
                      hr == 1 ? schemes[i].rank : schemes[i].size);
    if (size < 1 || rank >= size)
      return xp_error(XP_EXIT_USAGE, "%s=%d does not fit %s=%d", schemes[i].rank, rank, schemes[i].size, size);
    int hl = env_int(get, schemes[i].local, &local);
    if (hl < 0) return xp_error(XP_EXIT_USAGE, "%s is not a number", schemes[i].local);
    out->rank = rank;
    out->size = size;
    /* Without a local rank, assume one node: the rank is the local rank. */
    out->local_rank = hl == 0 ? local : rank;
    snprintf(out->source, sizeof out->source, "%s", schemes[i].source);
    launcher_job(get, schemes[i].source, out);
    return 0;
  }
  return 1;
}

/* ---- files ---- */

static char *rank_path(const char *path, int rank) { return xp_asprintf("%s.rank%d", path, rank); }

static int write_atomically(const char *path, const char *text) {
  char *tmp = xp_asprintf("%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  int ok = f && fputs(text, f) >= 0;
  if (f) {
    ok &= fflush(f) == 0;
    ok &= fsync(fileno(f)) == 0; /* other hosts read it next: get it to the server */
    ok &= fclose(f) == 0;
  }
  if (ok && rename(tmp, path) != 0) ok = 0;
  if (!ok) {
    int e = errno;
    unlink(tmp);
    free(tmp);
    return xp_error(XP_EXIT_FAILED, "%s: cannot write: %s", path, strerror(e));
  }
  free(tmp);
  return 0;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int xp_nccl_rdv_publish(const char *path, const xp_nccl_launch *l, const unsigned char *id,
                        const char *leader_run) {
  for (int r = 1; r < l->size; r++) {
    char *rp = rank_path(path, r);
    unlink(rp);
    free(rp);
  }
  char hex[2 * XP_NCCL_RDV_BYTES + 1];
  for (int i = 0; i < XP_NCCL_RDV_BYTES; i++) snprintf(hex + 2 * i, 3, "%02x", id[i]);
  char *text = xp_asprintf(RDV_FORMAT "\nsize %d\njob %s\nleader %s\nids %s\n", l->size,
                           l->job[0] ? l->job : "-", leader_run ? leader_run : "-", hex);
  int rc = write_atomically(path, text);
  free(text);
  return rc;
}

/* Parse rank 0's file. 0 ok, 1 not (yet) this job's, -1 unreadable. */
static int read_rdv(const char *path, const xp_nccl_launch *l, unsigned char *id, char leader[64],
                    int *size) {
  size_t len;
  char *text = xp_read_file(path, &len);
  if (!text) return 1;
  char job[128] = "", lead[64] = "", hex[2 * XP_NCCL_RDV_BYTES + 2] = "";
  int n = sscanf(text, RDV_FORMAT "\nsize %d\njob %127s\nleader %63s\nids %513s", size, job, lead, hex);
  free(text);
  if (n != 4 || strlen(hex) != 2 * XP_NCCL_RDV_BYTES) return -1;
  if (l->job[0] && strcmp(job, "-") != 0 && strcmp(job, l->job) != 0) return 1;
  for (int i = 0; i < XP_NCCL_RDV_BYTES; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
    id[i] = (unsigned char)v;
  }
  snprintf(leader, 64, "%s", lead);
  return 0;
}

int xp_nccl_rdv_wait(const char *path, const xp_nccl_launch *l, double not_before, double timeout_s,
                     unsigned char *id, char leader_run[64]) {
  double deadline = xp_now_seconds() + timeout_s;
  for (;;) {
    struct stat st;
    if (stat(path, &st) == 0) {
      double mtime = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
      int size = 0, got = 1;
      /* A unique job id identifies the file; else only one written since this job began. */
      if (l->job_unique || mtime >= not_before) got = read_rdv(path, l, id, leader_run, &size);
      if (got < 0) return xp_error(XP_EXIT_FAILED, "%s: not an xp rendezvous file", path);
      if (got == 0 && size != l->size)
        return xp_error(XP_EXIT_FAILED, "%s: rank 0 runs %d ranks, this rank was started as one of %d",
                        path, size, l->size);
      if (got == 0) return 0;
    }
    if (xp_interrupted()) return XP_EXIT_ABORTED;
    if (xp_now_seconds() > deadline)
      return xp_error(XP_EXIT_FAILED, "rank %d: rank 0 published no NCCL id at %s within %g s", l->rank,
                      path, timeout_s);
    sleep_ms(20);
  }
}

int xp_nccl_rdv_put_rank(const char *path, int rank, const cJSON *doc) {
  char *rp = rank_path(path, rank), *text = cJSON_PrintUnformatted(doc);
  int rc = write_atomically(rp, text);
  free(text);
  free(rp);
  return rc;
}

int xp_nccl_rdv_collect(const char *path, int size, double timeout_s, cJSON **docs) {
  double deadline = xp_now_seconds() + timeout_s;
  for (;;) {
    int missing = 0;
    for (int r = 1; r < size; r++) {
      if (docs[r]) continue;
      char *rp = rank_path(path, r);
      size_t len;
      char *text = xp_read_file(rp, &len);
      if (text) {
        docs[r] = cJSON_ParseWithLength(text, len);
        free(text);
        if (!docs[r]) {
          int rc = xp_error(XP_EXIT_FAILED, "%s: rank %d's results are not valid JSON", rp, r);
          free(rp);
          return rc;
        }
      } else
        missing++;
      free(rp);
    }
    if (!missing) return 0;
    if (xp_interrupted()) return XP_EXIT_ABORTED;
    if (xp_now_seconds() > deadline) {
      char list[256] = "";
      size_t used = 0;
      for (int r = 1; r < size && used < sizeof list; r++)
        if (!docs[r]) used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", used ? ", " : "", r);
      return xp_error(XP_EXIT_FAILED, "rank%s %s sent no results to %s within %g s", missing > 1 ? "s" : "",
                      list, path, timeout_s);
    }
    sleep_ms(20);
  }
}

void xp_nccl_rdv_cleanup(const char *path, int size) {
  for (int r = 1; r < size; r++) {
    char *rp = rank_path(path, r);
    unlink(rp);
    free(rp);
  }
  unlink(path);
}

/* ---- rank documents ---- */

static cJSON *gpu_doc(const xp_gpu_info *g) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "index", g->index);
  cJSON_AddStringToObject(o, "name", g->name);
  cJSON_AddStringToObject(o, "uuid", g->uuid);
  cJSON_AddStringToObject(o, "pci_bus_id", g->pci_bus_id);
  cJSON_AddStringToObject(o, "cc", g->cc);
  cJSON_AddNumberToObject(o, "sm_count", g->sm_count);
  cJSON_AddNumberToObject(o, "mem_bytes", (double)g->mem_bytes);
  return o;
}

static void gpu_from_doc(const cJSON *o, xp_gpu_info *g) {
  memset(g, 0, sizeof *g);
  g->clock_mhz = g->mem_clock_mhz = g->pcie_gen = g->pcie_width = -1;
  g->index = (int)xp_spec_int(o, "index", -1);
  snprintf(g->name, sizeof g->name, "%s", xp_spec_str(o, "name", ""));
  snprintf(g->uuid, sizeof g->uuid, "%s", xp_spec_str(o, "uuid", ""));
  snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%s", xp_spec_str(o, "pci_bus_id", ""));
  snprintf(g->cc, sizeof g->cc, "%s", xp_spec_str(o, "cc", ""));
  g->sm_count = (int)xp_spec_int(o, "sm_count", -1);
  g->mem_bytes = xp_spec_int(o, "mem_bytes", -1);
}

cJSON *xp_nccl_rank_doc(const xp_nccl_results *res, int rank, const char *error) {
  const xp_nccl_rank *rk = &res->ranks[rank];
  int iters = res->plan->iterations;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "format", RANK_FORMAT);
  cJSON_AddNumberToObject(d, "rank", rank);
  cJSON_AddNumberToObject(d, "iterations", iters);
  if (error) cJSON_AddStringToObject(d, "error", error);
  cJSON_AddNumberToObject(d, "device", rk->device);
  cJSON_AddStringToObject(d, "host", rk->host);
  cJSON_AddItemToObject(d, "gpu", gpu_doc(&rk->gpu));
  if (rk->info_log) cJSON_AddStringToObject(d, "info_log", rk->info_log);
  cJSON *cases = cJSON_AddArrayToObject(d, "cases");
  for (int i = 0; i < res->ncases; i++) {
    const xp_nccl_case *c = &res->cases[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "measured", c->measured);
    if (c->wrong >= 0) cJSON_AddNumberToObject(o, "wrong", (double)c->wrong);
    if (c->measured)
      cJSON_AddItemToObject(o, "burst_us", cJSON_CreateDoubleArray(c->burst_us + (size_t)rank * (size_t)iters, iters));
    cJSON_AddItemToArray(cases, o);
  }
  return d;
}

int xp_nccl_rank_merge(xp_nccl_results *res, const cJSON *doc) {
  const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
  int rank = (int)xp_spec_int(doc, "rank", -1), iters = res->plan->iterations;
  if (strcmp(xp_spec_str(doc, "format", ""), RANK_FORMAT) != 0 || rank < 1 || rank >= res->nranks)
    return xp_error(XP_EXIT_FAILED, "a gathered result is not one of this run's ranks");
  const char *err = xp_spec_str(doc, "error", NULL);
  if (err) return xp_error(XP_EXIT_FAILED, "rank %d failed: %s", rank, err);
  if (xp_spec_int(doc, "iterations", -1) != iters || cJSON_GetArraySize(cases) != res->ncases)
    return xp_error(XP_EXIT_FAILED, "rank %d ran a different plan (%d cases, %lld iterations)", rank,
                    cJSON_GetArraySize(cases), (long long)xp_spec_int(doc, "iterations", -1));
  xp_nccl_rank *rk = &res->ranks[rank];
  rk->present = 1;
  rk->device = (int)xp_spec_int(doc, "device", -1);
  snprintf(rk->host, sizeof rk->host, "%s", xp_spec_str(doc, "host", ""));
  gpu_from_doc(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), &rk->gpu);
  const char *log = xp_spec_str(doc, "info_log", NULL);
  free(rk->info_log);
  rk->info_log = log ? xp_strdup(log) : NULL;
  int i = 0;
  const cJSON *o;
  cJSON_ArrayForEach(o, cases) {
    xp_nccl_case *c = &res->cases[i++];
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "wrong");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "burst_us");
    if (cJSON_IsNumber(w)) c->wrong = (c->wrong < 0 ? 0 : c->wrong) + xp_saturate_int64(w->valuedouble);
    if (!xp_spec_bool(o, "measured", 0) || cJSON_GetArraySize(b) != iters) {
      c->measured = 0;
      continue;
    }
    int k = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, b) c->burst_us[(size_t)rank * (size_t)iters + (size_t)k++] = v->valuedouble;
  }
  return 0;
}
