/*
** Copy, fill, reference GEMM and comparison kernels (declared in ceilings.h).
**
** The copy kernel is how the bandwidth ceiling is measured: cudaMemcpyAsync inside a graph
** reaches only about 60% of what the chip moves (../shared/anchors.md), below what cuBLAS
** itself reads, so a ceiling from it would report GEMMs above 100%.
*/
#include <cmath>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include "ceilings/block_scales.h"
#include "ceilings/ceilings.h"

/* Four independent 16-byte loads per thread before the stores, so each thread keeps four
** requests in flight; consecutive threads touch consecutive words (coalesced). The loads skip
** L1 and the stores are marked streaming: nothing copied is read again. */
__device__ __forceinline__ int4 load_stream(const int4 *p) {
  int4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.s32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ void store_stream(int4 *p, int4 v) {
  asm volatile("st.global.cs.v4.s32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

__global__ void copy16_kernel(int4 *__restrict__ dst, const int4 *__restrict__ src, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = load_stream(src + i), b = load_stream(src + i + stride);
    int4 c = load_stream(src + i + 2 * stride), d = load_stream(src + i + 3 * stride);
    store_stream(dst + i, a);
    store_stream(dst + i + stride, b);
    store_stream(dst + i + 2 * stride, c);
    store_stream(dst + i + 3 * stride, d);
  }
  for (; i < n; i += stride) store_stream(dst + i, load_stream(src + i));
}

/* Blocks per SM of the copy. Not the occupancy limit: on an H200 (CUDA 13.0, driver 580) a
** 1 GiB copy measured 4.00-4.02 TB/s with two 256-thread blocks per SM, 3.93 TB/s with the
** eight that fit, 3.52 TB/s with one; 512- and 1024-thread blocks and eight loads in flight
** per thread did not beat it (a read-only kernel reached 4.5 TB/s). */
#define XP_COPY16_BLOCKS_PER_SM 2

/* Blocks of XP_COPY16_THREADS threads for `kernel` on device dev: up to `per_sm_cap` per SM
** on every SM, never more than are resident. */
template <class K>
static cudaError_t grid_for(K kernel, int per_sm_cap, int dev, int *blocks) {
  int sms = 0, per_sm = 0;
  cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, XP_COPY16_THREADS, 0);
  if (per_sm > per_sm_cap) per_sm = per_sm_cap;
  *blocks = sms * (per_sm > 0 ? per_sm : 1);
  return e;
}

extern "C" cudaError_t xp_copy16_grid(int dev, int *blocks) {
  return grid_for(copy16_kernel, XP_COPY16_BLOCKS_PER_SM, dev, blocks);
}

extern "C" cudaError_t xp_copy16(void *dst, const void *src, size_t bytes, int blocks,
                                 cudaStream_t s) {
  copy16_kernel<<<blocks, XP_COPY16_THREADS, 0, s>>>((int4 *)dst, (const int4 *)src, bytes / 16);
  return cudaGetLastError();
}

__global__ void read16_kernel(const int4 *__restrict__ src, size_t n, unsigned *__restrict__ sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = load_stream(src + i), b = load_stream(src + i + stride);
    int4 c = load_stream(src + i + 2 * stride), d = load_stream(src + i + 3 * stride);
    acc ^= (unsigned)(a.x ^ a.w ^ b.x ^ b.w ^ c.x ^ c.w ^ d.x ^ d.w);
  }
  for (; i < n; i += stride) acc ^= (unsigned)load_stream(src + i).y;
  /* The compiler cannot know acc, so every load stays; the store almost never happens, so
  ** the floor carries no writes (an atomic per warp here cost ~2 us at the tail). */
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;
}

/* Blocks per SM of the read: on an H200 (CUDA 13.0) a cold 22.4 MB read took 5.3 us with
** four 256-thread blocks per SM and 6.6 us with two. */
#define XP_READ16_BLOCKS_PER_SM 4

extern "C" cudaError_t xp_read16_grid(int dev, int *blocks) {
  return grid_for(read16_kernel, XP_READ16_BLOCKS_PER_SM, dev, blocks);
}

extern "C" cudaError_t xp_read16(const void *src, size_t bytes, int blocks, unsigned *sink, cudaStream_t s) {
  read16_kernel<<<blocks, XP_COPY16_THREADS, 0, s>>>((const int4 *)src, bytes / 16, sink);
  return cudaGetLastError();
}

__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(500);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

extern "C" cudaError_t xp_spin_ns(unsigned long long ns, cudaStream_t s) {
  spin_kernel<<<1, 1, 0, s>>>(ns);
  return cudaGetLastError();
}

/* splitmix64: a good 64-bit mix of (seed, index), so fills need no state. */
__device__ __forceinline__ float uniform_pm1(uint64_t seed, size_t i) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f; /* 24 random bits -> [-1, 1) */
}

__global__ void fill_kernel(void *p, size_t count, int dtype, uint64_t seed) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    float v = uniform_pm1(seed, i);
    if (dtype == XP_KDT_FP8_E4M3)
      ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(v);
    else
      ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
  }
}

extern "C" cudaError_t xp_fill_uniform(void *p, size_t count, int dtype, uint64_t seed,
                                       cudaStream_t s) {
  size_t blocks = (count + 255) / 256;
  fill_kernel<<<(unsigned)(blocks < 65536 ? (blocks ? blocks : 1) : 65536), 256, 0, s>>>(
      p, count, dtype, seed);
  return cudaGetLastError();
}

__global__ void fill_scales_kernel(float *p, size_t count, uint64_t seed) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    p[i] = 1.25f + 0.75f * uniform_pm1(seed, i);
}

extern "C" cudaError_t xp_fill_scales(float *p, size_t count, uint64_t seed, cudaStream_t s) {
  size_t blocks = (count + 255) / 256;
  fill_scales_kernel<<<(unsigned)(blocks < 65536 ? (blocks ? blocks : 1) : 65536), 256, 0, s>>>(
      p, count, seed);
  return cudaGetLastError();
}

__device__ __forceinline__ float load_elem(const void *p, size_t i, int dtype) {
  if (dtype == XP_KDT_FP8_E4M3) return float(((const __nv_fp8_e4m3 *)p)[i]);
  return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
}

/* Plain shared-memory tiled product in float32: slow next to cuBLAS, but simple enough to
** trust, which is all a reference needs. */
#define REF_TILE 16
__global__ void ref_gemm_kernel(const void *A, const void *W, float *ref, int m, int n, int k,
                                int dtype, float scale) {
  __shared__ float as[REF_TILE][REF_TILE + 1], ws[REF_TILE][REF_TILE + 1];
  int b = blockIdx.z;
  int row = blockIdx.y * REF_TILE + threadIdx.y; /* of D: token */
  int col = blockIdx.x * REF_TILE + threadIdx.x; /* of D: output feature */
  size_t abase = (size_t)b * m * k, wbase = (size_t)b * n * k;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += REF_TILE) {
    int ka = k0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] =
        row < m && ka < k ? load_elem(A, abase + (size_t)row * k + ka, dtype) : 0.0f;
    int wrow = blockIdx.x * REF_TILE + threadIdx.y;
    ws[threadIdx.y][threadIdx.x] =
        wrow < n && ka < k ? load_elem(W, wbase + (size_t)wrow * k + ka, dtype) : 0.0f;
    __syncthreads();
    for (int j = 0; j < REF_TILE; j++) acc += as[threadIdx.y][j] * ws[threadIdx.x][j];
    __syncthreads();
  }
  if (row < m && col < n) ref[(size_t)b * m * n + (size_t)row * n + col] = acc * scale;
}

extern "C" cudaError_t xp_ref_gemm(const void *A, const void *W, float *ref, int m, int n, int k,
                                   int batch, int dtype, float scale, cudaStream_t s) {
  dim3 grid((n + REF_TILE - 1) / REF_TILE, (m + REF_TILE - 1) / REF_TILE, batch);
  ref_gemm_kernel<<<grid, dim3(REF_TILE, REF_TILE), 0, s>>>(A, W, ref, m, n, k, dtype, scale);
  return cudaGetLastError();
}

/* The tiled product above with block scales: a tile of REF_TILE columns of K lies in one K
** group (REF_TILE divides XP_BLOCK_SCALE), so each tile's partial sum takes one scale of A's
** token and one of W's block. */
__global__ void ref_gemm_block_kernel(const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *W,
                                      const float *sa, const float *sw, float *ref, int m,
                                      int n, int k, int64_t a_ld, int64_t w_ld, int transposed) {
  __shared__ float as[REF_TILE][REF_TILE + 1], ws[REF_TILE][REF_TILE + 1];
  int row = blockIdx.y * REF_TILE + threadIdx.y; /* of D: token */
  int col = blockIdx.x * REF_TILE + threadIdx.x; /* of D: output feature */
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += REF_TILE) {
    int ka = k0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] = row < m && ka < k ? float(A[(size_t)row * k + ka]) : 0.0f;
    int wrow = blockIdx.x * REF_TILE + threadIdx.y;
    ws[threadIdx.y][threadIdx.x] = wrow < n && ka < k ? float(W[(size_t)wrow * k + ka]) : 0.0f;
    __syncthreads();
    float part = 0.0f;
    for (int j = 0; j < REF_TILE; j++) part += as[threadIdx.y][j] * ws[threadIdx.x][j];
    if (row < m && col < n)
      acc += part * sa[xp_block_a_index(a_ld, row, k0)] * sw[xp_block_w_index(w_ld, col, k0)];
    __syncthreads();
  }
  if (row < m && col < n) ref[transposed ? (size_t)col * m + row : (size_t)row * n + col] = acc;
}

extern "C" cudaError_t xp_ref_gemm_block(const void *A, const void *W, const float *sa,
                                         const float *sw, float *ref, int m, int n, int k,
                                         int transposed, cudaStream_t s) {
  static_assert(XP_BLOCK_SCALE % REF_TILE == 0, "a reference tile must lie in one K group");
  const xp_block_layout l = xp_block_layout_of(m, n, k);
  dim3 grid((n + REF_TILE - 1) / REF_TILE, (m + REF_TILE - 1) / REF_TILE, 1);
  ref_gemm_block_kernel<<<grid, dim3(REF_TILE, REF_TILE), 0, s>>>(
      (const __nv_fp8_e4m3 *)A, (const __nv_fp8_e4m3 *)W, sa, sw, ref, m, n, k, l.a_ld, l.w_ld, transposed);
  return cudaGetLastError();
}

struct check_acc {
  double sumsq;
  unsigned long long bad;
  unsigned int max_err_bits; /* a non-negative float's bits order like the float */
};

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void sumsq_kernel(const float *ref, size_t count, check_acc *acc) {
  double v = 0.0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    v += (double)ref[i] * ref[i];
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) atomicAdd(&acc->sumsq, v);
}

__global__ void compare_kernel(const __nv_bfloat16 *d, const float *ref, size_t count,
                               float rtol, float atol, check_acc *acc) {
  unsigned long long bad = 0;
  float worst = 0.0f;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    float r = ref[i], err = fabsf(__bfloat162float(d[i]) - r);
    if (!(err <= rtol * fabsf(r) + atol)) bad++; /* NaN counts as wrong */
    worst = fmaxf(worst, err != err ? INFINITY : err);
  }
  for (int o = 16; o > 0; o >>= 1) {
    bad += __shfl_down_sync(0xffffffffu, bad, o);
    worst = fmaxf(worst, __shfl_down_sync(0xffffffffu, worst, o));
  }
  if ((threadIdx.x & 31) == 0) {
    if (bad) atomicAdd(&acc->bad, bad);
    atomicMax(&acc->max_err_bits, __float_as_uint(worst));
  }
}

extern "C" cudaError_t xp_check_gemm(const void *D, const float *ref, size_t count, double rtol,
                                     double atol_rms, xp_gemm_check *out, cudaStream_t s) {
  check_acc *acc = NULL, host = {0, 0, 0};
  unsigned blocks = (unsigned)((count + 255) / 256 < 4096 ? (count + 255) / 256 : 4096);
  if (blocks == 0) blocks = 1;
  cudaError_t e = cudaMalloc(&acc, sizeof *acc);
  if (e == cudaSuccess) e = cudaMemsetAsync(acc, 0, sizeof *acc, s);
  if (e == cudaSuccess) {
    sumsq_kernel<<<blocks, 256, 0, s>>>(ref, count, acc);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&host, acc, sizeof host, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  double rms = count ? sqrt(host.sumsq / (double)count) : 0.0;
  if (e == cudaSuccess) {
    compare_kernel<<<blocks, 256, 0, s>>>((const __nv_bfloat16 *)D, ref, count, (float)rtol,
                                          (float)(atol_rms * rms), acc);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&host, acc, sizeof host, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (acc) cudaFree(acc);
  out->count = count;
  out->bad = host.bad;
  out->ref_rms = rms;
  float worst;
  memcpy(&worst, &host.max_err_bits, sizeof worst);
  out->max_abs_err = worst;
  return e;
}
