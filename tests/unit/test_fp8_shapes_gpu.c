/* The fp8 shape rules the gemm runner refuses a spec by (xp_gemm_fp8_takes, gemm.c's
** fp8_rules: fp8 K whole 16s and N whole 8s; fp8_block K whole 16s, any N), held against
** what cuBLASLt does on this GPU: a shape the rules take gets a plan whose result matches the float32 reference, and a shape they refuse gets no right
** result (no plan, a refused launch, a wrong product or a fault), so a rule stricter than
** cuBLASLt shows here as a failure naming the shape, as one looser than it does.
**
** A launch at a shape cuBLASLt cannot take may fault and lose the CUDA context, so every
** probe runs in a child process of its own; the parent never touches CUDA. Skipped (77)
** without a GPU, or fp8 (compute capability below 8.9). fp8_block is checked only where
** cuBLASLt runs block scales (Hopper, block_scales.h); elsewhere it is said and left out. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "ceilings/block_scales.h"
#include "ceilings/ceilings.h"
#include "gpu.h"
#include "lt.h"
#include "runners/gemm.h"
#include "runners/gemm_pick.h"

/* A probe's outcome: its child's exit status. */
enum outcome { RIGHT, WRONG, NO_PLAN, REFUSED, FAULT, NO_BLOCK, NO_FP8, NO_GPU, BROKEN };
static const char *outcome_name[] = {"right", "wrong", "no plan", "refused at launch", "fault",
                                     "no block scales on this GPU (not checked)",
                                     "no fp8 on this GPU", "no GPU", "probe failed"};

struct probe {
  enum xp_lt_dtype dt;
  int m, n, k;
};

static int cc(void) {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
    return -1;
  return major * 10 + minor;
}

/* The product of fresh random operands (scales too), launched with the plan's candidate 0 and
** compared with the reference; in a child, so a fault ends only the probe. */
static enum outcome run_probe(const struct probe *pr) {
  cudaStream_t s;
  cublasLtHandle_t h;
  void *ws = NULL, *A = NULL, *W = NULL, *D = NULL;
  float *ref = NULL, *sa = NULL, *sw = NULL;
  xp_lt *p = NULL;
  if (xp_gpu_count() == 0) return NO_GPU;
  const int c = cc();
  if (c < 89) return NO_FP8;
  if (pr->dt == XP_LT_FP8_BLOCK && !xp_block_scales_run_on(c / 10, c % 10, (long)cublasLtGetVersion()))
    return NO_BLOCK;
  if (cudaStreamCreate(&s) != cudaSuccess || cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS ||
      cudaMalloc(&ws, XP_LT_WORKSPACE_BYTES) != cudaSuccess)
    return BROKEN;
  xp_error_quiet(1);
  int rc = xp_lt_create(h, pr->m, pr->n, pr->k, pr->dt, XP_LT_WORKSPACE_BYTES, 4, &p);
  xp_error_quiet(0);
  if (rc) {
    printf("    %s\n", xp_last_error());
    return NO_PLAN;
  }
  const int m = xp_lt_m(p), n = pr->n, k = pr->k, block = pr->dt == XP_LT_FP8_BLOCK;
  const xp_block_layout l = xp_block_layout_of(m, n, k);
  const float hs[2] = {0.5f, 4.0f}; /* per-tensor scales live in host memory (lt.c) */
  if (cudaMalloc(&A, (size_t)m * k) || cudaMalloc(&W, (size_t)n * k) ||
      cudaMalloc(&D, (size_t)m * n * 2) || cudaMalloc((void **)&ref, (size_t)m * n * 4) ||
      cudaMalloc((void **)&sa, (size_t)l.a_count * 4) || cudaMalloc((void **)&sw, (size_t)l.w_count * 4) ||
      xp_fill_uniform(A, (size_t)m * k, XP_KDT_FP8_E4M3, 51, s) ||
      xp_fill_uniform(W, (size_t)n * k, XP_KDT_FP8_E4M3, 52, s) ||
      xp_fill_scales(sa, (size_t)l.a_count, 53, s) || xp_fill_scales(sw, (size_t)l.w_count, 54, s))
    return BROKEN;
  xp_error_quiet(1);
  rc = block ? xp_lt_run(p, A, W, D, sa, sw, ws, s) : xp_lt_run(p, A, W, D, hs, hs + 1, ws, s);
  xp_error_quiet(0);
  if (rc) {
    printf("    %s\n", xp_last_error());
    return xp_gpu_sticky_error() != cudaSuccess ? FAULT : REFUSED;
  }
  if (cudaStreamSynchronize(s) != cudaSuccess) return FAULT;
  cudaError_t e = block ? xp_ref_gemm_block(A, W, sa, sw, ref, m, n, k, xp_lt_out_transposed(p), s)
                        : xp_ref_gemm(A, W, ref, m, n, k, 1, XP_KDT_FP8_E4M3, hs[0] * hs[1], s);
  xp_gemm_check chk;
  if (e != cudaSuccess ||
      xp_check_gemm(D, ref, (size_t)m * n, XP_GEMM_CHECK_RTOL, XP_GEMM_CHECK_ATOL_RMS, &chk, s))
    return BROKEN;
  printf("    plan rows %d, #0 %s: %llu of %llu wrong\n", m, xp_lt_algo_desc(p, 0), chk.bad, chk.count);
  return chk.bad == 0 && chk.ref_rms > 0 ? RIGHT : WRONG;
}

static enum outcome in_child(const struct probe *pr) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    enum outcome o = run_probe(pr);
    fflush(stdout);
    _exit((int)o);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return BROKEN;
  if (WIFSIGNALED(st)) return FAULT;
  return WEXITSTATUS(st) <= BROKEN ? (enum outcome)WEXITSTATUS(st) : BROKEN;
}

/* What the gemm runner's rules say of a shape: 1 it runs, 0 it is refused. */
static int rules_take(const struct probe *pr) {
  return xp_gemm_fp8_takes(pr->dt == XP_LT_FP8_BLOCK, pr->k, pr->n);
}

int main(void) {
  /* Kimi-K2.5 / DeepSeek decode shapes, each rule's edge on either side, DeepSeek-V4-Flash's
  ** hc_head (N = 4), and K off the 128-group by a 16-byte multiple (fp8_block's K rule) */
  const struct probe probes[] = {
      {XP_LT_FP8_E4M3, 1, 512, 7168},  {XP_LT_FP8_E4M3, 16, 512, 7168}, {XP_LT_FP8_E4M3, 1, 520, 7168},
      {XP_LT_FP8_E4M3, 1, 8, 7168},    {XP_LT_FP8_E4M3, 1, 512, 16},    {XP_LT_FP8_E4M3, 1, 512, 7160},
      {XP_LT_FP8_E4M3, 16, 512, 7176}, {XP_LT_FP8_E4M3, 1, 512, 7172},  {XP_LT_FP8_E4M3, 1, 516, 7168},
      {XP_LT_FP8_E4M3, 16, 514, 7168}, {XP_LT_FP8_E4M3, 1, 4, 7168},    {XP_LT_FP8_E4M3, 16, 4, 4096},
      {XP_LT_FP8_BLOCK, 1, 512, 7168}, {XP_LT_FP8_BLOCK, 16, 512, 7168}, {XP_LT_FP8_BLOCK, 16, 516, 7168},
      {XP_LT_FP8_BLOCK, 1, 4, 4096},   {XP_LT_FP8_BLOCK, 16, 8, 4096},   {XP_LT_FP8_BLOCK, 16, 6, 4096},
      {XP_LT_FP8_BLOCK, 16, 514, 7168}, {XP_LT_FP8_BLOCK, 16, 512, 7232}, {XP_LT_FP8_BLOCK, 1, 512, 7184},
      {XP_LT_FP8_BLOCK, 16, 512, 192},  {XP_LT_FP8_BLOCK, 1, 1, 4096},   {XP_LT_FP8_BLOCK, 3, 7, 4096},
      {XP_LT_FP8_BLOCK, 16, 513, 7168}, {XP_LT_FP8_BLOCK, 64, 5, 7168},  {XP_LT_FP8_BLOCK, 2, 3, 7168},
      {XP_LT_FP8_BLOCK, 16, 512, 7176}, {XP_LT_FP8_BLOCK, 1, 512, 7170}, {XP_LT_FP8_BLOCK, 16, 512, 16},
      {XP_LT_FP8_BLOCK, 1, 512, 112},   {XP_LT_FP8_BLOCK, 16, 512, 144}, {XP_LT_FP8_BLOCK, 128, 7168, 2064},
      {XP_LT_FP8_BLOCK, 5, 513, 2056},  {XP_LT_FP8_BLOCK, 1, 2, 8},
  };
  int checked = 0;
  for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
    const struct probe *pr = &probes[i];
    const int take = rules_take(pr);
    printf("%s M=%d N=%d K=%d (rules: %s)\n", xp_lt_dtype_name(pr->dt), pr->m, pr->n, pr->k,
           take ? "runs" : "refused");
    enum outcome o = in_child(pr);
    printf("  -> %s\n", outcome_name[o]);
    if (o == NO_GPU || o == NO_FP8) {
      printf("skipped: %s\n", outcome_name[o]);
      return 77;
    }
    if (o == NO_BLOCK) continue;
    if (o == BROKEN) CHECK(!"probe could not be set up");
    else if (take) CHECK(o == RIGHT);
    else CHECK(o != RIGHT);
    checked++;
  }
  CHECK(checked > 0);
  CHECK_DONE();
}
#else
CHECK_SKIP_MAIN("xp was built without CUDA")
#endif
