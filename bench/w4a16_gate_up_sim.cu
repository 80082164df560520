/*
** w4a16_gate_up_sim: grouped_moe's gate_up loop alone, run in ways the kernel does not (yet),
** side by side with the loop as it is, to measure what a redesign would buy before building it
** into kernels/w4a16/grouped_moe.cu. Not a runner: nothing is recorded; bench/w4a16_gate_up_sim.sh
** runs it on a GPU host and prints the table. What a loop wins here is an upper bound: the
** integer path's 25% at batch 8's size did not survive into a whole kernel, where quantizing x
** and h and the barriers that takes cost more (grouped_moe.cu's header has the figures).
**
** The work is gate_up's at a chosen number of 16-row tiles (1888 = batch 8's size at Kimi-K2.5
** TP=8, G = 128; 256 = batch 1's), K = 7168, one token a slot (as most slots at batches 1 to 8),
** 32 tiles a slot, the tiles cut into one contiguous run a block. Every way computes
** y[tile][row] = sum_k W[row][k] x[token][k] and is compared with a double-precision host
** reference (every row of every tile) before it is timed; one that is off by more than 1e-3 of
** the largest output fails the program (exit 1) and is not timed.
**
** The ways:
**   bare        the weight bytes read by a plain streaming kernel: the floor;
**   bf16 regs   the loop on main (w4::tile_mma): 8 warps split a tile's K, two register stages,
**               2 blocks a SM as grouped_moe is compiled; "3/SM" the same compiled for 3;
**   int regs    the same schedule, the nibbles kept as u8 in integer MMAs (m16n8k32, u8 x s8)
**               against x split into two s8 planes, int32 sums scaled once a group (80
**               registers: 3 blocks a SM); "held 2/SM" the same with shared memory reserved so
**               that only 2 fit;
**   ring copy   a copy-engine ring alone: one producer lane a block streams pieces of 16 chunks
**               (8 KB) and their scales into S shared-memory slots with cp.async.bulk, one
**               mbarrier pair a slot; the 8 consumer warps only read the slots;
**   ring int    that ring feeding integer consumers (each warp two chunks, one group, of every
**               piece), x read from global memory (L1) a chunk at a time;
**   ring int sx the same with each tile's x planes and scales copied by the producer into one of
**               two shared-memory buffers a tile ahead.
**
** Integer activations: per token and group of 128 k, sx = max|x| / 32639, X = rint(x / sx)
** (|X| <= 32639, so both halves fit s8), lo = the signed low byte of X, hi = (X - lo) / 256; the
** planes hold the bytes of each 4 k in the order 0, 2, 1, 3, the order of the packed nibbles
** (kernels/w4a16/w4a16_layout.h: a word's low nibbles are row g's 4 k, its high nibbles row
** g + 8's, exactly the A fragment's bytes once masked). With corr = 8 * sum(X) a group,
**   sum_k q x = sx * (256 * (nib . hi) + (nib . lo) - corr)       (q = nib - 8)
** which is exact in int32 and off from the bf16 product by at most 2^-16 of the group's max|x|.
**
** Usage: w4a16_gate_up_sim [tiles ...]   (default 1888 256)
*/
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include "w4a16/w4a16_device.cuh"

using namespace w4;

namespace {

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "w4a16_gate_up_sim: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(2);                                                                                  \
    }                                                                                           \
  } while (0)

constexpr int K = 7168, C = K / 64, G = 128, GSHIFT = 7, NG = K / G, M = 8;
constexpr int TILES_PER_SLOT = 32;
constexpr int PIECE = 16, PIECES = C / PIECE; /* chunks a ring piece, pieces a tile */
constexpr int CPW = PIECE / kWarps;           /* a consumer warp's chunks of a piece: one group */
static_assert(C % PIECE == 0 && CPW * 64 == G, "a consumer warp takes exactly one group of a piece");

struct XScale {
  float sx; /* the group's activation scale */
  int corr; /* 8 * sum of its integer activations: the nibbles' +8 */
};

struct Args {
  const uint4 *W;
  const uint32_t *S;
  const __nv_bfloat16 *x;
  const unsigned char *xq; /* [M][2][K]: hi plane, lo plane */
  const XScale *xs;        /* [M][NG] */
  float *out;              /* [tiles][16] */
  int tiles;
  unsigned *sink;
};

__device__ __forceinline__ int token_of(int tile) { return (tile / TILES_PER_SLOT) % M; }
__device__ __forceinline__ void run_of(const Args &a, int *t0, int *t1) {
  *t0 = (int)((long long)blockIdx.x * a.tiles / gridDim.x);
  *t1 = (int)((long long)(blockIdx.x + 1) * a.tiles / gridDim.x);
}

/* Rows of a tile from the block's fragment sums (column 0 holds the slot's one token). */
__device__ __forceinline__ void write_tile(const Args &a, const FragSum<1> &red, int tile) {
  for (int i = threadIdx.x; i < 128; i += kThreads) {
    const int e = i >> 5, ln = i & 31;
    if (frag_col(ln, e) == 0) a.out[(size_t)tile * 16 + frag_row(ln, e)] = frag_sum(red, 0, kWarps, e, ln);
  }
}

/* ---- integer MMA path ---------------------------------------------------------------------- */

__device__ __forceinline__ void imma(int d[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                     uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* One 64-k chunk: w the lane's packed word, xh / xl its 16 bytes of each activation plane. */
__device__ __forceinline__ void int_chunk(const uint4 &w, const uint4 &xh, const uint4 &xl, int dh[4], int dl[4]) {
  const uint32_t m = 0x0F0F0F0Fu;
  const uint32_t l0 = w.x & m, h0 = (w.x >> 4) & m, l1 = w.y & m, h1 = (w.y >> 4) & m;
  const uint32_t l2 = w.z & m, h2 = (w.z >> 4) & m, l3 = w.w & m, h3 = (w.w >> 4) & m;
  imma(dh, l0, h0, l1, h1, xh.x, xh.y);
  imma(dl, l0, h0, l1, h1, xl.x, xl.y);
  imma(dh, l2, h2, l3, h3, xh.z, xh.w);
  imma(dl, l2, h2, l3, h3, xl.z, xl.w);
}

/* End of a group: acc += scale(row) * sx(col) * (256 dh + dl - corr(col)), dh = dl = 0. The
** lane's columns are 2t and 2t + 1; only column 0 has a token here (c1 is zero). */
__device__ __forceinline__ void int_group_end(int dh[4], int dl[4], uint32_t s, const XScale &c0, float acc[4]) {
  const float sg = bf_lo(s), sg8 = bf_hi(s);
  acc[0] += sg * c0.sx * (float)(256 * dh[0] + dl[0] - c0.corr);
  acc[2] += sg8 * c0.sx * (float)(256 * dh[2] + dl[2] - c0.corr);
#pragma unroll
  for (int e = 0; e < 4; e++) dh[e] = dl[e] = 0;
}

/* The lane's 16 bytes of each plane of chunk cc (zeros for lanes with no token). */
__device__ __forceinline__ void int_x(const unsigned char *planes, int cc, int t, bool has, uint4 &xh, uint4 &xl) {
  xh = xl = make_uint4(0, 0, 0, 0);
  if (has) {
    xh = __ldg(reinterpret_cast<const uint4 *>(planes + cc * 64 + 16 * t));
    xl = __ldg(reinterpret_cast<const uint4 *>(planes + K + cc * 64 + 16 * t));
  }
}

/* ---- the register loops ---------------------------------------------------------------------- */

__global__ void bare_kernel(Args a) {
  int t0, t1;
  run_of(a, &t0, &t1);
  const uint4 *p = a.W + (size_t)t0 * C * 32 + threadIdx.x, *end = a.W + (size_t)t1 * C * 32;
  uint32_t v = 0;
  for (; p < end; p += 4 * blockDim.x) {
    uint4 r[4];
#pragma unroll
    for (int u = 0; u < 4; u++) r[u] = p + u * blockDim.x < end ? ld_stream(p + u * blockDim.x) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < 4; u++) v ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  }
  if (v == 0x9e3779b9u) atomicAdd(a.sink, 1u); /* keeps the loads; practically never true */
}

/* INT: the integer path on the same two-stage schedule, else main's w4::tile_mma; compiled for
** MINB resident blocks a SM (main's kernel: 2, at 128 registers). */
template <bool INT, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) regs_kernel(Args a) {
  __shared__ FragSum<1> red[2];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int c0 = warp * C / kWarps, c1 = (warp + 1) * C / kWarps;
  int t0, t1, par = 0;
  run_of(a, &t0, &t1);
  for (int i = t0; i < t1; i++) {
    const int tok = token_of(i);
    const uint4 *wt = a.W + (size_t)i * C * 32 + lane;
    const uint32_t *st = a.S + (size_t)i * NG * 8 + g;
    float acc[1][4] = {{0.f, 0.f, 0.f, 0.f}};
    if (!INT) {
      const __nv_bfloat16 *xr[1] = {g == 0 ? a.x + (size_t)tok * K : nullptr};
      tile_mma<1, true>(wt, st, GSHIFT, xr, c0, c1, acc);
    } else {
      const unsigned char *planes = a.xq + (size_t)tok * 2 * K;
      const XScale *xs = a.xs + (size_t)tok * NG, none = {0.f, 0};
      int dh[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
      uint4 w[2][2], xh[2][2], xl[2][2];
      uint32_t s[2];
      auto issue = [&](int c, int b) {
#pragma unroll
        for (int u = 0; u < 2; u++) {
          w[b][u] = ld_stream(wt + (size_t)(c + u) * 32);
          int_x(planes, c + u, t, g == 0, xh[b][u], xl[b][u]);
        }
        s[b] = __ldg(st + (size_t)((c * 64) >> GSHIFT) * 8);
      };
      auto run = [&](int c, int b) {
        int_chunk(w[b][0], xh[b][0], xl[b][0], dh, dl);
        int_chunk(w[b][1], xh[b][1], xl[b][1], dh, dl);
        int_group_end(dh, dl, s[b], t == 0 ? xs[(c * 64) >> GSHIFT] : none, acc[0]);
      };
      two_stages<2>(c0, c1, issue, run);
    }
    frag_store(red[par], warp, lane, acc);
    __syncthreads();
    write_tile(a, red[par], i);
    par ^= 1;
  }
}

/* ---- the copy-engine ring ------------------------------------------------------------------- */

__device__ __forceinline__ uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t *b, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(b)), "r"(count));
}
__device__ __forceinline__ void mbar_expect(uint64_t *b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}\n" ::"r"(
          smem(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_copy(void *dst, const void *src, uint32_t bytes, uint64_t *b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(b))
               : "memory");
}
__device__ __forceinline__ uint4 lds128(const void *p) {
  uint4 r;
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(smem(p)));
  return r;
}

enum RingWork { kCopyOnly, kIntGlobalX, kIntSharedX };

template <int SLOTS, bool SX>
struct RingShared {
  uint4 w[SLOTS][PIECE * 32];
  uint32_t s[SLOTS][PIECE / CPW * 8];
  uint64_t full[SLOTS], empty[SLOTS];
  unsigned char xq[SX ? 2 : 1][SX ? 2 * K : 16];
  XScale xs[SX ? 2 : 1][SX ? NG : 1];
  uint64_t xfull[2], xempty[2];
  FragSum<1> red[2];
};

/* The producer lane: the block's pieces in order, each into slot p % SLOTS once its consumers
** released it; with SX, tile i's activations into buffer i & 1 a tile ahead (issued at piece
** SLOTS of the tile before, when the consumers are past that buffer's previous tile). */
template <int SLOTS, bool SX>
__device__ void ring_produce(const Args &a, RingShared<SLOTS, SX> &sh, int t0, int t1) {
  auto activations = [&](int i) {
    const int b = i & 1, tok = token_of(t0 + i);
    if (i >= 2) mbar_wait(&sh.xempty[b], ((i >> 1) - 1) & 1);
    mbar_expect(&sh.xfull[b], 2 * K + NG * sizeof(XScale));
    bulk_copy(sh.xq[b], a.xq + (size_t)tok * 2 * K, 2 * K, &sh.xfull[b]);
    bulk_copy(sh.xs[b], a.xs + (size_t)tok * NG, NG * sizeof(XScale), &sh.xfull[b]);
  };
  const int P = (t1 - t0) * PIECES, ahead = SLOTS < PIECES - 1 ? SLOTS : PIECES - 1;
  if (SX && P > 0) activations(0);
  for (int p = 0; p < P; p++) {
    const int slot = p % SLOTS, i = p / PIECES, tile = t0 + i, pc = p % PIECES;
    if (SX && pc == ahead && tile + 1 < t1) activations(i + 1);
    if (p >= SLOTS) mbar_wait(&sh.empty[slot], ((p / SLOTS) - 1) & 1);
    mbar_expect(&sh.full[slot], sizeof sh.w[0] + sizeof sh.s[0]);
    bulk_copy(sh.w[slot], a.W + ((size_t)tile * C + pc * PIECE) * 32, sizeof sh.w[0], &sh.full[slot]);
    bulk_copy(sh.s[slot], a.S + ((size_t)tile * NG + pc * PIECE / CPW) * 8, sizeof sh.s[0], &sh.full[slot]);
  }
}

template <int SLOTS, int WORK>
__global__ void __launch_bounds__(kThreads + 32, 3) ring_kernel(Args a) {
  constexpr bool SX = WORK == kIntSharedX;
  extern __shared__ __align__(128) unsigned char raw[];
  RingShared<SLOTS, SX> &sh = *reinterpret_cast<RingShared<SLOTS, SX> *>(raw);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  int t0, t1, par = 0;
  run_of(a, &t0, &t1);
  if (threadIdx.x == 0) {
    for (int i = 0; i < SLOTS; i++) mbar_init(&sh.full[i], 1), mbar_init(&sh.empty[i], kWarps);
    for (int i = 0; i < 2; i++) mbar_init(&sh.xfull[i], 1), mbar_init(&sh.xempty[i], kWarps);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == kWarps) { /* the producer warp: one lane issues, the others leave */
    if (lane == 0) ring_produce<SLOTS, SX>(a, sh, t0, t1);
    return;
  }
  const XScale none = {0.f, 0};
  float acc[1][4] = {{0.f, 0.f, 0.f, 0.f}};
  int dh[4] = {0, 0, 0, 0}, dl[4] = {0, 0, 0, 0};
  uint32_t seen = 0;
  const int P = (t1 - t0) * PIECES;
  for (int p = 0; p < P; p++) {
    const int slot = p % SLOTS, i = p / PIECES, tile = t0 + i, pc = p % PIECES, xb = i & 1;
    const int cc = pc * PIECE + CPW * warp, tok = token_of(tile);
    uint4 xh[CPW], xl[CPW];
    XScale xs = none;
    if (WORK == kIntGlobalX) {
#pragma unroll
      for (int u = 0; u < CPW; u++) int_x(a.xq + (size_t)tok * 2 * K, cc + u, t, g == 0, xh[u], xl[u]);
      if (t == 0) xs = a.xs[(size_t)tok * NG + ((cc * 64) >> GSHIFT)];
    } else if (SX) {
      if (pc == 0) mbar_wait(&sh.xfull[xb], (i >> 1) & 1);
#pragma unroll
      for (int u = 0; u < CPW; u++) {
        xh[u] = g == 0 ? lds128(&sh.xq[xb][(cc + u) * 64 + 16 * t]) : make_uint4(0, 0, 0, 0);
        xl[u] = g == 0 ? lds128(&sh.xq[xb][K + (cc + u) * 64 + 16 * t]) : make_uint4(0, 0, 0, 0);
      }
      if (t == 0) xs = sh.xs[xb][(cc * 64) >> GSHIFT];
    }
    mbar_wait(&sh.full[slot], (p / SLOTS) & 1);
    uint4 w[CPW];
#pragma unroll
    for (int u = 0; u < CPW; u++) w[u] = lds128(&sh.w[slot][(CPW * warp + u) * 32 + lane]);
    const uint32_t s = sh.s[slot][warp * 8 + g];
    __syncwarp();
    if (lane == 0) mbar_arrive(&sh.empty[slot]);
    if (WORK == kCopyOnly) {
#pragma unroll
      for (int u = 0; u < CPW; u++) seen ^= w[u].x ^ w[u].w;
      seen ^= s;
    } else {
#pragma unroll
      for (int u = 0; u < CPW; u++) int_chunk(w[u], xh[u], xl[u], dh, dl);
      int_group_end(dh, dl, s, xs, acc[0]);
    }
    if (pc == PIECES - 1) { /* the tile's last piece: sum the warps' fragments */
      __syncwarp();
      if (SX && lane == 0) mbar_arrive(&sh.xempty[xb]);
      frag_store(sh.red[par], warp, lane, acc);
      asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory"); /* the consumers only */
      write_tile(a, sh.red[par], tile);
      par ^= 1;
      acc[0][0] = acc[0][1] = acc[0][2] = acc[0][3] = 0.f;
    }
  }
  if (seen == 0x9e3779b9u) atomicAdd(a.sink, 1u);
}

/* ---- host --------------------------------------------------------------------------------- */

struct Host {
  std::vector<uint32_t> words, scales;
  std::vector<uint16_t> x;
  std::vector<unsigned char> xq;
  std::vector<XScale> xs;
  std::vector<double> ref;
};

uint32_t next_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 32);
}

/* Random packed weights, scales and activations, the integer planes, and the reference. */
void make_inputs(int tiles, Host *h) {
  const w4_layout l = {tiles * 16, K, G, 0};
  uint64_t seed = 42;
  h->words.resize(w4_words(&l));
  h->scales.resize(w4_nscales(&l) / 2);
  for (auto &v : h->words) v = next_rand(&seed);
  for (auto &v : h->scales) {
    const float lo = 0.01f + 0.02f * (next_rand(&seed) >> 8) / 16777216.f;
    const float hi = 0.01f + 0.02f * (next_rand(&seed) >> 8) / 16777216.f;
    v = w4_f32_to_bf16(lo) | ((uint32_t)w4_f32_to_bf16(hi) << 16);
  }
  h->x.resize((size_t)M * K);
  for (auto &v : h->x) v = w4_f32_to_bf16(4.f * ((next_rand(&seed) >> 8) / 16777216.f - 0.5f));
  h->xq.assign((size_t)M * 2 * K, 0);
  h->xs.resize((size_t)M * NG);
  static const int order[4] = {0, 2, 1, 3};
  for (int m = 0; m < M; m++)
    for (int gi = 0; gi < NG; gi++) {
      const uint16_t *xg = &h->x[(size_t)m * K + gi * G];
      float amax = 0.f;
      for (int k = 0; k < G; k++) amax = fmaxf(amax, fabsf(w4_bf16_to_f32(xg[k])));
      const float sx = amax > 0.f ? amax / 32639.f : 1.f;
      long sum = 0;
      for (int k = 0; k < G; k++) {
        const int X = (int)rintf(w4_bf16_to_f32(xg[(k & ~3) + order[k & 3]]) / sx);
        const int lo = (signed char)(X & 255), hi = (X - lo) / 256;
        h->xq[(size_t)m * 2 * K + gi * G + k] = (unsigned char)hi;
        h->xq[(size_t)m * 2 * K + K + gi * G + k] = (unsigned char)lo;
        sum += X;
      }
      h->xs[(size_t)m * NG + gi] = XScale{sx, (int)(8 * sum)};
    }
  const uint16_t *sc = reinterpret_cast<const uint16_t *>(h->scales.data());
  h->ref.assign((size_t)tiles * 16, 0.0);
  for (int n = 0; n < tiles * 16; n++) {
    const uint16_t *xr = &h->x[(size_t)((n / 16 / TILES_PER_SLOT) % M) * K];
    double v = 0;
    for (int k = 0; k < K; k++)
      v += (double)w4_dequant(&l, h->words.data(), sc, n, k) * (double)w4_bf16_to_f32(xr[k]);
    h->ref[n] = v;
  }
}

/* Dynamic shared memory a block reserves (and leaves unused) so that at most two fit a SM. */
constexpr size_t kHold2 = 90 * 1024;

struct Way {
  const char *name;
  const void *fn;
  int threads;
  size_t smem;
  bool checked; /* computes y (checked against the reference); else a floor */
};

int run_size(int tiles, int sms) {
  Host h;
  make_inputs(tiles, &h);
  void *dW, *dS, *dx, *dxq, *dxs, *dout, *dsink;
  CK(cudaMalloc(&dW, h.words.size() * 4));
  CK(cudaMalloc(&dS, h.scales.size() * 4));
  CK(cudaMalloc(&dx, h.x.size() * 2));
  CK(cudaMalloc(&dxq, h.xq.size()));
  CK(cudaMalloc(&dxs, h.xs.size() * sizeof(XScale)));
  CK(cudaMalloc(&dout, (size_t)tiles * 16 * 4));
  CK(cudaMalloc(&dsink, 4));
  CK(cudaMemcpy(dW, h.words.data(), h.words.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dS, h.scales.data(), h.scales.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dx, h.x.data(), h.x.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dxq, h.xq.data(), h.xq.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dxs, h.xs.data(), h.xs.size() * sizeof(XScale), cudaMemcpyHostToDevice));
  Args a = {(const uint4 *)dW, (const uint32_t *)dS, (const __nv_bfloat16 *)dx, (const unsigned char *)dxq,
            (const XScale *)dxs, (float *)dout, tiles, (unsigned *)dsink};
  const Way ways[] = {
      {"bare", (const void *)bare_kernel, 512, 0, false},
      {"bf16 regs (main)", (const void *)regs_kernel<false, 2>, kThreads, 0, true},
      {"bf16 regs 3/SM", (const void *)regs_kernel<false, 3>, kThreads, 0, true},
      {"int regs", (const void *)regs_kernel<true, 2>, kThreads, 0, true},
      {"int regs held 2/SM", (const void *)regs_kernel<true, 2>, kThreads, kHold2, true},
      {"ring copy", (const void *)ring_kernel<3, kCopyOnly>, kThreads + 32, sizeof(RingShared<3, false>), false},
      {"ring int", (const void *)ring_kernel<3, kIntGlobalX>, kThreads + 32, sizeof(RingShared<3, false>), true},
      {"ring int sx", (const void *)ring_kernel<3, kIntSharedX>, kThreads + 32, sizeof(RingShared<3, true>), true},
  };
  const double bytes = (double)h.words.size() * 4 + (double)h.scales.size() * 4;
  std::vector<float> got((size_t)tiles * 16);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int failed = 0;
  for (const Way &w : ways) {
    CK(cudaFuncSetAttribute(w.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)w.smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, w.fn, w.threads, w.smem));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, w.fn));
    void *params[] = {&a};
    auto launch = [&] { CK(cudaLaunchKernel(w.fn, dim3(sms * per_sm), dim3(w.threads), params, w.smem, 0)); };
    CK(cudaMemset(dout, 0, got.size() * 4));
    launch();
    CK(cudaDeviceSynchronize());
    double err = 0;
    if (w.checked) {
      CK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
      double big = 0;
      for (double r : h.ref) big = fmax(big, fabs(r));
      for (size_t i = 0; i < got.size(); i++) err = fmax(err, fabs(got[i] - h.ref[i]) / big);
      if (!(err <= 1e-3)) {
        printf("%6d  %-18s FAILED: error %.3g of the largest output; not timed\n", tiles, w.name, err);
        failed = 1;
        continue;
      }
    }
    std::vector<float> us;
    for (int r = 0; r < 25; r++) {
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      us.push_back(ms * 1e3f);
    }
    std::sort(us.begin(), us.end());
    const float med = us[us.size() / 2];
    printf("%6d  %-18s %8.2f %8.0f %6d %5d %9.1e\n", tiles, w.name, med, bytes / (med * 1e3), per_sm, fa.numRegs, err);
  }
  for (void *p : {dW, dS, dx, dxq, dxs, dout, dsink}) CK(cudaFree(p));
  return failed;
}

} /* namespace */

int main(int argc, char **argv) {
  int n = 0, sms = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("w4a16_gate_up_sim: skipped: no GPU\n");
    return 0;
  }
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<int> sizes;
  for (int i = 1; i < argc; i++) sizes.push_back(atoi(argv[i]));
  if (sizes.empty()) sizes = {1888, 256};
  printf("%6s  %-18s %8s %8s %6s %5s %9s\n", "tiles", "way", "us", "GB/s", "blk/SM", "regs", "error");
  int failed = 0;
  for (int tiles : sizes) {
    if (tiles <= 0) {
      fprintf(stderr, "w4a16_gate_up_sim: a tile count must be positive\n");
      return 2;
    }
    failed |= run_size(tiles, sms);
  }
  return failed;
}
