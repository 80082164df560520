/*
** GPU annotations: the record_function ranges (a vLLM or SGLang user's, torch's nccl:all_reduce)
** that Kineto draws on the GPU timeline as "gpu_user_annotation" events, summed per step and name
** for trace_annotations. The profiler's own figure for such a range (key_averages' device time)
** is its GPU span, from its first activity's start to its last one's end; the JSON writer widens
** what it writes (annot_widening), which the store takes off again.
*/
#include <stdlib.h>
#include "tt_trace.h"
#include "xp.h"

/* The position in the sorted steps of the step whose id (order of appearance) is id; -1 none. */
static int32_t step_position(const tt_rank *r, int32_t id) {
  for (size_t i = 0; i < r->steps.n; i++)
    if (XP_VEC_AT(&r->steps, tt_step, i)->id == id) return (int32_t)i;
  return -1;
}

/* Where the CPU range of an annotation ran decides its step, as an operator's decides its
** kernels' (tt_rank.c on_cpu_op): the External id that both carry. Run before the times are
** shifted (tt_done.c shift_times), as ext_ts holds raw CPU times. An annotation so decided, in a
** step or outside every one, is marked by ext -1; the others wait for tt_annots_done. A trace
** with no step marks has no step yet to link to: its window step comes later, and holds them all. */
void tt_annots_link(tt_rank *r) {
  if (!r->steps.n) return;
  for (size_t i = 0; i < r->gpu_annots.n; i++) {
    tt_gpu_annot *a = XP_VEC_AT(&r->gpu_annots, tt_gpu_annot, i);
    const uint64_t v = a->ext > 0 ? xp_idmap_get(&r->ext, a->ext) : 0;
    if (!v) continue;
    const int32_t id = (int32_t)(v >> 32) - 1;
    const uint64_t t = id < 0 ? xp_idmap_get(&r->ext_ts, a->ext) : 0;
    a->step = id >= 0 ? step_position(r, id) : t ? tt_step_at(&r->steps, TT_TS_BACK(t)) : -1;
    a->ext = -1;
  }
}

/* The first activity (ivals sorted by start) starting at or after t. */
static size_t first_from(const tt_rank *r, int64_t t) {
  size_t lo = 0, hi = r->ivals.n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (XP_VEC_AT(&r->ivals, tt_ival, mid)->start < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

#define WIDEN_TRIES 64         /* annotations looked at to tell the widening */
#define WIDEN_SCAN 100000      /* activities looked at inside one */

/* How much longer Kineto wrote each GPU annotation than it ran, in ns, told by one whose first
** activity starts just after it: "ts -= 1; duration += 2" since 2023 (libkineto output_json.cpp,
** ChromeTraceLogger::handleActivity: 1 ns before its first activity, 1 past its last, 2 in all),
** "ts--; duration++" before (1 before, none past: 1 ns, or 1 us where Kineto's times were whole
** microseconds). Past the end means an activity inside ends 1 ns before the written end. 0 where
** no annotation shows it: a writer that draws them as they ran. ivals sorted by start. */
static int64_t annot_widening(const tt_rank *r) {
  for (size_t i = 0; i < r->gpu_annots.n && i < WIDEN_TRIES; i++) {
    const tt_gpu_annot *a = XP_VEC_AT(&r->gpu_annots, tt_gpu_annot, i);
    size_t k = first_from(r, a->start + 1);
    if (k == r->ivals.n) continue;
    const int64_t before = XP_VEC_AT(&r->ivals, tt_ival, k)->start - a->start;
    if (before != 1 && before != 1000) continue;
    int ends_at = 0;
    for (size_t j = k, n = 0; j < r->ivals.n && n < WIDEN_SCAN; j++, n++) {
      const tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, j);
      if (v->start >= a->end) break;
      if (before == 1 && v->end == a->end - 1) return 2;
      ends_at |= v->end == a->end;
    }
    if (ends_at) return before;
  }
  return 0;
}

/* Once the activities are placed and sorted by start (tt_done.c): an annotation no link placed
** goes to the step its GPU start falls in, as an unlinked activity does at last; then the totals
** per step and name, and the widening. */
void tt_annots_done(tt_rank *r) {
  xp_map m = {0};
  for (size_t i = 0; i < r->gpu_annots.n; i++) {
    tt_gpu_annot *a = XP_VEC_AT(&r->gpu_annots, tt_gpu_annot, i);
    if (a->ext >= 0 && r->steps.n) a->step = tt_step_at(&r->steps, a->start);
    int added;
    const uint64_t key = (uint64_t)(uint32_t)(a->step + 1) << 32 | a->name;
    const uint32_t slot = xp_map_put(&m, key, (uint32_t)r->annots.n, &added);
    tt_annot *t = added ? xp_vec_push(&r->annots, sizeof *t) : XP_VEC_AT(&r->annots, tt_annot, slot);
    t->step = a->step;
    t->name = a->name;
    t->count++;
    t->written += a->end - a->start;
  }
  xp_map_free(&m);
  r->annot_widen = annot_widening(r);
}
