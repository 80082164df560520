/*
** fused_gemv: y = x * W^T in one pass on CUDA cores. Each lane reads one 16-byte word of a
** tile per 64-wide K chunk (rows g and g+8, 16 k), turns its nibbles into floats in
** registers, and keeps MT token accumulators per row; the 4 lanes that share a row and the
** ks warps that share a tile are summed at the end. FMA work grows with the tokens, so this
** variant is the CUDA-core reference point that fused_mma is compared with.
** A warp's only requests are its loads, rounds of w4::kUnroll chunks. Each warp also asking
** L2 for its next 16 chunks (prefetch.global.L2) made the down shape (K = 256) 13% slower
** and gate_up (K = 7168) 7% faster on an H200; fused_splitk is the faster gate_up kernel.
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"

namespace {

template <int MT>
__global__ void __launch_bounds__(w4::kThreads) gemv_kernel(const uint4 *__restrict__ W,
                                                            const uint32_t *__restrict__ S,
                                                            const __nv_bfloat16 *__restrict__ x,
                                                            __nv_bfloat16 *__restrict__ y, int m,
                                                            int n, int k, int gshift, int ks) {
  __shared__ float red[w4::kWarps][2 * MT][8];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int tpb = w4::kWarps / ks, tl = warp / ks, kp = warp % ks;
  const int tiles = n >> 4, chunks = k >> 6;
  const int rt = blockIdx.x * tpb + tl;
  float acc[2][MT];
#pragma unroll
  for (int mi = 0; mi < MT; mi++) acc[0][mi] = acc[1][mi] = 0.f;

  if (rt < tiles) {
    const int c0 = kp * chunks / ks, c1 = (kp + 1) * chunks / ks;
    const uint4 *wt = W + (size_t)rt * chunks * 32 + lane;
    const uint32_t *st = S + (size_t)rt * (size_t)(k >> gshift) * 8 + g;
    for (int c = c0; c < c1; c += w4::kUnroll) {
      uint4 w[w4::kUnroll];
      uint32_t s[w4::kUnroll];
#pragma unroll
      for (int u = 0; u < w4::kUnroll; u++) {
        const int cc = c + u;
        w[u] = make_uint4(0, 0, 0, 0);
        s[u] = 0;
        if (cc < c1) {
          w[u] = w4::ld_stream(wt + (size_t)cc * 32);
          s[u] = __ldg(st + (((size_t)(cc * 64 + 16 * t) >> gshift) << 3));
        }
      }
#pragma unroll
      for (int u = 0; u < w4::kUnroll; u++) {
        const int cc = c + u;
        if (cc >= c1) break;
        float q0[16], q1[16]; /* rows g and g+8, the lane's 16 k in order */
        const uint32_t ww[4] = {w[u].x, w[u].y, w[u].z, w[u].w};
#pragma unroll
        for (int q = 0; q < 4; q++) {
          uint32_t a[4];
          w4::unpack_word(ww[q], a);
          q0[4 * q + 0] = w4::bf_lo(a[0]);
          q0[4 * q + 1] = w4::bf_hi(a[0]);
          q0[4 * q + 2] = w4::bf_lo(a[2]);
          q0[4 * q + 3] = w4::bf_hi(a[2]);
          q1[4 * q + 0] = w4::bf_lo(a[1]);
          q1[4 * q + 1] = w4::bf_hi(a[1]);
          q1[4 * q + 2] = w4::bf_lo(a[3]);
          q1[4 * q + 3] = w4::bf_hi(a[3]);
        }
        const float f_g = w4::bf_lo(s[u]), f_g8 = w4::bf_hi(s[u]);
#pragma unroll
        for (int mi = 0; mi < MT; mi++) {
          if (mi >= m) break;
          const uint4 *xp = reinterpret_cast<const uint4 *>(x + (size_t)mi * k + (size_t)cc * 64 + 16 * t);
          const uint4 xa = __ldg(xp), xb = __ldg(xp + 1);
          const uint32_t xw[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
          float p0 = 0.f, p1 = 0.f;
#pragma unroll
          for (int i = 0; i < 16; i++) {
            const float xf = (i & 1) ? w4::bf_hi(xw[i >> 1]) : w4::bf_lo(xw[i >> 1]);
            p0 = fmaf(q0[i], xf, p0);
            p1 = fmaf(q1[i], xf, p1);
          }
          acc[0][mi] = fmaf(f_g, p0, acc[0][mi]);
          acc[1][mi] = fmaf(f_g8, p1, acc[1][mi]);
        }
      }
    }
  }
  /* The 4 lanes of a row group (t = 0..3) hold different k of the same rows. */
#pragma unroll
  for (int h = 0; h < 2; h++)
#pragma unroll
    for (int mi = 0; mi < MT; mi++) {
      float v = acc[h][mi];
      v += __shfl_xor_sync(0xffffffffu, v, 1);
      v += __shfl_xor_sync(0xffffffffu, v, 2);
      if (t == 0) red[warp][h * MT + mi][g] = v;
    }
  __syncthreads();
  for (int i = threadIdx.x; i < tpb * 2 * MT * 8; i += w4::kThreads) {
    const int tl2 = i / (2 * MT * 8), e = (i >> 3) % (2 * MT), gg = i & 7;
    const int h = e / MT, mi = e % MT, rt2 = blockIdx.x * tpb + tl2;
    if (rt2 >= tiles || mi >= m) continue;
    float v = 0.f;
    for (int w = tl2 * ks; w < tl2 * ks + ks; w++) v += red[w][e][gg];
    y[(size_t)mi * n + rt2 * 16 + gg + 8 * h] = __float2bfloat16(v);
  }
}

template <int MT>
cudaError_t launch(const w4a16_gemm *a, cudaStream_t s) {
  int ks, tpb;
  w4a16_tiling(a->k >> 6, &ks, &tpb);
  const int tiles = a->n >> 4;
  gemv_kernel<MT><<<(tiles + tpb - 1) / tpb, w4::kThreads, 0, s>>>(
      reinterpret_cast<const uint4 *>(a->w), reinterpret_cast<const uint32_t *>(a->scales),
      static_cast<const __nv_bfloat16 *>(a->x), static_cast<__nv_bfloat16 *>(a->y), a->m, a->n,
      a->k, w4_log2(a->group), ks);
  return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t w4a16_fused_gemv(const w4a16_gemm *a, cudaStream_t s) {
  w4_layout l = {a->n, a->k, a->group, 0};
  if (!a->w || !a->scales || !a->x || !a->y || w4_layout_check(&l) || a->m < 1 || a->m > W4A16_MAX_M)
    return cudaErrorInvalidValue;
  switch (w4a16_gemv_tokens(a->m)) {
  case 1: return launch<1>(a, s);
  case 2: return launch<2>(a, s);
  case 4: return launch<4>(a, s);
  case 8: return launch<8>(a, s);
  default: return launch<16>(a, s);
  }
}

cudaError_t w4a16_gemv_attrs(int m, cudaFuncAttributes *out) {
  switch (w4a16_gemv_tokens(m)) {
  case 1: return cudaFuncGetAttributes(out, gemv_kernel<1>);
  case 2: return cudaFuncGetAttributes(out, gemv_kernel<2>);
  case 4: return cudaFuncGetAttributes(out, gemv_kernel<4>);
  case 8: return cudaFuncGetAttributes(out, gemv_kernel<8>);
  default: return cudaFuncGetAttributes(out, gemv_kernel<16>);
  }
}
