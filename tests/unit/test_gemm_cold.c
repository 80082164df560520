/* gemm's cold-cache rotation (harness/runners/gemm_cold.c): weights large enough rotate over
** copies totalling the rotation's bytes, at least two; small ones over at most
** XP_GEMM_COLD_MAX_BUFFERS copies with a scratch write making up the rest, where they took one
** copy per stride (n = k = 64 bf16 in 256 MiB: 32768 copies, a graph of 32768 matmuls). */
#include "check.h"
#include "runners/gemm_cold.h"

#define MIB ((size_t)1 << 20)

/* Between two reads of one copy, at least total bytes go through L2. */
static void check_evicts(size_t total, size_t stride) {
  xp_gemm_cold c = xp_gemm_cold_plan(total, stride);
  CHECK(c.nbuf >= 2);
  CHECK(c.nbuf <= XP_GEMM_COLD_MAX_BUFFERS);
  CHECK((size_t)c.nbuf * stride + c.flush_bytes >= total);
}

static void test_large_weights(void) {
  /* Kimi-K2.5's o_proj at TP=8, bf16 (7168 x 1024 x 2 B = 14 MiB) in 256 MiB: 19 copies */
  xp_gemm_cold c = xp_gemm_cold_plan(256 * MIB, 7168 * 1024 * 2);
  CHECK_EQ_INT(c.nbuf, 19);
  CHECK_EQ_INT(c.flush_bytes, 0);
  /* a weight larger than the rotation: still two, so no launch reads the copy it just read */
  c = xp_gemm_cold_plan(256 * MIB, 512 * MIB);
  CHECK_EQ_INT(c.nbuf, 2);
  CHECK_EQ_INT(c.flush_bytes, 0);
  /* exactly the cap: copies alone */
  c = xp_gemm_cold_plan(256 * MIB, 256 * MIB / XP_GEMM_COLD_MAX_BUFFERS);
  CHECK_EQ_INT(c.nbuf, XP_GEMM_COLD_MAX_BUFFERS);
  CHECK_EQ_INT(c.flush_bytes, 0);
}

static void test_small_weights_capped(void) {
  /* n = k = 64 bf16: 8 KiB a copy; 256 MiB took 32768 copies */
  xp_gemm_cold c = xp_gemm_cold_plan(256 * MIB, 64 * 64 * 2);
  CHECK_EQ_INT(c.nbuf, XP_GEMM_COLD_MAX_BUFFERS);
  CHECK_EQ_INT(c.flush_bytes, 256 * MIB - XP_GEMM_COLD_MAX_BUFFERS * 8192);
  /* an H200's 4 x L2 (4 x 60 MiB) with one 256-byte copy */
  c = xp_gemm_cold_plan(240 * MIB, 256);
  CHECK_EQ_INT(c.nbuf, XP_GEMM_COLD_MAX_BUFFERS);
  CHECK_EQ_INT(c.flush_bytes, 240 * MIB - XP_GEMM_COLD_MAX_BUFFERS * 256);
}

static void test_always_evicts(void) {
  const size_t totals[] = {4 * MIB, 240 * MIB, 256 * MIB, 1000 * MIB + 3};
  const size_t strides[] = {256, 8192, 65536, 1 * MIB, 7 * MIB + 256, 300 * MIB};
  for (size_t i = 0; i < sizeof totals / sizeof *totals; i++)
    for (size_t j = 0; j < sizeof strides / sizeof *strides; j++) check_evicts(totals[i], strides[j]);
}

int main(void) {
  test_large_weights();
  test_small_weights_capped();
  test_always_evicts();
  CHECK_DONE();
}
