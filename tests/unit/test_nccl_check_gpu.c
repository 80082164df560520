/* nccl_burst's fill and verify kernels on one real device, without NCCL: the kernels' inputs are,
** bit for bit, what runners/nccl_pattern.h says on the host, in every element type and at rank
** counts no machine here has (rank numbers up to 4096 need no GPUs); an output built on the host
** as the collective must leave it verifies with 0 wrong, and one with a block from the wrong rank
** or chunk, or a rank left out of a sum or counted twice, does not. Skipped (77) without a GPU
** or CUDA. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "gpu.h"
#include "nccl/nccl_check.h"
#include "runners/nccl_plan.h"

static cudaStream_t s;

/* Exponent and significand bits of each type. The pattern's values are small non-negative
** integers, exact in every type, so they are coded without rounding. */
static const struct { int ebits, mbits; } fmt[XP_DT_N] = {
  [XP_DT_BF16] = {8, 7}, [XP_DT_FP16] = {5, 10}, [XP_DT_FP32] = {8, 23},
  [XP_DT_FP8_E4M3] = {4, 3}, [XP_DT_FP8_E5M2] = {5, 2},
};

static uint32_t encode(int dtype, int64_t v) {
  int e = 0, mb = fmt[dtype].mbits, bias = (1 << (fmt[dtype].ebits - 1)) - 1;
  if (v <= 0) return 0;
  while (v >> (e + 1)) e++;
  uint64_t frac = (uint64_t)v - ((uint64_t)1 << e);
  frac = mb >= e ? frac << (mb - e) : frac >> (e - mb);
  return ((uint32_t)(e + bias) << mb) | (uint32_t)frac;
}

static double decode(int dtype, uint32_t b) {
  int mb = fmt[dtype].mbits, bias = (1 << (fmt[dtype].ebits - 1)) - 1;
  uint32_t e = (b >> mb) & ((1u << fmt[dtype].ebits) - 1), m = b & ((1u << mb) - 1);
  double v = e ? ldexp(1 + ldexp(m, -mb), (int)e - bias) : ldexp(m, 1 - bias - mb);
  return (b >> (fmt[dtype].ebits + mb)) & 1 ? -v : v;
}

/* Element k of a host buffer of the type (little-endian, as the device). */
static uint32_t get(const char *buf, size_t ts, uint64_t k) {
  uint32_t b = 0;
  memcpy(&b, buf + k * ts, ts);
  return b;
}
static void put(char *buf, size_t ts, uint64_t k, uint32_t b) { memcpy(buf + k * ts, &b, ts); }

static uint64_t in_elems(const xp_nccl_pattern *p) {
  int split = p->coll == XP_COLL_REDUCESCATTER || p->coll == XP_COLL_ALLTOALL;
  return split ? (uint64_t)p->nranks * p->count : p->count;
}
static uint64_t out_elems(const xp_nccl_pattern *p) {
  int split = p->coll == XP_COLL_ALLGATHER || p->coll == XP_COLL_ALLTOALL;
  return split ? (uint64_t)p->nranks * p->count : p->count;
}

/* The device's fill of `rank`, against the header on the host: mismatching elements. */
static int64_t fill_mismatches(int dtype, const xp_nccl_pattern *p, int rank, int *nonzero) {
  size_t ts = xp_nccl_dtype_size(dtype), ne = in_elems(p);
  char *h = malloc(ne * ts);
  void *d = NULL;
  int64_t bad = -1;
  if (cudaMalloc(&d, ne * ts) == cudaSuccess && xp_nccl_fill(d, dtype, p, ne, rank, s) == cudaSuccess &&
      cudaMemcpy(h, d, ne * ts, cudaMemcpyDeviceToHost) == cudaSuccess) {
    bad = 0;
    for (uint64_t i = 0; i < ne; i++) {
      double v = decode(dtype, get(h, ts, i));
      bad += v != (double)xp_nccl_pattern_input(p, i, rank);
      *nonzero |= v != 0;
    }
  }
  cudaFree(d);
  free(h);
  return bad;
}

/* What the verify kernel counts wrong in the host output `h` (ne elements) of `rank`. */
static int64_t verify(int dtype, const xp_nccl_pattern *p, const char *h, uint64_t ne, int rank) {
  size_t ts = xp_nccl_dtype_size(dtype);
  void *d = NULL;
  unsigned long long *w = NULL, wrong = ~0ull;
  if (cudaMalloc(&d, ne * ts) == cudaSuccess && cudaMalloc((void **)&w, sizeof *w) == cudaSuccess &&
      cudaMemcpy(d, h, ne * ts, cudaMemcpyHostToDevice) == cudaSuccess &&
      cudaMemset(w, 0, sizeof *w) == cudaSuccess &&
      xp_nccl_verify(d, dtype, p, ne, rank, w, s) == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess)
    cudaMemcpy(&wrong, w, sizeof wrong, cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(w);
  return (int64_t)wrong;
}

static const int rank_counts[] = {2, 9, 17, 257, 2049, 4096};

static void test_fill(void) {
  for (int d = 0; d < XP_DT_N; d++)
    for (int c = 0; c < XP_COLL_N; c++)
      for (size_t k = 0; k < sizeof rank_counts / sizeof *rank_counts; k++) {
        int n = rank_counts[k], nonzero = 0, ranks[] = {0, n / 2, n - 1};
        xp_nccl_pattern p;
        xp_nccl_pattern_init(&p, d, c, n, 16, n - 1);
        for (int r = 0; r < 3; r++) CHECK_EQ_INT(fill_mismatches(d, &p, ranks[r], &nonzero), 0);
        CHECK(nonzero);
      }
}

/* The output of `rank` as the collective leaves it, or with one fault (fault 0: none): 1 a
** block from the wrong rank or chunk (all but allreduce), 2 a rank dropped from the sums, 3 a
** rank counted twice (reductions). */
static void build(int dtype, const xp_nccl_pattern *p, int rank, int fault, char *h) {
  size_t ts = xp_nccl_dtype_size(dtype);
  uint64_t cnt = p->count, n = (uint64_t)p->nranks;
  for (uint64_t j = 0; j < out_elems(p); j++) {
    int64_t v = xp_nccl_pattern_output(p, j, rank);
    uint64_t b = j / cnt, first = p->coll == XP_COLL_REDUCESCATTER ? (uint64_t)rank * cnt : 0;
    /* the rank that gives element 3 of this rank's part its mark: it contributes there */
    int victim = (int)((first + 3) % n * (uint64_t)p->k % n);
    if (fault == 1 && p->coll == XP_COLL_BROADCAST) v = xp_nccl_pattern_input(p, j, (p->root + 1) % (int)n);
    if (fault == 1 && p->coll == XP_COLL_ALLGATHER && b == 1) v = xp_nccl_pattern_input(p, j % cnt, (int)(2 % n));
    if (fault == 1 && p->coll == XP_COLL_ALLTOALL && b == 1) /* rank 1's chunk for the next rank */
      v = xp_nccl_pattern_input(p, ((uint64_t)rank + 1) % n * cnt + j % cnt, 1);
    if (fault == 1 && p->coll == XP_COLL_REDUCESCATTER) v = xp_nccl_pattern_output(p, j, (rank + 1) % (int)n);
    if (fault >= 2) v += (fault == 2 ? -1 : 1) * xp_nccl_pattern_input(p, first + j, victim);
    put(h, ts, j, encode(dtype, v));
  }
}

static void test_verify(void) {
  for (int d = 0; d < XP_DT_N; d++)
    for (int c = 0; c < XP_COLL_N; c++)
      for (size_t k = 0; k < sizeof rank_counts / sizeof *rank_counts; k++) {
        int n = rank_counts[k], rank = n / 2;
        xp_nccl_pattern p;
        xp_nccl_pattern_init(&p, d, c, n, 16, n - 1);
        uint64_t ne = out_elems(&p);
        char *h = malloc(ne * xp_nccl_dtype_size(d));
        build(d, &p, rank, 0, h);
        CHECK_EQ_INT(verify(d, &p, h, ne, rank), 0);
        for (int fault = c == XP_COLL_ALLREDUCE ? 2 : 1; fault <= (xp_nccl_reduces(c) ? 3 : 1); fault++) {
          build(d, &p, rank, fault, h);
          int64_t w = verify(d, &p, h, ne, rank);
          if (!(w > 0)) fprintf(stderr, "dtype %d coll %d n %d fault %d: %lld wrong\n", d, c, n, fault, (long long)w);
          CHECK(w > 0);
        }
        free(h);
      }
}

/* The host coding itself, on known bit patterns. */
static void test_coding(void) {
  CHECK_EQ_INT(encode(XP_DT_FP8_E4M3, 1), 0x38);
  CHECK_EQ_INT(encode(XP_DT_FP8_E5M2, 6), 0x46);
  CHECK_EQ_INT(encode(XP_DT_BF16, 3), 0x4040);
  CHECK_EQ_INT(encode(XP_DT_FP16, 2048), 0x6800);
  CHECK_EQ_INT(encode(XP_DT_FP32, 16777216), 0x4b800000);
  for (int d = 0; d < XP_DT_N; d++)
    for (int64_t v = 0; v <= xp_nccl_exact_int(d); v += 1 + v / 64) CHECK(decode(d, encode(d, v)) == (double)v);
}

int main(void) {
  test_coding();
  if (xp_gpu_count() == 0) {
    if (check_failures) CHECK_DONE();
    printf("skipped: no GPU\n");
    return 77;
  }
  CHECK(cudaStreamCreate(&s) == cudaSuccess);
  test_fill();
  test_verify();
  cudaStreamDestroy(s);
  CHECK_DONE();
}
#else
CHECK_SKIP_MAIN("xp was built without CUDA")
#endif
