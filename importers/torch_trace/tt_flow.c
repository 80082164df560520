/*
** Launches linked to their activities by a flow alone. Kineto writes a flow from a launch to each
** GPU activity it made, category "ac2g" ("async_cpu_to_gpu" before 2022): a "s" event at the
** launch's pid, tid and ts, a "f" (its "bp": "e", binding it to the slice it lies in) at the
** activity's, both with the launch's correlation as their "id" (libkineto/src/output_json.cpp,
** handleLink). CUPTI's, roctracer's and the vendors' own Kineto builds write that correlation as
** an argument of both too; a PrivateUse1 backend's plugin that hands Kineto generic activities
** writes only what it adds as metadata, and DeepLink's DIPU (deeplink.framework
** dipu/torch_dipu/csrc_dipu/profiler/DIPUDeviceActivity.cpp) adds none: its launches and kernels
** carry their link as the flow's id and nowhere else, and a kernel outside any operator carries
** no "External id" either (output_json.cpp writes none for a kernel or runtime call that links no
** operator). Such an activity's launch is the one whose flow ends at it.
**
** The flows, the launches and the activities may come in any order: each is noted as read, and
** matched once the file is read, by (process, thread, time) as written, the two ends of a flow
** where its events lie. Kineto writes a flow for nearly every activity: they are only counted,
** and noted on a second read (tt_options.flows, tt_read.c) where the first met activities that
** neither an operator's External id nor a correlation places, and flows. Only what has no
** correlation of its own is matched.
*/
#include <stdlib.h>
#include <string.h>
#include "tt_num.h"
#include "tt_trace.h"
#include "xp.h"

#define SL_EQ(s, lit) ((s).n == sizeof(lit) - 1 && memcmp((s).p, lit, sizeof(lit) - 1) == 0)

/* A flow's end, or an activity that waits on one: at (thread, ts). */
typedef struct flow_at {
  uint32_t thread; /* tt_rank.threads */
  int64_t ts;
  int64_t id;      /* the flow's id; an activity's ival */
} flow_at;

/* A launch that waits on a flow's start: at (thread, ts), made by process pid. */
typedef struct flow_launch {
  uint32_t thread;
  int64_t ts;
  tt_pid pid;
} flow_launch;

static int by_place(const void *a, const void *b) {
  const flow_at *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static void note_at(tt_rank *r, xp_vec *v, const tt_event *ev, int64_t ts, int64_t id) {
  *(flow_at *)xp_vec_push(v, sizeof(flow_at)) = (flow_at){tt_thread_of(r, ev), ts, id};
}

int tt_flow_event(tt_rank *r, const tt_event *ev, const tt_options *opt) {
  if (!SL_EQ(ev->cat, "\"ac2g\"") && !SL_EQ(ev->cat, "\"async_cpu_to_gpu\"")) return 0;
  r->flow_events++;
  if (!opt->flows) return 1;
  const int start = SL_EQ(ev->ph, "\"s\""), end = SL_EQ(ev->ph, "\"f\"");
  int64_t ts, id;
  if ((!start && !end) || tt_us_to_ns(ev->ts, &ts) != 0 || tt_int(ev->id, &id) != 0 || id <= 0) return 1;
  note_at(r, start ? &r->flow_starts : &r->flow_ends, ev, ts, id);
  return 1;
}

void tt_flow_want_activity(tt_rank *r, const tt_event *ev, const tt_options *opt, int64_t ts, uint32_t ival) {
  r->flow_wants++;
  if (opt->flows) note_at(r, &r->flow_activities, ev, ts, ival);
}

void tt_flow_want_launch(tt_rank *r, const tt_event *ev, const tt_options *opt, int64_t ts) {
  if (!opt->flows) return;
  flow_launch *l = xp_vec_push(&r->flow_launches, sizeof *l);
  l->thread = tt_thread_of(r, ev);
  l->ts = ts;
  tt_pid_set(&l->pid, ev->pid);
}

/* The id of the flow end in ends (sorted) at (thread, ts), 0 if none. Two at one place (a launch
** of two activities at one microsecond, written alike) name the lower id: no order of the file's
** decides. */
static int64_t flow_at_place(const xp_vec *ends, uint32_t thread, int64_t ts) {
  const flow_at *a = ends->data;
  const flow_at want = {thread, ts, INT64_MIN};
  size_t lo = 0, hi = ends->n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (by_place(&a[mid], &want) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < ends->n && a[lo].thread == thread && a[lo].ts == ts ? a[lo].id : 0;
}

/* Each launch that carries no correlation, with its flow's id for one: kept as on_runtime
** (tt_rank.c) keeps a launch that carries one. */
static void link_launches(tt_rank *r) {
  qsort(r->flow_starts.data, r->flow_starts.n, sizeof(flow_at), by_place);
  for (size_t i = 0; i < r->flow_launches.n; i++) {
    const flow_launch *l = XP_VEC_AT(&r->flow_launches, flow_launch, i);
    const int64_t id = flow_at_place(&r->flow_starts, l->thread, l->ts);
    if (!id) continue;
    tt_launch_id_note(r, (tt_slice){l->pid.p, l->pid.n}, id);
    *(tt_launch *)xp_vec_push(&r->launches, sizeof(tt_launch)) = (tt_launch){id, l->ts};
  }
}

/* Each activity that carries no correlation nor an operator's External id, with its flow's id for
** one: placed by its launch, as on_gpu places one that carries a correlation (TT_BY_CORR). */
static void link_activities(tt_rank *r) {
  qsort(r->flow_ends.data, r->flow_ends.n, sizeof(flow_at), by_place);
  for (size_t i = 0; i < r->flow_activities.n; i++) {
    const flow_at *w = XP_VEC_AT(&r->flow_activities, flow_at, i);
    const int64_t id = flow_at_place(&r->flow_ends, w->thread, w->ts);
    if (!id) continue;
    *(tt_pend *)xp_vec_push(&r->pending, sizeof(tt_pend)) = (tt_pend){(uint32_t)w->id, TT_BY_CORR, id};
    if (id > r->corr_max) r->corr_max = id;
  }
}

void tt_flows_link(tt_rank *r) {
  if (r->flow_starts.n && r->flow_launches.n) link_launches(r);
  if (r->flow_ends.n && r->flow_activities.n) link_activities(r);
  xp_vec_free(&r->flow_starts);
  xp_vec_free(&r->flow_ends);
  xp_vec_free(&r->flow_activities);
  xp_vec_free(&r->flow_launches);
}
