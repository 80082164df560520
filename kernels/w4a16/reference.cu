/*
** The float32 reference of the w4a16 family and its test data. The reference decodes each
** weight through w4_locate / w4_scale_index (the host packer's mapping, unit-tested on the
** host), never through the fused kernels' fragment arithmetic, and sums in fp32 in k order:
** slow and plain on purpose, one thread per output.
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"

namespace {

__global__ void ref_gemm_kernel(const uint32_t *__restrict__ w, const uint16_t *__restrict__ sc,
                                w4_layout l, size_t expert_words, size_t expert_scales,
                                const int *__restrict__ expert, int experts,
                                const float *__restrict__ x, float *__restrict__ y) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y;
  if (n >= l.n) return;
  const int e = expert ? expert[v] : 0;
  float acc = 0.f;
  if (e >= 0 && e < experts) {
    const uint32_t *we = w + (size_t)e * expert_words;
    const uint16_t *se = sc + (size_t)e * expert_scales;
    const float *xv = x + (size_t)v * l.k;
    for (int k = 0; k < l.k; k++) acc = fmaf(w4_dequant(&l, we, se, n, k), xv[k], acc);
  }
  y[(size_t)v * l.n + n] = acc;
}

__global__ void silu_mul_kernel(const float *__restrict__ gu, int nvec, int inter, float *__restrict__ h) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)nvec * inter) return;
  const size_t v = i / inter, j = i % inter;
  const float g = gu[v * 2 * inter + j], u = gu[v * 2 * inter + inter + j];
  h[i] = g / (1.f + expf(-g)) * u;
}

__global__ void combine_kernel(const float *__restrict__ d, const int *__restrict__ ids,
                               const float *__restrict__ wt, int tokens, int topk, int experts,
                               int n, float *__restrict__ y) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)tokens * n) return;
  const size_t t = i / n, c = i % n;
  float acc = 0.f;
  for (int k = 0; k < topk; k++) {
    const int p = (int)t * topk + k, e = ids[p];
    if (e >= 0 && e < experts) acc = fmaf(wt[p], d[(size_t)p * n + c], acc);
  }
  y[i] = acc;
}

__global__ void bf16_to_f32_kernel(const __nv_bfloat16 *__restrict__ in, float *__restrict__ out, size_t count) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __bfloat162float(in[i]);
}

/* splitmix64 of (seed, index): the same data for the same seed on any device. */
__device__ __forceinline__ uint64_t mix(uint64_t seed, size_t i) {
  uint64_t z = seed * 0x2545F4914F6CDD1DULL + (uint64_t)i + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float unit(uint64_t r) { return (float)(r >> 40) * (1.0f / 16777216.0f); }

__global__ void fill_words_kernel(uint32_t *w, size_t count, uint64_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    w[i] = (uint32_t)mix(seed, i);
}

__global__ void fill_bf16_kernel(uint16_t *p, size_t count, float lo, float hi, int signed_values, uint64_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    const uint64_t r = mix(seed, i);
    float v = lo + (hi - lo) * unit(r);
    if (signed_values && (r & 1)) v = -v;
    p[i] = w4_f32_to_bf16(v);
  }
}

unsigned grid_for(size_t count) {
  size_t b = (count + 255) / 256;
  return (unsigned)(b < 65536 ? (b ? b : 1) : 65536);
}

} /* namespace */

extern "C" cudaError_t w4a16_ref_gemm(const uint32_t *w, const uint16_t *scales, const w4_layout *l,
                                      size_t expert_words, size_t expert_scales, const int *expert,
                                      int experts, const float *x, int nvec, float *y, cudaStream_t s) {
  if (!w || !scales || !x || !y || w4_layout_check(l) || nvec < 1 || nvec > 65535)
    return cudaErrorInvalidValue;
  ref_gemm_kernel<<<dim3((l->n + 127) / 128, nvec), 128, 0, s>>>(w, scales, *l, expert_words, expert_scales,
                                                                  expert, experts, x, y);
  return cudaGetLastError();
}

extern "C" cudaError_t w4a16_ref_silu_mul(const float *gu, int nvec, int inter, float *h, cudaStream_t s) {
  const size_t n = (size_t)nvec * inter;
  if (!gu || !h || n == 0) return cudaErrorInvalidValue;
  silu_mul_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(gu, nvec, inter, h);
  return cudaGetLastError();
}

extern "C" cudaError_t w4a16_ref_combine(const float *d, const int *ids, const float *wt, int tokens,
                                         int topk, int experts, int n, float *y, cudaStream_t s) {
  const size_t total = (size_t)tokens * n;
  if (!d || !ids || !wt || !y || total == 0 || topk < 1) return cudaErrorInvalidValue;
  combine_kernel<<<(unsigned)((total + 255) / 256), 256, 0, s>>>(d, ids, wt, tokens, topk, experts, n, y);
  return cudaGetLastError();
}

extern "C" cudaError_t w4a16_bf16_to_f32(const void *in, float *out, size_t count, cudaStream_t s) {
  if (!in || !out) return cudaErrorInvalidValue;
  bf16_to_f32_kernel<<<grid_for(count), 256, 0, s>>>(static_cast<const __nv_bfloat16 *>(in), out, count);
  return cudaGetLastError();
}

extern "C" cudaError_t w4a16_fill_words(uint32_t *w, size_t count, uint64_t seed, cudaStream_t s) {
  if (!w) return cudaErrorInvalidValue;
  fill_words_kernel<<<grid_for(count), 256, 0, s>>>(w, count, seed);
  return cudaGetLastError();
}

extern "C" cudaError_t w4a16_fill_scales(uint16_t *p, size_t count, float lo, float hi, uint64_t seed,
                                         cudaStream_t s) {
  if (!p || !(lo > 0) || !(hi >= lo)) return cudaErrorInvalidValue;
  fill_bf16_kernel<<<grid_for(count), 256, 0, s>>>(p, count, lo, hi, 0, seed);
  return cudaGetLastError();
}

extern "C" cudaError_t w4a16_fill_bf16(void *p, size_t count, float lo, float hi, uint64_t seed,
                                       cudaStream_t s) {
  if (!p || !(lo > 0) || !(hi >= lo)) return cudaErrorInvalidValue;
  fill_bf16_kernel<<<grid_for(count), 256, 0, s>>>(static_cast<uint16_t *>(p), count, lo, hi, 1, seed);
  return cudaGetLastError();
}
