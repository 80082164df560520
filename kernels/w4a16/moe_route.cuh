/*
** The pieces of grouped_moe.cu apart from how it schedules its work: the routing of one
** decode batch turned into "slots" (the batch's distinct experts in id order, with the
** tokens routed to each), where a launch's matrices are, the rows each lane reads, the
** SiLU * up and weighted-sum epilogues, the grid-wide barrier between the gate_up and down
** phases, and the checks and launch configuration of the host side.
*/
#ifndef XP_W4A16_MOE_ROUTE_CUH
#define XP_W4A16_MOE_ROUTE_CUH
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"

namespace w4 {

static_assert(W4A16_MAX_EXPERTS / 32 <= 32, "the expert bitmap is scanned by one warp");

struct MoeRoute {
  unsigned bits[W4A16_MAX_EXPERTS / 32];                /* routed expert ids */
  int before[W4A16_MAX_EXPERTS / 32];                   /* slots of lower ids, per word */
  int slot_exp[W4A16_MAX_PAIRS];                        /* slot -> expert id */
  unsigned tokmask[W4A16_MAX_PAIRS];                    /* slot -> tokens routed to it */
  float wt[W4A16_MAX_PAIRS];                            /* pair -> routing weight */
  unsigned char col_pair[W4A16_MAX_PAIRS][W4A16_MAX_M]; /* slot, n-th token -> pair */
  unsigned char col_tok[W4A16_MAX_PAIRS][W4A16_MAX_M];  /* slot, n-th token -> token */
  int nexp;
};

/* Fills r from ids and wt; every thread of the block calls it (blockDim.x >= 32), and r is
** complete for all of them on return. Threads beyond W4A16_MAX_PAIRS only synchronize. */
__device__ __forceinline__ void moe_route(const w4a16_moe &a, MoeRoute &r) {
  const int tid = threadIdx.x, lane = tid & 31, pairs = a.tokens * a.topk, topk = a.topk;
  if (tid < W4A16_MAX_EXPERTS / 32) r.bits[tid] = 0;
  if (tid < W4A16_MAX_PAIRS) r.tokmask[tid] = 0;
  int id = -1;
  if (tid < pairs) {
    id = __ldg(a.ids + tid);
    if (id < 0 || id >= a.experts) id = -1;
    r.wt[tid] = __ldg(a.wt + tid);
  }
  __syncthreads();
  if (id >= 0) atomicOr(&r.bits[id >> 5], 1u << (id & 31));
  __syncthreads();
  if (tid < 32) {
    const int c = __popc(r.bits[lane]);
    int incl = c;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    r.before[lane] = incl - c;
    if (lane == 31) r.nexp = incl;
  }
  __syncthreads();
  int slot = -1;
  if (id >= 0) {
    const int wd = id >> 5;
    slot = r.before[wd] + __popc(r.bits[wd] & ((1u << (id & 31)) - 1u));
    r.slot_exp[slot] = id;
    atomicOr(&r.tokmask[slot], 1u << (tid / topk));
  }
  __syncthreads();
  if (id >= 0) {
    const int tok = tid / topk, n = __popc(r.tokmask[slot] & ((1u << tok) - 1u));
    r.col_pair[slot][n] = (unsigned char)tid;
    r.col_tok[slot][n] = (unsigned char)tok;
  }
  __syncthreads();
}

/* Where a launch's matrices are, computed from the kernel parameters on each use (they sit
** in the constant bank, so this costs a few integer ops and no registers across the loops).
** Tile rt of expert e: its first 16-byte word, and its first scale pair (32-bit). */
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

/* The activation rows of a gate_up tile of slot s: token tile j's lane row is row
** col_tok of x (ld elements apart) for the slot's (8j + g)-th token, or NULL past its count. */
template <int NT>
__device__ __forceinline__ void gate_up_rows(const __nv_bfloat16 *x, int ld, const MoeRoute &r, int s, int lane,
                                            const __nv_bfloat16 *xr[NT]) {
  const int count = __popc(r.tokmask[s]), g = lane >> 2;
#pragma unroll
  for (int j = 0; j < NT; j++)
    xr[j] = 8 * j + g < count ? x + (size_t)r.col_tok[s][8 * j + g] * ld : nullptr;
}

/* The h rows and routing weights of slot s in a down tile: token column n = 8j + g reads the
** h row (ld elements apart) of its (token, slot) pair, or NULL when the token is not routed
** there; wgt[j][bb] weighs the lane's C columns 8j + 2t + bb. */
template <int NT>
__device__ __forceinline__ void down_rows(const __nv_bfloat16 *h, int ld, const MoeRoute &r, int s, int lane,
                                         const __nv_bfloat16 *xr[NT], float wgt[NT][2]) {
  const unsigned mask = r.tokmask[s];
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < NT; j++) {
    const int n = 8 * j + g;
    xr[j] = (mask >> n) & 1u ? h + (size_t)r.col_pair[s][__popc(mask & ((1u << n) - 1u))] * ld : nullptr;
#pragma unroll
    for (int bb = 0; bb < 2; bb++) {
      const int ct = 8 * j + 2 * t + bb;
      wgt[j][bb] = (mask >> ct) & 1u ? r.wt[r.col_pair[s][__popc(mask & ((1u << ct) - 1u))]] : 0.f;
    }
  }
}

/* acc += weights * part, C fragment by C fragment (columns 2t, 2t + 1 of each token tile). */
template <int NT>
__device__ __forceinline__ void add_weighted(float acc[NT][4], const float wgt[NT][2], const float part[NT][4]) {
#pragma unroll
  for (int j = 0; j < NT; j++) {
    acc[j][0] = fmaf(wgt[j][0], part[j][0], acc[j][0]);
    acc[j][1] = fmaf(wgt[j][1], part[j][1], acc[j][1]);
    acc[j][2] = fmaf(wgt[j][0], part[j][2], acc[j][2]);
    acc[j][3] = fmaf(wgt[j][1], part[j][3], acc[j][3]);
  }
}

/* gate_up epilogue, after the fragments of tile (slot s, row tile rt) are in red as warps
** tl*ks .. tl*ks + ks - 1: SiLU(gate) * up into h as bf16. Elements j*4 + bb (row g: gate)
** and j*4 + bb + 2 (row g + 8: up) share a token column. The block's threads share it. */
template <int NT>
__device__ __forceinline__ void store_h(const w4a16_moe &a, const MoeRoute &r, const FragSum<NT> &red, int tl,
                                        int ks, int s, int rt) {
  __nv_bfloat16 *h = static_cast<__nv_bfloat16 *>(a.h);
  const int count = __popc(r.tokmask[s]);
  for (int q = threadIdx.x; q < NT * 64; q += kThreads) {
    const int j = q >> 6, bb = (q >> 5) & 1, ln = q & 31;
    const int eg = j * 4 + bb, col = frag_col(ln, eg);
    if (col >= count) continue;
    const float gate = frag_sum(red, tl, ks, eg, ln);
    const float up = frag_sum(red, tl, ks, eg + 2, ln);
    h[(size_t)r.col_pair[s][col] * a.inter + rt * 8 + (ln >> 2)] = __float2bfloat16(gate / (1.f + __expf(-gate)) * up);
  }
}

/* down epilogue: row tile rt's fragments (warps tl*ks .. + ks - 1 of red) summed into y
** (bf16), tokens < a.tokens; the block's threads share it. */
template <int NT>
__device__ __forceinline__ void store_y(const w4a16_moe &a, const FragSum<NT> &red, int tl, int ks, int rt) {
  __nv_bfloat16 *y = static_cast<__nv_bfloat16 *>(a.y);
  for (int q = threadIdx.x; q < NT * 128; q += kThreads) {
    const int e = q >> 5, ln = q & 31, col = frag_col(ln, e);
    if (col >= a.tokens) continue;
    y[(size_t)col * a.hidden + rt * 16 + frag_row(ln, e)] = __float2bfloat16(frag_sum(red, tl, ks, e, ln));
  }
}

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* A grid-wide barrier, called by one thread per block after a __syncthreads (the block's
** writes before it are then visible to every block after it). The counter's top bit flips
** once all `blocks` have arrived: block 0 adds 2^31 - (blocks - 1), every other block 1, so
** the low bits come back to where they were and the next launch needs no reset (and no
** second round of atomics at the end of this one). The spin traps after 2 s rather than
** hang when a block never arrives. */
__device__ __forceinline__ void grid_sync(unsigned *counter, unsigned blocks) {
  const unsigned add = blockIdx.x == 0 ? 0x80000000u - (blocks - 1) : 1u;
  __threadfence();
  const unsigned old = atomicAdd(counter, add);
  const uint64_t t0 = global_ns();
  while (((old ^ ld_acquire(counter)) & 0x80000000u) == 0) {
    __nanosleep(32);
    if (global_ns() - t0 > 2000000000ull) __trap();
  }
}

/* NULL-free pointers and shapes within the layouts' and kernels' limits (0), else nonzero:
** the launchers answer cudaErrorInvalidValue rather than touch memory out of bounds. */
static inline int w4a16_moe_check(const w4a16_moe *a) {
  const w4_layout l13 = {2 * a->inter, a->hidden, a->group, 1}, l2 = {a->hidden, a->inter, a->group, 0};
  return !a->w13 || !a->w2 || !a->s13 || !a->s2 || !a->ids || !a->wt || !a->x || !a->h || !a->y || !a->sync ||
         w4_layout_check(&l13) || w4_layout_check(&l2) || a->tokens < 1 || a->tokens > W4A16_MAX_M ||
         a->topk < 1 || a->tokens * a->topk > W4A16_MAX_PAIRS || a->experts < 1 || a->experts > W4A16_MAX_EXPERTS;
}

/* A persistent MoE launch: cooperative (pdl 0: the driver guarantees every block resident,
** or fails the launch; the counter wait needs it) or with programmatic dependent launch
** (pdl 1: queued behind the previous kernel, residency then rests on the grid size). */
static inline void moe_launch_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute attr[1], int blocks, int threads,
                                     size_t dyn, int pdl, cudaStream_t s) {
  *cfg = cudaLaunchConfig_t{};
  cfg->gridDim = dim3((unsigned)blocks);
  cfg->blockDim = dim3((unsigned)threads);
  cfg->dynamicSmemBytes = dyn;
  cfg->stream = s;
  cfg->attrs = attr;
  cfg->numAttrs = 1;
  if (pdl) {
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
  } else {
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
  }
}

}  /* namespace w4 */
#endif
