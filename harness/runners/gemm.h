/*
** gemm: what a run measured under, for its record. The runner records it after measuring;
** tests/unit/test_gemm_setup.c records it without a GPU.
*/
#ifndef XP_GEMM_H
#define XP_GEMM_H
#include "recorder.h"
#include "spec.h"

/* run_meta of what the (validated) gemm spec resolves to, its defaults among them: the model,
** dtype and tp it left out, the model file's source and SHA-256, its checkpoint dtype, the MLA
** form and, for FP4 experts, the MXFP4 backend whose padding was measured. 0, or the exit code. */
int xp_gemm_record_setup(xp_run *run, const xp_spec *spec);
#endif
