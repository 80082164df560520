/*
** The INT4 weight layout of the w4a16 kernels, and the host helpers that quantize and pack
** float weights into it. Plain C17 and CUDA C++ alike: the float32 reference kernel decodes
** weights with the same w4_locate() that the host packer uses, so the reference never shares
** the fused kernels' fragment arithmetic, and a unit test checks the mapping on the host.
**
** Logical weights W[n][k] (n < N rows, k < K), symmetric INT4: q in [-8, 7], one bf16 scale
** per row and group of G consecutive k, w = q * scale. A nibble stores q + 8.
**
** Packed order ("m16k64"): the matrix is cut into tiles of 16 rows by 64 k, stored tile row
** by tile row (all K/64 tiles of rows 0..15, then rows 16..31, ...). A tile is 512 bytes:
** 32 lanes x 16 bytes, so one warp-wide 16-byte load reads one tile, fully coalesced. Lane L
** (g = L / 4, t = L % 4) holds rows g and g + 8 of the tile and k = 16t .. 16t + 15 of it,
** as four 32-bit words; word s holds k = 16t + 4s + j (j = 0..3) of both rows, nibble at
**     bit 4 * (h + 2 * (j / 2)) + 16 * (j % 2)      (h = 0: row g, h = 1: row g + 8)
** which is what a lop3 with mask 0x000F000F extracts, pair by pair, into the bf16x2 A
** fragments of mma.m16n8k16 (rows g / g + 8, k pairs 2t, 2t+1 and 2t+8, 2t+9 once the
** 16 k of a step are renamed; the activations are read in the same renamed order).
**
** Scales: bf16, [N/16][K/G][8][2]: the two scales of a lane's rows g and g + 8 for one
** group are adjacent, one 32-bit load. Requires N % 16 == 0, K % 64 == 0, G a power of two
** with 16 <= G and K % G == 0 (a lane's 16 k then never straddle two groups).
**
** gate_up: an MoE expert's gate and up projections stacked as W13 = [gate; up] (2I rows).
** With gate_up set, each 16-row tile holds gate rows 8i..8i+7 as its rows 0..7 and the
** matching up rows as 8..15, so the thread that accumulates gate row i also holds up row
** i and can apply SiLU(gate) * up in registers.
*/
#ifndef XP_W4A16_LAYOUT_H
#define XP_W4A16_LAYOUT_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define W4_HD static inline __host__ __device__
#else
#define W4_HD static inline
#endif

typedef struct w4_layout {
  int n, k;    /* logical rows and columns (K) */
  int group;   /* quantization group along K */
  int gate_up; /* rows are [gate; up]: interleaved 8 + 8 per tile (see above) */
} w4_layout;

/* NULL when the layout can hold an n x k matrix with this group, else why not. */
W4_HD const char *w4_layout_check(const w4_layout *l) {
  if (l->n <= 0 || l->k <= 0) return "N and K must be positive";
  if (l->n % 16) return "N must be a multiple of 16 (16-row tiles)";
  if (l->k % 64) return "K must be a multiple of 64 (64-wide tiles)";
  if (l->group < 16 || (l->group & (l->group - 1))) return "group size must be a power of two >= 16";
  if (l->k % l->group) return "K must be a multiple of the group size";
  return NULL;
}

W4_HD int w4_log2(int v) {
  int s = 0;
  while ((1 << s) < v) s++;
  return s;
}

W4_HD size_t w4_words(const w4_layout *l) { return (size_t)l->n * (size_t)l->k / 8; }
W4_HD size_t w4_nscales(const w4_layout *l) { return (size_t)l->n * (size_t)(l->k / l->group); }

/* Packed row (position in tile order) of logical row n, and back. */
W4_HD int w4_packed_row(const w4_layout *l, int n) {
  if (!l->gate_up) return n;
  int half = l->n / 2, h = n >= half, i = n - h * half;
  return (i / 8) * 16 + h * 8 + i % 8;
}
W4_HD int w4_logical_row(const w4_layout *l, int r) {
  if (!l->gate_up) return r;
  int half = l->n / 2, h = (r >> 3) & 1;
  return h * half + (r >> 4) * 8 + (r & 7);
}

/* Word and bit offset of the nibble of W[n][k]. */
W4_HD void w4_locate(const w4_layout *l, int n, int k, size_t *word, int *shift) {
  int r = w4_packed_row(l, n);
  int rt = r >> 4, g = r & 7, h = (r >> 3) & 1;
  int c = k >> 6, kk = k & 63, t = kk >> 4, s = (kk >> 2) & 3, j = kk & 3;
  *word = ((size_t)rt * (size_t)(l->k >> 6) + (size_t)c) * 128 + (size_t)((g * 4 + t) * 4 + s);
  *shift = 4 * (h + 2 * (j >> 1)) + 16 * (j & 1);
}

/* Index (in bf16 elements) of the scale of W[n][k]. */
W4_HD size_t w4_scale_index(const w4_layout *l, int n, int k) {
  int r = w4_packed_row(l, n);
  int rt = r >> 4, g = r & 7, h = (r >> 3) & 1;
  size_t ng = (size_t)(l->k / l->group);
  return (((size_t)rt * ng + (size_t)(k / l->group)) * 8 + (size_t)g) * 2 + (size_t)h;
}

/* bf16 <-> float, round to nearest even (NaN stays NaN). */
W4_HD uint16_t w4_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}
W4_HD float w4_bf16_to_f32(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* q in [-8, 7] of W[n][k]. */
W4_HD int w4_get_q(const w4_layout *l, const uint32_t *words, int n, int k) {
  size_t w;
  int sh;
  w4_locate(l, n, k, &w, &sh);
  return (int)((words[w] >> sh) & 0xfu) - 8;
}

/* The weight as the kernels see it: q * scale, in float (not rounded to bf16). */
W4_HD float w4_dequant(const w4_layout *l, const uint32_t *words, const uint16_t *scales, int n,
                       int k) {
  return (float)w4_get_q(l, words, n, k) * w4_bf16_to_f32(scales[w4_scale_index(l, n, k)]);
}

#ifndef __CUDA_ARCH__
/* Symmetric quantization of one row group: scale = max|w| / 7 rounded to bf16 (1 for an
** all-zero group, which then stores zeros), q = round(w / scale) clamped to [-8, 7]. */
static inline uint16_t w4_group_scale(const float *w, int count) {
  float amax = 0;
  for (int i = 0; i < count; i++)
    if (fabsf(w[i]) > amax) amax = fabsf(w[i]);
  return w4_f32_to_bf16(amax > 0 ? amax / 7.0f : 1.0f);
}

static inline int w4_quantize_value(float w, float scale) {
  float q = rintf(w / scale);
  if (q < -8) q = -8;
  if (q > 7) q = 7;
  return (int)q;
}

/* Quantize row-major float W[n][k] and pack it: words (w4_words) and scales (w4_nscales)
** are written in full. Returns 0, or -1 when the layout is invalid (w4_layout_check). */
static inline int w4_quantize_pack(const w4_layout *l, const float *w, uint32_t *words,
                                   uint16_t *scales) {
  if (w4_layout_check(l)) return -1;
  memset(words, 0, w4_words(l) * sizeof *words);
  for (int n = 0; n < l->n; n++) {
    const float *row = w + (size_t)n * (size_t)l->k;
    for (int k0 = 0; k0 < l->k; k0 += l->group) {
      uint16_t sb = w4_group_scale(row + k0, l->group);
      float sf = w4_bf16_to_f32(sb);
      scales[w4_scale_index(l, n, k0)] = sb;
      for (int k = k0; k < k0 + l->group; k++) {
        size_t wi;
        int sh;
        w4_locate(l, n, k, &wi, &sh);
        words[wi] |= (uint32_t)(w4_quantize_value(row[k], sf) + 8) << sh;
      }
    }
  }
  return 0;
}
#endif
#endif
