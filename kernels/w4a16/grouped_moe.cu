/*
** grouped_moe: the routed experts of one decode batch in two launches, each expert's weights
** read once for all the tokens routed to it.
**
** gate_up: grid (2*inter/16 tiles, tokens*topk pairs). The block of pair p works only if p
** is the first pair routed to its expert; it gathers every pair of that expert (in pair
** order, at most 16: a token's experts are distinct and tokens <= 16), runs the tile over
** all of K with its 8 warps, and writes SiLU(gate) * up for those pairs as bf16 (the gate_up
** layout puts gate row i and up row i in the same thread).
**
** down: grid (hidden/32: two 16-row tiles per block). Every block lists the batch's distinct
** experts (a bitmap of expert ids, ranks by popcount), the 4 warps of a tile take the
** experts in turn, and each warp adds routing weight x (W2_e tile * h) into fp32
** accumulators whose columns are the batch's tokens; the 4 warps' sums are added through
** shared memory and y is written once, so no atomics and no zeroing pass. With PDL it
** starts while gate_up drains: it builds its expert list and prefetches its first expert's
** weight tile into L2, then waits for gate_up. Each warp asks L2 for its next expert's tile
** while it computes the current one.
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"

namespace {

/* down: 16-row tiles per block, and the warps that share one tile's expert list. */
constexpr int kDownTiles = 2;
constexpr int kDownWarpsPerTile = w4::kWarps / kDownTiles;

template <int NT, bool POST>
__global__ void __launch_bounds__(w4::kThreads, w4::min_blocks(NT)) moe_gate_up_kernel(w4a16_moe a, int gshift) {
  __shared__ w4::FragSum<NT> red;
  __shared__ int s_pairs[16];
  __shared__ int s_count[w4::kWarps];
  /* The down kernel only needs our results after its own griddepcontrol.wait. */
  w4::pdl_launch_dependents();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2;
  const int pairs = a.tokens * a.topk, p = blockIdx.y;
  const int e = __ldg(a.ids + p);
  const int id = tid < pairs ? __ldg(a.ids + tid) : -1;
  const bool valid = e >= 0 && e < a.experts;
  if (__syncthreads_or(!valid || (tid < p && id == e))) return; /* not the expert's first pair */
  const bool member = tid < pairs && id == e;
  const unsigned ballot = __ballot_sync(0xffffffffu, member);
  if (lane == 0) s_count[warp] = __popc(ballot);
  __syncthreads();
  int before = 0, total = 0;
  for (int w = 0; w < w4::kWarps; w++) {
    before += w < warp ? s_count[w] : 0;
    total += s_count[w];
  }
  if (member) {
    const int slot = before + __popc(ballot & ((1u << lane) - 1u));
    if (slot < 16) s_pairs[slot] = tid;
  }
  __syncthreads();
  const int count = min(total, 8 * NT);

  const int K = a.hidden, I = a.inter, chunks = K >> 6, rt = blockIdx.x;
  const size_t ng = (size_t)(K >> gshift);
  const uint4 *wt = reinterpret_cast<const uint4 *>(a.w13) + (size_t)e * ((size_t)2 * I * K / 32) +
                    (size_t)rt * chunks * 32 + lane;
  const uint32_t *st = reinterpret_cast<const uint32_t *>(a.s13) + (size_t)e * ((size_t)I * ng) +
                       (size_t)rt * ng * 8 + g;
  const __nv_bfloat16 *x = static_cast<const __nv_bfloat16 *>(a.x);
  const __nv_bfloat16 *xr[NT];
#pragma unroll
  for (int j = 0; j < NT; j++)
    xr[j] = 8 * j + g < count ? x + (size_t)(s_pairs[8 * j + g] / a.topk) * K : nullptr;
  float acc[NT][4];
#pragma unroll
  for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  w4::tile_mma<NT, POST>(wt, st, gshift, xr, warp * chunks / w4::kWarps,
                         (warp + 1) * chunks / w4::kWarps, acc);
  w4::frag_store(red, warp, lane, acc);
  __syncthreads();
  /* Elements j*4 + b (row g: gate) and j*4 + b + 2 (row g + 8: up) share a token column. */
  __nv_bfloat16 *h = static_cast<__nv_bfloat16 *>(a.h);
  for (int i = tid; i < NT * 64; i += w4::kThreads) {
    const int j = i >> 6, b = (i >> 5) & 1, ln = i & 31;
    const int eg = j * 4 + b, col = w4::frag_col(ln, eg);
    if (col >= count) continue;
    const float gate = w4::frag_sum(red, 0, w4::kWarps, eg, ln);
    const float up = w4::frag_sum(red, 0, w4::kWarps, eg + 2, ln);
    const float act = gate / (1.f + __expf(-gate)) * up;
    h[(size_t)s_pairs[col] * I + rt * 8 + (ln >> 2)] = __float2bfloat16(act);
  }
}

template <int NT, bool POST>
__global__ void __launch_bounds__(w4::kThreads, w4::min_blocks(NT)) moe_down_kernel(w4a16_moe a, int gshift) {
  __shared__ w4::FragSum<NT> red;
  __shared__ unsigned s_bits[W4A16_MAX_EXPERTS / 32];
  __shared__ int s_before[W4A16_MAX_EXPERTS / 32];
  __shared__ int s_ids[W4A16_MAX_PAIRS];
  __shared__ float s_wt[W4A16_MAX_PAIRS];
  __shared__ int s_exp[W4A16_MAX_PAIRS];
  __shared__ int s_nexp;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int T = a.tokens, topk = a.topk, pairs = T * topk;

  /* The batch's distinct experts in id order: set a bit per routed id, rank by popcount. */
  if (tid < W4A16_MAX_EXPERTS / 32) s_bits[tid] = 0;
  int id = -1;
  if (tid < pairs) {
    id = __ldg(a.ids + tid);
    if (id < 0 || id >= a.experts) id = -1;
    s_ids[tid] = id;
    s_wt[tid] = __ldg(a.wt + tid);
  }
  __syncthreads();
  if (id >= 0) atomicOr(&s_bits[id >> 5], 1u << (id & 31));
  __syncthreads();
  if (warp == 0) {
    const int c = __popc(s_bits[lane]);
    int incl = c;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    s_before[lane] = incl - c;
    if (lane == 31) s_nexp = incl;
  }
  __syncthreads();
  if (id >= 0) {
    const int wd = id >> 5;
    s_exp[s_before[wd] + __popc(s_bits[wd] & ((1u << (id & 31)) - 1u))] = id;
  }
  __syncthreads();
  const int nexp = s_nexp;

  /* Two tiles per block, four warps on each taking the experts in turn. */
  const int H = a.hidden, I = a.inter, chunks = I >> 6, tl = warp >> 2, first = warp & 3;
  const int rt = blockIdx.x * kDownTiles + tl;
  const size_t ng = (size_t)(I >> gshift);
  const size_t wexp = (size_t)H * I / 32, sexp = (size_t)(H / 2) * ng;
  const uint4 *w2 = reinterpret_cast<const uint4 *>(a.w2) + (size_t)rt * chunks * 32 + lane;
  const uint32_t *s2 = reinterpret_cast<const uint32_t *>(a.s2) + (size_t)rt * ng * 8 + g;
  const bool live = rt < (H >> 4);
  if (live && first < nexp)
    w4::prefetch_chunks(w2 - lane + (size_t)s_exp[first] * wexp, s2 - g + (size_t)s_exp[first] * sexp,
                        gshift, 0, chunks, lane);
  w4::pdl_wait(); /* h is written by the gate_up kernel */

  const __nv_bfloat16 *h = static_cast<const __nv_bfloat16 *>(a.h);
  float acc[NT][4];
#pragma unroll
  for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  for (int slot = first; live && slot < nexp; slot += kDownWarpsPerTile) {
    const int e = s_exp[slot];
    if (slot + kDownWarpsPerTile < nexp) { /* the next expert's tile, while this one computes */
      const int en = s_exp[slot + kDownWarpsPerTile];
      w4::prefetch_chunks(w2 - lane + (size_t)en * wexp, s2 - g + (size_t)en * sexp, gshift, 0, chunks, lane);
    }
    const __nv_bfloat16 *xr[NT];
    float wgt[NT][2];
#pragma unroll
    for (int j = 0; j < NT; j++) {
      const int tok = 8 * j + g;
      int pr = -1;
      if (tok < T)
        for (int i = 0; i < topk; i++)
          if (s_ids[tok * topk + i] == e) pr = tok * topk + i;
      xr[j] = pr >= 0 ? h + (size_t)pr * I : nullptr;
#pragma unroll
      for (int b = 0; b < 2; b++) {
        const int ct = 8 * j + 2 * t + b;
        float wv = 0.f;
        if (ct < T)
          for (int i = 0; i < topk; i++)
            if (s_ids[ct * topk + i] == e) wv = s_wt[ct * topk + i];
        wgt[j][b] = wv;
      }
    }
    float part[NT][4];
#pragma unroll
    for (int j = 0; j < NT; j++) part[j][0] = part[j][1] = part[j][2] = part[j][3] = 0.f;
    w4::tile_mma<NT, POST, true>(w2 + (size_t)e * wexp, s2 + (size_t)e * sexp, gshift, xr, 0, chunks, part);
#pragma unroll
    for (int j = 0; j < NT; j++) {
      acc[j][0] = fmaf(wgt[j][0], part[j][0], acc[j][0]);
      acc[j][1] = fmaf(wgt[j][1], part[j][1], acc[j][1]);
      acc[j][2] = fmaf(wgt[j][0], part[j][2], acc[j][2]);
      acc[j][3] = fmaf(wgt[j][1], part[j][3], acc[j][3]);
    }
  }
  w4::frag_store(red, warp, lane, acc);
  __syncthreads();
  __nv_bfloat16 *y = static_cast<__nv_bfloat16 *>(a.y);
  for (int i = tid; i < kDownTiles * NT * 128; i += w4::kThreads) {
    const int tl2 = i / (NT * 128), e = (i >> 5) % (NT * 4), ln = i & 31, col = w4::frag_col(ln, e);
    const int rt2 = blockIdx.x * kDownTiles + tl2;
    if (col >= T || rt2 >= (H >> 4)) continue;
    y[(size_t)col * H + rt2 * 16 + w4::frag_row(ln, e)] =
        __float2bfloat16(w4::frag_sum(red, tl2, kDownWarpsPerTile, e, ln));
  }
}

template <int NT, bool POST>
cudaError_t launch(const w4a16_moe *a, int pdl, cudaStream_t s) {
  const int gshift = w4_log2(a->group);
  moe_gate_up_kernel<NT, POST><<<dim3(a->inter / 8, a->tokens * a->topk), w4::kThreads, 0, s>>>(*a, gshift);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = dim3((a->hidden / 16 + kDownTiles - 1) / kDownTiles);
  cfg.blockDim = dim3(w4::kThreads);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, moe_down_kernel<NT, POST>, *a, gshift);
}

} /* namespace */

extern "C" cudaError_t w4a16_grouped_moe(const w4a16_moe *a, int pdl, cudaStream_t s) {
  const w4_layout l13 = {2 * a->inter, a->hidden, a->group, 1}, l2 = {a->hidden, a->inter, a->group, 0};
  if (!a->w13 || !a->w2 || !a->s13 || !a->s2 || !a->ids || !a->wt || !a->x || !a->h || !a->y ||
      w4_layout_check(&l13) || w4_layout_check(&l2) || a->tokens < 1 || a->tokens > W4A16_MAX_M ||
      a->topk < 1 || a->tokens * a->topk > W4A16_MAX_PAIRS || a->experts < 1 ||
      a->experts > W4A16_MAX_EXPERTS)
    return cudaErrorInvalidValue;
  const bool post = w4a16_post_scale(a->group);
  if (w4a16_token_tiles(a->tokens) == 1) return post ? launch<1, true>(a, pdl, s) : launch<1, false>(a, pdl, s);
  return post ? launch<2, true>(a, pdl, s) : launch<2, false>(a, pdl, s);
}

cudaError_t w4a16_moe_attrs(int down, int m, int group, cudaFuncAttributes *out) {
  const bool post = w4a16_post_scale(group), one = w4a16_token_tiles(m) == 1;
  if (down) {
    if (one) return post ? cudaFuncGetAttributes(out, moe_down_kernel<1, true>) : cudaFuncGetAttributes(out, moe_down_kernel<1, false>);
    return post ? cudaFuncGetAttributes(out, moe_down_kernel<2, true>) : cudaFuncGetAttributes(out, moe_down_kernel<2, false>);
  }
  if (one) return post ? cudaFuncGetAttributes(out, moe_gate_up_kernel<1, true>) : cudaFuncGetAttributes(out, moe_gate_up_kernel<1, false>);
  return post ? cudaFuncGetAttributes(out, moe_gate_up_kernel<2, true>) : cudaFuncGetAttributes(out, moe_gate_up_kernel<2, false>);
}
