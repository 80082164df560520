/*
** The w4a16 INT4 layout on the host: the packed mapping is a bijection onto the words'
** nibbles, known positions land where the kernels' fragments expect them, gate/up rows
** interleave per tile, bf16 rounding is round-to-nearest-even, and quantize + pack round
** trips within half a scale step.
*/
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "w4a16/w4a16_layout.h"

static uint64_t rng = 0x1234567887654321ULL;
static double unit(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static void test_check(void) {
  w4_layout ok = {512, 7168, 128, 0};
  CHECK(w4_layout_check(&ok) == NULL);
  w4_layout down = {7168, 256, 32, 0};
  CHECK(w4_layout_check(&down) == NULL);
  w4_layout l = ok;
  l.n = 520;
  CHECK(w4_layout_check(&l) && strstr(w4_layout_check(&l), "multiple of 16"));
  l = ok, l.k = 7200;
  CHECK(w4_layout_check(&l) && strstr(w4_layout_check(&l), "multiple of 64"));
  l = ok, l.group = 96;
  CHECK(w4_layout_check(&l) && strstr(w4_layout_check(&l), "power of two"));
  l = ok, l.group = 8;
  CHECK(w4_layout_check(&l) && strstr(w4_layout_check(&l), ">= 16"));
  l = (w4_layout){16, 192, 128, 0};
  CHECK(w4_layout_check(&l) && strstr(w4_layout_check(&l), "multiple of the group"));
  l = (w4_layout){0, 64, 16, 0};
  CHECK(w4_layout_check(&l) != NULL);
}

/* Every (n, k) owns one nibble, every nibble of every word belongs to one (n, k). */
static void test_bijection(int gate_up) {
  w4_layout l = {64, 256, 32, gate_up};
  size_t words = w4_words(&l);
  CHECK_EQ_INT(words, 64 * 256 / 8);
  uint32_t *used = calloc(words, sizeof *used);
  int dup = 0, outside = 0;
  for (int n = 0; n < l.n; n++)
    for (int k = 0; k < l.k; k++) {
      size_t w;
      int sh;
      w4_locate(&l, n, k, &w, &sh);
      if (w >= words || sh < 0 || sh > 28 || sh % 4) {
        outside++;
        continue;
      }
      if (used[w] & (0xfu << sh)) dup++;
      used[w] |= 0xfu << sh;
    }
  CHECK_EQ_INT(dup, 0);
  CHECK_EQ_INT(outside, 0);
  int full = 1;
  for (size_t i = 0; i < words; i++) full &= used[i] == 0xffffffffu;
  CHECK(full);
  free(used);

  /* Scales: one per (row, group), all distinct, within bounds. */
  size_t ns = w4_nscales(&l);
  unsigned char *seen = calloc(ns, 1);
  int bad = 0;
  for (int n = 0; n < l.n; n++)
    for (int g = 0; g < l.k / l.group; g++) {
      size_t i = w4_scale_index(&l, n, g * l.group);
      if (i >= ns || seen[i]) bad++;
      else seen[i] = 1;
      for (int k = g * l.group; k < (g + 1) * l.group; k++) bad += w4_scale_index(&l, n, k) != i;
    }
  CHECK_EQ_INT(bad, 0);
  free(seen);
}

static void at(const w4_layout *l, int n, int k, size_t want_word, int want_shift) {
  size_t w;
  int sh;
  w4_locate(l, n, k, &w, &sh);
  if (w != want_word || sh != want_shift) {
    check_failures++;
    fprintf(stderr, "W[%d][%d]: word %zu shift %d, expected word %zu shift %d\n", n, k, w, sh,
            want_word, want_shift);
  }
}

/* Positions the kernels rely on (w4a16_layout.h): lane L = 4g + t owns words 4L..4L+3 of a
** 512-byte tile; word s holds k = 16t + 4s + j of rows g (h=0) and g+8 (h=1). */
static void test_positions(void) {
  w4_layout l = {32, 128, 64, 0};
  at(&l, 0, 0, 0, 0);      /* row g=0, j=0: bits 0-3 */
  at(&l, 8, 0, 0, 4);      /* row g+8: bits 4-7 */
  at(&l, 0, 1, 0, 16);     /* j=1: high half */
  at(&l, 8, 1, 0, 20);
  at(&l, 0, 2, 0, 8);      /* j=2: bits 8-11 */
  at(&l, 8, 3, 0, 28);     /* j=3, row g+8: bits 28-31 */
  at(&l, 0, 4, 1, 0);      /* s=1 */
  at(&l, 0, 16, 4, 0);     /* t=1: lane 1 */
  at(&l, 1, 0, 16, 0);     /* g=1: lane 4 */
  at(&l, 7, 63, 31 * 4 + 3, 24);      /* lane 31, s=3, j=3 of row g: bits 24-27 */
  at(&l, 0, 64, 128, 0);   /* next 64-wide chunk: next tile */
  at(&l, 16, 0, 256, 0);   /* next row tile: after K/64 = 2 tiles */
  /* Scales: [N/16][K/G][8][2], rows g and g+8 adjacent. */
  CHECK_EQ_INT(w4_scale_index(&l, 0, 0), 0);
  CHECK_EQ_INT(w4_scale_index(&l, 8, 0), 1);
  CHECK_EQ_INT(w4_scale_index(&l, 1, 0), 2);
  CHECK_EQ_INT(w4_scale_index(&l, 0, 64), 16);
  CHECK_EQ_INT(w4_scale_index(&l, 16, 0), 32);
}

static void test_gate_up_rows(void) {
  w4_layout l = {512, 64, 64, 1};
  CHECK_EQ_INT(w4_packed_row(&l, 0), 0);     /* gate 0 */
  CHECK_EQ_INT(w4_packed_row(&l, 7), 7);
  CHECK_EQ_INT(w4_packed_row(&l, 256), 8);   /* up 0 shares tile 0 with gate 0..7 */
  CHECK_EQ_INT(w4_packed_row(&l, 263), 15);
  CHECK_EQ_INT(w4_packed_row(&l, 8), 16);    /* gate 8 opens tile 1 */
  CHECK_EQ_INT(w4_packed_row(&l, 264), 24);
  int bad = 0;
  for (int n = 0; n < l.n; n++) bad += w4_logical_row(&l, w4_packed_row(&l, n)) != n;
  CHECK_EQ_INT(bad, 0);
  w4_layout plain = {512, 64, 64, 0};
  CHECK_EQ_INT(w4_packed_row(&plain, 256), 256);
}

static void test_bf16(void) {
  CHECK_EQ_INT(w4_f32_to_bf16(1.0f), 0x3f80);
  CHECK_EQ_INT(w4_f32_to_bf16(1.00390625f), 0x3f80);  /* 1 + 2^-8: a tie, to even */
  CHECK_EQ_INT(w4_f32_to_bf16(1.01171875f), 0x3f82);  /* 1 + 3 * 2^-8: a tie, to even */
  CHECK_EQ_INT(w4_f32_to_bf16(-2.0f), 0xc000);
  CHECK_EQ_INT(w4_f32_to_bf16(128.0f), 0x4300);       /* the kernels' magic number */
  CHECK_EQ_INT(w4_f32_to_bf16(136.0f), 0x4308);
  CHECK(w4_bf16_to_f32(0x4300 | 0xf) == 143.0f);      /* 128 + nibble, exact */
  CHECK(isnan(w4_bf16_to_f32(w4_f32_to_bf16(NAN))));
  CHECK(w4_bf16_to_f32(0x3f80) == 1.0f);
}

static void test_round_trip(int gate_up, int group) {
  w4_layout l = {gate_up ? 64 : 48, 256, group, gate_up};
  size_t nk = (size_t)l.n * l.k;
  float *w = malloc(nk * sizeof *w);
  for (size_t i = 0; i < nk; i++) w[i] = (float)((unit() * 2 - 1) * (0.01 + (double)(i % 7)));
  /* One all-zero group: stored as zeros with scale 1. */
  for (int k = 0; k < group; k++) w[(size_t)3 * l.k + k] = 0;
  uint32_t *words = malloc(w4_words(&l) * sizeof *words);
  uint16_t *scales = malloc(w4_nscales(&l) * sizeof *scales);
  CHECK_EQ_INT(w4_quantize_pack(&l, w, words, scales), 0);
  int bad_q = 0, bad_err = 0, bad_scale = 0;
  for (int n = 0; n < l.n; n++)
    for (int k0 = 0; k0 < l.k; k0 += group) {
      float amax = 0;
      for (int k = k0; k < k0 + group; k++) amax = fmaxf(amax, fabsf(w[(size_t)n * l.k + k]));
      float s = w4_bf16_to_f32(scales[w4_scale_index(&l, n, k0)]);
      float want = w4_bf16_to_f32(w4_f32_to_bf16(amax > 0 ? amax / 7 : 1));
      bad_scale += s != want;
      for (int k = k0; k < k0 + group; k++) {
        float x = w[(size_t)n * l.k + k];
        int q = w4_get_q(&l, words, n, k);
        float r = rintf(x / s);
        int expect = r < -8 ? -8 : r > 7 ? 7 : (int)r;
        bad_q += q != expect;
        /* Within half a step, except where the bf16-rounded scale clamps the group's max. */
        if (fabsf(w4_dequant(&l, words, scales, n, k) - x) > 0.5f * s * 1.01f + fabsf(x) * 0.005f) bad_err++;
      }
    }
  CHECK_EQ_INT(bad_q, 0);
  CHECK_EQ_INT(bad_err, 0);
  CHECK_EQ_INT(bad_scale, 0);
  CHECK(w4_bf16_to_f32(scales[w4_scale_index(&l, 3, 0)]) == 1.0f);
  for (int k = 0; k < group; k++) CHECK_EQ_INT(w4_get_q(&l, words, 3, k), 0);
  /* A bad layout is refused. */
  w4_layout badl = {l.n, 100, group, 0};
  CHECK_EQ_INT(w4_quantize_pack(&badl, w, words, scales), -1);
  free(w), free(words), free(scales);
}

int main(void) {
  test_check();
  test_bijection(0);
  test_bijection(1);
  test_positions();
  test_gate_up_rows();
  test_bf16();
  test_round_trip(0, 32);
  test_round_trip(0, 128);
  test_round_trip(1, 64);
  CHECK_DONE();
}
