/*
** What a process's record_param_comms say of its place in the job. c10d records every
** collective call as a record_param_comms operator, whose args (torch/csrc/profiler/util.cpp
** saveNcclMeta) name the caller's rank in the call's group ("Rank") and the group's members by
** global rank ("Process Group Ranks"): the member at that place is the caller's global rank. A
** send's or recv's "Rank" is its peer's, which pairs its kernels (tt_comms_peer, tt_match.c).
** The calls on the default group give the world's size ("Group size"). A file of one process
** takes its rank from them where its trace has no distributedInfo (tt_done.c rank_of); a file of
** several processes, each process's (tt_owner.c).
*/
#include <string.h>
#include "tt_num.h"
#include "tt_trace.h"

/* The next item of a group's ranks list as the profiler writes it, a string or an array: 1 with *v
** a member, 2 for the "..." of a list cut short, 0 at its end, -1 where it is no such list. */
static int next_item(const char **at, const char *end, int64_t *v) {
  const char *p = *at;
  while (p < end && (*p == ' ' || *p == ',')) p++;
  if (p == end || *p == ']') return 0;
  if (end - p >= 3 && memcmp(p, "...", 3) == 0) {
    *at = p + 3;
    return 2;
  }
  const char *q = p;
  while (q < end && *q >= '0' && *q <= '9') q++;
  if (q == p || tt_int((tt_slice){p, (size_t)(q - p)}, v) != 0) return -1;
  *at = q;
  return 1;
}

/* Walk a group's ranks list ("[0, 1, 2, 3]"), calling fn with each member's place in the group.
** PyTorch cuts a list longer than 30 (torch/csrc/profiler/util.cpp format_list, kTruncateLength):
** to its first 30 and "..." ("[0, 1, ..., 29, ...]", its first form), later to its first 29,
** "..." and the last ("[0, 1, ..., 28, ..., 63]"): the member after the "..." is at place size - 1,
** where the group's size is known (size > 0). Stops where fn returns nonzero, and returns that;
** -1 where the text is no such list, or the places cannot be told. */
static int walk_members(tt_slice list, int64_t size, int (*fn)(void *ctx, int64_t place, int64_t v), void *ctx) {
  const char *p = list.n ? memchr(list.p, '[', list.n) : NULL;
  if (!p) return -1;
  const char *end = list.p + list.n; /* (only now: an absent list is NULL, and NULL + 0 is undefined) */
  p++;
  int64_t place = 0, v;
  int cut = 0, after = 0, item, rc;
  while ((item = next_item(&p, end, &v)) > 0) {
    if (item == 2) {
      cut = 1;
      continue;
    }
    /* after the cut, one member: the last, where the size places it past those before the cut */
    if (cut && (size <= place || after++)) return -1;
    if ((rc = fn(ctx, cut ? size - 1 : place++, v)) != 0) return rc;
  }
  return item < 0 ? -1 : 0;
}

typedef struct member_want { int64_t place, v; } member_want;

static int found_at(void *ctx, int64_t place, int64_t v) {
  member_want *w = ctx;
  if (place != w->place) return 0;
  w->v = v;
  return 1;
}

/* The member at place i of the list (of a group of size members, 0: unknown), -1 where the list
** does not show it. */
static int64_t member_at(tt_slice list, int64_t i, int64_t size) {
  member_want w = {i, -1};
  return i >= 0 && walk_members(list, size, found_at, &w) == 1 ? w.v : -1;
}

typedef struct stride { int64_t start, step; } stride;

static int off_stride(void *ctx, int64_t place, int64_t v) {
  const stride *s = ctx;
  return v != s->start + place * s->step;
}

/* The group's members by "Global rank start" and "Global rank stride", which c10d writes for a
** group whose global ranks are start, start + stride, ... (Backend.cpp getGlobalRankStartAndStride;
** the default group, start 0 and stride 1), and util.cpp saveNcclMeta only where stride > 0: the
** member at place i of a group of size members, i < size. -1 where the call has neither, or a
** member its ranks list shows is not start + place * stride (no such group's fields). */
static int64_t member_by_stride(const tt_event *ev, tt_slice list, int64_t i, int64_t size) {
  stride s;
  if (tt_int(tt_event_arg(ev, "Global rank start"), &s.start) != 0 ||
      tt_int(tt_event_arg(ev, "Global rank stride"), &s.step) != 0)
    return -1;
  const int64_t most = 1LL << 31; /* c10d's ranks are ints */
  if (s.start < 0 || s.start >= most || s.step <= 0 || s.step >= most || size <= 0 || size > most || i >= size)
    return -1;
  if (list.n && walk_members(list, size, off_stride, &s) != 0) return -1;
  return s.start + i * s.step;
}

/* Is the call's group the default one, the world? c10d names its groups by a count from 0, the
** default first ("0"; a subgroup may be named by a hash of its ranks instead), and where it
** describes groups, the default one is "default_pg" (distributed_c10d.py init_process_group); the
** profiler writes both as c10d gives them (saveNcclMeta). Not the group of the longest ranks list:
** a trace whose calls never use the world (tensor parallelism within a larger job) would take its
** largest subgroup for it. */
static int on_default_group(const tt_event *ev) {
  tt_slice desc = tt_event_arg(ev, "Process Group Description");
  if (desc.n) return tt_string_eq(desc, "default_pg");
  tt_slice name = tt_event_arg(ev, "Process Group Name");
  return name.n && tt_string_eq(name, "0");
}

void tt_comms_read(const tt_event *ev, int64_t *rank, int64_t *world) {
  char coll[32];
  int64_t in_group, size;
  *rank = *world = -1;
  tt_slice cn = tt_event_arg(ev, "Collective name");
  if (!cn.n || tt_string_decode(cn, coll, sizeof coll) < 0) return;
  /* a group's size is written whole where its ranks list is cut short, and by a send as by any
  ** call; "wait" names no group ("Group size" 1) */
  if (on_default_group(ev) && tt_int(tt_event_arg(ev, "Group size"), &size) == 0 && size > 0) *world = size;
  if (tt_coll_from_text(coll) == TT_COLL_SENDRECV) return;
  if (tt_int(tt_event_arg(ev, "Rank"), &in_group) != 0 || in_group < 0) return;
  if (tt_int(tt_event_arg(ev, "Group size"), &size) != 0 || size <= 0) size = 0;
  /* the ranks list where it shows the place, else the group's start and stride: past the 30th
  ** place of a long list, which PyTorch cuts short */
  const tt_slice list = tt_event_arg(ev, "Process Group Ranks");
  *rank = member_at(list, in_group, size);
  if (*rank < 0) *rank = member_by_stride(ev, list, in_group, size);
}

int64_t tt_comms_peer(const tt_event *ev) {
  char coll[32];
  int64_t peer, place, size;
  tt_slice cn = tt_event_arg(ev, "Collective name");
  if (!cn.n || tt_string_decode(cn, coll, sizeof coll) < 0 || tt_coll_from_text(coll) != TT_COLL_SENDRECV) return -1;
  /* the peer's global rank where PyTorch writes it ("Dst Rank", "Src Rank"), else its place in
  ** the group ("Rank", as c10d's send and recv give it) among the group's members */
  if (tt_int(tt_event_arg(ev, "Dst Rank"), &peer) == 0 && peer >= 0) return peer;
  if (tt_int(tt_event_arg(ev, "Src Rank"), &peer) == 0 && peer >= 0) return peer;
  if (tt_int(tt_event_arg(ev, "Rank"), &place) != 0 || place < 0) return -1;
  if (tt_int(tt_event_arg(ev, "Group size"), &size) != 0 || size <= 0) size = 0;
  const tt_slice list = tt_event_arg(ev, "Process Group Ranks");
  peer = member_at(list, place, size);
  return peer >= 0 ? peer : member_by_stride(ev, list, place, size);
}

void tt_comms_add(tt_comms *c, int64_t rank, int64_t world) {
  if (rank >= 0) {
    c->rank_lo = c->ranks && c->rank_lo < rank ? c->rank_lo : rank;
    c->rank_hi = c->ranks && c->rank_hi > rank ? c->rank_hi : rank;
    c->ranks++;
  }
  if (world > 0) {
    c->world_lo = c->worlds && c->world_lo < world ? c->world_lo : world;
    c->world_hi = c->worlds && c->world_hi > world ? c->world_hi : world;
    c->worlds++;
  }
}

int64_t tt_comms_rank(const tt_comms *c) { return c->ranks && c->rank_lo == c->rank_hi ? c->rank_lo : -1; }

int64_t tt_comms_world(const tt_comms *c) { return c->worlds && c->world_lo == c->world_hi ? c->world_lo : -1; }

