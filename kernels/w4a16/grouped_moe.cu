/*
** grouped_moe: the routed experts of one decode batch in ONE persistent launch, each
** expert's weights read once for all the tokens routed to it.
**
** Why one launch: at batch 1 the layer is 22 MB of INT4, about 5 us of HBM time, and every
** launch boundary costs a drain, a ramp and a launch gap of the same order. The down
** projection's weights do not depend on gate_up's results, only its activations do, so one
** grid streams both matrices and synchronizes once, on a counter, before the down products
** read h.
**
** Grid: as many 256-thread blocks as are resident at once (2 per SM; the launch is
** cooperative, so the driver refuses a grid that would not all be resident).
**   gate_up: the batch's distinct experts ("slots", in id order) x 2I/16 row tiles, cut into
**     contiguous runs, one per block; each of the 8 warps takes an eighth of a tile's K
**     chunks (w4::tile_mma). The warps' fragments are summed through shared memory and
**     SiLU(gate) * up is written to h as bf16 (the gate_up layout puts gate row i and up
**     row i in the same thread). Each warp asks L2 for its share of the next tile while it
**     computes this one. An expert with at most 8 of the batch's tokens runs one token tile
**     even when the batch needs two.
**   down: the H/16 row tiles cut into runs, one per block; warp w takes slots w, w + 8, ...
**     of a tile, weights each product by its token's routing weight, and the tile's sum over
**     all slots is written to y once: no atomics, no zeroing pass, and the same order of
**     additions on every launch. Each warp asks L2 for its tile after next as it computes.
** Between the phases: every block adds one to sync[0] once its h stores are visible and
** waits until all blocks have (a spin with a 2 s bound that traps rather than hangs); the
** last block out resets the counters, so each launch leaves them zero.
** Tried on an H200 (CUDA 13.0) and not kept: asking L2 for all of a block's down weights at
** the start (the requests queue ahead of gate_up's: 1 us slower at batch 1), or for each
** warp's first two down tiles just before the wait (no gain); 8 gate_up chunks in flight
** per warp instead of 4 (no gain); 3 blocks per SM at 85 registers (spills: 24% slower at
** batch 1, 2.5x at batch 16); one block per SM with a cp.async ring of 16 KB per warp
** (8 warps cannot issue fast enough: 2x slower).
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"

namespace {

/* Blocks per SM the kernel is compiled for: 128 registers a thread, no spills with one
** token tile (two spill a little, as the two-tile fused kernels do). */
constexpr int kMinBlocks = 2;
static_assert(w4::kThreads >= W4A16_MAX_PAIRS, "one thread per (token, expert) pair");
static_assert(W4A16_MAX_EXPERTS / 32 <= 32, "the expert bitmap is scanned by one warp");

template <int NT>
struct MoeShared {
  w4::FragSum<NT> red[2];                               /* tile sums, double-buffered */
  unsigned bits[W4A16_MAX_EXPERTS / 32];                /* routed expert ids */
  int before[W4A16_MAX_EXPERTS / 32];                   /* slots of lower ids, per word */
  int slot_exp[W4A16_MAX_PAIRS];                        /* slot -> expert id */
  unsigned tokmask[W4A16_MAX_PAIRS];                    /* slot -> tokens routed to it */
  float wt[W4A16_MAX_PAIRS];                            /* pair -> routing weight */
  unsigned char col_pair[W4A16_MAX_PAIRS][W4A16_MAX_M]; /* slot, n-th token -> pair */
  unsigned char col_tok[W4A16_MAX_PAIRS][W4A16_MAX_M];  /* slot, n-th token -> token */
  int nexp;
};

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void red_release_add(unsigned *p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
/* Where a launch's matrices are, computed from the kernel parameters on each use (they sit
** in the constant bank, so this costs a few integer ops and no registers across the loops). */
__device__ __forceinline__ const uint4 *w13_tile(const w4a16_moe &a, int e, int rt) {
  return reinterpret_cast<const uint4 *>(a.w13) + (size_t)e * ((size_t)2 * a.inter * a.hidden / 32) +
         (size_t)rt * (a.hidden / 64) * 32;
}
__device__ __forceinline__ const uint32_t *s13_tile(const w4a16_moe &a, int gshift, int e, int rt) {
  const size_t ng = (size_t)(a.hidden >> gshift);
  return reinterpret_cast<const uint32_t *>(a.s13) + (size_t)e * a.inter * ng + (size_t)rt * ng * 8;
}
__device__ __forceinline__ const uint4 *w2_tile(const w4a16_moe &a, int e, int rt) {
  return reinterpret_cast<const uint4 *>(a.w2) + (size_t)e * ((size_t)a.hidden * a.inter / 32) +
         (size_t)rt * (a.inter / 64) * 32;
}
__device__ __forceinline__ const uint32_t *s2_tile(const w4a16_moe &a, int gshift, int e, int rt) {
  const size_t ng = (size_t)(a.inter >> gshift);
  return reinterpret_cast<const uint32_t *>(a.s2) + (size_t)e * (a.hidden / 2) * ng + (size_t)rt * ng * 8;
}

/* gate_up tile i (slot i / tilesA, row tile i % tilesA): this lane's first weight word and
** scale pair; returns the slot. */
template <int NT>
__device__ __forceinline__ int gate_up_tile(const w4a16_moe &a, int gshift, const MoeShared<NT> &sh, int i,
                                            int lane, const uint4 **wt, const uint32_t **st) {
  const int tilesA = a.inter / 8, s = i / tilesA, rt = i - s * tilesA, e = sh.slot_exp[s];
  *wt = w13_tile(a, e, rt) + lane;
  *st = s13_tile(a, gshift, e, rt) + (lane >> 2);
  return s;
}

template <int NT, bool POST>
__global__ void __launch_bounds__(w4::kThreads, kMinBlocks) moe_kernel(w4a16_moe a, int gshift) {
  __shared__ MoeShared<NT> sh;
  /* Launched with PDL, ids, weights and x may come from the kernel before: wait for it
  ** before reading them (a no-op otherwise), and let the next launch queue up behind us. */
  w4::pdl_wait();
  w4::pdl_launch_dependents();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int T = a.tokens, topk = a.topk, pairs = T * topk;

  /* The batch's distinct experts in id order ("slots"), and each slot's tokens in order. */
  if (tid < W4A16_MAX_EXPERTS / 32) sh.bits[tid] = 0;
  sh.tokmask[tid] = 0;
  int id = -1;
  if (tid < pairs) {
    id = __ldg(a.ids + tid);
    if (id < 0 || id >= a.experts) id = -1;
    sh.wt[tid] = __ldg(a.wt + tid);
  }
  __syncthreads();
  if (id >= 0) atomicOr(&sh.bits[id >> 5], 1u << (id & 31));
  __syncthreads();
  if (warp == 0) {
    const int c = __popc(sh.bits[lane]);
    int incl = c;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    sh.before[lane] = incl - c;
    if (lane == 31) sh.nexp = incl;
  }
  __syncthreads();
  int slot = -1;
  if (id >= 0) {
    const int wd = id >> 5;
    slot = sh.before[wd] + __popc(sh.bits[wd] & ((1u << (id & 31)) - 1u));
    sh.slot_exp[slot] = id;
    atomicOr(&sh.tokmask[slot], 1u << (tid / topk));
  }
  __syncthreads();
  if (id >= 0) {
    const int tok = tid / topk, n = __popc(sh.tokmask[slot] & ((1u << tok) - 1u));
    sh.col_pair[slot][n] = (unsigned char)tid;
    sh.col_tok[slot][n] = (unsigned char)tok;
  }
  __syncthreads();

  /* This block's tiles of each phase, and this warp's K chunks of a gate_up tile. */
  const int nexp = sh.nexp, C = gridDim.x, b = blockIdx.x, H = a.hidden, I = a.inter;
  const int NA = nexp * (I / 8), tilesB = H / 16, chunksA = H / 64, chunksB = I / 64;
  const int a0 = (int)((long long)b * NA / C), a1 = (int)((long long)(b + 1) * NA / C);
  const int b0 = (int)((long long)b * tilesB / C), b1 = (int)((long long)(b + 1) * tilesB / C);
  const int c0 = warp * chunksA / w4::kWarps, c1 = (warp + 1) * chunksA / w4::kWarps;

  const uint4 *wt;
  const uint32_t *st;
  int par = 0;
  const __nv_bfloat16 *x = static_cast<const __nv_bfloat16 *>(a.x);
  __nv_bfloat16 *h = static_cast<__nv_bfloat16 *>(a.h);
  for (int i = a0; i < a1; i++) {
    const int s = gate_up_tile(a, gshift, sh, i, lane, &wt, &st), rt = i - s * (I / 8);
    if (i + 1 < a1) { /* the next tile's share into L2 while this one computes */
      const uint4 *wn;
      const uint32_t *sn;
      gate_up_tile(a, gshift, sh, i + 1, lane, &wn, &sn);
      w4::prefetch_chunks(wn - lane, sn - g, gshift, c0, c1, lane);
    }
    const int count = __popc(sh.tokmask[s]);
    const __nv_bfloat16 *xr[NT];
    float acc[NT][4];
#pragma unroll
    for (int j = 0; j < NT; j++) {
      xr[j] = 8 * j + g < count ? x + (size_t)sh.col_tok[s][8 * j + g] * H : nullptr;
      acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
    }
    if (NT == 1 || count > 8) {
      w4::tile_mma<NT, POST>(wt, st, gshift, xr, c0, c1, acc);
    } else { /* an expert with at most 8 of the batch's tokens: one token tile is enough */
      const __nv_bfloat16 *xr1[1] = {xr[0]};
      float acc1[1][4] = {{0.f, 0.f, 0.f, 0.f}};
      w4::tile_mma<1, POST>(wt, st, gshift, xr1, c0, c1, acc1);
#pragma unroll
      for (int e = 0; e < 4; e++) acc[0][e] = acc1[0][e];
    }
    w4::frag_store(sh.red[par], warp, lane, acc);
    __syncthreads();
    /* Elements j*4 + bb (row g: gate) and j*4 + bb + 2 (row g + 8: up) share a token column. */
    for (int q = tid; q < NT * 64; q += w4::kThreads) {
      const int j = q >> 6, bb = (q >> 5) & 1, ln = q & 31;
      const int eg = j * 4 + bb, col = w4::frag_col(ln, eg);
      if (col >= count) continue;
      const float gate = w4::frag_sum(sh.red[par], 0, w4::kWarps, eg, ln);
      const float up = w4::frag_sum(sh.red[par], 0, w4::kWarps, eg + 2, ln);
      h[(size_t)sh.col_pair[s][col] * I + rt * 8 + (ln >> 2)] =
          __float2bfloat16(gate / (1.f + __expf(-gate)) * up);
    }
    par ^= 1;
  }

  /* Every block's h is visible before any down product reads it. */
  __threadfence();
  __syncthreads();
  if (tid == 0) {
    red_release_add(a.sync, 1u);
    const uint64_t t0 = global_ns();
    while (ld_acquire(a.sync) < (unsigned)C) {
      __nanosleep(32);
      if (global_ns() - t0 > 2000000000ull) __trap(); /* a block never arrived: fail, not hang */
    }
  }
  __syncthreads();

  const __nv_bfloat16 *hc = h;
  __nv_bfloat16 *y = static_cast<__nv_bfloat16 *>(a.y);
  for (int rt = b0; rt < b1; rt++) {
    float acc[NT][4];
#pragma unroll
    for (int j = 0; j < NT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
    for (int s = warp; s < nexp; s += w4::kWarps) {
      const int e = sh.slot_exp[s];
      const unsigned mask = sh.tokmask[s];
      if (s + 2 * w4::kWarps < nexp) { /* this warp's unit after next, into L2 */
        const int en = sh.slot_exp[s + 2 * w4::kWarps];
        w4::prefetch_chunks(w2_tile(a, en, rt), s2_tile(a, gshift, en, rt), gshift, 0, chunksB, lane);
      }
      const __nv_bfloat16 *xr[NT];
      float wgt[NT][2];
#pragma unroll
      for (int j = 0; j < NT; j++) {
        const int n = 8 * j + g;
        xr[j] = (mask >> n) & 1u ? hc + (size_t)sh.col_pair[s][__popc(mask & ((1u << n) - 1u))] * I : nullptr;
#pragma unroll
        for (int bb = 0; bb < 2; bb++) {
          const int ct = 8 * j + 2 * t + bb;
          wgt[j][bb] = (mask >> ct) & 1u ? sh.wt[sh.col_pair[s][__popc(mask & ((1u << ct) - 1u))]] : 0.f;
        }
      }
      float part[NT][4];
#pragma unroll
      for (int j = 0; j < NT; j++) part[j][0] = part[j][1] = part[j][2] = part[j][3] = 0.f;
      w4::tile_mma<NT, POST, true>(w2_tile(a, e, rt) + lane, s2_tile(a, gshift, e, rt) + g, gshift, xr,
                                   0, chunksB, part);
#pragma unroll
      for (int j = 0; j < NT; j++) {
        acc[j][0] = fmaf(wgt[j][0], part[j][0], acc[j][0]);
        acc[j][1] = fmaf(wgt[j][1], part[j][1], acc[j][1]);
        acc[j][2] = fmaf(wgt[j][0], part[j][2], acc[j][2]);
        acc[j][3] = fmaf(wgt[j][1], part[j][3], acc[j][3]);
      }
    }
    w4::frag_store(sh.red[par], warp, lane, acc);
    __syncthreads();
    for (int q = tid; q < NT * 128; q += w4::kThreads) {
      const int e = q >> 5, ln = q & 31, col = w4::frag_col(ln, e);
      if (col >= T) continue;
      y[(size_t)col * H + rt * 16 + w4::frag_row(ln, e)] =
          __float2bfloat16(w4::frag_sum(sh.red[par], 0, w4::kWarps, e, ln));
    }
    par ^= 1;
  }

  /* The last block out leaves the counters zero for the next launch. */
  __syncthreads();
  if (tid == 0 && atomicAdd(a.sync + 1, 1u) == (unsigned)C - 1) {
    atomicExch(a.sync, 0u);
    atomicExch(a.sync + 1, 0u);
  }
}

/* The grid: as many blocks as fit on the device at once, so every block is resident. */
template <int NT, bool POST>
cudaError_t grid(int *blocks) {
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, moe_kernel<NT, POST>, w4::kThreads, 0);
  if (e != cudaSuccess) return e;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  *blocks = sms * per_sm;
  return cudaSuccess;
}

/* How the launch is made: cooperative (the driver guarantees every block resident), with
** programmatic dependent launch, or plainly (residency then rests on the grid size alone). */
enum how { kCooperative, kPdl, kPlain };

template <int NT, bool POST>
cudaError_t launch(const w4a16_moe *a, enum how how, cudaStream_t s) {
  int blocks = 0;
  cudaError_t e = grid<NT, POST>(&blocks);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  cfg.gridDim = dim3((unsigned)blocks);
  cfg.blockDim = dim3(w4::kThreads);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = how == kPlain ? 0 : 1;
  if (how == kPdl) { /* the next launch queues behind this one; this one waits for the one before */
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
  } else { /* every block resident at once, or the launch fails: the counter wait needs it */
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
  }
  return cudaLaunchKernelEx(&cfg, moe_kernel<NT, POST>, *a, w4_log2(a->group));
}

/* Checks a's shapes and limits, then launches the instance for its tokens and group. */
cudaError_t grouped_moe(const w4a16_moe *a, enum how how, cudaStream_t s) {
  const w4_layout l13 = {2 * a->inter, a->hidden, a->group, 1}, l2 = {a->hidden, a->inter, a->group, 0};
  if (!a->w13 || !a->w2 || !a->s13 || !a->s2 || !a->ids || !a->wt || !a->x || !a->h || !a->y ||
      !a->sync || w4_layout_check(&l13) || w4_layout_check(&l2) || a->tokens < 1 ||
      a->tokens > W4A16_MAX_M || a->topk < 1 || a->tokens * a->topk > W4A16_MAX_PAIRS ||
      a->experts < 1 || a->experts > W4A16_MAX_EXPERTS)
    return cudaErrorInvalidValue;
  const bool post = w4a16_post_scale(a->group);
  if (w4a16_token_tiles(a->tokens) == 1) return post ? launch<1, true>(a, how, s) : launch<1, false>(a, how, s);
  return post ? launch<2, true>(a, how, s) : launch<2, false>(a, how, s);
}

} /* namespace */

extern "C" cudaError_t w4a16_grouped_moe(const w4a16_moe *a, int pdl, cudaStream_t s) {
  return grouped_moe(a, pdl ? kPdl : kCooperative, s);
}

extern "C" cudaError_t w4a16_moe_grid(int tokens, int group, int *blocks) {
  const bool post = w4a16_post_scale(group);
  if (w4a16_token_tiles(tokens) == 1) return post ? grid<1, true>(blocks) : grid<1, false>(blocks);
  return post ? grid<2, true>(blocks) : grid<2, false>(blocks);
}

cudaError_t w4a16_moe_attrs(int m, int group, cudaFuncAttributes *out) {
  const bool post = w4a16_post_scale(group), one = w4a16_token_tiles(m) == 1;
  if (one) return post ? cudaFuncGetAttributes(out, moe_kernel<1, true>) : cudaFuncGetAttributes(out, moe_kernel<1, false>);
  return post ? cudaFuncGetAttributes(out, moe_kernel<2, true>) : cudaFuncGetAttributes(out, moe_kernel<2, false>);
}
