/*
** nccl_burst's verification on the GPU, like nccl-tests' #wrong: every rank's input is a
** pattern of small integers, exact in every type, so the result of any collective in any
** reduction order is known exactly and compared element by element.
** Input element i of rank r is (5 * (i mod m) + 3 * r + 1) mod m, m = the modulus chosen so
** that a sum over all ranks stays exact (xp_nccl_check_modulus).
*/
#ifndef XP_NCCL_CHECK_H
#define XP_NCCL_CHECK_H
#include <stddef.h>
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Write pattern elements 0..count-1 of `rank` to buf. dtype: enum xp_nccl_dtype. */
cudaError_t xp_nccl_fill(void *buf, int dtype, size_t count, int rank, int modulus, cudaStream_t s);

/* Compare `out` (out_count elements) with what collective `coll` (enum xp_nccl_coll) must leave on
** `rank`, for a call with count `count` (per peer for alltoall) over nranks ranks; adds the number
** of mismatching elements to *d_wrong (device memory). */
cudaError_t xp_nccl_verify(const void *out, int dtype, int coll, size_t out_count, size_t count,
                           int rank, int nranks, int root, int modulus, unsigned long long *d_wrong,
                           cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
