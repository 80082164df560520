/*
** kernel_variant: families of hand-written kernels, each variant a recorded case measured
** under one correctness gate (a float32 reference on fresh random inputs, before any
** timing) and one timing method (CUDA-graph replays over operands rotated past L2).
**
** A family is a table: its variants, each with its parameters and what it supports, and
** one measure() that prepares operands for a batch of cases sharing a shape and group
** size, checks every variant against the reference and times those that pass. The runner
** (kernel_variant.c) expands the spec into cases, asks supports() first (an unsupported
** case is recorded 'skipped' with the reason and never launched), calls measure(), and
** records everything. Adding a family: a table like xp_kv_w4a16 and a line in
** kernel_variant.c's family list.
*/
#ifndef XP_RUNNERS_KERNEL_VARIANT_H
#define XP_RUNNERS_KERNEL_VARIANT_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include "spec.h"

/* One problem: a GEMM y[m,n] = x[m,k] * W[n,k]^T, or a routed-expert MoE layer. */
typedef struct xp_kv_problem {
  const char *shape;                /* the spec's name for the shape */
  int moe;                          /* 0: GEMM; 1: MoE layer */
  int n, k;                         /* GEMM */
  int hidden, inter, experts, topk; /* MoE layer on one GPU: inter is an expert's width */
  int m;                            /* tokens: GEMM rows, or the MoE layer's decode batch */
  int group;                        /* quantization group along K; 0: not quantized */
  int arch;                         /* compute capability x 10; 0 when not known (planning) */
} xp_kv_problem;

/* What a variant is to the comparison queries (queries/kernel_variants.sql). */
#define XP_KV_CANDIDATE "candidate" /* a kernel competing for "best" */
#define XP_KV_BF16 "bf16"           /* cuBLAS on the unquantized (bf16) weights */
#define XP_KV_DEQUANT "dequant"     /* the plain quantized path: dequantize, then cuBLAS */

typedef struct xp_kv_variant {
  const char *name;
  const char *summary;
  int moe;          /* the problems it solves: 0 GEMMs, 1 MoE layers */
  const char *role; /* XP_KV_CANDIDATE, XP_KV_BF16 or XP_KV_DEQUANT */
  int quantized;    /* 0: ignores the group size, measured once per shape and m */
  /* NULL when the variant can run p; else the reason, written into buf. */
  const char *(*supports)(const xp_kv_problem *p, const cJSON *spec, char *buf, size_t n);
  /* Its parameters on p (tile sizes, split factor, launches ...) into out. */
  void (*params)(const xp_kv_problem *p, const cJSON *spec, cJSON *out);
} xp_kv_variant;

/* A case and, after measure(), its outcome. */
typedef struct xp_kv_case {
  xp_kv_problem p;
  const xp_kv_variant *v;
  cJSON *params;     /* everything recorded with the case; measure() adds to it */
  const char *status;/* "ok", "failed" or "skipped" */
  char *note;        /* why skipped or failed (malloc'd), else NULL */
  double *us;        /* time per launch, one per sample (malloc'd), nus of them */
  int nus;
  double bytes;      /* bytes the variant must move once: for GB/s */
  double max_err;    /* max |out - ref| / max |ref| in the correctness gate; < 0: not checked */
  /* Floors timed beside the case, recorded as metrics of that name (us, one per sample):
  ** what the same launch costs doing less (a bare read of the bytes, the launch alone, the
  ** launch with all its loads and no arithmetic, its barrier between them, after them or
  ** left out). */
  struct xp_kv_floor {
    const char *name; /* "read_floor_us", "launch_floor_us", "skeleton_floor_us", "stream_floor_us", "routed_read_floor_us" */
    double *us;       /* malloc'd */
    int n;
  } floors[5];
  int nfloors;
} xp_kv_case;

typedef struct xp_kv_opts {
  int device;
  int warmup, samples; /* graph replays */
  double tolerance;    /* gate: max |out - ref| <= tolerance * max |ref| */
  uint64_t seed;       /* fresh per run unless the spec fixes it */
  int64_t rotate_bytes;/* operands rotated over at least this many bytes (cold caches) */
  int routings;        /* MoE: routing sets rotated through (each a fresh random routing) */
  const cJSON *spec;   /* the spec's root, for family-specific keys */
} xp_kv_opts;

typedef struct xp_kv_family {
  const char *name;
  const char *summary;
  const xp_kv_variant *variants;
  int nvariants;
  const char *act_dtype; /* the activations' dtype every variant runs (a spec's dtype label) */
  /* Cases sharing one shape and group size, all supported: check, then time, filling in
  ** status, note, params, us, bytes and max_err of each. Returns 0, or an exit code when
  ** the measurement as a whole could not go on (interrupted, device lost). */
  int (*measure)(xp_kv_case *cases, int n, const xp_kv_opts *o);
} xp_kv_family;

/* ---- rotation past L2: how many copies of the weights, which one each launch reads ----
** (kernel_variant.c; plain counting, so that a unit test checks it without a GPU) */

/* A GEMM's weight copies: enough to span rotate_bytes, at least 2 (a launch never reads the
** copy its predecessor read), at most 4096. Launch rep reads copy rep % copies. */
int xp_kv_gemm_copies(int64_t rotate_bytes, double copy_bytes);

/* An MoE layer rotates over R routings and C copies of the whole layer's weights (each
** layer_bytes): launch rep of a graph reads copy rep % C under routing rep % R, and a graph
** holds xp_kv_moe_launches(C, R) of them. C is 1 when one copy is at least rotate_bytes and
** R routings alone keep a routing's reads apart; else at least 2 and enough that the copies
** span rotate_bytes and that between two launches of the same (routing, copy) pair the
** others read at least rotate_bytes (min_launch_bytes: the least one launch reads, the
** topk experts of one token). C divides R or R divides C, so a graph is max(R, C) launches
** and each replay continues the rotation where the last one ended. */
int xp_kv_moe_copies(int64_t rotate_bytes, double layer_bytes, double min_launch_bytes, int routings);
/* The most copies, at most `copies` and valid beside R as above, whose copy_bytes each fit in
** avail_bytes; 1 when not even two fit. */
int xp_kv_moe_fit(int copies, int routings, double copy_bytes, double avail_bytes);
/* Launches per graph: the least common multiple of copies and routings. */
int xp_kv_moe_launches(int copies, int routings);

/* A read floor's places (the bare read of `bytes` timed beside an INT4 kernel), so that it
** meets the caches as that kernel does: launch rep reads copy rep % copies (copy_stride
** apart, copy_bytes each) at place (rep / copies) % places within it (stride apart). */
typedef struct xp_kv_reads {
  size_t bytes;       /* per launch, a multiple of 16 */
  size_t stride, copy_stride;
  int copies, places; /* a graph holds copies * places launches */
} xp_kv_reads;
/* 0, or -1 when no bytes are to be read or they exceed a copy. places: as many as fit in a
** copy, at most max_places. */
int xp_kv_reads_plan(xp_kv_reads *r, double bytes, size_t copy_bytes, size_t copy_stride, int copies,
                     int max_places);
size_t xp_kv_reads_offset(const xp_kv_reads *r, int rep);

extern const xp_kv_family xp_kv_w4a16;
/* Bytes of one copy of p's MoE layer weights: INT4 words and bf16 scales of every expert's
** W13 and W2 (bf16 0), or the same weights in bf16 (bf16 1, the per-expert cuBLAS baseline). */
double xp_kv_w4a16_layer_bytes(const xp_kv_problem *p, int bf16);
/* w4a16's measure() (kernel_variant_w4a16_gpu.c; an "environment" error without CUDA). */
int xp_kv_w4a16_measure(xp_kv_case *cases, int n, const xp_kv_opts *o);

const xp_kv_family *xp_kv_family_find(const char *name);
const xp_kv_variant *xp_kv_variant_find(const xp_kv_family *f, const char *name);
#endif
