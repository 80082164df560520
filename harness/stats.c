/* Summary statistics and the Mann-Whitney U test over raw samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "xp.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double xp_percentile_sorted(const double *s, size_t n, double q) {
  if (n == 0) return NAN;
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)floor(pos);
  size_t hi = lo + 1 < n ? lo + 1 : lo;
  double f = pos - (double)lo;
  return s[lo] + (s[hi] - s[lo]) * f;
}

void xp_stats_compute(const double *samples, size_t n, xp_stats *o) {
  memset(o, 0, sizeof *o);
  o->n = n;
  if (n == 0) {
    o->median = o->mean = o->p10 = o->p90 = o->min = o->max = o->stddev = NAN;
    return;
  }
  double *s = xp_xmalloc(n * sizeof *s);
  memcpy(s, samples, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += s[i];
  o->mean = sum / (double)n;
  double var = 0;
  for (size_t i = 0; i < n; i++) var += (s[i] - o->mean) * (s[i] - o->mean);
  o->stddev = n > 1 ? sqrt(var / (double)(n - 1)) : 0;
  o->min = s[0];
  o->max = s[n - 1];
  o->median = xp_percentile_sorted(s, n, 0.5);
  o->p10 = xp_percentile_sorted(s, n, 0.1);
  o->p90 = xp_percentile_sorted(s, n, 0.9);
  free(s);
}

typedef struct { double v; int group; } ranked;

static int cmp_ranked(const void *a, const void *b) {
  return cmp_double(&((const ranked *)a)->v, &((const ranked *)b)->v);
}

/* Two-sided test, normal approximation with tie correction and continuity correction, as
** scipy.stats.mannwhitneyu(method="asymptotic") computes it. */
double xp_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u_out) {
  size_t n = na + nb;
  if (na == 0 || nb == 0) return NAN;
  ranked *r = xp_xmalloc(n * sizeof *r);
  for (size_t i = 0; i < na; i++) r[i] = (ranked){a[i], 0};
  for (size_t i = 0; i < nb; i++) r[na + i] = (ranked){b[i], 1};
  qsort(r, n, sizeof *r, cmp_ranked);
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && r[j + 1].v == r[i].v) j++;
    double avg = (double)(i + j) / 2.0 + 1.0;
    double t = (double)(j - i + 1);
    tie_term += t * t * t - t;
    for (size_t k = i; k <= j; k++)
      if (r[k].group == 0) rank_sum_a += avg;
    i = j + 1;
  }
  free(r);
  double u = rank_sum_a - (double)na * (double)(na + 1) / 2.0;
  if (u_out) *u_out = u;
  double mu = (double)na * (double)nb / 2.0;
  double sigma2 = (double)na * (double)nb / 12.0 * ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
  if (sigma2 <= 0) return 1.0; /* all values equal: no evidence of a difference */
  double z = (fabs(u - mu) - 0.5) / sqrt(sigma2);
  if (z < 0) z = 0;
  double p = erfc(z / sqrt(2.0));
  return p > 1 ? 1 : p;
}
