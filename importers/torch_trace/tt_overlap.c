/*
** How much of a step's communication nothing else on the GPU overlapped: the time an
** all-reduce (or any kernel of the communication group: NCCL's, RCCL's, a custom all-reduce's)
** ran while no other activity of the rank did. A decode step on one stream waits for each
** all-reduce whole; one that overlaps communication with compute (SGLang's two-batch overlap,
** DeepEP's low-latency kernels, an async all-gather) hides some of it, and the kernels' summed
** time then overstates what removing them would save. HTA's comm_comp_overlap and TraceLens's
** exposed-communication time answer the same question over a trace, with one difference: they
** count only computation kernels as hiding communication, where a copy or fill beside it hides it
** here too (the GPU was busy then: the step's busy time would not shrink by it). On HTA's own
** test traces the two differ by under 2% of the communication (nccl_data.json.gz: 39.191 ms
** exposed here, 39.559 ms by HTA's definition, of 46.876 ms).
**
** Which kernels communicate is decided as for trace_collectives: by the category the rules give
** at import time (tt_name_info.comm), so the two agree. What hides a step's communication is any
** other activity of the rank, whichever step it belongs to: a step's all-reduce still running when
** the next step's first kernels start on another stream (an engine that schedules ahead, vLLM's
** async scheduling, SGLang's overlap scheduler) is hidden by them as much as by its own step's,
** so that no step counts as exposed what the whole trace's figure counts as hidden.
*/
#include <stdlib.h>
#include "tt_trace.h"
#include "xp.h"

/* Append [s, e) to the merged list u[0, *n), given in order of start. */
static void merge_in(tt_span *u, size_t *n, int64_t s, int64_t e) {
  if (*n && s <= u[*n - 1].end) {
    if (e > u[*n - 1].end) u[*n - 1].end = e;
    return;
  }
  u[(*n)++] = (tt_span){s, e};
}

/* The first span of the merged list b[0, nb) that ends after t (nb where none does). */
static size_t first_ending_after(const tt_span *b, size_t nb, int64_t t) {
  size_t lo = 0, hi = nb;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (b[mid].end <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Time covered by both merged lists. b is the rank's whole list and a one step's: the walk starts
** at a's first span, not b's, or a trace of many steps would walk the rank's activities once a
** step (a decode step an annotation marks, thousands of them: quadratic). */
static int64_t common_ns(const tt_span *a, size_t na, const tt_span *b, size_t nb) {
  int64_t t = 0;
  for (size_t i = 0, j = na ? first_ending_after(b, nb, a[0].start) : nb; i < na && j < nb;) {
    int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
    int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
    if (e > s) t += e - s;
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return t;
}

static int by_span_start(const void *a, const void *b) {
  const tt_span *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

tt_span *tt_rest_spans(const tt_import *imp, const tt_ival *iv, size_t n, size_t *nrest) {
  tt_span *rest = xp_xmalloc(sizeof *rest * (n + 1));
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!tt_key_is_comm(imp, iv[i].key)) rest[k++] = (tt_span){iv[i].start, iv[i].end};
  qsort(rest, k, sizeof *rest, by_span_start);
  *nrest = 0;
  for (size_t i = 0; i < k; i++) merge_in(rest, nrest, rest[i].start, rest[i].end);
  return rest;
}

void tt_comm_exposed(const tt_import *imp, const tt_ival *iv, size_t n, const tt_span *rest, size_t nrest,
                     int64_t *comm_ns, int64_t *exposed_ns) {
  *comm_ns = *exposed_ns = 0;
  size_t ncomm = 0;
  for (size_t i = 0; i < n; i++) ncomm += tt_key_is_comm(imp, iv[i].key);
  if (!ncomm) return;
  tt_span *comm = xp_xmalloc(sizeof *comm * ncomm);
  size_t nc = 0;
  for (size_t i = 0; i < n; i++)
    if (tt_key_is_comm(imp, iv[i].key)) merge_in(comm, &nc, iv[i].start, iv[i].end);
  for (size_t i = 0; i < nc; i++) *comm_ns += comm[i].end - comm[i].start;
  *exposed_ns = *comm_ns - common_ns(comm, nc, rest, nrest);
  free(comm);
}
