/*
** gemm: which of a shape's cuBLASLt candidates may be timed, and what becomes of the shape,
** from what each candidate did when launched (ran right, ran wrong, refused by cuBLASLt, or
** failed in a way that ends the run). Plain data, no GPU: gemm.c feeds it what the device
** did, and tests/unit/test_gemm_pick.c all the mixes a device rarely shows.
*/
#ifndef XP_GEMM_PICK_H
#define XP_GEMM_PICK_H
#include <stddef.h>

/* The reference check's tolerance: an element is wrong when |D - ref| > |ref| * RTOL +
** rms(ref) * ATOL_RMS (gemm.c's header says why these). A wrong default's note spells them. */
#define XP_GEMM_CHECK_RTOL (1.0 / 64)
#define XP_GEMM_CHECK_ATOL_RMS (1.0 / 64)

enum xp_gemm_outcome {
  XP_GEMM_UNCHECKED, /* not launched yet */
  XP_GEMM_RIGHT,     /* ran, every element within the tolerance of the reference */
  XP_GEMM_WRONG,     /* ran, some element outside it */
  XP_GEMM_REFUSED,   /* cublasLtMatmul answered a cuBLAS error status, the CUDA context intact */
  XP_GEMM_FATAL      /* any other failure, or the context broken (a sticky CUDA error) */
};

/* One heuristic candidate of a shape, in the heuristic's order. */
typedef struct xp_gemm_cand {
  enum xp_gemm_outcome outcome;
  int algo;                       /* cuBLASLt's algorithm id; -1 when unknown */
  const char *desc;               /* its configuration (xp_lt_algo_desc), or NULL */
  const char *status;             /* refused: the cuBLAS status's name */
  unsigned long long bad, count;  /* ran: elements outside the tolerance, of count */
  double err_rms;                 /* ran: worst |D - ref| / rms(ref) */
} xp_gemm_cand;

/* What xp_gemm_default() answers when there is no default to time. */
#define XP_GEMM_CASE_FAILS (-1) /* the shape is recorded failed; the run goes on */
#define XP_GEMM_RUN_FAILS (-2)  /* a candidate's failure ends the run */

/* A launch that failed: cuBLASLt's refusal when it answered a cuBLAS status and the CUDA
** context survived; anything else (a CUDA error, or any error with the context lost) is fatal. */
enum xp_gemm_outcome xp_gemm_failure(int cublas_status, int context_lost);

/* The first candidate cuBLASLt ran (right or wrong), or -1. */
int xp_gemm_first_run(const xp_gemm_cand *c, int n);

/* The candidate timed as the shape's default: the first one cuBLASLt runs, as a caller that
** walks the heuristic's list until a matmul is accepted gets it. Returns its index, writing
** into why (n bytes) "" when it is the heuristic's first, else which candidates were refused
** before it (the case's note); or XP_GEMM_CASE_FAILS, why saying why (every candidate
** refused, or the default wrong: a wrong default fails the shape even when a later
** candidate is right, since it is what a caller of cuBLASLt gets; why then names the right
** ones, not timed, or says none ran right); or XP_GEMM_RUN_FAILS when any candidate's
** failure was fatal. why is cut to nwhy bytes; 1024 hold the longest. */
int xp_gemm_default(const xp_gemm_cand *c, int n, char *why, size_t nwhy);

/* May candidate i be screened against the default def? Only right ones that are not it. */
int xp_gemm_may_screen(const xp_gemm_cand *c, int def, int i);

/* How many of the n candidates had outcome o. */
int xp_gemm_count(const xp_gemm_cand *c, int n, enum xp_gemm_outcome o);

/* The refused candidates, "#3 algo=31 CUBLAS_STATUS_NOT_SUPPORTED, ..." (index in the
** heuristic's order, algorithm id, status), truncated to fit n bytes; "" when none. */
void xp_gemm_refused_list(const xp_gemm_cand *c, int n, char *out, size_t nout);

#ifdef XP_HAVE_CUDA
/* (gemm.c; ceilings.c's peak matmul too) A launch of the candidate p has selected failed with
** rc, its error not printed yet (the launch ran quiet). cuBLASLt's refusal, the context
** intact, marks c refused (its status named) and returns 0; anything else is the run's error,
** printed now and returned. */
struct xp_lt;
int xp_gemm_settle(struct xp_lt *p, xp_gemm_cand *c, int rc);
#endif
#endif
