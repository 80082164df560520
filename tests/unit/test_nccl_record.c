/* The path from nccl_burst results in memory to the database, without a GPU: the samples below
** are chosen by hand, NCCL's log and topology are the 2x H200 fixture, and the test reads back
** what was recorded: cases, metrics computed from raw samples, bandwidths, #wrong, artifacts,
** and the interconnect derived from the log. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "runners/nccl_record.h"
#include "xp.h"



/* One text value, "" rather than NULL when there is none. */
static char *text_of(sqlite3 *db, const char *sql) {
  char *v = one_text(db, sql);
  return v ? v : xp_strdup("");
}

/* At 4096 ranks in fp8 e5m2 an all-reduce's check rotates 5 contributors over the ranks: with
** 512 elements per call, 1536 ranks contribute to none, and a #wrong of 0 there says nothing of
** them. The case says it was checked partly and from which count every rank's fault shows
** (ceil(4096 / 5) = 820); at 1024 elements it was checked in full. */
static void test_partial_check(sqlite3 *db) {
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[512,1024],\"iterations\":2,"
                                  "\"dtypes\":[\"fp8_e5m2\"],\"collectives\":[\"allreduce\"]}", "p.json", ".");
  xp_nccl_plan p;
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  xp_nccl_results res;
  xp_nccl_results_init(&res, &p, 4096);
  CHECK_EQ_INT(res.ncases, 2);
  for (int i = 0; i < res.ncases; i++) {
    xp_nccl_case *c = &res.cases[i];
    c->measured = 1;
    c->wrong = 0;
    for (int k = 0; k < 4096 * 2; k++) c->burst_us[k] = 100;
  }
  CHECK_EQ_INT(res.cases[0].check_min, 820);
  CHECK(xp_nccl_case_partial(&res.cases[0]) && !xp_nccl_case_partial(&res.cases[1]));
  xp_run_opts o = {"nccl_burst", 0, s, NULL, 0};
  xp_run *run = NULL;
  CHECK_EQ_INT(xp_run_begin(db, &o, &run), 0);
  CHECK_EQ_INT(xp_nccl_record(run, &res), 0);
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
  char *note = text_of(db, "SELECT note FROM cases WHERE name='allreduce/fp8_e5m2/512/eager/out_of_place'");
  CHECK_EQ_STR(note, "results checked partly: 512 elements per call cannot show every rank's fault "
               "(all ranks' from 820)");
  free(note);
  CHECK_EQ_INT(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE "
                              "c.name='allreduce/fp8_e5m2/512/eager/out_of_place' AND m.name='verify_min_count'"), 820);
  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM cases c WHERE c.name='allreduce/fp8_e5m2/1024/eager/out_of_place' "
                              "AND c.note IS NULL AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.case_id=c.id AND "
                              "m.name='verify_min_count') AND EXISTS (SELECT 1 FROM metrics m WHERE m.case_id=c.id "
                              "AND m.name='wrong')"), 1);
  xp_nccl_results_free(&res);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
}

/* One pair's transports in nccl.transport.A-B, in xp's order of transports whatever the log's:
** a ring's connection over SHM and the same pair's send/recv connection (connIndex 1) over P2P,
** in the forms NVIDIA/nccl issue 1817's log prints them, logged in either order by two runs. */
static void test_pair_transport_order(sqlite3 *db) {
  static const char *const lines[2][2] = {
      {"h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct",
       "h:1:3 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/direct pointer"},
      {"h:1:3 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/direct pointer",
       "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct"}};
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[8]}", "o.json", ".");
  for (int k = 0; k < 2; k++) {
    xp_nccl_info info;
    xp_nccl_info_init(&info);
    for (int i = 0; i < 2; i++) xp_nccl_info_line(&info, lines[k][i], strlen(lines[k][i]));
    xp_run_opts o = {"nccl_burst", 0, s, NULL, 0};
    xp_run *run = NULL;
    CHECK_EQ_INT(xp_run_begin(db, &o, &run), 0);
    CHECK_EQ_INT(xp_nccl_record_info(run, &info, NULL, "trace"), 0);
    CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
    xp_nccl_info_free(&info);
  }
  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM run_meta WHERE key='nccl.transport.0-1' AND source='trace' "
                              "AND value='P2P/direct pointer x1; SHM/direct/direct x1'"), 2);
  xp_spec_free(s);
}

/* nccl_burst's process sets up two communicators one after the other on the same GPUs: the arrival
** check's (non-blocking, destroyed at once) and the one that measures, each on an id of its own.
** NCCL before 2.22 connects at set-up, so both print every connection (NCCL 2.21's forms: Init START
** and COMPLETE with the commId, as nccl-tests' split_info.txt; the measuring communicator's handles at
** the freed one's addresses, as malloc gives them again); only the measuring one's count: each pair
** over 2 channels, not 4. NCCL 2.22 on connects at the first collective, which the arrival check
** never runs: the measuring one's lines, after both were set up, are still its own. */
static char *two_comms_log(int lazy) {
  static const char *const forms[] = {
      ("h:%d:%d [%d] NCCL INFO ncclCommInitRankConfig comm 0x55%d0 rank %d nranks 2 cudaDev %d nvmlDev %d busId "
       "%d8000 commId 0x%s - Init %s\n"), /* one form, split: parenthesized, as clang asks */
      "h:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s\n",
      "h:%d:%d [%d] NCCL INFO comm 0x55%d0 rank %d nranks 2 cudaDev %d busId %d8000 - Destroy COMPLETE\n"};
  const int pid = (int)getpid();
  size_t cap = 8192, used = 0;
  char *log = xp_xmalloc(cap);
  for (int comm = 0; comm < 2; comm++) {
    const char *id = comm ? "2222bbbb" : "1111aaaa";
    const int tid = pid + 10 + 2 * comm;
    for (int k = 0; k < 2; k++)
      used += (size_t)snprintf(log + used, cap - used, forms[0], pid, tid + k, k, k, k, k, k, k, id, "START");
    for (int ch = 0; ch < 2 && !lazy; ch++)
      for (int k = 0; k < 2; k++)
        used += (size_t)snprintf(log + used, cap - used, forms[1], pid, tid + k, k, ch, k, k, 1 - k, 1 - k, "P2P/CUMEM");
    for (int k = 0; k < 2; k++)
      used += (size_t)snprintf(log + used, cap - used, forms[0], pid, tid + k, k, k, k, k, k, k, id, "COMPLETE");
    for (int k = 0; k < 2 && !comm; k++)
      used += (size_t)snprintf(log + used, cap - used, forms[2], pid, pid, k, k, k, k, k);
  }
  for (int ch = 0; ch < 2 && lazy; ch++)
    for (int k = 0; k < 2; k++)
      used += (size_t)snprintf(log + used, cap - used, forms[1], pid, pid + 20 + k, k, ch, k, k, 1 - k, 1 - k,
                               "P2P/direct pointer");
  return log;
}

static void test_arrival_check_comm(sqlite3 *db) {
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[8]}", "a.json", ".");
  xp_nccl_plan p;
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  for (int lazy = 0; lazy < 2; lazy++) {
    xp_nccl_results res;
    xp_nccl_results_init(&res, &p, 2);
    res.ranks[0].info_log = two_comms_log(lazy);
    xp_run_opts o = {"nccl_burst", 0, s, NULL, 0};
    xp_run *run = NULL;
    CHECK_EQ_INT(xp_run_begin(db, &o, &run), 0);
    CHECK_EQ_INT(xp_nccl_record(run, &res), 0);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT value FROM run_meta WHERE run_id = %lld AND key = '%%s'", (long long)xp_run_id(run));
    CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
    char q[200], *v;
    snprintf(q, sizeof q, sql, "nccl.transport.0-1");
    v = text_of(db, q);
    CHECK_EQ_STR(v, lazy ? "P2P/direct pointer x2" : "P2P/CUMEM x2");
    free(v);
    snprintf(q, sizeof q, sql, "nccl.transport.1-0");
    v = text_of(db, q);
    CHECK_EQ_STR(v, lazy ? "P2P/direct pointer x2" : "P2P/CUMEM x2");
    free(v);
    snprintf(q, sizeof q, sql, "nccl.communicators");
    v = text_of(db, q);
    CHECK_EQ_STR(v, lazy ? "" : "2 communicators in the log (commId 0x1111aaaa, 2 ranks; commId 0x2222bbbb, 2 ranks): "
                                "connections are commId 0x2222bbbb's (rank 0's)");
    free(v);
    xp_nccl_results_free(&res);
  }
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
}

/* A TUNING line's channel range as a damaged or foreign log may hold it, {0..2147483647}: the
** case's channels are the range's size, 2^31, where it was summed in int (a plain build recorded
** -2147483648, the sanitizer build stopped at signed integer overflow). */
static void test_tuning_channels_past_int(sqlite3 *db) {
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"dtypes\":[\"fp32\"],"
                                  "\"collectives\":[\"allreduce\"]}", "c.json", ".");
  xp_nccl_plan p;
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  xp_nccl_results res;
  xp_nccl_results_init(&res, &p, 1);
  CHECK_EQ_INT(res.ncases, 1);
  res.cases[0].measured = 1;
  for (int k = 0; k < p.iterations; k++) res.cases[0].burst_us[k] = 10;
  res.ranks[0].info_log = xp_strdup("h:1:1 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto SIMPLE "
                                    "channel{Lo..Hi}={0..2147483647}\n");
  xp_run_opts o = {"nccl_burst", 0, s, NULL, 0};
  xp_run *run = NULL;
  CHECK_EQ_INT(xp_run_begin(db, &o, &run), 0);
  CHECK_EQ_INT(xp_nccl_record(run, &res), 0);
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT json_extract(params, '$.channels') FROM cases WHERE run_id = %lld",
           (long long)xp_run_id(run));
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
  CHECK_NEAR(one_double(db, sql), 2147483648.0, 0);
  xp_nccl_results_free(&res);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
}

int main(void) {
  char dbpath[] = "/tmp/xp-test-nccl-record-XXXXXX";
  sqlite3 *db = test_db_new(dbpath);
  CHECK(db != NULL);
  if (!db) CHECK_DONE();

  xp_spec *s = xp_spec_parse_json("{\"kind\":\"nccl_burst\",\"sizes\":[14336],\"burst\":4,\"iterations\":4,"
                                  "\"modes\":[\"graph\"],\"placements\":[\"out_of_place\",\"in_place\"],"
                                  "\"collectives\":[\"allreduce\",\"alltoall\"],\"interconnect\":\"pcie\"}",
                                  "t.json", ".");
  xp_nccl_plan p;
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  xp_nccl_results res;
  xp_nccl_results_init(&res, &p, 2);
  CHECK_EQ_INT(res.ncases, 4);
  CHECK(res.cases[3].skip != NULL); /* alltoall in place */
  /* allreduce out of place: rank 0 bursts 40,44,48,52 us; rank 1 the same plus 2 */
  xp_nccl_case *c = &res.cases[0];
  c->measured = 1;
  c->wrong = 0;
  for (int i = 0; i < 4; i++) {
    c->burst_us[i] = 40 + 4 * i;
    c->burst_us[4 + i] = 42 + 4 * i;
  }
  /* allreduce in place: one wrong element */
  c = &res.cases[1];
  c->measured = 1;
  c->wrong = 1;
  for (int i = 0; i < 8; i++) c->burst_us[i] = 30;
  /* alltoall out of place: not measured (the run stopped): not recorded */
  size_t len;
  res.ranks[0].present = 1;
  snprintf(res.ranks[0].host, sizeof res.ranks[0].host, "vm");
  snprintf(res.ranks[0].gpu.name, sizeof res.ranks[0].gpu.name, "NVIDIA H200");
  res.ranks[0].info_log = test_data("nccl", "nccltests_sweep.txt", &len);
  res.topo_xml = test_data("nccl", "topo.xml", &res.topo_len);
  xp_nccl_results_env(&res, "NCCL_NVLS_ENABLE", "0");
  xp_nccl_results_env(&res, "NCCL_P2P_DISABLE", "1");
  snprintf(res.config, sizeof res.config, "blocking=0");

  xp_run_opts o = {"nccl_burst", 0, s, NULL, 0};
  xp_run *run = NULL;
  CHECK_EQ_INT(xp_run_begin(db, &o, &run), 0);
  xp_error_quiet(1); /* the declared interconnect disagrees with the detected one: a warning */
  CHECK_EQ_INT(xp_nccl_record(run, &res), 0);
  xp_error_quiet(0);
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);

  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM cases"), 3);
  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM cases WHERE status='skipped' AND name='alltoall/bf16/14336/graph/in_place'"), 1);
  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM cases WHERE status='failed' AND name='allreduce/bf16/14336/graph/in_place'"), 1);
  /* burst samples are the mean over ranks: 41, 45, 49, 53 -> median 47 */
  CHECK_NEAR(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=0 AND m.name='burst_us'"), 47, 1e-9);
  CHECK_NEAR(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=0 AND m.name='time_us'"), 11.75, 1e-9);
  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM samples s JOIN cases c ON c.id=s.case_id WHERE c.seq=0 AND s.metric='time_us'"), 4);
  CHECK_NEAR(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=0 AND m.name='rank_spread_us'"), 2, 1e-9);
  CHECK_NEAR(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=0 AND m.name='burst_us.rank1'"), 48, 1e-9);
  /* 14336 B in 11.75 us; 2 ranks: busbw = algbw */
  CHECK_NEAR(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=0 AND m.name='busbw_GBps'"),
             14336 / 1e9 / 11.75e-6, 1e-9);
  CHECK_EQ_INT(one_double(db, "SELECT median FROM metrics m JOIN cases c ON c.id=m.case_id WHERE c.seq=1 AND m.name='wrong'"), 1);
  char *params = text_of(db, "SELECT params FROM cases WHERE seq=0");
  CHECK(strstr(params, "\"burst\":4") && strstr(params, "\"count\":7168") && strstr(params, "\"ranks\":2"));
  free(params);
  /* what NCCL said, detected; the declared interconnect loses to it and the mismatch is kept */
  char *ic = text_of(db, "SELECT interconnect FROM runs");
  CHECK_EQ_STR(ic, "nvlink");
  free(ic);
  char *mm = text_of(db, "SELECT value FROM run_meta WHERE key='mismatch.interconnect'");
  CHECK(strstr(mm, "pcie") && strstr(mm, "nvlink"));
  free(mm);
  char *tr = text_of(db, "SELECT value FROM run_meta WHERE key='nccl.transport.0-1' AND source='detected'");
  CHECK_EQ_STR(tr, "P2P/direct pointer x24");
  free(tr);
  char *env = text_of(db, "SELECT value FROM run_meta WHERE key='env.NCCL_P2P_DISABLE' AND source='env'");
  CHECK_EQ_STR(env, "1");
  free(env);
  CHECK_EQ_INT(one_double(db, "SELECT gpu_count FROM runs"), 2);
  CHECK_EQ_INT(one_double(db, "SELECT count(*) FROM artifacts WHERE name IN ('nccl_info.log','nccl_topo.xml')"), 2);
  CHECK_EQ_INT(one_double(db, "SELECT size FROM artifacts WHERE name='nccl_topo.xml'"), (double)res.topo_len);

  xp_nccl_results_free(&res);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
  test_partial_check(db);
  test_pair_transport_order(db);
  test_arrival_check_comm(db);
  test_tuning_channels_past_int(db);
  xp_db_close(db);
  unlink(dbpath);
  CHECK_DONE();
}
