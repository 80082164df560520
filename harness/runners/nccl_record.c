/*
** Recording nccl_burst results. A case is one (collective, dtype, size, mode, placement);
** its metrics keep every sample: burst_us (a burst's duration, averaged over ranks like
** nccl-tests' -a 1), time_us (burst_us / burst: nccl-tests' per-collective time) and
** rank_spread_us (slowest minus fastest rank in the same burst). Bandwidths use nccl-tests'
** formulas on the median time. NCCL's own account of the run (its log and topology) is kept
** as artifacts and summarised as metadata, including the interconnect it really used.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nccl_pattern.h"
#include "nccl_record.h"
#include "stats.h"
#include "xp.h"

void xp_nccl_results_init(xp_nccl_results *res, const xp_nccl_plan *p, int nranks) {
  memset(res, 0, sizeof *res);
  res->plan = p;
  res->nranks = nranks;
  res->ncases = p->ncoll * p->ndtype * p->nsizes * p->nmode * p->nplace;
  res->cases = xp_xcalloc((size_t)(res->ncases ? res->ncases : 1), sizeof *res->cases);
  res->ranks = xp_xcalloc((size_t)(nranks > 0 ? nranks : 1), sizeof *res->ranks);
  int k = 0;
  for (int c = 0; c < p->ncoll; c++)
    for (int d = 0; d < p->ndtype; d++)
      for (int i = 0; i < p->nsizes; i++)
        for (int m = 0; m < p->nmode; m++)
          for (int q = 0; q < p->nplace; q++) {
            xp_nccl_case *x = &res->cases[k++];
            x->coll = p->coll[c];
            x->dtype = p->dtype[d];
            x->bytes = p->sizes[i];
            x->mode = p->mode[m];
            x->place = p->place[q];
            x->wrong = -1;
            xp_nccl_counts_for(x->coll, x->dtype, x->bytes, nranks, &x->counts, NULL);
            x->check_min = xp_nccl_check_min_count((int)x->dtype, (int)x->coll, nranks, p->root);
            /* ncclSend/ncclRecv cannot read and write one buffer safely at once. */
            if (x->coll == XP_COLL_ALLTOALL && x->place == XP_PLACE_IN)
              x->skip = "alltoall has no in-place form";
            x->burst_us = xp_xcalloc((size_t)nranks * (size_t)p->iterations, sizeof *x->burst_us);
          }
}

void xp_nccl_results_free(xp_nccl_results *res) {
  for (int i = 0; i < res->ncases; i++) free(res->cases[i].burst_us);
  for (int r = 0; r < res->nranks; r++) free(res->ranks[r].info_log);
  free(res->cases);
  free(res->ranks);
  free(res->topo_xml);
  memset(res, 0, sizeof *res);
}

void xp_nccl_results_env(xp_nccl_results *res, const char *key, const char *value) {
  for (int i = 0; i < res->nenv; i++)
    if (strcmp(res->env_key[i], key) == 0) {
      snprintf(res->env_val[i], sizeof res->env_val[i], "%s", value);
      return;
    }
  if (res->nenv == 32) return;
  snprintf(res->env_key[res->nenv], sizeof res->env_key[0], "%s", key);
  snprintf(res->env_val[res->nenv], sizeof res->env_val[0], "%s", value);
  res->nenv++;
}

int xp_nccl_case_partial(const xp_nccl_case *c) {
  return c->wrong >= 0 && c->counts.count < c->check_min;
}

void xp_nccl_case_name(const xp_nccl_case *c, char *buf, size_t n) {
  snprintf(buf, n, "%s/%s/%lld/%s/%s", xp_nccl_coll_name(c->coll), xp_nccl_dtype_name(c->dtype),
           (long long)c->bytes, xp_nccl_mode_name(c->mode), xp_nccl_place_name(c->place));
}

void xp_nccl_case_samples(const xp_nccl_results *res, const xp_nccl_case *c, double *burst_mean,
                          double *spread) {
  int iters = res->plan->iterations;
  for (int i = 0; i < iters; i++) {
    double sum = 0, lo = 0, hi = 0;
    for (int r = 0; r < res->nranks; r++) {
      double v = c->burst_us[(size_t)r * (size_t)iters + (size_t)i];
      sum += v;
      if (r == 0 || v < lo) lo = v;
      if (r == 0 || v > hi) hi = v;
    }
    burst_mean[i] = res->nranks ? sum / res->nranks : 0;
    spread[i] = hi - lo;
  }
}

cJSON *xp_nccl_case_params(const char *coll, const char *dtype, int64_t bytes, int64_t count,
                           const char *mode, const char *placement, int64_t burst, int nranks) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "collective", coll);
  cJSON_AddStringToObject(p, "dtype", dtype);
  cJSON_AddNumberToObject(p, "bytes", (double)bytes);
  if (count >= 0) cJSON_AddNumberToObject(p, "count", (double)count);
  cJSON_AddStringToObject(p, "mode", mode);
  cJSON_AddStringToObject(p, "placement", placement);
  cJSON_AddNumberToObject(p, "burst", (double)burst);
  if (nranks > 0) cJSON_AddNumberToObject(p, "ranks", nranks);
  return p;
}

int xp_nccl_record_bw(xp_run *r, int64_t case_id, enum xp_nccl_coll c, int64_t bytes, int nranks,
                      double time_us) {
  if (!(time_us > 0)) return 0;
  double alg = xp_nccl_algbw(bytes, time_us);
  int rc = xp_run_value(r, case_id, "algbw_GBps", "GB/s", alg);
  if (rc == 0) rc = xp_run_value(r, case_id, "busbw_GBps", "GB/s", alg * xp_nccl_busbw_factor(c, nranks));
  return rc;
}

/* ---- NCCL's facts ---- */

static int meta_f(xp_run *r, const char *source, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int meta_f(xp_run *r, const char *source, const char *key, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return xp_run_meta(r, key, buf, source);
}

/* Connections in (src, dst) order, first seen first within a pair. */
static const xp_nccl_conn *by_pair_base;
static int by_pair(const void *x, const void *y) {
  const xp_nccl_conn *a = &by_pair_base[*(const int *)x], *b = &by_pair_base[*(const int *)y];
  if (a->src != b->src) return a->src < b->src ? -1 : 1;
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  return xp_nccl_transport_cmp(a->transport, b->transport); /* as nccl.transports lists them */
}

/* Every transport NCCL used between a pair of ranks, on one line per direction. Sorted once,
** not searched per pair: an all-to-all of 512 ranks has 260,000 of them. */
static int record_connections(xp_run *r, const xp_nccl_info *info, const char *source) {
  int rc = 0, *order = xp_xmalloc(sizeof *order * (size_t)(info->nconn ? info->nconn : 1));
  for (int i = 0; i < info->nconn; i++) order[i] = i;
  by_pair_base = info->conn;
  qsort(order, (size_t)info->nconn, sizeof *order, by_pair);
  for (int i = 0; i < info->nconn && rc == 0;) {
    const xp_nccl_conn *c = &info->conn[order[i]];
    char line[512] = "", key[64];
    size_t used = 0;
    int j = i;
    for (; j < info->nconn && info->conn[order[j]].src == c->src && info->conn[order[j]].dst == c->dst; j++) {
      const xp_nccl_conn *d = &info->conn[order[j]];
      if (used >= sizeof line) continue;
      int w = snprintf(line + used, sizeof line - used, "%s%s x%d", used ? "; " : "", d->transport, d->channels);
      if (w > 0) used += (size_t)w;
    }
    snprintf(key, sizeof key, "nccl.transport.%d-%d", c->src, c->dst);
    rc = xp_run_meta(r, key, line, source);
    i = j;
  }
  free(order);
  return rc;
}

/* The NICs of host `host` (a <cpu>'s host_hash; NULL: every host's), "mlx5_0 400000 Mb/s, ...". */
static void host_nics(const xp_topo *t, const char *host, char *out, size_t n) {
  size_t used = 0;
  out[0] = 0;
  for (int i = 0; i < t->nnic && used < n; i++) {
    const char *its = t->nic_cpu[i] >= 0 ? t->cpu_host[t->nic_cpu[i]] : "";
    if (host && strcmp(its, host) != 0) continue;
    int w = snprintf(out + used, n - used, "%s%s", used ? ", " : "", t->nic[i]);
    if (w > 0) used += (size_t)w;
  }
}

/* A dump NCCL fused across an MNNVL domain lists each host's NICs under its own <cpu>, by the
** same names on every tray: said once where every host lists the same, else each host's after
** its host_hash (the only name the dump gives a host), where a flat list repeated "mlx5_0" with
** nothing to tell whose. */
static void describe_nics(const xp_topo *t, char *out, size_t n) {
  char first[256], its[256];
  if (t->nnic == 0) {
    snprintf(out, n, "none");
    return;
  }
  if (t->nhosts <= 1) {
    host_nics(t, NULL, out, n);
    return;
  }
  int same = 1;
  host_nics(t, t->cpu_host[0], first, sizeof first);
  for (int c = 1; c < t->ncpu && same; c++) {
    host_nics(t, t->cpu_host[c], its, sizeof its);
    same = strcmp(its, first) == 0;
  }
  if (same) {
    snprintf(out, n, "%s on each of its %d hosts", first, t->nhosts);
    return;
  }
  size_t used = 0;
  out[0] = 0;
  for (int c = 0; c < t->ncpu && used < n; c++) {
    int seen = 0;
    for (int e = 0; e < c && !seen; e++) seen = strcmp(t->cpu_host[e], t->cpu_host[c]) == 0;
    if (seen) continue;
    host_nics(t, t->cpu_host[c], its, sizeof its);
    int w = snprintf(out + used, n - used, "%shost %s: %s", used ? "; " : "", t->cpu_host[c], its[0] ? its : "none");
    if (w > 0) used += (size_t)w;
  }
}

static int record_topology(xp_run *r, const xp_topo *t, const char *source) {
  int rc = 0, switches = 0;
  for (int i = 0; i < t->npci; i++) switches += strcmp(t->pci[i].cls, "0x060400") == 0;
  char nics[384];
  describe_nics(t, nics, sizeof nics);
  /* the dump's <cpu> elements are its NUMA nodes (one per numaid, a socket's two where it is
  ** split), not CPUs: a 2-socket host of 112 cores reads "2 NUMA nodes"; a VM's one <cpu
  ** numaid="-1"> (its guest sees no NUMA) holds every GPU whatever the host's nodes are */
  char numa[64], hosts[48] = "";
  if (t->nnuma < 0) snprintf(numa, sizeof numa, "NUMA nodes unknown (numaid -1, as in a VM)");
  else snprintf(numa, sizeof numa, "%d NUMA node%s", t->ncpu, t->ncpu == 1 ? "" : "s");
  /* a dump NCCL fused across an MNNVL domain holds each host's <cpu> elements */
  if (t->nhosts > 1) snprintf(hosts, sizeof hosts, " on %d hosts (one MNNVL domain)", t->nhosts);
  /* MLOPart: a GPU listed once per partition (a rank each) is one GPU, its partitions said */
  const int gpus = xp_topo_physical_gpus(t);
  char parts[64] = "";
  if (gpus < t->ngpu) snprintf(parts, sizeof parts, " (%d ranks' devices, MLOPart partitions)", t->ngpu);
  rc = meta_f(r, source, "nccl.topology", "%d GPU%s%s%s, %s, %d PCIe switch%s, NICs: %s", gpus, gpus == 1 ? "" : "s",
              parts, hosts, numa, switches, switches == 1 ? "" : "es", nics);
  /* GPUs on two NUMA nodes (two sockets, or one split) are SYS apart: said where the dump says it */
  if (rc == 0 && t->nnuma > 0) rc = xp_run_meta_int(r, "nccl.numa_nodes", t->nnuma, source);
  for (int a = 0; a < t->ngpu && rc == 0; a++)
    for (int b = a + 1; b < t->ngpu && rc == 0; b++) {
      xp_topo_path path;
      int ra = t->gpu[a].rank, rb = t->gpu[b].rank;
      if (xp_topo_pair(t, ra, rb, &path) != 0) continue;
      char key[64];
      snprintf(key, sizeof key, "nccl.path.%d-%d", ra < rb ? ra : rb, ra < rb ? rb : ra);
      rc = meta_f(r, source, key, "%s: %s", path.kind, path.detail);
    }
  return rc;
}

int xp_nccl_record_info(xp_run *r, const xp_nccl_info *info, const xp_topo *topo, const char *source) {
  int rc = 0;
  char buf[512];
  if (info->version[0]) rc = xp_run_meta(r, "nccl.version_info", info->version, source);
  if (rc == 0 && info->nnodes > 0) rc = xp_run_meta_int(r, "nccl.nodes", info->nnodes, source);
  if (rc == 0 && info->coll_channels >= 0) { /* what the log's NCCL version printed: older ones lack nvls */
    char nvls[32] = "";
    if (info->nvls_channels >= 0) snprintf(nvls, sizeof nvls, "%d nvls, ", info->nvls_channels);
    rc = meta_f(r, source, "nccl.channels", "%d coll, %s%d p2p (%d per peer)", info->coll_channels, nvls,
                info->p2p_channels, info->p2p_per_peer);
  }
  if (rc == 0 && info->ring_channels > 0)
    rc = xp_run_meta_int(r, "nccl.ring_channels", info->ring_channels, source);
  if (rc == 0 && info->rings[0]) rc = xp_run_meta(r, "nccl.rings", info->rings, source);
  if (rc == 0 && info->net[0]) rc = xp_run_meta(r, "nccl.net", info->net, source);
  if (rc == 0 && info->nconn) {
    xp_nccl_info_transports(info, buf, sizeof buf);
    rc = xp_run_meta(r, "nccl.transports", buf, source);
    if (rc == 0) rc = record_connections(r, info, source);
  }
  for (int i = 0; i < info->nenv && rc == 0; i++) {
    char key[96];
    snprintf(key, sizeof key, "nccl.env_read.%s", info->env[i].key);
    rc = xp_run_meta(r, key, info->env[i].value, source);
  }
  if (rc == 0 && info->warnings)
    rc = meta_f(r, source, "nccl.warnings", "%d; first: %s", info->warnings, info->first_warning);
  if (rc == 0 && topo) rc = record_topology(r, topo, source);
  if (rc) return rc;
  const char *ic = xp_nccl_interconnect(info, topo, buf, sizeof buf);
  if (ic) rc = xp_run_meta(r, "interconnect", ic, source);
  if (rc == 0 && buf[0]) rc = xp_run_meta(r, "nccl.interconnect_basis", buf, source);
  return rc;
}

/* ---- cases ---- */

static double median_of(const double *v, int n) {
  xp_stats s;
  xp_stats_compute(v, (size_t)n, &s);
  return s.median;
}

static int record_case(xp_run *r, const xp_nccl_results *res, const xp_nccl_case *c,
                       const xp_nccl_info *info) {
  const xp_nccl_plan *p = res->plan;
  char name[160], note[160] = "";
  xp_nccl_case_name(c, name, sizeof name);
  cJSON *params = xp_nccl_case_params(xp_nccl_coll_name(c->coll), xp_nccl_dtype_name(c->dtype), c->bytes,
                                      (int64_t)c->counts.count, xp_nccl_mode_name(c->mode),
                                      xp_nccl_place_name(c->place), p->burst, res->nranks);
  if (c->coll == XP_COLL_BROADCAST) cJSON_AddNumberToObject(params, "root", p->root);
  int64_t nccl_bytes = (int64_t)(c->counts.count * xp_nccl_dtype_size(c->dtype));
  const xp_nccl_tuning *t = xp_nccl_info_tuning(info, xp_nccl_coll_func(c->coll), nccl_bytes);
  if (t) {
    cJSON_AddStringToObject(params, "algo", t->algo);
    cJSON_AddStringToObject(params, "proto", t->proto);
    /* in int64: a damaged line's {0..2147483647} is 2^31 channels, past int */
    if (t->ch_lo >= 0 && t->ch_hi >= t->ch_lo)
      cJSON_AddNumberToObject(params, "channels", (double)((int64_t)t->ch_hi - t->ch_lo + 1));
  }
  const char *status = "ok";
  if (c->skip) {
    status = "skipped";
    snprintf(note, sizeof note, "%s", c->skip);
  } else if (c->wrong > 0) {
    status = "failed";
    snprintf(note, sizeof note, "%lld wrong elements on the first and last iterations", (long long)c->wrong);
  } else if (c->wrong < 0) {
    snprintf(note, sizeof note, "results not verified");
  } else if (xp_nccl_case_partial(c)) {
    snprintf(note, sizeof note, "results checked partly: %zu element%s per call cannot show every rank's "
             "fault (all ranks' from %llu)", c->counts.count, c->counts.count == 1 ? "" : "s",
             (unsigned long long)c->check_min);
  }
  int64_t id = xp_run_case(r, name, params, status, note[0] ? note : NULL);
  cJSON_Delete(params);
  if (id < 0) return XP_EXIT_DB;
  if (c->skip) return 0;
  /* A case whose results were wrong keeps no timing: its bursts were run all the same (every
  ** rank must run the same collectives, and a rank that stopped alone would hang the others),
  ** but a time of a wrong result is not a measurement. */
  if (c->wrong > 0) return xp_run_value(r, id, "wrong", "count", (double)c->wrong);

  int n = p->iterations, rc;
  double *burst = xp_xmalloc(sizeof *burst * (size_t)n * 3), *spread = burst + n, *per = burst + 2 * n;
  xp_nccl_case_samples(res, c, burst, spread);
  for (int i = 0; i < n; i++) per[i] = burst[i] / p->burst;
  rc = xp_run_metric(r, id, "burst_us", "us", burst, (size_t)n);
  if (rc == 0) rc = xp_run_metric(r, id, "time_us", "us", per, (size_t)n);
  if (rc == 0 && res->nranks > 1) rc = xp_run_metric(r, id, "rank_spread_us", "us", spread, (size_t)n);
  if (rc == 0) rc = xp_nccl_record_bw(r, id, c->coll, c->bytes, res->nranks, median_of(per, n));
  if (rc == 0 && c->wrong >= 0) rc = xp_run_value(r, id, "wrong", "count", (double)c->wrong);
  /* beside a #wrong of 0 that could not have counted some ranks' faults, the count that would */
  if (rc == 0 && xp_nccl_case_partial(c))
    rc = xp_run_value(r, id, "verify_min_count", "count", (double)c->check_min);
  for (int k = 0; k < res->nranks && rc == 0; k++) {
    char metric[48];
    snprintf(metric, sizeof metric, "burst_us.rank%d", k);
    rc = xp_run_value(r, id, metric, "us", median_of(c->burst_us + (size_t)k * (size_t)n, n));
  }
  free(burst);
  return rc;
}

/* All ranks' logs in one artifact, each under a header line saying whose it is. */
static char *joined_logs(const xp_nccl_results *res, size_t *len) {
  size_t cap = 1, used = 0;
  for (int k = 0; k < res->nranks; k++)
    if (res->ranks[k].info_log) cap += strlen(res->ranks[k].info_log) + 256;
  char *out = xp_xmalloc(cap);
  out[0] = 0;
  for (int k = 0; k < res->nranks; k++) {
    const xp_nccl_rank *rk = &res->ranks[k];
    if (!rk->info_log) continue;
    if (res->per_process)
      used += (size_t)snprintf(out + used, cap - used, "# xp: rank %d, host %s, device %d\n", k, rk->host,
                               rk->device);
    size_t l = strlen(rk->info_log);
    memcpy(out + used, rk->info_log, l);
    used += l;
    out[used] = 0;
  }
  *len = used;
  return out;
}

static int record_facts(xp_run *r, const xp_nccl_results *res) {
  const xp_nccl_plan *p = res->plan;
  int rc = xp_run_meta(r, "nccl.process_model",
                       res->per_process ? "one process per GPU" : "one process driving every GPU", "detected");
  if (rc == 0 && res->per_process) rc = xp_run_meta(r, "nccl.launcher", res->launcher, "detected");
  if (rc == 0) rc = xp_run_meta_int(r, "gpu_count", res->nranks, "detected");
  if (rc == 0 && p->ndtype == 1) rc = xp_run_meta(r, "dtype", xp_nccl_dtype_name(p->dtype[0]), "detected");
  if (rc == 0 && res->config[0]) rc = xp_run_meta(r, "nccl.config", res->config, "detected");
  if (rc == 0 && res->tuning_log) rc = xp_run_meta(r, "nccl.tuning_log", res->tuning_log, "detected");
  if (rc == 0) rc = xp_run_meta(r, "nccl.alloc", p->alloc_nccl ? "ncclMemAlloc" : "cudaMalloc", "detected");
  for (int i = 0; i < res->nenv && rc == 0; i++) {
    char key[96];
    snprintf(key, sizeof key, "env.%s", res->env_key[i]);
    rc = xp_run_meta(r, key, res->env_val[i], "env");
  }
  for (int k = 0; k < res->nranks && rc == 0; k++) {
    const xp_nccl_rank *rk = &res->ranks[k];
    if (!rk->present) continue;
    char key[48];
    snprintf(key, sizeof key, "nccl.rank.%d", k);
    rc = meta_f(r, "detected", key, "%s device %d %s %s", rk->host, rk->device, rk->gpu.pci_bus_id,
                rk->gpu.name);
  }
  return rc;
}

int xp_nccl_record(xp_run *r, const xp_nccl_results *res) {
  int rc = record_facts(r, res);
  if (rc) return rc;
  xp_nccl_info info;
  xp_topo topo;
  int have_topo = 0;
  xp_nccl_info_init(&info);
  for (int k = 0; k < res->nranks; k++)
    if (res->ranks[k].info_log) xp_nccl_info_parse(&info, res->ranks[k].info_log, strlen(res->ranks[k].info_log));
  /* The arrival check's communicator is set up (and destroyed) before the one that measures: NCCL
  ** before 2.22 prints every connection of both at their set-up, and pooled, each pair's channels
  ** counted twice. The measuring one is the last this process (rank 0's) set up. */
  char comms[512];
  const int left = xp_nccl_info_one_comm(&info, res->nranks, (int)getpid(), comms, sizeof comms);
  if (left) xp_warn("NCCL's log: %d connection%s of no one communicator left out of nccl.transports", left,
                    left == 1 ? "" : "s");
  if (comms[0]) rc = xp_run_meta(r, "nccl.communicators", comms, "detected");
  if (res->topo_xml) {
    char err[128];
    have_topo = xp_topo_parse(res->topo_xml, res->topo_len, &topo, err, sizeof err) == 0;
    if (!have_topo) xp_warn("NCCL's topology dump could not be read (%s); kept as an artifact only", err);
  }
  if (rc == 0) rc = xp_nccl_record_info(r, &info, have_topo ? &topo : NULL, "detected");
  size_t len = 0;
  char *log = joined_logs(res, &len);
  if (rc == 0 && len) rc = xp_run_artifact(r, "nccl_info.log", "text/plain", log, len);
  free(log);
  if (rc == 0 && res->topo_xml) rc = xp_run_artifact(r, "nccl_topo.xml", "application/xml", res->topo_xml, res->topo_len);
  for (int i = 0; i < res->ncases && rc == 0; i++)
    if (res->cases[i].measured || res->cases[i].skip) rc = record_case(r, res, &res->cases[i], &info);
  xp_nccl_info_free(&info);
  if (have_topo) xp_topo_free(&topo);
  return rc;
}
