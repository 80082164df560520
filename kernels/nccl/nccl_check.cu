/*
** Fill and verify kernels for nccl_burst (see nccl_check.h). The values are the integers of
** runners/nccl_pattern.h, exact in float and in the element type: converted through float.
*/
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include "nccl/nccl_check.h"

namespace {

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <> __device__ __forceinline__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}
template <> __device__ __forceinline__ __nv_fp8_e5m2 from_float<__nv_fp8_e5m2>(float v) {
  return __nv_fp8_e5m2(v);
}

template <typename T> __device__ __forceinline__ float to_float(T v) { return (float)v; }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename T>
__global__ void fill_kernel(T *buf, size_t count, int rank, xp_nccl_pattern p) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = from_float<T>((float)xp_nccl_pattern_input(&p, i, rank));
}

template <typename T>
__global__ void verify_kernel(const T *out, size_t out_count, int rank, xp_nccl_pattern p,
                              unsigned long long *wrong) {
  unsigned long long bad = 0;
  for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < out_count; j += (size_t)gridDim.x * blockDim.x)
    bad += to_float<T>(out[j]) != (float)xp_nccl_pattern_output(&p, j, rank);
  if (bad) atomicAdd(wrong, bad);
}

unsigned blocks_for(size_t n) {
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

template <typename T>
cudaError_t fill_as(void *buf, const xp_nccl_pattern *p, size_t count, int rank, cudaStream_t s) {
  fill_kernel<T><<<blocks_for(count), 256, 0, s>>>((T *)buf, count, rank, *p);
  return cudaGetLastError();
}

template <typename T>
cudaError_t verify_as(const void *out, const xp_nccl_pattern *p, size_t out_count, int rank,
                      unsigned long long *wrong, cudaStream_t s) {
  verify_kernel<T><<<blocks_for(out_count), 256, 0, s>>>((const T *)out, out_count, rank, *p, wrong);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t xp_nccl_fill(void *buf, int dtype, const xp_nccl_pattern *pat, size_t count,
                                    int rank, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  switch (dtype) {
  case XP_DT_BF16: return fill_as<__nv_bfloat16>(buf, pat, count, rank, s);
  case XP_DT_FP16: return fill_as<__half>(buf, pat, count, rank, s);
  case XP_DT_FP32: return fill_as<float>(buf, pat, count, rank, s);
  case XP_DT_FP8_E4M3: return fill_as<__nv_fp8_e4m3>(buf, pat, count, rank, s);
  case XP_DT_FP8_E5M2: return fill_as<__nv_fp8_e5m2>(buf, pat, count, rank, s);
  }
  return cudaErrorInvalidValue;
}

extern "C" cudaError_t xp_nccl_verify(const void *out, int dtype, const xp_nccl_pattern *pat,
                                      size_t out_count, int rank, unsigned long long *d_wrong,
                                      cudaStream_t s) {
  if (out_count == 0) return cudaSuccess;
  switch (dtype) {
  case XP_DT_BF16: return verify_as<__nv_bfloat16>(out, pat, out_count, rank, d_wrong, s);
  case XP_DT_FP16: return verify_as<__half>(out, pat, out_count, rank, d_wrong, s);
  case XP_DT_FP32: return verify_as<float>(out, pat, out_count, rank, d_wrong, s);
  case XP_DT_FP8_E4M3: return verify_as<__nv_fp8_e4m3>(out, pat, out_count, rank, d_wrong, s);
  case XP_DT_FP8_E5M2: return verify_as<__nv_fp8_e5m2>(out, pat, out_count, rank, d_wrong, s);
  }
  return cudaErrorInvalidValue;
}
