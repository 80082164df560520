/*
** W4A16 kernels: INT4 weights (symmetric, bf16 scale per group of K, layout in
** w4a16_layout.h), bf16 activations and outputs, fp32 accumulation. C-callable launchers;
** each returns the CUDA error of its launch (cudaSuccess once enqueued) and is capturable
** into a CUDA graph. Shapes must have passed w4_layout_check and the limits below; the
** launchers re-check and answer cudaErrorInvalidValue rather than touch memory out of bounds.
**
** The fused kernels run 256-thread blocks of 8 warps. A warp owns one 16-row tile and a
** share of K; `ks` warps split one tile's K and `8 / ks` tiles share a block (w4a16_tiling).
*/
#ifndef XP_W4A16_H
#define XP_W4A16_H
#include <stddef.h>
#include <stdint.h>
#include "w4a16/w4a16_layout.h"
#ifdef XP_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of tokens (GEMM rows M, or decode batch of the MoE layer) the fused
** kernels hold in registers: two 8-wide MMA token tiles. */
#define W4A16_MAX_M 16
/* MoE limits: top-k entries of a batch fit one block; the expert bitmap fits shared memory. */
#define W4A16_MAX_PAIRS 256
#define W4A16_MAX_EXPERTS 1024

/* Warps per tile (ks, a power of two <= 8) and tiles per block (8 / ks) for `chunks`
** 64-wide K chunks: as many warps on one tile as there are chunks to share, up to 8. */
static inline void w4a16_tiling(int chunks, int *ks, int *tiles_per_block) {
  int w = 1;
  while (w < 8 && 2 * w <= chunks) w *= 2;
  *ks = w;
  *tiles_per_block = 8 / w;
}

/* The kernels, for w4a16_kernel_attrs. */
enum w4a16_kernel {
  W4A16_K_DEQUANT,     /* INT4 -> bf16 row-major weights */
  W4A16_K_GEMV,        /* fused_gemv: CUDA-core FMA */
  W4A16_K_MMA,         /* fused_mma: bf16 tensor-core MMA on weights converted in registers */
  W4A16_K_SPLITK,      /* fused_splitk: fused_mma with K split across blocks */
  W4A16_K_MOE         /* grouped_moe: gate_up, SiLU * up, down and the weighted sum */
};

#ifdef XP_HAVE_CUDA
/* cudaFuncGetAttributes of the kernel instance a launch with this m (tokens) and group
** size would use. */
cudaError_t w4a16_kernel_attrs(enum w4a16_kernel k, int m, int group, struct cudaFuncAttributes *out);

/* out[n][k] (bf16, row-major, logical row order) = q * scale, rounded to bf16. */
cudaError_t w4a16_dequant(const uint32_t *w, const uint16_t *scales, const w4_layout *l,
                          void *out, cudaStream_t s);

typedef struct w4a16_gemm {
  const uint32_t *w;       /* packed weights of an n x k matrix (layout l, gate_up = 0) */
  const uint16_t *scales;
  const void *x;           /* bf16 [m][k] */
  void *y;                 /* bf16 [m][n] */
  int m, n, k, group;
} w4a16_gemm;

/* y = x * W^T. fused_gemv: m <= W4A16_MAX_M, FMA on CUDA cores. */
cudaError_t w4a16_fused_gemv(const w4a16_gemm *a, cudaStream_t s);
/* fused_mma: m <= W4A16_MAX_M, bf16 MMA with fp32 accumulation. */
cudaError_t w4a16_fused_mma(const w4a16_gemm *a, cudaStream_t s);
/* fused_splitk: K cut into `split` slices (1 <= split <= k / 64) computed by different
** blocks; each writes fp32 partials, and the last block of a tile to finish sums them in
** slice order (deterministic) and writes y. Workspace from w4a16_splitk_workspace; the
** counters must be zero before the first launch (each launch leaves them zero). */
void w4a16_splitk_workspace(int m, int n, int k, int split, size_t *partial_bytes,
                            size_t *counter_bytes);
cudaError_t w4a16_fused_splitk(const w4a16_gemm *a, int split, float *partial, unsigned *counters,
                               cudaStream_t s);

/* A routed-expert MoE layer for one decode batch: for each token t and each of its topk
** experts e (ids[t][i], weight wt[t][i]):
**   y[t] = sum_i wt[t][i] * W2_e * (SiLU(W13_e[gate] x[t]) * W13_e[up] x[t])
** W13 of every expert: layout {2*inter, hidden, group, gate_up = 1}; W2: {hidden, inter,
** group, 0}; expert e's weights start at e * w4_words(layout) (scales e * w4_nscales).
** A token's expert ids must be distinct; ids outside [0, experts) are ignored. */
typedef struct w4a16_moe {
  const uint32_t *w13, *w2;
  const uint16_t *s13, *s2;
  const int *ids;      /* [tokens][topk] */
  const float *wt;     /* [tokens][topk] */
  const void *x;       /* bf16 [tokens][hidden] */
  void *h;             /* bf16 [tokens * topk][inter]: SiLU(gate) * up per (token, expert) */
  void *y;             /* bf16 [tokens][hidden] */
  unsigned *sync;      /* W4A16_MOE_SYNC_WORDS words of the grid-wide barrier: zero before the
                          first launch; a launch flips the top bit and leaves the rest zero.
                          One set per stream in flight */
  int tokens, topk, experts, hidden, inter, group;
} w4a16_moe;
#define W4A16_MOE_SYNC_WORDS 1
/* One persistent launch, every block resident (grouped_moe.cu says how): gate_up for the batch's
** distinct experts (each expert's weights read once for all its tokens), SiLU * up into h,
** a wait on a counter until every block's h is written, then down, each token's experts
** summed in registers. pdl 0: a cooperative launch (all blocks resident, or the launch
** fails); pdl 1: launched with programmatic dependent launch instead, so it is scheduled
** behind the previous kernel and waits for it in-kernel before reading anything. */
cudaError_t w4a16_grouped_moe(const w4a16_moe *a, int pdl, cudaStream_t s);
/* The grid of a grouped_moe launch with this many tokens and group size on the current
** device: resident blocks per SM x SMs. */
cudaError_t w4a16_moe_grid(int tokens, int group, int *blocks);
/* The launch floor of w4a16_grouped_moe: the same grid and launch (pdl as there) doing only
** the routing and the grid-wide barrier, no weights read. Same contract. */
cudaError_t w4a16_moe_floor(const w4a16_moe *a, int pdl, cudaStream_t s);
/* The skeleton of w4a16_grouped_moe: the same grid, launch, routing, weight and scale loads
** in the same order, with no arithmetic and nothing written, and the grid-wide barrier where
** sync puts it: between gate_up's and down's loads as in the kernel (the most a kernel of
** that shape could reach), after every load (the most one could reach that had all of
** down's weights in flight before its barrier), or nowhere (the most any kernel reading
** those bytes in that order after routing could). Same contract. */
enum { W4A16_SKEL_BETWEEN, W4A16_SKEL_LAST, W4A16_SKEL_NONE };
cudaError_t w4a16_moe_skeleton(const w4a16_moe *a, int sync, int pdl, cudaStream_t s);

/* ---- the float32 reference and test data ---- */

/* y[v][n] = sum_k W_e[n][k] * x[v][k] in fp32 for v < nvec, with e = expert[v] (expert may
** be NULL: e = 0; e outside [0, experts) gives zeros) and W_e at e * expert_words /
** e * expert_scales. Decodes every weight with w4_locate, one thread per output. */
cudaError_t w4a16_ref_gemm(const uint32_t *w, const uint16_t *scales, const w4_layout *l,
                           size_t expert_words, size_t expert_scales, const int *expert,
                           int experts, const float *x, int nvec, float *y, cudaStream_t s);
/* h[v][i] = SiLU(gu[v][i]) * gu[v][inter + i] for gu [nvec][2*inter] (fp32). */
cudaError_t w4a16_ref_silu_mul(const float *gu, int nvec, int inter, float *h, cudaStream_t s);
/* y[t][n] = sum_i wt[t][i] * d[t*topk + i][n] over entries with a valid expert id. */
cudaError_t w4a16_ref_combine(const float *d, const int *ids, const float *wt, int tokens,
                              int topk, int experts, int n, float *y, cudaStream_t s);
cudaError_t w4a16_bf16_to_f32(const void *in, float *out, size_t count, cudaStream_t s);

/* Random data from a counter-based hash of (seed, index). Words: any 32 bits are valid
** packed INT4. Scales and bf16 values: magnitude uniform in [lo, hi] (lo > 0: never zero),
** scales positive, values of random sign. */
cudaError_t w4a16_fill_words(uint32_t *w, size_t count, uint64_t seed, cudaStream_t s);
cudaError_t w4a16_fill_scales(uint16_t *p, size_t count, float lo, float hi, uint64_t seed,
                              cudaStream_t s);
cudaError_t w4a16_fill_bf16(void *p, size_t count, float lo, float hi, uint64_t seed,
                            cudaStream_t s);
#endif /* XP_HAVE_CUDA */

#ifdef __cplusplus
}
#endif
#endif
