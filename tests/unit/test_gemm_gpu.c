/* The GPU pieces under the gemm and ceilings runners, on a real device: the copy kernel
** copies, cuBLASLt plans (bf16, batched, fp8 with scales) match the float32 reference, and
** the reference check does catch a wrong result. Skipped (77) without a GPU or CUDA. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "ceilings/ceilings.h"
#include "gpu.h"
#include "lt.h"

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
  cudaFree(ws);
  cublasLtDestroy(h);
  cudaStreamDestroy(s);
  CHECK_DONE();
}
#else
int main(void) {
  (void)check_failures;
  printf("skipped: xp was built without CUDA\n");
  return 77;
}
#endif
