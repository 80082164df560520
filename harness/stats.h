/* Summary statistics over raw samples, computed one way everywhere in xp. */
#ifndef XP_STATS_H
#define XP_STATS_H
#include <stddef.h>
typedef struct xp_stats {
  size_t n;
  double median, mean, p10, p90, min, max, stddev;
} xp_stats;
/* Percentiles by linear interpolation between closest ranks (numpy's default). */
void xp_stats_compute(const double *samples, size_t n, xp_stats *out);
double xp_percentile_sorted(const double *sorted, size_t n, double q);
/* Two-sided Mann-Whitney U test with normal approximation and tie correction.
** Returns the p value; *u gets U for the first sample. */
double xp_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u);
#endif
