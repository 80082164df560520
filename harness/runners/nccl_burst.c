/*
** Run kind nccl_burst: collectives back to back on the real NCCL, timed like nccl-tests, with
** what NCCL chose on this machine recorded next to the figures.
**
** Order of work: decide the ranks and devices, check the sizes against the rank count, set
** NCCL's environment (the spec's env table, NCCL_NVLS_ENABLE=0 unless the user chose, the INFO
** log and topology dump to temporary files) before NCCL reads it, measure, gather other ranks'
** results in per-process mode, then record everything in one go.
*/
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "kind.h"
#include "nccl_gather.h"
#include "nccl_measure.h"
#include "nccl_plan.h"
#include "nccl_record.h"
#include "stats.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "gpu.h"
#endif

#ifdef XP_HAVE_CUDA

typedef struct scratch {
  char dir[256];
  char init_log[300], timing_log[300], topo[300];
} scratch;

static int scratch_make(scratch *t) {
  const char *base = getenv("TMPDIR");
  snprintf(t->dir, sizeof t->dir, "%s/xp-nccl-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(t->dir)) return xp_error(XP_EXIT_ENV, "%s: cannot create a temporary directory", t->dir);
  snprintf(t->init_log, sizeof t->init_log, "%s/nccl-init.log", t->dir);
  snprintf(t->timing_log, sizeof t->timing_log, "%s/nccl-timing.log", t->dir);
  snprintf(t->topo, sizeof t->topo, "%s/topo.xml", t->dir);
  return 0;
}

static void scratch_remove(scratch *t) {
  unlink(t->init_log);
  unlink(t->timing_log);
  unlink(t->topo);
  rmdir(t->dir);
}

static void put_env(xp_nccl_results *res, const char *key, const char *value) {
  setenv(key, value, 1);
  xp_nccl_results_env(res, key, value);
}

/* NCCL reads its environment once, at its first real call: everything is set before that. */
static void apply_env(const xp_nccl_plan *p, xp_nccl_results *res, const scratch *t) {
  const cJSON *e;
  cJSON_ArrayForEach(e, p->env) {
    char v[XP_NCCL_ENV_MAX];
    if (xp_nccl_env_value(e, v, sizeof v) == 0) put_env(res, e->string, v);
  }
  /* NVLink multicast (NVLS) must stay off on these hosts unless someone chose otherwise. */
  if (!cJSON_GetObjectItemCaseSensitive(p->env, "NCCL_NVLS_ENABLE")) {
    const char *user = getenv("NCCL_NVLS_ENABLE");
    put_env(res, "NCCL_NVLS_ENABLE", user && *user ? user : "0");
  }
  put_env(res, "NCCL_DEBUG", "INFO");
  put_env(res, "NCCL_DEBUG_SUBSYS", "INIT,GRAPH,TUNING,ENV");
  put_env(res, "NCCL_DEBUG_FILE", t->init_log);
  put_env(res, "NCCL_TOPO_DUMP_FILE", t->topo);
}

static char *read_text(const char *path, size_t *len) {
  size_t l = 0;
  char *text = xp_read_file(path, &l);
  if (len) *len = text ? l : 0;
  return text;
}

/* The INFO log of this process: the part written while probing (with TUNING) and the rest. */
static char *collect_log(const scratch *t) {
  size_t a = 0, b = 0;
  char *first = read_text(t->init_log, &a), *second = read_text(t->timing_log, &b);
  if (!first && !second) return NULL;
  char *all = xp_xmalloc(a + b + 1);
  if (a) memcpy(all, first, a);
  if (b) memcpy(all + a, second, b);
  all[a + b] = 0;
  free(first);
  free(second);
  return all;
}

/* Whether NCCL went on logging per-call TUNING lines while xp was timing (it should not). */
static int tuning_kept(const scratch *t) {
  size_t len = 0;
  char *text = read_text(t->timing_log, &len);
  int kept = text && memmem(text, len, " Bytes -> Algo ", 15) != NULL;
  free(text);
  return kept;
}

/* Which GPUs this process drives and which NCCL ranks they are. */
static int decide_ranks(const xp_spec *s, const xp_nccl_plan *p, xp_nccl_launch *l, xp_nccl_local *loc) {
  int visible = xp_gpu_count();
  memset(loc, 0, sizeof *loc);
  if (p->rendezvous) {
    int rc = xp_nccl_launch_from_env(getenv, l);
    if (rc == 1)
      return xp_spec_error(s, "rendezvous", "is set, but no launcher variable says which rank this process "
                           "is (RANK and WORLD_SIZE, OMPI_COMM_WORLD_*, PMI_*, SLURM_*)");
    if (rc) return rc;
    int dev;
    if ((rc = xp_nccl_launch_device(s, p, l, visible, &dev)) != 0) return rc;
    loc->nlocal = 1;
    loc->device[0] = dev;
    loc->rank[0] = l->rank;
    loc->nranks = l->size;
    return 0;
  }
  int n = p->ngpus ? p->ngpus : visible, rc;
  if (n > XP_NCCL_MAX_LOCAL)
    return xp_error(XP_EXIT_ENV, "one process drives at most %d GPUs; use one process per GPU (rendezvous)",
                    XP_NCCL_MAX_LOCAL);
  if ((rc = xp_gpu_require(n)) != 0) return rc;
  for (int i = 0; i < n; i++) {
    int dev = p->ngpus ? p->gpus[i] : i;
    char path[32];
    snprintf(path, sizeof path, "gpus[%d]", i);
    if ((rc = xp_spec_check_device(s, path, dev, visible)) != 0) return rc;
    loc->device[i] = dev;
    loc->rank[i] = i;
  }
  loc->nlocal = n;
  loc->nranks = n;
  return 0;
}

static int check_fp8(const xp_nccl_plan *p) {
  int v = xp_nccl_library_version();
  for (int d = 0; d < p->ndtype; d++)
    if ((p->dtype[d] == XP_DT_FP8_E4M3 || p->dtype[d] == XP_DT_FP8_E5M2) && v < 22400)
      return xp_error(XP_EXIT_ENV, "%s needs NCCL 2.24 or later; this NCCL is %d.%d.%d",
                      xp_nccl_dtype_name(p->dtype[d]), v / 10000, v / 100 % 100, v % 100);
  return 0;
}

/* Rank 0 of a launcher job: wait for every other rank's document and merge it. */
static int gather(const xp_nccl_plan *p, const xp_nccl_launch *l, xp_nccl_results *res) {
  cJSON **docs = xp_xcalloc((size_t)l->size, sizeof *docs);
  int rc = xp_nccl_rdv_collect(p->rendezvous, l->size, p->timeout_s, docs);
  for (int r = 1; r < l->size && rc == 0; r++) rc = xp_nccl_rank_merge(res, docs[r]);
  for (int r = 1; r < l->size; r++) cJSON_Delete(docs[r]);
  free(docs);
  return rc;
}

/* A rank other than 0 hands its results to rank 0 and records only where they went. */
static int follow(xp_ctx *ctx, const xp_nccl_plan *p, const xp_nccl_launch *l, xp_nccl_results *res,
                  const char *leader, int rc) {
  cJSON *doc = xp_nccl_rank_doc(res, l->rank, rc == 0 ? NULL : rc == XP_EXIT_ABORTED ? "interrupted"
                                                                                   : xp_last_error());
  int prc = xp_nccl_rdv_put_rank(p->rendezvous, l->rank, doc);
  cJSON_Delete(doc);
  if (rc) return rc;
  if (prc) return prc;
  char role[256];
  snprintf(role, sizeof role, "rank %d of %d; results recorded by rank 0's run %s", l->rank, l->size,
           leader[0] ? leader : "(unknown)");
  return xp_run_meta(ctx->run, "nccl.role", role, "detected");
}

static void print_summary(FILE *out, const xp_nccl_results *res) {
  const xp_nccl_plan *p = res->plan;
  int n = p->iterations;
  double *burst = xp_xmalloc(sizeof *burst * (size_t)n * 2), *spread = burst + n;
  int partial = 0;
  fprintf(out, "%-14s %-9s %12s %-6s %-13s %12s %10s %10s %7s\n", "collective", "dtype", "bytes", "mode",
          "placement", "burst_us", "time_us", "busbw_GB/s", "#wrong");
  for (int i = 0; i < res->ncases; i++) {
    const xp_nccl_case *c = &res->cases[i];
    if (!c->measured) continue;
    xp_nccl_case_samples(res, c, burst, spread);
    xp_stats st;
    xp_stats_compute(burst, (size_t)n, &st);
    double per = st.median / p->burst;
    double bus = xp_nccl_algbw(c->bytes, per) * xp_nccl_busbw_factor(c->coll, res->nranks);
    char wrong[24] = "-";
    if (c->wrong >= 0)
      snprintf(wrong, sizeof wrong, "%lld%s", (long long)c->wrong, xp_nccl_case_partial(c) ? "*" : "");
    partial |= xp_nccl_case_partial(c);
    fprintf(out, "%-14s %-9s %12lld %-6s %-13s %12.2f %10.2f %10.2f %7s\n", xp_nccl_coll_name(c->coll),
            xp_nccl_dtype_name(c->dtype), (long long)c->bytes, xp_nccl_mode_name(c->mode),
            xp_nccl_place_name(c->place), st.median, per, bus, wrong);
  }
  if (partial)
    fputs("* checked partly: too few elements per call for every rank's fault to show (each such case's "
          "note says from which count they do)\n", out);
  free(burst);
}

static int first_wrong(const xp_nccl_results *res) {
  for (int i = 0; i < res->ncases; i++)
    if (res->cases[i].wrong > 0) {
      char name[160];
      xp_nccl_case_name(&res->cases[i], name, sizeof name);
      return xp_error(XP_EXIT_FAILED, "%s: %lld wrong elements (results differ from what the collective must "
                      "produce)", name, (long long)res->cases[i].wrong);
    }
  return 0;
}

static int run_plan(xp_ctx *ctx, const xp_nccl_plan *p) {
  const xp_spec *s = ctx->spec;
  xp_nccl_launch l;
  xp_nccl_local loc;
  int rc = decide_ranks(s, p, &l, &loc);
  if (rc == 0) rc = xp_nccl_plan_check_ranks(s, p, loc.nranks);
  if (rc == 0) rc = check_fp8(p);
  if (rc) return rc;
  xp_nccl_warn_declared_ranks(s, loc.nranks);
  scratch t;
  if ((rc = scratch_make(&t)) != 0) return rc;
  xp_nccl_results res;
  xp_nccl_results_init(&res, p, loc.nranks);
  res.per_process = p->rendezvous != NULL;
  if (res.per_process) snprintf(res.launcher, sizeof res.launcher, "%s", l.source);
  apply_env(p, &res, &t);
  loc.timing_log = t.timing_log;

  char leader[64] = "";
  int leads = !res.per_process || l.rank == 0;
  if (res.per_process) {
    /* Without a job id, only a rendezvous file written since shortly before this start counts. */
    double not_before = (double)time(NULL) - 60;
    if (l.rank == 0) {
      unlink(p->rendezvous); /* an earlier job's id must not reach the other ranks */
      snprintf(leader, sizeof leader, "%s", xp_run_uuid(ctx->run));
      rc = xp_nccl_new_id(loc.id);
      if (rc == 0) rc = xp_nccl_rdv_publish(p->rendezvous, &l, loc.id, leader);
    } else
      rc = xp_nccl_rdv_wait(p->rendezvous, &l, not_before, p->timeout_s, loc.id, leader);
    loc.have_id = 1;
  }
  if (rc == 0) rc = xp_nccl_measure(p, &loc, &res);
  if (tuning_kept(&t)) res.tuning_log = "on during timing too (NCCL kept printing TUNING lines after the switch)";
  res.ranks[loc.rank[0]].info_log = collect_log(&t);
  if (leads) res.topo_xml = read_text(t.topo, &res.topo_len);

  if (!leads) rc = follow(ctx, p, &l, &res, leader, rc);
  else {
    if (rc == 0 && res.per_process) rc = gather(p, &l, &res);
    if (res.per_process) xp_nccl_rdv_cleanup(p->rendezvous, l.size);
    /* Interrupted before gathering: rank 0's samples alone are not the burst's. */
    if (rc == XP_EXIT_ABORTED && res.per_process)
      for (int i = 0; i < res.ncases; i++) res.cases[i].measured = 0;
    if (rc == 0 || rc == XP_EXIT_ABORTED) {
      int wrc = xp_nccl_record(ctx->run, &res);
      if (wrc) rc = wrc;
    }
    if (rc == 0 && !ctx->quiet) print_summary(ctx->out, &res);
    if (rc == 0) rc = first_wrong(&res);
  }
  xp_nccl_results_free(&res);
  scratch_remove(&t);
  return rc;
}

static int execute(xp_ctx *ctx) {
  xp_nccl_plan p;
  int rc = xp_nccl_plan_load(ctx->spec, &p);
  if (rc) return rc;
  rc = run_plan(ctx, &p);
  xp_nccl_plan_free(&p);
  return rc;
}
#endif /* XP_HAVE_CUDA */

const xp_kind xp_kind_nccl_burst = {
    .name = "nccl_burst",
    .summary = "collectives back to back on NCCL (eager or one CUDA graph), timed per burst and per collective",
    .fields = xp_nccl_burst_fields,
    .needs_gpu = 1,
    .check = xp_nccl_burst_check,
    .plan = xp_nccl_burst_plan,
    .execute = XP_GPU_EXECUTE(execute),
    .notes = "ranks: with rendezvous, the launcher's world (mpirun, srun: a process a rank); else one\n"
             "  per device of gpus, else one per visible GPU. The declared tp and gpus_declared label the\n"
             "  run and do not pick devices (a run says so when they differ from its ranks). Sizes must\n"
             "  be whole elements of every dtype, and split over the ranks where the collective divides them.\n"
             "  verify: a case with too few elements per call for every rank's fault to show says 'results\n"
             "  checked partly' and the count from which they do (value verify_min_count; #wrong marked *).\n",
};
