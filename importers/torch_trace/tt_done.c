/*
** What a rank's trace adds up to once it has been read: times moved onto the epoch, kernels
** placed in steps, the union of busy intervals per step and over the whole trace, and the
** process group of collective kernels whose args did not name one.
**
** A GPU activity's step is its operator's (the External id link, wherever the file writes the
** operator: one written after its activities is linked only now; an activity whose External id
** is its correlation counts for the operator around its launch, tt_tree.c, but is placed by the
** launch); else the one holding its
** launch's CPU time (an operator read before its step; the runtime or driver call of the same
** correlation, looked up only now: Kineto writes it after the activity); else, where the trace
** records launches and the activity's correlation is below all of theirs, none (launched before
** the profiler began recording); else by stream order between linked activities; else by GPU
** start (place_in_steps).
*/
#include <stdlib.h>
#include <string.h>
#include "tt_trace.h"
#include "xp.h"

void tt_import_init(tt_import *imp, const tt_rules *rules) {
  memset(imp, 0, sizeof *imp);
  imp->rules = rules;
  imp->host_skew_ns = TT_HOST_SKEW_NS;
}

/* What a rank holds only while its file is read and placed: the per-activity records, the
** operator, launch and name maps. tt_rank_done drops it so that memory stays flat across the
** files of a multi-rank import; tt_rank_free of a rank never done drops it too. */
static void free_read_state(tt_rank *r) {
  xp_vec_free(&r->ivals);
  xp_vec_free(&r->gpu_annots);
  xp_vec_free(&r->lanes);
  xp_vec_free(&r->corrs);
  xp_map_free(&r->lane_map);
  xp_idmap_free(&r->ext);
  xp_idmap_free(&r->ext_ts);
  xp_idmap_free(&r->ext_dur);
  xp_vec_free(&r->ext_launches);
  xp_idmap_free(&r->launch_ids);
  xp_idmap_free(&r->graph_launch_ids);
  xp_idmap_free(&r->graph_launch_at);
  xp_vec_free(&r->launches);
  xp_vec_free(&r->pending);
  xp_map_free(&r->kmap);
  xp_map_free(&r->smap);
  xp_vec_free(&r->calls);
  xp_vec_free(&r->p2p_calls);
  xp_vec_free(&r->group_calls);
  xp_vec_free(&r->coll_exts);
  xp_vec_free(&r->labels);
  xp_vec_free(&r->tree_ops);
  xp_vec_free(&r->tree_calls);
  xp_strtab_free(&r->threads);
  xp_vec_free(&r->flow_starts);
  xp_vec_free(&r->flow_ends);
  xp_vec_free(&r->flow_activities);
  xp_vec_free(&r->flow_launches);
  tt_be_free(r->be);
  r->be = NULL;
}

void tt_rank_free(tt_rank *r) {
  if (!r) return;
  free(r->file);
  cJSON_Delete(r->meta);
  xp_vec_free(&r->kstats);
  xp_vec_free(&r->steps);
  xp_vec_free(&r->stepk);
  xp_vec_free(&r->annots);
  xp_vec_free(&r->colls);
  xp_vec_free(&r->shapes);
  free_read_state(r);
  free(r);
}

void tt_import_free(tt_import *imp) {
  for (int i = 0; i < imp->nranks; i++) tt_rank_free(imp->ranks[i]);
  free(imp->ranks);
  xp_strtab_free(&imp->names);
  for (size_t i = 0; i < imp->name_info.n; i++) free(XP_VEC_AT(&imp->name_info, tt_name_info, i)->text);
  xp_vec_free(&imp->name_info);
  xp_strtab_free(&imp->ops);
  xp_strtab_free(&imp->pgs);
  xp_strtab_free(&imp->strs);
  xp_strtab_free(&imp->annot_names);
  free(imp->scratch);
  memset(imp, 0, sizeof *imp);
}

static int by_step_then_start(const void *a, const void *b) {
  const tt_ival *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

static int by_start(const void *a, const void *b) {
  const tt_ival *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Union of the intervals iv[0, n), sorted by start: time covered by at least one of them. */
static int64_t union_ns(const tt_ival *iv, size_t n) {
  if (!n) return 0;
  int64_t busy = 0, s = iv[0].start, e = iv[0].end;
  for (size_t i = 1; i < n; i++) {
    if (iv[i].start > e) {
      busy += e - s;
      s = iv[i].start;
      e = iv[i].end;
    } else if (iv[i].end > e) {
      e = iv[i].end;
    }
  }
  return busy + (e - s);
}

static void shift_times(tt_rank *r) {
  int64_t shift = r->have_base ? r->base_ns : 0;
  /* Kineto writes ts relative to baseTimeNanoseconds; a producer that wrote epoch timestamps
  ** and a base as well must not be shifted twice (1e17 ns is three years). Any activity says
  ** so, not the file's first: that may be a kernel at "ts": 0 (a trace with no CPU event to
  ** leave it out by), the file's order no matter. */
  for (size_t i = 0; i < r->ivals.n && shift; i++)
    if (XP_VEC_AT(&r->ivals, tt_ival, i)->start > 100000000000000000LL) shift = 0;
  if (!shift) return;
  for (size_t i = 0; i < r->ivals.n; i++) {
    tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    v->start += shift, v->end += shift;
  }
  for (size_t i = 0; i < r->steps.n; i++) {
    tt_step *s = XP_VEC_AT(&r->steps, tt_step, i);
    s->start += shift, s->end += shift;
  }
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    c->start += shift, c->end += shift;
  }
  for (size_t i = 0; i < r->pending.n; i++) XP_VEC_AT(&r->pending, tt_pend, i)->ts += shift;
  for (size_t i = 0; i < r->gpu_annots.n; i++) {
    tt_gpu_annot *a = XP_VEC_AT(&r->gpu_annots, tt_gpu_annot, i);
    a->start += shift, a->end += shift;
  }
  if (r->prof_end) r->prof_start += shift, r->prof_end += shift;
}

/* A trace without ProfilerStep#N marks (vLLM's and SGLang's profilers start and stop the
** profiler without stepping it) gets one step spanning its GPU activity, so that its shares
** still answer the queries; the import says so (tt_steps_marked_by). A missing annotation
** that was asked for by name stays a missing one: the user expected it. */
static void window_step(tt_rank *r) {
  const tt_ival *iv = r->ivals.data;
  tt_step *s = xp_vec_push(&r->steps, sizeof *s);
  memset(s, 0, sizeof *s);
  s->start = iv[0].start;
  s->end = iv[0].end;
  for (size_t i = 1; i < r->ivals.n; i++) {
    if (iv[i].start < s->start) s->start = iv[i].start;
    if (iv[i].end > s->end) s->end = iv[i].end;
  }
  s->end++; /* a zero-length activity at the very end still starts inside */
  r->window_step = 1;
}

const char *tt_steps_marked_by(const tt_import *imp, const tt_options *opt) {
  if (opt->step_annotation) return opt->step_annotation;
  int window = imp->nranks > 0;
  for (int i = 0; i < imp->nranks; i++) window &= imp->ranks[i]->window_step;
  return window ? TT_WHOLE_WINDOW : "ProfilerStep#N";
}

/* By correlation, then CPU time: two calls of one id (two processes' in a merged file) come
** in one order whatever the file's, and a lookup finds the same one. */
static int by_corr(const void *a, const void *b) {
  const tt_launch *x = a, *y = b;
  if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The first of the launches l (sorted by id) whose id (correlation or External id) is id or more. */
static size_t first_of(const xp_vec *l, int64_t id) {
  const tt_launch *a = l->data;
  size_t lo = 0, hi = l->n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (a[mid].corr < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* TT_TS_KEEP of the CPU time of the launch written under External id ext with no correlation
** that made the activity which began at start, 0 if none; ext_launches sorted. Of several under
** one id (two replays of a graph in one operator), the latest made at or before the activity
** began, as a launch comes before its work and one made after the activity began is not its
** launch; else the first. Where the GPU ran so far behind that another launch of the id came
** before the activity began, the trace cannot tell them apart, and the later is taken: by time,
** never by which the file wrote last. */
static uint64_t ext_launch_time(const tt_rank *r, int64_t ext, int64_t start) {
  const tt_launch *l = r->ext_launches.data;
  size_t i = first_of(&r->ext_launches, ext), best = i;
  if (i == r->ext_launches.n || l[i].corr != ext) return 0;
  for (; i < r->ext_launches.n && l[i].corr == ext && l[i].ts <= start; i++) best = i;
  return TT_TS_KEEP(l[best].ts);
}

/* TT_TS_KEEP of the CPU time of the launch with correlation id corr that made the activity which
** began at start, 0 if the trace has none; launches sorted by correlation. A graph launch written
** with no correlation is keyed by its External id (tt_rank.c on_runtime), as the older Kineto
** wrote both ids alike. */
static uint64_t launch_time(const tt_rank *r, int64_t corr, int64_t start) {
  const tt_launch *l = r->launches.data;
  const size_t i = first_of(&r->launches, corr);
  if (i < r->launches.n && l[i].corr == corr) return TT_TS_KEEP(l[i].ts);
  return ext_launch_time(r, corr, start);
}

static void sort_by_corr(xp_vec *launches) {
  const tt_launch *l = launches->data;
  for (size_t i = 1; i < launches->n; i++)
    if (by_corr(&l[i], &l[i - 1]) < 0) {
      qsort(launches->data, launches->n, sizeof(tt_launch), by_corr);
      return;
    }
}

/* Are the rank's activities numbered as the file's launches are, so that an id below every
** launch's was made before them? Only where one process made every launch (each numbers its own
** calls, and an activity's process is not written on it: in a merged file the ids of two
** processes collide), and where the two sets of ids meet: an activity's correlation names a
** recorded launch (found: how many of those placed by their launch did; else the rank's largest
** correlation, whose launch a trace recorded to its end holds). The least id over the launches
** is no proof alone: activities numbered apart (another process's that recorded no launch, a
** numbering of ROCm's or an older writer's) all fall below it, and would all leave their steps.
** launches are sorted by correlation. */
static int shares_numbering(const tt_rank *r, size_t found) {
  if (r->launch_procs != 1) return 0;
  return found > 0 || launch_time(r, r->corr_max, INT64_MAX) != 0;
}

/* The operator of an activity that the file had not shown when the activity was read (pd: its
** TT_BY_EXT record), linked now as on_gpu (tt_rank.c) links one read before: -1 if the file has
** no such operator; else the activity is in the operator's step, and 0, or 1 where no step held
** the operator when it was read: then pd becomes the TT_BY_TS record of its CPU time. */
static int link_late(tt_rank *r, tt_pend *pd) {
  const uint64_t v = xp_idmap_get(&r->ext, pd->ts);
  if (!v) return -1;
  tt_ival *iv = XP_VEC_AT(&r->ivals, tt_ival, pd->ival);
  uint64_t t;
  iv->step = tt_link(r, iv->key, iv->end - iv->start, pd->ts, v, &t);
  if (!t) return 0;
  pd->kind = TT_BY_TS;
  pd->ts = TT_TS_BACK(t);
  return 1;
}

/* The operators written after their activities (link_late), then the launch times of the
** activities that wait on them (tt_pend), now that every launch of the file is read. An
** activity with a correlation id but no launch in the trace was launched before the profiler
** began recording (its warm-up) if its id is below every recorded launch's: API calls are
** numbered in the order they are made, and the trace records them from its first microseconds.
** It ran in a step's GPU window, but is no step's work: it stays outside every step, and the
** import says how many did (torch_trace.c). That needs steps of their own (a window step spans
** all GPU activity), a trace that records launches at all (a producer that wrote GPU
** activities alone proves nothing by its ids), and activities numbered as its launches are
** (shares_numbering); where they are not known to be, the rule is not applied, and the import
** says to how many activities it would have been. Any other launch not found (dropped by the
** profiler, a trace cut short) leaves the activity to stream order. */
static void resolve_launches(tt_rank *r) {
  size_t k = 0, found = 0;
  int64_t gaps = 0; /* activities whose correlation lies among the launches', with no launch */
  int sorted = 0; /* sorted only where an activity needs it: a fully linked trace costs nothing */
  for (size_t i = 0; i < r->pending.n; i++) {
    tt_pend pd = *XP_VEC_AT(&r->pending, tt_pend, i);
    if (pd.kind == TT_BY_EXT) {
      const tt_pend *next = i + 1 < r->pending.n ? XP_VEC_AT(&r->pending, tt_pend, i + 1) : NULL;
      const int has_corr = next && next->ival == pd.ival; /* then next is its launch's record */
      if (!has_corr && r->hip && !r->hip_ext_ops) {
        pd.kind = TT_BY_HIP_EXT; /* ROCm's oldest traces: its launch's (on_gpu) */
      } else {
        const int linked = link_late(r, &pd);
        if (linked < 0 && !has_corr && r->hip) {
          pd.kind = TT_BY_HIP_EXT; /* no such operator: the launches under its id, its operator's */
        } else {
          if (linked < 0) continue; /* no such operator: its launch, if it has one, decides */
          i += has_corr;            /* the operator decides */
          if (!linked) continue;
        }
      }
    }
    if (pd.kind != TT_BY_TS && !sorted) {
      sort_by_corr(&r->launches);
      sort_by_corr(&r->ext_launches);
      sorted = 1;
    }
    if (pd.kind != TT_BY_TS) {
      const int64_t start = XP_VEC_AT(&r->ivals, tt_ival, pd.ival)->start;
      const uint64_t v = pd.kind == TT_BY_CORR ? launch_time(r, pd.ts, start) : ext_launch_time(r, pd.ts, start);
      if (!v) {
        if (pd.kind == TT_BY_CORR && pd.ts < r->launch_min && r->steps.n) {
          XP_VEC_AT(&r->ivals, tt_ival, pd.ival)->step = TT_BEFORE_TRACE;
          r->before_trace++;
        }
        gaps += pd.kind == TT_BY_CORR && r->launches.n && pd.ts > r->launch_min &&
                pd.ts < XP_VEC_AT(&r->launches, tt_launch, r->launches.n - 1)->corr;
        continue;
      }
      found += pd.kind == TT_BY_CORR;
      pd.kind = TT_BY_TS;
      pd.ts = TT_TS_BACK(v);
    }
    *XP_VEC_AT(&r->pending, tt_pend, k++) = pd;
  }
  r->pending.n = k;
  /* A trace that records no driver call (Kineto before it read CUPTI's driver API) holds no
  ** cuLaunchKernel, by which Triton's kernels are launched: their correlations fall among the
  ** launches' with none of their own (gaps), and the first, made after the profiler began,
  ** below them all. There an id below every launch's proves nothing either */
  if (!r->before_trace) return;
  const char *why = r->launch_procs > 1 ? "the launches come from several processes (pids), each numbering its own calls"
                    : !shares_numbering(r, found) ? "no activity's correlation id names a launch it records (numbered apart)"
                    : gaps && !r->driver_calls ? "activities among the launches lack theirs too, and the trace records no "
                                                 "driver call (cuLaunchKernel, Triton's launch, which older Kineto did not record)"
                    : NULL;
  if (why) { /* then none was: back to stream order */
    r->before_why = why;
    for (size_t i = 0; i < r->ivals.n; i++)
      if (XP_VEC_AT(&r->ivals, tt_ival, i)->step == TT_BEFORE_TRACE) XP_VEC_AT(&r->ivals, tt_ival, i)->step = -1;
    r->before_unknown = r->before_trace;
    r->before_trace = 0;
  }
}

/* Steps were recorded in the External-id map by order of appearance; map those to positions
** in the sorted array. An activity whose launch's CPU time is known (an operator read before
** its step, a launch no operator claims) goes to the step holding that time, now that all are
** read. Those the links leave outside every step stay at -1 for place_by_stream. */
static void place_by_link(tt_rank *r) {
  size_t ns = r->steps.n;
  int32_t *pos = xp_xcalloc(ns ? ns : 1, sizeof *pos);
  for (size_t i = 0; i < ns; i++) pos[XP_VEC_AT(&r->steps, tt_step, i)->id] = (int32_t)i;
  for (size_t i = 0; i < r->pending.n; i++) {
    const tt_pend *pd = XP_VEC_AT(&r->pending, tt_pend, i);
    const int32_t at = ns ? tt_step_at(&r->steps, pd->ts) : -1;
    if (at >= 0) XP_VEC_AT(&r->ivals, tt_ival, pd->ival)->step = XP_VEC_AT(&r->steps, tt_step, at)->id;
  }
  for (size_t i = 0; i < r->ivals.n; i++) {
    tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    if (v->step != TT_BEFORE_TRACE) v->step = v->step >= 0 && (size_t)v->step < ns ? pos[v->step] : -1;
  }
  free(pos);
}

/* The step of an activity no link placed. s is the step its GPU start falls in (-1: none),
** which is where it was launched only if the GPU kept up with the CPU; on a rank whose GPU runs
** behind, that is a later step. Stream order bounds it: activities on one stream run in launch
** order, so its launch came after that of the linked activity before it on its stream (launched
** in step p) and before that of the one after it (step q); -1 where there is none.
**   p == q: launched between two launches of step p, in step p's window.
**   p < q: launched in step p, in q, in one between, or in a gap between their windows; only
**     the launch's CPU time would say which, and that placed it already where the trace holds
**     the launch (resolve_launches). No launch comes after its activity's GPU start, so s is an
**     upper bound: it stands within [p, q] and is clamped into it elsewhere. A start in no
**     step's window stays outside every step, unless it is past q's start: then q.
**   p > q: threads launched onto the stream out of step order; no bound. */
static int32_t bound_by_stream(const xp_vec *steps, int64_t start, int32_t s, int32_t p, int32_t q) {
  if (p >= 0 && q >= 0 && p > q) return s;
  if (p >= 0 && p == q) return p;
  if (s < 0) return q >= 0 && start >= XP_VEC_AT(steps, tt_step, q)->start ? q : s;
  if (p >= 0 && s < p) return p;
  if (q >= 0 && s > q) return q;
  return s;
}

typedef struct lane_pos { /* an activity on a lane that holds one no link placed */
  int64_t start, end;
  const char *name;
  uint32_t lane, ival, key;
  int32_t step; /* its linked step, -1 none */
} lane_pos;

/* Stream order: by start, and two of one start (a zero-length one, a clock too coarse) by what
** they are, never by the file's order, which would decide whether the unplaced one came before or
** after a linked one and so its step: the shorter first (it ended first), then by name, then
** collective, then the linked step (unplaced first); what is still equal is alike in every figure. */
static int by_lane_then_start(const void *a, const void *b) {
  const lane_pos *x = a, *y = b;
  if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  const int c = x->key == y->key ? 0 : strcmp(x->name, y->name);
  if (c) return c;
  if (x->key != y->key) return TT_KEY_COLL(x->key) < TT_KEY_COLL(y->key) ? -1 : 1;
  return (x->step > y->step) - (x->step < y->step);
}

/* Place the unplaced activities of a run lp[0, n) on one lane (in stream order) between linked
** ones in steps p and q. */
static void place_run(tt_rank *r, const lane_pos *lp, size_t n, int32_t p, int32_t q) {
  for (size_t i = 0; i < n; i++) {
    tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, lp[i].ival);
    v->step = bound_by_stream(&r->steps, v->start, tt_step_at(&r->steps, v->start), p, q);
  }
}

/* 1 if no step's window overlaps the next one's: then a step's position in the sorted array
** orders its times too, which bound_by_stream relies on. A step nested in another (an
** annotation inside an annotation) holds times that lie between two of the outer's. */
int tt_steps_disjoint(const xp_vec *steps) {
  for (size_t i = 1; i < steps->n; i++)
    if (XP_VEC_AT(steps, tt_step, i)->start < XP_VEC_AT(steps, tt_step, i - 1)->end) return 0;
  return 1;
}

/* Activities no link placed, on a stream with linked ones: by stream order (bound_by_stream),
** where the steps are disjoint. Only the lanes that hold both kinds are sorted: a fully linked
** trace, or one linking none (old Kineto), costs one pass. */
static void place_by_stream(const tt_import *imp, tt_rank *r) {
  const uint32_t *lanes = r->lanes.data;
  const size_t nl = r->lane_map.n;
  if (!r->steps.n || !nl || r->lanes.n != r->ivals.n || !tt_steps_disjoint(&r->steps)) return;
  unsigned char *held = xp_xcalloc(nl, 1); /* per lane: 1 an unplaced activity, 2 a linked one */
  size_t nrec = 0;
  /* one launched before the trace neither is placed nor bounds others: it is left out */
#define LANE_OF(i) (XP_VEC_AT(&r->ivals, tt_ival, i)->step == TT_BEFORE_TRACE ? TT_NO_LANE : lanes[i])
  for (size_t i = 0; i < r->ivals.n; i++)
    if (LANE_OF(i) < nl) held[lanes[i]] |= XP_VEC_AT(&r->ivals, tt_ival, i)->step < 0 ? 1 : 2;
  for (size_t i = 0; i < r->ivals.n; i++) nrec += LANE_OF(i) < nl && held[lanes[i]] == 3;
  if (!nrec) {
    free(held);
    return;
  }
  lane_pos *lp = xp_xmalloc(nrec * sizeof *lp);
  for (size_t i = 0, k = 0; i < r->ivals.n; i++) {
    if (LANE_OF(i) >= nl || held[lanes[i]] != 3) continue;
    const tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    lp[k] = (lane_pos){v->start, v->end, imp->names.str[TT_KEY_NAME(v->key)], lanes[i], (uint32_t)i, v->key,
                       v->step < 0 ? -1 : v->step};
    k++;
  }
  free(held);
  qsort(lp, nrec, sizeof *lp, by_lane_then_start);
  size_t run = 0; /* first unplaced activity since the last linked one on the lane */
  int32_t p = -1;
  for (size_t k = 0; k < nrec; k++) {
    if (k > 0 && lp[k].lane != lp[k - 1].lane) {
      place_run(r, lp + run, k - run, p, -1);
      run = k, p = -1;
    }
    const int32_t step = XP_VEC_AT(&r->ivals, tt_ival, lp[k].ival)->step;
    if (step < 0) continue;
    place_run(r, lp + run, k - run, p, step);
    run = k + 1, p = step;
  }
  place_run(r, lp + run, nrec - run, p, -1);
  free(lp);
#undef LANE_OF
}

/* Where the links leave an activity (its operator's step, or the step holding its launch's
** CPU time), then stream order, then, on a lane of its own or with no stream named, the step
** its GPU start falls in (which place_by_stream already gave the activities it left at -1:
** those stay there). One launched before the trace (resolve_launches) stays outside. */
static void place_in_steps(const tt_import *imp, tt_rank *r) {
  place_by_link(r);
  place_by_stream(imp, r);
  for (size_t i = 0; i < r->ivals.n; i++) {
    tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    if (v->step == TT_BEFORE_TRACE) v->step = -1;
    else if (v->step < 0 && r->steps.n) v->step = tt_step_at(&r->steps, v->start);
  }
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    c->step = XP_VEC_AT(&r->ivals, tt_ival, c->ival)->step;
  }
}

/* Per step: its activities' figures, and its communication's against the rank's hiders h
** (tt_hiders_of). */
static void step_figures(const tt_import *imp, tt_rank *r, const tt_hiders *h) {
  tt_ival *iv = r->ivals.data;
  size_t n = r->ivals.n;
  qsort(iv, n, sizeof *iv, by_step_then_start);
  xp_map m = {0};
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && iv[j].step == iv[i].step) j++;
    if (iv[i].step >= 0) {
      tt_step *s = XP_VEC_AT(&r->steps, tt_step, iv[i].step);
      s->busy_ns = union_ns(iv + i, j - i);
      tt_comm_exposed(imp, iv + i, j - i, h, &s->comm);
      s->gpu_start = iv[i].start;
      s->gpu_end = iv[i].end;
      for (size_t k = i; k < j; k++) {
        s->kernels++;
        s->kernel_ns += iv[k].end - iv[k].start;
        if (iv[k].end > s->gpu_end) s->gpu_end = iv[k].end;
        int added;
        uint64_t mk = (uint64_t)(uint32_t)iv[k].step << 32 | iv[k].key;
        uint32_t slot = xp_map_put(&m, mk, (uint32_t)r->stepk.n, &added);
        tt_stepk *sk = added ? xp_vec_push(&r->stepk, sizeof *sk) : XP_VEC_AT(&r->stepk, tt_stepk, slot);
        sk->step = iv[k].step;
        sk->key = iv[k].key;
        sk->count++;
        sk->total += iv[k].end - iv[k].start;
      }
    }
    i = j;
  }
  xp_map_free(&m);
}

static void whole_trace_figures(const tt_import *imp, tt_rank *r, const tt_hiders *h) {
  tt_ival *iv = r->ivals.data;
  size_t n = r->ivals.n;
  qsort(iv, n, sizeof *iv, by_start);
  r->busy_ns = union_ns(iv, n);
  tt_comm_exposed(imp, iv, n, h, &r->comm);
  r->kernel_ns = 0;
  if (n) r->gpu_start = iv[0].start, r->gpu_end = iv[0].end;
  for (size_t i = 0; i < n; i++) {
    r->kernel_ns += iv[i].end - iv[i].start;
    if (iv[i].end > r->gpu_end) r->gpu_end = iv[i].end;
  }
}

/* The ranks of a distributedInfo.pg_config entry as kernel args write them ("[0, 1]": Kineto's
** on-demand writer gives the string itself) into list; their count, -1 where none are listed.
** Past 30 members the args list the first 29 and the last, "[0, 1, ..., 28, ..., 63]" (saveNcclMeta,
** torch/csrc/profiler/util.cpp: kTruncatLength), and so does list: one group, one key. */
static int pg_config_ranks(const cJSON *pg, char *list, size_t cap) {
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(pg, "ranks"), *x;
  int n = 0;
  list[0] = 0;
  if (cJSON_IsArray(ranks)) {
    const int size = cJSON_GetArraySize(ranks), cut = size > 30;
    size_t off = (size_t)snprintf(list, cap, "[");
    cJSON_ArrayForEach(x, ranks) {
      const int shown = !cut || n < 29 || n == size - 1;
      if (shown && off < cap)
        off += (size_t)snprintf(list + off, cap - off, "%s%s%d", n ? ", " : "", cut && n == size - 1 ? "..., " : "",
                                x->valueint);
      n++;
    }
    if (off < cap) snprintf(list + off, cap - off, "]");
    return n;
  }
  if (!cJSON_IsString(ranks)) return -1;
  snprintf(list, cap, "%s", ranks->valuestring);
  for (const char *p = ranks->valuestring; *p;) {
    char *e;
    (void)strtoll(p, &e, 10);
    if (e == p) p++;
    else n++, p = e;
  }
  return n;
}

/* Is rank r among a ranks list ("[0, 1]")? */
static int listed(const char *list, int64_t r) {
  for (const char *p = list; *p;) {
    char *e;
    const long long v = strtoll(p, &e, 10);
    if (e == p) p++;
    else if (v == r) return 1;
    else p = e;
  }
  return 0;
}

/* Is rank r a member of a pg_config entry's group? Its "ranks" array, every member, else the
** list as written. */
static int pg_config_has(const cJSON *pg, int64_t r) {
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(pg, "ranks"), *x;
  if (cJSON_IsString(ranks)) return listed(ranks->valuestring, r);
  cJSON_ArrayForEach(x, ranks) if (cJSON_IsNumber(x) && xp_saturate_int64(x->valuedouble) == r) return 1;
  return 0;
}

/* A pg_config entry's process group in the form kernel args use ("name\x1fdescription\x1f[0, 1]"). */
static int32_t configured_pg(tt_import *imp, const cJSON *pg) {
  const cJSON *nm = cJSON_GetObjectItemCaseSensitive(pg, "pg_name");
  const cJSON *desc = cJSON_GetObjectItemCaseSensitive(pg, "pg_desc");
  if (!cJSON_IsString(nm)) return -1;
  char list[512];
  pg_config_ranks(pg, list, sizeof list);
  char *key = xp_asprintf("%s\x1f%s\x1f%s", nm->valuestring, cJSON_IsString(desc) ? desc->valuestring : "", list);
  int32_t id = (int32_t)xp_strtab_intern(&imp->pgs, key, strlen(key), NULL);
  free(key);
  return id;
}

/* The process group of the trace's only group, from distributedInfo.pg_config; -1 if there is
** not exactly one. */
static int32_t only_configured_pg(tt_import *imp, const tt_rank *r) {
  cJSON *di = cJSON_GetObjectItemCaseSensitive(r->meta, "distributedInfo");
  cJSON *pgc = cJSON_GetObjectItemCaseSensitive(di, "pg_config");
  if (!cJSON_IsArray(pgc) || cJSON_GetArraySize(pgc) != 1) return -1;
  return configured_pg(imp, cJSON_GetArrayItem(pgc, 0));
}

/* The rank's one configured group of `size` ranks (its own among them), for a kernel whose args
** give the group's size but not its name (saveNcclMeta writes "Group size" always, the name only
** where c10d's is not empty, and none before it wrote names at all): two TP=2
** groups of a job of four are told apart so, each rank's group its own. A rank set configured
** twice (vLLM makes a gloo group beside each NCCL one) is one group, the NCCL one; -1 where the
** rank is in no group of that size, or in several. */
static int32_t configured_pg_of_size(tt_import *imp, const tt_rank *r, int64_t size) {
  cJSON *di = cJSON_GetObjectItemCaseSensitive(r->meta, "distributedInfo");
  cJSON *pgc = cJSON_GetObjectItemCaseSensitive(di, "pg_config"), *pg;
  const cJSON *best = NULL;
  char list[512], best_list[512] = "";
  if (r->rank < 0 || size < 2) return -1;
  cJSON_ArrayForEach(pg, pgc) {
    if (pg_config_ranks(pg, list, sizeof list) != size || !pg_config_has(pg, r->rank)) continue;
    if (best && strcmp(list, best_list) != 0) return -1; /* two groups of that size: which? */
    const cJSON *be = cJSON_GetObjectItemCaseSensitive(pg, "backend_config");
    if (!best || (cJSON_IsString(be) && strstr(be->valuestring, "nccl"))) best = pg;
    snprintf(best_list, sizeof best_list, "%s", list);
  }
  return best ? configured_pg(imp, best) : -1;
}

/* A collective kernel whose args name no process group (launched before the profiler saw the
** call, or with no record_param_comms of its External id: older PyTorch) belongs to the group of
** the other collectives on its stream, where they all name one: ProcessGroupNCCL gives each
** process group a stream of its own per device (initNCCLComm: ncclStreams_.emplace(deviceKey, ...),
** torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp). Not where they name several: since
** pytorch/pytorch#150398 (2.8) a collective called with async_op=False runs on the caller's
** current stream, every group's on the compute stream, and the pool its streams come from is
** reused past 32; the collective before it on such a stream may be another group's (an EP
** all-to-all before a TP all-reduce), matched there with the wrong ranks. Failing that, to the
** rank's one configured group of its size, else to the trace's only configured group. */
typedef struct named_at { /* a collective that names its group, on its stream */
  uint64_t stream;
  int32_t pg;
} named_at;

static int by_stream_then_pg(const void *a, const void *b) {
  const named_at *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return (x->pg > y->pg) - (x->pg < y->pg);
}

#define STREAM_KEY(c) ((uint64_t)(uint32_t)(c)->device << 32 | (uint32_t)(c)->stream)

/* The one group every named collective on stream names, -1 if they name none or several; na
** sorted by stream, then group, so a stream's first and last entries tell. */
static int32_t group_on_stream(const named_at *na, size_t n, uint64_t stream) {
  size_t lo = 0, hi = n; /* the stream's first entry */
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (na[mid].stream < stream) lo = mid + 1;
    else hi = mid;
  }
  if (lo == n || na[lo].stream != stream) return -1;
  size_t end = n; /* past its last, found as its first: every kernel of a stream asks */
  for (size_t a = lo; a < end;) {
    const size_t mid = a + (end - a) / 2;
    if (na[mid].stream <= stream) a = mid + 1;
    else end = mid;
  }
  return na[lo].pg == na[end - 1].pg ? na[lo].pg : -1;
}

static void resolve_groups(tt_import *imp, tt_rank *r) {
  size_t n = 0, unnamed = 0;
  for (size_t i = 0; i < r->colls.n; i++) unnamed += XP_VEC_AT(&r->colls, tt_collk, i)->pg < 0;
  if (!unnamed) return;
  named_at *na = xp_xmalloc((r->colls.n - unnamed + 1) * sizeof *na);
  for (size_t i = 0; i < r->colls.n; i++) {
    const tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    if (c->pg >= 0) na[n++] = (named_at){STREAM_KEY(c), c->pg};
  }
  qsort(na, n, sizeof *na, by_stream_then_pg);
  int32_t only = -2;
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    if (c->pg >= 0) continue;
    const int32_t pg = group_on_stream(na, n, STREAM_KEY(c));
    if (pg >= 0) {
      c->pg = pg;
      continue;
    }
    if ((c->pg = configured_pg_of_size(imp, r, c->group_size)) >= 0) continue;
    if (only == -2) only = only_configured_pg(imp, r);
    c->pg = only;
  }
  free(na);
}
#undef STREAM_KEY

static int by_ext(const void *a, const void *b) {
  const int64_t x = ((const tt_call *)a)->ext, y = ((const tt_call *)b)->ext;
  return (x > y) - (x < y);
}

/* What the calls of the device's own collective kernels name (tt_rank.own): a kernel and its
** record_param_comms share an External id. */
static void own_calls(tt_rank *r) {
  if (!r->calls.n) return; /* (no array: qsort and bsearch of NULL are undefined, not nothing) */
  qsort(r->calls.data, r->calls.n, sizeof(tt_call), by_ext);
  for (size_t i = 0; i < r->coll_exts.n; i++) {
    const tt_call key = {*XP_VEC_AT(&r->coll_exts, int64_t, i), 0, 0};
    const tt_call *c = bsearch(&key, r->calls.data, r->calls.n, sizeof(tt_call), by_ext);
    if (c) tt_comms_add(&r->own, c->rank, c->world);
  }
}

/* The peer of each send and recv kernel whose args do not name it, as its call's record_param_comms
** does (Kineto writes the peer on the call alone: the shipped PyTorch 2.11 traces' kernels carry no
** "Rank"): they share an External id. */
static void p2p_peers(tt_rank *r) {
  if (!r->p2p_calls.n) return;
  qsort(r->p2p_calls.data, r->p2p_calls.n, sizeof(tt_call), by_ext);
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    if (c->coll != TT_COLL_SENDRECV || c->peer >= 0 || c->ext <= 0) continue;
    const tt_call key = {c->ext, 0, 0};
    const tt_call *call = bsearch(&key, r->p2p_calls.data, r->p2p_calls.n, sizeof(tt_call), by_ext);
    if (call) c->peer = call->rank;
  }
}

/* Digits at *p (c10d's ranks are ints: at most 9), moved past; -1 where there are none. */
static int64_t name_digits(const char **p) {
  const char *at = *p;
  int64_t n = 0;
  for (; **p >= '0' && **p <= '9' && *p - at < 9; (*p)++) n = n * 10 + (**p - '0');
  return *p > at ? n : -1;
}

/* "-KEY-N" at *p (KEY "DP", "PP" or "EP"), moved past: N, else -1 and *p as it was. */
static int64_t name_part(const char **p, const char *key) {
  const size_t k = strlen(key);
  if ((*p)[0] != '-' || strncmp(*p + 1, key, k) != 0 || (*p)[k + 1] != '-') return -1;
  const char *q = *p + k + 2;
  const int64_t n = name_digits(&q);
  if (n >= 0) *p = q;
  return n;
}

/* SGLang's scheduler writes each TP worker's trace as "{profile_id}-TP-{tp_rank}{-stage}.trace.json.gz"
** (python/sglang/srt/managers/scheduler_profiler_mixin.py of sgl-project/sglang at 034c23f; the stage
** "-prefill", "-decode", or its ForwardMode as Python prints it), and newer ones add "-DP-d", "-PP-p" and
** "-EP-e", in that order, each where its size is above 1 (python/sglang/srt/utils/profile_utils.py at
** 01144484, _ProfilerTorch.stop). Its model runner's world is TP x PP, rank tp_size x pp_rank + tp_rank
** (model_executor/model_runner.py, init_torch_distributed): the TP rank is the rank where the PP rank is 0
** or absent. Its expert groups are carved out of the TP group and its attention DP ranks from the TP rank,
** so "-EP-" and "-DP-" change nothing; a DP replica without DP attention is a world of its own, the TP
** rank its rank there. A PP rank above 0 needs the TP size, which the name does not give: not read, nor
** is a name with anything else after the ranks than one "-stage" (a rank xp does not know: "-TP-1-CP-1"
** is not rank 1). *form says which it was, or why not read. */
static const char sglang_dp_form[] = "SGLang's \"-TP-N-DP-M\": its TP rank, the rank in its DP replica's world "
                                     "(one world of all with DP attention)";

static int64_t sglang_name_rank(const char *base, const char **form, const char **stage) {
  const char *at = NULL;
  for (const char *p = strstr(base, "TP-"); p; p = strstr(p + 1, "TP-"))
    if (p == base || p[-1] == '-') at = p;
  if (!at) return -1;
  const char *p = at + strlen("TP-");
  const int64_t tp = name_digits(&p);
  if (tp < 0) return -1;
  const int64_t dp = name_part(&p, "DP"), pp = name_part(&p, "PP");
  name_part(&p, "EP");
  *stage = *p == '-' ? p : NULL;
  if (*p == '-') /* one stage: letters, digits, '_' (ForwardMode.EXTEND's '.' ends it as an extension) */
    for (p++; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'; p++) {}
  if (*p != '.' && *p != 0) {
    *form = "SGLang's \"-TP-N\" followed by ranks xp does not know";
    return -1;
  }
  if (pp > 0) {
    *form = "SGLang's \"-TP-N-PP-P\" with P above 0, the rank tp_size x P + N (its model runner's), and the "
            "name gives no TP size";
    return -1;
  }
  *form = dp >= 0 ? sglang_dp_form : "SGLang's \"-TP-N\"";
  return tp;
}

static const char rank_n_form[] = "TensorRT-LLM's or vLLM's \"-rank-N\"";

/* "TAG" and digits at *p, moved past: the digits, else -1 and *p as it was. */
static int64_t tagged(const char **p, const char *tag) {
  const size_t k = strlen(tag);
  if (strncmp(*p, tag, k) != 0) return -1;
  const char *q = *p + k;
  const int64_t n = name_digits(&q);
  if (n >= 0) *p = q;
  return n;
}

static const char vllm_dims_form[] = "vLLM's \"dp0_ppP_tpT_dcpC_epE_rankN\"";

/* vLLM since its 0.17 (vllm-project/vllm#33198) names each worker's trace
** "{profile_prefix_}dp{D}_pp{P}_tp{T}_dcp{C}_ep{E}_rank{N}.{ns}.pt.trace.json.gz" (get_worker_rank_suffix
** of vllm/distributed/utils.py, through tensorboard_trace_handler), N the worker's rank within its
** data-parallel replica (gpu_worker.py's self.rank), D the replica's. Its torch world's rank is D x
** the replica's GPUs (TP x PP x PCP) + N (init_distributed_environment of vllm/distributed/parallel_state.py;
** a dense model's replicas are each a world of their own, D 0 in every one): N where D is 0. Where D
** is above 0 the name gives no replica size: not read, said. */
static int64_t vllm_dims_rank(const char *base, const char **form) {
  int64_t rank = -1, dp = -1;
  for (const char *at = strstr(base, "dp"); at; at = strstr(at + 1, "dp")) {
    if (at != base && at[-1] != '_') continue;
    const char *p = at;
    const int64_t d = tagged(&p, "dp");
    if (d < 0 || tagged(&p, "_pp") < 0 || tagged(&p, "_tp") < 0 || tagged(&p, "_dcp") < 0 ||
        tagged(&p, "_ep") < 0)
      continue;
    const int64_t n = tagged(&p, "_rank");
    if (n >= 0 && (*p == '.' || *p == 0)) rank = n, dp = d; /* the last such, as "-rank-N" */
  }
  if (rank < 0) return -1;
  if (dp > 0) {
    *form = "vLLM's \"dpD_ppP_tpT_dcpC_epE_rankN\" with D above 0, the rank D x its replica's GPUs (TP x PP x PCP) + N "
            "(its init_distributed_environment's), and the name gives no replica size";
    return -1;
  }
  *form = vllm_dims_form;
  return rank;
}


/* TensorRT-LLM's PyTorch backend writes each rank's trace to the path TLLM_TORCH_PROFILE_TRACE
** gives with "-rank-N" before its extension (py_executor.py, os.path.splitext: "trace.json" gives
** "trace-rank-3.json", "trace.json.gz" "trace.json-rank-3.gz"; its /start_profile writes
** "trtllm-trace-ID-rank-N.json"), and its traces carry no distributedInfo nor record_param_comms
** (its ranks talk through MPI and its own NCCL communicators): the name is all that says the rank.
** vLLM's workers name theirs "{instance_id}-rank-{rank}.{ns}.pt.trace.json.gz" (worker_name of
** vllm/v1/worker/gpu_worker.py at 35d5cda, through torch's tensorboard_trace_handler).
** The last "-rank-" of the file's name, followed by digits that end the name or a '.'; else
** vLLM's newer form (vllm_dims_rank), else SGLang's (sglang_name_rank). */
/* A path's file name, after its last '/'. */
static const char *file_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int64_t tt_name_rank(const char *path, const char **form) {
  const char *base = file_name(path), *at = NULL;
  *form = NULL;
  for (const char *p = strstr(base, "-rank-"); p; p = strstr(p + 1, "-rank-")) at = p;
  if (!at) {
    const int64_t rank = vllm_dims_rank(base, form);
    const char *stage;
    return rank >= 0 || *form ? rank : sglang_name_rank(base, form, &stage);
  }
  const char *p = at + strlen("-rank-");
  const int64_t rank = name_digits(&p);
  if (rank < 0 || (*p != 0 && *p != '.')) return -1;
  *form = rank_n_form;
  return rank;
}

/* The DP rank of SGLang's "-DP-M" in a file's name (the last), -1 if none. */
static int64_t name_dp(const char *path) {
  const char *at = NULL;
  for (const char *p = strstr(path, "-DP-"); p; p = strstr(p + 1, "-DP-")) at = p;
  if (!at) return -1;
  at += strlen("-DP-");
  return name_digits(&at);
}

/* Why files a and b of one rank may be two data-parallel replicas' workers, as their names say
** (the same rank in the same form): a clause to end the refusal with, else "". vLLM's "-rank-N" is
** the rank within its replica (d82d947: several replicas' files name each rank again), a dense
** model's replicas are each a world of its own, all named dp0, and SGLang's without DP attention
** too (two DP ranks named); where a job's replicas are one world (a MoE model's), --ranks gives the
** world's ranks. */
const char *tt_name_replicas(const tt_rank *a, const tt_rank *b) {
  if (!a->name_form || a->name_form != b->name_form || a->name_rank < 0 || a->name_rank != b->name_rank) return "";
  if (a->name_form == rank_n_form)
    return ": where these are vLLM's workers, \"-rank-N\" is the rank within a data-parallel replica: import each "
           "replica's files as a run of its own, or, where the replicas are one job (a MoE model's), give the world's "
           "ranks (replica x its GPUs + N) with --ranks R0,R1,...";
  if (a->name_form == vllm_dims_form)
    return ": vLLM names every data-parallel replica of a dense model dp0, each a job of its own: import each "
           "replica's files as a run of its own";
  if (a->name_form == sglang_dp_form && name_dp(a->file) != name_dp(b->file))
    return ": SGLang's data-parallel replicas without DP attention are each a job of its own: import each "
           "replica's files as a run of its own";
  return "";
}

/* Are files a and b of one rank SGLang's traces of two stages, as its --profile-by-stage (or
** /start_profile with "profile_by_stage") writes a file per stage, "-TP-0-prefill" and
** "-TP-0-decode" (profile_utils.py's output_suffix)? */
int tt_name_stages(const tt_rank *a, const tt_rank *b) {
  const char *form, *sa = NULL, *sb = NULL;
  if (sglang_name_rank(file_name(a->file), &form, &sa) < 0 || sglang_name_rank(file_name(b->file), &form, &sb) < 0 ||
      !sa || !sb)
    return 0;
  const size_t na = strcspn(sa, "."), nb = strcspn(sb, ".");
  return na != nb || strncmp(sa, sb, na) != 0;
}

/* Calls by External id, then group, size and Seq, then collective and data type: the calls of one
** id that agree on the group lie together, and agree on the collective too where the first and
** last of them do. */
static int by_group_call(const void *a, const void *b) {
  const tt_group_call *x = a, *y = b;
  if (x->ext != y->ext) return (x->ext > y->ext) - (x->ext < y->ext);
  if (x->pg != y->pg) return (x->pg > y->pg) - (x->pg < y->pg);
  if (x->size != y->size) return (x->size > y->size) - (x->size < y->size);
  if (x->seq != y->seq) return (x->seq > y->seq) - (x->seq < y->seq);
  if (x->coll != y->coll) return (x->coll > y->coll) - (x->coll < y->coll);
  return (x->dtype > y->dtype) - (x->dtype < y->dtype);
}

/* Do the calls a and b (sorted by by_group_call) name one group, size and Seq? */
static int same_group(const tt_group_call *a, const tt_group_call *b) {
  return a->pg == b->pg && a->size == b->size && a->seq == b->seq;
}

/* A collective's one element count from its other, as c10d's record_param_comms relate them
** (intel/torch-xpu-ops src/xccl/ProcessGroupXCCL.cpp at 0029c2c2, RECORD_PARAM_COMMS_DATA's
** inNelems and outNelems, as ProcessGroupNCCL's): an all-reduce's, broadcast's, send's and recv's
** input and output are one tensor's numel; an all-gather's output is its input times the group's
** size ("Group size", worldSize), a reduce-scatter's input its output times it. An all-to-all's
** splits and the others' (gather, scatter, reduce) are not told: -1 stays -1, as it does where the
** size or the division does not come out whole. */
static int64_t count_from_other(enum tt_coll coll, int64_t other, int other_is_out, int64_t size) {
  if (other < 0) return -1;
  if (coll == TT_COLL_ALLREDUCE || coll == TT_COLL_BROADCAST || coll == TT_COLL_SENDRECV) return other;
  if (size <= 0 || (coll != TT_COLL_ALLGATHER && coll != TT_COLL_REDUCE_SCATTER)) return -1;
  /* the larger side: an all-gather's output, a reduce-scatter's input */
  if ((coll == TT_COLL_ALLGATHER) == other_is_out) return other % size ? -1 : other / size;
  return other <= INT64_MAX / size ? other * size : -1;
}

/* A collective kernel whose args name no collective (an XCCL kernel: oneccl_reduce_base<float,
** ...> has none, intel/torch-xpu-ops#5384) takes its call's, with the call's data type and
** element counts where it names none, the one the call leaves out made up from the other
** (count_from_other): from then on it is that collective's, as a kernel naming it is (its key,
** and so trace_kernels.coll, the categories, the step's). 1 where it took one. */
static int coll_from_call(tt_rank *r, tt_collk *c, const tt_group_call *a) {
  if (c->from_args || a->coll == TT_COLL_NONE) return 0;
  tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, c->ival);
  c->coll = (enum tt_coll)a->coll;
  c->from_args = 1;
  c->key = v->key = TT_KEY(TT_KEY_NAME(c->key), c->coll);
  if (c->dtype < 0) c->dtype = a->dtype, c->elem_size = a->elem_size;
  if (c->in_nelems < 0) c->in_nelems = a->in_nelems;
  if (c->out_nelems < 0) c->out_nelems = a->out_nelems;
  if (c->in_nelems < 0) c->in_nelems = count_from_other(c->coll, c->out_nelems, 1, c->group_size);
  if (c->out_nelems < 0) c->out_nelems = count_from_other(c->coll, c->in_nelems, 0, c->group_size);
  return 1;
}

/* The kernels that took their collective from their call (coll_from_call) and still have no
** bytes for a side (no dtype, or a count neither the call nor the other count gives), said
** once: trace_collectives' in_bytes or out_bytes stay empty for them. */
static void warn_no_bytes(const tt_import *imp, const tt_rank *r, int64_t n, const tt_collk *first) {
  if (!n) return;
  xp_warn("%s: %lld collective kernel%s naming no collective (XCCL's) and %s record_param_comms give%s no message "
          "size (\"In msg nelems\", \"Out msg nelems\" or dtype) for a side: %s bytes left empty (the first, of %.80s)",
          r->file, (long long)n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "s" : "",
          n == 1 ? "its" : "their", imp->names.str[TT_KEY_NAME(first->key)]);
}

/* What a collective kernel's args leave out, its call's record_param_comms gives (they share an
** External id): its process group, "Group size" and "Seq", which Kineto copied onto the kernel
** only from some version on (the group from pytorch/kineto#880, 2024; "Seq" from #1296, 2026,
** while PyTorch wrote it on the call from pytorch's #1294 counterpart before), so that a
** job's two groups of one size (TP=2 and DP=2) are told apart and kernels pair by number; and the
** collective (coll_from_call). Only where the calls of that id agree; a kernel's own args are kept. */
static void groups_from_calls(const tt_import *imp, tt_rank *r) {
  if (!r->group_calls.n) return;
  qsort(r->group_calls.data, r->group_calls.n, sizeof(tt_group_call), by_group_call);
  const tt_group_call *g = r->group_calls.data, *end = g + r->group_calls.n;
  int rekeyed = 0;
  int64_t no_bytes = 0;
  const tt_collk *first = NULL;
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    if (c->ext <= 0 || (c->pg >= 0 && c->group_size > 0 && c->seq >= 0 && c->from_args)) continue;
    size_t lo = 0, hi = r->group_calls.n; /* the first call of id c->ext */
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (g[mid].ext < c->ext) lo = mid + 1;
      else hi = mid;
    }
    const tt_group_call *a = g + lo, *b = a;
    while (b + 1 < end && b[1].ext == c->ext) b++;
    if (a == end || a->ext != c->ext || !same_group(a, b)) continue; /* none, or calls that differ */
    if (c->pg < 0) c->pg = a->pg;
    if (c->group_size <= 0) c->group_size = a->size;
    if (c->seq < 0) c->seq = a->seq;
    if (by_group_call(a, b) == 0 && coll_from_call(r, c, a)) {
      rekeyed = 1;
      if (c->elem_size > 0 && c->in_nelems >= 0 && c->out_nelems >= 0) continue;
      if (!no_bytes++) first = c;
    }
  }
  if (rekeyed) tt_kstats_again(r);
  warn_no_bytes(imp, r, no_bytes, first);
}

/* The rank: the one given, else distributedInfo's, else, for a file read whole or on its main
** device (a device of a file of several is ranked by tt_read.c split_devices), the one its
** record_param_comms name, else the one its file's name gives (tt_name_rank), said. The world
** size, where distributedInfo gives none: the default group's they name. */
static void rank_of(tt_rank *r, const tt_options *opt) {
  const int64_t comms = tt_comms_rank(&r->comms), world = r->world_size;
  int by_comms = 0;
  if (opt->rank >= 0) {
    const int64_t says = r->trace_rank >= 0 ? r->trace_rank : comms;
    if (says >= 0 && says != opt->rank)
      xp_warn("%s: the trace says rank %lld%s; recorded as rank %lld as asked", r->file, (long long)says,
              r->trace_rank >= 0 ? "" : " (its record_param_comms)", (long long)opt->rank);
    r->rank = opt->rank;
    r->rank_source = "option";
  } else if (r->trace_rank >= 0) {
    r->rank = r->trace_rank;
    r->rank_source = "trace";
    /* distributedInfo is the profiler's own record of the process, kept; but a tool that copied
    ** another rank's top-level keys into a merged or edited file would make it wrong, and the
    ** calls the process made say so: said (a device of a file of several is ranked elsewhere) */
    char label[TT_LABEL_MAX + 2];
    if (comms >= 0 && comms != r->trace_rank && (!opt->device || opt->main_device) && opt->label)
      /* a merged file's rank, ranked by its pids' label (tt_read.c read_labels) */
      xp_warn("%s: the pids labelled %s are rank %lld but its record_param_comms name rank %lld: recorded as rank "
              "%lld, the label's", r->file, tt_label_text(opt->label, label, sizeof label), (long long)r->trace_rank,
              (long long)comms, (long long)r->rank);
    else if (comms >= 0 && comms != r->trace_rank && (!opt->device || opt->main_device))
      xp_warn("%s: distributedInfo.rank is %lld but its record_param_comms name rank %lld: recorded as rank %lld, "
              "distributedInfo's (were its top-level keys copied from another rank's trace?)", r->file,
              (long long)r->trace_rank, (long long)comms, (long long)r->rank);
  } else if ((!opt->device || opt->main_device) && comms >= 0) {
    r->rank = comms;
    r->rank_source = "comms";
    by_comms = 1;
  } else if ((!opt->device || opt->main_device) && r->name_rank >= 0) {
    r->rank = r->name_rank;
    r->rank_source = "file_name";
    xp_warn("%s: no distributedInfo.rank in the trace and no record_param_comms naming one: rank %lld, as the "
            "file's name says (%s)", r->file, (long long)r->rank, r->name_form);
  } else if ((!opt->device || opt->main_device) && r->name_form)
    xp_warn("%s: no distributedInfo.rank in the trace and no record_param_comms naming one, and the file's name's "
            "ranks not read: %s", r->file, r->name_form);
  /* a name that says another rank than the trace: a file renamed, or another rank's copied; or
  ** vLLM's worker of a data-parallel job, named by its rank within its replica (gpu_worker.py's
  ** self.rank) where its world's rank is data_parallel_rank x TP x PP + that (init_distributed_environment
  ** of vllm/distributed/parallel_state.py at 35d5cda): every replica's first worker is "-rank-0" */
  if (r->name_rank >= 0 && r->rank >= 0 && r->name_rank != r->rank && opt->rank < 0 && (!opt->device || opt->main_device))
    xp_warn("%s: the file's name says rank %lld but the trace says rank %lld: recorded as rank %lld, the trace's%s",
            r->file, (long long)r->name_rank, (long long)r->rank, (long long)r->rank,
            r->name_form == rank_n_form && r->name_rank < r->rank
                ? " (vLLM names a worker of a data-parallel job by its rank within its replica, the world's being "
                  "dp_rank x TP x PP + N)"
                : "");
  if (world < 0) r->world_size = tt_comms_world(&r->comms);
  if (!by_comms) return;
  char of[96] = "";
  if (world < 0 && r->world_size > 0)
    snprintf(of, sizeof of, ", in a world of %lld (its default process group's size)", (long long)r->world_size);
  xp_warn("%s: no distributedInfo.rank in the trace: rank %lld, as its record_param_comms name it%s", r->file,
          (long long)r->rank, of);
}

void tt_rank_done(tt_import *imp, tt_rank *r, const tt_options *opt) {
  own_calls(r);
  p2p_peers(r);
  groups_from_calls(imp, r); /* before resolve_groups, which infers what is still missing */
  rank_of(r, opt);
  /* the device its activities ran on, one once a file's several are split (tt_read.c) */
  if (r->device < 0 && r->ndevices == 1) r->device = r->devices[0];
  /* Steps marked by an annotation asked for have no number of their own: numbered in the
  ** order they ran (they are kept sorted by start), not the order the file wrote them */
  for (size_t i = 0; opt->step_annotation && i < r->steps.n; i++) XP_VEC_AT(&r->steps, tt_step, i)->number = (int64_t)i;
  tt_flows_link(r);     /* launches linked by flows alone, before tt_tree_link drops the threads */
  tt_tree_link(r);      /* the operators around launches, before these place the activities */
  resolve_launches(r); /* before shift_times, which moves the times it finds */
  tt_annots_link(r);   /* likewise */
  shift_times(r);
  if (!opt->step_annotation && r->steps.n == 0 && r->ivals.n > 0) window_step(r);
  place_in_steps(imp, r);
  tt_hiders h;
  tt_hiders_of(imp, r->ivals.data, r->ivals.n, &h);
  step_figures(imp, r, &h);
  whole_trace_figures(imp, r, &h);
  tt_hiders_free(&h);
  tt_annots_done(r);   /* after whole_trace_figures, which sorts the activities by start */
  resolve_groups(imp, r);
  free_read_state(r); /* they have served */
  r->done = 1;
}
