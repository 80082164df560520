/*
** How much of a step's communication nothing else on the GPU overlapped: the time an
** all-reduce (or any kernel of the communication group: NCCL's, RCCL's, a custom all-reduce's)
** ran while no other activity of the rank did. A decode step on one stream waits for each
** all-reduce whole; one that overlaps communication with compute (SGLang's two-batch overlap,
** DeepEP's low-latency kernels, an async all-gather) hides some of it, and the kernels' summed
** time then overstates what removing them would save.
**
** Two answers are kept, both useful. exposed_ns counts any other activity as hiding: a copy or
** fill beside an all-reduce kept the GPU busy (the step's busy time would not shrink by it), and
** it contends for the same links and HBM. compute_exposed_ns counts only compute kernels, as
** HTA's comm_comp_overlap does (hta/analyzers/communication_analysis.py: the merged COMPUTATION
** kernels against the merged COMMUNICATION ones; hta/utils/utils.py get_kernel_type puts
** Memcpy and Memset in MEMORY, neither), so a user can set xp's figure beside HTA's. On HTA's
** own test traces: nccl_data.json.gz 46.876 ms of communication, 39.191 ms exposed, 39.559 ms
** by compute; trace_filter/sampled_rank-1 379.053, 299.495 and 303.523 ms. The one difference
** left: HTA takes a custom all-reduce (vLLM's cross_device_reduce, FlashInfer's fusion) for
** computation, by its name; here it communicates, as below.
**
** Which kernels communicate is decided as for trace_collectives: by the category the rules give
** at import time (tt_name_info.comm), so the two agree. What hides a step's communication is the
** rank's other activities (or compute kernels), whichever step they belong to: a step's
** all-reduce still running when the next step's first kernels start on another stream (an engine
** that schedules ahead, vLLM's async scheduling, SGLang's overlap scheduler) is hidden by them as
** much as by its own step's, so that no step counts as exposed what the whole trace's figure
** counts as hidden.
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

/* Sort spans[0, n) and merge them in place; their count once merged. */
static size_t merged(tt_span *spans, size_t n) {
  qsort(spans, n, sizeof *spans, by_span_start);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) merge_in(spans, &k, spans[i].start, spans[i].end);
  return k;
}

/* A compute kernel: a kernel (not a copy or fill) outside the communication group. */
static int key_computes(const tt_import *imp, uint32_t key) {
  const tt_name_info *ni = XP_VEC_AT(&imp->name_info, tt_name_info, TT_KEY_NAME(key));
  return ni->kind == TT_KERNEL && !ni->comm;
}

void tt_hiders_of(const tt_import *imp, const tt_ival *iv, size_t n, tt_hiders *h) {
  h->any = xp_xmalloc(sizeof *h->any * (n + 1));
  h->compute = xp_xmalloc(sizeof *h->compute * (n + 1));
  h->nany = h->ncompute = 0;
  for (size_t i = 0; i < n; i++) {
    if (tt_key_is_comm(imp, iv[i].key)) continue;
    h->any[h->nany++] = (tt_span){iv[i].start, iv[i].end};
    if (key_computes(imp, iv[i].key)) h->compute[h->ncompute++] = (tt_span){iv[i].start, iv[i].end};
  }
  h->nany = merged(h->any, h->nany);
  h->ncompute = merged(h->compute, h->ncompute);
}

void tt_hiders_free(tt_hiders *h) {
  free(h->any);
  free(h->compute);
}

void tt_comm_exposed(const tt_import *imp, const tt_ival *iv, size_t n, const tt_hiders *h, tt_comm_time *out) {
  *out = (tt_comm_time){0};
  size_t ncomm = 0;
  for (size_t i = 0; i < n; i++) ncomm += tt_key_is_comm(imp, iv[i].key);
  if (!ncomm) return;
  tt_span *comm = xp_xmalloc(sizeof *comm * ncomm);
  size_t nc = 0;
  for (size_t i = 0; i < n; i++)
    if (tt_key_is_comm(imp, iv[i].key)) merge_in(comm, &nc, iv[i].start, iv[i].end);
  for (size_t i = 0; i < nc; i++) out->comm_ns += comm[i].end - comm[i].start;
  out->exposed_ns = out->comm_ns - common_ns(comm, nc, h->any, h->nany);
  out->compute_exposed_ns = out->comm_ns - common_ns(comm, nc, h->compute, h->ncompute);
  free(comm);
}
