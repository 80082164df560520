/*
** cuBLASLt matmul plans shared by the gemm, ceilings and kernel_variant runners.
**
** One plan is one matmul D[M,N] = A[M,K] * W[N,K]^T with row-major A, W and D (the layout
** of a linear layer: activations times the transposed weight), bf16 or fp8-e4m3 inputs
** (per-tensor scales, or DeepSeek's block scales), bf16 output, fp32 accumulation. A plan owns the cuBLASLt descriptors and the heuristic's
** top-N algorithm candidates for that shape, so callers can time each candidate without
** re-deriving layouts. Compiled only with CUDA (XP_HAVE_CUDA).
*/
#ifndef XP_LT_H
#define XP_LT_H
#ifdef XP_HAVE_CUDA
#include <stddef.h>
#include <cuda_runtime_api.h>
#include <cublasLt.h>

typedef struct xp_lt xp_lt;

/* XP_LT_FP8_BLOCK: e4m3 with one fp32 scale per 128x128 block of W and one per token per 128
** of K of A (DeepSeek-V3/V4 checkpoints, as vLLM and SGLang run them): cuBLASLt 12.9+ on
** Hopper (sm_90) only; elsewhere xp_lt_create fails with XP_EXIT_ENV. Its plan may compute
** the product with the operands swapped, D written transposed (xp_lt_out_transposed). */
enum xp_lt_dtype { XP_LT_BF16, XP_LT_FP8_E4M3, XP_LT_FP8_BLOCK };

/* Workspace the plans are tuned for: cuBLAS recommends 32 MiB on Hopper. */
#define XP_LT_WORKSPACE_BYTES ((size_t)32 << 20)
/* How many heuristic candidates a plan asks for when the caller does not say. */
#define XP_LT_TOP_N_DEFAULT 8

/* Build a plan and query up to `top_n` heuristic candidates (top_n <= 0: the default).
** fp8 needs compute capability >= 8.9; on older devices this fails with XP_EXIT_ENV and a
** message naming the device. No candidate (no algorithm for this shape, dtype and device) is
** XP_EXIT_FAILED, the heuristic's status in the message; for fp8_block it is XP_EXIT_ENV where
** the device lacks block scales (not Hopper, or cuBLASLt before 12.9) and the heuristic said
** NOT_SUPPORTED. Returns 0 or an exit code after reporting the error. */
int xp_lt_create(cublasLtHandle_t h, int m, int n, int k, enum xp_lt_dtype dt,
                 size_t workspace_bytes, int top_n, xp_lt **out);
/* The same for `batch` independent matmuls of one shape in one strided-batched launch
** (operand i at byte offset i * rows * cols * element size of each operand). Absorbed MLA
** runs its per-head projections this way. xp_lt_create is batch = 1. Block-scaled fp8 runs
** one matrix a launch: batch > 1 with it is XP_EXIT_USAGE. */
int xp_lt_create_batched(cublasLtHandle_t h, int m, int n, int k, int batch,
                         enum xp_lt_dtype dt, size_t workspace_bytes, int top_n, xp_lt **out);
/* Candidates the heuristic returned (>= 1 for a successfully created plan). */
int xp_lt_algo_count(const xp_lt *p);
/* Make candidate idx the one xp_lt_run uses; 0 is the heuristic's default choice. Clears
** the status xp_lt_last_status() answers. */
int xp_lt_select(xp_lt *p, int idx);
/* What cublasLtMatmul answered in the last xp_lt_run (directly or under a CUDA graph
** capture); CUBLAS_STATUS_SUCCESS when none ran since xp_lt_select. A caller that goes on
** past a candidate cuBLASLt will not run tells that refusal from other failures by it. */
cublasStatus_t xp_lt_last_status(const xp_lt *p);
/* cuBLASLt's algorithm id of candidate idx (CUBLASLT_ALGO_CONFIG_ID), -1 if unknown. */
int xp_lt_algo_id(const xp_lt *p, int idx);
/* Human-readable description of candidate idx: "algo=.. tile=.. stages=.. splitK=.. ...".
** The string lives as long as the plan. */
const char *xp_lt_algo_desc(const xp_lt *p, int idx);
/* Bytes of workspace candidate idx needs (<= the plan's workspace). */
size_t xp_lt_algo_workspace(const xp_lt *p, int idx);
/* Whether the plan writes D transposed: row-major [N,M] (column-major [M,N]) where it is
** otherwise row-major [M,N]. Only an fp8_block plan does, where cuBLASLt runs block scales
** with the activations as its A (its candidates' descriptions say "order=activations,weights"):
** fp8 takes only the TN layout, so swapping the operands transposes the output. The same
** bytes at M = 1. */
int xp_lt_out_transposed(const xp_lt *p);
/* Enqueue D = A * W^T on stream s with the selected candidate. For fp8, scale_a and scale_w
** point at the per-tensor dequantisation scales (one fp32 each, in HOST memory; NULL means
** 1); for fp8_block at the DEVICE arrays of block scales, laid out as
** kernels/ceilings/block_scales.h says (neither may be NULL); they are ignored for bf16.
** Capturable into a CUDA graph. Returns 0 or an exit code. */
int xp_lt_run(xp_lt *p, const void *A, const void *W, void *D, const float *scale_a,
              const float *scale_w, void *workspace, cudaStream_t s);
void xp_lt_destroy(xp_lt *p);

/* Shape and dtype accessors, for callers that size buffers from a plan. xp_lt_m is the rows
** the plan runs: for fp8_block it may exceed the M asked, up to M rounded up to 8, where
** cuBLASLt has no block-scaled plan at M (the rows past M are padding tokens; A, D and the
** activations' scales are then sized, laid out and filled for xp_lt_m rows). */
int xp_lt_m(const xp_lt *p);
int xp_lt_n(const xp_lt *p);
int xp_lt_k(const xp_lt *p);
int xp_lt_batch(const xp_lt *p);
enum xp_lt_dtype xp_lt_dtype_of(const xp_lt *p);
/* Bytes per element of an input of this dtype (2 for bf16, 1 for fp8 and fp8_block). */
int xp_lt_elem_bytes(enum xp_lt_dtype dt);
const char *xp_lt_dtype_name(enum xp_lt_dtype dt);

#endif /* XP_HAVE_CUDA */
#endif
