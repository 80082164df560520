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
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2;
  const int tpb = w4::kWarps / ks, tl = warp / ks, kp = warp % ks;
  const int tiles = n >> 4, chunks = k >> 6;
  const int rt = blockIdx.x * tpb + tl;
  float acc[NT][4];
#pragma unroll
  for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  if (rt < tiles) {
    const __nv_bfloat16 *xr[NT];
#pragma unroll
    for (int j = 0; j < NT; j++) xr[j] = 8 * j + g < m ? x + (size_t)(8 * j + g) * k : nullptr;
    w4::tile_mma<NT, POST>(W + (size_t)rt * chunks * 32 + lane,
                           S + (size_t)rt * (size_t)(k >> gshift) * 8 + g, gshift, xr,
                           kp * chunks / ks, (kp + 1) * chunks / ks, acc);
  }
  w4::frag_store(red, warp, lane, acc);
  __syncthreads();
  for (int i = threadIdx.x; i < tpb * NT * 128; i += w4::kThreads) {
    const int tl2 = i / (NT * 128), e = (i >> 5) % (NT * 4), ln = i & 31;
    const int rt2 = blockIdx.x * tpb + tl2, col = w4::frag_col(ln, e);
    if (rt2 >= tiles || col >= m) continue;
    y[(size_t)col * n + rt2 * 16 + w4::frag_row(ln, e)] = __float2bfloat16(w4::frag_sum(red, tl2, ks, e, ln));
  }
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
