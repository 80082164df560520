/* NCCL's INFO log and topology dump: the real fixture from 2x H200, and synthetic lines for
** what that machine did not print (SHM and NET transports, TUNING lines, older formats, PCIe
** trees). Then the interconnect derived from both. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testutil.h"
#include "runners/nccl_info.h"
#include "xp.h"


static void feed(xp_nccl_info *info, const char *const *lines) {
  for (int i = 0; lines[i]; i++) xp_nccl_info_line(info, lines[i], strlen(lines[i]));
}

/* A log's lines read and the communicator of nranks that process pid's rank 0 set up kept, as xp
** keeps one; said holds 512 bytes */
static void read_comm(xp_nccl_info *info, const char *const *lines, int nranks, int pid, char *said) {
  xp_nccl_info_init(info);
  feed(info, lines);
  xp_nccl_info_one_comm(info, nranks, pid, said, 512);
}

/* A log's lines read and one communicator kept: how many connections were left out. */
static int read_comm_left(xp_nccl_info *info, const char *const *lines, int nranks, int pid) {
  char said[512];
  xp_nccl_info_init(info);
  feed(info, lines);
  return xp_nccl_info_one_comm(info, nranks, pid, said, sizeof said);
}

/* ... and its transports, into buf's 512 bytes */
static void keep_comm(xp_nccl_info *info, const char *const *lines, int nranks, int pid, char *said,
                      char *buf) {
  read_comm(info, lines, nranks, pid, said);
  xp_nccl_info_transports(info, buf, 512);
}

static void test_fixture_log(void) {
  size_t len;
  char *text = test_data("nccl", "nccltests_sweep.txt", &len);
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  xp_nccl_info_parse(&info, text, len);
  CHECK_EQ_STR(info.version, "2.28.9+cuda13.0");
  CHECK_EQ_INT(info.cuda_driver, 13000);
  CHECK_EQ_INT(info.nranks, 2);
  CHECK_EQ_INT(info.nnodes, 1);
  CHECK_EQ_INT(info.local_ranks, 2);
  CHECK_EQ_INT(info.ring_channels, 24);
  CHECK_EQ_INT(info.coll_channels, 24);
  CHECK_EQ_INT(info.nvls_channels, 0);
  CHECK_EQ_INT(info.p2p_channels, 32);
  CHECK_EQ_INT(info.nconn, 2);
  CHECK_EQ_INT(info.conn[0].src, 0);
  CHECK_EQ_INT(info.conn[0].dst, 1);
  CHECK_EQ_STR(info.conn[0].transport, "P2P/direct pointer");
  CHECK_EQ_INT(info.conn[0].channels, 24);
  CHECK_EQ_INT(info.conn[1].channels, 24);
  CHECK_EQ_STR(xp_nccl_info_env(&info, "NCCL_NVLS_ENABLE"), "0");
  CHECK_EQ_STR(xp_nccl_info_env(&info, "NCCL_TOPO_DUMP_FILE"), "/root/out/topo.xml");
  CHECK_EQ_STR(info.rings, "use ring PXN 0 GDR 1");
  CHECK_EQ_STR(info.net, "Socket");
  CHECK_EQ_INT(info.warnings, 0);
  char buf[128];
  xp_nccl_info_transports(&info, buf, sizeof buf);
  CHECK_EQ_STR(buf, "P2P/direct pointer");
  /* without a topology, P2P alone does not say NVLink or PCIe */
  CHECK(xp_nccl_interconnect(&info, NULL, buf, sizeof buf) == NULL);
  CHECK(strstr(buf, "no topology") != NULL);
  xp_nccl_info_free(&info);
  free(text);
}

static void test_other_versions(void) {
  /* NCCL 2.19-2.23's TUNING line (numbers, no function), 2.11's "direct shared memory" and
  ** channel counts, NET with a PXN proxy, RCCL's version and its connection suffix */
  static const char *const lines[] = {
      "[2025-06-01 10:11:12] h:1:2 [0] NCCL INFO 1024 Bytes -> Algo 4 proto 2 time 10.003413",
      "h:1:2 [1] NCCL INFO Channel 00 : 1[1b000] -> 2[88000] via direct shared memory",
      "h:1:2 [0] NCCL INFO 2 coll channels, 2 p2p channels, 2 p2p channels per peer",
      "h:1:2 [7] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/IB/0(0)/GDRDMA",
      "h:1:2 [7] NCCL INFO Channel 01/0 : 7[7] -> 8[0] [send] via NET/IB/1(4)/GDRDMA",
      "m:3:3 [0] NCCL INFO RCCL version : 2.22.3-HEAD:a9b0b4a",
      "m:3:3 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC comm 0x3c00000 nRanks 08",
      NULL};
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, lines);
  const xp_nccl_tuning *t = xp_nccl_info_tuning(&info, "AllReduce", 1024);
  CHECK(t != NULL);
  if (t) {
    CHECK_EQ_STR(t->algo, "NVLS");
    CHECK_EQ_STR(t->proto, "SIMPLE");
  }
  CHECK_EQ_INT(info.nconn, 3);
  CHECK_EQ_STR(info.conn[0].transport, "SHM/direct");
  CHECK_EQ_STR(info.conn[1].transport, "NET/IB/GDRDMA");
  CHECK_EQ_INT(info.conn[1].channels, 2);
  CHECK_EQ_STR(info.conn[2].transport, "P2P/IPC");
  CHECK_EQ_INT(info.coll_channels, 2);
  CHECK_EQ_INT(info.nvls_channels, -1);
  CHECK_EQ_INT(info.p2p_channels, 2);
  CHECK_EQ_INT(info.p2p_per_peer, 2);
  CHECK_EQ_STR(info.version, "RCCL 2.22.3-HEAD:a9b0b4a");
  xp_nccl_info_free(&info);
}

/* 8x L20, NCCL 2.20.5, alltoall_perf -g 8 (one process, a thread per GPU): some pairs over SHM,
** the others P2P, as NVIDIA/nccl issue 1817 logged them (https://github.com/NVIDIA/nccl/issues/1817,
** host name shortened). The threads' lines interleave anew every run: the same job must list the
** same transports whichever line came first, so that its runs are one row of allreduce_burst.sql. */
static void test_mixed_transports_order(void) {
  static const char *const issue_order[] = {
      "sh9:3884652:3884744 [3] NCCL INFO Channel 00 : 3[3] -> 4[4] via SHM/direct/direct",
      "sh9:3884652:3884746 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via SHM/direct/direct",
      "sh9:3884652:3884740 [7] NCCL INFO Channel 00 : 7[7] -> 0[0] via SHM/direct/direct",
      "sh9:3884652:3884745 [2] NCCL INFO Channel 00/1 : 2[2] -> 3[3] via P2P/direct pointer",
      "sh9:3884652:3884745 [2] NCCL INFO Channel 01/1 : 2[2] -> 3[3] via P2P/direct pointer",
      "sh9:3884652:3884744 [3] NCCL INFO Channel 01 : 3[3] -> 4[4] via SHM/direct/direct", NULL};
  /* the same lines as another run's threads printed them: rank 2 first, then rank 7 */
  static const char *const other_order[] = {
      "sh9:3884652:3884745 [2] NCCL INFO Channel 00/1 : 2[2] -> 3[3] via P2P/direct pointer",
      "sh9:3884652:3884740 [7] NCCL INFO Channel 00 : 7[7] -> 0[0] via SHM/direct/direct",
      "sh9:3884652:3884744 [3] NCCL INFO Channel 00 : 3[3] -> 4[4] via SHM/direct/direct",
      "sh9:3884652:3884745 [2] NCCL INFO Channel 01/1 : 2[2] -> 3[3] via P2P/direct pointer",
      "sh9:3884652:3884746 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via SHM/direct/direct",
      "sh9:3884652:3884744 [3] NCCL INFO Channel 01 : 3[3] -> 4[4] via SHM/direct/direct", NULL};
  char a[128], b[128];
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, issue_order);
  xp_nccl_info_transports(&info, a, sizeof a);
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, other_order);
  xp_nccl_info_transports(&info, b, sizeof b);
  xp_nccl_info_free(&info);
  CHECK_EQ_STR(a, b);
  /* GPU to GPU first, then through host memory, then through a NIC */
  CHECK_EQ_STR(a, "P2P/direct pointer, SHM/direct/direct");
  CHECK(xp_nccl_transport_cmp("SHM/direct/direct", "NET/IB/GDRDMA") < 0);
  CHECK(xp_nccl_transport_cmp("P2P/CUMEM", "P2P/CUMEM/read") < 0);
  /* the interconnect's basis alike: the slowest connection in rank order, not the first printed
  ** (xp compare of two runs of the job listed 'rank 3 to 4' against 'rank 7 to 0'), and the mix
  ** said: 3 of its 4 connections through host memory, one GPU to GPU */
  char basis_a[256], basis_b[256];
  xp_nccl_info_init(&info);
  feed(&info, issue_order);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis_a, sizeof basis_a), "shm");
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, other_order);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis_b, sizeof basis_b), "shm");
  xp_nccl_info_free(&info);
  CHECK_EQ_STR(basis_a, basis_b);
  CHECK_EQ_STR(basis_a, "NCCL connected rank 1 to 2 with SHM/direct/direct; mixed: 1 P2P, 3 SHM connections");
}

/* NCCL 2.3 and 2.4 said "Ring" where later versions say "Channel", and wrote a NET connection's
** ranks without their devices: two nodes of 8 V100s over sockets, as NVIDIA/nccl issue 398 logged
** them (https://github.com/NVIDIA/nccl/issues/398, host names shortened). The rings' lists
** ("Ring 00 : 0 1 2 3") and later versions' ring neighbours ("Ring 00 : 7 -> 0 -> 1") are no
** connection. */
static void test_ring_lines(void) {
  static const char *const lines[] = {
      "ip-0-112:8162:8221 [3] NCCL INFO Ring 00 : 3[3] -> 2[2] via P2P/IPC",
      "ip-13-129:8542:8600 [5] NCCL INFO Ring 00 : 13[5] -> 15[7] via P2P/IPC",
      "ip-13-129:8544:8601 [7] NCCL INFO Ring 00 : 15 -> 0 [send] via NET/Socket/0",
      "ip-0-112:8166:8224 [7] NCCL INFO Ring 00 : 7 -> 8 [send] via NET/Socket/0",
      "ip-0-112:8162:8221 [3] NCCL INFO Ring 01 : 3[3] -> 2[2] via P2P/IPC",
      "ip-0-112:8159:8218 [0] NCCL INFO Ring 00 :    0   1   2   3   4   5   6   7",
      /* a ring's neighbours as NCCL 2.2x prints them (NVIDIA/nccl-tests issue 307): no connection */
      "node031:1936469:1936513 [0] NCCL INFO Ring 00 : 7 -> 0 -> 1", NULL};
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, lines);
  CHECK_EQ_INT(info.nconn, 4);
  if (info.nconn == 4) {
    CHECK_EQ_INT(info.conn[0].src, 3);
    CHECK_EQ_INT(info.conn[0].dst, 2);
    CHECK_EQ_INT(info.conn[0].channels, 2);
    CHECK_EQ_INT(info.conn[2].src, 15);
    CHECK_EQ_INT(info.conn[2].dst, 0);
    CHECK_EQ_STR(info.conn[2].transport, "NET/Socket");
  }
  char buf[128], basis[256];
  xp_nccl_info_transports(&info, buf, sizeof buf);
  CHECK_EQ_STR(buf, "P2P/IPC, NET/Socket");
  /* a job of two nodes is labelled as one */
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "net");
  CHECK(strstr(basis, "rank 7 to 8 with NET/Socket") != NULL);
  xp_nccl_info_free(&info);
}

/* The version printed alone (NCCL_DEBUG=VERSION), not as an INFO message: NCCL's, and RCCL's as
** an rccl-tests log keeps it among HIP's and ROCm's (hisohara/ai-scripts,
** training/01_rccl-smoketest/README.md). nccl-tests' own version line is not NCCL's. */
static void test_bare_version_lines(void) {
  static const char *const nccl[] = {"# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809",
                                     "NCCL version 2.21.5+cuda12.4", NULL};
  static const char *const rccl[] = {"RCCL version : 2.22.3-HEAD:7d8d67c", "HIP version  : 6.4.43484-123eb5128",
                                     "ROCm version : 6.4.2.0-120-e7d83f5", NULL};
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, nccl);
  CHECK_EQ_STR(info.version, "2.21.5+cuda12.4");
  CHECK_EQ_INT(info.info_lines, 0);
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, rccl);
  CHECK_EQ_STR(info.version, "RCCL 2.22.3-HEAD:7d8d67c");
  CHECK_EQ_INT(info.info_lines, 0);
  xp_nccl_info_free(&info);
  /* RCCL before PR 1232: "RCCL version X+hipY COMMIT", printed alone at every level (ROCm/rccl issue
  ** 1261's rccl-tests log), and as an INFO message where NCCL_DEBUG_FILE sends the log elsewhere
  ** (amikael/RCCL-tests README.md); a sentence naming a version is neither */
  static const char *const old_rccl[] = {"RCCL version is printed below", "RCCL version 2.18.3+hip5.7 HEAD:b502725",
                                         NULL};
  static const char *const old_rccl_info[] = {
      "nid007971:55487:55487 [0] NCCL INFO RCCL version 2.20.5+hip6.2 HEAD:45b618a+", NULL};
  static const char *const oldest_rccl[] = {"RCCL version 2.6.4+hip3.5", NULL};
  xp_nccl_info_init(&info);
  feed(&info, old_rccl);
  CHECK_EQ_STR(info.version, "RCCL 2.18.3+hip5.7 HEAD:b502725");
  xp_nccl_info_free(&info);
  /* RCCL's INFO line of the HSA runtime it loaded (src/misc/rocmwrap.cc), as issue 1261 and the
  ** LUMI log of amikael/RCCL-tests show it */
  static const char *const rocr[] = {"node01:5646:5646 [0] NCCL INFO ROCr version 1.1",
                                     "nid007971:55487:55487 [0] NCCL INFO ROCr version 1.14", NULL};
  xp_nccl_info_init(&info);
  feed(&info, rocr);
  CHECK_EQ_STR(info.rocr_version, "1.1"); /* the first rank's, as the library's version */
  CHECK_EQ_INT(info.info_lines, 2);
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, old_rccl_info);
  CHECK_EQ_STR(info.version, "RCCL 2.20.5+hip6.2 HEAD:45b618a+");
  CHECK_EQ_INT(info.info_lines, 1);
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, oldest_rccl);
  CHECK_EQ_STR(info.rocr_version, "");
  CHECK_EQ_STR(info.version, "RCCL 2.6.4+hip3.5");
  xp_nccl_info_free(&info);
}

/* HIP's and ROCm's versions on the lines RCCL prints after its own (ROCm/rccl src/init.cc
** showVersion): in rccl-tests' log of ROCm/rocm-systems PR 3415 (its review of 2026-02-26, the
** VERSION form), taken here after RCCL's INFO line, the form NCCL_DEBUG=INFO gives them; hipconfig's
** line above (ROCm/HIP-Examples issue 23) is not RCCL's. Since ROCm/rocm-systems PR 6556 a runtime
** that differs follows (hip_rocm_version_info.h fmtExtVer, as RCCL's VersionInfoTests expect it). */
static void test_rccl_build_versions(void) {
  static const char *const info_form[] = {
      "HIP version  : 3.10.20465-f9876b8d",
      "stxh-4602-MAPLE:135241:135241 [0] NCCL INFO RCCL version : 2.28.3-gfx1151-rccl:a188cf2",
      "HIP version  : 7.12.60430-713bdeef5b", "ROCm version : 7.12.0.2-9999-713bdeef5b",
      "Hostname     : stxh-4602-MAPLE",
      "Librccl path : /home/stxh-4602/SP-workspace-3/rocm-systems/projects/rccl/build/release/librccl.so.1", NULL};
  static const char *const runtime_form[] = {"RCCL version : 2.28.3-develop:d143eea",
                                             "HIP version  : 6.4.0 / HIP runtime  : 6.5.1",
                                             "ROCm version : 6.4.0 / ROCm runtime : 6.5.0", NULL};
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, info_form);
  CHECK_EQ_STR(info.version, "RCCL 2.28.3-gfx1151-rccl:a188cf2");
  CHECK_EQ_STR(info.hip_version, "7.12.60430-713bdeef5b");
  CHECK_EQ_STR(info.rocm_version, "7.12.0.2-9999-713bdeef5b");
  CHECK_EQ_STR(info.hip_runtime, "");
  CHECK_EQ_INT(info.info_lines, 1);
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, runtime_form);
  CHECK_EQ_STR(info.hip_version, "6.4.0");
  CHECK_EQ_STR(info.hip_runtime, "6.5.1");
  CHECK_EQ_STR(info.rocm_version, "6.4.0");
  CHECK_EQ_STR(info.rocm_runtime, "6.5.0");
  xp_nccl_info_free(&info);
}

static void test_synthetic_lines(void) {
  /* Synthetic: formats NCCL prints that the fixture run did not. */
  static const char *const lines[] = {
      "h:1:2 [0] NCCL INFO AllReduce: 14336 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}",
      "h:1:2 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}",
      "h:1:2 [0] NCCL INFO AllGather: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0} comm 0x55a7a339db50",
      "h:1:2 [0] NCCL INFO AllReduce: 14336 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..3}",
      "h:1:2 [0] NCCL INFO AllReduce [Symmetric]: 4194304 Bytes -> Kernel AllReduce_RSxLDMC_AGxSTMC nchannels 16 nthreads 512 nWorks 1",
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA",
      "h:9:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0/GDRDMA",
      "h:1:2 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/IB/0/GDRDMA",
      "h:1:2 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC",
      "h:1:2 [0] NCCL INFO comm 0x1, 16 coll channels, 0 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer",
      "h:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.",
      "",
      "h:1:2 [0] some.c:12 NCCL WARN Cuda failure 'out of memory'",
      "not an NCCL line at all",
      NULL};
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, lines);
  CHECK_EQ_INT(info.ntuning, 4);
  /* NCCL 2.27+: a symmetric kernel's line names the kernel, which stands for the algorithm */
  const xp_nccl_tuning *sym = xp_nccl_info_tuning(&info, "AllReduce", 4194304);
  CHECK(sym && strcmp(sym->algo, "AllReduce_RSxLDMC_AGxSTMC") == 0 && strcmp(sym->proto, "symmetric") == 0 &&
        sym->ch_hi == 15);
  const xp_nccl_tuning *t = xp_nccl_info_tuning(&info, "AllReduce", 14336);
  CHECK(t != NULL);
  if (t) {
    CHECK_EQ_STR(t->algo, "TREE"); /* the latest choice for a size wins */
    CHECK_EQ_STR(t->proto, "LL");
    CHECK_EQ_INT(t->ch_hi, 3);
  }
  t = xp_nccl_info_tuning(&info, "AllGather", 4096);
  CHECK(t && strcmp(t->proto, "LL") == 0);
  CHECK(xp_nccl_info_tuning(&info, "AllReduce", 999) == NULL);
  /* a NET connection is logged by both ends, [send] by the sender and [receive] by the
  ** receiver, both as sender -> receiver: counted once, its kind without the NIC index; a
  ** connection whose [receive] line alone is in the log (8 -> 0: rank 8's log not kept) counts */
  CHECK_EQ_INT(info.nconn, 3);
  CHECK_EQ_STR(info.conn[0].transport, "NET/IB/GDRDMA");
  CHECK_EQ_INT(info.conn[0].channels, 1);
  CHECK_EQ_INT(info.conn[1].src, 8);
  CHECK_EQ_INT(info.conn[1].dst, 0);
  CHECK_EQ_STR(info.conn[1].transport, "NET/IB/GDRDMA");
  CHECK_EQ_INT(info.conn[2].src, 0);
  CHECK_EQ_INT(info.conn[2].dst, 1);
  CHECK_EQ_STR(info.conn[2].transport, "P2P/IPC");
  CHECK_EQ_INT(info.coll_channels, 16);
  CHECK_EQ_INT(info.p2p_per_peer, 2);
  CHECK_EQ_STR(xp_nccl_info_env(&info, "NCCL_P2P_DISABLE"), "1");
  CHECK_EQ_INT(info.warnings, 1);
  CHECK_EQ_STR(info.first_warning, "Cuda failure 'out of memory'");
  char basis[256];
  /* a network connection is the slowest link whatever P2P rode on */
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "net");
  CHECK(strstr(basis, "NET/IB") != NULL);
  xp_nccl_info_free(&info);
}

static void test_fixture_topology(void) {
  size_t len;
  char *xml = test_data("nccl", "topo.xml", &len), err[128];
  xp_topo t;
  CHECK_EQ_INT(xp_topo_parse(xml, len, &t, err, sizeof err), 0);
  CHECK_EQ_INT(t.ngpu, 2);
  CHECK_EQ_INT(t.ncpu, 1);
  CHECK_EQ_INT(t.npci, 2);
  CHECK_EQ_INT(t.nnic, 1);
  CHECK_EQ_INT(t.nnuma, -1); /* the VM's <cpu numaid="-1">: not known */
  CHECK_EQ_STR(t.nic[0], "eth0 10000 Mb/s");
  CHECK_EQ_STR(t.pci[0].busid, "0000:00:06.0");
  CHECK_EQ_INT(t.gpu[1].rank, 1);
  CHECK_EQ_INT(t.gpu[1].sm, 90);
  CHECK_EQ_INT(t.gpu[0].nlinks, 1);
  CHECK_EQ_INT(t.gpu[0].links[0].count, 18);
  xp_topo_path path;
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 1, &path), 0);
  CHECK_EQ_STR(path.kind, "nvlink");
  CHECK_EQ_INT(path.nvlinks, 18);
  CHECK(strstr(path.detail, "NVSwitch") != NULL);
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 5, &path), -1);

  /* The fixture's log plus its topology: P2P over NVLink. */
  size_t loglen;
  char *log = test_data("nccl", "nccltests_sweep.txt", &loglen), basis[256];
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  xp_nccl_info_parse(&info, log, loglen);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, &t, basis, sizeof basis), "nvlink");
  CHECK(strstr(basis, "P2P/direct pointer") && strstr(basis, "18 NVLinks"));
  /* P2P disabled on the same machine: NCCL goes through host memory (synthetic line). */
  xp_nccl_info shm;
  xp_nccl_info_init(&shm);
  static const char *const shm_lines[] = {
      "vm:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct",
      "vm:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct", NULL};
  feed(&shm, shm_lines);
  CHECK_EQ_STR(xp_nccl_interconnect(&shm, &t, basis, sizeof basis), "shm");
  CHECK(strstr(basis, "SHM/direct/direct") != NULL);
  xp_nccl_info_free(&shm);
  xp_nccl_info_free(&info);
  xp_topo_free(&t);
  free(log);
  free(xml);
}

/* Synthetic: two sockets; GPUs 0,1 under one switch, GPU 2 under a second switch of the same
** root, GPU 3 on the other socket; GPUs 0 and 1 also bridged by NVLink. */
static const char pcie_tree[] =
    "<?xml version=\"1.0\"?>\n<!-- synthetic -->\n"
    "<system version=\"1\">\n"
    " <cpu numaid=\"0\" arch=\"x86_64\">\n"
    "  <pci busid=\"0000:10:00.0\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
    "   <pci busid=\"0000:11:00.0\" class=\"0x060400\">\n"
    "    <pci busid=\"0000:12:00.0\" class=\"0x030200\"><gpu dev=\"0\" sm=\"120\" rank=\"0\" gdr=\"1\">"
    "<nvlink target=\"0000:13:00.0\" count=\"4\" tclass=\"0x030200\"/></gpu></pci>\n"
    "    <pci busid=\"0000:13:00.0\" class=\"0x030200\"><gpu dev=\"1\" sm=\"120\" rank=\"1\" gdr=\"1\"/></pci>\n"
    "   </pci>\n"
    "   <pci busid=\"0000:14:00.0\" class=\"0x060400\">\n"
    "    <pci busid=\"0000:15:00.0\" class=\"0x030200\"><gpu dev=\"2\" sm=\"120\" rank=\"2\" gdr=\"1\"/></pci>\n"
    "   </pci>\n"
    "  </pci>\n"
    " </cpu>\n"
    " <cpu numaid=\"1\">\n"
    "  <pci busid=\"0000:80:00.0\" class=\"0x030200\"><gpu dev=\"3\" sm=\"120\" rank=\"3\" gdr=\"0\"/></pci>\n"
    "  <nic><net name=\"mlx5_0\" dev=\"0\" speed=\"400000\"/></nic>\n"
    " </cpu>\n"
    "</system>\n";

/* A dump NCCL fused across an MNNVL domain (topo.cc fuses every rank's XML of the clique before
** NCCL_TOPO_DUMP_FILE; xml.cc's xmlFindNode merges only elements whose attributes all agree): two
** GB200 trays, each <cpu> its host's host_hash and numaid, GPUs under Grace without switches, each
** with its 18 NVLinks to the NVSwitch (target "fffffff:ff:ff.0" as NCCL 2.29 writes it), but rank 3's
** missing, as a tray whose GPU lost its NVLinks dumps it. Written as the dumps of such jobs show. */
static const char mnnvl_fused[] =
    "<system version=\"1\">\n"
    "  <cpu host_hash=\"0x5a1c3e2f0b7d4e11\" numaid=\"0\" arch=\"arm64\" vendor=\"NVIDIA\">\n"
    "    <pci busid=\"0008:01:00.0\" class=\"0x030200\" link_width=\"2\"><gpu dev=\"0\" sm=\"100\" rank=\"0\" gdr=\"1\">"
    "<nvlink target=\"fffffff:ff:ff.0\" count=\"18\" tclass=\"0x068000\"/><c2c bw=\"44712\" count=\"10\"/></gpu></pci>\n"
    "  </cpu>\n"
    "  <cpu host_hash=\"0x5a1c3e2f0b7d4e11\" numaid=\"1\" arch=\"arm64\" vendor=\"NVIDIA\">\n"
    "    <pci busid=\"0018:01:00.0\" class=\"0x030200\" link_width=\"2\"><gpu dev=\"1\" sm=\"100\" rank=\"1\" gdr=\"1\">"
    "<nvlink target=\"fffffff:ff:ff.0\" count=\"18\" tclass=\"0x068000\"/><c2c bw=\"44712\" count=\"10\"/></gpu></pci>\n"
    "  </cpu>\n"
    "  <cpu host_hash=\"0x9e02b7c14f3a6d22\" numaid=\"0\" arch=\"arm64\" vendor=\"NVIDIA\">\n"
    "    <pci busid=\"0008:01:00.0\" class=\"0x030200\" link_width=\"2\"><gpu dev=\"0\" sm=\"100\" rank=\"2\" gdr=\"1\">"
    "<nvlink target=\"fffffff:ff:ff.0\" count=\"18\" tclass=\"0x068000\"/><c2c bw=\"44712\" count=\"10\"/></gpu></pci>\n"
    "  </cpu>\n"
    "  <cpu host_hash=\"0x9e02b7c14f3a6d22\" numaid=\"1\" arch=\"arm64\" vendor=\"NVIDIA\">\n"
    "    <pci busid=\"0018:01:00.0\" class=\"0x030200\" link_width=\"2\"><gpu dev=\"1\" sm=\"100\" rank=\"3\" gdr=\"1\">"
    "<c2c bw=\"44712\" count=\"10\"/></gpu></pci>\n"
    "  </cpu>\n"
    "</system>\n";

static void test_mnnvl_fused(void) {
  xp_topo t;
  char err[128];
  CHECK_EQ_INT(xp_topo_parse(mnnvl_fused, strlen(mnnvl_fused), &t, err, sizeof err), 0);
  CHECK_EQ_INT(t.nhosts, 2);
  CHECK_EQ_INT(t.nnuma, 4); /* each host's nodes 0 and 1, not 2 */
  xp_topo_path p;
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 2, &p), 0); /* two trays over the NVSwitch */
  CHECK_EQ_STR(p.kind, "nvlink");
  CHECK_EQ_INT(xp_topo_pair(&t, 2, 3, &p), 0); /* one tray's two Graces */
  CHECK_EQ_STR(p.kind, "pcie");
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 3, &p), -1); /* no PCIe joins two hosts */
  CHECK_EQ_STR(p.kind, "");
  xp_topo_free(&t);
  /* a dump of before NCCL 2.19 states no host_hash: one host */
  CHECK_EQ_INT(xp_topo_parse(pcie_tree, strlen(pcie_tree), &t, err, sizeof err), 0);
  CHECK_EQ_INT(t.nhosts, 1);
  xp_topo_free(&t);
}

/* A B200 host under MPS with MLOPart (NCCL 2.27 on, src/graph/topo.cc's ncclTopoAddGpuSub): one
** <pci> holding a <gpu mlopart=".."> per partition, each with the GPU's NVLinks to the NVSwitch,
** as NCCL fuses the processes' dumps (one per rank); and a second GPU unpartitioned. */
static const char mlopart_dump[] =
    "<system version=\"1\">\n"
    "  <cpu host_hash=\"0x3c2b1a0f9e8d7c6b\" numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\">\n"
    "    <pci busid=\"0000:1b:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
    "      <gpu dev=\"0\" sm=\"100\" rank=\"0\" gdr=\"1\" mlopart=\"0\"><nvlink target=\"fffffff:ff:ff.0\" count=\"18\" "
    "tclass=\"0x068000\"/></gpu>\n"
    "      <gpu dev=\"1\" sm=\"100\" rank=\"1\" gdr=\"1\" mlopart=\"1\"><nvlink target=\"fffffff:ff:ff.0\" count=\"18\" "
    "tclass=\"0x068000\"/></gpu>\n"
    "    </pci>\n"
    "    <pci busid=\"0000:43:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
    "      <gpu dev=\"2\" sm=\"100\" rank=\"2\" gdr=\"1\"><nvlink target=\"fffffff:ff:ff.0\" count=\"18\" "
    "tclass=\"0x068000\"/></gpu>\n"
    "    </pci>\n"
    "  </cpu>\n"
    "</system>\n";

/* Two ranks on one GPU's partitions are joined by its memory (topo.cc's LOC link), not by the
** NVLinks each lists: where they were recorded "nvlink: 18 NVLinks through NVSwitch". */
static void test_mlopart(void) {
  xp_topo t;
  char err[128], basis[256];
  xp_topo_path p;
  CHECK_EQ_INT(xp_topo_parse(mlopart_dump, strlen(mlopart_dump), &t, err, sizeof err), 0);
  /* three ranks' devices on two GPUs: nccl.topology said "3 GPUs" */
  CHECK_EQ_INT(t.ngpu, 3);
  CHECK_EQ_INT(xp_topo_physical_gpus(&t), 2);
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 1, &p), 0);
  CHECK_EQ_STR(p.kind, "local");
  CHECK_EQ_STR(p.detail, "one GPU's MLOPart partitions 0 and 1, in its memory");
  CHECK_EQ_INT(xp_topo_pair(&t, 1, 2, &p), 0);
  CHECK_EQ_STR(p.kind, "nvlink");
  /* P2P between the partitions alone: no interconnect between GPUs, and the basis says why */
  xp_nccl_info info;
  static const char *const within[] = {"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", NULL};
  xp_nccl_info_init(&info);
  feed(&info, within);
  CHECK(xp_nccl_interconnect(&info, &t, basis, sizeof basis) == NULL);
  CHECK_EQ_STR(basis, "NCCL connected rank 0 to 1 with P2P/CUMEM within one GPU's MLOPart partitions 0 and 1, in its "
                      "memory: no link between GPUs");
  xp_nccl_info_free(&info);
  /* and with a rank on another GPU, that GPU's NVLink */
  static const char *const across[] = {"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
                                       "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM", NULL};
  xp_nccl_info_init(&info);
  feed(&info, across);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, &t, basis, sizeof basis), "nvlink");
  CHECK(strstr(basis, "rank 1 to 2") != NULL);
  xp_nccl_info_free(&info);
  xp_topo_free(&t);
}

static void test_pcie_paths(void) {
  xp_topo t;
  char err[128];
  CHECK_EQ_INT(xp_topo_parse(pcie_tree, strlen(pcie_tree), &t, err, sizeof err), 0);
  CHECK_EQ_INT(t.ngpu, 4);
  CHECK_EQ_INT(t.ncpu, 2);
  xp_topo_path p;
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 1, &p), 0);
  CHECK_EQ_STR(p.kind, "nvlink");
  CHECK_EQ_INT(p.nvlinks, 4);
  CHECK_EQ_INT(xp_topo_pair(&t, 1, 0, &p), 0); /* the link is listed on one side only */
  CHECK_EQ_STR(p.kind, "nvlink");
  CHECK_EQ_INT(xp_topo_pair(&t, 1, 2, &p), 0);
  CHECK_EQ_STR(p.kind, "pcie");
  CHECK(strstr(p.detail, "PXB") != NULL);
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 3, &p), 0);
  /* NCCL writes a <cpu> per NUMA node (numaid), which is a socket or part of one (EPYC NPS4,
  ** Xeon SNC): SYS is "between NUMA nodes" (NCCL_P2P_LEVEL's documentation), not sockets */
  CHECK(strstr(p.detail, "SYS (across NUMA nodes") != NULL);
  CHECK_EQ_INT(t.nnuma, 2);

  /* P2P between 1 and 2 rides PCIe; between 0 and 1, NVLink: the slower one is reported. */
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  static const char *const lines[] = {
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
      "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM", NULL};
  feed(&info, lines);
  char basis[256];
  CHECK_EQ_STR(xp_nccl_interconnect(&info, &t, basis, sizeof basis), "pcie");
  CHECK(strstr(basis, "rank 1 to 2") != NULL);
  CHECK(strstr(basis, "mixed") == NULL); /* P2P alone, over NVLink or PCIe */
  xp_nccl_info_free(&info);
  /* P2P across the sockets too (NCCL_P2P_LEVEL=SYS): the basis names the farthest path, printed
  ** before or after the nearer one */
  static const char *const sys_last[] = {
      "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM",
      "h:1:2 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM", NULL};
  static const char *const sys_first[] = {
      "h:1:2 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM",
      "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM", NULL};
  for (int k = 0; k < 2; k++) {
    xp_nccl_info_init(&info);
    feed(&info, k ? sys_first : sys_last);
    CHECK_EQ_STR(xp_nccl_interconnect(&info, &t, basis, sizeof basis), "pcie");
    CHECK(strstr(basis, "rank 3 to 0") && strstr(basis, "SYS"));
    xp_nccl_info_free(&info);
  }
  xp_topo_free(&t);

  static const char switch_pair[] =
      "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:20:00.0\" class=\"0x060400\">"
      "<pci busid=\"0000:21:00.0\" class=\"0x030200\"><gpu dev=\"0\" rank=\"0\"/></pci>"
      "<pci busid=\"0000:22:00.0\" class=\"0x030200\"><gpu dev=\"1\" rank=\"1\"/></pci>"
      "</pci><pci busid=\"0000:30:00.0\" class=\"0x030200\"><gpu dev=\"2\" rank=\"2\"/></pci></cpu></system>";
  CHECK_EQ_INT(xp_topo_parse(switch_pair, strlen(switch_pair), &t, err, sizeof err), 0);
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 1, &p), 0);
  CHECK(strstr(p.detail, "PIX") != NULL);
  CHECK_EQ_INT(xp_topo_pair(&t, 0, 2, &p), 0);
  CHECK(strstr(p.detail, "PHB") != NULL);
  xp_topo_free(&t);
}

static void test_bad_topology(void) {
  xp_topo t;
  char err[128];
  const char *not_nccl = "<html><body/></html>";
  CHECK_EQ_INT(xp_topo_parse(not_nccl, strlen(not_nccl), &t, err, sizeof err), -1);
  CHECK(strstr(err, "<system>") != NULL);
  const char *broken = "<system version=\"1\"><cpu numaid=\"0";
  CHECK_EQ_INT(xp_topo_parse(broken, strlen(broken), &t, err, sizeof err), -1);
  CHECK(strstr(err, "malformed") != NULL);
  const char *unclosed = "<system version=\"1\"><cpu numaid=\"0\">";
  CHECK_EQ_INT(xp_topo_parse(unclosed, strlen(unclosed), &t, err, sizeof err), -1);
  CHECK(strstr(err, "<cpu> is not closed") != NULL);
  const char *unbalanced = "<system version=\"1\"></cpu></system>";
  CHECK_EQ_INT(xp_topo_parse(unbalanced, strlen(unbalanced), &t, err, sizeof err), -1);
}

/* One process setting up two communicators on one thread, a framework's world of 4 then its
** TP group of 2 (synthetic lines in NCCL 2.21's forms, connections during set-up): each span's
** connections are its communicator's, and the 2-rank test's are kept, where both were pooled and
** rank 0 to 1 read 'P2P/CUMEM x1; SHM/direct/direct x1'. Connections printed after both were set
** up (NCCL 2.22 on connects at the first collective) tell no communicator: left out, said. */
static void test_several_comms(void) {
  static const char *const lines[] = {
      "h:7:7 [0] NCCL INFO ncclCommInitRank comm 0xa0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 commId "
      "0x11aa - Init START",
      "h:7:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via SHM/direct/direct",
      "h:7:7 [0] NCCL INFO ncclCommInitRank comm 0xa0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 commId "
      "0x11aa - Init COMPLETE",
      "h:7:7 [0] NCCL INFO ncclCommInitRank comm 0xb0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId "
      "0x22bb - Init START",
      "h:7:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
      "h:7:7 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM",
      "h:7:7 [0] NCCL INFO ncclCommInitRank comm 0xb0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId "
      "0x22bb - Init COMPLETE",
      "h:7:9 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[2] via SHM/direct/direct", NULL};
  xp_nccl_info info;
  char said[512], buf[512];
  read_comm(&info, lines, 2, 0, said);
  CHECK_EQ_INT(info.nconn, 1);
  CHECK_EQ_STR(info.conn[0].transport, "P2P/CUMEM");
  CHECK_EQ_INT(info.conn[0].channels, 2);
  CHECK_EQ_INT(info.nranks, 2);
  CHECK_EQ_STR(said, "2 communicators in the log (commId 0x11aa, 4 ranks; commId 0x22bb, 2 ranks): connections are "
                     "commId 0x22bb's (the test's size); 1 connection printed after several were set up (of none "
                     "the log tells) left out");
  xp_nccl_info_free(&info);
  /* the world's size asked: its one connection */
  keep_comm(&info, lines, 4, 0, said, buf);
  CHECK_EQ_STR(buf, "SHM/direct/direct");
  CHECK_EQ_INT(info.conn[0].channels, 1);
  xp_nccl_info_free(&info);
  /* both set up first, every connection after (on threads of NCCL's own): none kept, said */
  const char *const late[] = {lines[0], lines[2], lines[3], lines[6], lines[7],
                              "h:7:8 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", NULL};
  read_comm(&info, late, 2, 7, said);
  CHECK_EQ_INT(info.nconn, 0);
  CHECK(strstr(said, "): no connection is one communicator's; 2 connections printed after several") != NULL);
  xp_nccl_info_free(&info);
  /* GRAPH's types and the channel counts are the kept communicator's too: the pair's NVL ring, not
  ** the world's path across sockets (SYS, the farthest pooled), nor its NVLS channels (the last) */
  const char *const graphs[] = {
      lines[3],
      "h:7:7 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 12, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1",
      "h:7:7 [0] NCCL INFO 24 coll channels, 0 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels "
      "per peer",
      "h:7:7 [0] NCCL INFO comm 0xb0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
      "h:7:7 [0] NCCL INFO Channel 00/24 :    0   1",
      lines[5], lines[0],
      "h:7:7 [0] NCCL INFO comm 0xa0 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0",
      "h:7:7 [0] NCCL INFO Channel 00/32 :    0   1   2   3",
      "h:7:7 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 10.000000/10.000000, type SYS/PIX, sameChannels 0",
      "h:7:7 [0] NCCL INFO 2 coll channels, 0 collnet channels, 16 nvls channels, 4 p2p channels, 1 p2p channels "
      "per peer",
      lines[1], lines[2], lines[7], NULL};
  xp_nccl_info_init(&info);
  feed(&info, graphs);
  CHECK_EQ_STR(info.graph_intra, "SYS"); /* pooled until a communicator is kept */
  xp_nccl_info_one_comm(&info, 2, 7, said, sizeof said);
  CHECK_EQ_STR(info.graph_intra, "NVL");
  CHECK_EQ_INT(info.coll_channels, 24);
  CHECK_EQ_INT(info.nvls_channels, 0);
  CHECK_EQ_INT(info.p2p_per_peer, 32);
  CHECK_EQ_INT(info.ring_channels, 24); /* its rings and nodes too: the world spans 2 */
  CHECK_EQ_INT(info.nnodes, 1);
  CHECK_EQ_INT(info.local_ranks, 2);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, buf, sizeof buf), "nvlink");
  xp_nccl_info_free(&info);
  /* NCCL after 2.21 prints a split's Init lines without its commId (init.cc: "parent %p splitCount %d
  ** color %d key %d- Init START", 2.28 "childCount"): the split is its parent's, split count and
  ** color, as NCCL hashes it. The world (4 ranks, over SHM) split into pairs: the pair over P2P */
  const char *const split[] = {
      lines[0], lines[1], lines[2],
      "h:7:7 [0] NCCL INFO ncclCommSplit comm 0xc0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 parent 0xa0 "
      "splitCount 1 color 0 key 0- Init START",
      "h:7:7 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 12, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1",
      lines[5],
      "h:7:7 [0] NCCL INFO ncclCommSplit comm 0xc0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 parent 0xa0 "
      "childCount 1 color 0 key 0 - Init COMPLETE",
      NULL};
  keep_comm(&info, split, 2, 7, said, buf);
  CHECK_EQ_STR(buf, "P2P/CUMEM");
  CHECK_EQ_STR(info.graph_intra, "NVL");
  CHECK_EQ_STR(said, "2 communicators in the log (commId 0x11aa, 4 ranks; commId 0x11aa split 1 color 0, 2 ranks): "
                     "connections are commId 0x11aa split 1 color 0's (rank 0's)");
  xp_nccl_info_free(&info);
  /* Both set up first and connected later on a thread of RCCL's own, whose lines end with the
  ** communicator's handle ("via P2P/IPC comm 0x1f6e0 nRanks 08", transport/p2p.cc): each its own,
  ** the pair's kept. NCCL's name none (issue 1605's split, connected after its Init COMPLETE) */
  const char *const named[] = {
      "mi:7:7 [0] NCCL INFO RCCL version : 2.22.3-HEAD:a9b0b4a",
      "mi:7:7 [0] NCCL INFO ncclCommInitRank comm 0xa0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x11aa "
      "- Init COMPLETE",
      "mi:7:7 [0] NCCL INFO ncclCommInitRank comm 0xb0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x22bb "
      "- Init COMPLETE",
      "mi:7:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC comm 0xb0 nRanks 02",
      "mi:7:12 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC comm 0xb0 nRanks 02",
      "mi:7:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via SHM/direct/direct comm 0xa0 nRanks 04", NULL};
  keep_comm(&info, named, 2, 7, said, buf);
  CHECK_EQ_STR(buf, "P2P/IPC");
  CHECK_EQ_INT(info.conn[0].channels, 2);
  CHECK_EQ_STR(said, "2 communicators in the log (commId 0x11aa, 4 ranks; commId 0x22bb, 2 ranks): connections are "
                     "commId 0x22bb's (rank 0's)");
  xp_nccl_info_free(&info);
  /* Before 2.14 NCCL printed no commId ("comm 0x7fdf08000d00 rank 15 nranks 16 cudaDev 7 busId e7000 -
  ** Init COMPLETE", NVIDIA/nccl issue 629), and the pointer is one rank's handle: each process's is
  ** joined to those its connections name. Two tests appended in one log, of 4 GPUs over P2P and of 2
  ** across sockets */
  const char *const old[] = {
      "h:100:101 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC",
      "h:100:101 [0] NCCL INFO comm 0x7fdf08000d00 rank 0 nranks 4 cudaDev 0 busId 1b000 - Init COMPLETE",
      "h:200:201 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[88000] via direct shared memory",
      "h:200:201 [0] NCCL INFO comm 0x7f30b0000d00 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE", NULL};
  keep_comm(&info, old, 2, 200, said, buf);
  CHECK_EQ_STR(buf, "SHM/direct");
  CHECK_EQ_STR(said, "2 communicators in the log (one of 4 ranks (no commId: NCCL before 2.14); one of 2 ranks (no "
                     "commId: NCCL before 2.14)): connections are the one of 2 ranks' (rank 0's)");
  xp_nccl_info_free(&info);
  /* ... and of one size: NCCL_TESTS_SPLIT_MASK's groups {0, 2} over P2P and {1, 3} over SHM (as
  ** split_info.txt, in NCCL 2.11's forms: nccl-tests issue 128's "Channel 00 : 4[41000] -> 7[69000]
  ** via P2P/IPC/read", issue 629's Init COMPLETE), where "nranks 2" alone pooled both groups. Each
  ** process's handle is joined to the one its connections' other end names (rank and bus id) */
  const char *const groups[] = {
      "n0:101:120 [1] NCCL INFO Channel 00 : 0[3d000] -> 1[be000] via direct shared memory",
      "n0:103:122 [3] NCCL INFO Channel 00 : 1[be000] -> 0[3d000] via direct shared memory",
      "n0:100:121 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC/read",
      "n0:102:123 [2] NCCL INFO Channel 00 : 1[1c000] -> 0[1b000] via P2P/IPC/read",
      "n0:101:120 [1] NCCL INFO comm 0x55d1a0 rank 0 nranks 2 cudaDev 1 busId 3d000 - Init COMPLETE",
      "n0:103:122 [3] NCCL INFO comm 0x55d3a0 rank 1 nranks 2 cudaDev 3 busId be000 - Init COMPLETE",
      "n0:100:121 [0] NCCL INFO comm 0x55d0a0 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE",
      "n0:102:123 [2] NCCL INFO comm 0x55d2a0 rank 1 nranks 2 cudaDev 2 busId 1c000 - Init COMPLETE", NULL};
  keep_comm(&info, groups, 2, 100, said, buf);
  CHECK_EQ_STR(buf, "P2P/IPC/read");
  CHECK_EQ_INT(info.nconn, 2); /* 0 -> 1 and 1 -> 0 of its group, both processes' */
  CHECK_EQ_STR(said, "2 communicators in the log (one of 2 ranks (no commId: NCCL before 2.14); one of 2 ranks (no "
                     "commId: NCCL before 2.14)): connections are the one of 2 ranks' (rank 0's)");
  xp_nccl_info_free(&info);
  /* two runs of one 2-GPU test appended (a process each, -g 2: its two handles on two threads),
  ** then the second's: each run's own, where they were one communicator and the first run's
  ** pair read 2 channels for its 1 */
  const char *const twice[] = {
      "h:100:101 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC/read",
      "h:100:102 [1] NCCL INFO Channel 00 : 1[1c000] -> 0[1b000] via P2P/IPC/read",
      "h:100:101 [0] NCCL INFO comm 0x7f10 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE",
      "h:100:102 [1] NCCL INFO comm 0x7f20 rank 1 nranks 2 cudaDev 1 busId 1c000 - Init COMPLETE",
      "h:200:201 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC/read",
      "h:200:202 [1] NCCL INFO Channel 00 : 1[1c000] -> 0[1b000] via P2P/IPC/read",
      "h:200:201 [0] NCCL INFO comm 0x7f10 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE",
      "h:200:202 [1] NCCL INFO comm 0x7f20 rank 1 nranks 2 cudaDev 1 busId 1c000 - Init COMPLETE", NULL};
  read_comm(&info, twice, 2, 100, said);
  CHECK_EQ_INT(info.nconn, 2);
  CHECK_EQ_INT(info.conn[0].channels, 1);
  CHECK(strstr(said, "2 communicators in the log") == said);
  xp_nccl_info_free(&info);
  /* NCCL 2.4's NET lines name no device ("Ring 00 : 35 -> 34 [send] via NET/Socket/0", NVIDIA/nccl
  ** issue 226): no handle can be joined, and the two processes' handles stay one communicator by
  ** size, as before, where each apart kept rank 0's line alone */
  const char *const bare[] = {
      "a:10:11 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0",
      "a:10:11 [0] NCCL INFO comm 0x7efe60002250 rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE",
      "b:20:21 [0] NCCL INFO Ring 00 : 1 -> 0 [send] via NET/Socket/0",
      "b:20:21 [0] NCCL INFO comm 0x7fead0002250 rank 1 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE", NULL};
  read_comm(&info, bare, 2, 10, said);
  CHECK_EQ_INT(info.nconn, 2);
  CHECK_EQ_STR(said, "");
  xp_nccl_info_free(&info);
  /* one communicator (the fixture's, connected on threads of its own after set-up): unchanged */
  size_t len;
  char *text = test_data("nccl", "nccltests_sweep.txt", &len);
  xp_nccl_info_init(&info);
  xp_nccl_info_parse(&info, text, len);
  xp_nccl_info_one_comm(&info, 2, 1351, said, sizeof said);
  CHECK_EQ_STR(said, "");
  CHECK_EQ_INT(info.nconn, 2);
  CHECK_EQ_INT(info.conn[0].channels, 24);
  xp_nccl_info_free(&info);
  free(text);
}

/* NCCL 2.22 on connects a communicator at its first collective, on threads of its own, after every
** communicator of the process was set up, and its lines name none ("Channel 00/0 : 3[3] -> 4[4] via
** P2P/CUMEM" after all Init COMPLETE lines, NVIDIA/nccl issue 1646; issue 1605's split). A framework's
** process holds several (vLLM's world, TP and PP groups: tests/data/nccl/PROVENANCE.md): a line is the
** communicator whose handle in its process is one end (rank and device) and which can hold the other
** (its size, its handle of that rank on that device); where several can, none. Here rank 0's process
** of a world of 4 on one host, its TP pair {0, 1} and its PP pair {0, 2}, each process's Init lines
** as vLLM's console shows them. */
static void test_lazy_comms(void) {
#define INIT(P, C, R, N, D, ID) \
  "h:" P ":" P " [" D "] NCCL INFO ncclCommInitRank comm " C " rank " R " nranks " N " cudaDev " D " nvmlDev " D \
  " busId " D "8000 commId " ID " - Init COMPLETE"
  static const char *const lines[] = {
      INIT("100", "0x5600a0", "0", "4", "0", "0xaa01"), INIT("101", "0x5601a0", "1", "4", "1", "0xaa01"),
      INIT("102", "0x5602a0", "2", "4", "2", "0xaa01"), INIT("103", "0x5603a0", "3", "4", "3", "0xaa01"),
      INIT("100", "0x5600b0", "0", "2", "0", "0xbb02"), INIT("101", "0x5601b0", "1", "2", "1", "0xbb02"),
      INIT("100", "0x5600c0", "0", "2", "0", "0xcc03"), INIT("102", "0x5602c0", "1", "2", "2", "0xcc03"),
      /* the TP pair's (rank 1 on device 1), or the world's: its rank 1 is there too */
      "h:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
      /* the PP pair's alone: its rank 1 is on device 2 */
      "h:100:201 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via SHM/direct/direct",
      "h:100:201 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[2] via SHM/direct/direct",
      /* the world's alone: rank 3 is in no pair */
      "h:100:202 [0] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM",
      "h:100:202 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1", NULL};
#undef INIT
  xp_nccl_info info;
  char said[512], buf[512];
  keep_comm(&info, lines, 2, 100, said, buf);
  CHECK_EQ_STR(buf, "SHM/direct/direct");
  CHECK_EQ_INT(info.nconn, 1);
  CHECK_EQ_INT(info.conn[0].channels, 2);
  CHECK_EQ_STR(said, "3 communicators in the log (commId 0xaa01, 4 ranks; commId 0xbb02, 2 ranks; commId 0xcc03, 2 "
                     "ranks): connections are commId 0xcc03's (rank 0's); 1 connection printed after several "
                     "were set up (of none the log tells) left out; 'Connected all rings' printed after several "
                     "were set up (of none the log tells) left out of nccl.rings");
  CHECK_EQ_STR(info.rings, ""); /* thread 202's, after every set-up: no one communicator's */
  xp_nccl_info_free(&info);
  keep_comm(&info, lines, 4, 100, said, buf);
  CHECK_EQ_STR(buf, "P2P/CUMEM");
  CHECK_EQ_STR(info.rings, "");
  CHECK_EQ_INT(info.nconn, 1);
  CHECK_EQ_INT(info.conn[0].src, 3);
  xp_nccl_info_free(&info);
  /* a communicator destroyed ("comm 0x.. rank 0 nranks 2 cudaDev 0 busId 60 - Destroy COMPLETE", as
  ** the fixture's log ends) holds no connection printed after it: the world gone, its pair's */
  const char *const gone[] = {
      lines[0], lines[4], "h:100:100 [0] NCCL INFO comm 0x5600a0 rank 0 nranks 4 cudaDev 0 busId 8000 - Destroy COMPLETE",
      lines[8], NULL};
  keep_comm(&info, gone, 2, 100, said, buf);
  CHECK_EQ_STR(buf, "P2P/CUMEM");
  CHECK_EQ_STR(said, "");
  xp_nccl_info_free(&info);
  /* ... and where neither was destroyed, the same line is either's: left out */
  const char *const both[] = {lines[0], lines[4], lines[8], NULL};
  CHECK_EQ_INT(read_comm_left(&info, both, 2, 100), 1);
  CHECK_EQ_INT(info.nconn, 0);
  xp_nccl_info_free(&info);
}

/* Two communicators of one process set up one after the other, a pair and a world of 4 (NCCL 2.21's
** forms, connecting at set-up): each span's "Connected all rings" is its own, and nccl.rings is the
** kept one's, where it was the log's last line whichever communicator printed it. */
static void test_rings_of_kept_comm(void) {
#define INIT(T, C, N, ID, WHAT) \
  "h:100:" T " [0] NCCL INFO ncclCommInitRankConfig comm " C " rank 0 nranks " N " cudaDev 0 nvmlDev 0" \
  " busId 8000 commId " ID " - Init " WHAT
  static const char *const lines[] = {
      INIT("10", "0x5510", "2", "0x2222bbbb", "START"),
      "h:100:10 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
      "h:100:10 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
      INIT("10", "0x5510", "2", "0x2222bbbb", "COMPLETE"),
      INIT("12", "0x5520", "4", "0x1111aaaa", "START"),
      "h:100:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct",
      "h:100:12 [0] NCCL INFO Connected all rings, use ring PXN 1 GDR 0",
      INIT("12", "0x5520", "4", "0x1111aaaa", "COMPLETE"), NULL};
#undef INIT
  xp_nccl_info info;
  char said[512], buf[512];
  keep_comm(&info, lines, 2, 100, said, buf);
  CHECK_EQ_STR(buf, "P2P/CUMEM");
  CHECK_EQ_STR(info.rings, "use ring PXN 0 GDR 1");
  xp_nccl_info_free(&info);
  keep_comm(&info, lines, 4, 100, said, buf);
  CHECK_EQ_STR(buf, "SHM/direct/direct");
  CHECK_EQ_STR(info.rings, "use ring PXN 1 GDR 0");
  xp_nccl_info_free(&info);
}

/* Ray's log deduplication, through which vLLM's workers print on Ray, ends the first of lines alike
** but for their numbers with " [repeated 15x across cluster]" (vllm-project/vllm issue 15769's
** "(RayWorkerWrapper pid=539) vllm-0:539:539 [6] NCCL INFO ... [repeated 15x across cluster]"), in
** colour on a terminal (issue 2734's "\x1b[32m [repeated 6x across cluster] \x1b[0m"): NCCL's words
** alone are read, and the lines left out counted. */
static void test_ray_repeats(void) {
  static const char *const lines[] = {
      "(RayWorkerWrapper pid=539) vllm-0:539:539 [6] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL [repeated 15x "
      "across cluster]",
      "\x1b[36m(RayWorkerVllm pid=5310)\x1b[0m pod:5310:5433 [7] NCCL INFO Channel 00/0 : 7[7] -> 0[0] via P2P/CUMEM "
      "\x1b[32m [repeated 27x across cluster]\x1b[0m",
      "\x1b[36m(RayWorkerVllm pid=5310)\x1b[0m pod:5310:5433 [7] NCCL INFO Channel 01/0 : 7[7] -> 0[0] via SHM/direct/direct",
      "(RayWorkerWrapper pid=539) INFO 02-02 10:00:00 worker.py:1] loaded [repeated 7x across cluster]", NULL};
  xp_nccl_info info;
  char buf[512];
  xp_nccl_info_init(&info);
  feed(&info, lines);
  CHECK_EQ_STR(xp_nccl_info_env(&info, "NCCL_P2P_LEVEL"), "NVL");
  xp_nccl_info_transports(&info, buf, sizeof buf);
  CHECK_EQ_STR(buf, "P2P/CUMEM, SHM/direct/direct");
  CHECK_EQ_INT(info.ray_repeated, 42); /* vLLM's own line is none of NCCL's */
  xp_nccl_info_free(&info);
}

/* P2P without a topology dump, where NCCL's GRAPH lines type its graphs' paths: NVIDIA/nccl issue
** 1189's two H20 hosts ("Pattern 4, crossNic 1, nChannels 4, bw 24.000000/24.000000, type NVL/PIX",
** its ring then the P2P/CUMEM pair within a host), and issue 601's 4 GPUs a host across sockets
** (NCCL 2.7's "speed 1.200000/1.200000, type SYS/SYS"; its tree's line and the P2P connection, as
** NCCL_P2P_LEVEL=SYS would make it, made up). Both read '?' (no interconnect). Another pattern's
** type (NVLS: 5) or a type NCCL does not name says nothing. */
static void test_graph_type(void) {
  static const char *const h20[] = {
      "H20-GPU-05:1789225:1789736 [1] NCCL INFO Pattern 4, crossNic 1, nChannels 4, bw 24.000000/24.000000, type "
      "NVL/PIX, sameChannels 0",
      "H20-GPU-05:1789225:1789736 [1] NCCL INFO  0 : NET/3 GPU/0 GPU/1 NET/2",
      "H20-GPU-05:1789224:1789735 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
      "H20-GPU-05:1789225:1789736 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM", NULL};
  static const char *const sys[] = {
      "gpu23:1513:1528 [2] NCCL INFO Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, type SYS/SYS, "
      "sameChannels 0",
      "gpu23:1513:1526 [0] NCCL INFO Pattern 3, crossNic 0, nChannels 4, speed 1.200000/1.200000, type PHB/SYS, "
      "sameChannels 0",
      "gpu23:1513:1528 [2] NCCL INFO Channel 00 : 2[83000] -> 3[84000] via P2P/IPC", NULL};
  static const char *const others[] = {
      "h:1:2 [0] NCCL INFO Pattern 5, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1",
      "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40.000000/40.000000, type XYZ/PIX, sameChannels 1",
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", NULL};
  xp_nccl_info info;
  char basis[256];
  xp_nccl_info_init(&info);
  feed(&info, h20);
  CHECK_EQ_STR(info.graph_intra, "NVL");
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "nvlink");
  CHECK_EQ_STR(basis, "NCCL connected rank 0 to 1 with P2P/CUMEM over NVLink (NCCL's graphs: type NVL)");
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, sys);
  CHECK_EQ_STR(info.graph_intra, "SYS"); /* the farthest of the ring's and the tree's */
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "pcie");
  CHECK_EQ_STR(basis, "NCCL connected rank 2 to 3 with P2P/IPC over PCIe SYS (NCCL's graphs: type SYS)");
  xp_nccl_info_free(&info);
  /* RCCL names NCCL's NVL "XGMI" (topo.cc's topoPathTypeStr under __HIP_PLATFORM_AMD__): AMD's
  ** links, where the type was not read; its NVB is xGMI through another GPU, no NVLink */
  static const char *const rccl[] = {
      "mi:7:9 [0] NCCL INFO RCCL version : 2.22.3-HEAD:a9b0b4a",
      "mi:7:9 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 8, bw 48.000000/48.000000, type XGMI/PIX, sameChannels 1",
      "mi:7:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC comm 0x1f6e0 nRanks 08", NULL};
  xp_nccl_info_init(&info);
  feed(&info, rccl);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "xgmi");
  CHECK_EQ_STR(basis, "NCCL connected rank 0 to 1 with P2P/IPC over xGMI (RCCL's graphs: type XGMI)");
  snprintf(info.graph_intra, sizeof info.graph_intra, "NVB");
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "xgmi");
  xp_nccl_info_free(&info);
  /* no GRAPH lines (NCCL_DEBUG=INFO prints INIT's, not GRAPH's), but NVLS channels set up:
  ** NVIDIA/nccl issue 1814's H100 line; NVLS needs an NVSwitch joining the node's GPUs. None set
  ** up (the fixture's "0 nvls channels") says nothing, as before. */
  static const char *const nvls[] = {
      "hostname-test:983:1261 [3] NCCL INFO 16 coll channels, 0 collnet channels, 16 nvls channels, 16 p2p "
      "channels, 1 p2p channels per peer",
      "hostname-test:983:1261 [3] NCCL INFO Channel 00/0 : 35[3] -> 36[4] via P2P/CUMEM", NULL};
  xp_nccl_info_init(&info);
  feed(&info, nvls);
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "nvlink");
  CHECK_EQ_STR(basis, "NCCL connected rank 35 to 36 with P2P/CUMEM over NVLink through NVSwitch (NCCL set up 16 "
                      "NVLS channels)");
  xp_nccl_info_free(&info);
  xp_nccl_info_init(&info);
  feed(&info, others);
  CHECK_EQ_STR(info.graph_intra, "");
  CHECK(xp_nccl_interconnect(&info, NULL, basis, sizeof basis) == NULL);
  xp_nccl_info_free(&info);
}

/* A number no NCCL prints, past int (a line garbled in a copy): the line says nothing, where sscanf's
** %d read 4294967320 as 24 channels, 4294967298 as 2 nodes, a channel range {0..4294967319} as 24. */
static void test_numbers_past_int(void) {
  static const char *const lines[] = {
      "h:1:2 [0] NCCL INFO Channel 00/4294967320 : 0 1",
      "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 4294967298 localRanks 2 localRank 0 MNNVL 0",
      "h:1:2 [0] NCCL INFO AllReduce: 14336 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..4294967319}",
      "h:1:2 [0] NCCL INFO AllReduce [Symmetric]: 4194304 Bytes -> Kernel AllReduce_RSxLDMC_AGxSTMC nchannels 4294967312 nthreads 512",
      NULL};
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  feed(&info, lines);
  CHECK_EQ_INT(info.ring_channels, -1);
  CHECK_EQ_INT(info.nnodes, -1);
  const xp_nccl_tuning *t = xp_nccl_info_tuning(&info, "AllReduce", 14336);
  CHECK(t && strcmp(t->algo, "RING") == 0 && t->ch_lo == -1 && t->ch_hi == -1); /* its choice still read */
  t = xp_nccl_info_tuning(&info, "AllReduce", 4194304);
  CHECK(t && t->ch_hi == -1);
  xp_nccl_info_free(&info);
}

/* CollNet (SHARP) connections, as NCCL 2.18-2.28 src/transport/coll_net.cc prints them: a rank's
** [send] and [receive] to the network's collectives, no peer; older NCCL without the connection
** index, newer with "(PCI)". They were not read: a SHARP job's transports said P2P alone. */
static void test_collnet_lines(void) {
  static const char *const lines[] = {
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
      "h:1:2 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/SHARP/0/GDRDMA",
      "h:1:2 [0] NCCL INFO CollNet 00/0 : 0 [receive] via COLLNET/SHARP/0/GDRDMA",
      "h:1:2 [0] NCCL INFO CollNet 01/0 : 0 [send] via COLLNET/SHARP/1/GDRDMA",
      "h:1:3 [1] NCCL INFO CollNet 00 : 1 [send] via COLLNET/SHARP/2",
      "h:1:3 [1] NCCL INFO CollNet 00/1 : 1 [receive] via COLLNET/SHARP/3/GDRDMA(PCI)",
      "h:1:3 [1] NCCL INFO CollNet 00/0 : 1 [send] via", /* cut short: no transport, nothing */
      NULL};
  xp_nccl_info info;
  char buf[512], basis[256];
  xp_nccl_info_init(&info);
  feed(&info, lines);
  CHECK_EQ_INT(info.nconn, 4);
  /* each rank's to itself, its kind without the NIC index; [send] and [receive] of a channel once */
  CHECK_EQ_INT(info.conn[1].src, 0);
  CHECK_EQ_INT(info.conn[1].dst, 0);
  CHECK_EQ_STR(info.conn[1].transport, "COLLNET/SHARP/GDRDMA");
  CHECK_EQ_INT(info.conn[1].channels, 2);
  CHECK_EQ_INT(info.conn[2].src, 1);
  CHECK_EQ_STR(info.conn[2].transport, "COLLNET/SHARP");
  CHECK_EQ_STR(info.conn[3].transport, "COLLNET/SHARP/GDRDMA(PCI)");
  xp_nccl_info_transports(&info, buf, sizeof buf);
  CHECK_EQ_STR(buf, "P2P/CUMEM, COLLNET/SHARP, COLLNET/SHARP/GDRDMA, COLLNET/SHARP/GDRDMA(PCI)");
  /* through the network, whatever P2P rode on */
  CHECK_EQ_STR(xp_nccl_interconnect(&info, NULL, basis, sizeof basis), "net");
  CHECK(strstr(basis, "rank 0 to the network's collectives with COLLNET/SHARP") != NULL);
  xp_nccl_info_free(&info);
}

int main(void) {
  test_collnet_lines();
  test_numbers_past_int();
  test_graph_type();
  test_several_comms();
  test_lazy_comms();
  test_rings_of_kept_comm();
  test_ray_repeats();
  test_fixture_log();
  test_synthetic_lines();
  test_other_versions();
  test_mixed_transports_order();
  test_ring_lines();
  test_bare_version_lines();
  test_rccl_build_versions();
  test_fixture_topology();
  test_pcie_paths();
  test_mnnvl_fused();
  test_mlopart();
  test_bad_topology();
  CHECK_DONE();
}
