/*
** The fused w4a16 kernels' lane arithmetic, replayed on the host: each lane's 16-byte word
** of a packed tile goes through the same bit operations as unpack_word (lop3 with mask
** 0x000F000F into bf16 128.0, minus 136), lands in the A fragment of mma.m16n8k16 as the
** PTX ISA lays it out (a0,a1: row g, cols 2t..2t+1; a2,a3: row g+8; a4..a7: cols +8), the
** activations in the B fragment (b0,b1: k rows 2t..2t+1 of token column g; b2,b3: +8),
** and the product must equal the plain reference that decodes weights with w4_locate.
** This is the check that the layout and the fragments agree, without a GPU.
*/
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "w4a16/w4a16_layout.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double unit(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static float bf(uint32_t bits16) { return w4_bf16_to_f32((uint16_t)bits16); }
static float bf_round(float v) { return w4_bf16_to_f32(w4_f32_to_bf16(v)); }

/* unpack_word: out[i] = ((w >> 4i) & 0x000F000F) | 0x43004300, each half minus 136. */
static void unpack(uint32_t w, float lo[4], float hi[4]) {
  for (int i = 0; i < 4; i++) {
    uint32_t v = ((w >> (4 * i)) & 0x000F000Fu) | 0x43004300u;
    lo[i] = bf(v & 0xffff) - 136.0f;
    hi[i] = bf(v >> 16) - 136.0f;
  }
}

/* y[tok][n] (logical rows) for m <= 16 tokens, as tile_mma computes it. post: scale after
** the MMA in fp32 (group % 64 == 0); else scale the bf16 weights first. */
static void emulate(const w4_layout *l, const uint32_t *words, const uint16_t *scales,
                    const uint16_t *x, int m, int post, double *y) {
  const int chunks = l->k / 64, ng = l->k / l->group, gshift = w4_log2(l->group);
  for (int rt = 0; rt < l->n / 16; rt++) {
    double D[16][16] = {{0}};
    for (int c = 0; c < chunks; c++) {
      double part[16][16] = {{0}};
      float sc[32][2];
      for (int lane = 0; lane < 32; lane++) {
        int g = lane >> 2, t = lane & 3;
        size_t si = ((size_t)(rt * ng + ((c * 64 + 16 * t) >> gshift)) * 8 + (size_t)g) * 2;
        sc[lane][0] = w4_bf16_to_f32(scales[si]);
        sc[lane][1] = w4_bf16_to_f32(scales[si + 1]);
      }
      for (int q = 0; q < 4; q++) {
        float A[16][16], B[16][16] = {{0}};
        for (int lane = 0; lane < 32; lane++) {
          int g = lane >> 2, t = lane & 3;
          uint32_t w = words[((size_t)rt * chunks + c) * 128 + (size_t)lane * 4 + q];
          float lo[4], hi[4];
          unpack(w, lo, hi);
          if (!post)
            for (int i = 0; i < 4; i++) {
              float s = sc[lane][i & 1]; /* out[0], out[2]: row g; out[1], out[3]: row g+8 */
              lo[i] = bf_round(lo[i] * s);
              hi[i] = bf_round(hi[i] * s);
            }
          A[g][2 * t] = lo[0], A[g][2 * t + 1] = hi[0];
          A[g + 8][2 * t] = lo[1], A[g + 8][2 * t + 1] = hi[1];
          A[g][2 * t + 8] = lo[2], A[g][2 * t + 9] = hi[2];
          A[g + 8][2 * t + 8] = lo[3], A[g + 8][2 * t + 9] = hi[3];
          for (int j = 0; j < 2; j++) {
            int tok = 8 * j + g;
            if (tok >= m) continue;
            const uint16_t *xs = x + (size_t)tok * l->k + (size_t)c * 64 + 16 * t;
            B[2 * t][tok] = w4_bf16_to_f32(xs[4 * q]);
            B[2 * t + 1][tok] = w4_bf16_to_f32(xs[4 * q + 1]);
            B[2 * t + 8][tok] = w4_bf16_to_f32(xs[4 * q + 2]);
            B[2 * t + 9][tok] = w4_bf16_to_f32(xs[4 * q + 3]);
          }
        }
        for (int r = 0; r < 16; r++)
          for (int tok = 0; tok < 16; tok++) {
            double acc = 0;
            for (int kc = 0; kc < 16; kc++) acc += (double)A[r][kc] * B[kc][tok];
            if (post) part[r][tok] += acc;
            else D[r][tok] += acc;
          }
      }
      if (post) /* one scale per row for the chunk: lane (g, any t), half r / 8 */
        for (int r = 0; r < 16; r++)
          for (int tok = 0; tok < 16; tok++) D[r][tok] += (double)sc[(r & 7) * 4][r >> 3] * part[r][tok];
    }
    for (int r = 0; r < 16; r++)
      for (int tok = 0; tok < m; tok++) y[(size_t)tok * l->n + w4_logical_row(l, rt * 16 + r)] = D[r][tok];
  }
}

static void reference(const w4_layout *l, const uint32_t *words, const uint16_t *scales,
                      const uint16_t *x, int m, double *y) {
  for (int tok = 0; tok < m; tok++)
    for (int n = 0; n < l->n; n++) {
      double acc = 0;
      for (int k = 0; k < l->k; k++)
        acc += (double)w4_dequant(l, words, scales, n, k) * w4_bf16_to_f32(x[(size_t)tok * l->k + k]);
      y[(size_t)tok * l->n + n] = acc;
    }
}

static void run(int n, int k, int group, int gate_up, int m) {
  w4_layout l = {n, k, group, gate_up};
  size_t nk = (size_t)n * k;
  float *w = malloc(nk * sizeof *w);
  for (size_t i = 0; i < nk; i++) w[i] = (float)((unit() * 2 - 1) * (0.02 + 0.01 * (double)(i % 5)));
  uint32_t *words = malloc(w4_words(&l) * sizeof *words);
  uint16_t *scales = malloc(w4_nscales(&l) * sizeof *scales);
  uint16_t *x = malloc((size_t)m * k * sizeof *x);
  for (size_t i = 0; i < (size_t)m * k; i++) {
    double v = 0.05 + 0.95 * unit();
    x[i] = w4_f32_to_bf16((float)(unit() < 0.5 ? -v : v));
  }
  CHECK_EQ_INT(w4_quantize_pack(&l, w, words, scales), 0);
  double *want = malloc((size_t)m * n * sizeof *want), *got = malloc((size_t)m * n * sizeof *got);
  reference(&l, words, scales, x, m, want);
  const int post_ok = group % 64 == 0;
  for (int post = 0; post <= post_ok; post++) {
    emulate(&l, words, scales, x, m, post, got);
    double maxref = 0, maxdiff = 0;
    for (size_t i = 0; i < (size_t)m * n; i++) {
      maxref = fmax(maxref, fabs(want[i]));
      maxdiff = fmax(maxdiff, fabs(got[i] - want[i]));
    }
    /* post: exact up to summation order; pre: bf16-rounded weights, about 2^-9 each. */
    double tol = post ? 1e-9 : 1e-2;
    if (!(maxdiff <= tol * maxref)) {
      check_failures++;
      fprintf(stderr, "n %d k %d group %d gate_up %d m %d post %d: max diff %.3g of max |ref| %.3g\n",
              n, k, group, gate_up, m, post, maxdiff, maxref);
    }
  }
  free(w), free(words), free(scales), free(x), free(want), free(got);
}

int main(void) {
  run(32, 128, 32, 0, 1);
  run(32, 128, 32, 0, 5);
  run(48, 256, 128, 0, 16);
  run(32, 256, 64, 0, 9);
  run(64, 128, 16, 1, 3);  /* gate_up interleave */
  run(64, 256, 128, 1, 8);
  CHECK_DONE();
}
