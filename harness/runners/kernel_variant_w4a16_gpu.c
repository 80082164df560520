/*
** Measuring the w4a16 family on the GPU: operands, the float32 reference, the correctness
** gate and the timing of every variant (what is measured and why: kernel_variant_w4a16.c).
**
** A batch of cases shares a shape and a group size. GEMM: one random float matrix is
** quantized and packed on the host (w4_quantize_pack, so the host packer is exercised
** end to end), uploaded, and replicated into rotation copies; bf16 copies for the cuBLAS
** baseline are dequantized from it. MoE layer: one layer's experts are random packed words
** and scales generated on the device (1 GB at Kimi-K2.5's shapes is too much to pack on
** the host per run), copied on the device as often as the rotation past L2 asks (one copy
** for a layer that spans it alone), and each m gets `routings` fresh random routings.
*/
#ifdef XP_HAVE_CUDA
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ceilings/ceilings.h"
#include "gpu.h"
#include "lt.h"
#include "runners/kernel_variant.h"
#include "w4a16/w4a16.h"
#include "xp.h"

enum which { V_BF16, V_DEQUANT, V_GEMV, V_MMA, V_SPLITK, V_MOE, V_MOE_PDL, V_MOE_BF16, V_UNKNOWN };

static enum which which_of(const xp_kv_variant *v) {
  static const char *const names[] = {"cublas_bf16", "dequant_cublas", "fused_gemv", "fused_mma",
                                      "fused_splitk", "grouped_moe", "grouped_moe_pdl",
                                      "cublas_bf16_per_expert"};
  for (int i = 0; i < V_UNKNOWN; i++)
    if (strcmp(v->name, names[i]) == 0) return (enum which)i;
  return V_UNKNOWN;
}

/* ---- small helpers ---- */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static void case_fail(xp_kv_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void case_fail(xp_kv_case *c, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  c->status = "failed";
  free(c->note);
  c->note = xp_strdup(buf);
}

/* After a case failed: is the device still usable? 0 yes, XP_EXIT_FAILED no. */
static int device_state(void) { return xp_gpu_sticky_error() != cudaSuccess ? XP_EXIT_FAILED : 0; }

static void add_attrs(cJSON *params, const char *suffix, enum w4a16_kernel k, int m, int group) {
  struct cudaFuncAttributes a;
  if (w4a16_kernel_attrs(k, m, group, &a) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  char key[64];
  snprintf(key, sizeof key, "regs%s", suffix);
  cJSON_AddNumberToObject(params, key, a.numRegs);
  snprintf(key, sizeof key, "smem_static%s", suffix);
  cJSON_AddNumberToObject(params, key, (double)a.sharedSizeBytes);
  snprintf(key, sizeof key, "local_bytes%s", suffix);
  cJSON_AddNumberToObject(params, key, (double)a.localSizeBytes);
  snprintf(key, sizeof key, "binary_arch%s", suffix);
  cJSON_AddNumberToObject(params, key, a.binaryVersion);
}

static void kernel_attrs(xp_kv_case *c, enum which w) {
  const int m = c->p.m, g = c->p.group;
  switch (w) {
  case V_DEQUANT: add_attrs(c->params, "", W4A16_K_DEQUANT, m, g); break;
  case V_GEMV: add_attrs(c->params, "", W4A16_K_GEMV, m, g); break;
  case V_MMA: add_attrs(c->params, "", W4A16_K_MMA, m, g); break;
  case V_SPLITK: add_attrs(c->params, "", W4A16_K_SPLITK, m, g); break;
  case V_MOE:
  case V_MOE_PDL: {
    add_attrs(c->params, "", W4A16_K_MOE, m, g);
    int blocks = 0;
    if (w4a16_moe_grid(m, g, &blocks) == cudaSuccess) cJSON_AddNumberToObject(c->params, "blocks", blocks);
    cudaGetLastError();
    break;
  }
  default: break;
  }
}

/* The gate: max |out - ref| / max |ref| over count outputs; non-finite outputs count as
** failures (*bad), and *worst is the index of the largest difference. */
static double gate_error(const uint16_t *out, const float *ref, size_t count, size_t *worst, size_t *bad) {
  double maxref = 0, maxdiff = 0;
  *worst = 0;
  *bad = 0;
  for (size_t i = 0; i < count; i++) {
    if (fabs(ref[i]) > maxref) maxref = fabs(ref[i]);
    double o = w4_bf16_to_f32(out[i]);
    if (!isfinite(o)) {
      if (!*bad) *worst = i;
      (*bad)++;
      continue;
    }
    double d = fabs(o - ref[i]);
    if (d > maxdiff && !*bad) *worst = i;
    if (d > maxdiff) maxdiff = d;
  }
  return maxref > 0 ? maxdiff / maxref : maxdiff;
}

/* Record the gate's outcome on c; 0 when it passed. */
static int judge(xp_kv_case *c, const uint16_t *out, const float *ref, size_t count, size_t row_len,
                 double tol) {
  size_t worst, bad;
  double err = gate_error(out, ref, count, &worst, &bad);
  c->max_err = bad ? INFINITY : err;
  cJSON_AddNumberToObject(c->params, "tolerance", tol);
  if (!bad) cJSON_AddNumberToObject(c->params, "max_err", err);
  if (bad) {
    case_fail(c, "wrong result: %zu of %zu outputs are not finite (first at row %zu, column %zu)",
              bad, count, worst / row_len, worst % row_len);
    return 1;
  }
  if (!(err <= tol)) {
    case_fail(c, "wrong result: max |out - ref| = %.3g of max |ref| exceeds the tolerance %.3g "
              "(worst at row %zu, column %zu: got %.6g, reference %.6g)", err, tol,
              worst / row_len, worst % row_len, w4_bf16_to_f32(out[worst]), ref[worst]);
    return 1;
  }
  return 0;
}

static int time_case(xp_kv_case *c, cudaStream_t s, xp_enqueue_fn fn, void *arg, int per_graph,
                     const xp_kv_opts *o) {
  c->us = xp_xcalloc((size_t)o->samples, sizeof *c->us);
  int rc = xp_time_graph(s, fn, arg, per_graph, o->warmup, o->samples, c->us);
  if (rc) {
    free(c->us);
    c->us = NULL;
    if (rc == XP_EXIT_ABORTED) return rc;
    case_fail(c, "timing failed: %s", xp_last_error());
    return rc;
  }
  c->nus = o->samples;
  cJSON_AddNumberToObject(c->params, "launches_per_graph", per_graph);
  return 0;
}

/* ---- floors: the same launch doing less, timed the same way (kernel_variant.h) ---- */

/* A bare read of r.bytes at r's places in turn (xp_kv_reads), so that it meets the caches as
** cold as the variant meets its rotated weights. */
typedef struct read_arg {
  const char *base;
  xp_kv_reads r;
  int blocks;
  unsigned *sink;
} read_arg;

static int enqueue_read(void *arg, cudaStream_t s, int rep) {
  read_arg *a = arg;
  XP_CUDA(xp_read16(a->base + xp_kv_reads_offset(&a->r, rep), a->r.bytes, a->blocks, a->sink, s));
  return 0;
fail:
  return XP_EXIT_FAILED;
}

/* Times per_graph launches of fn as the case was timed and files the samples as floor
** `name` of c. A floor that cannot be timed is left out with a warning: the case's own
** result stands. */
static int time_floor(xp_kv_case *c, const char *name, xp_enqueue_fn fn, void *arg, int per_graph,
                      const xp_kv_opts *o, cudaStream_t s) {
  double *us = xp_xcalloc((size_t)o->samples, sizeof *us);
  int rc = xp_time_graph(s, fn, arg, per_graph, o->warmup, o->samples, us);
  if (rc) {
    free(us);
    if (rc == XP_EXIT_ABORTED) return rc;
    xp_warn("%s not measured: %s", name, xp_last_error());
    return device_state();
  }
  assert(c->nfloors < (int)(sizeof c->floors / sizeof *c->floors));
  c->floors[c->nfloors++] = (struct xp_kv_floor){name, us, o->samples};
  return 0;
}

/* read_floor_us of c: r's reads from buf; none where r is NULL (xp_kv_reads_plan found nothing
** to read). */
static int read_floor(xp_kv_case *c, const void *buf, const xp_kv_reads *r, const xp_kv_opts *o, cudaStream_t s) {
  if (!r) return 0;
  read_arg a = {buf, *r, 0, NULL};
  cudaError_t e = xp_read16_grid(o->device, &a.blocks);
  if (e == cudaSuccess) e = cudaMalloc((void **)&a.sink, (size_t)a.blocks * sizeof(unsigned));
  if (e != cudaSuccess) {
    xp_warn("read_floor_us not measured: %s", cudaGetErrorString(e));
    return device_state();
  }
  int rc = time_floor(c, "read_floor_us", enqueue_read, &a, a.r.copies * a.r.places, o, s);
  cudaFree(a.sink);
  return rc;
}

/* ---- cuBLASLt: pick the fastest of the heuristic's candidates, cold ---- */

typedef struct lt_probe {
  xp_lt *plan;
  const void *A;
  const char *W;   /* first weight matrix; copy i at W + i * stride */
  size_t stride;
  int copies;
  void *D, *ws;
} lt_probe;

static int enqueue_probe(void *arg, cudaStream_t s, int rep) {
  lt_probe *p = arg;
  return xp_lt_run(p->plan, p->A, p->W + (size_t)(rep % p->copies) * p->stride, p->D, NULL, NULL, p->ws, s);
}

/* Times every candidate (graph replays over the rotation) and selects the fastest; *chosen
** gets its index. */
static int lt_tune(lt_probe *p, cudaStream_t s, int *chosen) {
  int best = -1, count = xp_lt_algo_count(p->plan);
  double best_us = INFINITY, us[3];
  for (int i = 0; i < count; i++) {
    if (xp_lt_select(p->plan, i)) continue;
    xp_error_quiet(1);
    int rc = xp_time_graph(s, enqueue_probe, p, p->copies, 1, 3, us);
    xp_error_quiet(0);
    if (rc == XP_EXIT_ABORTED) return rc;
    if (rc) {
      cudaGetLastError();
      continue;
    }
    double med = us[0] < us[1] ? (us[1] < us[2] ? us[1] : us[0] < us[2] ? us[2] : us[0])
                               : (us[0] < us[2] ? us[0] : us[1] < us[2] ? us[2] : us[1]);
    if (med < best_us) best_us = med, best = i;
  }
  if (best < 0) return xp_error(XP_EXIT_FAILED, "no cuBLASLt candidate for %dx%dx%d ran",
                                xp_lt_m(p->plan), xp_lt_n(p->plan), xp_lt_k(p->plan));
  xp_lt_select(p->plan, best);
  *chosen = best;
  return 0;
}

/* Plans by m, created and tuned on first use. */
#define LT_CACHE 64
typedef struct lt_cache {
  int n, m[LT_CACHE], chosen[LT_CACHE];
  xp_lt *plan[LT_CACHE];
} lt_cache;

static xp_lt *lt_find(const lt_cache *c, int m, int *chosen) {
  for (int i = 0; i < c->n; i++)
    if (c->m[i] == m) {
      if (chosen) *chosen = c->chosen[i];
      return c->plan[i];
    }
  return NULL;
}

static int lt_get(lt_cache *c, cublasLtHandle_t h, int m, int n, int k, const void *A, const void *W,
                  size_t stride, int copies, void *D, void *ws, cudaStream_t s, xp_lt **out) {
  if ((*out = lt_find(c, m, NULL)) != NULL) return 0;
  if (c->n == LT_CACHE) return xp_error(XP_EXIT_FAILED, "more than %d cuBLASLt plans in one batch", LT_CACHE);
  xp_lt *plan = NULL;
  int rc = xp_lt_create(h, m, n, k, XP_LT_BF16, XP_LT_WORKSPACE_BYTES, 0, &plan), chosen = 0;
  if (rc) return rc;
  lt_probe p = {plan, A, W, stride, copies, D, ws};
  if ((rc = lt_tune(&p, s, &chosen))) {
    xp_lt_destroy(plan); /* an untuned plan must not be reused as if tuned */
    return rc;
  }
  c->m[c->n] = m, c->chosen[c->n] = chosen, c->plan[c->n] = plan;
  c->n++;
  *out = plan;
  return 0;
}

static void lt_cache_free(lt_cache *c) {
  for (int i = 0; i < c->n; i++) xp_lt_destroy(c->plan[i]);
  memset(c, 0, sizeof *c);
}

/* ================= GEMM ================= */

typedef struct gemm_bench {
  w4_layout l;
  size_t words, nsc;   /* per copy */
  int copies, copies_bf, mmax;
  uint32_t *w;
  uint16_t *sc, *wbf, *x, *y, *dq;
  float *xf, *ref, *refh, *partial;
  unsigned *counters;
  uint16_t *yh;
  void *ws;
  cublasLtHandle_t lt;
  lt_cache plans;
  /* the launch being measured */
  enum which which;
  int m, split;
  xp_lt *plan;
} gemm_bench;

static int enqueue_gemm(void *arg, cudaStream_t s, int rep) {
  gemm_bench *b = arg;
  const size_t r = (size_t)(rep % b->copies);
  w4a16_gemm a = {b->w + r * b->words, b->sc + r * b->nsc, b->x, b->y, b->m, b->l.n, b->l.k, b->l.group};
  switch (b->which) {
  case V_GEMV: XP_CUDA(w4a16_fused_gemv(&a, s)); break;
  case V_MMA: XP_CUDA(w4a16_fused_mma(&a, s)); break;
  case V_SPLITK: XP_CUDA(w4a16_fused_splitk(&a, b->split, b->partial, b->counters, s)); break;
  case V_DEQUANT:
    XP_CUDA(w4a16_dequant(a.w, a.scales, &b->l, b->dq, s));
    return xp_lt_run(b->plan, b->x, b->dq, b->y, NULL, NULL, b->ws, s);
  case V_BF16:
    return xp_lt_run(b->plan, b->x, b->wbf + (size_t)(rep % b->copies_bf) * b->l.n * b->l.k, b->y, NULL,
                     NULL, b->ws, s);
  default: return xp_error(XP_EXIT_FAILED, "not a GEMM variant");
  }
  return 0;
fail:
  return XP_EXIT_FAILED;
}

static void gemm_free(gemm_bench *b) {
  lt_cache_free(&b->plans);
  if (b->lt) cublasLtDestroy(b->lt);
  cudaFree(b->w), cudaFree(b->sc), cudaFree(b->wbf), cudaFree(b->x), cudaFree(b->y), cudaFree(b->dq);
  cudaFree(b->xf), cudaFree(b->ref), cudaFree(b->partial), cudaFree(b->counters), cudaFree(b->ws);
  free(b->refh), free(b->yh);
  cudaGetLastError();
  memset(b, 0, sizeof *b);
}

/* Operands for every case of the batch; the reference for all mmax rows. */
static int gemm_setup(gemm_bench *b, const xp_kv_case *cases, int n, const xp_kv_opts *o, cudaStream_t s) {
  const xp_kv_problem *p = &cases[0].p;
  int need_bf = 0, need_dq = 0, need_lt = 0, split = 0, rc = XP_EXIT_FAILED;
  float *wf = NULL;
  uint32_t *wh = NULL;
  uint16_t *sh = NULL;
  b->l = (w4_layout){p->n, p->k, p->group, 0};
  b->words = w4_words(&b->l);
  b->nsc = w4_nscales(&b->l);
  b->mmax = 1;
  for (int i = 0; i < n; i++) {
    enum which w = which_of(cases[i].v);
    if (cases[i].p.m > b->mmax) b->mmax = cases[i].p.m;
    need_bf |= w == V_BF16;
    need_dq |= w == V_DEQUANT;
    need_lt |= w == V_BF16 || w == V_DEQUANT;
    if (w == V_SPLITK) split = (int)xp_spec_int(o->spec, "split_k", 4);
  }
  const size_t nk = (size_t)p->n * p->k;
  b->copies = xp_kv_gemm_copies(o->rotate_bytes, (double)b->words * 4 + (double)b->nsc * 2);

  /* Host: random floats, quantized and packed by the host helpers. */
  uint64_t seed = o->seed ^ 0x77a4a16ULL;
  wf = xp_xmalloc(nk * sizeof *wf);
  for (size_t i = 0; i < nk; i++) wf[i] = (float)((rng_unit(&seed) * 2 - 1) * 0.05);
  wh = xp_xmalloc(b->words * sizeof *wh);
  sh = xp_xmalloc(b->nsc * sizeof *sh);
  if (w4_quantize_pack(&b->l, wf, wh, sh)) {
    rc = xp_error(XP_EXIT_FAILED, "cannot pack %dx%d with group %d", p->n, p->k, p->group);
    goto fail;
  }
  XP_CUDA(cudaMalloc((void **)&b->w, b->words * 4 * (size_t)b->copies));
  XP_CUDA(cudaMalloc((void **)&b->sc, b->nsc * 2 * (size_t)b->copies));
  XP_CUDA(cudaMemcpy(b->w, wh, b->words * 4, cudaMemcpyHostToDevice));
  XP_CUDA(cudaMemcpy(b->sc, sh, b->nsc * 2, cudaMemcpyHostToDevice));
  for (int i = 1; i < b->copies; i++) {
    XP_CUDA(cudaMemcpyAsync(b->w + (size_t)i * b->words, b->w, b->words * 4, cudaMemcpyDeviceToDevice, s));
    XP_CUDA(cudaMemcpyAsync(b->sc + (size_t)i * b->nsc, b->sc, b->nsc * 2, cudaMemcpyDeviceToDevice, s));
  }

  const size_t mk = (size_t)b->mmax * p->k, mn = (size_t)b->mmax * p->n;
  XP_CUDA(cudaMalloc((void **)&b->x, mk * 2));
  XP_CUDA(cudaMalloc((void **)&b->xf, mk * 4));
  XP_CUDA(cudaMalloc((void **)&b->y, mn * 2));
  XP_CUDA(cudaMalloc((void **)&b->ref, mn * 4));
  XP_CUDA(w4a16_fill_bf16(b->x, mk, 0.05f, 1.0f, o->seed + 1, s));
  XP_CUDA(w4a16_bf16_to_f32(b->x, b->xf, mk, s));
  XP_CUDA(w4a16_ref_gemm(b->w, b->sc, &b->l, 0, 0, NULL, 1, b->xf, b->mmax, b->ref, s));
  b->refh = xp_xmalloc(mn * 4);
  b->yh = xp_xmalloc(mn * 2);
  XP_CUDA(cudaMemcpyAsync(b->refh, b->ref, mn * 4, cudaMemcpyDeviceToHost, s));

  if (need_bf) {
    b->copies_bf = xp_kv_gemm_copies(o->rotate_bytes, (double)nk * 2);
    XP_CUDA(cudaMalloc((void **)&b->wbf, nk * 2 * (size_t)b->copies_bf));
    XP_CUDA(w4a16_dequant(b->w, b->sc, &b->l, b->wbf, s));
    for (int i = 1; i < b->copies_bf; i++)
      XP_CUDA(cudaMemcpyAsync(b->wbf + (size_t)i * nk, b->wbf, nk * 2, cudaMemcpyDeviceToDevice, s));
  }
  if (need_dq) XP_CUDA(cudaMalloc((void **)&b->dq, nk * 2));
  if (need_lt) {
    XP_CUBLAS(cublasLtCreate(&b->lt));
    XP_CUDA(cudaMalloc(&b->ws, XP_LT_WORKSPACE_BYTES));
  }
  if (split >= 1 && split <= p->k / 64) {
    size_t pb, cb;
    w4a16_splitk_workspace(b->mmax, p->n, p->k, split, &pb, &cb);
    XP_CUDA(cudaMalloc((void **)&b->partial, pb));
    XP_CUDA(cudaMalloc((void **)&b->counters, cb));
    XP_CUDA(cudaMemsetAsync(b->counters, 0, cb, s));
  }
  b->split = split;
  XP_CUDA(cudaStreamSynchronize(s));
  rc = 0;
fail:
  free(wf), free(wh), free(sh);
  return rc;
}

static int gemm_case(gemm_bench *b, xp_kv_case *c, const xp_kv_opts *o, cudaStream_t s) {
  const enum which w = which_of(c->v);
  const int m = c->p.m, nn = c->p.n, kk = c->p.k;
  int rc, per_graph = b->copies;
  b->which = w;
  b->m = m;
  cJSON_AddNumberToObject(c->params, "rotation_copies", w == V_BF16 ? b->copies_bf : b->copies);
  if (w == V_BF16 || w == V_DEQUANT) {
    rc = lt_get(&b->plans, b->lt, m, nn, kk, b->x, b->wbf ? (const void *)b->wbf : (const void *)b->dq,
                b->wbf ? (size_t)nn * kk * 2 : 0, b->wbf ? b->copies_bf : 1, b->y, b->ws, s, &b->plan);
    if (rc) {
      if (rc == XP_EXIT_ABORTED) return rc;
      case_fail(c, "%s", xp_last_error());
      return device_state();
    }
    int chosen = 0;
    lt_find(&b->plans, m, &chosen);
    cJSON_AddStringToObject(c->params, "algo", xp_lt_algo_desc(b->plan, chosen));
    cJSON_AddNumberToObject(c->params, "algos_tried", xp_lt_algo_count(b->plan));
    if (w == V_BF16) per_graph = b->copies_bf;
  }
  kernel_attrs(c, w);
  c->bytes = (w == V_BF16 ? (double)nn * kk * 2 : (double)b->words * 4 + (double)b->nsc * 2) +
             (double)m * kk * 2 + (double)m * nn * 2;

  /* The gate: poisoned output (bf16 NaN), one launch, compare. */
  cudaError_t e;
  if ((e = cudaMemsetAsync(b->y, 0xff, (size_t)m * nn * 2, s)) != cudaSuccess) {
    case_fail(c, "cudaMemsetAsync: %s", cudaGetErrorString(e));
    return device_state();
  }
  xp_error_quiet(1);
  rc = enqueue_gemm(b, s, 0);
  xp_error_quiet(0);
  if (rc == 0 && (e = cudaStreamSynchronize(s)) != cudaSuccess) {
    case_fail(c, "launch failed: %s", cudaGetErrorString(e));
    return device_state();
  }
  if (rc) {
    case_fail(c, "launch failed: %s", xp_last_error());
    return device_state();
  }
  if ((e = cudaMemcpy(b->yh, b->y, (size_t)m * nn * 2, cudaMemcpyDeviceToHost)) != cudaSuccess) {
    case_fail(c, "reading the result: %s", cudaGetErrorString(e));
    return device_state();
  }
  if (judge(c, b->yh, b->refh, (size_t)m * nn, (size_t)nn, o->tolerance)) return 0;
  rc = time_case(c, s, enqueue_gemm, b, per_graph, o);
  if (rc == XP_EXIT_ABORTED) return rc;
  if (rc) return device_state();
  /* The INT4 kernels' floor: their weights read bare, from the same rotated copies (the
  ** weights of all copies are one block, read at as many places as there are copies). */
  if (w == V_GEMV || w == V_MMA || w == V_SPLITK) {
    xp_kv_reads r;
    int planned = xp_kv_reads_plan(&r, (double)b->words * 4, b->words * 4 * (size_t)b->copies, 0, 1, b->copies) == 0;
    return read_floor(c, b->w, planned ? &r : NULL, o, s);
  }
  return 0;
}

static int gemm_batch(xp_kv_case *cases, int n, const xp_kv_opts *o, cudaStream_t s) {
  gemm_bench b;
  memset(&b, 0, sizeof b);
  int rc = gemm_setup(&b, cases, n, o, s);
  if (rc) {
    for (int i = 0; i < n; i++) case_fail(&cases[i], "setting up the operands failed: %s", xp_last_error());
    gemm_free(&b);
    return device_state();
  }
  for (int i = 0; i < n && rc == 0; i++) {
    if (xp_interrupted()) rc = XP_EXIT_ABORTED;
    else rc = gemm_case(&b, &cases[i], o, s);
  }
  gemm_free(&b);
  return rc;
}

/* ================= MoE layer ================= */

/* One set of weights' rotation past L2 (xp_kv_moe_copies): as many copies as rotate_bytes asks
** for (wanted) or fewer where device memory is short, and the launches a graph holds; launch
** rep reads copy rep % copies under routing rep % R. */
typedef struct moe_rotation {
  int copies, wanted, launches;
} moe_rotation;

typedef struct moe_bench {
  int E, H, I, topk, G, R, m, P, mmax;
  w4_layout l13, l2;
  size_t words13, words2, nsc13, nsc2; /* per expert */
  size_t weight_bytes;                  /* one copy: all experts' weights and scales, from w13 on */
  size_t copy_stride;                   /* from one copy to the next: weight_bytes, 256-aligned */
  double bf_bytes;                      /* one copy of the bf16 weights (w13bf and w2bf) */
  moe_rotation rot, rot_bf;             /* of the INT4 block, of the bf16 weights */
  int floor;                            /* the floor being timed: MOE_LAUNCH_FLOOR or a W4A16_SKEL_* */
  uint32_t *w13, *w2;
  uint16_t *s13, *s2, *w13bf, *w2bf;
  uint16_t *x, *h, *y;  /* [mmax][H], [mmax*topk][I], [mmax][H] */
  float *xf;
  int *ids;             /* device [R][P] */
  float *wt;
  unsigned *sync;       /* grouped_moe's counters */
  int *hids;            /* host [R][P] */
  float *hwt;
  double avg_experts;
  /* the reference of routing 0 */
  float *xp, *gu_ref, *h_ref, *d_ref, *y_ref, *yref_h, *gu_h;
  uint16_t *yh;
  /* cuBLAS per expert: routing r's experts (id order) with their gathered rows */
  int need_bf;
  int *nslot, *slot_e, *slot_cnt, *slot_off, *row_pair; /* [R], [R][P] ... */
  int *row_expert;      /* device [P]: routing 0's expert of each gathered row */
  uint16_t *xg, *ha, *gout, *dout;
  float *haf, *dref2, *dref2_h;
  void *ws;
  cublasLtHandle_t lt;
  lt_cache plans13, plans2;
  enum which which;
} moe_bench;

/* grouped_moe's arguments on routing r and weight copy `copy`. */
static w4a16_moe moe_args(const moe_bench *b, int r, int copy) {
  const size_t off = (size_t)copy * b->copy_stride;
  return (w4a16_moe){.w13 = (const uint32_t *)((const char *)b->w13 + off),
                     .w2 = (const uint32_t *)((const char *)b->w2 + off),
                     .s13 = (const uint16_t *)((const char *)b->s13 + off),
                     .s2 = (const uint16_t *)((const char *)b->s2 + off),
                     .ids = b->ids + (size_t)r * b->P, .wt = b->wt + (size_t)r * b->P, .x = b->x,
                     .h = b->h, .y = b->y, .sync = b->sync, .tokens = b->m, .topk = b->topk,
                     .experts = b->E, .hidden = b->H, .inter = b->I, .group = b->G};
}

static int enqueue_moe(void *arg, cudaStream_t s, int rep) {
  moe_bench *b = arg;
  const int r = rep % b->R;
  if (b->which == V_MOE || b->which == V_MOE_PDL) {
    w4a16_moe a = moe_args(b, r, rep % b->rot.copies);
    XP_CUDA(w4a16_grouped_moe(&a, b->which == V_MOE_PDL, s));
    return 0;
  }
  const size_t first = (size_t)(rep % b->rot_bf.copies) * (size_t)b->E; /* this copy's expert 0 */
  for (int j = 0; j < b->nslot[r]; j++) {
    const size_t at = (size_t)r * b->P + (size_t)j;
    const size_t e = first + (size_t)b->slot_e[at];
    const int cnt = b->slot_cnt[at], off = b->slot_off[at];
    xp_lt *p13 = lt_find(&b->plans13, cnt, NULL), *p2 = lt_find(&b->plans2, cnt, NULL);
    if (!p13 || !p2) return xp_error(XP_EXIT_FAILED, "no cuBLASLt plan for %d rows", cnt);
    int rc = xp_lt_run(p13, b->xg + ((size_t)r * b->P + off) * b->H,
                       b->w13bf + e * 2 * b->I * b->H, b->gout + (size_t)off * 2 * b->I, NULL, NULL,
                       b->ws, s);
    if (rc) return rc;
    rc = xp_lt_run(p2, b->ha + (size_t)off * b->I, b->w2bf + e * b->H * b->I,
                   b->dout + (size_t)off * b->H, NULL, NULL, b->ws, s);
    if (rc) return rc;
  }
  return 0;
fail:
  return XP_EXIT_FAILED;
}

/* grouped_moe's floors: the same launch as rep's doing less (b->floor: MOE_LAUNCH_FLOOR,
** w4a16_moe_floor, no weights read; else w4a16_moe_skeleton, every load and no arithmetic,
** the barrier where b->floor puts it). */
enum { MOE_LAUNCH_FLOOR = -1 };
static int enqueue_moe_floor(void *arg, cudaStream_t s, int rep) {
  moe_bench *b = arg;
  w4a16_moe a = moe_args(b, rep % b->R, rep % b->rot.copies);
  const int pdl = b->which == V_MOE_PDL;
  XP_CUDA(b->floor == MOE_LAUNCH_FLOOR ? w4a16_moe_floor(&a, pdl, s) : w4a16_moe_skeleton(&a, b->floor, pdl, s));
  return 0;
fail:
  return XP_EXIT_FAILED;
}

static void moe_free_routing(moe_bench *b) {
  cudaFree(b->ids), cudaFree(b->wt), cudaFree(b->xp), cudaFree(b->gu_ref), cudaFree(b->h_ref);
  cudaFree(b->d_ref), cudaFree(b->y_ref), cudaFree(b->row_expert), cudaFree(b->xg);
  cudaFree(b->haf), cudaFree(b->dref2);
  free(b->hids), free(b->hwt), free(b->nslot), free(b->slot_e), free(b->slot_cnt), free(b->slot_off);
  free(b->row_pair), free(b->yref_h), free(b->gu_h), free(b->dref2_h);
  b->ids = b->row_expert = NULL;
  b->wt = b->xp = b->gu_ref = b->h_ref = b->d_ref = b->y_ref = b->haf = b->dref2 = NULL;
  b->xg = NULL;
  b->hids = b->nslot = b->slot_e = b->slot_cnt = b->slot_off = b->row_pair = NULL;
  b->hwt = b->yref_h = b->gu_h = b->dref2_h = NULL;
  cudaGetLastError();
}

static void moe_free(moe_bench *b) {
  moe_free_routing(b);
  lt_cache_free(&b->plans13);
  lt_cache_free(&b->plans2);
  if (b->lt) cublasLtDestroy(b->lt);
  cudaFree(b->w13), cudaFree(b->w13bf); /* w2, s13 and s2 lie in w13's allocation */
  cudaFree(b->w2bf), cudaFree(b->x), cudaFree(b->h), cudaFree(b->y), cudaFree(b->xf);
  cudaFree(b->ha), cudaFree(b->gout), cudaFree(b->dout), cudaFree(b->ws), cudaFree(b->sync);
  free(b->yh);
  cudaGetLastError();
  memset(b, 0, sizeof *b);
}

/* Device memory a batch needs beside its weight copies (routings, references, activations,
** cuBLAS), with a margin: what plan_rotation leaves free. */
static double moe_other_bytes(const moe_bench *b) {
  const double P = (double)b->mmax * b->topk, H = b->H, I = b->I;
  return (double)(1 << 30) + (double)b->R * P * H * 2 + P * (4 * H + 3 * I) * 8;
}

/* The rotation of a set of weights, layer_bytes a copy (alloc_bytes as allocated): the copies
** xp_kv_moe_copies wants, of them those that fit in free device memory beside keep_bytes
** (xp_kv_moe_fit; a shortfall is warned of here and recorded with each case). */
static moe_rotation plan_rotation(const moe_bench *b, const char *what, const char *shape, int64_t rotate_bytes,
                                  double layer_bytes, double alloc_bytes, double keep_bytes) {
  moe_rotation rot;
  rot.wanted = xp_kv_moe_copies(rotate_bytes, layer_bytes, (double)b->topk * layer_bytes / (double)b->E, b->R);
  rot.copies = rot.wanted;
  size_t avail = 0, total = 0;
  if (rot.wanted > 1) {
    if (cudaMemGetInfo(&avail, &total) != cudaSuccess) cudaGetLastError(); /* the allocation will tell */
    else rot.copies = xp_kv_moe_fit(rot.wanted, b->R, alloc_bytes, (double)avail - keep_bytes);
  }
  if (rot.copies < rot.wanted)
    xp_warn("%s: %d of the %d copies of the layer's %s weights (%.1f MiB each) fit in device memory; "
            "its cases record rotation_copies %d and rotation_copies_wanted %d",
            shape, rot.copies, rot.wanted, what, alloc_bytes / (1 << 20), rot.copies, rot.wanted);
  rot.launches = xp_kv_moe_launches(rot.copies, b->R);
  return rot;
}

/* One layer's experts (random packed INT4 on the device), copied for the rotation past L2,
** activations, buffers. */
static int moe_setup(moe_bench *b, const xp_kv_case *cases, int n, const xp_kv_opts *o, cudaStream_t s) {
  const xp_kv_problem *p = &cases[0].p;
  b->E = p->experts, b->H = p->hidden, b->I = p->inter, b->topk = p->topk, b->G = p->group;
  b->R = o->routings;
  b->l13 = (w4_layout){2 * b->I, b->H, b->G, 1};
  b->l2 = (w4_layout){b->H, b->I, b->G, 0};
  b->words13 = w4_words(&b->l13), b->words2 = w4_words(&b->l2);
  b->nsc13 = w4_nscales(&b->l13), b->nsc2 = w4_nscales(&b->l2);
  b->mmax = 1;
  for (int i = 0; i < n; i++) {
    if (cases[i].p.m > b->mmax) b->mmax = cases[i].p.m;
    b->need_bf |= which_of(cases[i].v) == V_MOE_BF16;
  }
  const size_t E = (size_t)b->E, H = (size_t)b->H, I = (size_t)b->I, M = (size_t)b->mmax;
  /* One block, [W13 | W2 | S13 | S2] of every expert (each part a multiple of 16 bytes), so
  ** that the read floor can read a batch's expert bytes from one place; the block copied as
  ** often as the rotation asks (copy_stride apart), each launch reading another copy. */
  b->weight_bytes = (size_t)xp_kv_w4a16_layer_bytes(p, 0);
  b->bf_bytes = xp_kv_w4a16_layer_bytes(p, 1);
  b->copy_stride = (b->weight_bytes + 255) / 256 * 256;
  b->rot = plan_rotation(b, "INT4", p->shape, o->rotate_bytes, (double)b->weight_bytes, (double)b->copy_stride,
                         moe_other_bytes(b) + (b->need_bf ? b->bf_bytes : 0));
  XP_CUDA(cudaMalloc((void **)&b->w13, b->copy_stride * (size_t)b->rot.copies));
  b->w2 = b->w13 + E * b->words13;
  b->s13 = (uint16_t *)(b->w2 + E * b->words2);
  b->s2 = b->s13 + E * b->nsc13;
  XP_CUDA(w4a16_fill_words(b->w13, E * b->words13, o->seed + 11, s));
  XP_CUDA(w4a16_fill_words(b->w2, E * b->words2, o->seed + 12, s));
  /* Scales that keep gate_up (K = hidden) and down (K = inter) outputs of order one. */
  XP_CUDA(w4a16_fill_scales(b->s13, E * b->nsc13, 0.002f, 0.008f, o->seed + 13, s));
  XP_CUDA(w4a16_fill_scales(b->s2, E * b->nsc2, 0.01f, 0.04f, o->seed + 14, s));
  for (int i = 1; i < b->rot.copies; i++)
    XP_CUDA(cudaMemcpyAsync((char *)b->w13 + (size_t)i * b->copy_stride, b->w13, b->weight_bytes,
                            cudaMemcpyDeviceToDevice, s));
  XP_CUDA(cudaMalloc((void **)&b->x, M * H * 2));
  XP_CUDA(cudaMalloc((void **)&b->xf, M * H * 4));
  XP_CUDA(cudaMalloc((void **)&b->h, M * (size_t)b->topk * I * 2));
  XP_CUDA(cudaMalloc((void **)&b->y, M * H * 2));
  XP_CUDA(cudaMalloc((void **)&b->sync, W4A16_MOE_SYNC_WORDS * sizeof(unsigned)));
  XP_CUDA(cudaMemsetAsync(b->sync, 0, W4A16_MOE_SYNC_WORDS * sizeof(unsigned), s));
  XP_CUDA(w4a16_fill_bf16(b->x, M * H, 0.05f, 1.0f, o->seed + 15, s));
  XP_CUDA(w4a16_bf16_to_f32(b->x, b->xf, M * H, s));
  b->yh = xp_xmalloc(M * H * 2);
  if (b->need_bf) {
    const size_t P = M * (size_t)b->topk, n13 = E * 2 * I * H, n2 = E * H * I; /* one copy */
    b->rot_bf = plan_rotation(b, "bf16", p->shape, o->rotate_bytes, b->bf_bytes, b->bf_bytes, moe_other_bytes(b));
    XP_CUDA(cudaMalloc((void **)&b->w13bf, n13 * 2 * (size_t)b->rot_bf.copies));
    XP_CUDA(cudaMalloc((void **)&b->w2bf, n2 * 2 * (size_t)b->rot_bf.copies));
    for (size_t e = 0; e < E; e++) {
      XP_CUDA(w4a16_dequant(b->w13 + e * b->words13, b->s13 + e * b->nsc13, &b->l13, b->w13bf + e * 2 * I * H, s));
      XP_CUDA(w4a16_dequant(b->w2 + e * b->words2, b->s2 + e * b->nsc2, &b->l2, b->w2bf + e * H * I, s));
    }
    for (int i = 1; i < b->rot_bf.copies; i++) {
      XP_CUDA(cudaMemcpyAsync(b->w13bf + (size_t)i * n13, b->w13bf, n13 * 2, cudaMemcpyDeviceToDevice, s));
      XP_CUDA(cudaMemcpyAsync(b->w2bf + (size_t)i * n2, b->w2bf, n2 * 2, cudaMemcpyDeviceToDevice, s));
    }
    XP_CUDA(cudaMalloc((void **)&b->ha, P * I * 2));
    XP_CUDA(cudaMalloc((void **)&b->gout, P * 2 * I * 2));
    XP_CUDA(cudaMalloc((void **)&b->dout, P * H * 2));
    XP_CUDA(w4a16_fill_bf16(b->ha, P * I, 0.05f, 1.0f, o->seed + 16, s));
    XP_CUBLAS(cublasLtCreate(&b->lt));
    XP_CUDA(cudaMalloc(&b->ws, XP_LT_WORKSPACE_BYTES));
  }
  XP_CUDA(cudaStreamSynchronize(s));
  return 0;
fail:
  return XP_EXIT_FAILED;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Routing sets for m tokens, their reference (routing 0), and the per-expert baseline's
** gathered rows. Each token picks topk distinct experts uniformly (partial Fisher-Yates),
** with positive weights summing to one. */
static int moe_routing(moe_bench *b, int m, const xp_kv_opts *o, cudaStream_t s) {
  moe_free_routing(b);
  b->m = m;
  b->P = m * b->topk;
  const size_t R = (size_t)b->R, P = (size_t)b->P, H = (size_t)b->H, I = (size_t)b->I;
  uint64_t seed = o->seed ^ (0x5eedULL * (uint64_t)m);
  int *perm = xp_xmalloc(sizeof *perm * (size_t)b->E), *keys = NULL;
  for (int e = 0; e < b->E; e++) perm[e] = e;
  b->hids = xp_xmalloc(R * P * sizeof *b->hids);
  b->hwt = xp_xmalloc(R * P * sizeof *b->hwt);
  double distinct = 0;
  unsigned char *seen = xp_xcalloc((size_t)b->E, 1);
  for (size_t r = 0; r < R; r++) {
    memset(seen, 0, (size_t)b->E);
    for (int t = 0; t < m; t++) {
      double sum = 0;
      for (int i = 0; i < b->topk; i++) {
        int j = i + (int)(rng_next(&seed) % (uint64_t)(b->E - i));
        int tmp = perm[i];
        perm[i] = perm[j], perm[j] = tmp;
        size_t at = r * P + (size_t)t * b->topk + i;
        b->hids[at] = perm[i];
        b->hwt[at] = (float)(0.1 + 0.9 * rng_unit(&seed));
        sum += b->hwt[at];
        if (!seen[perm[i]]) seen[perm[i]] = 1, distinct++;
      }
      for (int i = 0; i < b->topk; i++) b->hwt[r * P + (size_t)t * b->topk + i] /= (float)sum;
    }
  }
  free(seen);
  free(perm);
  b->avg_experts = distinct / (double)R;
  XP_CUDA(cudaMalloc((void **)&b->ids, R * P * sizeof(int)));
  XP_CUDA(cudaMalloc((void **)&b->wt, R * P * sizeof(float)));
  XP_CUDA(cudaMemcpy(b->ids, b->hids, R * P * sizeof(int), cudaMemcpyHostToDevice));
  XP_CUDA(cudaMemcpy(b->wt, b->hwt, R * P * sizeof(float), cudaMemcpyHostToDevice));

  /* Reference of routing 0: gate_up per pair, SiLU * up, down per pair, weighted sum. */
  XP_CUDA(cudaMalloc((void **)&b->xp, P * H * 4));
  XP_CUDA(cudaMalloc((void **)&b->gu_ref, P * 2 * I * 4));
  XP_CUDA(cudaMalloc((void **)&b->h_ref, P * I * 4));
  XP_CUDA(cudaMalloc((void **)&b->d_ref, P * H * 4));
  XP_CUDA(cudaMalloc((void **)&b->y_ref, (size_t)m * H * 4));
  for (size_t q = 0; q < P; q++)
    XP_CUDA(cudaMemcpyAsync(b->xp + q * H, b->xf + (q / (size_t)b->topk) * H, H * 4, cudaMemcpyDeviceToDevice, s));
  XP_CUDA(w4a16_ref_gemm(b->w13, b->s13, &b->l13, b->words13, b->nsc13, b->ids, b->E, b->xp, b->P, b->gu_ref, s));
  XP_CUDA(w4a16_ref_silu_mul(b->gu_ref, b->P, b->I, b->h_ref, s));
  XP_CUDA(w4a16_ref_gemm(b->w2, b->s2, &b->l2, b->words2, b->nsc2, b->ids, b->E, b->h_ref, b->P, b->d_ref, s));
  XP_CUDA(w4a16_ref_combine(b->d_ref, b->ids, b->wt, m, b->topk, b->E, b->H, b->y_ref, s));
  b->yref_h = xp_xmalloc((size_t)m * H * 4);
  XP_CUDA(cudaMemcpyAsync(b->yref_h, b->y_ref, (size_t)m * H * 4, cudaMemcpyDeviceToHost, s));

  if (b->need_bf) {
    /* Rows of each routing grouped by expert (id order), tokens in order within one. */
    b->nslot = xp_xcalloc(R, sizeof *b->nslot);
    b->slot_e = xp_xmalloc(R * P * sizeof(int));
    b->slot_cnt = xp_xmalloc(R * P * sizeof(int));
    b->slot_off = xp_xmalloc(R * P * sizeof(int));
    b->row_pair = xp_xmalloc(R * P * sizeof(int));
    keys = xp_xmalloc(P * sizeof *keys);
    XP_CUDA(cudaMalloc((void **)&b->xg, R * P * H * 2));
    for (size_t r = 0; r < R; r++) {
      for (size_t q = 0; q < P; q++) keys[q] = b->hids[r * P + q] * (int)W4A16_MAX_PAIRS + (int)q;
      qsort(keys, P, sizeof *keys, cmp_int);
      int ns = 0;
      for (size_t row = 0; row < P; row++) {
        int e = keys[row] / W4A16_MAX_PAIRS, q = keys[row] % W4A16_MAX_PAIRS;
        b->row_pair[r * P + row] = q;
        if (ns == 0 || b->slot_e[r * P + ns - 1] != e) {
          b->slot_e[r * P + ns] = e, b->slot_cnt[r * P + ns] = 0, b->slot_off[r * P + ns] = (int)row;
          ns++;
        }
        b->slot_cnt[r * P + ns - 1]++;
        XP_CUDA(cudaMemcpyAsync(b->xg + (r * P + row) * H, b->x + (size_t)(q / b->topk) * H, H * 2,
                                cudaMemcpyDeviceToDevice, s));
      }
      b->nslot[r] = ns;
    }
    /* Reference of routing 0's per-expert GEMMs: gate_up rows are gu_ref's pairs; down
    ** multiplies each expert's W2 with the random inputs ha. */
    int *rexp = xp_xmalloc(P * sizeof *rexp);
    for (size_t row = 0; row < P; row++) rexp[row] = b->hids[b->row_pair[row]];
    XP_CUDA(cudaMalloc((void **)&b->row_expert, P * sizeof(int)));
    cudaError_t e = cudaMemcpy(b->row_expert, rexp, P * sizeof(int), cudaMemcpyHostToDevice);
    free(rexp);
    XP_CUDA(e);
    XP_CUDA(cudaMalloc((void **)&b->haf, P * I * 4));
    XP_CUDA(cudaMalloc((void **)&b->dref2, P * H * 4));
    XP_CUDA(w4a16_bf16_to_f32(b->ha, b->haf, P * I, s));
    XP_CUDA(w4a16_ref_gemm(b->w2, b->s2, &b->l2, b->words2, b->nsc2, b->row_expert, b->E, b->haf, b->P, b->dref2, s));
    b->gu_h = xp_xmalloc(P * 2 * I * 4);
    b->dref2_h = xp_xmalloc(P * H * 4);
    XP_CUDA(cudaMemcpyAsync(b->gu_h, b->gu_ref, P * 2 * I * 4, cudaMemcpyDeviceToHost, s));
    XP_CUDA(cudaMemcpyAsync(b->dref2_h, b->dref2, P * H * 4, cudaMemcpyDeviceToHost, s));
    /* cuBLASLt plans for every row count this m's routings use, tuned cold over the experts
    ** of every copy. */
    for (size_t r = 0; r < R; r++)
      for (int j = 0; j < b->nslot[r]; j++) {
        int cnt = b->slot_cnt[r * P + j], rc;
        xp_lt *pl;
        if ((rc = lt_get(&b->plans13, b->lt, cnt, 2 * b->I, b->H, b->xg, b->w13bf, 2 * I * H * 2,
                         b->E * b->rot_bf.copies, b->gout, b->ws, s, &pl)) ||
            (rc = lt_get(&b->plans2, b->lt, cnt, b->H, b->I, b->ha, b->w2bf, H * I * 2, b->E * b->rot_bf.copies,
                         b->dout, b->ws, s, &pl))) {
          free(keys);
          return rc;
        }
      }
  }
  free(keys);
  XP_CUDA(cudaStreamSynchronize(s));
  return 0;
fail:
  free(keys);
  return XP_EXIT_FAILED;
}

/* Gate of the per-expert baseline: routing 0's gate_up rows against the reference pairs,
** and its down rows against W2_e * ha. Both rounding paths are bf16 GEMMs. */
static int moe_bf16_gate(moe_bench *b, xp_kv_case *c, const xp_kv_opts *o) {
  const size_t P = (size_t)b->P, I2 = 2 * (size_t)b->I, H = (size_t)b->H;
  uint16_t *g = xp_xmalloc(P * I2 * 2), *d = xp_xmalloc(P * H * 2);
  float *gref = xp_xmalloc(P * I2 * 4);
  int bad = 1;
  cudaError_t e = cudaMemcpy(g, b->gout, P * I2 * 2, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(d, b->dout, P * H * 2, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    case_fail(c, "reading the result: %s", cudaGetErrorString(e));
    goto done;
  }
  for (size_t row = 0; row < P; row++)
    memcpy(gref + row * I2, b->gu_h + (size_t)b->row_pair[row] * I2, I2 * 4);
  if (judge(c, g, gref, P * I2, I2, o->tolerance)) {
    char *why = xp_asprintf("gate_up: %s", c->note);
    free(c->note);
    c->note = why;
    goto done;
  }
  double gerr = c->max_err;
  cJSON_DeleteItemFromObject(c->params, "tolerance");
  cJSON_DeleteItemFromObject(c->params, "max_err");
  if (judge(c, d, b->dref2_h, P * H, H, o->tolerance)) {
    char *why = xp_asprintf("down: %s", c->note);
    free(c->note);
    c->note = why;
    goto done;
  }
  if (gerr > c->max_err) {
    c->max_err = gerr;
    cJSON_DeleteItemFromObject(c->params, "max_err");
    cJSON_AddNumberToObject(c->params, "max_err", gerr);
  }
  bad = 0;
done:
  free(g), free(d), free(gref);
  return bad;
}

static int moe_case(moe_bench *b, xp_kv_case *c, const xp_kv_opts *o, cudaStream_t s) {
  const enum which w = which_of(c->v);
  const size_t H = (size_t)b->H, m = (size_t)b->m;
  b->which = w;
  kernel_attrs(c, w);
  const double layer_bytes = w == V_MOE_BF16 ? b->bf_bytes : (double)b->weight_bytes;
  const double expert_bytes = layer_bytes / b->E;
  c->bytes = b->avg_experts * expert_bytes + 2.0 * (double)m * H * 2;
  cJSON_AddNumberToObject(c->params, "active_experts", b->avg_experts);
  cJSON_AddNumberToObject(c->params, "routings", b->R);
  const moe_rotation *rot = w == V_MOE_BF16 ? &b->rot_bf : &b->rot;
  cJSON_AddNumberToObject(c->params, "rotation_copies", rot->copies);
  cJSON_AddNumberToObject(c->params, "rotation_bytes", layer_bytes * rot->copies);
  /* fewer copies than the rotation asks for (device memory): launches may meet warm caches */
  if (rot->copies < rot->wanted) cJSON_AddNumberToObject(c->params, "rotation_copies_wanted", rot->wanted);
  if (w == V_MOE_BF16) {
    int chosen;
    xp_lt *p13 = lt_find(&b->plans13, 1, &chosen);
    cJSON_AddNumberToObject(c->params, "launches", 2.0 * b->avg_experts);
    if (p13) cJSON_AddStringToObject(c->params, "algo_gate_up_1_row", xp_lt_algo_desc(p13, chosen));
    xp_lt *p2 = lt_find(&b->plans2, 1, &chosen);
    if (p2) cJSON_AddStringToObject(c->params, "algo_down_1_row", xp_lt_algo_desc(p2, chosen));
  }

  cudaError_t e = cudaSuccess;
  if (w == V_MOE_BF16) {
    e = cudaMemsetAsync(b->gout, 0xff, (size_t)b->P * 2 * b->I * 2, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(b->dout, 0xff, (size_t)b->P * H * 2, s);
  } else {
    e = cudaMemsetAsync(b->y, 0xff, m * H * 2, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(b->h, 0xff, (size_t)b->P * b->I * 2, s);
  }
  if (e != cudaSuccess) {
    case_fail(c, "cudaMemsetAsync: %s", cudaGetErrorString(e));
    return device_state();
  }
  /* Launch 0 is routing 0 on copy 0, which the reference read; every other copy is a device
  ** copy of copy 0's bytes, so the gate on copy 0 holds for them all. */
  xp_error_quiet(1);
  int rc = enqueue_moe(b, s, 0);
  xp_error_quiet(0);
  if (rc) {
    case_fail(c, "launch failed: %s", xp_last_error());
    return device_state();
  }
  if ((e = cudaStreamSynchronize(s)) != cudaSuccess) {
    case_fail(c, "launch failed: %s", cudaGetErrorString(e));
    return device_state();
  }
  if (w == V_MOE_BF16) {
    if (moe_bf16_gate(b, c, o)) return 0;
  } else {
    if ((e = cudaMemcpy(b->yh, b->y, m * H * 2, cudaMemcpyDeviceToHost)) != cudaSuccess) {
      case_fail(c, "reading the result: %s", cudaGetErrorString(e));
      return device_state();
    }
    if (judge(c, b->yh, b->yref_h, m * H, H, o->tolerance)) return 0;
  }
  rc = time_case(c, s, enqueue_moe, b, rot->launches, o);
  if (rc == XP_EXIT_ABORTED) return rc;
  if (rc) return device_state();
  if (w == V_MOE_BF16) return 0;
  /* grouped_moe's floors: the expert bytes of a batch read bare from the copies the kernel
  ** reads, in its order (copy rep % copies; within a copy's block at places in turn), and
  ** the launch with routing and barrier only. */
  xp_kv_reads r;
  int planned = xp_kv_reads_plan(&r, b->avg_experts * expert_bytes, b->weight_bytes, b->copy_stride, b->rot.copies,
                                 b->rot.launches / b->rot.copies) == 0;
  rc = read_floor(c, b->w13, planned ? &r : NULL, o, s);
  if (rc) return rc;
  static const struct {
    int floor;
    const char *name;
  } floors[] = {{MOE_LAUNCH_FLOOR, "launch_floor_us"},
                {W4A16_SKEL_BETWEEN, "skeleton_floor_us"},
                {W4A16_SKEL_LAST, "stream_floor_us"},
                {W4A16_SKEL_NONE, "routed_read_floor_us"}};
  for (size_t i = 0; i < sizeof floors / sizeof *floors; i++) {
    b->floor = floors[i].floor;
    if ((rc = time_floor(c, floors[i].name, enqueue_moe_floor, b, b->rot.launches, o, s))) return rc;
  }
  return 0;
}

static int cmp_case_m(const void *a, const void *b) {
  const xp_kv_case *x = a, *y = b;
  return (x->p.m > y->p.m) - (x->p.m < y->p.m);
}

static int moe_batch(xp_kv_case *cases, int n, const xp_kv_opts *o, cudaStream_t s) {
  moe_bench b;
  memset(&b, 0, sizeof b);
  int rc = moe_setup(&b, cases, n, o, s);
  if (rc) {
    for (int i = 0; i < n; i++) case_fail(&cases[i], "setting up the operands failed: %s", xp_last_error());
    moe_free(&b);
    return device_state();
  }
  /* Cases of one m share a routing: stable grouping by m keeps the spec's variant order. */
  int *order = xp_xmalloc(sizeof *order * (size_t)n);
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && cmp_case_m(&cases[order[j - 1]], &cases[order[j]]) > 0; j--) {
      int t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  for (int i = 0; i < n && rc == 0; i++) {
    xp_kv_case *c = &cases[order[i]];
    if (xp_interrupted()) {
      rc = XP_EXIT_ABORTED;
      break;
    }
    if (i == 0 || c->p.m != b.m) {
      rc = moe_routing(&b, c->p.m, o, s);
      if (rc == XP_EXIT_ABORTED) break;
      if (rc) {
        const char *why = xp_last_error();
        for (int j = i; j < n && cases[order[j]].p.m == c->p.m; j++)
          case_fail(&cases[order[j]], "setting up routings for m = %d failed: %s", c->p.m, why);
        rc = device_state();
        while (i + 1 < n && cases[order[i + 1]].p.m == c->p.m) i++;
        b.m = c->p.m;
        continue;
      }
    }
    rc = moe_case(&b, c, o, s);
  }
  free(order);
  moe_free(&b);
  return rc;
}

int xp_kv_w4a16_measure(xp_kv_case *cases, int n, const xp_kv_opts *o) {
  cudaStream_t s = NULL;
  int rc = XP_EXIT_FAILED;
  if (n <= 0) return 0;
  XP_CUDA(cudaSetDevice(o->device));
  XP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  rc = cases[0].p.moe ? moe_batch(cases, n, o, s) : gemm_batch(cases, n, o, s);
fail:
  if (s) cudaStreamDestroy(s);
  return rc;
}
#endif /* XP_HAVE_CUDA */
