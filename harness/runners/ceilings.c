/*
** Run kind `ceilings`: what one device can do at best, measured once per device and driver.
**
**   copy         a kernel copying copy_bytes with 16-byte loads and stores over every SM
**                (cudaMemcpy reaches far less, see ../shared/anchors.md): GB/s counts the
**                bytes read plus the bytes written.
**   matmul_bf16  cuBLASLt on random M = N = K = matmul_size operands, the fastest of the
**   matmul_fp8   heuristic's top_n algorithms; fp8 (e4m3) only where the device has it.
**
** A candidate cuBLASLt refuses to run (a cuBLAS status, the CUDA context intact) is left out,
** as gemm leaves it out (gemm_pick.h), and named in the case's params (candidates_refused,
** refused); one lost context still fails the run. A peak cuBLASLt has no plan for, refuses
** every candidate of, or runs no candidate of right, is a failed case naming why (as a gemm
** shape is), the other ceilings kept: gemm looks up a run that measured the peak it needs.
**
** The run files its results under meta keys ceilings.gpu_uuid, ceilings.gpu_name and
** ceilings.driver, which is how `gemm` runs find the latest ceilings of their device.
*/
#include "runners/ceilings.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "kind.h"
#include "runners/gemm_pick.h"
#include "stats.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "ceilings/ceilings.h"
#include "gpu.h"
#include "lt.h"
#endif

void xp_ceilings_opts_default(xp_ceilings_opts *o) {
  memset(o, 0, sizeof *o);
  o->copy_bytes = (int64_t)1 << 30;
  o->matmul_size = 8192;
  o->samples = 20;
  o->warmup = 3;
  o->top_n = 8;
  o->bf16 = o->fp8 = 1;
}

void xp_ceilings_driver(char *out, size_t n) {
  snprintf(out, n, "unknown");
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  if (f) {
    char line[256];
    char *k = fgets(line, sizeof line, f) ? strstr(line, "Kernel Module") : NULL;
    fclose(f);
    if (k) {
      k += strlen("Kernel Module");
      while (*k == ' ') k++;
      k[strcspn(k, " \n")] = 0;
      if (*k) {
        snprintf(out, n, "%s", k);
        return;
      }
    }
  }
#ifdef XP_HAVE_CUDA
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) {
    char ver[16];
    xp_cuda_version_text(v, ver, sizeof ver);
    snprintf(out, n, "cuda %s", ver);
  }
  cudaGetLastError();
#endif
}

/* ---- lookup (no GPU needed: plain SQL over earlier runs) ---- */

static const char lookup_sql[] =
    "SELECT r.id, r.uuid, u.value = ?1 AS same_gpu FROM runs r "
    "JOIN run_meta d ON d.run_id = r.id AND d.key = 'ceilings.driver' AND d.value = ?3 "
    "JOIN run_meta u ON u.run_id = r.id AND u.key = 'ceilings.gpu_uuid' "
    "JOIN run_meta g ON g.run_id = r.id AND g.key = 'ceilings.gpu_name' "
    "WHERE r.kind = 'ceilings' AND r.status = 'ok' AND (u.value = ?1 OR g.value = ?2) "
    "AND (NOT ?4 OR EXISTS (SELECT 1 FROM cases c WHERE c.run_id = r.id AND c.status = 'ok' AND c.name = 'matmul_bf16')) "
    "AND (NOT ?5 OR EXISTS (SELECT 1 FROM cases c WHERE c.run_id = r.id AND c.status = 'ok' AND c.name = 'matmul_fp8')) "
    "ORDER BY same_gpu DESC, r.started_at DESC, r.id DESC LIMIT 1";

static const char median_sql[] =
    "SELECT c.name, m.median FROM cases c JOIN metrics m ON m.case_id = c.id "
    "WHERE c.run_id = ?1 AND c.status = 'ok' AND "
    "((c.name = 'copy' AND m.name = 'gbps') OR (c.name LIKE 'matmul_%' AND m.name = 'tflops'))";

int xp_ceilings_lookup(sqlite3 *db, const char *gpu_uuid, const char *gpu_name,
                       const char *driver, xp_ceilings *out) {
  return xp_ceilings_lookup_peaks(db, gpu_uuid, gpu_name, driver, 0, 0, out);
}

int xp_ceilings_lookup_peaks(sqlite3 *db, const char *gpu_uuid, const char *gpu_name,
                             const char *driver, int need_bf16, int need_fp8, xp_ceilings *out) {
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st = NULL;
  int rc = XP_EXIT_DB;
  int64_t id = -1;
  if (sqlite3_prepare_v2(db, lookup_sql, -1, &st, NULL) != SQLITE_OK) goto dbfail;
  xp_bind_text(st, 1, gpu_uuid);
  xp_bind_text(st, 2, gpu_name);
  xp_bind_text(st, 3, driver);
  sqlite3_bind_int(st, 4, need_bf16);
  sqlite3_bind_int(st, 5, need_fp8);
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    id = sqlite3_column_int64(st, 0);
    snprintf(out->run_uuid, sizeof out->run_uuid, "%s", (const char *)sqlite3_column_text(st, 1));
    snprintf(out->match, sizeof out->match, "%s", sqlite3_column_int(st, 2) ? "uuid" : "name");
  } else if (s != SQLITE_DONE) goto dbfail;
  sqlite3_finalize(st);
  st = NULL;
  if (id < 0) return 1;
  if (sqlite3_prepare_v2(db, median_sql, -1, &st, NULL) != SQLITE_OK) goto dbfail;
  sqlite3_bind_int64(st, 1, id);
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    double v = sqlite3_column_double(st, 1);
    if (strcmp(name, "copy") == 0) out->copy_gbps = v;
    else if (strcmp(name, "matmul_bf16") == 0) out->bf16_tflops = v;
    else if (strcmp(name, "matmul_fp8") == 0) out->fp8_tflops = v;
  }
  if (s != SQLITE_DONE) goto dbfail;
  sqlite3_finalize(st);
  if (out->copy_gbps <= 0) return 1; /* a ceilings run without a copy result cannot serve */
  return 0;
dbfail:
  rc = xp_db_fail(db, "looking up the device's ceilings run");
  sqlite3_finalize(st);
  return rc;
}

/* ---- recording ---- */

static int record_one(xp_run *r, const xp_ceiling_result *c, const char *prefix) {
  int is_copy = strcmp(c->name, "copy") == 0;
  char name[64];
  snprintf(name, sizeof name, "%s%s", prefix, c->name);
  cJSON *p = cJSON_CreateObject();
  if (is_copy) {
    cJSON_AddNumberToObject(p, "bytes", (double)c->bytes);
    cJSON_AddNumberToObject(p, "blocks", c->blocks);
    cJSON_AddNumberToObject(p, "threads", 256);
  } else {
    cJSON_AddNumberToObject(p, "m", (double)c->size);
    cJSON_AddNumberToObject(p, "n", (double)c->size);
    cJSON_AddNumberToObject(p, "k", (double)c->size);
    cJSON_AddStringToObject(p, "dtype", strcmp(c->name, "matmul_fp8") == 0 ? "fp8" : "bf16");
    cJSON_AddStringToObject(p, "algo", c->algo);
    cJSON_AddNumberToObject(p, "candidates", c->ncand);
    cJSON_AddNumberToObject(p, "candidates_refused", c->nrefused);
    if (c->refused[0]) cJSON_AddStringToObject(p, "refused", c->refused);
  }
  cJSON_AddNumberToObject(p, "launches", c->launches);
  int64_t id = xp_run_case(r, name, p, c->failed ? "failed" : "ok", c->failed ? c->note : NULL);
  cJSON_Delete(p);
  if (id < 0) return XP_EXIT_DB;
  if (c->failed) return 0;
  if (xp_run_metric(r, id, "time_us", "us", c->time_us, (size_t)c->n) ||
      xp_run_metric(r, id, is_copy ? "gbps" : "tflops", is_copy ? "GB/s" : "TFLOP/s", c->rate,
                    (size_t)c->n))
    return XP_EXIT_DB;
  return 0;
}

int xp_ceilings_record_identity(xp_run *r, int device, const char *gpu_uuid,
                                const char *gpu_name, const char *driver) {
  if (xp_run_meta_int(r, "ceilings.device", device, "detected") ||
      xp_run_meta(r, "ceilings.gpu_uuid", gpu_uuid, "detected") ||
      xp_run_meta(r, "ceilings.gpu_name", gpu_name, "detected") ||
      xp_run_meta(r, "ceilings.driver", driver, "detected"))
    return XP_EXIT_DB;
  return 0;
}

int xp_ceilings_record(xp_run *r, const xp_ceilings_meas *m, const char *prefix) {
  for (int i = 0; i < m->nr; i++) {
    int rc = record_one(r, &m->r[i], prefix);
    if (rc) return rc;
  }
  return 0;
}

static double median_of(const xp_ceiling_result *c) {
  xp_stats st;
  xp_stats_compute(c->rate, (size_t)c->n, &st);
  return st.median;
}

void xp_ceilings_summarize(const xp_ceilings_meas *m, xp_ceilings *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < m->nr; i++) {
    const xp_ceiling_result *c = &m->r[i];
    if (c->failed) continue;
    if (strcmp(c->name, "copy") == 0) out->copy_gbps = median_of(c);
    else if (strcmp(c->name, "matmul_bf16") == 0) out->bf16_tflops = median_of(c);
    else if (strcmp(c->name, "matmul_fp8") == 0) out->fp8_tflops = median_of(c);
  }
}

void xp_ceilings_meas_free(xp_ceilings_meas *m) {
  for (int i = 0; i < m->nr; i++) {
    free(m->r[i].time_us);
    free(m->r[i].rate);
  }
  m->nr = 0;
}

/* ---- measuring ---- */
#ifdef XP_HAVE_CUDA

struct copy_arg { void *dst; const void *src; size_t bytes; int blocks; };

static int enqueue_copy(void *arg, cudaStream_t s, int rep) {
  struct copy_arg *a = arg;
  int rc = XP_EXIT_FAILED;
  XP_CUDA(xp_copy16(a->dst, a->src, a->bytes, a->blocks, s));
  rc = 0;
fail:
  return rc;
}

static xp_ceiling_result *new_result(xp_ceilings_meas *m, const char *name, int n) {
  xp_ceiling_result *c = &m->r[m->nr++];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->n = n;
  c->time_us = xp_xcalloc((size_t)n, sizeof *c->time_us);
  c->rate = xp_xcalloc((size_t)n, sizeof *c->rate);
  return c;
}

static int measure_copy(const xp_ceilings_opts *o, cudaStream_t s, xp_ceilings_meas *m) {
  void *src = NULL, *dst = NULL;
  int rc = XP_EXIT_FAILED, blocks = 0;
  size_t bytes = (size_t)o->copy_bytes & ~(size_t)15;
  XP_CUDA(xp_copy16_grid(o->device, &blocks));
  XP_CUDA(cudaMalloc(&src, bytes));
  XP_CUDA(cudaMalloc(&dst, bytes));
  XP_CUDA(xp_fill_uniform(src, bytes / 2, XP_KDT_BF16, 7, s));
  xp_ceiling_result *c = new_result(m, "copy", o->samples);
  c->bytes = (int64_t)bytes;
  c->blocks = blocks;
  c->launches = 10;
  struct copy_arg a = {dst, src, bytes, blocks};
  if ((rc = xp_time_graph(s, enqueue_copy, &a, c->launches, o->warmup, o->samples, c->time_us)))
    goto fail;
  for (int i = 0; i < c->n; i++) c->rate[i] = 2.0 * (double)bytes / (c->time_us[i] * 1e3);
  snprintf(c->algo, sizeof c->algo, "copy16 %d blocks x 256 threads", blocks);
  rc = 0;
fail:
  if (src) cudaFree(src);
  if (dst) cudaFree(dst);
  return rc;
}

struct mm_arg { xp_lt *p; const void *A, *W; void *D; const float *sa, *sw; void *ws; };

static const char *peak_name(enum xp_lt_dtype dt) { return dt == XP_LT_FP8_E4M3 ? "matmul_fp8" : "matmul_bf16"; }

/* A peak cuBLASLt runs no plan for: its case fails, saying why; the run goes on. */
__attribute__((format(printf, 4, 5))) static void peak_failed(xp_ceilings_meas *m, enum xp_lt_dtype dt, size_t n,
                                                              const char *fmt, ...) {
  xp_ceiling_result *c = new_result(m, peak_name(dt), 0);
  c->size = (int64_t)n;
  c->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->note, sizeof c->note, fmt, ap);
  va_end(ap);
  xp_warn("%s: %s", c->name, c->note);
}

static int enqueue_mm(void *arg, cudaStream_t s, int rep) {
  struct mm_arg *a = arg;
  return xp_lt_run(a->p, a->A, a->W, a->D, a->sa, a->sw, a->ws, s);
}

static double median_us(const double *v, int n) {
  xp_stats st;
  xp_stats_compute(v, (size_t)n, &st);
  return st.median;
}

/* Check candidate idx of p against the reference: c right, wrong, or refused by cuBLASLt. */
static int check_candidate(struct mm_arg *a, int idx, xp_gemm_cand *c, const float *ref,
                           size_t count, cudaStream_t s) {
  int rc = XP_EXIT_FAILED;
  xp_gemm_check chk;
  c->algo = xp_lt_algo_id(a->p, idx);
  c->desc = xp_lt_algo_desc(a->p, idx);
  /* NaN (bf16 0xffff) in D first: a candidate that writes part of it, or none, must not pass
  ** on an earlier candidate's answer, or on what a fresh allocation happened to hold */
  XP_CUDA(cudaMemsetAsync(a->D, 0xff, count * 2, s));
  if ((rc = xp_lt_select(a->p, idx))) return rc;
  xp_error_quiet(1);
  rc = xp_lt_run(a->p, a->A, a->W, a->D, a->sa, a->sw, a->ws, s);
  xp_error_quiet(0);
  if (rc) return xp_gemm_settle(a->p, c, rc);
  rc = XP_EXIT_FAILED;
  XP_CUDA(xp_check_gemm(a->D, ref, count, XP_GEMM_CHECK_RTOL, XP_GEMM_CHECK_ATOL_RMS, &chk, s));
  c->outcome = chk.bad == 0 ? XP_GEMM_RIGHT : XP_GEMM_WRONG;
  rc = 0;
fail:
  return rc;
}

/* A screening of candidate idx (a few replays), *us its median; one cuBLASLt refuses under
** capture comes back marked refused. */
static int screen_candidate(struct mm_arg *a, int idx, xp_gemm_cand *c, int launches,
                            cudaStream_t s, double *us) {
  double probe[5];
  int rc = xp_lt_select(a->p, idx);
  if (rc) return rc;
  xp_error_quiet(1);
  rc = xp_time_graph(s, enqueue_mm, a, launches, 1, 5, probe);
  xp_error_quiet(0);
  if (rc) return xp_gemm_settle(a->p, c, rc);
  *us = median_us(probe, 5);
  return 0;
}

static int measure_matmul(const xp_ceilings_opts *o, enum xp_lt_dtype dt, cublasLtHandle_t h,
                          cudaStream_t s, xp_ceilings_meas *m) {
  size_t n = (size_t)o->matmul_size, eb = (size_t)xp_lt_elem_bytes(dt);
  void *A = NULL, *W = NULL, *D = NULL, *ws = NULL;
  float *ref = NULL;
  xp_lt *p = NULL;
  xp_gemm_cand *cand = NULL;
  int rc = XP_EXIT_FAILED;
  const float host_scales[2] = {0.5f, 4.0f}; /* fp8 dequantisation scales, a and w */
  XP_CUDA(cudaMalloc(&A, n * n * eb));
  XP_CUDA(cudaMalloc(&W, n * n * eb));
  XP_CUDA(cudaMalloc(&D, n * n * 2));
  XP_CUDA(cudaMalloc((void **)&ref, n * n * sizeof(float)));
  XP_CUDA(cudaMalloc(&ws, XP_LT_WORKSPACE_BYTES));
  XP_CUDA(xp_fill_uniform(A, n * n, (int)dt, 11, s));
  XP_CUDA(xp_fill_uniform(W, n * n, (int)dt, 12, s));
  float scale = dt == XP_LT_FP8_E4M3 ? host_scales[0] * host_scales[1] : 1.0f;
  XP_CUDA(xp_ref_gemm(A, W, ref, (int)n, (int)n, (int)n, 1, (int)dt, scale, s));
  xp_error_quiet(1);
  rc = xp_lt_create(h, (int)n, (int)n, (int)n, dt, XP_LT_WORKSPACE_BYTES, o->top_n, &p);
  xp_error_quiet(0);
  if (rc == XP_EXIT_FAILED) { /* no plan for this dtype here (the heuristic's status said) */
    peak_failed(m, dt, n, "%s", xp_last_error());
    xp_clear_error();
    rc = 0;
    goto fail;
  }
  if (rc) { /* said now, as it was not above */
    xp_error(rc, "%s", xp_last_error());
    goto fail;
  }
  struct mm_arg a = {p, A, W, D, host_scales, host_scales + 1, ws};
  /* The fastest right candidate, screened with a few replays each. */
  const int ncand = xp_lt_algo_count(p);
  int best = -1, launches = 5;
  double best_us = INFINITY;
  cand = xp_xcalloc((size_t)ncand, sizeof *cand);
  for (int i = 0; i < ncand; i++) {
    double us = INFINITY;
    if ((rc = check_candidate(&a, i, &cand[i], ref, n * n, s))) goto fail;
    if (cand[i].outcome != XP_GEMM_RIGHT) continue;
    if ((rc = screen_candidate(&a, i, &cand[i], launches, s, &us))) goto fail;
    if (cand[i].outcome == XP_GEMM_REFUSED) continue;
    if (us < best_us) best_us = us, best = i;
  }
  char refused[240];
  xp_gemm_refused_list(cand, ncand, refused, sizeof refused);
  if (best < 0) { /* every candidate refused, or none that ran was right: as a gemm shape */
    if (xp_gemm_first_run(cand, ncand) < 0)
      peak_failed(m, dt, n, "cuBLASLt refused every candidate: %s", refused);
    else
      peak_failed(m, dt, n, "no algorithm matched the float32 reference%s%s",
                  refused[0] ? "; cuBLASLt refused " : "", refused);
    rc = 0;
    goto fail;
  }
  if ((rc = xp_lt_select(p, best))) goto fail;
  xp_ceiling_result *c = new_result(m, peak_name(dt), o->samples);
  c->size = (int64_t)n;
  c->launches = launches;
  c->ncand = ncand;
  c->nrefused = xp_gemm_count(cand, ncand, XP_GEMM_REFUSED);
  snprintf(c->refused, sizeof c->refused, "%s", refused);
  snprintf(c->algo, sizeof c->algo, "%s", xp_lt_algo_desc(p, best));
  if ((rc = xp_time_graph(s, enqueue_mm, &a, launches, o->warmup, o->samples, c->time_us)))
    goto fail;
  for (int i = 0; i < c->n; i++) c->rate[i] = 2.0 * n * n * n / (c->time_us[i] * 1e6);
  rc = 0;
fail:
  free(cand);
  xp_lt_destroy(p);
  cudaFree(A), cudaFree(W), cudaFree(D), cudaFree(ref), cudaFree(ws);
  return rc;
}

int xp_ceilings_measure(const xp_ceilings_opts *o, xp_ceilings_meas *out) {
  memset(out, 0, sizeof *out);
  cudaStream_t s = NULL;
  cublasLtHandle_t h = NULL;
  int rc = XP_EXIT_FAILED;
  XP_CUDA(cudaSetDevice(o->device));
  XP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  XP_CUBLAS(cublasLtCreate(&h));
  if ((rc = measure_copy(o, s, out))) goto fail;
  if (xp_interrupted()) { rc = XP_EXIT_ABORTED; goto fail; }
  if (o->bf16 && (rc = measure_matmul(o, XP_LT_BF16, h, s, out))) goto fail;
  if (xp_interrupted()) { rc = XP_EXIT_ABORTED; goto fail; }
  if (o->fp8 && (rc = measure_matmul(o, XP_LT_FP8_E4M3, h, s, out))) goto fail;
  rc = 0;
fail:
  if (h) cublasLtDestroy(h);
  if (s) cudaStreamDestroy(s);
  if (rc) xp_ceilings_meas_free(out);
  return rc;
}
#else
int xp_ceilings_measure(const xp_ceilings_opts *o, xp_ceilings_meas *out) {
  memset(out, 0, sizeof *out);
  return xp_error(XP_EXIT_ENV, "measuring ceilings needs a GPU, and this xp was built without "
                  "CUDA (rebuild with -DXP_CUDA=ON)");
}
#endif

/* ---- the run kind ---- */

static const char *const dtype_choices[] = {"bf16", "fp8", NULL};

static const xp_field ceilings_fields[] = {
    {"device", XP_T_INT, 0, NULL, NULL, 0, 1024, "CUDA device index to measure (default 0)"},
    {"copy_mib", XP_T_INT, 0, NULL, NULL, 1, 1 << 20, "bytes copied per launch, MiB (default 1024)"},
    {"matmul_size", XP_T_INT, 0, NULL, NULL, 256, 65536, "M = N = K of the peak matmul (default 8192)"},
    {"matmul_dtypes", XP_T_STRINGS, 0, dtype_choices, NULL, 0, 0,
     "peaks to measure (default bf16, and fp8 where the device has it)"},
    {"samples", XP_T_INT, 0, NULL, NULL, 3, 100000, "timed graph replays per ceiling (default 20)"},
    {"warmup", XP_T_INT, 0, NULL, NULL, 0, 10000, "untimed replays first (default 3)"},
    {"top_n", XP_T_INT, 0, NULL, NULL, 1, 64, "matmul algorithms tried (default 8)"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static int has_string(const cJSON *arr, const char *s) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0) return 1;
  return 0;
}

/* Options from a validated spec. fp8_explicit: the spec asked for fp8 by name. */
static void opts_from_spec(const xp_spec *spec, xp_ceilings_opts *o, int *fp8_explicit) {
  const cJSON *r = spec->root;
  xp_ceilings_opts_default(o);
  o->device = (int)xp_spec_int(r, "device", 0);
  o->copy_bytes = xp_spec_int(r, "copy_mib", 1024) << 20;
  o->matmul_size = (int)xp_spec_int(r, "matmul_size", o->matmul_size);
  o->samples = (int)xp_spec_int(r, "samples", o->samples);
  o->warmup = (int)xp_spec_int(r, "warmup", o->warmup);
  o->top_n = (int)xp_spec_int(r, "top_n", o->top_n);
  const cJSON *dts = cJSON_GetObjectItemCaseSensitive(r, "matmul_dtypes");
  *fp8_explicit = 0;
  if (dts) {
    o->bf16 = has_string(dts, "bf16");
    o->fp8 = *fp8_explicit = has_string(dts, "fp8");
  }
}

/* a dtype twice was measured once, and the spec's hash told the two spellings apart */
static int ceilings_check(const xp_spec *spec) { return xp_spec_check_distinct(spec, "matmul_dtypes", NULL); }

static int ceilings_plan(const xp_spec *spec, FILE *out) {
  xp_ceilings_opts o;
  int fp8_explicit;
  opts_from_spec(spec, &o, &fp8_explicit);
  fprintf(out, "ceilings on device %d:\n", o.device);
  fprintf(out, "  copy         %lld MiB -> %lld MiB with the copy16 kernel (16-byte loads and "
          "stores, every SM filled); GB/s = (read + write) / time\n",
          (long long)(o.copy_bytes >> 20), (long long)(o.copy_bytes >> 20));
  if (o.bf16)
    fprintf(out, "  matmul_bf16  %d^3 random bf16, fastest right algorithm of cuBLASLt's top %d\n",
            o.matmul_size, o.top_n);
  if (o.fp8)
    fprintf(out, "  matmul_fp8   %d^3 random e4m3 with scales, top %d%s\n", o.matmul_size, o.top_n,
            fp8_explicit ? " (fails where the device lacks fp8)" : " (skipped before cc 8.9)");
  fprintf(out, "  %d timed CUDA-graph replays each after %d warm-up replays\n", o.samples, o.warmup);
  return 0;
}

#ifdef XP_HAVE_CUDA
static void print_ceilings(FILE *out, const xp_gpu_info *g, const char *driver,
                           const xp_ceilings_meas *m) {
  fprintf(out, "%s (%s), driver %s\n", g->name, g->uuid, driver);
  for (int i = 0; i < m->nr; i++) {
    const xp_ceiling_result *c = &m->r[i];
    if (c->failed) {
      fprintf(out, "  %-12s failed: %s\n", c->name, c->note);
      continue;
    }
    xp_stats st;
    xp_stats_compute(c->rate, (size_t)c->n, &st);
    int copy = strcmp(c->name, "copy") == 0;
    fprintf(out, "  %-12s %9.1f %-7s (p10 %.1f, p90 %.1f)  %s\n", c->name, st.median,
            copy ? "GB/s" : "TFLOP/s", st.p10, st.p90, c->algo);
  }
}

static int ceilings_execute(xp_ctx *ctx) {
  xp_ceilings_opts o;
  int fp8_explicit, rc;
  opts_from_spec(ctx->spec, &o, &fp8_explicit);
  if ((rc = xp_spec_check_device(ctx->spec, "device", o.device, xp_gpu_count())) != 0) return rc;
  xp_gpu_info g;
  if ((rc = xp_gpu_describe(o.device, &g))) return rc;
  int major = 0, minor = 0;
  sscanf(g.cc, "%d.%d", &major, &minor);
  if (o.fp8 && major * 10 + minor < 89) {
    if (fp8_explicit)
      return xp_error(XP_EXIT_ENV, "fp8 (e4m3) matmul needs compute capability 8.9 or newer; "
                      "device %d (%s) is %s", o.device, g.name, g.cc);
    o.fp8 = 0;
  }
  char driver[64];
  xp_ceilings_driver(driver, sizeof driver);
  xp_ceilings_meas m;
  if ((rc = xp_ceilings_measure(&o, &m))) return rc;
  rc = XP_EXIT_DB;
  if (xp_ceilings_record_identity(ctx->run, o.device, g.uuid, g.name, driver) ||
      xp_ceilings_record(ctx->run, &m, ""))
    goto done;
  if (!ctx->quiet) print_ceilings(ctx->out, &g, driver, &m);
  rc = 0;
done:
  xp_ceilings_meas_free(&m);
  return rc;
}
#endif

const xp_kind xp_kind_ceilings = {
    .name = "ceilings",
    .summary = "device ceilings: copy-kernel bandwidth and bf16/fp8 matmul peaks, per device and driver",
    .fields = ceilings_fields,
    .needs_gpu = 1,
    .check = ceilings_check,
    .plan = ceilings_plan,
    .execute = XP_GPU_EXECUTE(ceilings_execute),
};
