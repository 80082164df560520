/*
** fused_splitk: fused_mma with K also cut across blocks (grid.y = split), for shapes with
** too few 16-row tiles to fill the chip (N = 512 gives 32 tiles for 132 SMs). Each block
** writes its fp32 partial sums; the last block of a tile to arrive (a counter per tile,
** ordered by __threadfence) adds the split partials in slice order, so the result does not
** depend on which block finished last, writes y and resets the counter for the next launch.
** The extra traffic is 2 x split x m x n fp32, small next to the weights; what split-K
** cannot fix is a K too short to share (K = 256 is four 64-wide chunks).
** The split is the spec's split_k (4 in experiments/w4a16_variants.toml): at gate_up (N = 512,
** K = 7168) on an H200, M = 1, G = 128, splits 1, 2, 3, 4, 6, 8, 14 and 28 took 7.90, 5.77,
** 5.13, 4.45, 4.83, 4.31, 6.80 and 6.77 us (a bare read of the weights: 1.87).
** Tried and not kept: the slices of a tile as one thread-block cluster (sm_90, cluster dims
** 1 x split), each block summing a share of the outputs over the slices' shared-memory
** fragments in slice order after a cluster barrier (the same bits; no partials, fence or
** counter): 3-7% faster at split 2, but 12-34% slower at split 4 and 30-140% at split 8 (M
** = 1 to 16, G = 128 and 32), so never as fast as this kernel at split 4 or 8.
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"

namespace {

template <int NT, bool POST>
__global__ void __launch_bounds__(w4::kThreads, w4::min_blocks(NT)) splitk_kernel(const uint4 *__restrict__ W,
                                                              const uint32_t *__restrict__ S,
                                                              const __nv_bfloat16 *__restrict__ x,
                                                              __nv_bfloat16 *__restrict__ y, int m,
                                                              int n, int k, int gshift, int ks,
                                                              float *__restrict__ partial,
                                                              unsigned *__restrict__ counters) {
  __shared__ w4::FragSum<NT> red;
  __shared__ int last;
  const int chunks = k >> 6, split = gridDim.y, sp = blockIdx.y;
  /* This block's slice of K; gemm_block splits it over the warps of each tile. */
  w4::gemm_block<NT, POST>(W, S, x, m, n, k, gshift, ks, sp * chunks / split, (sp + 1) * chunks / split, red);
  float *mine = partial + (size_t)sp * m * n;
  w4::gemm_block_outputs<NT>(red, m, n, ks, [&](size_t at, float v) { mine[at] = v; });
  /* Publish the partials before counting this slice as done. */
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(split - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  /* the sum in slice order; the value red holds (this slice's) is not used, partials are */
  w4::gemm_block_outputs<NT>(red, m, n, ks, [&](size_t at, float) {
    float v = 0.f;
    for (int p = 0; p < split; p++) v += __ldcg(partial + (size_t)p * m * n + at);
    y[at] = __float2bfloat16(v);
  });
  if (threadIdx.x == 0) counters[blockIdx.x] = 0;
}

/* Warps per tile for the chunks of one slice, and the block count along N. */
void geometry(int n, int k, int split, int *ks, int *blocks) {
  int tpb;
  w4a16_tiling((k >> 6) / split, ks, &tpb);
  *blocks = ((n >> 4) + tpb - 1) / tpb;
}

template <int NT, bool POST>
cudaError_t launch(const w4a16_gemm *a, int split, float *partial, unsigned *counters, cudaStream_t s) {
  int ks, blocks;
  geometry(a->n, a->k, split, &ks, &blocks);
  splitk_kernel<NT, POST><<<dim3(blocks, split), w4::kThreads, 0, s>>>(
      reinterpret_cast<const uint4 *>(a->w), reinterpret_cast<const uint32_t *>(a->scales),
      static_cast<const __nv_bfloat16 *>(a->x), static_cast<__nv_bfloat16 *>(a->y), a->m, a->n,
      a->k, w4_log2(a->group), ks, partial, counters);
  return cudaGetLastError();
}

} /* namespace */

extern "C" void w4a16_splitk_workspace(int m, int n, int k, int split, size_t *partial_bytes,
                                       size_t *counter_bytes) {
  int ks = 1, blocks = 0;
  if (split >= 1 && k >= 64 * split) geometry(n, k, split, &ks, &blocks);
  *partial_bytes = (size_t)(split > 0 ? split : 0) * (size_t)(m > 0 ? m : 0) * (size_t)(n > 0 ? n : 0) * sizeof(float);
  *counter_bytes = (size_t)blocks * sizeof(unsigned);
}

extern "C" cudaError_t w4a16_fused_splitk(const w4a16_gemm *a, int split, float *partial,
                                          unsigned *counters, cudaStream_t s) {
  w4_layout l = {a->n, a->k, a->group, 0};
  if (!a->w || !a->scales || !a->x || !a->y || !partial || !counters || w4_layout_check(&l) ||
      a->m < 1 || a->m > W4A16_MAX_M || split < 1 || split > (a->k >> 6) || split > 65535)
    return cudaErrorInvalidValue;
  const bool post = w4a16_post_scale(a->group);
  if (w4a16_token_tiles(a->m) == 1)
    return post ? launch<1, true>(a, split, partial, counters, s) : launch<1, false>(a, split, partial, counters, s);
  return post ? launch<2, true>(a, split, partial, counters, s) : launch<2, false>(a, split, partial, counters, s);
}

cudaError_t w4a16_splitk_attrs(int m, int group, cudaFuncAttributes *out) {
  const bool post = w4a16_post_scale(group);
  if (w4a16_token_tiles(m) == 1)
    return post ? cudaFuncGetAttributes(out, splitk_kernel<1, true>) : cudaFuncGetAttributes(out, splitk_kernel<1, false>);
  return post ? cudaFuncGetAttributes(out, splitk_kernel<2, true>) : cudaFuncGetAttributes(out, splitk_kernel<2, false>);
}
