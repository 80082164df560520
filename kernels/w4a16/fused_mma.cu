/*
** fused_mma: y = x * W^T in one pass on tensor cores. The nibbles of a lane's 16-byte word
** become the bf16 A fragments of mma.m16n8k16 in registers (w4a16_layout.h puts them where
** the fragment wants them), the tokens are the N side of the MMA, so one dequantized weight
** serves up to 16 tokens at no extra cost. ks warps split a tile's K; their fp32 fragments
** are summed through shared memory.
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"

namespace {

template <int NT, bool POST>
__global__ void __launch_bounds__(w4::kThreads, w4::min_blocks(NT)) mma_kernel(const uint4 *__restrict__ W,
                                                           const uint32_t *__restrict__ S,
                                                           const __nv_bfloat16 *__restrict__ x,
                                                           __nv_bfloat16 *__restrict__ y, int m,
                                                           int n, int k, int gshift, int ks) {
  __shared__ w4::FragSum<NT> red;
  w4::gemm_block<NT, POST>(W, S, x, m, n, k, gshift, ks, 0, k >> 6, red);
  w4::gemm_block_outputs<NT>(red, m, n, ks, [&](size_t at, float v) { y[at] = __float2bfloat16(v); });
}

template <int NT, bool POST>
cudaError_t launch(const w4a16_gemm *a, cudaStream_t s) {
  int ks, tpb;
  w4a16_tiling(a->k >> 6, &ks, &tpb);
  const int tiles = a->n >> 4;
  mma_kernel<NT, POST><<<(tiles + tpb - 1) / tpb, w4::kThreads, 0, s>>>(
      reinterpret_cast<const uint4 *>(a->w), reinterpret_cast<const uint32_t *>(a->scales),
      static_cast<const __nv_bfloat16 *>(a->x), static_cast<__nv_bfloat16 *>(a->y), a->m, a->n,
      a->k, w4_log2(a->group), ks);
  return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t w4a16_fused_mma(const w4a16_gemm *a, cudaStream_t s) {
  w4_layout l = {a->n, a->k, a->group, 0};
  if (!a->w || !a->scales || !a->x || !a->y || w4_layout_check(&l) || a->m < 1 || a->m > W4A16_MAX_M)
    return cudaErrorInvalidValue;
  const bool post = w4a16_post_scale(a->group);
  if (w4a16_token_tiles(a->m) == 1) return post ? launch<1, true>(a, s) : launch<1, false>(a, s);
  return post ? launch<2, true>(a, s) : launch<2, false>(a, s);
}

cudaError_t w4a16_mma_attrs(int m, int group, cudaFuncAttributes *out) {
  const bool post = w4a16_post_scale(group);
  if (w4a16_token_tiles(m) == 1)
    return post ? cudaFuncGetAttributes(out, mma_kernel<1, true>) : cudaFuncGetAttributes(out, mma_kernel<1, false>);
  return post ? cudaFuncGetAttributes(out, mma_kernel<2, true>) : cudaFuncGetAttributes(out, mma_kernel<2, false>);
}
