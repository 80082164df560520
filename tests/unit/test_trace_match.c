/* Matching collectives across ranks (importers/torch_trace/tt_match.c) on made-up ranks:
** windows that start at different collectives, a collective one rank's profiler dropped,
** sequence numbers across hosts, groups with a member missing, and the wait/transfer split. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "torch_trace/tt_trace.h"
#include "xp.h"

static tt_rank *add_rank(tt_import *imp, int64_t rank, const char *host) {
  tt_rank *r = xp_xcalloc(1, sizeof *r);
  r->rank = rank;
  r->meta = cJSON_CreateObject();
  if (host) cJSON_AddStringToObject(r->meta, "hostname", host);
  imp->ranks = xp_xrealloc(imp->ranks, (size_t)(imp->nranks + 1) * sizeof *imp->ranks);
  imp->ranks[imp->nranks++] = r;
  return r;
}

static tt_collk *add_coll(tt_rank *r, int32_t pg, int64_t start, int64_t dur, int64_t seq) {
  tt_collk *c = xp_vec_push(&r->colls, sizeof *c);
  c->start = start;
  c->end = start + dur;
  c->coll = TT_COLL_ALLREDUCE;
  c->pg = pg;
  c->in_nelems = 4096;
  c->seq = seq;
  c->group = -1;
  c->wait = c->transfer = -1;
  return c;
}

static int32_t pg(tt_import *imp, const char *key) {
  return (int32_t)xp_strtab_intern(&imp->pgs, key, strlen(key), NULL);
}

/* Rank 1 recorded 3 collectives before rank 0's window opened, and rank 0's profiler dropped
** collective 5: pairs must follow the order, not the index. */
static void test_offset_and_gap(void) {
  tt_import imp;
  tt_import_init(&imp, NULL);
  int32_t g = pg(&imp, "0\x1f" "default_pg\x1f[0, 1]");
  tt_rank *r0 = add_rank(&imp, 0, NULL), *r1 = add_rank(&imp, 1, NULL);
  for (int k = 0; k < 12; k++) {
    int64_t t = 1000000 + k * 100000;                 /* collective k completes at t + 10000 */
    add_coll(r1, g, t - 5000, 15000, -1);            /* rank 1 arrives 5 us early */
    if (k >= 3 && k != 5) add_coll(r0, g, t, 10000, -1); /* rank 0 arrives at t */
  }
  CHECK_EQ_INT(tt_match_ranks(&imp), 0);
  CHECK_EQ_INT(imp.match_groups, 8);
  CHECK_EQ_INT(r0->coll_matched, 8);
  CHECK_EQ_INT(r0->coll_unmatched, 0);
  CHECK_EQ_INT(r1->coll_matched, 8);
  CHECK_EQ_INT(r1->coll_unmatched, 4); /* 0, 1, 2 before rank 0's window, and 5 */
  for (size_t i = 0; i < r1->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r1->colls, tt_collk, i);
    if (c->group < 0) continue;
    CHECK_EQ_INT(c->wait, 5000);
    CHECK_EQ_INT(c->transfer, 10000);
  }
  for (size_t i = 0; i < r0->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r0->colls, tt_collk, i);
    CHECK_EQ_INT(c->wait, 0);
    CHECK_EQ_INT(c->transfer, 10000);
    /* paired with rank 1's kernel of the same collective (same end) */
    for (size_t j = 0; j < r1->colls.n; j++) {
      tt_collk *d = XP_VEC_AT(&r1->colls, tt_collk, j);
      if (d->group == c->group) CHECK_EQ_INT(d->end, c->end);
    }
  }
  tt_import_free(&imp);
}

/* Three members listed, two imported: nothing is complete, everything is reported. */
static void test_missing_member(void) {
  tt_import imp;
  tt_import_init(&imp, NULL);
  int32_t g = pg(&imp, "1\x1ftp\x1f[0, 1, 2]");
  tt_rank *r0 = add_rank(&imp, 0, NULL), *r1 = add_rank(&imp, 1, NULL);
  for (int k = 0; k < 4; k++) {
    add_coll(r0, g, k * 100000, 1000, -1);
    add_coll(r1, g, k * 100000, 1000, -1);
  }
  CHECK_EQ_INT(tt_match_ranks(&imp), 0);
  CHECK_EQ_INT(imp.matched, 0);
  CHECK_EQ_INT(imp.unmatched, 8);
  tt_import_free(&imp);
}

/* Different hosts: clocks are unrelated (here 1 s apart), so only Seq pairs kernels. */
static void test_hosts(void) {
  for (int with_seq = 0; with_seq < 2; with_seq++) {
    tt_import imp;
    tt_import_init(&imp, NULL);
    int32_t g = pg(&imp, "0\x1f\x1f[0, 1]");
    tt_rank *r0 = add_rank(&imp, 0, "node-a"), *r1 = add_rank(&imp, 1, "node-b");
    for (int k = 0; k < 5; k++) {
      add_coll(r0, g, k * 100000, 3000, with_seq ? 10 + k : -1);
      add_coll(r1, g, 1000000000 + k * 100000 + 1000, 2000, with_seq ? 10 + k : -1);
    }
    CHECK_EQ_INT(tt_match_ranks(&imp), 0);
    CHECK_EQ_INT(imp.matched, with_seq ? 10 : 0);
    if (!with_seq) CHECK(strstr(imp.match_note, "different hosts") != NULL);
    /* with Seq, rank 1's clock is set to rank 0's by the kernels' ends: rank 0 arrived 1 us
    ** before rank 1 and waited for it, both transferred for 2 us */
    if (with_seq) {
      CHECK(strstr(imp.match_note, "collectives' ends") != NULL);
      for (size_t i = 0; i < r0->colls.n; i++) {
        tt_collk *a = XP_VEC_AT(&r0->colls, tt_collk, i), *b = XP_VEC_AT(&r1->colls, tt_collk, i);
        CHECK_EQ_INT(a->wait, 1000);
        CHECK_EQ_INT(a->transfer, 2000);
        CHECK_EQ_INT(b->wait, 0);
        CHECK_EQ_INT(b->transfer, 2000);
      }
    }
    tt_import_free(&imp);
  }
}

/* Across hosts, a kernel without "Seq" (an args-less one on the group's stream) leaves the
** others paired by theirs, where it kept the whole group unmatched. */
static void test_hosts_some_seq(void) {
  tt_import imp;
  tt_import_init(&imp, NULL);
  int32_t g = pg(&imp, "0\x1f\x1f[0, 1]");
  tt_rank *r0 = add_rank(&imp, 0, "node-a"), *r1 = add_rank(&imp, 1, "node-b");
  for (int k = 0; k < 5; k++) {
    add_coll(r0, g, k * 100000, 3000, k == 2 ? -1 : 10 + k);
    add_coll(r1, g, 5000000 + k * 100000, 3000, k == 2 ? -1 : 10 + k);
  }
  CHECK_EQ_INT(tt_match_ranks(&imp), 0);
  CHECK_EQ_INT(imp.matched, 8);
  CHECK_EQ_INT(imp.unmatched, 2);
  tt_import_free(&imp);
}

/* Four ranks: wait is measured from each member's start to the last member's start. */
static void test_four_ranks(void) {
  tt_import imp;
  tt_import_init(&imp, NULL);
  int32_t g = pg(&imp, "0\x1f\x1f[0, 1, 2, 3]");
  tt_rank *r[4];
  for (int i = 0; i < 4; i++) r[i] = add_rank(&imp, i, NULL);
  const int64_t arrive[4] = {0, 3000, 7000, 1000}, end = 9000;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 4; i++) add_coll(r[i], g, k * 50000 + arrive[i], end - arrive[i], -1);
  CHECK_EQ_INT(tt_match_ranks(&imp), 0);
  CHECK_EQ_INT(imp.match_groups, 3);
  for (int i = 0; i < 4; i++) {
    tt_collk *c = XP_VEC_AT(&r[i]->colls, tt_collk, 1);
    CHECK_EQ_INT(c->wait, 7000 - arrive[i]);
    CHECK_EQ_INT(c->transfer, 2000);
  }
  tt_import_free(&imp);
}

/* Two tensor-parallel groups of a job of four ({0, 1} and {2, 3}), in lockstep, whose kernels
** name no process group: each group's all-reduce overlaps the other's, so pooled across the four
** ranks they were taken for one collective of four (rank 0 waiting 5 us for rank 3, of the other
** group). Where the kernels' "Group size" (2) or a rank's distributedInfo (a group [0, 1]) says
** the group is smaller, they are left unmatched and the note says why; of size 4, or with nothing
** said (Kineto of 2022), pooled. */
static void test_lockstep_groups(void) {
  for (int how = 0; how < 4; how++) { /* 0: "Group size" 2, 1: pg_config, 2: size 4, 3: neither */
    tt_import imp;
    tt_import_init(&imp, NULL);
    tt_rank *r[4];
    for (int i = 0; i < 4; i++) r[i] = add_rank(&imp, i, NULL), r[i]->world_size = 4;
    if (how == 1) {
      cJSON *di = cJSON_AddObjectToObject(r[0]->meta, "distributedInfo");
      cJSON *pgc = cJSON_AddArrayToObject(di, "pg_config");
      const int world[] = {0, 1, 2, 3}, tp[] = {0, 1}, self[] = {0};
      cJSON *g = cJSON_CreateObject();
      cJSON_AddItemToObject(g, "ranks", cJSON_CreateIntArray(world, 4));
      cJSON_AddItemToArray(pgc, g);
      g = cJSON_CreateObject();
      cJSON_AddItemToObject(g, "ranks", cJSON_CreateIntArray(self, 1)); /* a group of one: no matter */
      cJSON_AddItemToArray(pgc, g);
      g = cJSON_CreateObject();
      cJSON_AddItemToObject(g, "ranks", cJSON_CreateIntArray(tp, 2));
      cJSON_AddItemToArray(pgc, g);
    }
    const int64_t arrive[4] = {0, 1000, 3000, 5000}, end[4] = {8000, 8000, 9000, 9000};
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 4; i++) {
        tt_collk *c = add_coll(r[i], -1, k * 50000 + arrive[i], end[i] - arrive[i], -1);
        c->group_size = how == 0 ? 2 : how == 2 ? 4 : -1;
      }
    CHECK_EQ_INT(tt_match_ranks(&imp), 0);
    CHECK_EQ_INT(imp.matched, how < 2 ? 0 : 12);
    CHECK_EQ_INT(imp.unmatched, how < 2 ? 12 : 0);
    const char *why = how == 0 ? "\"Group size\" 2 is not the 4 ranks'"
                               : "rank 0's distributedInfo lists a process group of fewer";
    CHECK((strstr(imp.match_note, why) == NULL) == (how >= 2));
    if (how < 2) CHECK(strstr(imp.match_note, "12 kernels naming no process group not matched") != NULL);
    tt_import_free(&imp);
  }
}

/* A pipeline's sends and recvs across hosts: ranks 0, 1 on node-a, 2, 3 on node-b, whose clock
** runs 1 s and 2 us ahead. Their all-reduces (numbered) set node-b's clock by their ends; rank 1's
** sends to rank 2 (a group of four: paired per pair, by time, their numbers differing) were left
** unmatched as across any two hosts. On the clock the all-reduces set, rank 2 arrives 700 ns after
** rank 1: rank 1 waits 700 ns and both transfer 800; the same where the traces name no host (as
** Kineto's do: the all-reduces' ends say the clocks differ). Without the all-reduces, nothing sets
** the clock: unmatched, as before. */
static void test_p2p_across_hosts(void) {
  for (int v = 0; v < 3; v++) { /* 0: hosts named, 1: unnamed, 2: named, no all-reduce */
    const int with_coll = v < 2;
    tt_import imp;
    tt_import_init(&imp, NULL);
    int32_t world = pg(&imp, "0\x1f\x1f[0, 1, 2, 3]"), pp = pg(&imp, "1\x1f\x1f[0, 1, 2, 3]");
    tt_rank *r[4];
    const int64_t ahead[4] = {0, 0, 1000002000, 1000002000}, arrive[4] = {0, 1000, 3000, 2000};
    for (int i = 0; i < 4; i++) r[i] = add_rank(&imp, i, v == 1 ? NULL : i < 2 ? "node-a" : "node-b");
    for (int k = 0; with_coll && k < 5; k++)
      for (int i = 0; i < 4; i++)
        add_coll(r[i], world, ahead[i] + k * 100000 + arrive[i], 5000 - arrive[i], 10 + k);
    for (int k = 0; k < 3; k++) {
      const int64_t t = 1000000 + k * 100000;
      tt_collk *send = add_coll(r[1], pp, t, 1500, 20 + 2 * k);
      tt_collk *recv = add_coll(r[2], pp, ahead[2] + t + 700, 800, 30 + k);
      send->coll = recv->coll = TT_COLL_SENDRECV;
      send->peer = 2, recv->peer = 1;
      send->group_size = recv->group_size = 4;
    }
    CHECK_EQ_INT(tt_match_ranks(&imp), 0);
    CHECK_EQ_INT(r[1]->coll_unmatched, with_coll ? 0 : 3);
    CHECK_EQ_INT(r[2]->coll_unmatched, with_coll ? 0 : 3);
    for (size_t i = 0; with_coll && i < r[1]->colls.n; i++) {
      const tt_collk *c = XP_VEC_AT(&r[1]->colls, tt_collk, i);
      if (c->coll != TT_COLL_SENDRECV) continue;
      CHECK_EQ_INT(c->wait, 700);
      CHECK_EQ_INT(c->transfer, 800);
      for (size_t j = 0; j < r[2]->colls.n; j++) {
        const tt_collk *d = XP_VEC_AT(&r[2]->colls, tt_collk, j);
        if (d->group != c->group) continue;
        CHECK_EQ_INT(d->coll, TT_COLL_SENDRECV);
        CHECK_EQ_INT(d->wait, 0);
        CHECK_EQ_INT(d->transfer, 800);
      }
    }
    tt_import_free(&imp);
  }
}

int main(void) {
  test_offset_and_gap();
  test_missing_member();
  test_hosts();
  test_hosts_some_seq();
  test_four_ranks();
  test_lockstep_groups();
  test_p2p_across_hosts();
  CHECK_DONE();
}
