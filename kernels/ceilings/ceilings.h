/*
** Kernels behind the ceilings and gemm runners: a copy that moves memory as fast as the
** chip allows (the bandwidth ceiling), random operands, and the float32 reference GEMM that
** every cuBLASLt result is checked against before it is timed. C-callable launchers; each
** returns the CUDA error of its launch (cudaSuccess when it was enqueued).
*/
#ifndef XP_KERNELS_CEILINGS_H
#define XP_KERNELS_CEILINGS_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Element types, numbered as enum xp_lt_dtype (harness/lt.h). */
enum { XP_KDT_BF16 = 0, XP_KDT_FP8_E4M3 = 1 };

/* Blocks of XP_COPY16_THREADS threads for the copy on device `dev`: a fixed few per SM on
** every SM (the fastest measured; ceilings.cu says which), never more than are resident. */
#define XP_COPY16_THREADS 256
cudaError_t xp_copy16_grid(int dev, int *blocks);
/* dst <- src with 16-byte loads and stores, four in flight per thread, grid-stride.
** bytes must be a multiple of 16 and both pointers 16-byte aligned. Capturable. */
cudaError_t xp_copy16(void *dst, const void *src, size_t bytes, int blocks, cudaStream_t s);

/* A bare read: bytes from src (16-byte aligned, bytes a multiple of 16) with 16-byte loads,
** four in flight per thread, grid-stride, and nothing done with them but an XOR that
** decides whether sink[blockIdx.x] (blocks words) is written (almost never). The floor a
** kernel that must read those bytes once in one launch stands on. xp_read16_grid: the grid that reads fastest on device dev. */
cudaError_t xp_read16_grid(int dev, int *blocks);
cudaError_t xp_read16(const void *src, size_t bytes, int blocks, unsigned *sink, cudaStream_t s);
/* One thread that spins for `ns` nanoseconds of the GPU's clock: enqueued before a timed
** section, it keeps the stream busy while the host enqueues that section's work. */
cudaError_t xp_spin_ns(unsigned long long ns, cudaStream_t s);

/* count elements of type dtype, uniform in [-1, 1), from a counter-based hash of (seed, i):
** the same seed gives the same data on any device. Never all zeros. */
cudaError_t xp_fill_uniform(void *p, size_t count, int dtype, uint64_t seed, cudaStream_t s);
/* count fp32 block scales, uniform in [0.5, 2) from the same hash: all positive, as a
** checkpoint's are, and far enough apart that a scale applied to the wrong block shows. */
cudaError_t xp_fill_scales(float *p, size_t count, uint64_t seed, cudaStream_t s);

/* ref[b][i][j] = scale * sum_k A[b][i][k] * W[b][j][k] in float32, for b < batch, with A
** [batch][m][k] and W [batch][n][k] row-major of type dtype, ref [batch][m][n]. */
cudaError_t xp_ref_gemm(const void *A, const void *W, float *ref, int m, int n, int k, int batch,
                        int dtype, float scale, cudaStream_t s);

/* The same for one block-scaled fp8 matmul (dtype fp8_block): A [m][k] and W [n][k] e4m3,
** each product scaled by A's scale of its token and K group and W's of its 128x128 block, sa
** and sw laid out as block_scales.h says (the layout cuBLASLt reads them in). transposed:
** ref is [n][m], as a plan that swapped the operands writes D (xp_lt_out_transposed). */
cudaError_t xp_ref_gemm_block(const void *A, const void *W, const float *sa, const float *sw,
                              float *ref, int m, int n, int k, int transposed, cudaStream_t s);

/* Outcome of comparing a bf16 result with the float32 reference. */
typedef struct xp_gemm_check {
  unsigned long long count; /* elements compared */
  unsigned long long bad;   /* elements outside the tolerance */
  double ref_rms;           /* root mean square of the reference */
  double max_abs_err;       /* largest |D - ref| */
} xp_gemm_check;
/* Element i is wrong when |D[i] - ref[i]| > rtol * |ref[i]| + atol_rms * ref_rms. Waits for
** stream s to finish (the caller needs the answer before timing anything). */
cudaError_t xp_check_gemm(const void *D, const float *ref, size_t count, double rtol,
                          double atol_rms, xp_gemm_check *out, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
