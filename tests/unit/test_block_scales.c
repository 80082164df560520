/* The block scales' layout (kernels/ceilings/block_scales.h) against NVIDIA's own statement of
** where cuBLASLt reads them: CUDALibrarySamples cuBLASMp/matmul.h, scale_layout_offset, which
** its reference check applies to cuBLASLt's results. There, for an operand of `rows` x `cols`
** stored column-major (rows the K of a TN operand), scale row sr = row / 128 and
**   VEC128_32F:     sc + sr * roundup(cols, 4)                     (sc = col: a token)
**   BLK128x128_32F: sr + sc * roundup(ceil(rows / 128), 4)         (sc = col / 128: W's rows)
** Written out here apart from the header, so a change of either shows. Runs without a GPU. */
#include <stdint.h>
#include "check.h"
#include "ceilings/block_scales.h"

static int64_t roundup4(int64_t x) { return (x + 3) / 4 * 4; }

/* cuBLASMp's offsets, W (cuBLASLt's A: rows = K, cols = N) and A (its B: rows = K, cols = M). */
static int64_t nvidia_w(int64_t k, int64_t j, int64_t kk) {
  return kk / 128 + j / 128 * roundup4((k + 127) / 128);
}
static int64_t nvidia_a(int64_t m, int64_t i, int64_t kk) { return i + kk / 128 * roundup4(m); }

static void test_layout(void) {
  /* decode M (1, 3, 16, 128), DeepSeek's N and K, K groups not a multiple of 4 (3, 5, 56) */
  const int64_t ms[] = {1, 3, 16, 128}, ns[] = {576, 4096, 7168}, ks[] = {384, 640, 2048, 7168};
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 3; b++)
      for (size_t c = 0; c < 4; c++) {
        const int64_t m = ms[a], n = ns[b], k = ks[c];
        const xp_block_layout l = xp_block_layout_of(m, n, k);
        int64_t wmax = -1, amax = -1;
        for (int64_t j = 0; j < n; j += 37)
          for (int64_t kk = 0; kk < k; kk += 61) {
            CHECK_EQ_INT(xp_block_w_index(l.w_ld, j, kk), nvidia_w(k, j, kk));
            if (nvidia_w(k, j, kk) > wmax) wmax = nvidia_w(k, j, kk);
          }
        for (int64_t i = 0; i < m; i++)
          for (int64_t kk = 0; kk < k; kk += 61) {
            CHECK_EQ_INT(xp_block_a_index(l.a_ld, i, kk), nvidia_a(m, i, kk));
            if (nvidia_a(m, i, kk) > amax) amax = nvidia_a(m, i, kk);
          }
        /* every scale read lies in what the runner allocates */
        CHECK(wmax < l.w_count && amax < l.a_count);
        CHECK_EQ_INT(l.w_count, (n + 127) / 128 * roundup4((k + 127) / 128));
        CHECK_EQ_INT(l.a_count, (k + 127) / 128 * roundup4(m));
      }
}

/* A decode token's scales are 4 apart, not 1: M = 1 pads to 4 (a 16-byte stride). */
static void test_decode_padding(void) {
  const xp_block_layout l = xp_block_layout_of(1, 7168, 2048);
  CHECK_EQ_INT(l.a_ld, 4);
  CHECK_EQ_INT(xp_block_a_index(l.a_ld, 0, 128), 4);
  CHECK_EQ_INT(l.w_ld, 16);
  CHECK_EQ_INT(xp_block_w_index(l.w_ld, 128, 0), 16);
  /* scale bytes: 56 x 16 weight blocks and the token's 16 groups, one fp32 each */
  CHECK_NEAR(xp_block_scale_bytes(1, 7168, 2048), 4.0 * (56 * 16 + 16), 1e-12);
}

/* What a GEMM cuBLASLt's heuristic made no plan for becomes: skipped only off Hopper (or before
** cuBLASLt 12.9) and only on NOT_SUPPORTED; on an H200 with cuBLASLt 13.1 (130100), the device
** the brief's run used, it is the GEMM's failure whatever the status, where the run recorded
** 'skipped' for a heuristic's INVALID_VALUE. */
static void test_no_plan(void) {
  CHECK_EQ_INT(xp_block_scales_run_on(9, 0, 130100), 1);
  CHECK_EQ_INT(xp_block_scales_run_on(9, 0, 120900), 1);
  CHECK_EQ_INT(xp_block_scales_run_on(9, 0, 120805), 0); /* 12.8: no block scale modes yet */
  CHECK_EQ_INT(xp_block_scales_run_on(10, 0, 130100), 0); /* B200 */
  CHECK_EQ_INT(xp_block_scales_run_on(12, 0, 130100), 0); /* RTX PRO 6000 */
  CHECK_EQ_INT(xp_block_scales_run_on(8, 9, 130100), 0);  /* L40S */
  CHECK_EQ_INT(xp_block_no_plan_skips(1, 9, 0, 130100), 0); /* H200: NOT_SUPPORTED fails */
  CHECK_EQ_INT(xp_block_no_plan_skips(0, 9, 0, 130100), 0); /* H200: INVALID_VALUE fails */
  CHECK_EQ_INT(xp_block_no_plan_skips(1, 12, 0, 130100), 1);
  CHECK_EQ_INT(xp_block_no_plan_skips(1, 9, 0, 120805), 1);
  CHECK_EQ_INT(xp_block_no_plan_skips(0, 12, 0, 130100), 0); /* another status is no absence */
}

int main(void) {
  test_layout();
  test_decode_padding();
  test_no_plan();
  CHECK_DONE();
}
