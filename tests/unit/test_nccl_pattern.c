/* nccl_burst's verification pattern (runners/nccl_pattern.h), on the host: for 1 to 4097 ranks,
** every element type and every collective, the inputs are not all zero, every input and
** expected value survives float -> type -> float (an emulation of each type's rounding, not
** the header's own table), every partial sum of a reduction is exact, the expected values are
** what the collective makes of the inputs, and simulated wrong outputs are caught: a block
** from the wrong rank or chunk, a rank's contribution dropped or doubled. The same checks,
** run on the scheme this header replaced, must fail: that proves they can. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "runners/nccl_pattern.h"

/* ---- host emulation of the element types ---- */

/* Significand bits after the point, smallest normal exponent, largest finite value, and
** whether overflow saturates (cuda_fp8's conversions use __NV_SATFINITE) or gives infinity. */
typedef struct fmt { int frac, emin; double max; int sat; } fmt;
static const fmt fmts[XP_DT_N] = {
  [XP_DT_BF16] = {7, -126, 0x1.fep127, 0},
  [XP_DT_FP16] = {10, -14, 65504, 0},
  [XP_DT_FP32] = {23, -126, FLT_MAX, 0},
  [XP_DT_FP8_E4M3] = {3, -6, 448, 1},
  [XP_DT_FP8_E5M2] = {2, -14, 57344, 1},
};

/* What the kernels do to a value: to float, to the type (round to nearest even, subnormals
** included), back to float. */
static double to_type(int dtype, double x) {
  const fmt *f = &fmts[dtype];
  float v = (float)x;
  int e;
  if (v == 0 || isnan(v) || isinf(v)) return v;
  frexp(fabs(v), &e);
  e = e - 1 < f->emin ? f->emin : e - 1; /* exponent of the leading bit, or the subnormals' */
  double q = ldexp(1, e - f->frac), r = nearbyint(fabs(v) / q) * q;
  if (r > f->max) r = f->sat ? f->max : INFINITY;
  return copysign(r, v);
}

static int exact(int dtype, int64_t v) { return to_type(dtype, (double)v) == (double)v; }

/* Every integer 0..E round-trips, E + 1 does not: found by the emulation alone. */
static int64_t emul_exact_int(int dtype) {
  int64_t x = 1;
  while (exact(dtype, x)) x++;
  return x - 1;
}

/* ---- a scheme under test ---- */

typedef struct scheme {
  int64_t (*in)(const void *self, uint64_t i, int rank);
  int64_t (*out)(const void *self, uint64_t j, int rank);
  const void *self;
} scheme;

static int64_t new_in(const void *p, uint64_t i, int rank) { return xp_nccl_pattern_input(p, i, rank); }
static int64_t new_out(const void *p, uint64_t j, int rank) { return xp_nccl_pattern_output(p, j, rank); }

/* The scheme before: (5 (i mod m) + 3 r + 1) mod m, m = E / n + 1 capped at 61. */
typedef struct old_scheme { int coll, n, root, m; uint64_t count; } old_scheme;
static int64_t old_in(const void *self, uint64_t i, int rank) {
  const old_scheme *o = self;
  return (int64_t)((5 * (i % (uint64_t)o->m) + 3 * (uint64_t)rank + 1) % (uint64_t)o->m);
}
static int64_t old_out(const void *self, uint64_t j, int rank) {
  const old_scheme *o = self;
  int64_t sum = 0;
  switch (o->coll) {
  case XP_COLL_ALLREDUCE: for (int p = 0; p < o->n; p++) sum += old_in(o, j, p); return sum;
  case XP_COLL_REDUCESCATTER:
    for (int p = 0; p < o->n; p++) sum += old_in(o, (uint64_t)rank * o->count + j, p);
    return sum;
  case XP_COLL_BROADCAST: return old_in(o, j, o->root);
  case XP_COLL_ALLGATHER: return old_in(o, j % o->count, (int)(j / o->count));
  case XP_COLL_ALLTOALL: return old_in(o, (uint64_t)rank * o->count + j % o->count, (int)(j / o->count));
  }
  return -1;
}

/* ---- the checks ---- */

typedef struct cfg { int dtype, coll, n, root; uint64_t count; } cfg;
enum { F_EXACT = 1, F_ZERO = 2, F_WRONG = 4, F_BLOCK = 8, F_DROP = 16, F_DOUBLE = 32 };
static const char *flag_names[] = {"inexact", "all inputs zero", "expected != collective of inputs",
                                   "wrong block passes", "dropped rank passes", "doubled rank passes"};
static int64_t exact_int[XP_DT_N];

#define BUDGET ((uint64_t)1 << 14) /* scheme calls per exhaustive sweep before sampling */

static uint64_t in_elems(const cfg *c) {
  int split = c->coll == XP_COLL_REDUCESCATTER || c->coll == XP_COLL_ALLTOALL;
  return split ? (uint64_t)c->n * c->count : c->count;
}
static uint64_t out_elems(const cfg *c) {
  int split = c->coll == XP_COLL_ALLGATHER || c->coll == XP_COLL_ALLTOALL;
  return split ? (uint64_t)c->n * c->count : c->count;
}

/* Ranks to sweep: all of them when `work` calls per rank fit the budget, else the edges, the
** middle, and the root. Returns how many, in r (n entries at most). */
static int rank_sample(const cfg *c, uint64_t work, int *r) {
  int k = 0, n = c->n;
  if ((uint64_t)n * work <= BUDGET) {
    for (k = 0; k < n; k++) r[k] = k;
    return k;
  }
  int pick[] = {0, 1, n / 2, n - 1, c->root};
  for (size_t i = 0; i < sizeof pick / sizeof *pick; i++) {
    int dup = pick[i] < 0 || pick[i] >= n;
    for (int q = 0; q < k; q++) dup |= r[q] == pick[i];
    if (!dup) r[k++] = pick[i];
  }
  return k;
}

/* The output element j of `rank` computed from the inputs as the collective does; *abs_sum
** gets the sum of the contributions' magnitudes (every partial sum is within it). */
static int64_t collective(const scheme *s, const cfg *c, uint64_t j, int rank, int64_t *abs_sum) {
  uint64_t cnt = c->count;
  int64_t sum = 0, v;
  *abs_sum = 0;
  switch (c->coll) {
  case XP_COLL_ALLREDUCE:
  case XP_COLL_REDUCESCATTER:
    for (int p = 0; p < c->n; p++) {
      v = s->in(s->self, c->coll == XP_COLL_ALLREDUCE ? j : (uint64_t)rank * cnt + j, p);
      sum += v;
      *abs_sum += v < 0 ? -v : v;
    }
    return sum;
  case XP_COLL_BROADCAST: return s->in(s->self, j, c->root);
  case XP_COLL_ALLGATHER: return s->in(s->self, j % cnt, (int)(j / cnt));
  default: return s->in(s->self, (uint64_t)rank * cnt + j % cnt, (int)(j / cnt)); /* alltoall */
  }
}

static unsigned check_inputs(const scheme *s, const cfg *c, int *ranks) {
  unsigned f = F_ZERO;
  uint64_t ne = in_elems(c);
  for (int r = 0; r < c->n && f; r++)
    for (uint64_t i = 0; i < ne && f; i++) f = s->in(s->self, i, r) ? 0 : F_ZERO;
  int nr = rank_sample(c, ne, ranks);
  for (int k = 0; k < nr; k++)
    for (uint64_t i = 0; i < ne; i++) f |= exact(c->dtype, s->in(s->self, i, ranks[k])) ? 0 : F_EXACT;
  return f;
}

/* Over the sampled ranks, every element if the budget allows, else every step-th and the last. */
static unsigned check_outputs(const scheme *s, const cfg *c, int *ranks) {
  unsigned f = 0;
  uint64_t ne = out_elems(c), work = ne * (xp_nccl_reduces(c->coll) ? (uint64_t)c->n : 1);
  int nr = rank_sample(c, work, ranks);
  uint64_t step = nr * work > BUDGET ? nr * work / BUDGET + 1 : 1, last = (ne - 1 + step - 1) / step;
  for (int k = 0; k < nr; k++)
    for (uint64_t t = 0; t <= last; t++) {
      uint64_t j = t * step < ne ? t * step : ne - 1;
      int64_t abs_sum, e = s->out(s->self, j, ranks[k]);
      int64_t want = collective(s, c, j, ranks[k], &abs_sum);
      f |= e != want ? F_WRONG : 0;
      f |= !exact(c->dtype, e) || abs_sum > exact_int[c->dtype] ? F_EXACT : 0;
    }
  return f;
}

static const int64_t *g_blk;
static uint64_t g_len;
static int blk_cmp(const void *a, const void *b) {
  const int64_t *x = g_blk + *(const uint32_t *)a * g_len, *y = g_blk + *(const uint32_t *)b * g_len;
  for (uint64_t k = 0; k < g_len; k++)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

/* 1 if no two of the nb blocks (len values each, one after the other) are equal. */
static int distinct(const int64_t *blk, uint32_t nb, uint64_t len) {
  uint32_t *ix = malloc(nb * sizeof *ix);
  int ok = 1;
  for (uint32_t b = 0; b < nb; b++) ix[b] = b;
  g_blk = blk, g_len = len;
  qsort(ix, nb, sizeof *ix, blk_cmp);
  for (uint32_t b = 1; b < nb && ok; b++) ok = blk_cmp(&ix[b - 1], &ix[b]) != 0;
  free(ix);
  return ok;
}

/* Alltoall block (source p, destination q): what p sends q. */
static void a2a_block(const scheme *s, const cfg *c, int p, int q, int64_t *dst) {
  for (uint64_t j = 0; j < c->count; j++) dst[j] = s->in(s->self, (uint64_t)q * c->count + j, p);
}

/* A block that arrives from the wrong rank, or the wrong chunk, must differ from the right one:
** all the blocks a rank could be sent in its place are distinct. */
static unsigned check_blocks(const scheme *s, const cfg *c, int *ranks) {
  uint64_t len = c->count;
  uint32_t n = (uint32_t)c->n, nb = n * (c->coll == XP_COLL_ALLTOALL && n <= 32 ? n : 1);
  int64_t *blk = malloc((size_t)nb * len * sizeof *blk);
  int ok = 1;
  switch (c->coll) {
  case XP_COLL_ALLGATHER:
  case XP_COLL_BROADCAST: /* every rank's input: a wrong root or a misplaced block */
    for (uint32_t b = 0; b < n; b++)
      for (uint64_t j = 0; j < len; j++) blk[b * len + j] = s->in(s->self, j, (int)b);
    ok = distinct(blk, n, len);
    break;
  case XP_COLL_REDUCESCATTER: /* every chunk of the reduction */
    for (uint32_t b = 0; b < n; b++)
      for (uint64_t j = 0; j < len; j++) blk[b * len + j] = s->out(s->self, j, (int)b);
    ok = distinct(blk, n, len);
    break;
  case XP_COLL_ALLTOALL:
    if (nb > n) { /* all n^2 (source, destination) blocks */
      for (uint32_t b = 0; b < nb; b++) a2a_block(s, c, (int)(b / n), (int)(b % n), blk + b * len);
      ok = distinct(blk, nb, len);
      break;
    }
    /* too many: per sampled rank, the blocks of every source for it, and every chunk of it */
    for (int k = 0, nr = rank_sample(c, BUDGET, ranks); k < nr && ok; k++) {
      for (uint32_t p = 0; p < n; p++) a2a_block(s, c, (int)p, ranks[k], blk + p * len);
      ok = distinct(blk, n, len);
      for (uint32_t q = 0; q < n && ok; q++) a2a_block(s, c, ranks[k], (int)q, blk + q * len);
      ok = ok && distinct(blk, n, len);
    }
    break;
  }
  free(blk);
  return ok ? 0 : F_BLOCK;
}

/* Every rank's contribution, dropped or counted twice, changes some element of the result as
** the type rounds it. */
static unsigned check_contributions(const scheme *s, const cfg *c) {
  unsigned f = 0;
  uint64_t ne = in_elems(c);
  for (int r = 0; r < c->n; r++) {
    int drop = 0, dbl = 0;
    for (uint64_t i = 0; i < ne && !(drop && dbl); i++) {
      int64_t v = s->in(s->self, i, r), e;
      if (v == 0) continue;
      e = c->coll == XP_COLL_ALLREDUCE ? s->out(s->self, i, 0) : s->out(s->self, i % c->count, (int)(i / c->count));
      drop |= to_type(c->dtype, (double)(e - v)) != (double)e;
      dbl |= to_type(c->dtype, (double)(e + v)) != (double)e;
    }
    f |= (drop ? 0 : F_DROP) | (dbl ? 0 : F_DOUBLE);
  }
  return f;
}

static unsigned check(const scheme *s, const cfg *c) {
  int *ranks = malloc((size_t)c->n * sizeof *ranks);
  unsigned f = check_inputs(s, c, ranks) | check_outputs(s, c, ranks) | check_blocks(s, c, ranks);
  if (xp_nccl_reduces(c->coll)) f |= check_contributions(s, c);
  free(ranks);
  return f;
}

static void expect(const cfg *c, const char *what, unsigned got, unsigned bad) {
  static int printed;
  if (!(got & bad)) return;
  check_failures++;
  if (printed++ > 40) return;
  fprintf(stderr, "%s dtype %d coll %d n %d count %llu:", what, c->dtype, c->coll, c->n,
          (unsigned long long)c->count);
  for (int b = 0; b < 6; b++)
    if (got & bad & (1u << b)) fprintf(stderr, " %s;", flag_names[b]);
  fputc('\n', stderr);
}

/* ---- the new scheme at every rank count ---- */

/* Fewest elements a block needs, values 1..E, to tell `keys` blocks apart. */
static uint64_t need_elems(int dtype, uint64_t keys) {
  uint64_t d = 1;
  for (double cap = (double)exact_int[dtype]; cap < (double)keys; cap *= (double)exact_int[dtype]) d++;
  return d;
}

static void test_one(int dtype, int coll, int n, uint64_t count) {
  cfg c = {dtype, coll, n, n - 1, count};
  xp_nccl_pattern p;
  xp_nccl_pattern_init(&p, dtype, coll, n, count, c.root);
  scheme s = {new_in, new_out, &p};
  unsigned f = check(&s, &c), bad = F_EXACT | F_ZERO | F_WRONG;
  uint64_t keys = coll == XP_COLL_ALLTOALL ? (uint64_t)n * (uint64_t)n : (uint64_t)n;
  if (xp_nccl_reduces(coll)) {
    /* Reducescatter: even in fp8 the sums can take 2 values or more per element, enough for
    ** 2^16 chunks in 16 elements. Every rank's contribution must show somewhere once a
    ** reduction has n elements, and in a single element when n <= E / 4: all n ranks then fit
    ** in E with room to spare for a doubled one. */
    if (coll == XP_COLL_REDUCESCATTER && count >= 16) bad |= F_BLOCK;
    if (coll == XP_COLL_REDUCESCATTER || count >= (uint64_t)n || n <= exact_int[dtype] / 4)
      bad |= F_DROP | F_DOUBLE;
  } else if (count >= need_elems(dtype, keys))
    bad |= F_BLOCK; /* as few elements as values 1..E allow */
  expect(&c, "new scheme", f, bad);
}

static void test_rank_counts(void) {
  static const int big[] = {65, 96, 100, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023,
                            1024, 1025, 2047, 2048, 2049, 3000, 4095, 4096, 4097};
  static const uint64_t counts[] = {1, 2, 4, 8, 16, 3, 5}; /* 3 and 5 up to 64 ranks */
  for (int k = 0; k < 64 + (int)(sizeof big / sizeof *big); k++) {
    int n = k < 64 ? k + 1 : big[k - 64];
    for (int d = 0; d < XP_DT_N; d++)
      for (int coll = 0; coll < XP_COLL_N; coll++) {
        for (size_t q = 0; q < sizeof counts / sizeof *counts - (n > 64 ? 2 : 0); q++)
          test_one(d, coll, n, counts[q]);
        if (coll == XP_COLL_ALLREDUCE && n > 16) test_one(d, coll, n, (uint64_t)n);
      }
  }
}

/* The reductions' closed form against the sum, and the budget, for every rank count up to 4096
** at one element past the rotation (the costly part of test_rank_counts is sampled). */
static void test_sum_budget(void) {
  for (int d = 0; d < XP_DT_N; d++)
    for (int n = 1; n <= 4096; n++) {
      xp_nccl_pattern p;
      xp_nccl_pattern_init(&p, d, XP_COLL_REDUCESCATTER, n, 3, 0);
      CHECK(p.k >= 1 && p.k <= n);
      /* largest sum plus a doubled contribution */
      CHECK((int64_t)p.k + 2 * (int64_t)p.base - 1 <= exact_int[d]);
      int64_t sum = 0;
      for (int r = 0; r < n; r++) sum += xp_nccl_pattern_input(&p, (uint64_t)(n - 1) * 3 + 2, r);
      CHECK_EQ_INT(sum, xp_nccl_pattern_output(&p, 2, n - 1));
    }
}

/* What verify_kernel counts: output elements that, stored in the type, differ from the expected. */
static int64_t wrong(const xp_nccl_pattern *p, int dtype, const int64_t *out, uint64_t ne, int rank) {
  int64_t bad = 0;
  for (uint64_t j = 0; j < ne; j++)
    bad += to_type(dtype, (double)out[j]) != to_type(dtype, (double)xp_nccl_pattern_output(p, j, rank));
  return bad;
}

/* Broadcast: a rank left with another rank's buffer shows where that block differs from the
** root's. 0 if every other rank's block differs from the root's in count elements. */
static unsigned check_root_block(const scheme *s, const cfg *c) {
  for (int r = 0; r < c->n; r++) {
    int differs = r == c->root;
    for (uint64_t j = 0; j < c->count && !differs; j++) differs = s->in(s->self, j, r) != s->in(s->self, j, c->root);
    if (!differs) return F_BLOCK;
  }
  return 0;
}

/* What the check must catch at a count, by collective: 0 if it catches all of it. */
static unsigned faults_unseen(const cfg *c, int *ranks) {
  xp_nccl_pattern p;
  xp_nccl_pattern_init(&p, c->dtype, c->coll, c->n, c->count, c->root);
  scheme s = {new_in, new_out, &p};
  switch (c->coll) {
  case XP_COLL_ALLREDUCE: return check_contributions(&s, c);
  case XP_COLL_REDUCESCATTER: return check_contributions(&s, c) | check_blocks(&s, c, ranks);
  case XP_COLL_BROADCAST: return check_root_block(&s, c);
  default: return check_blocks(&s, c, ranks); /* allgather; alltoall: all n^2 blocks up to 32 ranks */
  }
}

/* xp_nccl_pattern_min_count is the least count at which the check sees every rank's fault: at
** it nothing goes unseen, one element fewer something does (for alltoall that takes all n^2
** blocks, compared up to 32 ranks; past that, only the rank sample's at the minimum). */
static void test_min_count(void) {
  static const int big[] = {64, 100, 129, 257, 1000, 4096};
  int *ranks = malloc(4096 * sizeof *ranks);
  for (int k = 0; k < 40 + (int)(sizeof big / sizeof *big); k++) {
    int n = k < 40 ? k + 1 : big[k - 40];
    for (int d = 0; d < XP_DT_N; d++)
      for (int coll = 0; coll < XP_COLL_N; coll++)
        for (int root = 0; root < (coll == XP_COLL_BROADCAST ? 3 : 1); root++) {
          cfg c = {d, coll, n, root == 0 ? 0 : root == 1 ? n / 3 : n - 1, 1};
          xp_nccl_pattern p;
          xp_nccl_pattern_init(&p, d, coll, n, 1, c.root);
          uint64_t min = xp_nccl_pattern_min_count(&p);
          CHECK(min >= 1 && min <= (uint64_t)p.digits + (coll == XP_COLL_ALLREDUCE ? (uint64_t)n : 0));
          c.count = min;
          expect(&c, "at the minimum count", faults_unseen(&c, ranks), ~0u);
          if (min == 1 || (coll == XP_COLL_ALLTOALL && n > 32)) continue;
          c.count = min - 1;
          if (!faults_unseen(&c, ranks)) expect(&c, "one below the minimum, nothing unseen", F_WRONG, F_WRONG);
        }
  }
  free(ranks);
}

/* The faults spelled out, at 4096 ranks in fp8 e5m2, where the old inputs were all 0: an
** all-gather whose blocks 17 and 4000 trade places, and an all-reduce that leaves out rank 4095
** or counts it twice, each summed in the type as NCCL would. */
static void test_faults_at_4096(void) {
  enum { N = 4096, CNT = 8 };
  int dtype = XP_DT_FP8_E5M2;
  xp_nccl_pattern p;
  int64_t *out = malloc((size_t)N * CNT * sizeof *out);
  xp_nccl_pattern_init(&p, dtype, XP_COLL_ALLGATHER, N, CNT, 0);
  for (uint64_t j = 0; j < (uint64_t)N * CNT; j++) {
    uint64_t b = j / CNT, from = b == 17 ? 4000 : b == 4000 ? 17 : b;
    out[j] = xp_nccl_pattern_input(&p, j % CNT, (int)from);
  }
  CHECK(wrong(&p, dtype, out, (uint64_t)N * CNT, 0) > 0);
  xp_nccl_pattern_init(&p, dtype, XP_COLL_ALLREDUCE, N, N, 0);
  for (int twice = 0; twice < 2; twice++) {
    for (uint64_t j = 0; j < N; j++) {
      double sum = 0;
      for (int r = 0; r < N; r++)
        sum = to_type(dtype, sum + (double)xp_nccl_pattern_input(&p, j, r) * (r == N - 1 ? twice * 2 : 1));
      out[j] = (int64_t)sum;
    }
    CHECK(wrong(&p, dtype, out, N, 0) > 0);
  }
  free(out);
}

/* ---- the checks have teeth: the scheme before fails them ---- */

static void test_old_scheme_fails(void) {
  static const struct { int dtype, n; } at[] = {
    {XP_DT_FP8_E5M2, 9}, {XP_DT_FP8_E4M3, 17}, {XP_DT_BF16, 257}, {XP_DT_FP16, 2049}};
  for (size_t k = 0; k < sizeof at / sizeof *at; k++)
    for (int coll = 0; coll < XP_COLL_N; coll++) {
      int n = at[k].n, e = (int)exact_int[at[k].dtype];
      uint64_t count = coll == XP_COLL_ALLREDUCE ? (uint64_t)n : 4;
      old_scheme o = {coll, n, n - 1, e / n + 1 > 61 ? 61 : e / n + 1, count};
      scheme s = {old_in, old_out, &o};
      cfg c = {at[k].dtype, coll, n, n - 1, count};
      unsigned f = check(&s, &c);
      CHECK_EQ_INT(o.m, 1);
      CHECK(f & F_ZERO);
      CHECK(f & (xp_nccl_reduces(coll) ? F_DROP | F_DOUBLE : F_BLOCK));
    }
  /* Below the cliff the old pattern is exact, but m = 5 makes it constant along a rank
  ** (5 (i mod 5) = 0 mod 5): alltoall cannot tell one chunk of a rank from another. */
  old_scheme o = {XP_COLL_ALLTOALL, 2, 1, 5, 16};
  scheme s = {old_in, old_out, &o};
  cfg c = {XP_DT_FP8_E5M2, XP_COLL_ALLTOALL, 2, 1, 16};
  CHECK_EQ_INT(check(&s, &c), F_BLOCK);
}

/* The emulation itself, on values whose rounding is known. */
static void test_emulation(void) {
  CHECK_EQ_INT(exact_int[XP_DT_FP8_E5M2], 8);
  CHECK_EQ_INT(exact_int[XP_DT_FP8_E4M3], 16);
  CHECK_EQ_INT(exact_int[XP_DT_BF16], 256);
  CHECK_EQ_INT(exact_int[XP_DT_FP16], 2048);
  CHECK_EQ_INT(exact_int[XP_DT_FP32], 16777216);
  CHECK(to_type(XP_DT_FP8_E5M2, 9) == 8);   /* tie to even: 8 = 1.00b x 2^3 */
  CHECK(to_type(XP_DT_FP8_E5M2, 11) == 12); /* tie to even: 12 = 1.10b x 2^3 */
  CHECK(to_type(XP_DT_FP8_E4M3, 17) == 16);
  CHECK(to_type(XP_DT_FP8_E4M3, 1000) == 448); /* satfinite */
  CHECK(to_type(XP_DT_FP8_E5M2, 0x1p-16) == 0x1p-16); /* smallest subnormal */
  CHECK(to_type(XP_DT_FP16, 65520) == INFINITY);
  CHECK(to_type(XP_DT_BF16, 257) == 256);
  CHECK(to_type(XP_DT_BF16, 259) == 260);
  for (int d = 0; d < XP_DT_N; d++) CHECK_EQ_INT(xp_nccl_exact_int(d), exact_int[d]);
}

int main(void) {
  for (int d = 0; d < XP_DT_N; d++) exact_int[d] = emul_exact_int(d);
  test_emulation();
  test_old_scheme_fails();
  test_sum_budget();
  test_faults_at_4096();
  test_min_count();
  test_rank_counts();
  CHECK_DONE();
}
