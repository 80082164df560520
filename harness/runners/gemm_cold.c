/* gemm's cold-cache rotation (gemm_cold.h). */
#include "runners/gemm_cold.h"

xp_gemm_cold xp_gemm_cold_plan(size_t total, size_t stride) {
  xp_gemm_cold c = {2, 0};
  const size_t n = total / stride + (total % stride != 0);
  if (n <= 2) return c;
  if (n <= XP_GEMM_COLD_MAX_BUFFERS) {
    c.nbuf = (int)n;
    return c;
  }
  c.nbuf = XP_GEMM_COLD_MAX_BUFFERS;
  c.flush_bytes = total - (size_t)XP_GEMM_COLD_MAX_BUFFERS * stride;
  return c;
}
