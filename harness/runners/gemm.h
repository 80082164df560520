/*
** gemm: what the runner shows beside its kind, for tests without a GPU: what a run measured
** under, for its record (the runner records it after measuring; tests/unit/test_gemm_setup.c
** without a GPU), and the fp8 shapes cuBLASLt takes.
*/
#ifndef XP_GEMM_H
#define XP_GEMM_H
#include "recorder.h"
#include "spec.h"

/* run_meta of what the (validated) gemm spec resolves to, its defaults among them: the model,
** dtype and tp it left out, the model file's source and SHA-256, its checkpoint dtype, the MLA
** form and, for FP4 experts, the MXFP4 backend whose padding was measured. 0, or the exit code. */
int xp_gemm_record_setup(xp_run *run, const xp_spec *spec);

/* Whether cuBLASLt takes an fp8 GEMM of this K and N (gemm.c's rules, by which a spec is
** refused before it reaches a GPU): per-tensor scales (block_scaled 0) or DeepSeek's blocks (1).
** tests/unit/test_fp8_shapes_gpu.c holds them against cuBLASLt on a GPU. */
int xp_gemm_fp8_takes(int block_scaled, long long k, long long n);
#endif
