/*
** Fill and verify kernels for nccl_burst (see nccl_check.h). Values are computed in float,
** where the small integers involved are exact, and stored in the element type.
*/
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include "nccl/nccl_check.h"
#include "runners/nccl_types.h"

namespace {

__device__ __forceinline__ float pattern(size_t i, int rank, int m) {
  return (float)((5u * (unsigned)(i % (size_t)m) + 3u * (unsigned)rank + 1u) % (unsigned)m);
}

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
__global__ void fill_kernel(T *buf, size_t count, int rank, int m) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = from_float<T>(pattern(i, rank, m));
}

/* What element j of rank `rank`'s output must be. */
__device__ float expected(int coll, size_t j, size_t count, int rank, int nranks, int root, int m) {
  float sum = 0;
  switch (coll) {
  case XP_COLL_ALLREDUCE:
    for (int p = 0; p < nranks; p++) sum += pattern(j, p, m);
    return sum;
  case XP_COLL_BROADCAST:
    return pattern(j, root, m);
  case XP_COLL_ALLGATHER:
    return pattern(j % count, (int)(j / count), m);
  case XP_COLL_REDUCESCATTER:
    for (int p = 0; p < nranks; p++) sum += pattern((size_t)rank * count + j, p, m);
    return sum;
  case XP_COLL_ALLTOALL:
    return pattern((size_t)rank * count + j % count, (int)(j / count), m);
  }
  return -1;
}

template <typename T>
__global__ void verify_kernel(const T *out, int coll, size_t out_count, size_t count, int rank,
                              int nranks, int root, int m, unsigned long long *wrong) {
  unsigned long long bad = 0;
  for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < out_count; j += (size_t)gridDim.x * blockDim.x)
    bad += to_float<T>(out[j]) != expected(coll, j, count, rank, nranks, root, m);
  if (bad) atomicAdd(wrong, bad);
}

unsigned blocks_for(size_t n) {
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

template <typename T> cudaError_t fill_as(void *buf, size_t count, int rank, int m, cudaStream_t s) {
  fill_kernel<T><<<blocks_for(count), 256, 0, s>>>((T *)buf, count, rank, m);
  return cudaGetLastError();
}

template <typename T>
cudaError_t verify_as(const void *out, int coll, size_t out_count, size_t count, int rank, int nranks,
                      int root, int m, unsigned long long *wrong, cudaStream_t s) {
  verify_kernel<T><<<blocks_for(out_count), 256, 0, s>>>((const T *)out, coll, out_count, count, rank,
                                                         nranks, root, m, wrong);
  return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t xp_nccl_fill(void *buf, int dtype, size_t count, int rank, int modulus,
                                    cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  switch (dtype) {
  case XP_DT_BF16: return fill_as<__nv_bfloat16>(buf, count, rank, modulus, s);
  case XP_DT_FP16: return fill_as<__half>(buf, count, rank, modulus, s);
  case XP_DT_FP32: return fill_as<float>(buf, count, rank, modulus, s);
  case XP_DT_FP8_E4M3: return fill_as<__nv_fp8_e4m3>(buf, count, rank, modulus, s);
  case XP_DT_FP8_E5M2: return fill_as<__nv_fp8_e5m2>(buf, count, rank, modulus, s);
  }
  return cudaErrorInvalidValue;
}

extern "C" cudaError_t xp_nccl_verify(const void *out, int dtype, int coll, size_t out_count, size_t count,
                                      int rank, int nranks, int root, int modulus,
                                      unsigned long long *d_wrong, cudaStream_t s) {
  if (out_count == 0) return cudaSuccess;
  switch (dtype) {
  case XP_DT_BF16: return verify_as<__nv_bfloat16>(out, coll, out_count, count, rank, nranks, root, modulus, d_wrong, s);
  case XP_DT_FP16: return verify_as<__half>(out, coll, out_count, count, rank, nranks, root, modulus, d_wrong, s);
  case XP_DT_FP32: return verify_as<float>(out, coll, out_count, count, rank, nranks, root, modulus, d_wrong, s);
  case XP_DT_FP8_E4M3: return verify_as<__nv_fp8_e4m3>(out, coll, out_count, count, rank, nranks, root, modulus, d_wrong, s);
  case XP_DT_FP8_E5M2: return verify_as<__nv_fp8_e5m2>(out, coll, out_count, count, rank, nranks, root, modulus, d_wrong, s);
  }
  return cudaErrorInvalidValue;
}
