/*
** "Did you mean": the name a misspelt one most likely meant, among those a caller offers (a
** spec's keys, a choice's values, xp import's formats). One measure for every such error, so
** that each suggests alike.
*/
#include <ctype.h>
#include <string.h>
#include "xp.h"

/* A name folded for comparison: lower case, without '_', '-', '.' and spaces, at most n - 1
** bytes ("All_Reduce" and "all-reduce" fold to "allreduce"). */
static void fold_name(const char *in, char *out, size_t n) {
  size_t k = 0;
  for (; *in && k + 1 < n; in++)
    if (!strchr("_-. ", *in)) out[k++] = (char)tolower((unsigned char)*in);
  out[k] = '\0';
}

/* Edits from one folded name to another: a letter inserted, dropped, changed, or two
** neighbours swapped ("modle" is one from "model"). Names are under 64 bytes (fold_name). */
static size_t edit_distance(const char *a, const char *b) {
  const size_t la = strlen(a), lb = strlen(b);
  unsigned char d[64][64];
  for (size_t i = 0; i <= la; i++) d[i][0] = (unsigned char)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (unsigned char)j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1u < v) v = d[i - 1][j] + 1u;
      if (d[i][j - 1] + 1u < v) v = d[i][j - 1] + 1u;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1u < v)
        v = d[i - 2][j - 2] + 1u;
      d[i][j] = (unsigned char)v;
    }
  return d[la][lb];
}

void xp_near_init(xp_near *n, const char *got) {
  fold_name(got, n->got, sizeof n->got);
  n->best = NULL;
  n->dist = strlen(n->got) <= 4 ? 2 : 3; /* one more than the most allowed */
  n->ties = 0;
}

void xp_near_offer(xp_near *n, const char *cand) {
  char c[64];
  fold_name(cand, c, sizeof c);
  const size_t d = edit_distance(n->got, c);
  if (d < n->dist) n->best = cand, n->dist = d, n->ties = 0;
  else if (d == n->dist && n->best && strcmp(n->best, cand) != 0) n->ties = 1;
}

const char *xp_near_result(const xp_near *n) { return n->best && !n->ties ? n->best : NULL; }
