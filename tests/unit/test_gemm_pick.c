/* gemm's choice among a shape's cuBLASLt candidates (harness/runners/gemm_pick.c), from what
** each did: a candidate cuBLASLt refuses is left out and named, the default is the first one
** it runs, a wrong default or a shape where none runs fails the case, and a broken context
** fails the run. No GPU involved: the outcomes are what gemm.c records from the device. */
#include <string.h>
#include "check.h"
#include "runners/gemm_pick.h"

enum { R = XP_GEMM_RIGHT, W = XP_GEMM_WRONG, X = XP_GEMM_REFUSED, F = XP_GEMM_FATAL };

/* Candidates with the given outcomes; algorithm ids 60, 61, ...; refused ones NOT_SUPPORTED. */
static int set(xp_gemm_cand *c, const int *o, int n) {
  memset(c, 0, sizeof *c * (size_t)n);
  for (int i = 0; i < n; i++) {
    c[i].outcome = (enum xp_gemm_outcome)o[i];
    c[i].algo = 60 + i;
    c[i].desc = "algo=6x tile=64x64";
    if (o[i] == X) c[i].status = "CUBLAS_STATUS_NOT_SUPPORTED";
    if (o[i] == R || o[i] == W) c[i].count = 1000, c[i].bad = o[i] == W ? 17 : 0;
    c[i].err_rms = o[i] == W ? 0.9 : 0.001;
  }
  return n;
}

static void test_failure_kind(void) {
  /* a cuBLAS status with the context alive: this candidate only */
  CHECK_EQ_INT(xp_gemm_failure(1, 0), XP_GEMM_REFUSED);
  /* the context lost: the run ends whatever cuBLASLt said; a CUDA error ends it too */
  CHECK_EQ_INT(xp_gemm_failure(1, 1), XP_GEMM_FATAL);
  CHECK_EQ_INT(xp_gemm_failure(0, 1), XP_GEMM_FATAL);
  CHECK_EQ_INT(xp_gemm_failure(0, 0), XP_GEMM_FATAL);
}

static void test_all_right(void) {
  xp_gemm_cand c[3];
  char why[320];
  int n = set(c, (const int[]){R, R, R}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), 0);
  CHECK_EQ_STR(why, "");
  CHECK(!xp_gemm_may_screen(c, 0, 0));
  CHECK(xp_gemm_may_screen(c, 0, 1) && xp_gemm_may_screen(c, 0, 2));
  CHECK_EQ_INT(xp_gemm_count(c, n, XP_GEMM_REFUSED), 0);
}

/* The heuristic's first refused: the next that runs is the default, and the note says so. */
static void test_default_refused(void) {
  xp_gemm_cand c[4];
  char why[320];
  int n = set(c, (const int[]){X, R, W, R}, 4);
  c[0].status = "CUBLAS_STATUS_INVALID_VALUE";
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), 1);
  CHECK_EQ_STR(why, "default is candidate #1, the first cuBLASLt ran: it refused #0 algo=60 "
                    "CUBLAS_STATUS_INVALID_VALUE");
  CHECK(!xp_gemm_may_screen(c, 1, 0)); /* refused */
  CHECK(!xp_gemm_may_screen(c, 1, 1)); /* the default itself */
  CHECK(!xp_gemm_may_screen(c, 1, 2)); /* wrong */
  CHECK(xp_gemm_may_screen(c, 1, 3));
  CHECK_EQ_INT(xp_gemm_count(c, n, XP_GEMM_REFUSED), 1);
  CHECK_EQ_INT(xp_gemm_count(c, n, XP_GEMM_WRONG), 1);
  CHECK_EQ_INT(xp_gemm_first_run(c, n), 1);
}

/* Refused past the default: left out of the screening, the default unchanged. */
static void test_other_refused(void) {
  xp_gemm_cand c[3];
  char why[320], list[160];
  int n = set(c, (const int[]){R, X, R}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), 0);
  CHECK_EQ_STR(why, "");
  CHECK(!xp_gemm_may_screen(c, 0, 1));
  CHECK(xp_gemm_may_screen(c, 0, 2));
  xp_gemm_refused_list(c, n, list, sizeof list);
  CHECK_EQ_STR(list, "#1 algo=61 CUBLAS_STATUS_NOT_SUPPORTED");
}

/* The default refused only under graph capture, after the check: gemm.c marks it refused and
** asks again; the role passes on, and the candidates screened are those still right. */
static void test_refused_under_capture(void) {
  xp_gemm_cand c[3];
  char why[320];
  int n = set(c, (const int[]){R, R, R}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), 0);
  c[0].outcome = XP_GEMM_REFUSED, c[0].status = "CUBLAS_STATUS_NOT_SUPPORTED";
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), 1);
  CHECK(strstr(why, "#0 algo=60 CUBLAS_STATUS_NOT_SUPPORTED") != NULL);
  CHECK(xp_gemm_may_screen(c, 1, 2) && !xp_gemm_may_screen(c, 1, 0));
}

static void test_none_runs(void) {
  xp_gemm_cand c[3];
  char why[320];
  int n = set(c, (const int[]){X, X, X}, 3);
  c[2].algo = -1; /* id unknown: the index and status only */
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK_EQ_STR(why, "cuBLASLt refused all 3 candidates (#0 algo=60 CUBLAS_STATUS_NOT_SUPPORTED, "
                    "#1 algo=61 CUBLAS_STATUS_NOT_SUPPORTED, #2 CUBLAS_STATUS_NOT_SUPPORTED): none ran");
  n = set(c, (const int[]){X}, 1);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK_EQ_STR(why, "cuBLASLt refused 1 candidate (#0 algo=60 CUBLAS_STATUS_NOT_SUPPORTED): none ran");
}

/* A wrong default fails the shape even with a right candidate after it: it is what a caller
** of cuBLASLt gets. Refused ones ahead of it are named, and the right ones after it (where to
** look: cuBLASLt's default, or with none right, the reference). */
static void test_default_wrong(void) {
  xp_gemm_cand c[4];
  char why[1024];
  int n = set(c, (const int[]){W, R, W, R}, 4);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK_EQ_STR(why, "default algorithm wrong: 17 of 1000 elements outside |ref|/64 + rms/64, "
                    "worst error 0.9 x rms(ref) [algo=6x tile=64x64]; right, not timed: #1 algo=61, #3 algo=63");
  n = set(c, (const int[]){X, W, R}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK(strncmp(why, "default algorithm (#1, the first cuBLASLt ran; refused: #0 algo=60 "
                     "CUBLAS_STATUS_NOT_SUPPORTED) wrong: 17 of 1000", 110) == 0);
  CHECK(strstr(why, "]; right, not timed: #2 algo=62") != NULL);
  n = set(c, (const int[]){W, X, W}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK(strstr(why, "[algo=6x tile=64x64]; no candidate ran right") != NULL);
  /* the longest note, a refusal list and a right list at their caps and a full description,
  ** fits gemm.c's 1024 bytes whole */
  xp_gemm_cand m[64];
  int o[64];
  for (int i = 0; i < 64; i++) o[i] = i < 20 ? X : i == 20 ? W : R;
  n = set(m, o, 64);
  char desc[256];
  memset(desc, 'd', sizeof desc - 1);
  desc[255] = 0;
  m[20].desc = desc;
  CHECK_EQ_INT(xp_gemm_default(m, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK(strlen(why) < sizeof why - 1);
  CHECK(strcmp(why + strlen(why) - 3, "...") == 0); /* the right list cut, visibly */
}

/* A broken context ends the run, wherever it happened and whatever else ran. */
static void test_fatal(void) {
  xp_gemm_cand c[3];
  char why[320];
  int n = set(c, (const int[]){R, R, F}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_RUN_FAILS);
  n = set(c, (const int[]){X, F, XP_GEMM_UNCHECKED}, 3);
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_RUN_FAILS);
}

/* A long list stays within its buffer and says it was cut. */
static void test_list_truncated(void) {
  xp_gemm_cand c[64];
  char list[100];
  int o[64];
  for (int i = 0; i < 64; i++) o[i] = X;
  int n = set(c, o, 64);
  memset(list, 'z', sizeof list);
  xp_gemm_refused_list(c, n, list, sizeof list);
  CHECK_EQ_INT(strlen(list), sizeof list - 1);
  CHECK(strcmp(list + sizeof list - 4, "...") == 0);
  CHECK(strncmp(list, "#0 algo=60 CUBLAS_STATUS_NOT_SUPPORTED, #1 algo=61", 50) == 0);
  char why[320];
  CHECK_EQ_INT(xp_gemm_default(c, n, why, sizeof why), XP_GEMM_CASE_FAILS);
  CHECK(strncmp(why, "cuBLASLt refused all 64 candidates (#0 algo=60", 46) == 0);
  CHECK(strstr(why, "...): none ran") != NULL);
}

int main(void) {
  test_failure_kind();
  test_all_right();
  test_default_refused();
  test_other_refused();
  test_refused_under_capture();
  test_none_runs();
  test_default_wrong();
  test_fatal();
  test_list_truncated();
  CHECK_DONE();
}
