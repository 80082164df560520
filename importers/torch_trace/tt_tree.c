/*
** The operator of an activity whose External id names none: Kineto of 2022-23 (HTA's samples
** df_index_resolver, recorded 2022-11, and trace_filter, 2023-04) wrote every kernel's, copy's
** and launch's "External id" as its own correlation id. The launch (the runtime or driver call of
** the activity's correlation) ran inside the operator on its CPU thread: the innermost cpu_op
** whose time holds the launch's, on the same pid and tid, is the activity's operator, as the
** PyTorch profiler's own event tree and HTA's call stacks link them, and as Kineto names it
** where it links (every kernel of HTA's 2024 nccl_data sample: the innermost cpu_op around its
** launch is the one its External id names). User annotations are no such operator: Kineto
** links a kernel to the cpu_op inside one (record_param_comms in nccl:all_reduce). ROCm's
** oldest traces (roctracer through Kineto) wrote no correlation at all, a kernel's "External id"
** its hipLaunchKernel's (tt_rank.c on_runtime), and are linked alike.
**
** Only such activities are looked up, and only on a read again that keeps every operator's
** time and thread (tt_options.op_tree, tt_read.c): a trace whose activities name their
** operators is read once, as before. The operators are those with an External id, as Kineto
** gives every cpu_op. Times are the raw ns the file writes, an operator holding a launch from
** its start to its end inclusive (whole microseconds as 2022's Kineto wrote them: a launch may
** start at the very microsecond its operator does).
*/
#include <stdlib.h>
#include "tt_trace.h"
#include "xp.h"

uint32_t tt_thread_of(tt_rank *r, const tt_event *ev) {
  char buf[64];
  size_t n;
  char *key = tt_thread_key(ev, buf, sizeof buf, &n);
  const uint32_t id = xp_strtab_intern(&r->threads, key, n, NULL);
  if (key != buf) free(key);
  return id;
}

void tt_tree_op_add(tt_rank *r, const tt_event *ev, int64_t ts, int64_t dur, int64_t ext, uint32_t op) {
  tt_tree_op *o = xp_vec_push(&r->tree_ops, sizeof *o);
  *o = (tt_tree_op){ts, ts + dur, ext, tt_thread_of(r, ev), op, TT_NO_PARENT};
}

void tt_tree_call_add(tt_rank *r, const tt_event *ev, int64_t corr, int64_t ts) {
  *(tt_tree_call *)xp_vec_push(&r->tree_calls, sizeof(tt_tree_call)) = (tt_tree_call){corr, ts, tt_thread_of(r, ev)};
}

/* By thread, then start; of one start the longer first (the outer), then the lower External id:
** Kineto numbers operators as they start, so of two alike the later is the inner. What is still
** equal is alike as a link. No order of the file's decides. */
static int by_thread_start(const void *a, const void *b) {
  const tt_tree_op *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  if (x->ext != y->ext) return x->ext < y->ext ? -1 : 1;
  return (x->op > y->op) - (x->op < y->op);
}

/* By correlation, then CPU time: of two calls of one id (a SYCL call and the Level Zero call
** under it, two processes' in a merged file) the earlier, as tt_done.c launch_time takes it. */
static int by_corr_ts(const void *a, const void *b) {
  const tt_tree_call *x = a, *y = b;
  if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Sorted by thread and start, each operator's parent: the innermost one still open when it
** starts (a stack per thread). */
static void nest(tt_rank *r) {
  tt_tree_op *o = r->tree_ops.data;
  const size_t n = r->tree_ops.n;
  if (n > 1) qsort(o, n, sizeof *o, by_thread_start); /* (qsort of no array: undefined, not nothing) */
  uint32_t *stack = xp_xmalloc((n ? n : 1) * sizeof *stack);
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (i && o[i].thread != o[i - 1].thread) depth = 0;
    while (depth && o[stack[depth - 1]].end < o[i].start) depth--;
    o[i].parent = depth ? stack[depth - 1] : TT_NO_PARENT;
    stack[depth++] = (uint32_t)i;
  }
  free(stack);
  if (r->tree_calls.n > 1) qsort(r->tree_calls.data, r->tree_calls.n, sizeof(tt_tree_call), by_corr_ts);
}

/* The innermost operator on thread th whose time holds t: from the last to start at or before t,
** out through the operators it ran in until one has not ended; NULL where none holds it. */
static const tt_tree_op *innermost(const tt_rank *r, uint32_t th, int64_t t) {
  const tt_tree_op *o = r->tree_ops.data;
  size_t lo = 0, hi = r->tree_ops.n; /* the first past (th, t) */
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (o[mid].thread < th || (o[mid].thread == th && o[mid].start <= t)) lo = mid + 1;
    else hi = mid;
  }
  if (!lo || o[lo - 1].thread != th) return NULL;
  uint32_t i = (uint32_t)(lo - 1);
  while (i != TT_NO_PARENT && o[i].end < t) i = o[i].parent;
  return i == TT_NO_PARENT ? NULL : &o[i];
}

/* The call of correlation corr (the earliest of several), NULL if the read kept none. */
static const tt_tree_call *call_of(const tt_rank *r, int64_t corr) {
  const tt_tree_call *c = r->tree_calls.data;
  size_t lo = 0, hi = r->tree_calls.n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (c[mid].corr < corr) lo = mid + 1;
    else hi = mid;
  }
  return lo < r->tree_calls.n && c[lo].corr == corr ? &c[lo] : NULL;
}

/* Whether pending i is a kernel of ROCm's oldest traces, whose External id, with no correlation
** beside it (then the next pending is the same activity's), is its launch's: tt_done.c
** resolve_launches places it by that launch. */
static int hip_launch_id(const tt_rank *r, size_t i) {
  const tt_pend *pd = XP_VEC_AT(&r->pending, tt_pend, i);
  if (pd->kind != TT_BY_EXT || !r->hip || r->hip_ext_ops) return 0;
  return i + 1 == r->pending.n || XP_VEC_AT(&r->pending, tt_pend, i + 1)->ival != pd->ival;
}

void tt_tree_link(tt_rank *r) {
  int nested = 0;
  for (size_t i = 0; i < r->pending.n; i++) {
    tt_pend *pd = XP_VEC_AT(&r->pending, tt_pend, i);
    if (pd->kind == TT_BY_TREE) pd->kind = TT_BY_CORR; /* its step is its launch's, linked or not */
    else if (!hip_launch_id(r, i)) continue;
    if (!r->tree_ops.n || !r->tree_calls.n) continue;
    if (!nested) nest(r), nested = 1;
    const tt_tree_call *c = call_of(r, pd->ts);
    const tt_tree_op *o = c ? innermost(r, c->thread, c->ts) : NULL;
    if (!o) continue;
    const tt_ival *iv = XP_VEC_AT(&r->ivals, tt_ival, pd->ival);
    tt_link_op(r, iv->key, iv->end - iv->start, o->op);
  }
  xp_vec_free(&r->tree_ops);
  xp_vec_free(&r->tree_calls);
  xp_strtab_free(&r->threads);
}
