/* nccl-tests text variants the fixtures do not cover: per-iteration columns (-I), cputime (-C),
** timestamps (-S), unchecked results (-c 0: N/A), the pre-2.13 "error" column and device line,
** another collective's root column, and the real 2x H200 outputs for the common case.
** The synthetic reports are written here, in nccl-tests' layout (src/util.cu). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testutil.h"
#include "nccl_tests/nccl_tests.h"
#include "xp.h"

static int parse(nt_doc *d, const char *text) {
  nt_doc_init(d, "t.txt");
  xp_error_quiet(1);
  int rc = nt_parse_text(d, text, strlen(text));
  xp_error_quiet(0);
  return rc;
}

static void test_per_iteration_and_timestamps(void) {
  static const char text[] =
      "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"
      "# Collective test starting: reduce_scatter_perf\n"
      "# nThread 1 nGpus 8 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 2 "
      "validation: 0 graph: 0 unalign: 0\n"
      "#\n# Using devices\n"
      "#  Rank  0 Group  0 Pid   77 on      node1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
      "#\n"
      "#                                    out-of-place                                             in-place\n"
      "#  size count type redop root   time algbw busbw #wrong i_min i_max i_p99 i_cv%   time algbw busbw #wrong "
      "i_min i_max i_p99 i_cv% timestamp\n"
      "#   (B) (elements)                (us) (GB/s) (GB/s)\n"
      "   1024   32 float sum -1  20.10 0.05 0.04  N/A 19.0 25.0 24.0 3.1  21.00 0.05 0.04 N/A 20.0 26.0 25.0 2.0 "
      "2025-08-25 12:00:00\n"
      "   2048   64 float sum -1  2.0e+01 0.10 0.09 N/A 19.0 25.0 24.0 3.1  21.50 0.10 0.08 N/A 20.0 26.0 25.0 2.0 "
      "2025-08-25 12:00:01\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.0625 \n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_STR(d.coll, "reducescatter");
  CHECK_EQ_INT(d.ngpus, 8);
  CHECK_EQ_INT(d.iters, 100);
  CHECK_EQ_INT(d.warmup, 5);
  CHECK_EQ_INT(d.agg, 2);
  CHECK_EQ_INT(d.ndev, 1);
  CHECK_EQ_STR(d.dev[0].name, "NVIDIA H100 80GB HBM3");
  CHECK_EQ_STR(d.dev[0].busid, "0000:18:00");
  CHECK_EQ_INT(d.nrows, 2);
  const nt_row *r = &d.rows[1];
  CHECK_EQ_INT(r->bytes, 2048);
  CHECK_EQ_INT(r->count, 64);
  CHECK_EQ_STR(r->dtype, "fp32");
  CHECK_NEAR(r->r[NT_OUT].time_us, 20.0, 1e-12); /* %e form */
  CHECK_NEAR(r->r[NT_IN].time_us, 21.5, 1e-12);  /* after the out-of-place i_* columns */
  CHECK_NEAR(r->r[NT_IN].busbw, 0.08, 1e-12);
  CHECK_EQ_INT(r->r[NT_OUT].wrong, -1);           /* N/A: not checked */
  CHECK_EQ_INT(r->agg, 2);
  CHECK_NEAR(d.avg_busbw, 0.0625, 1e-12);
  nt_doc_free(&d);
}

static void test_cputime_and_old_format(void) {
  /* nccl-tests before 2.13: "error" instead of "#wrong", no Group in the device line. */
  static const char text[] =
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "# Collective test starting: broadcast_perf\n"
      "#   Rank  0 Pid  12345 on   oldhost device  0 [0x18] Tesla V100-SXM2-32GB\n"
      "#   Rank  1 Pid  12345 on   oldhost device  1 [0x19] Tesla V100-SXM2-32GB\n"
      "#                                                     out-of-place                       in-place\n"
      "#       size         count    type   redop    root  cputime  algbw   busbw   error  cputime  algbw   busbw  error\n"
      "           8             2   float    none       1     5.10   0.00    0.00  0e+00     5.00   0.00    0.00  0e+00\n"
      "          16             4   float    none       1     5.20   0.00    0.00  0e+00     5.10   0.00    0.00  0e+00\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_STR(d.coll, "broadcast");
  CHECK_EQ_INT(d.ndev, 2);
  CHECK_EQ_STR(d.dev[1].name, "Tesla V100-SXM2-32GB");
  CHECK_EQ_STR(d.dev[1].host, "oldhost");
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_EQ_INT(d.rows[0].root, 1);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].cputime, 1);
  CHECK_NEAR(d.rows[1].r[NT_IN].time_us, 5.1, 1e-12);
  /* "error" is a magnitude, not a count: judged against float's bound (1e-5), 0 passes */
  CHECK_NEAR(d.rows[0].r[NT_OUT].max_err, 0.0, 0);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].wrong, 0);
  nt_doc_free(&d);
}

static void test_rccl_options(void) {
  /* rccl-tests' own options lines: "# nThread: %d nGpus: %d ... warmupIters: %d" (its common.cu of
  ** 2021, printed in ROCm 4.x logs) and "# nThreads: 1 nGpus: 2 nRanks: 1 ..." (2023, ROCm/rccl
  ** issue 1261), where "nThread " was looked for and nothing of the options was read. */
  static const char text21[] =
      "# nThread: 1 nGpus: 1 minBytes: 8 maxBytes: 134217728 step: 2(factor) warmupIters: 5 iters: 20 validation: 1\n"
      "#\n# Using devices\n"
      "#   Rank  0 Pid 106347 on      nodea device  0 [0000:c9:00.0] Device 738c\n"
      "#   Rank  1 Pid  97185 on      nodeb device  0 [0000:c9:00.0] Device 738c\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "     1048576        262144     float     sum    211.0    4.97    4.97  0e+00    214.0    4.90    4.90  0e+00\n";
  static const char text23[] =
      "# nThreads: 1 nGpus: 2 nRanks: 1 minBytes: 8 maxBytes: 134217728 step: 2(factor) warmupIters: 5 iters: 40 "
      "agg iters: 1 validation: 1 graph: 0\n"
      "#\n# Using devices\n"
      "#   Rank  0 Pid    46 on      nodea device  0 [0000:83:00.0] Radeon RX 7900 XTX\n"
      "#   Rank  1 Pid    46 on      nodea device  1 [0000:03:00.0] Radeon RX 7900 XTX\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "     8388608       2097152     float     sum    523.0   16.04   16.04  0e+00    552.0   15.20   15.20  0e+00\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text21), 0);
  CHECK_EQ_INT(d.nthreads, 1);
  CHECK_EQ_INT(d.ngpus, 1);
  CHECK_EQ_INT(d.warmup, 5);
  CHECK_EQ_INT(d.iters, 20);
  CHECK_EQ_INT(d.validation, 1);
  CHECK_EQ_INT(d.max_bytes, 134217728);
  CHECK_EQ_INT(d.rows[0].iters, 20);
  CHECK_EQ_INT(d.nranks, 2);
  nt_doc_free(&d);
  CHECK_EQ_INT(parse(&d, text23), 0);
  CHECK_EQ_INT(d.nthreads, 1);
  CHECK_EQ_INT(d.ngpus, 2);
  CHECK_EQ_INT(d.warmup, 5);
  CHECK_EQ_INT(d.iters, 40);
  CHECK_EQ_INT(d.agg, 1);
  CHECK_EQ_INT(d.rows[0].iters, 40);
  nt_doc_free(&d);
}

static void test_rccl_choice_columns(void) {
  /* rccl-tests -A 1 ends each row with RCCL's algorithm, protocol and channels for its size (its
  ** common.cu: PRINT("%8s  %8s  %10d", ...), "N/A" where the test has none): the row's own choice. */
  static const char text[] =
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong     algo     proto   nchannels\n"
      "     1048576        262144     float     sum      -1    76.26   13.75   25.78      0    76.43   13.72   25.72      0"
      "  Direct    SIMPLE          32\n"
      "     2097152        524288     float     sum      -1    87.02   24.10   45.18      0    86.52   24.24   45.45      0"
      "       N/A       N/A         N/A\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_EQ_STR(d.rows[0].algo, "Direct");
  CHECK_EQ_STR(d.rows[0].proto, "SIMPLE");
  CHECK_NEAR(d.rows[0].r[NT_IN].busbw, 25.72, 1e-12);
  CHECK_EQ_STR(d.rows[1].algo, "");
  CHECK_NEAR(d.rows[1].r[NT_IN].time_us, 86.52, 1e-12);
  nt_doc_free(&d);
}

static void test_command_names_test(void) {
  /* Before 2.13 a report names no test; the command that ran it, kept in the log before it (a
  ** shell prompt, mpirun, a script's echo), does. Two tests so named are told apart, not refused. */
  static const char text[] =
      "user@node1:~/nccl-tests$ mpirun -np 2 ./build/all_gather_perf -b 65536 -e 65536 -g 1\n"
      "# nThread 1 nGpus 1 minBytes 65536 maxBytes 65536 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "       65536          8192   float            15.00    4.37    2.18  0e+00    14.00    4.68    2.34  0e+00\n"
      "# Out of bounds values : 0 OK\n"
      "Running /opt/nccl-tests/bin/reduce_scatter_perf.exe -b 65536 -e 65536\n"
      "# nThread 1 nGpus 1 minBytes 65536 maxBytes 65536 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "       65536          8192   float     sum    16.00    4.10    2.05  0e+00    15.00    4.37    2.18  0e+00\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0); /* counts 8192 in both: refused as two unnamed tests before */
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_EQ_STR(d.rows[0].coll, "");
  CHECK_EQ_STR(d.rows[0].run_by, "all_gather");
  CHECK_EQ_STR(d.rows[1].run_by, "reduce_scatter");
  nt_doc_free(&d);
  /* a line naming two tests names none; nor does a word merely ending in _perf's letters */
  static const char two[] =
      "ls build: all_gather_perf all_reduce_perf run_perf.sh\n"
      "# nThread 1 nGpus 1 minBytes 65536 maxBytes 65536 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "       65536         16384   float     sum    16.00    4.10    2.05  0e+00    15.00    4.37    2.18  0e+00\n";
  CHECK_EQ_INT(parse(&d, two), 0);
  CHECK_EQ_STR(d.rows[0].run_by, "");
  nt_doc_free(&d);
}

static void test_unnamed_test(void) {
  /* A report without "Collective test starting" (older nccl-tests): rows still read, unnamed. */
  static const char text[] =
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "           8             2   float     sum    15.00    0.00    0.00  0e+00    14.00    0.00    0.00  0e+00\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nrows, 1);
  CHECK_EQ_STR(d.coll, "");
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 14.0, 1e-12);
  CHECK_EQ_INT(d.rows[0].root, -1);
  nt_doc_free(&d);
}

/* The two column-header lines of an all_reduce_perf report (lines 2 and 3; a row is line 4). */
#define HEADER                                                                                              \
  "#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"                        \
  "#   (B) (elements)                (us) (GB/s) (GB/s)\n"

/* The count a report's one INFO line gives it as NCCL's own evidence (nt_rank_evidence.info). */
static int info_evidence(const char *info) {
  char *text = xp_asprintf("# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 "
                           "validation: 1\n"
                           "host:1:1 [0] NCCL INFO %s\n" HEADER
                           "        1024           256     float     sum      -1    20.10    0.00    0.00      0    "
                           "21.00    0.00    0.00      0\n", info);
  nt_doc d;
  int n = parse(&d, text) == 0 && d.nev == 1 ? d.ev[0].info : -99;
  nt_doc_free(&d);
  free(text);
  return n;
}

static void test_info_comm_size(void) {
  /* NCCL 2.3 (src/init.cu): ncclCommInitAll logs "nranks N" alone, its commAlloc "comm 0x.. rank R
  ** nranks N" and "... - COMPLETE" without "Init"; every later "Init COMPLETE" names rank R nranks N */
  CHECK_EQ_INT(info_evidence("nranks 4"), 4);
  CHECK_EQ_INT(info_evidence("comm 0x7f0 rank 1 nranks 4 - COMPLETE"), 4);
  CHECK_EQ_INT(info_evidence("comm 0x7f0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 - Init COMPLETE"), 16);
  CHECK_EQ_INT(info_evidence("comm 0x7f0 rank 5 nranks 4 cudaDev 0 - Init COMPLETE"), 0); /* R past N: not it */
  /* RCCL puts its communicator after its lines: "... comm 0x22fcfb0 nRanks 02 busId b7000" */
  CHECK_EQ_INT(info_evidence("Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1 comm 0x22fcfb0 nRanks 02 busId b7000"), 2);
  CHECK_EQ_INT(info_evidence("comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0"), 8);
  CHECK_EQ_INT(info_evidence("Setting affinity; localRanks 8"), 0);
  /* rank 0's ring: 2.3-2.4 "Ring 00 :", 2.5-2.11 "Channel 00 :", 2.12 on "Channel 00/24 :" */
  CHECK_EQ_INT(info_evidence("Ring 00 :    0   1   2   3"), 4);
  CHECK_EQ_INT(info_evidence("Channel 01 :    0   2   1"), 3);
  CHECK_EQ_INT(info_evidence("Channel 00/24 :    0   1"), 2);
  CHECK_EQ_INT(info_evidence("Channel 00/32 :    0"), 1);
  /* not a whole ring: a connection, a list cut ("..."), one of 20 (dumpLine's old cap), a gap */
  CHECK_EQ_INT(info_evidence("Channel 00/02 : 0[0] -> 1[1] via P2P/IPC"), 0);
  CHECK_EQ_INT(info_evidence("Ring 00 : 0 -> 1 [send] via NET/Socket/0"), 0);
  CHECK_EQ_INT(info_evidence("Channel 00/04 :   0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17..."), 0);
  CHECK_EQ_INT(info_evidence("Ring 00 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17  18  19"),
               0);
  CHECK_EQ_INT(info_evidence("Channel 00/02 :    0   2"), 0);
}

static void test_bad_text(void) {
  nt_doc d;
  CHECK_EQ_INT(parse(&d, "hello\nworld\n"), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "no nccl-tests results") != NULL);
  nt_doc_free(&d);
  /* a line cut short, and nothing else: left out with a warning, so no results */
  static const char short_row[] = "# Collective test starting: all_reduce_perf\n    1024 256 float\n";
  CHECK_EQ_INT(parse(&d, short_row), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "no nccl-tests results") != NULL);
  nt_doc_free(&d);
  /* whole-number columns out of range or fractional are errors, never cast (a fuzzer's root
  ** 1e300 was UB); a line whose size and count are not whole numbers is no result line */
  static const char *const rows[][2] = {
      {"  99999999999999999999  256  float  sum  -1  7.49  1.91  1.91  0  7.61  1.88  1.88  0\n",
       "column size: 99999999999999999999 is not a whole number in range"},
      {"     1024  256  float  sum  1e12  7.49  1.91  1.91  0  7.61  1.88  1.88  0\n",
       "column root: 1e12 is not a whole number in range"},
      {"     1024  256  float  sum  -1  7.49  1.91  1.91  -inf  7.61  1.88  1.88  0\n",
       "column #wrong: -inf is not a whole number in range"},
      {"     1024  256  float  sum  -1  7.49  1.91  1.91  0.5  7.61  1.88  1.88  0\n",
       "column #wrong: 0.5 is not a whole number in range"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char *text = xp_asprintf("# Collective test starting: all_reduce_perf\n%s%s", HEADER, rows[i][0]);
    CHECK_EQ_INT(parse(&d, text), XP_EXIT_USAGE);
    if (!strstr(xp_last_error(), rows[i][1])) fprintf(stderr, "got: %s\n", xp_last_error());
    CHECK(strstr(xp_last_error(), rows[i][1]) != NULL);
    CHECK(strstr(xp_last_error(), "t.txt:4:") != NULL);
    nt_doc_free(&d);
    free(text);
  }
}

static void test_blank_columns(void) {
  /* Before 2.13, a collective without a reduction prints its redop blank: the line is a token
  ** short of its header, and every time must still land in its own column. */
  static const char old_alltoall[] =
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#                                                     out-of-place                       in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "     1048576         16384   float            571.5    1.83    1.72  0e+00     0.50  2087.88  1957.39  1e+00\n"
      "     2097152         32768   float           1043.0    2.01    1.88  0e+00     0.21  9985.96  9361.84  1e+00\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, old_alltoall), 0);
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_EQ_STR(d.rows[0].redop, "");
  CHECK_EQ_STR(d.rows[0].dtype, "fp32");
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 571.5, 1e-12);
  CHECK_NEAR(d.rows[0].r[NT_OUT].busbw, 1.72, 1e-12);
  CHECK_NEAR(d.rows[1].r[NT_IN].time_us, 0.21, 1e-12);
  CHECK_NEAR(d.rows[1].r[NT_IN].algbw, 9985.96, 1e-9);
  nt_doc_free(&d);

  /* A result group a port did not run: in-place blank (MSCCL++ prints in-place first), or N/A. */
  static const char blank_group[] =
      "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#                                    in-place                       out-of-place\n"
      "#       size         count     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
      "  1073741824      33554432                                    7186.2  149.42  130.74      0\n";
  CHECK_EQ_INT(parse(&d, blank_group), 0);
  CHECK_EQ_INT(d.nrows, 1);
  CHECK_EQ_INT(d.rows[0].r[NT_IN].have, 0);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].have, 1);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 7186.2, 1e-9);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].wrong, 0);
  nt_doc_free(&d);
  static const char na_group[] = "# Collective test starting: alltoall_perf\n" HEADER
      "        1024           128     float    none      -1    15.20    0.07    0.03      0    N/A     N/A     N/A      N/A\n";
  CHECK_EQ_INT(parse(&d, na_group), 0);
  CHECK_EQ_STR(d.coll, "alltoall");
  CHECK_EQ_INT(d.rows[0].r[NT_IN].have, 0);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 15.2, 1e-12);
  nt_doc_free(&d);
  static const char all_na[] = "# Collective test starting: alltoall_perf\n" HEADER
      "        1024           128     float    none      -1    N/A    N/A    N/A      N/A    N/A     N/A     N/A      N/A\n";
  CHECK_EQ_INT(parse(&d, all_na), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "t.txt:4: no time on this line") != NULL);
  nt_doc_free(&d);
}


/* A 2.19 report's head: version, test, options, two devices, the group labels and header. */
#define REPORT(test, opts)                                                                                   \
  "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"                                      \
  "# Collective test starting: " test "\n"                                                                   \
  "# nThread 1 nGpus 2 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "  \
  "validation: 1 graph: " opts " unalign: 0\n"                                                               \
  "#  Rank  0 Group  0 Pid   77 on      node1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"               \
  "#  Rank  1 Group  0 Pid   77 on      node1 device  1 [0000:19:00] NVIDIA H100 80GB HBM3\n"               \
  "#                                    out-of-place                       in-place\n" HEADER

static void test_appended_reports(void) {
  /* Two tests appended to one log: each report keeps its own test, options and ranks. */
  static const char text[] = REPORT("all_reduce_perf", "20")
      "        1024           256     float     sum      -1    20.10    0.05    0.08      0    21.00    0.05    0.08      0\n"
      "# Out of bounds values : 0 OK\n"
      REPORT("all_gather_perf", "0")
      "        1024           128     float    none      -1    10.10    0.10    0.05      0    11.00    0.09    0.05      0\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nreports, 2);
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_EQ_STR(d.coll, "allreduce");
  CHECK_EQ_INT(d.graph, 20); /* the file's options are its first report's */
  CHECK_EQ_INT(d.ndev, 2);
  CHECK_EQ_INT(d.nranks, 2);
  CHECK_EQ_STR(d.rows[0].coll, "allreduce");
  CHECK_EQ_INT(d.rows[0].graph, 20);
  CHECK_EQ_STR(d.rows[1].coll, "allgather");
  CHECK_EQ_INT(d.rows[1].graph, 0);
  CHECK_EQ_INT(d.rows[1].nranks, 2);
  CHECK_EQ_INT(d.rows[1].report, 1);
  nt_doc_free(&d);

  /* Before 2.13 no report names its test: the same test twice is fine, two tests are not. */
  static const char old_same[] =
      "# nThread 1 nGpus 2 minBytes 65536 maxBytes 65536 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "       65536         16384   float     sum    15.00    4.37    4.37  0e+00    14.00    4.68    4.68  0e+00\n"
      "# nThread 1 nGpus 2 minBytes 65536 maxBytes 65536 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "       65536         %s   float     sum    16.00    4.10    4.10  0e+00    15.00    4.37    4.37  0e+00\n";
  char *text2 = xp_asprintf(old_same, "16384");
  CHECK_EQ_INT(parse(&d, text2), 0);
  CHECK_EQ_INT(d.nreports, 2);
  nt_doc_free(&d);
  free(text2);
  text2 = xp_asprintf(old_same, " 8192");
  CHECK_EQ_INT(parse(&d, text2), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "t.txt:6: this report and the one at line 3 name no collective") != NULL);
  nt_doc_free(&d);
  free(text2);
}

static void test_info_between_reports(void) {
  /* Two tests of one MPI job appended (before 2.13: no version line). Each process writes its own
  ** output, so the second test's other processes can log NCCL's lines before rank 0's options
  ** line reaches the file; the first test's Destroy may come after its footer. Each report keeps
  ** its own count, where the first got both (8 and 16: they disagreed, -1) and the second none
  ** (its 16 ranks taken as nThread x nGpus, 8). */
  static const char text[] =
      "# nThread 1 nGpus 8 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "nodea:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 8 cudaDev 0 busId 1000 - Init COMPLETE\n" HEADER
      "        1024           256     float     sum      -1    20.10    0.00    0.00      0    21.00    0.00    0.00      0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0 \n"
      "nodeb:2:2 [0] NCCL INFO comm 0x2 rank 8 nranks 16 cudaDev 0 busId 1000 - Init COMPLETE\n"
      "nodea:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 8 cudaDev 0 busId 1000 - Destroy COMPLETE\n"
      "# nThread 1 nGpus 8 minBytes 2048 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      HEADER
      "        2048           512     float     sum      -1    30.10    0.00    0.00      0    31.00    0.00    0.00      0\n"
      "# Out of bounds values : 0 OK\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nreports, 2);
  CHECK_EQ_INT(d.ev[0].info, 8);
  CHECK_EQ_INT(d.ev[1].info, 16);
  CHECK_EQ_INT(d.rows[0].nranks, 8);
  CHECK_EQ_INT(d.rows[1].nranks, 16);
  nt_doc_free(&d);

  /* 2.13 on: the same between "Collective test concluded" and the next version line */
  static const char text13[] =
      REPORT("all_reduce_perf", "0")
      "        1024           256     float     sum      -1    20.10    0.00    0.00      0    21.00    0.00    0.00      0\n"
      "# Out of bounds values : 0 OK\n"
      "#\n# Collective test concluded: all_reduce_perf\n"
      "node2:2:2 [0] NCCL INFO comm 0x2 rank 3 nranks 4 cudaDev 1 busId 1000 - Init START\n"
      REPORT("all_gather_perf", "0")
      "        1024           128     float    none      -1    10.10    0.00    0.00      0    11.00    0.00    0.00      0\n";
  CHECK_EQ_INT(parse(&d, text13), 0);
  CHECK_EQ_INT(d.ev[0].info, 0);
  CHECK_EQ_INT(d.ev[1].info, 4);
  nt_doc_free(&d);

  /* Nothing after the footer but the same test's lines (a process's late output, its rows): they
  ** stay this report's. */
  static const char late[] =
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      HEADER
      "        1024           256     float     sum      -1    20.10    0.00    0.00      0    21.00    0.00    0.00      0\n"
      "# Out of bounds values : 0 OK\n"
      "nodeb:2:2 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n";
  CHECK_EQ_INT(parse(&d, late), 0);
  CHECK_EQ_INT(d.ev[0].info, 2);
  nt_doc_free(&d);
}

static void test_report_per_process(void) {
  /* A build without MPI under mpirun -np 2: each process prints the whole report, rank 0 each. */
  static const char text[] =
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#   Rank  0 Pid   1320 on host-a device  0 [0x00] Tesla V100-SXM2-16GB\n"
      "#   Rank  0 Pid   2066 on host-b device  0 [0x00] Tesla V100-SXM2-16GB\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024           256   float     sum    15.00    0.07    0.00  0e+00    14.00    0.07    0.00  0e+00\n"
      "        1024           256   float     sum    16.00    0.06    0.00  0e+00    15.00    0.07    0.00  0e+00\n";
  /* Their lines mixed without labels: which row is whose is not told, and pooled each case would
  ** hold two jobs' samples: refused at the second copy's head (its options line here; its device
  ** line listing rank 0 again where the options lines are not repeated). */
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 2);
  CHECK(strstr(xp_last_error(), "t.txt:2: the report's head again (its options line again)") != NULL);
  nt_doc_free(&d);
  CHECK_EQ_INT(parse(&d, text + strcspn(text, "\n") + 1), 2);
  CHECK(strstr(xp_last_error(), "t.txt:3: the report's head again (its device lines list a rank again)") != NULL);
  nt_doc_free(&d);
  /* The copies one after the other (each process's output written whole): two reports, as two tests
  ** appended are */
  static const char apart[] =
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#   Rank  0 Pid   1320 on host-a device  0 [0x00] Tesla V100-SXM2-16GB\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024           256   float     sum    15.00    0.07    0.00  0e+00    14.00    0.07    0.00  0e+00\n"
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#   Rank  0 Pid   2066 on host-a device  1 [0x01] Tesla V100-SXM2-16GB\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024           256   float     sum    16.00    0.06    0.00  0e+00    15.00    0.07    0.00  0e+00\n";
  CHECK_EQ_INT(parse(&d, apart), 0);
  CHECK_EQ_INT(d.nreports, 2);
  CHECK_EQ_INT(d.nrows, 2);
  nt_doc_free(&d);

  /* 512 ranks: all counted, though only the first 256 devices are kept */
  char *big = xp_asprintf("%s", "# Collective test starting: all_reduce_perf\n"
                                "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 "
                                "iters: 20 validation: 1\n");
  for (int r = 0; r < 512; r++) {
    char *next = xp_asprintf("%s#  Rank %3d Group  0 Pid %d on node%d device  %d [0000:18:00] NVIDIA H100\n", big,
                             r, 100 + r / 8, r / 8, r % 8);
    free(big);
    big = next;
  }
  char *text2 = xp_asprintf("%s" HEADER
                            "        1024           256     float     sum      -1    20.10    0.05    0.10      0    "
                            "21.00    0.05    0.10      0\n", big);
  CHECK_EQ_INT(parse(&d, text2), 0);
  CHECK_EQ_INT(d.nranks, 512);
  CHECK_EQ_INT(d.ndev, 256);
  CHECK_EQ_INT(d.rows[0].nranks, 512);
  nt_doc_free(&d);
  free(text2);
  free(big);
}

static void test_lines_cut(void) {
  /* NCCL's INFO line written into the middle of a result line: the row's two pieces joined. */
  static const char text[] = REPORT("all_reduce_perf", "0")
      "        1024           256     float     sum      -1node1:77:78 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
      "node1:77:79 [1] NCCL INFO Connected all rings\n"
      "    20.10    0.05    0.08      0    21.00    0.05    0.08      0\n"
      "        2048           512     float     sum      -1    20.50    0.10    0.09      0    21.50    0.10    0.08      0\n"
      "        4096          1024     float     sum      -1    22.00    0.19    0.19      0    22.50    0.18    0.18      0"
      "node1:77:78 [0] NCCL INFO comm 0x1 rank 0 nranks 2 - Destroy COMPLETE\n"
      "        8192          2048     float     sum      -1   123.40\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nrows, 3); /* the last line, cut after its time, left out */
  CHECK_EQ_INT(d.rows[0].bytes, 1024);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 20.10, 1e-12);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 21.00, 1e-12);
  CHECK_EQ_INT(d.rows[0].line, 9);
  CHECK_EQ_INT(d.rows[1].bytes, 2048);
  CHECK_EQ_INT(d.rows[2].bytes, 4096); /* a whole row with an INFO line after it on its line */
  CHECK_NEAR(d.rows[2].r[NT_IN].busbw, 0.18, 1e-12);
  CHECK_EQ_INT(d.info.info_lines, 3);
  nt_doc_free(&d);

  /* NCCL_DEBUG_SUBSYS=TUNING: rank 0 prints its choice while the row is being written, after
  ** the identity columns and again after the out-of-place group, with NCCL's timestamp */
  static const char tuning[] = REPORT("all_reduce_perf", "0")
      "        1024           256     float     sum      -1[2025-06-01 10:11:12] node1:77:77 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "[2025-06-01 10:11:12] node1:77:77 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "    20.03    0.05    0.09       0[2025-06-01 10:11:12] node1:77:77 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "    21.14    0.05    0.09       0\n"
      "        2048           512     float     sum      -1node1:77:77 [0] NCCL INFO AllReduce: 2048 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "    22.00    0.09    0.09       0node1:77:77 [0] NCCL INFO AllReduce: 2048 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "    23.00    0.09    0.09       0\n";
  CHECK_EQ_INT(parse(&d, tuning), 0);
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 20.03, 1e-12);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 21.14, 1e-12);
  CHECK_NEAR(d.rows[1].r[NT_OUT].time_us, 22.00, 1e-12);
  CHECK_NEAR(d.rows[1].r[NT_IN].time_us, 23.00, 1e-12);
  CHECK_EQ_INT(d.info.info_lines, 5);
  nt_doc_free(&d);

  /* the same behind MPICH's -prepend-rank label, which it puts before each piece it reads, so
  ** also inside the row, before NCCL's timestamp (nccl issue 1453's form, with timestamps) */
  static const char labelled[] = REPORT("all_reduce_perf", "0")
      "[0]         1024           256     float     sum      -1[0] [2025-06-01 10:11:12] node1:77:77 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "[0]     20.03    0.05    0.09       0[0] [2025-06-01 10:11:12] node1:77:77 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "[0]     21.14    0.05    0.09       0\n";
  CHECK_EQ_INT(parse(&d, labelled), 0);
  CHECK_EQ_INT(d.nrows, 1);
  CHECK_EQ_INT(d.rows[0].root, -1);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 20.03, 1e-12);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].wrong, 0);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 21.14, 1e-12);
  nt_doc_free(&d);

  /* a killed job's last line, cut after its out-of-place group: that group is whole */
  static const char cut[] = REPORT("all_reduce_perf", "0")
      "    33554432       8388608     float     sum      -1   136.70  245.46  245.46       0\n";
  CHECK_EQ_INT(parse(&d, cut), 0);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].have, 1);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 136.70, 1e-12);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].wrong, 0);
  CHECK_EQ_INT(d.rows[0].r[NT_IN].have, 0);
  CHECK_EQ_INT(d.rows[0].root, -1);
  nt_doc_free(&d);
}

static void test_prefixes_and_failures(void) {
  /* kubectl logs --timestamps, MPICH -prepend-rank, Open MPI 5's tag; moreutils ts (its default
  ** "%b %d %H:%M:%S", -s's "%H:%M:%S", "%.S"'s fraction, a '%Y-%m-%d %H:%M:%S' format) */
  static const char *const labels[] = {"2025-03-01T10:00:00.123456789Z ", "[0] ", "[prterun-node1-12345@1,0]<stdout>: ",
                                       "2025-03-01T10:00:00Z 0: ", "Mar 01 10:00:00 ", "Mar  1 10:00:00.000123 ",
                                       "00:00:05 ", "2025-03-01 10:00:00 [1,0]<stdout>:",
                                       /* Open MPI 4's --timestamp-output, with and without --tag-output */
                                       "Sat Mar  1 10:00:00 2025[1,0]<stdout>:", "Sat Mar  1 10:00:00 2025<stdout>:"};
  for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
    const char *l = labels[i];
    char *text = xp_asprintf("%s# Collective test starting: all_reduce_perf\n"
                             "%s#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
                             "%s    1024   256  float  sum  -1  20.10  0.05  0.04  0  21.00  0.05  0.04  0\n",
                             l, l, l);
    nt_doc d;
    CHECK_EQ_INT(parse(&d, text), 0);
    CHECK_EQ_INT(d.nrows, 1);
    CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 21.0, 1e-12);
    nt_doc_free(&d);
    free(text);
  }
  /* a failure from a host whose name starts with a digit; size 0 rows (reduce_scatter -b 0) */
  static const char text[] = REPORT("reduce_scatter_perf", "0")
      "           0             0     float     sum      -1     5.70    0.00    0.00      0     5.54    0.00    0.00      0\n"
      "        1024           128     float     sum      -1    20.10    0.05    0.03      0    21.00    0.05    0.02      0\n"
      "10-0-1-128: Test NCCL failure common.cu:1204 'unhandled cuda error'\n"
      " .. 10-0-1-128 pid 2753866: Test failure common.cu:915\n"
      "2 total processes killed (some possibly by mpirun during cleanup)\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_EQ_INT(d.rows[0].bytes, 0);
  CHECK_EQ_STR(d.failure, "Test NCCL failure common.cu:1204 'unhandled cuda error'");
  nt_doc_free(&d);
}

static void test_bitwise(void) {
  /* nccl-tests 2.17's repeatability check (-R): a #bitdiff column after each #wrong */
  static const char text[] =
      "# Collective test starting: all_reduce_perf\n"
      "#                                  out-of-place + bitwise                    in-place + bitwise\n"
      "#  size count type redop root time algbw busbw #wrong #bitdiff time algbw busbw #wrong #bitdiff\n"
      "  4194304 1048576 float sum -1 70.00 59.92 104.86 0 12 70.50 59.49 104.11 0 0\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].bitdiff, 12);
  CHECK_EQ_INT(d.rows[0].r[NT_IN].bitdiff, 0);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 70.5, 1e-12);
  nt_doc_free(&d);
}

static void test_terminal_text(void) {
  /* a byte-order mark, colour codes, tabs for spaces, an NCCL WARN (with its source file) cut
  ** into a row, and NCCL_TESTS_SPLIT_MASK's groups: a communicator is group 0's 2 ranks */
  static const char text[] =
      "\xef\xbb\xbf# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"
      "\x1b[1m# Collective test starting: all_reduce_perf\x1b[0m\n"
      "#\tnThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid 1 on n01 device  0 [0000:18:00] NVIDIA H100\n"
      "#  Rank  1 Group  0 Pid 2 on n01 device  1 [0000:19:00] NVIDIA H100\n"
      "#  Rank  2 Group  1 Pid 3 on n01 device  2 [0000:1a:00] NVIDIA H100\n"
      "#  Rank  3 Group  1 Pid 4 on n01 device  3 [0000:1b:00] NVIDIA H100\n"
      "#\tsize\tcount\ttype\tredop\troot\ttime\talgbw\tbusbw\t#wrong\ttime\talgbw\tbusbw\t#wrong\n"
      "\t1024\t256\tfloat\tsum\t-1n01:1:9 [0] misc/socket.cc:50 NCCL WARN socket timeout\n"
      "\t20.10\t0.05\t0.05\t0\t21.00\t0.05\t0.05\t0\n"
      "\x1b[32m\t2048\t512\tfloat\tsum\t-1\t20.50\t0.10\t0.10\t0\t21.50\t0.10\t0.10\t0\x1b[0m\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_STR(d.tests_version, "2.19.6");
  CHECK_EQ_STR(d.coll, "allreduce");
  CHECK_EQ_INT(d.iters, 20);
  CHECK_EQ_INT(d.nrows, 2);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 21.0, 1e-12);
  CHECK_NEAR(d.rows[1].r[NT_OUT].time_us, 20.5, 1e-12);
  CHECK_EQ_INT(d.nranks, 2);
  CHECK_EQ_INT(d.info.warnings, 1);
  nt_doc_free(&d);
}

static void test_old_errors_and_blocking(void) {
  /* Before 2.13: an error past float's bound fails where the file counts values out of bounds. */
  static const char text[] =
      "# nThread 1 nGpus 8 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "# Blocking Enabled: wait for completion and barrier after each collective \n"
      "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024            32   float    15.00    0.07    0.06  3e-06    14.00    0.07    0.06  1e+00\n"
      "# Out of bounds values : 1 FAILED\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].wrong, 0);
  CHECK_EQ_INT(d.rows[0].r[NT_IN].wrong, 1);
  CHECK_NEAR(d.rows[0].r[NT_IN].max_err, 1.0, 0);
  CHECK_EQ_INT(d.blocking, 1);
  CHECK_EQ_INT(d.rows[0].blocking, 1);
  nt_doc_free(&d);
}

static void test_blocking_modes(void) {
  /* newer nccl-tests prints each -z mode its own line (src/util.cu); a -J file says only
  ** "blocking_collectives": "true", and its args say the mode. */
  static const char *const lines[] = {"# Blocking Enabled: wait and barrier after each inner iteration (-m) \n",
                                      "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n",
                                      "# Blocking Enabled: wait and barrier after each outer iteration (-n); "
                                      "time excludes barrier \n"};
  static const char *const args[] = {"\"-z\", \"1\"", "\"-z2\"", "\"--blocking=3\""};
  for (int mode = 1; mode <= 3; mode++) {
    char text[1024], json[1024];
    snprintf(text, sizeof text,
             "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
             "validation: 1 graph: 0\n%s" HEADER
             "        1024           256     float     sum      -1    15.00    0.07    0.07      0    14.00    0.07    0.07      0\n",
             lines[mode - 1]);
    nt_doc d;
    CHECK_EQ_INT(parse(&d, text), 0);
    CHECK_EQ_INT(d.blocking, mode);
    CHECK_EQ_INT(d.rows[0].blocking, mode);
    nt_doc_free(&d);
    snprintf(json, sizeof json,
             "{\"version\": 3, \"args\": [\"all_reduce_perf\", \"-g\", \"2\", %s], \"config\": {\"nthreads\": 1, "
             "\"ngpus\": 2, \"iterations\": 20, \"blocking_collectives\": \"true\"}, \"results\": [{\"size\": 1024, "
             "\"count\": 256, \"type\": \"float\", \"out_of_place\": {\"time\": 15.0, \"alg_bw\": 0.07, \"bus_bw\": "
             "0.07, \"nwrong\": 0}}], \"errors\": [\"\"]}",
             args[mode - 1]);
    nt_doc_init(&d, "t.json");
    CHECK_EQ_INT(nt_parse_json(&d, json, strlen(json)), 0);
    CHECK_EQ_INT(d.rows[0].blocking, mode);
    nt_doc_free(&d);
  }
  CHECK_EQ_INT(nt_blocking_from_args("all_reduce_perf -z 3 -b 8"), 3);
  CHECK_EQ_INT(nt_blocking_from_args("all_reduce_perf --blocking 2"), 2);
  CHECK_EQ_INT(nt_blocking_from_args("all_reduce_perf -g 2"), 1); /* "true" without -z: not said */
}

static void test_ranks_from_bandwidth(void) {
  /* A table pasted without its head: allreduce's busbw / algbw = 2(n-1)/n gives n. */
  static const char text[] = HEADER
      "    33554432       8388608     float     sum      -1   1464.2   22.92   40.11      0   1458.1   23.01   40.27      0\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nranks, 0);
  snprintf(d.rows[0].coll, sizeof d.rows[0].coll, "allreduce");
  nt_infer_ranks(&d);
  CHECK_EQ_INT(d.nranks, 8);
  CHECK_EQ_INT(d.rows[0].nranks, 8);
  nt_doc_free(&d);
  /* broadcast's ratio is 1 whatever n is: unknown stays unknown */
  CHECK_EQ_INT(parse(&d, text), 0);
  snprintf(d.rows[0].coll, sizeof d.rows[0].coll, "broadcast");
  nt_infer_ranks(&d);
  CHECK_EQ_INT(d.nranks, 0);
  nt_doc_free(&d);
}

static void test_json_processes(void) {
  /* -J from 2 processes of -g 4: util.cu lists each process's first rank (0 and 4); a clean run
  ** writes "errors": [""]. */
  static const char json[] =
      "{\"version\": 2, \"args\": [\"/opt/nccl-tests/build/all_gather_perf\", \"-g\", \"4\"], \"config\": "
      "{\"nthreads\": 1, \"ngpus\": 4, \"iterations\": 20, \"blocking_collectives\": \"false\", \"devices\": ["
      "{\"rank\": 0, \"hostname\": \"a\", \"device\": 0}, {\"rank\": 4, \"hostname\": \"b\", \"device\": 0}]}, "
      "\"results\": [{\"size\": 0, \"count\": 0, \"type\": \"float\", \"out_of_place\": {\"time\": 5.0, "
      "\"alg_bw\": 0, \"bus_bw\": 0, \"nwrong\": 0}}], \"errors\": [\"\"]}";
  nt_doc d;
  nt_doc_init(&d, "t.json");
  CHECK_EQ_INT(nt_parse_json(&d, json, strlen(json)), 0);
  CHECK_EQ_INT(d.nranks, 8);
  CHECK_EQ_INT(d.rows[0].nranks, 8);
  CHECK_EQ_INT(d.errors, 0);
  CHECK_EQ_INT(d.rows[0].bytes, 0);
  nt_doc_free(&d);
}

static void test_launcher_labels(void) {
  /* mpirun --tag-output and srun --label put a label before every line, NCCL's INFO lines too; so
  ** do pdsh and clush ("HOST: ", DeepSpeed's pdsh runner too; behind ts's stamp), torchrun --tee
  ** ("[default0]:", log_line_prefix_template "[${rank}]:") */
  static const char *const labels[] = {"[1,0]<stdout>:", "0: ", "node01: ", "gpu-7.cluster.local: ",
                                       "10.0.0.7: ", "Jun 01 10:11:12 node01: ", "[default0]:", "[3]: "};
  for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
    const char *l = labels[i];
    char *text = xp_asprintf(
        "%s# Collective test starting: all_reduce_perf\n"
        "%s# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0\n"
        "%s#  Rank  0 Group  0 Pid   77 on      node1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
        "%snode1:77:77 [0] NCCL INFO Channel 00/08 :    0   1\n"
        "%s#                                    out-of-place                       in-place\n"
        "%s#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
        "%s    1024   256  float  sum  -1  20.10  0.05  0.04  0  21.00  0.05  0.04  0\n"
        "%s    2048   512  float  sum  -1  20.50  0.10  0.09  0  21.50  0.10  0.08  0\n",
        l, l, l, l, l, l, l, l);
    nt_doc d;
    CHECK_EQ_INT(parse(&d, text), 0);
    CHECK_EQ_STR(d.coll, "allreduce");
    CHECK_EQ_INT(d.ndev, 1);
    CHECK_EQ_INT(d.iters, 20);
    CHECK_EQ_INT(d.nrows, 2);
    CHECK_EQ_INT(d.rows[1].bytes, 2048);
    CHECK_NEAR(d.rows[1].r[NT_IN].time_us, 21.5, 1e-12);
    CHECK_EQ_INT(d.info.info_lines, 1);
    nt_doc_free(&d);
    free(text);
  }
}


static void test_several_processes(void) {
  /* pdsh over two hosts, the report node01's (rank 0's), node02 printing NCCL's lines and ssh's
  ** warning; DeepSpeed's runner's own line unlabelled: node02's lines are no part of the report */
  static const char pdsh[] =
      "[2025-06-01 10:11:12,345] [INFO] [runner.py:607:main] cmd = pdsh -S -f 1024 -w node01,node02 all_reduce_perf\n"
      "node02: Warning: Permanently added 'node02' (ED25519) to the list of known hosts.\n"
      "node01: # Collective test starting: all_reduce_perf\n"
      "node01: # nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "node02: node02:88:88 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
      "node01: #  Rank  0 Group  0 Pid   77 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
      "node01: #  Rank  1 Group  0 Pid   88 on     node02 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
      "node01: #  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
      "node01:     1024   256  float  sum  -1  20.10  0.05  0.04  0  21.00  0.05  0.04  0\n"
      "node01: # Out of bounds values : 0 OK\n";
  nt_doc d;
  CHECK_EQ_INT(parse(&d, pdsh), 0);
  CHECK_EQ_INT(d.nrows, 1);
  CHECK_EQ_INT(d.ndev, 2);
  CHECK_EQ_INT(d.ev[0].info, 2);
  nt_doc_free(&d);

  /* mpirun --tag-output: rank 0's row cut by its INFO line, and a piece rank 1 printed between
  ** (its stray figures) is not the row's rest */
  static const char tagged[] =
      "[1,0]<stdout>:# Collective test starting: all_reduce_perf\n"
      "[1,0]<stdout>:#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
      "[1,0]<stdout>:    1024   256  float  sum  -1  20.10  0.05node1:77:77 [0] NCCL INFO Channel 00/08 :    0   1\n"
      "[1,1]<stdout>:   99.99   9.99   9.99  0\n"
      "[1,0]<stdout>:  0.04  0  21.00  0.05  0.04  0\n";
  CHECK_EQ_INT(parse(&d, tagged), 0);
  CHECK_EQ_INT(d.nrows, 1);
  CHECK_NEAR(d.rows[0].r[NT_OUT].busbw, 0.04, 1e-12);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 21.0, 1e-12);
  nt_doc_free(&d);

  /* two processes' reports (the test run on each host): two jobs, named by their labels, each read
  ** alone from its lines (the other's blank, so that lines keep their numbers); one report's row
  ** labelled by another process: refused, not one report of both */
  static const char two[] =
      "node01: # nThread 1 nGpus 8 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "node02: # nThread 1 nGpus 8 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "node01: #  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
      "node02: #  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
      "node01:     1024   256  float  sum  -1  20.10  0.05  0.04  0  21.00  0.05  0.04  0\n"
      "node02:     1024   256  float  sum  -1  30.10  0.03  0.03  0  31.00  0.03  0.03  0\n";
  CHECK_EQ_INT(parse(&d, two), 0);
  CHECK_EQ_INT(d.njob_keys, 2);
  CHECK_EQ_INT(d.nrows, 0);
  CHECK_EQ_STR(d.job_keys[1], "node02:");
  nt_job job = {1, 0, "node02:"};
  size_t len;
  int left;
  char *text = nt_job_text(&d, two, strlen(two), &job, &len, &left);
  nt_doc_free(&d);
  CHECK_EQ_INT(parse(&d, text), 0);
  CHECK_EQ_INT(d.nrows, 1);
  CHECK_EQ_INT(d.rows[0].line, 6);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 30.10, 1e-12);
  nt_doc_free(&d);
  free(text);
  static const char mixed[] =
      "[default0]:# Collective test starting: all_reduce_perf\n"
      "[default0]:#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"
      "[default0]:    1024   256  float  sum  -1  20.10  0.05  0.04  0  21.00  0.05  0.04  0\n"
      "[default1]:    2048   512  float  sum  -1  20.50  0.10  0.09  0  21.50  0.10  0.08  0\n";
  CHECK_EQ_INT(parse(&d, mixed), 2);
  nt_doc_free(&d);

  /* the same, each host's output a block of its own (pdsh | dshbak, clush -b): the second report's
  ** devices on none of the first's hosts, two jobs, the second from the line after the first's last;
  ** on one of them, the test appended (read as one job) */
#define HOST_REPORT(host)                                                                                     \
  "----------------\n" host "\n----------------\n"                                                           \
  "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n" \
  "#  Rank  0 Group  0 Pid   77 on " host " device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"                    \
  "#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n"                         \
  "    1024   256  float  sum  -1  20.10  0.05  0.04  0  21.00  0.05  0.04  0\n"                                \
  "# Out of bounds values : 0 OK\n"
  static const char blocks[] = HOST_REPORT("node01") HOST_REPORT("node02");
  CHECK_EQ_INT(parse(&d, blocks), 0);
  CHECK_EQ_INT(d.next_job_line, 9); /* node02's block, its header on */
  nt_doc_free(&d);
  static const char again[] = HOST_REPORT("node01") HOST_REPORT("node01");
  CHECK_EQ_INT(parse(&d, again), 0);
  CHECK_EQ_INT(d.nreports, 2);
  nt_doc_free(&d);
#undef HOST_REPORT
}

static void test_fixtures(void) {
  size_t len;
  char *text = test_data("nccl", "nccltests_graph.txt", &len);
  nt_doc d;
  nt_doc_init(&d, "graph");
  CHECK_EQ_INT(nt_parse_text(&d, text, len), 0);
  CHECK_EQ_INT(d.graph, 20);
  CHECK_EQ_INT(d.iters, 500);
  CHECK_EQ_INT(d.warmup, 50);
  CHECK_EQ_INT(d.nrows, 8);
  CHECK_NEAR(d.rows[0].r[NT_OUT].time_us, 7.49, 1e-12);
  CHECK_NEAR(d.rows[0].r[NT_IN].time_us, 7.61, 1e-12);
  CHECK_EQ_INT(d.rows[6].bytes, 917504);
  CHECK_NEAR(d.rows[6].r[NT_OUT].busbw, 73.52, 1e-12);
  CHECK_EQ_INT(d.rows[0].r[NT_OUT].wrong, 0);
  nt_doc_free(&d);
  free(text);

  text = test_data("nccl", "nccltests_sweep.json", &len);
  nt_doc_init(&d, "json");
  CHECK_EQ_INT(nt_parse_json(&d, text, len), 0);
  CHECK_EQ_STR(d.coll, "allreduce");
  CHECK_EQ_INT(d.nccl_library, 22809);
  CHECK_EQ_INT(d.nrows, 26);
  CHECK_EQ_INT(d.rows[25].bytes, 268435456);
  CHECK_EQ_INT(d.rows[0].root, -1); /* written as the string "    -1" */
  CHECK_NEAR(d.rows[25].r[NT_OUT].time_us, 887.113, 1e-3);
  CHECK_EQ_STR(d.rows[25].dtype, "bf16");
  CHECK_EQ_INT(d.nranks, 2); /* -g 2 in one process: only rank 0 is listed */
  CHECK_EQ_INT(d.rows[0].nranks, 2);
  int nccl_env = 0;
  for (int i = 0; i < d.nenv; i++) nccl_env += strncmp(d.env[i], "NCCL_", 5) == 0;
  CHECK(d.nenv > 0 && nccl_env == d.nenv);
  nt_doc_free(&d);
  free(text);
}

int main(void) {
  test_per_iteration_and_timestamps();
  test_cputime_and_old_format();
  test_unnamed_test();
  test_command_names_test();
  test_rccl_options();
  test_rccl_choice_columns();
  test_bad_text();
  test_info_comm_size();
  test_blank_columns();
  test_launcher_labels();
  test_several_processes();
  test_appended_reports();
  test_info_between_reports();
  test_report_per_process();
  test_lines_cut();
  test_prefixes_and_failures();
  test_old_errors_and_blocking();
  test_blocking_modes();
  test_terminal_text();
  test_bitwise();
  test_ranks_from_bandwidth();
  test_json_processes();
  test_fixtures();
  CHECK_DONE();
}
