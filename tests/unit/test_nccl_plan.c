/* nccl_burst's spec and arithmetic: sizes, element counts, nccl-tests' bandwidth formulas,
** and the errors a bad spec gets. No GPU involved. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "runners/nccl_gather.h"
#include "runners/nccl_plan.h"
#include "xp.h"

static xp_spec *spec(const char *json) { return xp_spec_parse_json(json, "t.json", "."); }

static void test_size_range(void) {
  int64_t *v;
  int n = xp_nccl_size_range(8, 256LL << 20, 2, &v);
  CHECK_EQ_INT(n, 26); /* 8 B .. 256 MiB by 2, as all_reduce_perf -b 8 -e 256M -f 2 */
  CHECK_EQ_INT(v[0], 8);
  CHECK_EQ_INT(v[25], 256LL << 20);
  free(v);
  n = xp_nccl_size_range(1000, 3000, 1.5, &v); /* 1000, 1500, 2250 */
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(v[2], 2250);
  free(v);
  n = xp_nccl_size_range(10, 14, 1.01, &v); /* a factor near 1 still advances */
  CHECK_EQ_INT(n, 5);
  free(v);
  CHECK_EQ_INT(xp_nccl_size_range(1, 1LL << 40, 1.0001, &v), -1);
  /* a step past the end whose bytes int64 cannot hold (1e13 * 1e6) ends the sweep: one size */
  n = xp_nccl_size_range(10000LL << 30, 8000000LL << 30, 1e6, &v);
  CHECK_EQ_INT(n, 1);
  free(v);
}

static void test_counts(void) {
  xp_nccl_counts k;
  int64_t need;
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_ALLREDUCE, XP_DT_BF16, 14336, 2, &k, &need), 0);
  CHECK_EQ_INT(k.count, 7168);
  CHECK_EQ_INT(k.send_elems, 7168);
  CHECK_EQ_INT(k.recv_elems, 7168);
  /* all-gather: bytes is the gathered buffer; each rank sends 1/n of it */
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_ALLGATHER, XP_DT_FP32, 4096, 4, &k, &need), 0);
  CHECK_EQ_INT(k.count, 256);
  CHECK_EQ_INT(k.send_elems, 256);
  CHECK_EQ_INT(k.recv_elems, 1024);
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_REDUCESCATTER, XP_DT_FP16, 4096, 4, &k, &need), 0);
  CHECK_EQ_INT(k.count, 512);
  CHECK_EQ_INT(k.send_elems, 2048);
  CHECK_EQ_INT(k.recv_elems, 512);
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_ALLTOALL, XP_DT_FP8_E4M3, 64, 8, &k, &need), 0);
  CHECK_EQ_INT(k.count, 8);
  CHECK_EQ_INT(k.send_elems, 64);
  /* not divisible: 12 bytes of fp32 over 2 ranks for all-gather needs multiples of 8 */
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_ALLGATHER, XP_DT_FP32, 12, 2, &k, &need), -1);
  CHECK_EQ_INT(need, 8);
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_ALLREDUCE, XP_DT_BF16, 7, 2, &k, &need), -1);
  CHECK_EQ_INT(need, 2);
  CHECK_EQ_INT(xp_nccl_counts_for(XP_COLL_BROADCAST, XP_DT_BF16, 6, 3, &k, &need), 0);
}

static void test_bandwidth(void) {
  /* nccl-tests doc/PERFORMANCE.md factors */
  CHECK_NEAR(xp_nccl_busbw_factor(XP_COLL_ALLREDUCE, 2), 1.0, 1e-12);
  CHECK_NEAR(xp_nccl_busbw_factor(XP_COLL_ALLREDUCE, 8), 1.75, 1e-12);
  CHECK_NEAR(xp_nccl_busbw_factor(XP_COLL_ALLGATHER, 8), 0.875, 1e-12);
  CHECK_NEAR(xp_nccl_busbw_factor(XP_COLL_REDUCESCATTER, 4), 0.75, 1e-12);
  CHECK_NEAR(xp_nccl_busbw_factor(XP_COLL_ALLTOALL, 2), 0.5, 1e-12);
  CHECK_NEAR(xp_nccl_busbw_factor(XP_COLL_BROADCAST, 8), 1.0, 1e-12);
  /* Lines of the fixture (all_reduce_perf on 2x H200): size, time -> algbw as printed */
  CHECK_NEAR(xp_nccl_algbw(14336, 7.49), 1.91, 0.005);
  CHECK_NEAR(xp_nccl_algbw(917504, 12.48), 73.52, 0.001);
  CHECK_NEAR(xp_nccl_algbw(268435456, 887.11), 302.59, 0.001);
  CHECK_NEAR(xp_nccl_algbw(1048576, 22.30), 47.02, 0.001);
}

static void test_names(void) {
  CHECK_EQ_INT(xp_nccl_coll_parse("all_reduce"), XP_COLL_ALLREDUCE);
  CHECK_EQ_INT(xp_nccl_coll_parse("reducescatter"), XP_COLL_REDUCESCATTER);
  CHECK_EQ_INT(xp_nccl_coll_parse("sendrecv"), -1);
  CHECK_EQ_INT(xp_nccl_dtype_parse("bfloat16"), XP_DT_BF16);
  CHECK_EQ_INT(xp_nccl_dtype_parse("half"), XP_DT_FP16);
  CHECK_EQ_INT(xp_nccl_dtype_parse("f8e5m2"), XP_DT_FP8_E5M2);
  CHECK_EQ_INT(xp_nccl_dtype_parse("int32"), -1);
  CHECK_EQ_STR(xp_nccl_coll_func(XP_COLL_ALLGATHER), "AllGather");
}

static void test_plan_load(void) {
  xp_spec *s = spec("{\"kind\":\"nccl_burst\",\"sizes\":[14336,\"1M\",64],"
                    "\"size_range\":{\"min\":8,\"max\":\"64\",\"factor\":2},\"burst\":122,"
                    "\"modes\":[\"eager\",\"graph\"],\"collectives\":[\"allreduce\",\"allgather\"],"
                    "\"env\":{\"NCCL_P2P_DISABLE\":\"1\",\"NCCL_BUFFSIZE\":4194304},\"gpus\":[0,1]}");
  xp_nccl_plan p;
  CHECK(s != NULL);
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  CHECK_EQ_INT(p.nsizes, 6); /* 8 16 32 64 14336 1048576: 64, listed and in the range, once */
  CHECK_EQ_INT(p.sizes[0], 8);
  CHECK_EQ_INT(p.sizes[4], 14336);
  CHECK_EQ_INT(p.sizes[5], 1048576);
  CHECK_EQ_INT(p.burst, 122);
  CHECK_EQ_INT(p.nmode, 2);
  CHECK_EQ_INT(p.ncoll, 2);
  CHECK_EQ_INT(p.ndtype, 1);
  CHECK_EQ_INT(p.dtype[0], XP_DT_BF16);
  CHECK_EQ_INT(p.iterations, 20);
  CHECK_EQ_INT(p.warmup, 5);
  CHECK_EQ_INT(p.verify, 1);
  CHECK_EQ_INT(p.ngpus, 2);
  CHECK(p.rendezvous == NULL || getenv("XP_RENDEZVOUS"));
  char v[64];
  CHECK_EQ_INT(xp_nccl_env_value(cJSON_GetObjectItem(p.env, "NCCL_BUFFSIZE"), v, sizeof v), 0);
  CHECK_EQ_STR(v, "4194304");
  CHECK_EQ_INT(xp_nccl_plan_check_ranks(s, &p, 2), 0);
  xp_error_quiet(1);
  /* 8 bytes of bf16 cannot be all-gathered over 8 ranks */
  CHECK_EQ_INT(xp_nccl_plan_check_ranks(s, &p, 8), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "size_range") != NULL);
  xp_error_quiet(0);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
}

/* Each spec must fail validation with exit 2, naming the key. */
static void expect_bad(const char *json, const char *key) {
  xp_spec *s = spec(json);
  CHECK(s != NULL);
  if (!s) return;
  xp_error_quiet(1);
  int rc = xp_nccl_burst_check(s);
  xp_error_quiet(0);
  CHECK_EQ_INT(rc, XP_EXIT_USAGE);
  if (!strstr(xp_last_error(), key)) {
    fprintf(stderr, "error \"%s\" does not name %s\n", xp_last_error(), key);
    check_failures++;
  }
  xp_spec_free(s);
}

static void test_bad_specs(void) {
  expect_bad("{\"kind\":\"nccl_burst\"}", "sizes");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[0]}", "sizes[0]");
  /* a size in text reads up to int64's end; held to size_range's 8 PB, with its message */
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[8,\"8589934591G\"]}",
             "sizes[1]: expected a size from one byte to 8 PB");
  expect_bad("{\"kind\":\"nccl_burst\",\"size_range\":{\"min\":64,\"max\":8}}", "size_range");
  expect_bad("{\"kind\":\"nccl_burst\",\"size_range\":{\"min\":8}}", "size_range");
  expect_bad("{\"kind\":\"nccl_burst\",\"size_range\":{\"min\":8,\"max\":64,\"factor\":1}}", "size_range.factor");
  expect_bad("{\"kind\":\"nccl_burst\",\"size_range\":{\"min\":8,\"max\":64,\"step\":8}}", "size_range.step");
  expect_bad("{\"kind\":\"nccl_burst\",\"size_range\":{\"min\":\"lots\",\"max\":64}}", "size_range.min");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"env\":{\"nccl-x\":1}}", "env.nccl-x");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"env\":{\"NCCL_DEBUG_FILE\":\"/x\"}}", "env.NCCL_DEBUG_FILE");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"env\":{\"NCCL_NET_PLUGIN\":\"x.so\"}}", "env.NCCL_NET_PLUGIN");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"env\":{\"LD_PRELOAD\":\"x.so\"}}", "env.LD_PRELOAD");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"env\":{\"CUDA_INJECTION64_PATH\":\"x\"}}",
             "env.CUDA_INJECTION64_PATH");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[1024],\"gpus\":[0,0]}", "gpus[1]");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[12],\"dtypes\":[\"fp32\"],\"collectives\":[\"allgather\"],"
             "\"gpus\":[0,1]}", "sizes[0]");
  expect_bad("{\"kind\":\"nccl_burst\",\"sizes\":[64],\"collectives\":[\"broadcast\"],\"root\":2,\"gpus\":[0,1]}",
             "root");
}

/* A launcher's local rank whose device is not there: exit 4 at the key that chose it, gpus[i],
** or without gpus the rendezvous that gave each local rank the device of its number (it said
** "local rank 2 needs device 2, ..." with neither key nor line). */
static void test_launch_device(void) {
  xp_nccl_launch l = {.rank = 2, .size = 4, .local_rank = 2};
  xp_nccl_plan p;
  int dev = -1;
  xp_spec *s = spec("{\"kind\": \"nccl_burst\", \"sizes\": [1024],\n \"rendezvous\": \"/tmp/rdv\"}");
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  CHECK_EQ_INT(xp_nccl_launch_device(s, &p, &l, 4, &dev), 0);
  CHECK_EQ_INT(dev, 2);
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_nccl_launch_device(s, &p, &l, 1, &dev), XP_EXIT_ENV);
  CHECK_EQ_STR(xp_last_error(), "t.json:2: rendezvous: local rank 2 drives device 2 (without gpus, each local "
                                "rank the device of its number), but 1 GPU is visible: list the devices in gpus, "
                                "one a local rank");
  CHECK_EQ_INT(xp_nccl_launch_device(s, &p, &l, -1, &dev), 0); /* a plan's: no GPU asked */
  xp_error_quiet(0);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
  s = spec("{\"kind\": \"nccl_burst\", \"sizes\": [1024], \"rendezvous\": \"/tmp/rdv\",\n \"gpus\": [3, 0, 5]}");
  CHECK_EQ_INT(xp_nccl_plan_load(s, &p), 0);
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_nccl_launch_device(s, &p, &l, 4, &dev), XP_EXIT_ENV);
  CHECK_EQ_STR(xp_last_error(), "t.json:2: gpus[2]: device 5 does not exist (4 GPUs visible)");
  l.local_rank = 3;
  CHECK_EQ_INT(xp_nccl_launch_device(s, &p, &l, 8, &dev), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "gpus: local rank 3 has no device: 3 listed") != NULL);
  xp_error_quiet(0);
  xp_nccl_plan_free(&p);
  xp_spec_free(s);
}

int main(void) {
  test_size_range();
  test_counts();
  test_bandwidth();
  test_names();
  test_plan_load();
  test_bad_specs();
  test_launch_device();
  CHECK_DONE();
}
