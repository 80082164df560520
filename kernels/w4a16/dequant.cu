/*
** dequant (for the dequant_cublas variant and the bf16 baselines): INT4 weights to a
** row-major bf16 matrix in logical row order, which cuBLASLt then multiplies. One thread per
** lane-word of a tile: it reads 16 bytes (rows g and g+8, 16 k) and writes 2 x 32 bytes.
*/
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_device.cuh"
#include "w4a16/w4a16_internal.h"

namespace {

__global__ void __launch_bounds__(256) dequant_kernel(const uint4 *__restrict__ w,
                                                      const uint32_t *__restrict__ sc,
                                                      w4_layout l, int gshift,
                                                      __nv_bfloat16 *__restrict__ out) {
  const size_t chunks = (size_t)(l.k >> 6);
  const size_t total = (size_t)(l.n >> 4) * chunks * 32;
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int lane = (int)(i & 31), g = lane >> 2, t = lane & 3;
  const size_t tile = i >> 5, rt = tile / chunks, c = tile % chunks;
  const uint4 v = w4::ld_stream(w + i);
  const int k0 = (int)c * 64 + 16 * t;
  const uint32_t s = __ldg(sc + ((rt * (size_t)(l.k >> gshift) + (size_t)(k0 >> gshift)) << 3) + g);
  const uint32_t s_g = __byte_perm(s, s, 0x1010), s_g8 = __byte_perm(s, s, 0x3232);
  const uint32_t ww[4] = {v.x, v.y, v.z, v.w};
  uint32_t row0[8], row1[8]; /* 16 bf16 of each row, k order */
#pragma unroll
  for (int q = 0; q < 4; q++) {
    uint32_t a[4];
    w4::unpack_word(ww[q], a);
    row0[2 * q] = w4::bf2_mul(a[0], s_g);      /* k 4q, 4q+1 */
    row0[2 * q + 1] = w4::bf2_mul(a[2], s_g);  /* k 4q+2, 4q+3 */
    row1[2 * q] = w4::bf2_mul(a[1], s_g8);
    row1[2 * q + 1] = w4::bf2_mul(a[3], s_g8);
  }
  const int r0 = w4_logical_row(&l, (int)rt * 16 + g), r1 = w4_logical_row(&l, (int)rt * 16 + g + 8);
  uint4 *o0 = reinterpret_cast<uint4 *>(out + (size_t)r0 * l.k + k0);
  uint4 *o1 = reinterpret_cast<uint4 *>(out + (size_t)r1 * l.k + k0);
  o0[0] = make_uint4(row0[0], row0[1], row0[2], row0[3]);
  o0[1] = make_uint4(row0[4], row0[5], row0[6], row0[7]);
  o1[0] = make_uint4(row1[0], row1[1], row1[2], row1[3]);
  o1[1] = make_uint4(row1[4], row1[5], row1[6], row1[7]);
}

} /* namespace */

extern "C" cudaError_t w4a16_dequant(const uint32_t *w, const uint16_t *scales, const w4_layout *l,
                                     void *out, cudaStream_t s) {
  if (!w || !scales || !out || w4_layout_check(l)) return cudaErrorInvalidValue;
  const size_t threads = w4_words(l) / 4;
  const unsigned blocks = (unsigned)((threads + 255) / 256);
  dequant_kernel<<<blocks, 256, 0, s>>>(reinterpret_cast<const uint4 *>(w),
                                        reinterpret_cast<const uint32_t *>(scales), *l,
                                        w4_log2(l->group), static_cast<__nv_bfloat16 *>(out));
  return cudaGetLastError();
}

cudaError_t w4a16_dequant_attrs(struct cudaFuncAttributes *out) {
  return cudaFuncGetAttributes(out, dequant_kernel);
}
