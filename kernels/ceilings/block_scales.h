/*
** Where cuBLASLt reads the scales of a DeepSeek-style block-scaled fp8 matmul (dtype fp8_block):
** weights W[N,K] e4m3 with one fp32 scale per 128x128 block, activations A[M,K] e4m3 with one
** per token per 128 of K. Plain C, no CUDA headers: the gemm runner's plan (bytes per step)
** includes it without CUDA, the reference kernel with it.
**
** The layout, the one place xp spells it: cuBLAS documents both under "1D and 128x128 2D block
** scaling for FP8 data types" (docs.nvidia.com/cuda/cublas/#element-1d-and-128x128-2d-block-
** scaling-for-fp8-data-types), as PyTorch's test_matmul_cuda.py (_pad_128x128_scales: "[L4,
** ceil_div({M,N}, 128)] and K/L/L4-major in memory", L4 = round_up(ceil_div(K, 128), 4)) and
** TransformerEngine's Float8BlockQuantizer.get_scale_shape (GEMM-ready: 2D (ceil(N/128),
** round_up(ceil(K/128), 4)), 1D (ceil(K/128), round_up(M, 4)), row-major) and NVIDIA's own
** cuBLASLt reference check (CUDALibrarySamples cuBLASMp/matmul.h, scale_layout_offset: VEC128
** "sc + sr * roundup(cols, 4)", BLK128x128 "sr + sc * roundup((rows + 127) / 128, 4)", rows
** the K of a TN operand) lay them out:
**   weights (cuBLASLt's A, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F): block (nb, kb) at
**     nb * w_ld + kb, w_ld = ceil(K/128) rounded up to 4 (a 16-byte stride): a DeepSeek
**     checkpoint's weight_scale_inv [N/128][K/128] as it ships when K/128 is a multiple of 4;
**   activations (cuBLASLt's B, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F): token m's scale of
**     K group kb at kb * a_ld + m, a_ld = M rounded up to 4 (token-contiguous: "1x128 blocks
**     need scales to be outer-dim-major", test_scaled_mm_vs_emulated_block_wise).
** The padding is never read as a scale of a real block; xp fills it with random scales too, so
** a layout cuBLASLt reads otherwise fails the reference check instead of passing on zeros.
*/
#ifndef XP_KERNELS_BLOCK_SCALES_H
#define XP_KERNELS_BLOCK_SCALES_H
#include <stdint.h>

#ifdef __CUDACC__
#define XP_BLOCK_HD __host__ __device__
#else
#define XP_BLOCK_HD
#endif

/* Elements of K (and rows of W) one scale covers. */
#define XP_BLOCK_SCALE 128

typedef struct xp_block_layout {
  int64_t kb, nb;     /* ceil(K/128) groups of K, ceil(N/128) blocks of W's rows */
  int64_t w_ld, a_ld; /* floats from one weight block row (nb) to the next, one K group to the next */
  int64_t w_count, a_count; /* floats to allocate for W's and A's scales, padding included */
} xp_block_layout;

static inline int64_t xp_block_pad4(int64_t x) { return (x + 3) / 4 * 4; }

static inline xp_block_layout xp_block_layout_of(int64_t m, int64_t n, int64_t k) {
  xp_block_layout l;
  l.kb = (k + XP_BLOCK_SCALE - 1) / XP_BLOCK_SCALE;
  l.nb = (n + XP_BLOCK_SCALE - 1) / XP_BLOCK_SCALE;
  l.w_ld = xp_block_pad4(l.kb);
  l.a_ld = xp_block_pad4(m);
  l.w_count = l.nb * l.w_ld;
  l.a_count = l.kb * l.a_ld;
  return l;
}

/* Index of the scale of W's element (row j, column kk) and of A's element (token i, kk). */
XP_BLOCK_HD static inline int64_t xp_block_w_index(int64_t w_ld, int64_t j, int64_t kk) {
  return j / XP_BLOCK_SCALE * w_ld + kk / XP_BLOCK_SCALE;
}
XP_BLOCK_HD static inline int64_t xp_block_a_index(int64_t a_ld, int64_t i, int64_t kk) {
  return kk / XP_BLOCK_SCALE * a_ld + i;
}

/* Bytes the scales of one matmul add to what it reads: one float per block actually scaled,
** the padding aside. */
static inline double xp_block_scale_bytes(int64_t m, int64_t n, int64_t k) {
  const xp_block_layout l = xp_block_layout_of(m, n, k);
  return 4.0 * (double)(l.nb * l.kb + m * l.kb);
}
/* Where cuBLASLt has these scale modes at all: from cuBLASLt 12.9 (cublasLtGetVersion()
** 120900), on Hopper (sm_90) only, as NVIDIA answered in CUDALibrarySamples issue 310. */
static inline int xp_block_scales_run_on(int cc_major, int cc_minor, long cublaslt_version) {
  return cc_major == 9 && cc_minor == 0 && cublaslt_version >= 120900;
}

/* A block-scaled GEMM cuBLASLt's heuristic made no plan for is skipped (1) only where the device
** lacks the feature: the heuristic answered NOT_SUPPORTED (or offered nothing) on a device and
** cuBLASLt without block scales. Any other answer (INVALID_VALUE: xp set something up wrong), or
** any answer on a Hopper with cuBLASLt 12.9+, is the GEMM's failure (0), said with its status. */
static inline int xp_block_no_plan_skips(int not_supported, int cc_major, int cc_minor,
                                         long cublaslt_version) {
  return not_supported && !xp_block_scales_run_on(cc_major, cc_minor, cublaslt_version);
}
#endif
