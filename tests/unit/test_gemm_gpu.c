/* The GPU pieces under the gemm and ceilings runners, on a real device: the copy kernel
** copies, cuBLASLt plans (bf16, batched, fp8 with scales, fp8 with DeepSeek's block scales)
** match the float32 reference, the reference check does catch a wrong result, and a
** candidate cuBLASLt refuses is told from a lost context. Skipped (77) without a GPU or CUDA. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "ceilings/block_scales.h"
#include "ceilings/ceilings.h"
#include "gpu.h"
#include "lt.h"
#include "runners/gemm_pick.h"

static cudaStream_t s;
static cublasLtHandle_t h;
static void *ws;

static void test_copy(void) {
  size_t bytes = ((size_t)37 << 20) + 16 * 5; /* not a multiple of the grid: the tail runs */
  char *src = NULL, *dst = NULL, *a = malloc(bytes), *b = malloc(bytes);
  int blocks = 0;
  CHECK(xp_copy16_grid(0, &blocks) == cudaSuccess && blocks > 0);
  CHECK(cudaMalloc((void **)&src, bytes) == cudaSuccess);
  CHECK(cudaMalloc((void **)&dst, bytes) == cudaSuccess);
  CHECK(xp_fill_uniform(src, bytes / 2, XP_KDT_BF16, 3, s) == cudaSuccess);
  CHECK(cudaMemsetAsync(dst, 0, bytes, s) == cudaSuccess);
  CHECK(xp_copy16(dst, src, bytes, blocks, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(cudaMemcpy(a, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(cudaMemcpy(b, dst, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(memcmp(a, b, bytes) == 0);
  size_t zeros = 0;
  for (size_t i = 0; i < bytes; i++) zeros += a[i] == 0;
  CHECK(zeros < bytes / 10); /* random data, not a blank buffer */
  cudaFree(src), cudaFree(dst), free(a), free(b);
}

/* Run plan p's candidate 0 on fresh random operands and check it against a reference made
** with ref_scale and ref_w_seed (the right ones unless the test wants a mismatch). */
static unsigned long long wrong_elements(enum xp_lt_dtype dt, int m, int n, int k, int bmm,
                                         float ref_scale, uint64_t ref_w_seed) {
  xp_lt *p = NULL;
  int eb = xp_lt_elem_bytes(dt);
  size_t na = (size_t)bmm * m * k, nw = (size_t)bmm * n * k, nd = (size_t)bmm * m * n;
  void *A, *W, *W2, *D;
  float *ref, hs[2] = {0.5f, 4.0f}; /* fp8 scales live in host memory (harness/lt.c) */
  cudaMalloc(&A, na * eb), cudaMalloc(&W, nw * eb), cudaMalloc(&W2, nw * eb);
  cudaMalloc(&D, nd * 2), cudaMalloc((void **)&ref, nd * 4);
  xp_fill_uniform(A, na, (int)dt, 21, s);
  xp_fill_uniform(W, nw, (int)dt, 22, s);
  xp_fill_uniform(W2, nw, (int)dt, ref_w_seed, s);
  unsigned long long bad = ~0ull;
  if (xp_lt_create_batched(h, m, n, k, bmm, dt, XP_LT_WORKSPACE_BYTES, 4, &p) == 0) {
    CHECK(xp_lt_algo_count(p) >= 1);
    CHECK(strstr(xp_lt_algo_desc(p, 0), "tile=") != NULL);
    xp_gemm_check chk;
    CHECK_EQ_INT(xp_lt_run(p, A, W, D, hs, hs + 1, ws, s), 0);
    CHECK(xp_ref_gemm(A, W2, ref, m, n, k, bmm, (int)dt, ref_scale, s) == cudaSuccess);
    CHECK(xp_check_gemm(D, ref, nd, 1.0 / 64, 1.0 / 64, &chk, s) == cudaSuccess);
    CHECK_EQ_INT(chk.count, nd);
    CHECK(chk.ref_rms > 0);
    bad = chk.bad;
  }
  xp_lt_destroy(p);
  cudaFree(A), cudaFree(W), cudaFree(W2), cudaFree(D), cudaFree(ref);
  return bad;
}

static void test_matmul(void) {
  /* bf16 at decode-like and odd shapes, and batched (absorbed MLA) */
  CHECK_EQ_INT(wrong_elements(XP_LT_BF16, 1, 512, 7168, 1, 1.0f, 22), 0);
  CHECK_EQ_INT(wrong_elements(XP_LT_BF16, 3, 576, 7168, 1, 1.0f, 22), 0);
  CHECK_EQ_INT(wrong_elements(XP_LT_BF16, 64, 7168, 256, 1, 1.0f, 22), 0);
  CHECK_EQ_INT(wrong_elements(XP_LT_BF16, 5, 512, 128, 8, 1.0f, 22), 0);
  /* the check catches a wrong product: reference from other weights */
  CHECK(wrong_elements(XP_LT_BF16, 16, 256, 512, 1, 1.0f, 99) > 16 * 256 / 2);
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (major * 10 + minor >= 89) {
    CHECK_EQ_INT(wrong_elements(XP_LT_FP8_E4M3, 16, 512, 7168, 1, 2.0f, 22), 0);
    CHECK_EQ_INT(wrong_elements(XP_LT_FP8_E4M3, 1, 7168, 256, 1, 2.0f, 22), 0);
    /* the scales are applied: a reference without them disagrees everywhere */
    CHECK(wrong_elements(XP_LT_FP8_E4M3, 16, 512, 7168, 1, 1.0f, 22) > 16 * 512 / 2);
  } else {
    xp_lt *p = NULL;
    xp_error_quiet(1);
    CHECK_EQ_INT(xp_lt_create(h, 16, 512, 512, XP_LT_FP8_E4M3, XP_LT_WORKSPACE_BYTES, 4, &p),
                 XP_EXIT_ENV);
    xp_error_quiet(0);
    CHECK(strstr(xp_last_error(), "compute capability 8.9") != NULL);
  }
  xp_lt *p = NULL;
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_lt_create(h, 0, 512, 512, XP_LT_BF16, XP_LT_WORKSPACE_BYTES, 4, &p), XP_EXIT_USAGE);
  xp_error_quiet(0);
  CHECK(p == NULL);
}

/* fp8_block at a decode shape: fresh random e4m3 operands and random block scales (padding
** included), cuBLASLt's candidate 0 against the block-scaled reference built with weight
** scales of seed ref_seed (42 is the ones the matmul got), laid out as the plan says it writes
** D, or (flip) the other way; operands of as many rows as the plan runs (xp_lt_m: an M it has
** no plan for runs padded). ~0 when cuBLASLt has no plan: XP_EXIT_ENV, said, off Hopper. */
static unsigned long long block_wrong(int m0, int n, int k, uint64_t ref_seed, int flip) {
  xp_lt *p = NULL;
  xp_error_quiet(1);
  int rc = xp_lt_create(h, m0, n, k, XP_LT_FP8_BLOCK, XP_LT_WORKSPACE_BYTES, 4, &p);
  xp_error_quiet(0);
  if (rc) {
    printf("fp8_block %dx%dx%d: %s\n", m0, n, k, xp_last_error());
    CHECK_EQ_INT(rc, XP_EXIT_ENV);
    CHECK(strstr(xp_last_error(), "fp8_block") != NULL);
    xp_clear_error();
    return ~0ull;
  }
  const int m = xp_lt_m(p), t = xp_lt_out_transposed(p);
  CHECK(m >= m0 && m <= (m0 + 7) / 8 * 8);
  const xp_block_layout l = xp_block_layout_of(m, n, k);
  void *A = NULL, *W = NULL, *D = NULL;
  float *sa = NULL, *sw = NULL, *sw_ref = NULL, *ref = NULL;
  CHECK(cudaMalloc(&A, (size_t)m * k) == cudaSuccess && cudaMalloc(&W, (size_t)n * k) == cudaSuccess);
  CHECK(cudaMalloc(&D, (size_t)m * n * 2) == cudaSuccess);
  CHECK(cudaMalloc((void **)&ref, (size_t)m * n * 4) == cudaSuccess);
  CHECK(cudaMalloc((void **)&sa, (size_t)l.a_count * 4) == cudaSuccess);
  CHECK(cudaMalloc((void **)&sw, (size_t)l.w_count * 4) == cudaSuccess);
  CHECK(cudaMalloc((void **)&sw_ref, (size_t)l.w_count * 4) == cudaSuccess);
  CHECK(xp_fill_uniform(A, (size_t)m * k, XP_KDT_FP8_E4M3, 41, s) == cudaSuccess);
  CHECK(xp_fill_uniform(W, (size_t)n * k, XP_KDT_FP8_E4M3, 43, s) == cudaSuccess);
  CHECK(xp_fill_scales(sa, (size_t)l.a_count, 44, s) == cudaSuccess);
  CHECK(xp_fill_scales(sw, (size_t)l.w_count, 42, s) == cudaSuccess);
  CHECK(xp_fill_scales(sw_ref, (size_t)l.w_count, ref_seed, s) == cudaSuccess);
  xp_gemm_check chk;
  /* the plan says which operand order it took, and that order is the one that ran */
  CHECK(strstr(xp_lt_algo_desc(p, 0), t ? "order=activations,weights" : "order=weights,activations"));
  CHECK(cudaMemsetAsync(D, 0xff, (size_t)m * n * 2, s) == cudaSuccess);
  CHECK_EQ_INT(xp_lt_run(p, A, W, D, sa, sw, ws, s), 0);
  CHECK(xp_ref_gemm_block(A, W, sa, sw_ref, ref, m, n, k, t ^ flip, s) == cudaSuccess);
  CHECK(xp_check_gemm(D, ref, (size_t)m * n, XP_GEMM_CHECK_RTOL, XP_GEMM_CHECK_ATOL_RMS, &chk, s) ==
        cudaSuccess);
  CHECK(chk.ref_rms > 0);
  if (ref_seed == 42 && !flip)
    printf("fp8_block %dx%dx%d: rows %d, %d candidates, #0 %s; %llu of %llu wrong, worst %.3g x rms\n",
           m0, n, k, m, xp_lt_algo_count(p), xp_lt_algo_desc(p, 0), chk.bad, chk.count,
           chk.max_abs_err / chk.ref_rms);
  xp_lt_destroy(p);
  cudaFree(A), cudaFree(W), cudaFree(D), cudaFree(ref), cudaFree(sa), cudaFree(sw), cudaFree(sw_ref);
  return chk.bad;
}

/* DeepSeek-V3/V4's shapes at decode M 1 to 256, a MoE expert's 2, 3 and 5 rows among them:
** right on Hopper, the only GPU cuBLASLt runs block scales on (cuBLASLt 13.1 on an H200 has no
** plan at M = 1, 2, 3, 5 with the weights as its A, and the one it offers at M = 1 with the
** activations as its A is wrong: lt.c pads such M), elsewhere no plan, XP_EXIT_ENV; and the
** check catches scales applied from the wrong blocks and an output read in the other layout
** than the plan wrote. */
static void test_block(void) {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  xp_lt *p = NULL;
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_lt_create_batched(h, 16, 512, 128, 8, XP_LT_FP8_BLOCK, XP_LT_WORKSPACE_BYTES, 4, &p),
               XP_EXIT_USAGE);
  xp_error_quiet(0);
  CHECK(p == NULL);
  if (major * 10 + minor < 89) return; /* no fp8 at all: test_matmul checks that refusal */
  const int shapes[][3] = {{1, 7168, 2048}, {1, 1536, 7168}, {2, 512, 7168}, {3, 1536, 7168},
                           {5, 7168, 256}, {16, 4096, 7168}, {64, 7168, 2048}, {128, 7168, 2048},
                           {256, 4096, 7168}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    const int m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
    unsigned long long bad = block_wrong(m, n, k, 42, 0);
    if (major == 9 && minor == 0) CHECK_EQ_INT(bad, 0);
    if (bad == ~0ull) continue; /* no block-scaled algorithm here: said above */
    CHECK_EQ_INT(bad, 0);
    const unsigned long long count = (unsigned long long)m * n;
    CHECK(block_wrong(m, n, k, 99, 0) > count / 2);
    if (m > 1) CHECK(block_wrong(m, n, k, 42, 1) > count / 2);
  }
}

struct misaligned {
  xp_lt *p;
  const void *A, *W;
  void *D;
  const float *scales;
};

static int enqueue_fp8(void *arg, cudaStream_t st, int rep) {
  struct misaligned *a = arg;
  (void)rep;
  return xp_lt_run(a->p, a->A, a->W, a->D, a->scales, a->scales + 1, ws, st);
}

/* A launch of the selected candidate with output D: refused (a cuBLAS status, the context
** intact, as gemm tells a refusal from a lost context), directly and under graph capture. */
static void check_refused(struct misaligned *a) {
  double us[3];
  for (int captured = 0; captured < 2; captured++) {
    xp_error_quiet(1);
    int rc = captured ? xp_time_graph(s, enqueue_fp8, a, 2, 1, 3, us) : enqueue_fp8(a, s, 0);
    xp_error_quiet(0);
    cublasStatus_t st = xp_lt_last_status(a->p);
    CHECK_EQ_INT(rc, XP_EXIT_FAILED);
    CHECK(st != CUBLAS_STATUS_SUCCESS);
    CHECK(strstr(xp_last_error(), cublasLtGetStatusName(st)) != NULL);
    CHECK_EQ_INT(xp_gpu_sticky_error(), cudaSuccess);
    CHECK_EQ_INT(xp_gemm_failure(st != CUBLAS_STATUS_SUCCESS, 0), XP_GEMM_REFUSED);
  }
}

/* cuBLASLt refusing a candidate: its fp8 kernels need every matrix pointer 16-byte aligned
** (cublasLtMatmul's documentation), so an output 2 bytes off is refused with a cuBLAS status
** and the context survives; the same candidate on aligned memory then runs, right, and
** under capture too. Run last: were cuBLASLt to launch anyway and fault, the context would
** be lost to any test after it. */
static void test_refusal(void) {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (major * 10 + minor < 89) {
    printf("refusal not exercised: no fp8 before compute capability 8.9\n");
    return;
  }
  const int m = 16, n = 512, k = 512;
  const float hs[2] = {0.5f, 4.0f};
  void *A = NULL, *W = NULL;
  char *D = NULL;
  float *ref = NULL;
  xp_lt *p = NULL;
  CHECK(cudaMalloc(&A, (size_t)m * k) == cudaSuccess && cudaMalloc(&W, (size_t)n * k) == cudaSuccess);
  CHECK(cudaMalloc((void **)&D, (size_t)m * n * 2 + 256) == cudaSuccess);
  CHECK(cudaMalloc((void **)&ref, (size_t)m * n * 4) == cudaSuccess);
  CHECK(xp_fill_uniform(A, (size_t)m * k, XP_KDT_FP8_E4M3, 31, s) == cudaSuccess);
  CHECK(xp_fill_uniform(W, (size_t)n * k, XP_KDT_FP8_E4M3, 32, s) == cudaSuccess);
  CHECK(xp_ref_gemm(A, W, ref, m, n, k, 1, XP_KDT_FP8_E4M3, hs[0] * hs[1], s) == cudaSuccess);
  CHECK_EQ_INT(xp_lt_create(h, m, n, k, XP_LT_FP8_E4M3, XP_LT_WORKSPACE_BYTES, 4, &p), 0);
  for (int i = 0; p && i < xp_lt_algo_count(p); i++) {
    char id[32];
    snprintf(id, sizeof id, "algo=%d ", xp_lt_algo_id(p, i));
    CHECK(xp_lt_algo_id(p, i) >= 0 && strncmp(xp_lt_algo_desc(p, i), id, strlen(id)) == 0);
    CHECK_EQ_INT(xp_lt_select(p, i), 0);
    struct misaligned bad = {p, A, W, D + 2, hs}, good = {p, A, W, D, hs};
    check_refused(&bad);
    /* selecting clears the status; the aligned launch runs and is right */
    CHECK_EQ_INT(xp_lt_select(p, i), 0);
    CHECK_EQ_INT(xp_lt_last_status(p), CUBLAS_STATUS_SUCCESS);
    xp_gemm_check chk;
    CHECK(cudaMemsetAsync(D, 0xff, (size_t)m * n * 2, s) == cudaSuccess);
    CHECK_EQ_INT(enqueue_fp8(&good, s, 0), 0);
    CHECK(xp_check_gemm(D, ref, (size_t)m * n, XP_GEMM_CHECK_RTOL, XP_GEMM_CHECK_ATOL_RMS, &chk, s) ==
          cudaSuccess);
    CHECK_EQ_INT(chk.bad, 0);
    double us[3];
    CHECK_EQ_INT(xp_time_graph(s, enqueue_fp8, &good, 2, 1, 3, us), 0);
    CHECK(us[0] > 0);
  }
  xp_lt_destroy(p);
  cudaFree(A), cudaFree(W), cudaFree(D), cudaFree(ref);
}

int main(void) {
  if (xp_gpu_count() == 0) {
    printf("skipped: no GPU\n");
    return 77;
  }
  CHECK(cudaStreamCreate(&s) == cudaSuccess);
  CHECK(cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS);
  CHECK(cudaMalloc(&ws, XP_LT_WORKSPACE_BYTES) == cudaSuccess);
  test_copy();
  test_matmul();
  test_block();
  test_refusal();
  cudaFree(ws);
  cublasLtDestroy(h);
  cudaStreamDestroy(s);
  CHECK_DONE();
}
#else
CHECK_SKIP_MAIN("xp was built without CUDA")
#endif
