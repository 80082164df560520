/*
** Within kernels/w4a16 only: which template instance a launch picks, and each file's
** cudaFuncGetAttributes hook, gathered by w4a16_kernel_attrs (attrs.cu).
*/
#ifndef XP_W4A16_INTERNAL_H
#define XP_W4A16_INTERNAL_H
#include <cuda_runtime_api.h>

/* MMA token tiles of 8 for m tokens (1 or 2), and whether scales apply after the MMA
** (a whole 64-wide chunk then shares one scale per row). */
static inline int w4a16_token_tiles(int m) { return m > 8 ? 2 : 1; }
static inline bool w4a16_post_scale(int group) { return group % 64 == 0; }
/* fused_gemv keeps this many token accumulators: the power of two >= m. */
static inline int w4a16_gemv_tokens(int m) { return m <= 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : m <= 8 ? 8 : 16; }

cudaError_t w4a16_dequant_attrs(cudaFuncAttributes *out);
cudaError_t w4a16_gemv_attrs(int m, cudaFuncAttributes *out);
cudaError_t w4a16_mma_attrs(int m, int group, cudaFuncAttributes *out);
cudaError_t w4a16_splitk_attrs(int m, int group, cudaFuncAttributes *out);
cudaError_t w4a16_moe_attrs(int m, int group, cudaFuncAttributes *out);
#endif
