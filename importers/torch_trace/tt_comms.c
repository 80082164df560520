/*
** What a process's record_param_comms say of its place in the job. c10d records every
** collective call as a record_param_comms operator, whose args (torch/csrc/profiler/util.cpp
** saveNcclMeta) name the caller's rank in the call's group ("Rank") and the group's members by
** global rank ("Process Group Ranks"): the member at that place is the caller's global rank. A
** send's or recv's "Rank" is its peer's, and is not read. The calls on the default group give
** the world's size ("Group size"). A file of one process takes its rank from them where its
** trace has no distributedInfo (tt_done.c rank_of); a file of several processes, each process's
** (tt_owner.c).
*/
#include <string.h>
#include "tt_num.h"
#include "tt_trace.h"

/* The member at place i of a group's ranks as the profiler writes them: "[0, 1, 2, 3]" (a string, or
** an array); a long list is cut short with "..." (format_list's truncate), past which no place
** is read. -1 where there is none. */
static int64_t member_at(tt_slice list, int64_t i) {
  const char *p = memchr(list.p, '[', list.n), *end = list.p + list.n;
  if (!p || i < 0) return -1;
  for (p++; p < end && *p != ']';) {
    if (*p == ' ' || *p == ',') {
      p++;
      continue;
    }
    const char *q = p;
    while (q < end && *q >= '0' && *q <= '9') q++;
    int64_t v;
    if (q == p || tt_int((tt_slice){p, (size_t)(q - p)}, &v) != 0) return -1; /* "...": cut short */
    if (i-- == 0) return v;
    p = q;
  }
  return -1;
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
  if (tt_int(tt_event_arg(ev, "Rank"), &in_group) != 0) return;
  *rank = member_at(tt_event_arg(ev, "Process Group Ranks"), in_group);
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

