/*
** The timed part of nccl_burst. How a sample is taken, per case:
**   1. check: fill inputs with the verification pattern, run one collective in the case's mode
**      (eager call, or a one-collective CUDA graph), compare outputs on the GPU (#wrong);
**   2. `warmup` bursts, untimed;
**   3. `iterations` bursts back to back with a CUDA event on every GPU's stream at each burst
**      boundary (no host synchronisation in between, as nccl-tests enqueues its iterations);
**      a burst is `burst` collectives, each one NCCL group across the local GPUs, or in graph
**      mode one replay of a graph holding the whole burst;
**   4. check again: out-of-place, the output the last timed burst left (inputs are untouched);
**      in-place, refill and run one collective, as nccl-tests does.
**
** Never hanging: a peer that does not arrive is found by an arrival check, a non-blocking
** communicator (config.blocking = 0) whose initialisation is polled with ncclCommGetAsyncError
** against timeout_s and aborted, so the run fails with NCCL's own words. The communicators that
** measure are blocking ones, as nccl-tests uses: with NCCL 2.2x a non-blocking communicator
** hands every ncclGroupEnd to a new thread, which would be timed too. Streams are polled against
** the deadline, and a watchdog thread ends the process if NCCL itself stays stuck past it.
*/
#ifdef XP_HAVE_CUDA
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gpu.h"
#include "nccl/nccl_check.h"
#include "nccl_measure.h"
#include "xp.h"

typedef struct rank_ctx {
  int dev, rank;
  ncclComm_t comm;
  cudaStream_t stream;
  char *send, *recv;
  cudaEvent_t *ev;              /* iterations + 1 burst boundaries */
  cudaGraphExec_t exec;         /* the captured burst of the current case */
  unsigned long long *d_wrong;
} rank_ctx;

typedef struct session {
  const xp_nccl_plan *p;
  int n, nranks;
  rank_ctx *rk;
  size_t buf_bytes;
} session;

int xp_nccl_library_version(void) {
  int v = 0;
  return ncclGetVersion(&v) == ncclSuccess ? v : 0;
}

int xp_nccl_new_id(unsigned char id[XP_NCCL_RDV_BYTES]) {
  for (int i = 0; i < XP_NCCL_RDV_BYTES / XP_NCCL_ID_BYTES; i++) {
    ncclUniqueId u;
    XP_NCCL(ncclGetUniqueId(&u));
    memcpy(id + i * XP_NCCL_ID_BYTES, u.internal, XP_NCCL_ID_BYTES);
  }
  return 0;
fail:
  return XP_EXIT_FAILED;
}

/* ---- watchdog: the last resort when NCCL blocks past the deadline ---- */

typedef struct watchdog {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int running, stop, armed;
  double deadline, timeout;
  char what[192];
} watchdog;

/* The main thread is inside NCCL and does not come back: say what was stuck and end the process.
** The run stays 'running' in the database, which xp runs shows as incomplete: nothing is
** recorded from a process in an unknown state. */
static void *watch(void *arg) {
  watchdog *w = arg;
  double interrupted_at = 0;
  pthread_mutex_lock(&w->mu);
  while (!w->stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000L;
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    pthread_cond_timedwait(&w->cv, &w->mu, &ts);
    if (w->stop || !w->armed) { interrupted_at = 0; continue; }
    double now = xp_now_seconds();
    if (xp_interrupted() && interrupted_at == 0) interrupted_at = now;
    int timed_out = now > w->deadline, stuck = interrupted_at > 0 && now - interrupted_at > 5;
    if (timed_out || stuck) {
      fprintf(stderr, "xp: %s: NCCL did not return within %g s%s; ending the process (the run stays incomplete)\n",
              w->what, timed_out ? w->timeout : 5.0, timed_out ? " (timeout_s)" : " after the interrupt");
      fflush(stdout);
      _exit(timed_out ? XP_EXIT_FAILED : XP_EXIT_ABORTED);
    }
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

static void watch_arm(watchdog *w, const char *what) {
  if (!w->running) return;
  pthread_mutex_lock(&w->mu);
  snprintf(w->what, sizeof w->what, "%s", what);
  w->deadline = xp_now_seconds() + w->timeout;
  w->armed = 1;
  pthread_mutex_unlock(&w->mu);
}

static void watch_disarm(watchdog *w) {
  if (!w->running) return;
  pthread_mutex_lock(&w->mu);
  w->armed = 0;
  pthread_mutex_unlock(&w->mu);
}

static void watch_start(watchdog *w, double timeout) {
  memset(w, 0, sizeof *w);
  w->timeout = timeout;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->running = pthread_create(&w->thread, NULL, watch, w) == 0;
}

static void watch_stop(watchdog *w) {
  if (w->running) {
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
  }
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
}

static int nccl_dtype(enum xp_nccl_dtype d, ncclDataType_t *out) {
  switch (d) {
  case XP_DT_BF16: *out = ncclBfloat16; return 0;
  case XP_DT_FP16: *out = ncclFloat16; return 0;
  case XP_DT_FP32: *out = ncclFloat32; return 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
  case XP_DT_FP8_E4M3: *out = ncclFloat8e4m3; return 0;
  case XP_DT_FP8_E5M2: *out = ncclFloat8e5m2; return 0;
#endif
  default:
    return xp_error(XP_EXIT_ENV, "%s needs NCCL 2.24 or later (xp was built against NCCL %d.%d.%d)",
                    xp_nccl_dtype_name(d), NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
  }
}

static void abort_all(session *S) {
  for (int g = 0; g < S->n; g++)
    if (S->rk[g].comm) {
      ncclCommAbort(S->rk[g].comm);
      S->rk[g].comm = NULL;
    }
}

static int nccl_failed(session *S, const char *what, ncclResult_t r, ncclComm_t comm) {
  const char *last = ncclGetLastError(comm);
  int rc = xp_error(XP_EXIT_FAILED, "%s: NCCL error: %s%s%s", what, ncclGetErrorString(r),
                    last && *last ? ": " : "", last ? last : "");
  abort_all(S);
  return rc;
}

static int timed_out(session *S, const char *what) {
  const char *last = S->n ? ncclGetLastError(S->rk[0].comm) : "";
  int rc = xp_error(XP_EXIT_FAILED, "%s did not finish within %g s (timeout_s): is every rank running?%s%s",
                    what, S->p->timeout_s, last && *last ? " NCCL: " : "", last ? last : "");
  abort_all(S);
  return rc;
}

/* Until every communicator has finished its asynchronous work (init, a group launch). */
static int wait_comms(session *S, const char *what) {
  double deadline = xp_now_seconds() + S->p->timeout_s;
  for (;;) {
    int pending = 0;
    for (int g = 0; g < S->n; g++) {
      ncclResult_t a = ncclSuccess;
      ncclResult_t r = ncclCommGetAsyncError(S->rk[g].comm, &a);
      if (r != ncclSuccess) return nccl_failed(S, what, r, S->rk[g].comm);
      if (a == ncclInProgress) pending++;
      else if (a != ncclSuccess) return nccl_failed(S, what, a, S->rk[g].comm);
    }
    if (!pending) return 0;
    if (xp_interrupted()) { abort_all(S); return XP_EXIT_ABORTED; }
    if (xp_now_seconds() > deadline) return timed_out(S, what);
    sched_yield();
  }
}

/* Until every stream has drained, watching for NCCL errors and the deadline meanwhile. */
static int wait_streams(session *S, const char *what) {
  double deadline = xp_now_seconds() + S->p->timeout_s;
  int done[XP_NCCL_MAX_LOCAL] = {0}, left = S->n;
  while (left) {
    for (int g = 0; g < S->n; g++) {
      if (done[g]) continue;
      cudaError_t e = cudaStreamQuery(S->rk[g].stream);
      if (e == cudaSuccess) { done[g] = 1; left--; continue; }
      if (e != cudaErrorNotReady) {
        abort_all(S);
        return xp_error(XP_EXIT_FAILED, "%s: CUDA error %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
      }
      ncclResult_t a = ncclSuccess;
      ncclResult_t r = ncclCommGetAsyncError(S->rk[g].comm, &a);
      if (r != ncclSuccess) return nccl_failed(S, what, r, S->rk[g].comm);
      if (a != ncclSuccess && a != ncclInProgress) return nccl_failed(S, what, a, S->rk[g].comm);
    }
    if (!left) break;
    if (xp_interrupted()) { abort_all(S); return XP_EXIT_ABORTED; }
    if (xp_now_seconds() > deadline) return timed_out(S, what);
    sched_yield();
  }
  return 0;
}

/* ---- communicators and buffers ---- */

static void set_config(ncclConfig_t *cfg, int blocking) {
  *cfg = (ncclConfig_t)NCCL_CONFIG_INITIALIZER;
  cfg->blocking = blocking;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  cfg->nvlinkCentricSched = 1; /* as nccl-tests sets it with NCCL 2.28, so figures compare */
#endif
}

/* One communicator per local GPU, initialised in one group (as nccl-tests' initComms). */
static int init_group(session *S, const unsigned char *id_bytes, int blocking, const char *what) {
  ncclUniqueId id;
  ncclConfig_t cfg;
  memcpy(id.internal, id_bytes, XP_NCCL_ID_BYTES);
  set_config(&cfg, blocking);
  XP_NCCL(ncclGroupStart());
  for (int g = 0; g < S->n; g++) {
    cudaError_t e = cudaSetDevice(S->rk[g].dev);
    if (e != cudaSuccess) {
      ncclGroupEnd(); /* closed before the abort, as after a failed init below: not left open */
      xp_error(XP_EXIT_FAILED, "cudaSetDevice(%d): CUDA error %s: %s", S->rk[g].dev, cudaGetErrorName(e),
               cudaGetErrorString(e));
      goto fail;
    }
    ncclResult_t r = ncclCommInitRankConfig(&S->rk[g].comm, S->nranks, id, S->rk[g].rank, &cfg);
    if (r != ncclSuccess && r != ncclInProgress) {
      ncclGroupEnd();
      return nccl_failed(S, what, r, S->rk[g].comm);
    }
  }
  ncclResult_t r = ncclGroupEnd();
  if (r != ncclSuccess && r != ncclInProgress) return nccl_failed(S, what, r, NULL);
  return wait_comms(S, what);
fail:
  abort_all(S);
  return XP_EXIT_FAILED;
}

/* Finalize flushes what is still in flight; a failure here is NCCL failing, and says so. */
static int destroy_comms(session *S) {
  for (int g = 0; g < S->n; g++) {
    ncclResult_t r = ncclCommFinalize(S->rk[g].comm);
    if (r != ncclSuccess && r != ncclInProgress) return nccl_failed(S, "ncclCommFinalize", r, S->rk[g].comm);
  }
  int rc = wait_comms(S, "NCCL communicator finalisation");
  if (rc) return rc; /* the communicators were aborted */
  for (int g = 0; g < S->n; g++) {
    ncclCommDestroy(S->rk[g].comm);
    S->rk[g].comm = NULL;
  }
  return 0;
}

/* First every rank must arrive: a non-blocking communicator, polled and aborted at the deadline,
** so a missing peer ends in NCCL's error or a plain timeout, never a hang. Then the blocking
** communicators that measure, on a second id. */
static int init_comms(session *S, const xp_nccl_local *loc, xp_nccl_results *res, watchdog *w) {
  unsigned char ids[XP_NCCL_RDV_BYTES];
  int rc = 0;
  if (loc->have_id) memcpy(ids, loc->id, sizeof ids);
  else rc = xp_nccl_new_id(ids);
  if (rc == 0) rc = init_group(S, ids, 0, "NCCL communicator initialisation (every rank arriving)");
  if (rc == 0) rc = destroy_comms(S);
  if (rc) return rc;
  watch_arm(w, "NCCL communicator initialisation");
  rc = init_group(S, ids + XP_NCCL_ID_BYTES, 1, "NCCL communicator initialisation");
  watch_disarm(w);
  snprintf(res->config, sizeof res->config, "blocking=1%s, after a non-blocking arrival check",
           NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0) ? " nvlinkCentricSched=1" : "");
  return rc;
}

static size_t largest_buffer(const xp_nccl_results *res) {
  size_t most = 0;
  for (int i = 0; i < res->ncases; i++) {
    const xp_nccl_case *c = &res->cases[i];
    size_t e = c->counts.send_elems > c->counts.recv_elems ? c->counts.send_elems : c->counts.recv_elems;
    if (e * xp_nccl_dtype_size(c->dtype) > most) most = e * xp_nccl_dtype_size(c->dtype);
  }
  return most;
}

static int alloc_rank(session *S, rank_ctx *k) {
  XP_CUDA(cudaSetDevice(k->dev));
  XP_CUDA(cudaStreamCreateWithFlags(&k->stream, cudaStreamNonBlocking));
  if (S->p->alloc_nccl) {
    XP_NCCL(ncclMemAlloc((void **)&k->send, S->buf_bytes));
    XP_NCCL(ncclMemAlloc((void **)&k->recv, S->buf_bytes));
  } else {
    XP_CUDA(cudaMalloc((void **)&k->send, S->buf_bytes));
    XP_CUDA(cudaMalloc((void **)&k->recv, S->buf_bytes));
  }
  XP_CUDA(cudaMalloc((void **)&k->d_wrong, sizeof *k->d_wrong));
  k->ev = xp_xcalloc((size_t)S->p->iterations + 1, sizeof *k->ev);
  for (int i = 0; i <= S->p->iterations; i++) XP_CUDA(cudaEventCreate(&k->ev[i]));
  return 0;
fail:
  return XP_EXIT_FAILED;
}

static void free_rank(session *S, rank_ctx *k) {
  cudaSetDevice(k->dev);
  if (k->exec) cudaGraphExecDestroy(k->exec);
  for (int i = 0; k->ev && i <= S->p->iterations; i++)
    if (k->ev[i]) cudaEventDestroy(k->ev[i]);
  free(k->ev);
  if (S->p->alloc_nccl) {
    if (k->send) ncclMemFree(k->send);
    if (k->recv) ncclMemFree(k->recv);
  } else {
    if (k->send) cudaFree(k->send);
    if (k->recv) cudaFree(k->recv);
  }
  if (k->d_wrong) cudaFree(k->d_wrong);
  if (k->stream) cudaStreamDestroy(k->stream);
  cudaGetLastError();
}

/* ---- one collective ---- */

static ncclResult_t enqueue_one(session *S, rank_ctx *k, const xp_nccl_case *c, ncclDataType_t dt) {
  size_t ts = xp_nccl_dtype_size(c->dtype), cnt = c->counts.count, own = (size_t)k->rank * cnt * ts;
  char *sb = k->send, *rb = k->recv;
  if (c->place == XP_PLACE_IN) {
    sb = rb = k->recv;
    if (c->coll == XP_COLL_ALLGATHER) sb = k->recv + own;
    if (c->coll == XP_COLL_REDUCESCATTER) rb = k->recv + own;
  }
  switch (c->coll) {
  case XP_COLL_ALLREDUCE: return ncclAllReduce(sb, rb, cnt, dt, ncclSum, k->comm, k->stream);
  case XP_COLL_ALLGATHER: return ncclAllGather(sb, rb, cnt, dt, k->comm, k->stream);
  case XP_COLL_REDUCESCATTER: return ncclReduceScatter(sb, rb, cnt, dt, ncclSum, k->comm, k->stream);
  case XP_COLL_BROADCAST: return ncclBroadcast(sb, rb, cnt, dt, S->p->root, k->comm, k->stream);
  case XP_COLL_ALLTOALL:
    for (int peer = 0; peer < S->nranks; peer++) {
      ncclResult_t r = ncclSend(sb + (size_t)peer * cnt * ts, cnt, dt, peer, k->comm, k->stream);
      if (r == ncclSuccess || r == ncclInProgress) r = ncclRecv(rb + (size_t)peer * cnt * ts, cnt, dt, peer, k->comm, k->stream);
      if (r != ncclSuccess && r != ncclInProgress) return r;
    }
    return ncclSuccess;
  default: return ncclInvalidArgument;
  }
}

/* One collective on every local rank: one NCCL group, so one thread can drive all GPUs. A
** single GPU calls NCCL directly, as nccl-tests does (alltoall's sends and receives still need
** their group). */
static int launch_op(session *S, const xp_nccl_case *c, ncclDataType_t dt) {
  ncclResult_t r;
  if (S->n == 1 && c->coll != XP_COLL_ALLTOALL) {
    r = enqueue_one(S, &S->rk[0], c, dt);
    if (r == ncclInProgress) return wait_comms(S, xp_nccl_coll_func(c->coll));
    return r == ncclSuccess ? 0 : nccl_failed(S, xp_nccl_coll_func(c->coll), r, S->rk[0].comm);
  }
  r = ncclGroupStart();
  if (r != ncclSuccess) return nccl_failed(S, "ncclGroupStart", r, NULL);
  for (int g = 0; g < S->n; g++) {
    r = enqueue_one(S, &S->rk[g], c, dt);
    if (r != ncclSuccess && r != ncclInProgress) {
      ncclGroupEnd();
      return nccl_failed(S, xp_nccl_coll_func(c->coll), r, S->rk[g].comm);
    }
  }
  r = ncclGroupEnd();
  if (r == ncclInProgress) return wait_comms(S, xp_nccl_coll_func(c->coll));
  if (r != ncclSuccess) return nccl_failed(S, xp_nccl_coll_func(c->coll), r, S->rk[0].comm);
  return 0;
}

/* Capture `ops` collectives into one graph per GPU (as nccl-tests -G: thread-local capture on
** every stream, grouped calls inside). Every capture begun is ended, even after a failure. */
static int capture(session *S, const xp_nccl_case *c, ncclDataType_t dt, int ops) {
  cudaGraph_t graphs[XP_NCCL_MAX_LOCAL] = {0};
  int begun = 0, rc = 0;
  cudaError_t e = cudaSuccess;
  for (; begun < S->n && e == cudaSuccess; begun++) {
    e = cudaSetDevice(S->rk[begun].dev);
    if (e == cudaSuccess) e = cudaStreamBeginCapture(S->rk[begun].stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) break;
  }
  if (e != cudaSuccess)
    rc = xp_error(XP_EXIT_FAILED, "cudaStreamBeginCapture: %s", cudaGetErrorString(e));
  for (int i = 0; i < ops && rc == 0; i++) rc = launch_op(S, c, dt);
  for (int g = 0; g < begun; g++) {
    e = cudaStreamEndCapture(S->rk[g].stream, &graphs[g]);
    if (e != cudaSuccess && rc == 0) rc = xp_error(XP_EXIT_FAILED, "cudaStreamEndCapture: %s", cudaGetErrorString(e));
  }
  for (int g = 0; g < S->n && rc == 0; g++) {
    e = cudaSetDevice(S->rk[g].dev);
    if (e == cudaSuccess) e = cudaGraphInstantiate(&S->rk[g].exec, graphs[g], 0);
    if (e != cudaSuccess) rc = xp_error(XP_EXIT_FAILED, "cudaGraphInstantiate: %s", cudaGetErrorString(e));
  }
  for (int g = 0; g < S->n; g++)
    if (graphs[g]) cudaGraphDestroy(graphs[g]);
  if (rc) cudaGetLastError();
  return rc;
}

static void drop_graphs(session *S) {
  for (int g = 0; g < S->n; g++)
    if (S->rk[g].exec) {
      cudaGraphExecDestroy(S->rk[g].exec);
      S->rk[g].exec = NULL;
    }
}

/* One burst: `burst` grouped collectives, or one replay of the captured graph on every GPU. */
static int run_burst(session *S, const xp_nccl_case *c, ncclDataType_t dt) {
  if (c->mode == XP_MODE_GRAPH) {
    for (int g = 0; g < S->n; g++) XP_CUDA(cudaGraphLaunch(S->rk[g].exec, S->rk[g].stream));
    return 0;
  }
  for (int i = 0; i < S->p->burst; i++) {
    int rc = launch_op(S, c, dt);
    if (rc) return rc;
  }
  return 0;
fail:
  abort_all(S);
  return XP_EXIT_FAILED;
}

/* ---- verification ---- */

static int fill_inputs(session *S, const xp_nccl_case *c, const xp_nccl_pattern *pat) {
  size_t ts = xp_nccl_dtype_size(c->dtype), cnt = c->counts.count;
  for (int g = 0; g < S->n; g++) {
    rank_ctx *k = &S->rk[g];
    XP_CUDA(cudaSetDevice(k->dev));
    /* All-ones bytes are NaN in every float type here: stale results cannot pass for new ones. */
    XP_CUDA(cudaMemsetAsync(k->recv, 0xff, c->counts.recv_elems * ts, k->stream));
    char *in = k->send;
    size_t elems = c->counts.send_elems;
    if (c->place == XP_PLACE_IN) {
      in = k->recv;
      if (c->coll == XP_COLL_ALLGATHER) in = k->recv + (size_t)k->rank * cnt * ts;
    }
    XP_CUDA(xp_nccl_fill(in, (int)c->dtype, pat, elems, k->rank, k->stream));
  }
  return 0;
fail:
  return XP_EXIT_FAILED;
}

static int count_wrong(session *S, const xp_nccl_case *c, const xp_nccl_pattern *pat, int64_t *wrong) {
  size_t ts = xp_nccl_dtype_size(c->dtype), cnt = c->counts.count;
  int rc;
  for (int g = 0; g < S->n; g++) {
    rank_ctx *k = &S->rk[g];
    const char *out = k->recv;
    if (c->place == XP_PLACE_IN && c->coll == XP_COLL_REDUCESCATTER) out = k->recv + (size_t)k->rank * cnt * ts;
    XP_CUDA(cudaSetDevice(k->dev));
    XP_CUDA(cudaMemsetAsync(k->d_wrong, 0, sizeof *k->d_wrong, k->stream));
    XP_CUDA(xp_nccl_verify(out, (int)c->dtype, pat, c->counts.recv_elems, k->rank, k->d_wrong, k->stream));
  }
  if ((rc = wait_streams(S, "verification")) != 0) return rc;
  for (int g = 0; g < S->n; g++) {
    unsigned long long w = 0;
    XP_CUDA(cudaSetDevice(S->rk[g].dev));
    XP_CUDA(cudaMemcpy(&w, S->rk[g].d_wrong, sizeof w, cudaMemcpyDeviceToHost));
    *wrong += (int64_t)w;
  }
  return 0;
fail:
  return XP_EXIT_FAILED;
}

/* Fill, one collective in the case's mode, compare. */
static int check_once(session *S, const xp_nccl_case *c, ncclDataType_t dt, const xp_nccl_pattern *pat,
                      int64_t *wrong) {
  int rc = fill_inputs(S, c, pat);
  if (rc == 0 && c->mode == XP_MODE_GRAPH) {
    if ((rc = capture(S, c, dt, 1)) == 0) {
      for (int g = 0; g < S->n && rc == 0; g++)
        if (cudaGraphLaunch(S->rk[g].exec, S->rk[g].stream) != cudaSuccess)
          rc = xp_error(XP_EXIT_FAILED, "cudaGraphLaunch of the check graph failed");
    }
    if (rc == 0) rc = wait_streams(S, "check");
    drop_graphs(S);
  } else if (rc == 0)
    rc = launch_op(S, c, dt);
  return rc ? rc : count_wrong(S, c, pat, wrong);
}

/* ---- timing ---- */

static int time_case(session *S, xp_nccl_case *c) {
  const xp_nccl_plan *p = S->p;
  ncclDataType_t dt = ncclFloat32; /* set by nccl_dtype; gcc cannot see that through xp_error */
  int rc = nccl_dtype(c->dtype, &dt), timing = 0;
  int64_t wrong = 0;
  char what[160];
  xp_nccl_pattern pat;
  if (rc) return rc;
  xp_nccl_pattern_init(&pat, (int)c->dtype, (int)c->coll, S->nranks, c->counts.count, p->root);
  xp_nccl_case_name(c, what, sizeof what);
  if (p->verify && (rc = check_once(S, c, dt, &pat, &wrong)) != 0) return rc;
  if (c->mode == XP_MODE_GRAPH && (rc = capture(S, c, dt, p->burst)) != 0) return rc;
  for (int i = 0; i < p->warmup; i++)
    if ((rc = xp_interrupted() ? XP_EXIT_ABORTED : run_burst(S, c, dt)) != 0) goto done;
  xp_gpu_watch_timing(timing = 1);
  for (int i = 0; i < p->iterations; i++) {
    for (int g = 0; g < S->n; g++) XP_CUDA(cudaEventRecord(S->rk[g].ev[i], S->rk[g].stream));
    if ((rc = xp_interrupted() ? XP_EXIT_ABORTED : run_burst(S, c, dt)) != 0) goto done;
  }
  for (int g = 0; g < S->n; g++) XP_CUDA(cudaEventRecord(S->rk[g].ev[p->iterations], S->rk[g].stream));
  if ((rc = wait_streams(S, what)) != 0) goto done;
  xp_gpu_watch_timing(timing = 0);
  for (int g = 0; g < S->n; g++)
    for (int i = 0; i < p->iterations; i++) {
      float ms = 0;
      XP_CUDA(cudaEventElapsedTime(&ms, S->rk[g].ev[i], S->rk[g].ev[i + 1]));
      c->burst_us[(size_t)S->rk[g].rank * (size_t)p->iterations + (size_t)i] = ms * 1000.0;
    }
  drop_graphs(S);
  if (p->verify) {
    /* Out of place, the inputs are intact, so the last burst's output is checked as it is. */
    if (c->place == XP_PLACE_OUT) rc = count_wrong(S, c, &pat, &wrong);
    else rc = check_once(S, c, dt, &pat, &wrong);
    if (rc) return rc;
    c->wrong = wrong;
  }
  c->measured = 1;
  return 0;
fail:
  rc = XP_EXIT_FAILED;
  abort_all(S);
done:
  if (timing) xp_gpu_watch_timing(0);
  drop_graphs(S);
  return rc;
}

/* One untimed call per (collective, dtype, size), while NCCL's TUNING lines are on: the log
** then says which algorithm and protocol every size runs with, and connections are set up. */
static int probe(session *S, xp_nccl_results *res) {
  for (int i = 0; i < res->ncases; i++) {
    xp_nccl_case *c = &res->cases[i];
    int seen = 0;
    for (int j = 0; j < i; j++) {
      const xp_nccl_case *o = &res->cases[j];
      seen |= !o->skip && o->coll == c->coll && o->dtype == c->dtype && o->bytes == c->bytes;
    }
    if (seen || c->skip) continue;
    xp_nccl_case eager = *c;
    eager.mode = XP_MODE_EAGER;
    eager.place = XP_PLACE_OUT;
    ncclDataType_t dt = ncclInt8; /* set by nccl_dtype, read only when it succeeds */
    int rc = nccl_dtype(c->dtype, &dt);
    if (rc == 0) rc = launch_op(S, &eager, dt);
    if (rc) return rc;
    if (xp_interrupted()) { abort_all(S); return XP_EXIT_ABORTED; }
  }
  return wait_streams(S, "probe");
}

/* NCCL reads NCCL_DEBUG_* once; ncclResetDebugInit (exported, deprecated, still present in 2.28)
** makes it read them again. Without it TUNING stays on during timing, and the run says so. */
static const char *switch_log(const char *file) {
  void (*reset)(void) = NULL;
  *(void **)(&reset) = dlsym(RTLD_DEFAULT, "ncclResetDebugInit");
  if (!file || !reset) return "on during timing (NCCL cannot switch its log)";
  setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,ENV", 1);
  setenv("NCCL_DEBUG_FILE", file, 1);
  reset();
  return "probe only (one untimed call per size; off while timing)";
}

int xp_nccl_measure(const xp_nccl_plan *p, const xp_nccl_local *loc, xp_nccl_results *res) {
  session S = {p, loc->nlocal, loc->nranks, NULL, 0};
  rank_ctx rk[XP_NCCL_MAX_LOCAL];
  watchdog w;
  memset(rk, 0, sizeof rk);
  S.rk = rk;
  S.buf_bytes = largest_buffer(res);
  if (S.buf_bytes == 0) S.buf_bytes = 256;
  char host[128] = "";
  gethostname(host, sizeof host - 1);
  res->nccl_version = xp_nccl_library_version();
  int rc = 0;
  for (int g = 0; g < S.n && rc == 0; g++) {
    rk[g].dev = loc->device[g];
    rk[g].rank = loc->rank[g];
    xp_nccl_rank *facts = &res->ranks[rk[g].rank];
    facts->present = 1;
    facts->device = rk[g].dev;
    snprintf(facts->host, sizeof facts->host, "%s", host);
    rc = xp_gpu_describe(rk[g].dev, &facts->gpu);
    if (rc == 0) rc = alloc_rank(&S, &rk[g]);
  }
  /* The watchdog's deadline is a little past the one the polling loops keep, so that they
  ** report first whenever NCCL lets them. */
  watch_start(&w, p->timeout_s * 1.1 + 5);
  if (rc == 0) rc = init_comms(&S, loc, res, &w);
  watch_arm(&w, "probing every size once");
  if (rc == 0) rc = probe(&S, res);
  watch_disarm(&w);
  if (rc == 0) res->tuning_log = switch_log(loc->timing_log);
  for (int i = 0; i < res->ncases && rc == 0; i++) {
    if (res->cases[i].skip) continue;
    char what[160];
    xp_nccl_case_name(&res->cases[i], what, sizeof what);
    watch_arm(&w, what);
    if (xp_interrupted()) rc = XP_EXIT_ABORTED;
    else rc = time_case(&S, &res->cases[i]);
    watch_disarm(&w);
  }
  watch_arm(&w, "NCCL communicator finalisation");
  if (rc == 0) rc = destroy_comms(&S);
  else abort_all(&S);
  watch_disarm(&w);
  watch_stop(&w);
  for (int g = 0; g < S.n; g++) free_rank(&S, &rk[g]);
  return rc;
}
#endif /* XP_HAVE_CUDA */
