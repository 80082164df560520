/*
** gemm's cold-cache rotation: how many copies of a shape's weights rotate, and what else each
** round writes, so that every launch reads its weights from HBM. Plain arithmetic, no GPU:
** gemm.c sizes its pool and graphs from it, tests/unit/test_gemm_cold.c checks it.
*/
#ifndef XP_GEMM_COLD_H
#define XP_GEMM_COLD_H
#include <stddef.h>

/* The most weight copies a cold graph rotates. Uncapped, a small shape took a copy per stride
** of the rotation (n = k = 64 bf16: 8 KiB each, 32768 copies in 256 MiB), a graph of as many
** matmuls, slow to capture; past the cap, a scratch write each round makes up the bytes. */
#define XP_GEMM_COLD_MAX_BUFFERS 1024

typedef struct xp_gemm_cold {
  int nbuf;           /* weight copies that rotate (at least 2) */
  size_t flush_bytes; /* written to scratch before each round of nbuf launches; 0: none needed */
} xp_gemm_cold;

/* For weights of stride bytes (a copy, aligned) and a rotation of total bytes (max(cold_mib,
** 4 x L2)): between two reads of one copy at least total bytes pass through L2, the copies'
** own reads alone where they fit XP_GEMM_COLD_MAX_BUFFERS copies, else those of the copies
** plus a scratch write of the rest (L2 keeps written lines as it keeps read ones: nvbench
** flushes L2 so, a memset of an L2-sized buffer). stride > 0. */
xp_gemm_cold xp_gemm_cold_plan(size_t total, size_t stride);
#endif
