/*
** GPU activities that outlast the next one on their stream: an end the profiler wrote late.
**
** A stream runs its work in order. Even a kernel launched as a programmatic dependent launch
** (Hopper on), which may start before the one ahead of it ends, waits for that one before it
** ends itself: no activity on a stream can end after the next one ends. Traces hold such ends
** all the same: on ROCm (MI300, MI355) a kernel or copy whose completion time was written after
** a long stall of the queue, ending seconds after the many that followed it on its stream
** (AMD-AGI/TraceLens#669: an FMHA backward kernel of 1.6 s; AMD-AGI/Hyperloom#1116: 7 of an
** SGLang trace's 55,423 activities, three 9.7 MB copies of 3.15 s and two elementwise kernels
** of 3.4 s, 62% of its summed GPU time). Summed as written, one such end outweighs a step's
** work. Each ends where the next activity on its stream starts, as Perfetto and chrome://tracing
** draw it, the time past that left out (tt_read.c reads the file again with the ends known, so
** that every figure, per name, step, operator and collective, counts the same time).
**
** A next activity that starts at the same time, or lasts nothing (a zero-length kernel placed
** inside another, pytorch/kineto#136), says nothing of the other's end; the next one that
** lasts is compared instead. An overlap short of the next activity's end is left alone: it is
** what a programmatic dependent launch looks like.
**
** A graph's replayed activities are not in turn: the branches of one CUDA or HIP graph launch
** run concurrently, and a trace can place them all on the stream the graph was launched into,
** where a long GEMM of one branch holds a few short kernels of the other. They share their
** launch's correlation id, so an activity is compared with the next one of another launch (or
** of none): the graph as a whole still runs in its stream's order.
**
** An activity a CUDA graph node ran (its "graph node id" not 0) is not compared at all, nor
** clipped: PyTorch 2.12's torch.cuda._annotate_cuda_graph_trace moves a graph's activities from
** the stream it was launched into onto the streams its mark_kernels annotations name (61, 62, ...),
** else 7 or, where two overlap there, 8: numbers that real streams have too, where an eager kernel
** running beside the graph would be clipped at a graph kernel's start. Late ends are ROCm's, whose
** traces hold no graph node ids; the activities around a graph are still compared with each other.
**
** An activity written twice or more, the same name, stream, start, end and correlation id (a
** trace merged with itself, or with a copy of part of it, as tools that join traces can do: no
** stream runs two lasting activities from the same start to the same end), counts once: its
** copies are left out on the same second read, so that no figure counts its time twice. Only
** where its correlation id is its own: a launch runs one activity, but a graph launch's id is
** every node's, and its concurrent branches, drawn on one stream, may run one kernel each at a
** time the GPU's timer (as coarse as 1 us) gives alike. A graph launch in the trace
** (cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch) keeps its activities as written even where
** its id is shared by no other: two like nodes at one time read as one activity twice, and CUDA
** before 12 and HIP write no node id to tell them apart. But where the launch itself is written
** again, at its own time under its own id (a call's correlation id is its own: that launch, in a
** trace merged with a copy of itself), its activities are copies as often: each written w times
** as often as the launch counts 1 / w of its writes (two like nodes under a launch written twice
** are written four times, and count twice). One written a number of times that the launch's
** do not divide (a copy of part of the trace) leaves that launch's activities as written, said.
** An activity's with no id is left as written too, and so is one that lasts nothing. ROCm's
** Kineto writes a GPU activity no correlation, only its operator's External id, which a HIP
** graph launch's kernels share with the launch: that id stands for the correlation there
** (TT_CORR_EXT), an operator's several kernels sharing it as a graph launch's do. A CUDA
** graph node's activity is one replay of one node: Kineto writes its "graph node id" (CUDA 12
** on, CuptiActivity.cpp's getGraphNodeMetadata, CUPTI's 64-bit graphNodeId), which with its
** launch's correlation id names it. The first read keeps no ids (they would cost eight bytes
** for every activity of a graphed trace, in stream order or not): the graph nodes' activities
** at one place are one tt_clip, and the read that leaves copies out notes each one's node and
** launch, a repeat of one noted before being the copy. Two nodes of one launch at one place
** stay two; a node whose id or correlation is no number, as written.
*/
#include <stdlib.h>
#include <string.h>
#include "tt_num.h"
#include "tt_trace.h"
#include "xp.h"

static int by_place(const void *a, const void *b) {
  const tt_clip *x = a, *y = b;
  if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* As by_place, then by kernel key and correlation id: an activity's copies side by side. */
static int by_identity(const void *a, const void *b) {
  const tt_clip *x = a, *y = b;
  const int c = by_place(a, b);
  if (c) return c;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->corr > y->corr) - (x->corr < y->corr);
}

/* The (device, stream) key of each lane (tt_rank.lane_map inverted). */
static uint64_t *lane_keys(const tt_rank *r) {
  const xp_map *m = &r->lane_map;
  uint64_t *key = xp_xcalloc(m->n ? m->n : 1, sizeof *key);
  for (size_t s = 0; s < m->cap; s++)
    if (m->vals[s]) key[m->vals[s] - 1] = m->keys[s];
  return key;
}

/* An activity that lasts, as the scan from a lane's end met it. */
typedef struct lasting {
  int64_t start, end;
  uint32_t corr;
  int have;
} lasting;

/* From the last activity of a lane to its first, each compared with the next one that lasts and
** is not of its own graph launch (next, or other where next shares its correlation id), as that
** one ends once clipped itself. */
static void clip_lane(tt_clip *a, size_t n, xp_vec *out) {
  lasting next = {0}, other = {0}; /* other: the next one of another launch than next's */
  for (size_t k = n; k-- > 0;) {
    tt_clip *c = &a[k];
    if (c->end <= c->start || c->corr == TT_CORR_GRAPH_NODE) {
      if (c->copies) *(tt_clip *)xp_vec_push(out, sizeof *c) = *c;
      continue;
    }
    /* an External id (TT_CORR_EXT) names an operator, whose kernels run in turn: compared */
    const int same_launch = next.have && c->corr && !(c->corr & TT_CORR_EXT) && c->corr == next.corr;
    const lasting *cmp = same_launch ? &other : &next;
    const int late = cmp->have && c->start < cmp->start && c->end > cmp->end;
    if (late) c->to = cmp->start;
    if (late || c->copies) *(tt_clip *)xp_vec_push(out, sizeof *c) = *c;
    if (late) c->end = cmp->start;
    if (!same_launch) other = next;
    next = (lasting){c->start, c->end, c->corr, 1};
  }
}

static int by_corr(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The correlation ids that a lane's activities (sorted by identity) share with another activity
** than their copies (a graph launch's), sorted, their count in *ns. */
static uint32_t *shared_corrs(const tt_clip *a, size_t n, size_t *ns) {
  uint32_t *one = xp_xmalloc((n ? n : 1) * sizeof *one), *shared = xp_xmalloc((n ? n : 1) * sizeof *shared);
  size_t m = 0, s = 0;
  for (size_t k = 0; k < n; k++) /* each activity once, its copies left out */
    if (k == 0 || by_identity(&a[k - 1], &a[k]) != 0) one[m++] = a[k].corr;
  qsort(one, m, sizeof *one, by_corr);
  for (size_t k = 1; k < m; k++)
    if (one[k] == one[k - 1] && (s == 0 || shared[s - 1] != one[k])) shared[s++] = one[k];
  free(one);
  *ns = s;
  return shared;
}

/* Whether an activity of correlation id corr may be a copy of one like it: the id is its own (no
** other activity of the lane shares it), and no graph launch's (r->graph_launch_ids), whose
** like nodes of concurrent branches would read as one activity twice. */
static int own_corr(const tt_rank *r, uint32_t corr, const uint32_t *shared, size_t ns) {
  return corr && corr != TT_CORR_GRAPH_NODE && !bsearch(&corr, shared, ns, sizeof *shared, by_corr) &&
         !xp_idmap_get(&r->graph_launch_ids, corr);
}

/* The times the graph launch of correlation id corr is written at one time (r->graph_launch_ids):
** 2 or more where its trace was merged with a copy of itself, else 1 (no graph launch's, or one
** written once or apart). */
static uint32_t launch_writes(const tt_rank *r, uint32_t corr) {
  const uint64_t w = corr && corr != TT_CORR_GRAPH_NODE ? xp_idmap_get(&r->graph_launch_ids, corr) : 0;
  return w > 1 && w <= UINT32_MAX ? (uint32_t)w : 1;
}

/* The times the whole GPU timeline of the rank is written (its activities sorted by identity): a
** trace merged with a copy of its GPU activities alone, as a tool joining a trace with the device
** side of itself writes it, leaves its launches once, so no launch_writes tells a graph launch's
** copies. w where each lasting activity outside a CUDA graph node's place is written a multiple
** of w >= 2 times, and something tells the rank's activities from like nodes of one graph
** launch's concurrent branches: one of its own correlation id (own_corr), which a launch runs
** once, or a graph launch's at two places or more, which its branches do not run in lockstep;
** else 1. (Two like nodes alone under each launch stay as written: as likely nodes as copies.) */
static uint32_t timeline_writes(const tt_rank *r, const tt_clip *a, size_t n, const uint32_t *shared, size_t ns) {
  uint32_t w = UINT32_MAX;
  int told = 0;
  for (size_t i = 0; i < ns && !told; i++) told = shared[i] && shared[i] != TT_CORR_GRAPH_NODE;
  for (int pass = 0; pass < 2 && w >= 2; pass++)
    for (size_t i = 0, j; i < n && w >= 2; i = j) {
      for (j = i + 1; j < n && by_identity(&a[j], &a[i]) == 0;) j++;
      if (a[i].end <= a[i].start || a[i].corr == TT_CORR_GRAPH_NODE) continue;
      const size_t writes = j - i;
      if (pass == 0) {
        if (writes < w) w = (uint32_t)(writes < UINT32_MAX ? writes : UINT32_MAX);
        told = told || own_corr(r, a[i].corr, shared, ns);
      } else if (writes % w) {
        w = 1;
      }
    }
  return told && w >= 2 && w != UINT32_MAX ? w : 1;
}

/* Where no copy is told (timeline_writes 1): the places of the rank's lasting activities outside
** a CUDA graph node's (clips->places), and of them those that hold one written more than once
** under an id that is not its own and no launch written again tells (clips->repeated): a graph
** launch's, or of no id, kept as written. A few are like nodes of concurrent branches; most of
** them, a trace merged with a copy of part of itself (tt_read.c says so). */
static void count_repeated(const tt_rank *r, const tt_clip *a, size_t n, const uint32_t *shared, size_t ns,
                           tt_clips *clips) {
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && by_identity(&a[j], &a[i]) == 0;) j++;
    if (a[i].end <= a[i].start || a[i].corr == TT_CORR_GRAPH_NODE) continue;
    clips->places++;
    if (j - i > 1 && !own_corr(r, a[i].corr, shared, ns) && launch_writes(r, a[i].corr) == 1) clips->repeated++;
  }
}

/* The graph launches written again (launch_writes) some of whose activities (activities sorted by
** identity, like ones side by side) are not written a multiple of its times: a copy of part of
** the trace, or like nodes of concurrent branches as well, whose copies nothing tells. Noted in
** uneven (id -> 1), counted in clips. */
static void find_uneven(const tt_rank *r, const tt_clip *a, size_t n, xp_idmap *uneven, tt_clips *clips) {
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && by_identity(&a[j], &a[i]) == 0;) j++;
    const uint32_t w = launch_writes(r, a[i].corr);
    if (w == 1 || (j - i) % w == 0 || xp_idmap_get(uneven, a[i].corr)) continue;
    xp_idmap_set(uneven, a[i].corr, 1);
    if (!clips->uneven++ || a[i].corr < clips->uneven_first) clips->uneven_first = a[i].corr;
  }
}

/* A lane's activities (sorted by identity) with each one's copies folded into it, counted in
** copies: the same start, end, kernel key and correlation as the one before, lasting, and of a
** correlation id of its own (own_corr), or of a graph launch written w times (launch_writes, else
** the rank's whole timeline: whole) whose activities each are (not in uneven), the first 1 / w of
** them kept. A graph node's
** lasting activities, whose ids the read tells apart, into the first at their place. Its new
** length. */
static size_t fold_copies(const tt_rank *r, tt_clip *a, size_t n, const xp_idmap *uneven, uint32_t whole) {
  size_t ns, m = 0;
  uint32_t *shared = shared_corrs(a, n, &ns);
  size_t graph = SIZE_MAX; /* the graph place kept last */
  for (size_t k = 0; k < n; k++) {
    const tt_clip *c = &a[k];
    if (c->corr == TT_CORR_GRAPH_NODE && c->end > c->start) {
      if (graph != SIZE_MAX && by_place(c, &a[graph]) == 0) {
        a[graph].copies++;
        continue;
      }
      graph = m;
    }
    tt_clip *last = m ? &a[m - 1] : NULL;
    const int same = last && c->end > c->start && by_identity(c, last) == 0;
    if (same && own_corr(r, c->corr, shared, ns)) {
      last->copies++;
      continue;
    }
    const uint32_t launched = same ? launch_writes(r, c->corr) : 1, w = launched > 1 ? launched : whole;
    if (same && w > 1 && !xp_idmap_get(uneven, c->corr)) {
      last->copies++;
      last->keep = (last->copies + 1) / w;
      continue;
    }
    a[m++] = *c;
  }
  free(shared);
  return m;
}

/* Whether each lane's activities, in the order read, start and end no earlier than the one read
** before them on it, and not both at once: then none ends after a later-starting one does, none
** is clipped, and none is a copy of another. Kineto writes each stream's activities in order,
** so the scan below, which copies every activity (56 bytes each) to sort them, is left to the
** files that need it. */
static int lanes_in_order(const tt_rank *r, size_t nl) {
  int64_t(*last)[2] = xp_xmalloc(nl * sizeof *last);
  for (size_t l = 0; l < nl; l++) last[l][0] = last[l][1] = INT64_MIN;
  const uint32_t *lanes = r->lanes.data;
  int in_order = 1;
  for (size_t i = 0; i < r->ivals.n && in_order; i++) {
    if (lanes[i] >= nl) continue;
    const tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    int64_t *l = last[lanes[i]];
    in_order = v->start >= l[0] && v->end >= l[1] && (v->start != l[0] || v->end != l[1]);
    l[0] = v->start, l[1] = v->end;
  }
  free(last);
  return in_order;
}

/* Room in clips->seen for the nodes each graph place's read meets, its copies and its first. */
static void make_seen(tt_clips *clips) {
  size_t at = 0;
  for (size_t i = 0; i < clips->list.n; i++) {
    tt_clip *c = XP_VEC_AT(&clips->list, tt_clip, i);
    if (c->corr != TT_CORR_GRAPH_NODE) continue;
    c->seen_at = (uint32_t)at;
    at += (size_t)c->copies + 1;
  }
  for (size_t i = 0; i < at; i++) xp_vec_push(&clips->seen, sizeof(tt_node_seen));
}

size_t tt_clips_find(const tt_rank *r, tt_clips *clips) {
  xp_vec *out = &clips->list;
  const size_t n = r->ivals.n, nl = r->lane_map.n;
  if (!n || !nl || r->lanes.n != n || lanes_in_order(r, nl)) return 0;
  uint64_t *key = lane_keys(r);
  const uint32_t *lanes = r->lanes.data;
  const uint32_t *corrs = r->corrs.n == n ? r->corrs.data : NULL;
  tt_clip *a = xp_xmalloc(n * sizeof *a);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (lanes[i] >= nl) continue;
    const tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    a[m++] = (tt_clip){key[lanes[i]], v->start, v->end, v->end, v->key, corrs ? corrs[i] : 0, 0, 0, 0, 0, 0, 1};
  }
  free(key);
  qsort(a, m, sizeof *a, by_identity);
  xp_idmap uneven = {0};
  find_uneven(r, a, m, &uneven, clips);
  size_t ns;
  uint32_t *shared = shared_corrs(a, m, &ns);
  const uint32_t whole = timeline_writes(r, a, m, shared, ns);
  if (whole == 1) count_repeated(r, a, m, shared, ns, clips);
  free(shared);
  for (size_t i = 0, j; i < m; i = j) {
    for (j = i + 1; j < m && a[j].lane == a[i].lane;) j++;
    clip_lane(a + i, fold_copies(r, a + i, j - i, &uneven, whole), out);
  }
  xp_idmap_free(&uneven);
  free(a);
  if (out->n > 1) qsort(out->data, out->n, sizeof(tt_clip), by_place);
  make_seen(clips);
  return out->n;
}

/* The tt_clip at want's place of a graph node's activity (graph) or of another's, or NULL. */
static tt_clip *clip_at(tt_clips *clips, const tt_clip *want, int graph) {
  tt_clip *a = clips->list.data, *c = bsearch(want, a, clips->list.n, sizeof *want, by_place);
  if (!c) return NULL;
  while (c > a && by_place(c - 1, want) == 0) c--;
  for (; c < a + clips->list.n && by_place(c, want) == 0; c++)
    if ((c->corr == TT_CORR_GRAPH_NODE) == graph) return c;
  return NULL;
}

/* 1 where the activity of graph node node of ev's launch was met before at c's place: a copy. */
static int graph_copy(tt_clips *clips, tt_clip *c, const tt_event *ev, uint64_t node) {
  int64_t corr;
  if (node == TT_NODE_UNKNOWN || tt_int(tt_event_arg(ev, "correlation"), &corr) != 0 || corr <= 0) return 0;
  tt_node_seen *seen = XP_VEC_AT(&clips->seen, tt_node_seen, c->seen_at);
  const uint32_t kept = c->met - c->dropped;
  c->met++;
  for (uint32_t i = 0; i < kept; i++)
    if (seen[i].node == node && seen[i].corr == corr) return c->dropped++, 1;
  if (kept <= c->copies) seen[kept] = (tt_node_seen){node, corr};
  else c->met--; /* not one the first read counted here: no room, and no copy */
  return 0;
}

#define SL_EQ(s, lit) ((s).n == sizeof(lit) - 1 && memcmp((s).p, lit, sizeof(lit) - 1) == 0)

/* (Two activities of one lane, start and end are one activity written again: a stream runs no
** two lasting ones over the same time, so the place alone finds it; but for a graph launch's,
** whose nodes its place holds together, and which its node id and correlation tell apart.) */
int tt_clip_event(tt_clips *clips, tt_event *ev, char *buf, size_t cap) {
  if (tt_event_side(ev) != TT_SIDE_GPU || (ev->ph.n && !SL_EQ(ev->ph, "\"X\""))) return 0;
  /* the activity's lane as tt_rank.c keys it (device its pid, -1 where that is no number) */
  int64_t dev, ts, dur;
  uint64_t lane;
  if (tt_int(ev->pid, &dev) != 0) dev = -1;
  if (tt_lane_key(ev, dev, &lane) != 0) return 0;
  if (tt_us_to_ns(ev->ts, &ts) != 0 || tt_us_to_ns(ev->dur, &dur) != 0) return 0;
  if (dur < 0) dur = 0;
  const tt_clip want = {lane, ts, ts + dur, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const uint64_t node = tt_graph_node(ev);
  tt_clip *c = clip_at(clips, &want, node != 0);
  if (!c) return 0;
  if (node) return graph_copy(clips, c, ev, node);
  if (c->copies && c->met++ >= c->keep) return c->dropped++, 1;
  if (c->to == c->end) return 0;
  c->applied = 1;
  const int64_t d = c->to - ts;
  const int k = snprintf(buf, cap, "%lld.%03lld", (long long)(d / 1000), (long long)(d % 1000));
  if (k > 0 && (size_t)k < cap) ev->dur = (tt_slice){buf, (size_t)k};
  return 0;
}
