/*
** nccl_burst's verification on the GPU, like nccl-tests' #wrong: every rank's input is a
** pattern of small integers, exact in every type, so the result of any collective in any
** reduction order is known exactly and compared element by element. The pattern itself, and
** why it catches what it does, is runners/nccl_pattern.h, shared with the host's unit test.
*/
#ifndef XP_NCCL_CHECK_H
#define XP_NCCL_CHECK_H
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "runners/nccl_pattern.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Write input elements 0..count-1 of `rank` to buf. dtype: enum xp_nccl_dtype. */
cudaError_t xp_nccl_fill(void *buf, int dtype, const xp_nccl_pattern *pat, size_t count, int rank,
                         cudaStream_t s);

/* Compare `out` (out_count elements) with what the collective of `pat` must leave on `rank`;
** adds the number of mismatching elements to *d_wrong (device memory). */
cudaError_t xp_nccl_verify(const void *out, int dtype, const xp_nccl_pattern *pat, size_t out_count,
                           int rank, unsigned long long *d_wrong, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
