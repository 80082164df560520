/*
** Across ranks: which collective kernels on different ranks are the same collective, and how
** much of each kernel's time was waiting for the last rank to arrive.
**
** How collectives are matched. NCCL runs the collectives of one communicator in the same order
** on every member, and PyTorch gives each process group its own communicator; so within a
** process group (named by the kernel's "Process Group Name" args, or inferred from its
** stream), the k-th collective of one rank is the k-th of every other rank. What is unknown
** is where each rank's profiling window begins: rank 1 may have recorded 31 all-reduces
** before rank 0 started. So for each pair (reference rank, other rank) we look for the index
** offset d that pairs collectives overlapping in time: ranks on one host share one clock, and
** the kernels of one collective on all its members run together until it completes. Every
** overlapping pair votes for its offset; the offset with most votes wins, and the pairs at
** that offset that also agree on the collective and message size are matched. Repeated on
** what is left, this recovers after a gap in one rank's record. Where kernels carry "Seq" (the
** collective's sequence number in its group), that number pairs them exactly instead.
**
** Across hosts clocks differ by more than a collective lasts, so time cannot pair kernels:
** ranks whose traces name different hosts are paired by "Seq" only (the kernels that carry it),
** else not at all. Nor can their starts be compared as written: a member on another host than
** the reference has its clock set to the reference's by the median, over its paired kernels, of
** the difference between their ends. The kernels of one collective end together on every member
** (none finishes before the last one's data has arrived), where they start whenever each rank
** gets there; so the ends give the offset, and the starts then give the waiting. Kineto writes
** no host, so ranks of two hosts often look like one: where the kernels paired by time do not
** end together (ends_together), the clocks differ after all, and they are paired by "Seq" and
** set by the ends as above, or, without it, not matched.
**
** Collective kernels that name no process group and cannot be given one (replayed from a
** CUDA graph, which carries no "Collective name" args; launched by vLLM's pynccl or a custom
** all-reduce, outside c10d) form one more group whose members are all the imported ranks,
** when those are every rank of the job (its world size): then whatever group a collective
** ran in, no member of it is missing. They are paired by time as above, which also keeps an
** all-reduce from pairing with an all-gather. With some of the job's ranks left out, the
** group a collective ran in cannot be told, and these kernels stay unmatched. Nor can it be
** told where the job ran several groups at once (two tensor-parallel groups): kernels paired by
** time form one collective only where every two of them overlap (the last member starts before
** any ends), which the kernels of groups running apart seldom do, but groups in lockstep do. So
** a kernel whose "Group size" is not the imported ranks' count is not pooled, nor, where a rank's
** distributedInfo lists a process group of two ranks or more that is not all of them, one naming
** no size (the note says so): two TP=2 groups of a job of four are not taken for one of four.
** Traces that say neither (Kineto of 2022) are pooled as before.
**
** A send and its recv are a collective of two ranks. In a group of two (PP=2) that is the
** group, matched as any other. In a larger one (a pipeline's stages in one group of four) they
** are matched pair by pair, each pair of ranks a kernel and its peer (tt_collk.peer: the one its
** call's record_param_comms names, "Rank", "Dst Rank" or "Src Rank"), by time alone: c10d
** numbers a rank's sends and recvs of a group together ("Seq"), whoever the peer, so one pair's
** numbers differ. Where nothing names the peer, no pair can be told and none is split. A pair on
** two clocks (hosts named apart, or whose collectives do not end together) has no number to pair
** by, but the collectives of a group holding both set one clock to the other (their ends, above):
** on that clock the pair's kernels pair by time as on one host's (match_pairs runs after every
** group). Where no group set it, none is split, which the note says as for any group of ranks
** on two hosts without numbers.
**
** A collective is split only when every member of its group was imported and paired; its
** kernels then have wait = (last member's start - own start), capped at the kernel's
** duration, and transfer = duration - wait. Everything else is counted as unmatched, its
** duration still in the totals (as recorded): nothing is dropped silently.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tt_trace.h"
#include "xp.h"

typedef struct member {
  tt_rank *r;
  tt_collk **c;  /* this rank's collectives of the group, sorted by start */
  size_t n;
  int64_t *peer; /* reference index i -> index in c paired with it, or -1 */
} member;

static int by_coll_start(const void *a, const void *b) {
  const tt_collk *x = *(tt_collk *const *)a, *y = *(tt_collk *const *)b;
  return (x->start > y->start) - (x->start < y->start);
}

static int by_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

const char *tt_rank_host(const tt_rank *r) {
  static const char *const keys[] = {"hostname", "host_name", "host", NULL};
  for (int i = 0; keys[i]; i++) {
    cJSON *h = cJSON_GetObjectItemCaseSensitive(r->meta, keys[i]);
    if (cJSON_IsString(h)) return h->valuestring;
  }
  return NULL;
}

/* The same kind of collective, and the same message where every member sends the same: an
** all-to-all's splits (all_to_allv: MoE expert parallelism) and a send/recv's two sides differ
** by rank, so their sizes tell nothing. */
static int compatible(const tt_collk *a, const tt_collk *b) {
  if (a->coll != b->coll) return 0;
  const int same_size = a->coll != TT_COLL_ALLTOALL && a->coll != TT_COLL_SENDRECV && a->coll != TT_COLL_OTHER;
  if (same_size && a->in_nelems >= 0 && b->in_nelems >= 0 && a->in_nelems != b->in_nelems) return 0;
  return 1;
}

static int overlap(const tt_collk *a, const tt_collk *b) {
  return a->start <= b->end && b->start <= a->end;
}

/* The offsets j - i of every unpaired, overlapping, compatible pair (ref i, other j). */
static int64_t *offset_votes(const member *ref, const member *o, const char *used, size_t *nv) {
  size_t cap = 0, n = 0, j0 = 0;
  int64_t *ds = NULL;
  for (size_t i = 0; i < ref->n; i++) {
    if (o->peer[i] >= 0) continue;
    const tt_collk *a = ref->c[i];
    while (j0 < o->n && o->c[j0]->end < a->start) j0++;
    for (size_t j = j0; j < o->n && o->c[j]->start <= a->end; j++) {
      if (used[j] || !overlap(a, o->c[j]) || !compatible(a, o->c[j])) continue;
      if (n == cap) ds = xp_xrealloc(ds, (cap = cap ? cap * 2 : 256) * sizeof *ds);
      ds[n++] = (int64_t)j - (int64_t)i;
    }
  }
  *nv = n;
  return ds;
}

/* The most frequent offset (ties: the smallest in magnitude). */
static int64_t winning_offset(int64_t *ds, size_t nv) {
  qsort(ds, nv, sizeof *ds, by_int64);
  int64_t best_d = 0;
  size_t best = 0;
  for (size_t i = 0; i < nv;) {
    size_t k = i;
    while (k < nv && ds[k] == ds[i]) k++;
    if (k - i > best || (k - i == best && llabs(ds[i]) < llabs(best_d))) {
      best = k - i;
      best_d = ds[i];
    }
    i = k;
  }
  return best_d;
}

static void pair_by_time(const member *ref, member *o) {
  char *used = xp_xcalloc(o->n ? o->n : 1, 1);
  for (int round = 0; round < 8; round++) {
    size_t nv;
    int64_t *ds = offset_votes(ref, o, used, &nv);
    if (!nv) {
      free(ds);
      break;
    }
    int64_t d = winning_offset(ds, nv);
    free(ds);
    size_t got = 0;
    for (size_t i = 0; i < ref->n; i++) {
      int64_t j = (int64_t)i + d;
      if (o->peer[i] >= 0 || j < 0 || (size_t)j >= o->n || used[j]) continue;
      if (!overlap(ref->c[i], o->c[j]) || !compatible(ref->c[i], o->c[j])) continue;
      o->peer[i] = j;
      used[j] = 1;
      got++;
    }
    if (!got) break;
  }
  free(used);
}

typedef struct seq_ix {
  int64_t seq;
  size_t i;
} seq_ix;

static int by_seq(const void *a, const void *b) {
  const seq_ix *x = a, *y = b;
  if (x->seq != y->seq) return (x->seq > y->seq) - (x->seq < y->seq);
  return (x->i > y->i) - (x->i < y->i);
}

/* Pairs by "Seq". A number can come twice in one group (c10d counts point-to-point operations
** apart from collectives, and a counter restarts with a new communicator): each reference
** kernel takes the first unpaired, compatible kernel of its number, in start order. */
static void pair_by_seq(const member *ref, member *o) {
  seq_ix *s = xp_xmalloc((o->n ? o->n : 1) * sizeof *s);
  char *used = xp_xcalloc(o->n ? o->n : 1, 1);
  for (size_t j = 0; j < o->n; j++) s[j] = (seq_ix){o->c[j]->seq, j};
  qsort(s, o->n, sizeof *s, by_seq);
  for (size_t i = 0; i < ref->n; i++) {
    if (ref->c[i]->seq < 0) continue; /* no number: no pair (a kernel without args, across hosts) */
    size_t lo = 0, hi = o->n; /* the first entry of seq >= the reference's */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (s[mid].seq < ref->c[i]->seq) lo = mid + 1;
      else hi = mid;
    }
    for (size_t k = lo; k < o->n && s[k].seq == ref->c[i]->seq; k++)
      if (!used[s[k].i] && compatible(ref->c[i], o->c[s[k].i])) {
        o->peer[i] = (int64_t)s[k].i;
        used[s[k].i] = 1;
        break;
      }
  }
  free(used);
  free(s);
}

/* Ranks listed in a group key's third field, "[0, 1]". Returns the count (-1 if none listed).
** c10d lists a group of more than 30 by its first 29 members and its last, "[0, 1, ..., 28, ...,
** 63]" (saveNcclMeta, torch/csrc/profiler/util.cpp: kTruncatLength): *cut (where asked) says the
** list is so cut, the members between unnamed. */
static int listed_ranks(const char *key, int64_t *out, int max, int *cut) {
  const char *p = strrchr(key, 0x1f);
  if (!p || !(p = strchr(p, '['))) return -1;
  if (cut) *cut = strstr(p, "...") != NULL;
  int n = 0;
  for (p++; *p && *p != ']';) {
    char *e;
    long long v = strtoll(p, &e, 10);
    if (e == p) {
      p++;
      continue;
    }
    if (n < max) out[n] = v;
    n++;
    p = e;
  }
  return n ? n : -1;
}

/* The group's size as its members' kernels give it ("Group size"), 0 where none does. */
static int64_t group_size_of(const member *m, int nm) {
  int64_t size = 0;
  for (int k = 0; k < nm; k++)
    for (size_t i = 0; i < m[k].n; i++)
      if (m[k].c[i]->group_size > size) size = m[k].c[i]->group_size;
  return size;
}

/* How many of the members' kernels carry "Seq", and whether all do. */
static int have_seq(member *m, int nm, int all) {
  for (int k = 0; k < nm; k++)
    for (size_t i = 0; i < m[k].n; i++)
      if ((m[k].c[i]->seq >= 0) != all) return !all;
  return all;
}

/* The offset that sets member o's clock to the reference's: the median of ref end - o end over
** the kernels paired with the reference's (0 with none paired). */
static int64_t clock_offset(const member *ref, const member *o) {
  int64_t *d = xp_xmalloc((ref->n ? ref->n : 1) * sizeof *d);
  size_t n = 0;
  for (size_t i = 0; i < ref->n; i++)
    if (o->peer[i] >= 0) d[n++] = ref->c[i]->end - o->c[o->peer[i]]->end;
  int64_t off = 0;
  if (n) {
    qsort(d, n, sizeof *d, by_int64);
    off = n % 2 ? d[n / 2] : d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
  }
  free(d);
  return off;
}

/* Do member o's kernels end with the reference's they are paired with, as on one clock? The
** kernels of one collective end together (within a microsecond on one host: the shared TP=2
** fixtures' all-reduces end 20 and 228 ns apart, the median), where they start apart; so the
** median of ref end - o end over the pairs is within half the median shortest kernel of a pair,
** unless the two clocks differ (ranks on hosts the traces do not name: Kineto writes no host)
** or the pairs are no collectives. Only collectives of one size on every member count: an
** all-to-allv's or a send's kernels end when their own data is through. *lag: that median. */
static int ends_together(const member *ref, const member *o, int64_t *lag) {
  int64_t *d = xp_xmalloc((ref->n ? ref->n : 1) * sizeof *d), *s = xp_xmalloc((ref->n ? ref->n : 1) * sizeof *s);
  size_t n = 0;
  for (size_t i = 0; i < ref->n; i++) {
    if (o->peer[i] < 0) continue;
    const tt_collk *a = ref->c[i], *b = o->c[o->peer[i]];
    if (a->coll == TT_COLL_ALLTOALL || a->coll == TT_COLL_SENDRECV || a->coll == TT_COLL_OTHER) continue;
    d[n] = a->end - b->end;
    s[n++] = a->end - a->start < b->end - b->start ? a->end - a->start : b->end - b->start;
  }
  int together = 1;
  *lag = 0;
  if (n) {
    qsort(d, n, sizeof *d, by_int64);
    qsort(s, n, sizeof *s, by_int64);
    *lag = d[n / 2];
    together = llabs(*lag) <= s[n / 2] / 2;
  }
  free(d);
  free(s);
  return together;
}

/* Is r one of the imported ranks? */
static int imported(const tt_import *imp, int64_t r) {
  for (int k = 0; k < imp->nranks; k++)
    if (imp->ranks[k]->rank == r) return 1;
  return 0;
}

/* Does a group of a rank's distributedInfo.pg_config ({"ranks": [0, 1]}, or "[0, 1]" as Kineto's
** on-demand writer gives it) hold at least two ranks but not every imported one? The kernels
** naming no group may then have run in it or in the world: which, nothing tells. */
static int smaller_group(const tt_import *imp, const cJSON *pg) {
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(pg, "ranks"), *x;
  int n = 0, in = 0;
  if (cJSON_IsArray(ranks)) {
    /* saturated: a number past int64 (1e300) is no rank, and casting it is undefined */
    cJSON_ArrayForEach(x, ranks) n++, in += cJSON_IsNumber(x) && imported(imp, xp_saturate_int64(x->valuedouble));
  } else if (cJSON_IsString(ranks)) {
    for (const char *p = ranks->valuestring; *p;) {
      char *e;
      long long v = strtoll(p, &e, 10);
      if (e == p) p++;
      else n++, in += imported(imp, v), p = e;
    }
  }
  return n >= 2 && (n != imp->nranks || in != n);
}

/* The first imported rank whose distributedInfo lists such a group (its number; -1: none). */
static int64_t rank_in_smaller_group(const tt_import *imp) {
  for (int k = 0; k < imp->nranks; k++) {
    const cJSON *di = cJSON_GetObjectItemCaseSensitive(imp->ranks[k]->meta, "distributedInfo"), *pg;
    const cJSON *pgc = cJSON_GetObjectItemCaseSensitive(di, "pg_config");
    cJSON_ArrayForEach(pg, pgc) if (smaller_group(imp, pg)) return imp->ranks[k]->rank;
  }
  return -1;
}

/* The kernels naming no group that were not pooled (not_pooled), and what the note says of them. */
typedef struct untold {
  int64_t kernels;
  int64_t smaller_rank; /* rank_in_smaller_group's */
  int32_t size;         /* the first such kernel's "Group size", 0 where it names none */
} untold;

/* What a member's clock is, as a group's collectives set it: the offset that sets it to the
** group's reference member's (t_ref = t + off), known or not (the clocks differ, by how much
** nothing told). One entry per member of each group matched, `set` the group. */
typedef struct clock_of {
  int64_t set, rank, off;
  int known;
} clock_of;

/* What matching found, over every group: the note's facts, and the members' clocks. */
typedef struct match_state {
  int cross_host, aligned;
  int64_t unnamed, apart;
  untold u;
  xp_vec clocks; /* clock_of */
  int64_t sets;
} match_state;

/* A kernel naming no group that is not pooled across the imported ranks: its "Group size" is not
** theirs (PyTorch's saveNcclMeta writes the size always, the group's name only where c10d's is
** not empty, and none before that key was added), or it names none and a rank's process groups include a smaller one (TP=2 x
** DP=2: two tensor-parallel groups, whose all-reduces run in lockstep overlap as one of four). */
static int not_pooled(const tt_import *imp, const tt_collk *c, int64_t smaller_rank) {
  return c->group_size > 0 ? c->group_size != imp->nranks : smaller_rank >= 0;
}

/* A send or recv of a group of more than two ranks (pg's listed ranks nl; pg -1: the kernels
** naming no group, pooled across the imported ranks): a pair's, matched per pair or not at all. */
static int p2p_of_many(const tt_import *imp, const tt_collk *c, int32_t pg, int nl) {
  if (c->coll != TT_COLL_SENDRECV) return 0;
  return pg < 0 ? imp->nranks > 2 : nl > 2 || c->group_size > 2;
}

/* Is c, on rank r, a send or recv between ranks pa and pb? */
static int p2p_between(const tt_rank *r, const tt_collk *c, int64_t pa, int64_t pb) {
  return c->coll == TT_COLL_SENDRECV && c->peer >= 0 &&
         ((r->rank == pa && c->peer == pb) || (r->rank == pb && c->peer == pa));
}

/* The entry of rank r in the clocks of the set that entry i belongs to; NULL if r is not in it. */
static const clock_of *in_set(const match_state *st, size_t i, int64_t r) {
  const clock_of *e = st->clocks.data;
  for (size_t j = i; j-- > 0 && e[j].set == e[i].set;)
    if (e[j].rank == r) return &e[j];
  for (size_t j = i + 1; j < st->clocks.n && e[j].set == e[i].set; j++)
    if (e[j].rank == r) return &e[j];
  return NULL;
}

/* The offset that sets rank b's clock to rank a's (t_a = t_b + *d), as a group of both set their
** clocks by its collectives: 1 known, -1 their clocks differ by what nothing told, 0 no group
** matched both. */
static int pair_clock(const match_state *st, int64_t a, int64_t b, int64_t *d) {
  const clock_of *e = st->clocks.data;
  int said = 0;
  for (size_t i = 0; i < st->clocks.n; i++) {
    const clock_of *o = e[i].rank == a ? in_set(st, i, b) : NULL;
    if (!o) continue;
    if (e[i].known && o->known) {
      *d = o->off - e[i].off;
      return 1;
    }
    said = -1;
  }
  return said;
}

static void shift(member *x, int64_t d) {
  for (size_t i = 0; i < x->n; i++) x->c[i]->start += d, x->c[i]->end += d;
}

/* A send's or recv's pair of ranks on clocks their collectives set apart: paired by time once
** member k's clock is set to the reference's (off[k]), as a collective's members are where their
** ends set it. 1 paired so; -1 not to be paired (clocks apart by what nothing told); 0 neither:
** paired as any group's members are. */
static int pair_on_clock(match_state *st, member *ref, member *k, int other_host, int64_t *off) {
  int64_t d = 0;
  const int c = pair_clock(st, ref->r->rank, k->r->rank, &d);
  if (c > 0 && (other_host || d)) {
    shift(k, d);
    pair_by_time(ref, k);
    shift(k, -d);
    *off = d;
    st->aligned = 1;
    return 1;
  }
  if (c < 0 && other_host) st->cross_host = 1;
  return c < 0 ? -1 : 0;
}

/* Did member k pair with any of the reference's kernels? */
static int paired_any(const member *ref, const member *k) {
  for (size_t i = 0; i < ref->n; i++)
    if (k->peer[i] >= 0) return 1;
  return 0;
}

/* Match the collectives of process group pg across the imported ranks; with pa >= 0, its sends
** and recvs between ranks pa and pb alone, a collective of those two. */
static void match_group(tt_import *imp, int32_t pg, int64_t pa, int64_t pb, match_state *st) {
  member *m = xp_xcalloc((size_t)imp->nranks, sizeof *m);
  int64_t listed[1024];
  int cut = 0;
  int nl = pg >= 0 ? listed_ranks(imp->pgs.str[pg], listed, 1024, &cut) : -1;
  int nm = 0;
  for (int k = 0; k < imp->nranks; k++) {
    tt_rank *r = imp->ranks[k];
    member *x = &m[nm];
    for (size_t i = 0; i < r->colls.n; i++) {
      tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
      if (c->pg != pg || (pa >= 0 ? !p2p_between(r, c, pa, pb) : p2p_of_many(imp, c, pg, nl))) continue;
      if (pg < 0 && pa < 0 && imp->nranks > 1 && not_pooled(imp, c, st->u.smaller_rank)) {
        st->u.kernels++;
        if (c->group_size > 0 && !st->u.size) st->u.size = c->group_size;
        continue;
      }
      x->c = xp_xrealloc(x->c, (x->n + 1) * sizeof *x->c);
      x->c[x->n++] = c;
    }
    if (!x->n) continue;
    x->r = r;
    qsort(x->c, x->n, sizeof *x->c, by_coll_start);
    nm++;
  }
  /* Every listed member of the group must be present, else no collective is complete. */
  int complete = nm >= 2;
  if (pa >= 0) {
    nl = 2;
    listed[0] = pa, listed[1] = pb;
  }
  if (pg < 0) {
    complete = nm >= 2 && nm == imp->nranks;
    for (int k = 0; k < nm; k++)
      if (m[k].r->world_size > 0 && m[k].r->world_size != imp->nranks) complete = 0;
  }
  if (nl > 0) {
    if (nl > 1024) complete = 0;
    for (int i = 0; i < nl && i < 1024 && complete; i++) {
      int found = 0;
      for (int k = 0; k < nm; k++) found |= m[k].r->rank == listed[i];
      complete = found;
    }
    /* a cut list names not every member: as many ranks as the group's size must be here (c10d
    ** writes "Group size" beside it; where no kernel gives it, which are here cannot be told) */
    if (cut && (nm < group_size_of(m, nm) || !group_size_of(m, nm))) complete = 0;
  }
  if (complete) {
    int ref = 0;
    for (int k = 1; k < nm; k++)
      if (m[k].n > m[ref].n) ref = k;
    /* c10d numbers a rank's sends and recvs of a group together, whoever the peer: in a group
    ** of more than two the numbers of a pair's kernels differ, so they pair by time alone */
    const int all_seq = pa < 0 && have_seq(m, nm, 1), some_seq = pa < 0 && have_seq(m, nm, 0);
    const char *href = tt_rank_host(m[ref].r);
    int64_t *off = xp_xcalloc((size_t)nm, sizeof *off); /* clock offsets to the reference's */
    char *known = xp_xcalloc((size_t)nm, 1);             /* ... where the collectives told them */
    int timed = 1; /* every member paired with the reference by time on one clock */
    for (int k = 0; k < nm; k++) {
      m[k].peer = xp_xmalloc((m[ref].n ? m[ref].n : 1) * sizeof *m[k].peer);
      for (size_t i = 0; i < m[ref].n; i++) m[k].peer[i] = k == ref ? (int64_t)i : -1;
      if (k == ref) {
        known[k] = 1;
        continue;
      }
      const char *h = tt_rank_host(m[k].r);
      const int other_host = href && h && strcmp(href, h) != 0;
      if (pa >= 0 && pair_on_clock(st, &m[ref], &m[k], other_host, &off[k])) continue;
      int numbered = all_seq || (other_host && some_seq);
      if (numbered) pair_by_seq(&m[ref], &m[k]), timed = 0;
      else if (other_host) st->cross_host = 1;
      else pair_by_time(&m[ref], &m[k]);
      int64_t lag;
      const int skewed = !other_host && !ends_together(&m[ref], &m[k], &lag);
      if (skewed) {
        /* not one clock after all (hosts the traces do not name): paired by time, the pairs are
        ** no collectives, the clocks' offset having moved them; where kernels carry numbers they
        ** pair, and the ends set the clock, as across named hosts; else none is split */
        for (size_t i = 0; i < m[ref].n; i++) m[k].peer[i] = -1;
        if (some_seq) pair_by_seq(&m[ref], &m[k]), numbered = 1, timed = 0;
        if (llabs(lag) > llabs(st->apart)) st->apart = lag;
      }
      if (numbered && (other_host || skewed)) {
        off[k] = clock_offset(&m[ref], &m[k]);
        st->aligned = 1;
      }
      known[k] = paired_any(&m[ref], &m[k]) && (numbered || !(other_host || skewed));
    }
    /* each member's clock as the group's collectives set it, for the sends and recvs of a pair
    ** of its members in a larger group (match_pairs, after every group) */
    for (int k = 0; pa < 0 && k < nm; k++)
      if (m[k].r->rank >= 0)
        *(clock_of *)xp_vec_push(&st->clocks, sizeof(clock_of)) = (clock_of){st->sets, m[k].r->rank, off[k], known[k]};
    st->sets++;
    for (size_t i = 0; i < m[ref].n; i++) {
      int whole = 1;
      int64_t last = INT64_MIN, first_end = INT64_MAX;
      for (int k = 0; k < nm && whole; k++) {
        if (m[k].peer[i] < 0) whole = 0;
        else {
          const tt_collk *c = m[k].c[m[k].peer[i]];
          if (c->start + off[k] > last) last = c->start + off[k];
          if (c->end + off[k] < first_end) first_end = c->end + off[k];
        }
      }
      /* Paired by time, each member overlaps the reference's kernel, which does not make them
      ** one collective where a third member's kernel ended before a fourth's began: no member of
      ** one finishes before the last has arrived. So it is in the pool of kernels naming no
      ** group, where two tensor-parallel groups' all-reduces (TP=2 x PP=2, DP=2: vLLM's CUDA
      ** graphs and custom all-reduce) each overlap the reference's at times */
      if (!whole || (timed && last > first_end)) continue;
      int64_t gid = imp->match_groups++;
      if (pg < 0) st->unnamed++;
      for (int k = 0; k < nm; k++) {
        tt_collk *c = m[k].c[m[k].peer[i]];
        int64_t dur = c->end - c->start;
        int64_t wait = last - (c->start + off[k]);
        if (wait < 0) wait = 0;
        if (wait > dur) wait = dur;
        c->group = gid;
        c->wait = wait;
        c->transfer = dur - wait;
      }
    }
    free(off);
    free(known);
  }
  for (int k = 0; k < nm; k++) {
    free(m[k].c);
    free(m[k].peer);
  }
  free(m);
}

typedef struct p2p_pair {
  int32_t pg;
  int64_t a, b; /* a < b */
} p2p_pair;

static int by_pair(const void *x, const void *y) {
  const p2p_pair *p = x, *q = y;
  if (p->pg != q->pg) return (p->pg > q->pg) - (p->pg < q->pg);
  if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
  return (p->b > q->b) - (p->b < q->b);
}

/* The sends and recvs of each group of more than two ranks, matched pair by pair: every pair of
** ranks a send or recv names (its own and its peer's), once. */
static void match_pairs(tt_import *imp, match_state *st) {
  p2p_pair *ps = NULL;
  size_t n = 0, cap = 0;
  for (int k = 0; k < imp->nranks; k++) {
    const tt_rank *r = imp->ranks[k];
    for (size_t i = 0; i < r->colls.n; i++) {
      const tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
      if (c->pg < 0 || c->peer < 0 || r->rank < 0 || c->peer == r->rank) continue;
      int64_t listed[1];
      if (!p2p_of_many(imp, c, c->pg, listed_ranks(imp->pgs.str[c->pg], listed, 1, NULL))) continue;
      if (n == cap) ps = xp_xrealloc(ps, (cap = cap ? cap * 2 : 64) * sizeof *ps);
      ps[n++] = (p2p_pair){c->pg, r->rank < c->peer ? r->rank : c->peer, r->rank < c->peer ? c->peer : r->rank};
    }
  }
  if (n) qsort(ps, n, sizeof *ps, by_pair);
  for (size_t i = 0; i < n; i++)
    if (!i || by_pair(&ps[i - 1], &ps[i]))
      match_group(imp, ps[i].pg, ps[i].a, ps[i].b, st);
  free(ps);
}

/* Appends to the note why kernels naming no group were left unmatched, where some were. */
static void untold_note(tt_import *imp, const untold *u) {
  if (!u->kernels) return;
  const size_t at = strlen(imp->match_note);
  char why[128];
  if (u->size)
    snprintf(why, sizeof why, "their \"Group size\" %d is not the %d ranks'", u->size, imp->nranks);
  else
    snprintf(why, sizeof why, "rank %lld's distributedInfo lists a process group of fewer ranks",
             (long long)u->smaller_rank);
  snprintf(imp->match_note + at, sizeof imp->match_note - at,
           "; %lld kernels naming no process group not matched: %s, so which ranks ran each together "
           "cannot be told", (long long)u->kernels, why);
}

int tt_match_ranks(tt_import *imp) {
  match_state st = {0};
  st.u.smaller_rank = rank_in_smaller_group(imp);
  for (uint32_t pg = 0; pg < imp->pgs.n; pg++) match_group(imp, (int32_t)pg, -1, -1, &st);
  match_group(imp, -1, -1, -1, &st); /* kernels of no known group */
  match_pairs(imp, &st); /* after the collectives: their clocks set the pairs' */
  xp_vec_free(&st.clocks);
  const int cross_host = st.cross_host, aligned = st.aligned;
  const int64_t unnamed = st.unnamed, apart = st.apart;
  imp->matched = imp->unmatched = 0;
  for (int k = 0; k < imp->nranks; k++) {
    tt_rank *r = imp->ranks[k];
    r->coll_matched = r->coll_unmatched = 0;
    for (size_t i = 0; i < r->colls.n; i++) {
      if (XP_VEC_AT(&r->colls, tt_collk, i)->group >= 0) r->coll_matched++;
      else r->coll_unmatched++;
    }
    imp->matched += r->coll_matched;
    imp->unmatched += r->coll_unmatched;
  }
  if (imp->nranks == 1)
    snprintf(imp->match_note, sizeof imp->match_note,
             "single rank: collective times include waiting for peers that were not imported");
  else if (cross_host)
    snprintf(imp->match_note, sizeof imp->match_note,
             "ranks on different hosts without sequence numbers in the trace: their collectives are not matched");
  else if (aligned)
    snprintf(imp->match_note, sizeof imp->match_note,
             "ranks on different hosts%s, matched by sequence number, each host's clock set to the "
             "reference rank's by the collectives' ends (the median difference)",
             apart ? " (their collectives' ends say so)" : "");
  else if (apart)
    snprintf(imp->match_note, sizeof imp->match_note,
             "collectives paired by time do not end together (%.1f us apart, the median): the ranks' "
             "clocks differ (hosts the traces do not name?), and those without sequence numbers are not matched",
             llabs(apart) / 1e3);
  else
    snprintf(imp->match_note, sizeof imp->match_note,
             "matched by process group and order, aligned by time overlap on one host's clock%s",
             unnamed ? "; kernels naming no process group (CUDA graphs, pynccl, custom all-reduce) "
                       "matched across all imported ranks" : "");
  untold_note(imp, &st.u);
  return 0;
}
