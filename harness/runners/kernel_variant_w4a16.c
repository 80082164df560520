/*
** Family w4a16 of the kernel_variant runner: INT4 weights (symmetric, bf16 scale per group
** of K), bf16 activations and outputs, for decode GEMMs and the routed experts of an MoE
** layer. The kernels are in kernels/w4a16/; this file says what each variant supports and
** which parameters it runs with (no GPU needed); kernel_variant_w4a16_gpu.c measures them.
**
** Correctness gate, every variant, before it is timed: operands are fresh random numbers
** (a seed per run), never zeros; the output is compared with the float32 reference kernel
** and passes when max |out - ref| <= tolerance * max |ref| (default tolerance 1e-2: bf16
** output rounding alone is up to 2^-9 of max |ref|, a wrong fragment or layout gives O(1)).
** A failing variant is recorded failed with its error and is never timed.
**
** Timing: xp_time_graph replays a CUDA graph of back-to-back launches whose weights rotate
** over copies totalling at least rotate_bytes (default 2.5 x L2), so weights come from HBM.
** The MoE layer rotates over `routings` random routings and over copies of the whole layer's
** weights (kernel_variant.h, xp_kv_moe_copies): Kimi-K2.5's 384 experts (1 GB of INT4) span
** the rotation in one copy, and random routings make each launch read experts the previous
** ones did not; a smaller layer (fewer experts, or smaller ones) gets as many copies as the
** rotation needs, launch after launch a different one.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runners/kernel_variant.h"
#include "w4a16/w4a16.h"
#include "xp.h"

/* ---- what each variant supports and runs with ---- */

static int split_k(const cJSON *spec) { return (int)xp_spec_int(spec, "split_k", 4); }

/* The INT4 operands of p are well-formed (the bf16 baselines are made from them too). */
static const char *layout_reason(const xp_kv_problem *p, char *buf, size_t n) {
  const char *why;
  if (!p->moe) {
    w4_layout l = {p->n, p->k, p->group, 0};
    if ((why = w4_layout_check(&l)) == NULL) return NULL;
    snprintf(buf, n, "%s (n %d, k %d, group %d)", why, p->n, p->k, p->group);
    return buf;
  }
  w4_layout l13 = {2 * p->inter, p->hidden, p->group, 1}, l2 = {p->hidden, p->inter, p->group, 0};
  if ((why = w4_layout_check(&l13)) != NULL) {
    snprintf(buf, n, "gate_up (n %d, k %d, group %d): %s", l13.n, l13.k, p->group, why);
    return buf;
  }
  if ((why = w4_layout_check(&l2)) != NULL) {
    snprintf(buf, n, "down (n %d, k %d, group %d): %s", l2.n, l2.k, p->group, why);
    return buf;
  }
  if (p->topk < 1 || p->topk > p->experts) {
    snprintf(buf, n, "top-%d of %d experts is not a routing", p->topk, p->experts);
    return buf;
  }
  if ((int64_t)p->m * p->topk > W4A16_MAX_PAIRS) {
    snprintf(buf, n, "%d tokens x top-%d = %d (token, expert) pairs; at most %d fit one block",
             p->m, p->topk, p->m * p->topk, W4A16_MAX_PAIRS);
    return buf;
  }
  return NULL;
}

static const char *fused_reason(const xp_kv_problem *p, char *buf, size_t n) {
  if (layout_reason(p, buf, n)) return buf;
  if (p->m > W4A16_MAX_M) {
    snprintf(buf, n, "m = %d tokens; the fused kernels hold at most %d (two 8-token MMA tiles) "
             "in registers", p->m, W4A16_MAX_M);
    return buf;
  }
  return NULL;
}

static const char *sup_layout(const xp_kv_problem *p, const cJSON *spec, char *buf, size_t n) {
  return layout_reason(p, buf, n);
}

static const char *sup_fused(const xp_kv_problem *p, const cJSON *spec, char *buf, size_t n) {
  return fused_reason(p, buf, n);
}

static const char *sup_splitk(const xp_kv_problem *p, const cJSON *spec, char *buf, size_t n) {
  if (fused_reason(p, buf, n)) return buf;
  int split = split_k(spec);
  if (split > p->k / 64) {
    snprintf(buf, n, "split_k %d exceeds the %d 64-wide chunks of k = %d", split, p->k / 64, p->k);
    return buf;
  }
  return NULL;
}

static const char *sup_moe(const xp_kv_problem *p, const cJSON *spec, char *buf, size_t n) {
  if (fused_reason(p, buf, n)) return buf;
  if (p->experts > W4A16_MAX_EXPERTS) {
    snprintf(buf, n, "%d experts; the expert bitmap holds %d", p->experts, W4A16_MAX_EXPERTS);
    return buf;
  }
  return NULL;
}

static const char *sup_moe_pdl(const xp_kv_problem *p, const cJSON *spec, char *buf, size_t n) {
  if (sup_moe(p, spec, buf, n)) return buf;
  if (p->arch && p->arch < 90) {
    snprintf(buf, n, "programmatic dependent launch needs sm_90 or newer (device is sm_%d)", p->arch);
    return buf;
  }
  return NULL;
}

static void add_tiling(cJSON *o, int chunks) {
  int ks, tpb;
  w4a16_tiling(chunks, &ks, &tpb);
  cJSON_AddNumberToObject(o, "warps_per_tile", ks);
  cJSON_AddNumberToObject(o, "tiles_per_block", tpb);
  cJSON_AddNumberToObject(o, "block_threads", 256);
}

/* How a warp streams its K chunks (w4a16_device.cuh, tile_mma; fused_gemv: one stage of 4):
** stages whose loads are in flight together, chunks per stage. */
static void add_pipeline(cJSON *o, int stages, int chunks) {
  cJSON_AddNumberToObject(o, "k_stages", stages);
  cJSON_AddNumberToObject(o, "k_chunks_per_stage", chunks);
}

static void add_mma(cJSON *o, const xp_kv_problem *p) {
  cJSON_AddStringToObject(o, "mma", "m16n8k16.bf16.f32");
  cJSON_AddNumberToObject(o, "token_tiles", p->m > 8 ? 2 : 1);
  cJSON_AddStringToObject(o, "scale", p->group % 64 == 0 ? "after_mma_fp32" : "before_mma_bf16");
}

static void par_cublas(const xp_kv_problem *p, const cJSON *spec, cJSON *o) {
  cJSON_AddNumberToObject(o, "launches", 1);
  cJSON_AddStringToObject(o, "weights", "bf16");
}

static void par_dequant(const xp_kv_problem *p, const cJSON *spec, cJSON *o) {
  cJSON_AddNumberToObject(o, "launches", 2);
  cJSON_AddStringToObject(o, "weights", "int4");
}

static void par_gemv(const xp_kv_problem *p, const cJSON *spec, cJSON *o) {
  cJSON_AddNumberToObject(o, "launches", 1);
  cJSON_AddStringToObject(o, "weights", "int4");
  add_tiling(o, p->k / 64);
  add_pipeline(o, 1, 4);
  int mt = 1;
  while (mt < p->m) mt *= 2;
  cJSON_AddNumberToObject(o, "token_accumulators", mt);
}

/* fused_mma and fused_splitk: two token tiles go through tile_mma together, in rounds. */
static void add_gemm_pipeline(cJSON *o, const xp_kv_problem *p) {
  if (p->m > 8) add_pipeline(o, 1, 4);
  else add_pipeline(o, 2, 2);
}

static void par_mma(const xp_kv_problem *p, const cJSON *spec, cJSON *o) {
  cJSON_AddNumberToObject(o, "launches", 1);
  cJSON_AddStringToObject(o, "weights", "int4");
  add_tiling(o, p->k / 64);
  add_gemm_pipeline(o, p);
  add_mma(o, p);
}

static void par_splitk(const xp_kv_problem *p, const cJSON *spec, cJSON *o) {
  int split = split_k(spec);
  cJSON_AddNumberToObject(o, "launches", 1);
  cJSON_AddStringToObject(o, "weights", "int4");
  cJSON_AddNumberToObject(o, "split_k", split);
  cJSON_AddStringToObject(o, "reduction", "last block per tile, slice order");
  add_tiling(o, split > 0 ? p->k / 64 / split : 0);
  add_gemm_pipeline(o, p);
  add_mma(o, p);
}

static void par_moe_common(const xp_kv_problem *p, cJSON *o, int pdl) {
  cJSON_AddNumberToObject(o, "launches", 1);
  cJSON_AddStringToObject(o, "weights", "int4");
  cJSON_AddNumberToObject(o, "pdl", pdl);
  cJSON_AddNumberToObject(o, "cooperative", !pdl);
  cJSON_AddStringToObject(o, "grid", "persistent, every block resident");
  cJSON_AddNumberToObject(o, "block_threads", 256);
  cJSON_AddStringToObject(o, "gate_up_split", "runs of (expert, 16-row tile) per block, K over 8 warps");
  cJSON_AddStringToObject(o, "down_split", "runs of 16-row tiles per block, experts over 8 warps");
  cJSON_AddStringToObject(o, "phase_sync", "one counter wait for every block's h");
  cJSON_AddStringToObject(o, "token_tiles_run", "one per pass; a second pass only where a tile has tokens");
  add_pipeline(o, 2, 2);
  add_mma(o, p);
}

static void par_moe(const xp_kv_problem *p, const cJSON *spec, cJSON *o) { par_moe_common(p, o, 0); }
static void par_moe_pdl(const xp_kv_problem *p, const cJSON *spec, cJSON *o) { par_moe_common(p, o, 1); }

static void par_moe_cublas(const xp_kv_problem *p, const cJSON *spec, cJSON *o) {
  cJSON_AddNumberToObject(o, "launches_per_expert", 2);
  cJSON_AddStringToObject(o, "weights", "bf16");
  cJSON_AddStringToObject(o, "excludes", "gather, SiLU and weighted sum (GEMMs only)");
}

static const xp_kv_variant w4a16_variants[] = {
    {"cublas_bf16", "cuBLASLt on the dequantized bf16 weights (the unquantized baseline)", 0,
     XP_KV_BF16, 0, sup_layout, par_cublas},
    {"dequant_cublas", "dequantize INT4 to bf16, then cuBLASLt (the plain quantized path)", 0,
     XP_KV_DEQUANT, 1, sup_layout, par_dequant},
    {"fused_gemv", "one pass, INT4 converted in registers, FMA on CUDA cores", 0, XP_KV_CANDIDATE, 1,
     sup_fused, par_gemv},
    {"fused_mma", "one pass, INT4 converted in registers into bf16 MMA fragments", 0,
     XP_KV_CANDIDATE, 1, sup_fused, par_mma},
    {"fused_splitk", "fused_mma with K split across blocks and a last-block reduction", 0,
     XP_KV_CANDIDATE, 1, sup_splitk, par_splitk},
    {"grouped_moe", "the batch's experts in one persistent launch: gate_up + SiLU, a counter "
     "wait, down + weighted sum", 1, XP_KV_CANDIDATE, 1, sup_moe, par_moe},
    {"grouped_moe_pdl", "grouped_moe launched with PDL (queued behind the previous kernel) "
     "instead of cooperatively", 1, XP_KV_CANDIDATE, 1, sup_moe_pdl, par_moe_pdl},
    {"cublas_bf16_per_expert", "cuBLASLt bf16, a gate_up and a down launch per active expert", 1,
     XP_KV_BF16, 0, sup_layout, par_moe_cublas},
};

double xp_kv_w4a16_layer_bytes(const xp_kv_problem *p, int bf16) {
  const w4_layout l13 = {2 * p->inter, p->hidden, p->group, 1}, l2 = {p->hidden, p->inter, p->group, 0};
  if (bf16) return (double)p->experts * (double)(w4_words(&l13) + w4_words(&l2)) * 8 * 2;
  return (double)p->experts * ((double)(w4_words(&l13) + w4_words(&l2)) * 4 +
                               (double)(w4_nscales(&l13) + w4_nscales(&l2)) * 2);
}

#ifndef XP_HAVE_CUDA
int xp_kv_w4a16_measure(xp_kv_case *cases, int n, const xp_kv_opts *o) {
  return xp_error(XP_EXIT_ENV, "w4a16 kernels need a GPU, and this xp was built without CUDA");
}
#endif

const xp_kv_family xp_kv_w4a16 = {
    "w4a16", "INT4 weights x bf16 activations: decode GEMMs and grouped MoE experts",
    w4a16_variants, (int)(sizeof w4a16_variants / sizeof w4a16_variants[0]), "bf16", xp_kv_w4a16_measure};
