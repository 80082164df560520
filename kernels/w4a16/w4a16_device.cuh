/*
** Device building blocks shared by the fused w4a16 kernels (fused_mma, fused_splitk,
** grouped_moe): streaming loads, INT4 -> bf16 conversion in registers, the bf16 tensor-core
** MMA, and the inner loop that runs one warp over a 16-row tile and a range of 64-wide K
** chunks (see w4a16_layout.h for the packed order it reads).
*/
#ifndef XP_W4A16_DEVICE_CUH
#define XP_W4A16_DEVICE_CUH
#include <cuda_bf16.h>
#include <stdint.h>
#include "w4a16/w4a16_layout.h"

namespace w4 {

constexpr int kWarps = 8;             /* every fused kernel runs 256-thread blocks */
constexpr int kThreads = kWarps * 32;
constexpr int kUnroll = 4;            /* K chunks whose loads are in flight together per warp */
/* Resident blocks per SM the MMA kernels are compiled for: one token tile fits in 85
** registers without spilling (3 blocks, 24 warps per SM), two in 128. */
constexpr int min_blocks(int token_tiles) { return token_tiles == 1 ? 3 : 2; }

/* Weights are read once: keep them out of L1 (other warps never reuse them). */
__device__ __forceinline__ uint4 ld_stream(const uint4 *p) {
  uint4 r;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "l"(p));
  return r;
}

__device__ __forceinline__ uint32_t lop3_and_or(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, 0xea;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); /* (a & b) | c */
  return d;
}

__device__ __forceinline__ uint32_t bf2_sub(uint32_t a, uint32_t b) {
  __nv_bfloat162 x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  __nv_bfloat162 z = __hsub2(x, y);
  uint32_t r;
  memcpy(&r, &z, 4);
  return r;
}

__device__ __forceinline__ uint32_t bf2_mul(uint32_t a, uint32_t b) {
  __nv_bfloat162 x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  __nv_bfloat162 z = __hmul2(x, y);
  uint32_t r;
  memcpy(&r, &z, 4);
  return r;
}

/* One packed word -> four bf16x2 registers holding the exact integers q (-8..7):
**   out[0] = row g, k j0 j1   out[1] = row g+8, k j0 j1
**   out[2] = row g, k j2 j3   out[3] = row g+8, k j2 j3
** OR-ing a nibble into the mantissa of bf16 128.0 (0x4300) gives 128 + nibble exactly;
** subtracting 136 = 128 + 8 (0x4308) leaves q. Two instructions per pair of weights. */
__device__ __forceinline__ void unpack_word(uint32_t w, uint32_t out[4]) {
  const uint32_t mask = 0x000F000Fu, magic = 0x43004300u, bias = 0x43084308u;
  out[0] = bf2_sub(lop3_and_or(w, mask, magic), bias);
  out[1] = bf2_sub(lop3_and_or(w >> 4, mask, magic), bias);
  out[2] = bf2_sub(lop3_and_or(w >> 8, mask, magic), bias);
  out[3] = bf2_sub(lop3_and_or(w >> 12, mask, magic), bias);
}

__device__ __forceinline__ float bf_lo(uint32_t u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float bf_hi(uint32_t u) { return __uint_as_float(u & 0xffff0000u); }

/* D += A * B, m16n8k16, bf16 inputs, fp32 accumulators. */
__device__ __forceinline__ void mma16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* Programmatic dependent launch (sm_90+): let the next kernel in the stream start its
** prologue now / wait here until the previous kernel's results are visible. Both are no-ops
** for kernels launched without the attribute. */
__device__ __forceinline__ void pdl_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

/* How load_x reads activations: through the non-coherent path (read-only for the whole
** kernel), or through L2 only (ld.global.cg: written by another block of the same launch, or
** by the kernel just before in a dependent launch chain). */
enum xload { kLdg, kLdcg };

/* The lane's activations of K chunk cc of row xr: k = 64cc + 16t .. +15 as two 16-byte
** loads. A lane with no row (NULL) loads nothing and keeps what its registers held. */
template <int LD>
__device__ __forceinline__ void load_x_row(const __nv_bfloat16 *xr, int cc, int t, uint4 &xa, uint4 &xb) {
  if (xr) {
    const uint4 *xp = reinterpret_cast<const uint4 *>(xr + (size_t)cc * 64 + 16 * t);
    xa = LD == kLdcg ? __ldcg(xp) : __ldg(xp);
    xb = LD == kLdcg ? __ldcg(xp + 1) : __ldg(xp + 1);
  }
}

/* load_x_row for each token tile, with zeros for a NULL row or cc < 0. */
template <int NT, int LD>
__device__ __forceinline__ void load_x(const __nv_bfloat16 *const xr[NT], int cc, int t, uint4 xa[NT], uint4 xb[NT]) {
#pragma unroll
  for (int j = 0; j < NT; j++) {
    xa[j] = xb[j] = make_uint4(0, 0, 0, 0);
    if (cc >= 0) load_x_row<LD>(xr[j], cc, t, xa[j], xb[j]);
  }
}

/* acc[j] += W_chunk * X_j^T for one 64-wide K chunk of a 16-row tile: w is the lane's
** 16-byte weight word, s its scale pair (row g in the low half, row g + 8 in the high), and
** xa[j], xb[j] its two 16-byte activation loads of token tile j (k = 16t .. 16t + 15 of the
** chunk, the renamed order of the weight words). With POST (a whole chunk shares one scale
** per row) the MMA runs on exact q and the scale multiplies the fp32 partial; otherwise the
** scale is applied to the bf16 weights first (q * scale rounded to bf16, as the dequantized
** weights carry it). */
template <int NT, bool POST>
__device__ __forceinline__ void chunk_mma(const uint4 &w, uint32_t s, const uint4 xa[NT], const uint4 xb[NT],
                                          float acc[NT][4]) {
  const uint32_t ww[4] = {w.x, w.y, w.z, w.w};
  const uint32_t s_g = __byte_perm(s, s, 0x1010);  /* row g scale in both halves */
  const uint32_t s_g8 = __byte_perm(s, s, 0x3232); /* row g + 8 */
  float part[NT][4];
#pragma unroll
  for (int j = 0; j < NT; j++) part[j][0] = part[j][1] = part[j][2] = part[j][3] = 0.f;
#pragma unroll
  for (int q = 0; q < 4; q++) {
    uint32_t a[4];
    unpack_word(ww[q], a);
    if (!POST) {
      a[0] = bf2_mul(a[0], s_g);
      a[1] = bf2_mul(a[1], s_g8);
      a[2] = bf2_mul(a[2], s_g);
      a[3] = bf2_mul(a[3], s_g8);
    }
#pragma unroll
    for (int j = 0; j < NT; j++) {
      const uint4 &v = q < 2 ? xa[j] : xb[j];
      const uint32_t b0 = (q & 1) ? v.z : v.x, b1 = (q & 1) ? v.w : v.y;
      mma16816(POST ? part[j] : acc[j], a, b0, b1);
    }
  }
  if (POST) {
    const float f_g = bf_lo(s), f_g8 = bf_hi(s);
#pragma unroll
    for (int j = 0; j < NT; j++) {
      acc[j][0] += f_g * part[j][0];
      acc[j][1] += f_g * part[j][1];
      acc[j][2] += f_g8 * part[j][2];
      acc[j][3] += f_g8 * part[j][3];
    }
  }
}

/* load_w for a chunk known to be in range: no zeros, no guard. */
__device__ __forceinline__ void load_w_at(const uint4 *wt, const uint32_t *st, int gshift, int cc, uint4 &w, uint32_t &s) {
  w = ld_stream(wt + (size_t)cc * 32);
  s = __ldg(st + (((size_t)(cc * 64 + 16 * (threadIdx.x & 3)) >> gshift) << 3));
}

/* The lane's weight word and scale pair of K chunk cc of a tile row (see tile_mma); zeros and
** no load past c1. */
__device__ __forceinline__ void load_w(const uint4 *wt, const uint32_t *st, int gshift, int cc, int c1, uint4 &w,
                                       uint32_t &s) {
  w = make_uint4(0, 0, 0, 0);
  s = 0;
  if (cc < c1) load_w_at(wt, st, gshift, cc, w, s);
}

/* load_w, and the lane's activations of chunk cc for each token tile (load_x). */
template <int NT, int LD>
__device__ __forceinline__ void load_chunk(const uint4 *wt, const uint32_t *st, int gshift,
                                           const __nv_bfloat16 *const xr[NT], int cc, int c1, uint4 &w,
                                           uint32_t &s, uint4 xa[NT], uint4 xb[NT]) {
  load_w(wt, st, gshift, cc, c1, w, s);
  load_x<NT, LD>(xr, cc < c1 ? cc : -1, threadIdx.x & 3, xa, xb);
}

/* The two-stage schedule of tile_mma and tile_mma_pair over K chunks [c0, c1), U chunks a
** stage: issue(c, b) starts the loads of chunks c .. c + U - 1 into buffer b (0 or 1), and
** run(c, b) multiplies what they loaded. The next stage's loads are issued before this
** stage's MMAs, so one stage is always in flight while the other converts. */
template <int U, class Issue, class Run>
__device__ __forceinline__ void two_stages(int c0, int c1, Issue &issue, Run &run) {
  issue(c0, 0);
  for (int c = c0; c < c1; c += 2 * U) {
    if (c + U < c1) issue(c + U, 1);
    run(c, 0);
    if (c + U >= c1) break;
    if (c + 2 * U < c1) issue(c + 2 * U, 0);
    run(c + U, 1);
  }
}

/* One token tile against R row tiles (wt[r]/st[r], acc[r] += W_r X^T), the R tiles' loads
** in flight together; tile_mma (one tile) and tile_mma_pair (two) are this with R = 1, 2.
** Two stages of two chunks (two_stages). Loads only for chunks in range and no zeros a
** chunk: a lane with no token keeps the zeros set here (grouped_moe 2-4% faster at batches
** 1 to 16 on an H200 than zeroing every chunk). */
template <int R, bool POST, bool XCG>
__device__ __forceinline__ void tile_mma_rows(const uint4 *const wt[R], const uint32_t *const st[R], int gshift,
                                              const __nv_bfloat16 *xr, int c0, int c1, float (*const acc[R])[4]) {
  constexpr int LD = XCG ? kLdcg : kLdg, U = 2;
  const int t = threadIdx.x & 3;
  uint4 w[R][2][U], xa[2][U][1], xb[2][U][1];
  uint32_t s[R][2][U];
#pragma unroll
  for (int b = 0; b < 2; b++)
#pragma unroll
    for (int u = 0; u < U; u++) xa[b][u][0] = xb[b][u][0] = make_uint4(0, 0, 0, 0);
  auto issue = [&](int c, int b) {
#pragma unroll
    for (int u = 0; u < U; u++)
      if (c + u < c1) {
#pragma unroll
        for (int r = 0; r < R; r++) load_w_at(wt[r], st[r], gshift, c + u, w[r][b][u], s[r][b][u]);
        load_x_row<LD>(xr, c + u, t, xa[b][u][0], xb[b][u][0]);
      }
  };
  auto run = [&](int c, int b) {
#pragma unroll
    for (int u = 0; u < U; u++)
      if (c + u < c1)
#pragma unroll
        for (int r = 0; r < R; r++) chunk_mma<1, POST>(w[r][b][u], s[r][b][u], xa[b][u], xb[b][u], acc[r]);
  };
  two_stages<U>(c0, c1, issue, run);
}

/*
** One warp, one 16-row tile, K chunks [c0, c1): acc[j] += W_tile * X_j^T for token tiles j.
**
**   wt     the tile row's first 16-byte word for this lane: W + rt * (K/64) * 32 + lane
**   st     the tile row's scales as 32-bit pairs for this lane: S + rt * (K/G) * 8 + g
**   xr[j]  this lane's activation row for token 8j + g (bf16, K long), or NULL (zeros)
**   acc[j] C fragment of token tile j: rows g, g+8 x tokens 8j + 2t, 8j + 2t + 1
**
** The lane reads k = 64c + 16t .. +15 of its activation row as two 16-byte loads, and each
** chunk goes through chunk_mma (POST: G a multiple of 64); XCG loads them with kLdcg.
**
** Every weight is read once: a warp keeps the next stage's bytes in flight while it converts
** and multiplies this one's, and converting costs about as much time as loading (see
** grouped_moe.cu: the two nearly add up). One token tile: two stages of two chunks, the next
** stage's loads issued before this one's MMAs. Two token tiles: rounds of kUnroll chunks,
** loads then MMAs (a second stage would spill at 128 registers). The loads are the only
** requests: each warp also asking L2 for its next 16 chunks (prefetch.global.L2) cost
** grouped_moe 10-15% on an H200, and the two stages gained it another 5-10% over rounds of
** four.
*/
template <int NT, bool POST, bool XCG = false>
__device__ __forceinline__ void tile_mma(const uint4 *__restrict__ wt, const uint32_t *__restrict__ st,
                                         int gshift, const __nv_bfloat16 *const xr[NT], int c0,
                                         int c1, float acc[NT][4]) {
  constexpr int LD = XCG ? kLdcg : kLdg;
  if constexpr (NT == 1) {
    const uint4 *wts[1] = {wt};
    const uint32_t *sts[1] = {st};
    float(*accs[1])[4] = {acc};
    tile_mma_rows<1, POST, XCG>(wts, sts, gshift, xr[0], c0, c1, accs);
  } else {
    for (int c = c0; c < c1; c += kUnroll) {
      uint4 w[kUnroll], xa[kUnroll][NT], xb[kUnroll][NT];
      uint32_t s[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; u++) load_chunk<NT, LD>(wt, st, gshift, xr, c + u, c1, w[u], s[u], xa[u], xb[u]);
#pragma unroll
      for (int u = 0; u < kUnroll; u++) {
        if (c + u >= c1) break;
        chunk_mma<NT, POST>(w[u], s[u], xa[u], xb[u], acc);
      }
    }
  }
}

/* tile_mma for two row tiles (wt0/st0, wt1/st1) that share one token tile of activations:
** acc0 += W0 X^T, acc1 += W1 X^T, both tiles' loads in flight together, so a warp with two
** tiles to do waits for one round trip, not two. */
template <bool POST, bool XCG>
__device__ __forceinline__ void tile_mma_pair(const uint4 *__restrict__ wt0, const uint32_t *__restrict__ st0,
                                              const uint4 *__restrict__ wt1, const uint32_t *__restrict__ st1,
                                              int gshift, const __nv_bfloat16 *const xr[1], int c0, int c1,
                                              float acc0[1][4], float acc1[1][4]) {
  const uint4 *wts[2] = {wt0, wt1};
  const uint32_t *sts[2] = {st0, st1};
  float(*accs[2])[4] = {acc0, acc1};
  tile_mma_rows<2, POST, XCG>(wts, sts, gshift, xr[0], c0, c1, accs);
}

/* C fragments of a block's 8 warps, for the sum over the warps that split one tile's K. Laid
** out [warp][element][lane] so that the stores of a warp hit 32 different banks. */
template <int NT>
struct FragSum {
  float v[kWarps][NT * 4][32];
};

template <int NT>
__device__ __forceinline__ void frag_store(FragSum<NT> &r, int warp, int lane, const float acc[NT][4]) {
#pragma unroll
  for (int j = 0; j < NT; j++)
#pragma unroll
    for (int e = 0; e < 4; e++) r.v[warp][j * 4 + e][lane] = acc[j][e];
}

/* Sum of element e of `lane` over the ks warps of tile tl (warps tl*ks .. tl*ks + ks - 1). */
template <int NT>
__device__ __forceinline__ float frag_sum(const FragSum<NT> &r, int tl, int ks, int e, int lane) {
  float v = 0.f;
  for (int w = tl * ks; w < tl * ks + ks; w++) v += r.v[w][e][lane];
  return v;
}

/* Element e (0..NT*4-1) of a lane's C fragments: its row in the tile and its token. */
__device__ __forceinline__ int frag_row(int lane, int e) { return (lane >> 2) + 8 * ((e & 3) >> 1); }
__device__ __forceinline__ int frag_col(int lane, int e) { return 8 * (e >> 2) + 2 * (lane & 3) + (e & 1); }

/* The GEMM kernels' block (fused_mma, fused_splitk): tiles_per_block = 8 / ks tiles of
** y = x W^T starting at tile blockIdx.x * tiles_per_block, ks warps on each splitting K
** chunks [s0, s1); every warp's fragments land in red, visible to the whole block on return.
** Both token tiles go through one tile_mma: one pass per tile, as grouped_moe runs them, made
** M = 16 12-23% slower here on an H200 (fused_mma down 3.32 -> 3.74 us, gate_up 7.29 ->
** 8.96): these kernels do not spill, and a second pass converts every weight again. */
template <int NT, bool POST>
__device__ __forceinline__ void gemm_block(const uint4 *__restrict__ W, const uint32_t *__restrict__ S,
                                           const __nv_bfloat16 *__restrict__ x, int m, int n, int k, int gshift,
                                           int ks, int s0, int s1, FragSum<NT> &red) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2;
  const int tl = warp / ks, kp = warp % ks, rt = blockIdx.x * (kWarps / ks) + tl, len = s1 - s0;
  float acc[NT][4];
#pragma unroll
  for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  if (rt < (n >> 4)) {
    const __nv_bfloat16 *xr[NT];
#pragma unroll
    for (int j = 0; j < NT; j++) xr[j] = 8 * j + g < m ? x + (size_t)(8 * j + g) * k : nullptr;
    tile_mma<NT, POST>(W + (size_t)rt * (k >> 6) * 32 + lane, S + (size_t)rt * (size_t)(k >> gshift) * 8 + g, gshift,
                       xr, s0 + kp * len / ks, s0 + (kp + 1) * len / ks, acc);
  }
  frag_store(red, warp, lane, acc);
  __syncthreads();
}

/* Every output of gemm_block's tiles the block holds in red, shared by the block's threads:
** f(at, v) with at = token * n + row, the index into an m x n row-major output, and v the
** sum over the tile's ks warps. */
template <int NT, class F>
__device__ __forceinline__ void gemm_block_outputs(const FragSum<NT> &red, int m, int n, int ks, F f) {
  const int tpb = kWarps / ks;
  for (int i = threadIdx.x; i < tpb * NT * 128; i += kThreads) {
    const int tl = i / (NT * 128), e = (i >> 5) % (NT * 4), ln = i & 31;
    const int rt = blockIdx.x * tpb + tl, col = frag_col(ln, e);
    if (rt >= (n >> 4) || col >= m) continue;
    f((size_t)col * n + rt * 16 + frag_row(ln, e), frag_sum(red, tl, ks, e, ln));
  }
}

} /* namespace w4 */
#endif
