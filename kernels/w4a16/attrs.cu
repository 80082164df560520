/* cudaFuncGetAttributes of each w4a16 kernel instance, for the run records (registers,
** shared memory, local memory spills, the binary's architecture). */
#include "w4a16/w4a16.h"
#include "w4a16/w4a16_internal.h"

extern "C" cudaError_t w4a16_kernel_attrs(enum w4a16_kernel k, int m, int group,
                                          struct cudaFuncAttributes *out) {
  switch (k) {
  case W4A16_K_DEQUANT: return w4a16_dequant_attrs(out);
  case W4A16_K_GEMV: return w4a16_gemv_attrs(m, out);
  case W4A16_K_MMA: return w4a16_mma_attrs(m, group, out);
  case W4A16_K_SPLITK: return w4a16_splitk_attrs(m, group, out);
  case W4A16_K_MOE: return w4a16_moe_attrs(m, group, out);
  }
  return cudaErrorInvalidValue;
}
