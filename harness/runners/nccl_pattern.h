/*
** What nccl_burst's check writes into every rank's input and expects in every output: one
** definition for the kernels (kernels/nccl/nccl_check.cu) and the host (its unit test), plain
** C17 and CUDA C++ alike. Every value is a small positive integer or 0, so a kernel computes
** it in float, where it is exact, and stores it in the element type, where it is exact too.
**
** E = xp_nccl_exact_int(dtype): every integer 0..E is exact in the type (8 for fp8 e5m2, 16
** for e4m3, 256 for bf16, 2048 for half, 2^24 for float). Nothing else about the type is used.
**
** The earlier scheme gave every rank (5i + 3r + 1) mod m with m = E / nranks + 1, so that a
** sum over all ranks stayed exact. Past E ranks m fell to 1 and every input was 0 (fp8 e5m2
** from 9 ranks on): nothing was checked any more. Moving and reducing collectives have
** different needs, so they get different patterns:
**
** Moving (broadcast, allgather, alltoall) never adds, so a value only has to be exact and say
** where it came from. A block's key is its source rank (alltoall: source * n + destination,
** so that both a wrong source and a wrong chunk of the right source show); element j of the
** block holds 1 + (digit (j mod D) of the key in base E, + j) mod E, with D the base-E digits
** of the largest key. Any two blocks differ in some digit, and j walks over all D digits within
** D elements, so a block of count >= D elements from the wrong rank or chunk mismatches
** somewhere (4 elements for 4096 ranks in e5m2, 1 for up to E ranks), which is the best 1..E
** can do. The "+ j" keeps neighbouring elements apart. No value is 0.
**
** Reducing (allreduce, reducescatter, ncclSum): a sum over all n ranks cannot stay exact past
** E ranks, so only k ranks contribute to each element, the others give 0. The contributors of
** global element i are ranks (i * k + t) mod n, t = 0..k-1: they rotate, so every rank
** contributes within ceil(n / k) consecutive elements, and a rank that is left out of the sum
** or added twice changes the sum by its value, which is never 0. Slot t > 0 gives 1; slot 0
** gives 1 + a mark (digit of the reducescatter chunk, as above, base B), so the sum is k + mark
** and a rank receiving the wrong chunk of the reduction mismatches once count >= D.
** Bounds: with marks 0..B-1 the sum is at most k + B - 1, and a contribution at most B, so
** a doubled one stays at most k + 2B - 1 <= E: every partial sum in any reduction order, the
** sum, and the sum with one contribution doubled or dropped are exact, so a drop or a double
** is always seen. k and B share that budget: B >= max(2, (E + 1) / 4), k gets the rest, capped
** at n (for float, and for few ranks, every rank contributes to every element, as before).
**
** Few elements per call cannot show every rank's fault: xp_nccl_pattern_min_count says from
** which count they do. Below it the check still runs and finds what it can, and the run says
** that it checked partly (nccl_record.c); it never reports such a check as one that sees all.
*/
#ifndef XP_NCCL_PATTERN_H
#define XP_NCCL_PATTERN_H
#include <stdint.h>
#include "nccl_types.h"

#ifdef __CUDACC__
#define XP_PAT static inline __host__ __device__
#else
#define XP_PAT static inline
#endif

typedef struct xp_nccl_pattern {
  int coll;       /* enum xp_nccl_coll */
  int nranks;
  int root;       /* broadcast's */
  int k;          /* reducing: ranks contributing to each element */
  uint64_t count; /* the call's count: per rank for allgather / reducescatter, per peer for alltoall */
  uint64_t base;  /* base of the marks: moving, E (values 1..E); reducing, B */
  int digits;     /* base-`base` digits of the largest block key (at least 1) */
} xp_nccl_pattern;

/* E: every integer 0..E is exact in the type, 2^(significand bits, implicit one included). */
XP_PAT int64_t xp_nccl_exact_int(int dtype) {
  switch (dtype) {
  case XP_DT_BF16: return 256;
  case XP_DT_FP16: return 2048;
  case XP_DT_FP32: return 16777216;
  case XP_DT_FP8_E4M3: return 16;
  case XP_DT_FP8_E5M2: return 8;
  default: return 0;
  }
}

XP_PAT int xp_nccl_reduces(int coll) {
  return coll == XP_COLL_ALLREDUCE || coll == XP_COLL_REDUCESCATTER;
}

/* How many base-`base` digits it takes to tell `keys` keys apart. */
XP_PAT int xp_nccl_pattern_digits(uint64_t keys, uint64_t base) {
  int d = 1;
  for (uint64_t cap = base; cap < keys; d++) cap = cap > keys / base ? keys : cap * base;
  return d;
}

XP_PAT void xp_nccl_pattern_init(xp_nccl_pattern *p, int dtype, int coll, int nranks, uint64_t count,
                                 int root) {
  int64_t e = xp_nccl_exact_int(dtype), n = nranks > 0 ? nranks : 1;
  uint64_t keys = (uint64_t)n;
  if (e < 8) e = 8; /* no such type; keeps the arithmetic below defined */
  p->coll = coll;
  p->nranks = (int)n;
  p->root = root;
  p->count = count > 0 ? count : 1;
  if (xp_nccl_reduces(coll)) {
    int64_t bmin = (e + 1) / 4 > 2 ? (e + 1) / 4 : 2, kmax = e + 1 - 2 * bmin;
    p->k = (int)(n < kmax ? n : kmax);
    p->base = (uint64_t)((e + 1 - p->k) / 2);
  } else {
    p->k = 0;
    p->base = (uint64_t)e;
    if (coll == XP_COLL_ALLTOALL) keys = (uint64_t)n * (uint64_t)n;
  }
  p->digits = xp_nccl_pattern_digits(keys, p->base);
}

/* The fewest elements per call (the call's count) at which the check sees a fault of every
** rank. Blocks that agree in their first c elements are keys equal mod base^c (j < D walks the
** key's digits), so:
**   allreduce: a rank dropped or counted twice shows only in elements it contributes to, and
**     every rank contributes within ceil(n / k) of them; fewer leave ranks out of the check.
**   reducescatter: every rank contributes somewhere in the n chunks; a rank that receives the
**     wrong chunk shows once the n chunks' marks all differ: D digits of n in base B.
**   allgather: a block from the wrong source, likewise: D digits of n in base E.
**   broadcast: a rank left with another's buffer (its own, in place) shows where that rank's
**     block differs from the root's: base^c > max(root, n - 1 - root), at most D.
**   alltoall: any block misrouted among the n^2 (source, destination) ones: D digits of n^2.
** Each is the least count that works: below it two of the blocks in question are equal (for
** the reductions, some rank contributes to no element). */
XP_PAT uint64_t xp_nccl_pattern_min_count(const xp_nccl_pattern *p) {
  const int far = p->root > p->nranks - 1 - p->root ? p->root : p->nranks - 1 - p->root;
  switch (p->coll) {
  case XP_COLL_ALLREDUCE: return ((uint64_t)p->nranks + (uint64_t)p->k - 1) / (uint64_t)p->k;
  case XP_COLL_BROADCAST: return (uint64_t)xp_nccl_pattern_digits((uint64_t)far + 1, p->base);
  default: return (uint64_t)p->digits;
  }
}

/* The same for a case not yet patterned: the least count does not depend on the count. */
XP_PAT uint64_t xp_nccl_check_min_count(int dtype, int coll, int nranks, int root) {
  xp_nccl_pattern p;
  xp_nccl_pattern_init(&p, dtype, coll, nranks, 1, root);
  return xp_nccl_pattern_min_count(&p);
}

/* The mark of element j of the block with this key: 0..base-1. */
XP_PAT uint64_t xp_nccl_pattern_mark(const xp_nccl_pattern *p, uint64_t key, uint64_t j) {
  for (int q = (int)(j % (uint64_t)p->digits); q > 0; q--) key /= p->base;
  return (key % p->base + j % p->base) % p->base;
}

/* Element i of `rank`'s input (the whole send buffer: n * count elements for reducescatter and
** alltoall, count for the others). */
XP_PAT int64_t xp_nccl_pattern_input(const xp_nccl_pattern *p, uint64_t i, int rank) {
  uint64_t n = (uint64_t)p->nranks, r = (uint64_t)rank, chunk = i / p->count, j = i % p->count, slot;
  switch (p->coll) {
  case XP_COLL_ALLREDUCE:
  case XP_COLL_REDUCESCATTER:
    slot = (r + n - (i % n) * (uint64_t)p->k % n) % n;
    if (slot >= (uint64_t)p->k) return 0;
    return slot == 0 ? 1 + (int64_t)xp_nccl_pattern_mark(p, chunk, j) : 1;
  case XP_COLL_ALLTOALL:
    return 1 + (int64_t)xp_nccl_pattern_mark(p, r * n + chunk, j);
  default: /* broadcast, allgather: i < count */
    return 1 + (int64_t)xp_nccl_pattern_mark(p, r, i);
  }
}

/* Element j of what the collective must leave in `rank`'s output. The reductions' closed form
** is the sum of xp_nccl_pattern_input over all ranks: exactly k of them give 1, one of those
** 1 + mark. */
XP_PAT int64_t xp_nccl_pattern_output(const xp_nccl_pattern *p, uint64_t j, int rank) {
  uint64_t cnt = p->count, r = (uint64_t)rank;
  switch (p->coll) {
  case XP_COLL_ALLREDUCE: return p->k + (int64_t)xp_nccl_pattern_mark(p, 0, j);
  case XP_COLL_REDUCESCATTER: return p->k + (int64_t)xp_nccl_pattern_mark(p, r, j);
  case XP_COLL_BROADCAST: return xp_nccl_pattern_input(p, j, p->root);
  case XP_COLL_ALLGATHER: return xp_nccl_pattern_input(p, j % cnt, (int)(j / cnt));
  case XP_COLL_ALLTOALL: return xp_nccl_pattern_input(p, r * cnt + j % cnt, (int)(j / cnt));
  default: return -1;
  }
}

#endif
