/*
** gemm: from what each heuristic candidate did when launched, which may be timed and what
** becomes of the shape (gemm_pick.h says the rules).
*/
#include "runners/gemm_pick.h"
#include <stdio.h>
#include <string.h>

enum xp_gemm_outcome xp_gemm_failure(int cublas_status, int context_lost) {
  /* A status from cuBLASLt with the context alive is a verdict on this candidate alone
  ** (NOT_SUPPORTED, INVALID_VALUE, EXECUTION_FAILED at launch): the others may still run.
  ** With the context lost nothing else can run, whatever cuBLASLt answered. */
  return cublas_status && !context_lost ? XP_GEMM_REFUSED : XP_GEMM_FATAL;
}

int xp_gemm_first_run(const xp_gemm_cand *c, int n) {
  for (int i = 0; i < n; i++)
    if (c[i].outcome == XP_GEMM_RIGHT || c[i].outcome == XP_GEMM_WRONG) return i;
  return -1;
}

int xp_gemm_count(const xp_gemm_cand *c, int n, enum xp_gemm_outcome o) {
  int k = 0;
  for (int i = 0; i < n; i++) k += c[i].outcome == o;
  return k;
}

/* Append s to out (n bytes, NUL-terminated); a list that does not fit is cut, ending in "...". */
static void append(char *out, size_t n, const char *s) {
  size_t len = strlen(out), k = strlen(s);
  if (len + k < n) {
    memcpy(out + len, s, k + 1);
    return;
  }
  memcpy(out + len, s, n - 1 - len);
  out[n - 1] = 0;
  if (n >= 4) memcpy(out + n - 4, "...", 3);
}

/* The candidates of outcome o, "#i algo=id, ..." (a refused one's status after its id), into
** out (nout bytes, cut to fit); "" when none. */
static void list_of(const xp_gemm_cand *c, int n, enum xp_gemm_outcome o, char *out, size_t nout) {
  if (nout == 0) return;
  out[0] = 0;
  for (int i = 0; i < n; i++) {
    if (c[i].outcome != o) continue;
    char item[160], algo[24] = "", status[96] = "";
    if (c[i].algo >= 0) snprintf(algo, sizeof algo, " algo=%d", c[i].algo);
    if (o == XP_GEMM_REFUSED) snprintf(status, sizeof status, " %s", c[i].status ? c[i].status : "(no status)");
    snprintf(item, sizeof item, "%s#%d%s%s", out[0] ? ", " : "", i, algo, status);
    append(out, nout, item);
  }
}

void xp_gemm_refused_list(const xp_gemm_cand *c, int n, char *out, size_t nout) {
  list_of(c, n, XP_GEMM_REFUSED, out, nout);
}

int xp_gemm_may_screen(const xp_gemm_cand *c, int def, int i) {
  return i != def && c[i].outcome == XP_GEMM_RIGHT;
}

int xp_gemm_default(const xp_gemm_cand *c, int n, char *why, size_t nwhy) {
  why[0] = 0;
  if (xp_gemm_count(c, n, XP_GEMM_FATAL)) return XP_GEMM_RUN_FAILS;
  const int d = xp_gemm_first_run(c, n), refused = xp_gemm_count(c, n, XP_GEMM_REFUSED);
  if (d < 0) {
    char how_many[48], list[240];
    xp_gemm_refused_list(c, n, list, sizeof list);
    if (refused == n) snprintf(how_many, sizeof how_many, "%s%d", n > 1 ? "all " : "", n);
    else snprintf(how_many, sizeof how_many, "%d of %d", refused, n);
    snprintf(why, nwhy, "cuBLASLt refused %s candidate%s (%s): none ran", how_many,
             n == 1 ? "" : "s", list);
    return XP_GEMM_CASE_FAILS;
  }
  /* the candidates refused before the default: those its note names */
  char ahead[240];
  xp_gemm_refused_list(c, d, ahead, sizeof ahead);
  if (c[d].outcome == XP_GEMM_WRONG) {
    /* Which candidates are right says where to look: some are, and cuBLASLt's default is at
    ** fault (pin one of those); none is, and the reference or xp's layout is suspect. */
    char which[320] = "", right[240];
    if (d > 0) snprintf(which, sizeof which, " (#%d, the first cuBLASLt ran; refused: %s)", d, ahead);
    list_of(c, n, XP_GEMM_RIGHT, right, sizeof right);
    snprintf(why, nwhy, "default algorithm%s wrong: %llu of %llu elements outside |ref|/%g + "
             "rms/%g, worst error %.3g x rms(ref) [%s]; %s%s", which, c[d].bad, c[d].count,
             1 / XP_GEMM_CHECK_RTOL, 1 / XP_GEMM_CHECK_ATOL_RMS, c[d].err_rms, c[d].desc ? c[d].desc : "",
             right[0] ? "right, not timed: " : "no candidate ran right", right);
    return XP_GEMM_CASE_FAILS;
  }
  if (d > 0)
    snprintf(why, nwhy, "default is candidate #%d, the first cuBLASLt ran: it refused %s", d, ahead);
  return d;
}
