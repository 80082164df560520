/*
** kernel_variant's rotation past L2, without a GPU: how many copies of a GEMM's and of an MoE
** layer's weights the runner makes, how many launches a graph holds, which copy and routing
** each launch reads, what fits in device memory, and where the read floor reads. The
** property that matters is checked by replaying the schedule: between two launches that
** read the same bytes (same copy, same routing) the others read at least the rotation.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "runners/kernel_variant.h"

#define MIB (1 << 20)

static xp_kv_problem moe_shape(int hidden, int inter, int experts, int topk, int group) {
  xp_kv_problem p = {0};
  p.shape = "moe", p.moe = 1, p.hidden = hidden, p.inter = inter, p.experts = experts, p.topk = topk;
  p.m = 1, p.group = group;
  return p;
}

/* One expert of Kimi-K2.5 at TP=8 (hidden 7168, inter 256), by hand: W13 512 x 7168 and W2
** 7168 x 256 at half a byte each, a bf16 scale per 128 (or 32) of K. */
static void test_layer_bytes(void) {
  xp_kv_problem p = moe_shape(7168, 256, 384, 8, 128);
  const double w = 512.0 * 7168 / 2 + 7168.0 * 256 / 2;
  CHECK_NEAR(xp_kv_w4a16_layer_bytes(&p, 0), 384 * (w + (512.0 * 56 + 7168.0 * 2) * 2), 1e-12);
  CHECK_NEAR(xp_kv_w4a16_layer_bytes(&p, 1), 384 * w * 4, 1e-12); /* bf16: 2 bytes, not 1/2 */
  p.group = 32;
  CHECK_NEAR(xp_kv_w4a16_layer_bytes(&p, 0), 384 * (w + (512.0 * 224 + 7168.0 * 8) * 2), 1e-12);
  CHECK(xp_kv_w4a16_layer_bytes(&p, 0) > 1e9); /* "1 GB of INT4" */
}

static void test_gemm_copies(void) {
  CHECK_EQ_INT(xp_kv_gemm_copies(125 * MIB, 200.0 * MIB), 2); /* larger than the rotation: still 2 */
  CHECK_EQ_INT(xp_kv_gemm_copies(125 * MIB, 10.0 * MIB), 13);
  CHECK_EQ_INT(xp_kv_gemm_copies(125 * MIB, 1024), 4096);
}

/* Replays `replays` graphs of the schedule (launch rep: routing rep % R, copy rep % C) and
** checks that each launch re-reading a (routing, copy) pair comes after launches reading at
** least `rot` bytes, each reading min_launch bytes. Returns the fewest bytes seen between. */
static double replay(int copies, int routings, double min_launch, int replays) {
  const int n = xp_kv_moe_launches(copies, routings);
  double fewest = -1;
  int *last = malloc(sizeof *last * (size_t)copies * (size_t)routings);
  for (int i = 0; i < copies * routings; i++) last[i] = -1;
  for (int g = 0, t = 0; g < replays; g++)
    for (int rep = 0; rep < n; rep++, t++) {
      int pair = (rep % copies) * routings + rep % routings;
      if (last[pair] >= 0) {
        double between = (double)(t - last[pair] - 1) * min_launch;
        if (fewest < 0 || between < fewest) fewest = between;
      }
      last[pair] = t;
    }
  free(last);
  return fewest;
}

/* Consecutive launches, the last of one replay and the first of the next among them, read
** different copies whenever there are two or more. */
static int neighbours_differ(int copies, int routings) {
  const int n = xp_kv_moe_launches(copies, routings);
  for (int t = 0; t < 3 * n; t++)
    if (copies > 1 && (t % n) % copies == ((t + 1) % n) % copies) return 0;
  return 1;
}

static void test_moe_copies(void) {
  const int64_t rot = 125 * MIB;
  /* Kimi-K2.5's layer (1 GB) spans the rotation alone; 64 routings of 8 experts keep a
  ** routing's reads apart: one copy, a graph of 64 launches, as before. */
  xp_kv_problem k = moe_shape(7168, 256, 384, 8, 128);
  double L = xp_kv_w4a16_layer_bytes(&k, 0), A = 8 * L / 384;
  CHECK_EQ_INT(xp_kv_moe_copies(rot, L, A, 64), 1);
  CHECK_EQ_INT(xp_kv_moe_launches(1, 64), 64);
  /* ... but with one routing every launch would read the same 22 MiB: copies are needed. */
  int c = xp_kv_moe_copies(rot, L, A, 1);
  CHECK(c >= 2);
  CHECK(replay(c, 1, A, 3) >= (double)rot);

  /* A small layer (8 experts of hidden 2048, 6 MiB): copies span the rotation, a graph
  ** holds a multiple of both counts, and no launch re-reads warm bytes. */
  xp_kv_problem sm = moe_shape(2048, 256, 8, 2, 128);
  L = xp_kv_w4a16_layer_bytes(&sm, 0), A = 2 * L / 8;
  for (int R = 1; R <= 80; R++) {
    c = xp_kv_moe_copies(rot, L, A, R);
    int n = xp_kv_moe_launches(c, R);
    CHECK(c >= 2);
    CHECK(c * L >= (double)rot);
    CHECK(R % c == 0 || c % R == 0);
    CHECK_EQ_INT(n, c > R ? c : R);
    CHECK(neighbours_differ(c, R));
    CHECK(replay(c, R, A, 3) >= (double)rot);
  }
  /* 16 routings: 21 copies span 125 MiB (32, a multiple of 16), but then routing r meets
  ** copy c again after 31 launches of 2 experts (1.5 MiB each): 48 MiB; 96 copies are 95
  ** launches (147 MiB) apart. */
  CHECK_EQ_INT(xp_kv_moe_copies(rot, L, A, 16), 96);
  /* 128 routings (127 launches of 1.5 MiB are enough): 21 rounded up to a divisor of 128. */
  CHECK_EQ_INT(xp_kv_moe_copies(rot, L, A, 128), 32);
  CHECK_EQ_INT(xp_kv_moe_launches(32, 128), 128);

  /* tests/gpu/w4a16_moe_rotation.sh's spec: rotate_mib 64, 16 routings. */
  const int64_t r64 = 64 * MIB;
  CHECK_EQ_INT(xp_kv_moe_copies(r64, L, A, 16), 48);
  double Lb = xp_kv_w4a16_layer_bytes(&sm, 1);
  CHECK_EQ_INT(xp_kv_moe_copies(r64, Lb, 2 * Lb / 8, 16), 4);
  xp_kv_problem lg = moe_shape(7168, 256, 64, 8, 128);
  double Ll = xp_kv_w4a16_layer_bytes(&lg, 0), Llb = xp_kv_w4a16_layer_bytes(&lg, 1);
  CHECK_EQ_INT(xp_kv_moe_copies(r64, Ll, 8 * Ll / 64, 16), 1);
  CHECK_EQ_INT(xp_kv_moe_copies(r64, Llb, 8 * Llb / 64, 16), 1);

  /* Sweep: layers from 1 MiB to 2 GiB, a launch reading 1/64 to all of it, 1 to 70 routings. */
  for (double lb = MIB; lb <= 2048.0 * MIB; lb *= 2.7)
    for (double f = 1.0 / 64; f <= 1; f *= 4)
      for (int R = 1; R <= 70; R += 3) {
        c = xp_kv_moe_copies(rot, lb, lb * f, R);
        CHECK(c >= 1 && c <= 4096 + R);
        CHECK(R % c == 0 || c % R == 0);
        CHECK(c == 1 || neighbours_differ(c, R));
        CHECK(c * lb >= (double)rot || c >= 4096);
        if (c < 4096) CHECK(replay(c, R, lb * f, 2) >= (double)rot);
        if (c == 1) CHECK(lb >= (double)rot);
      }
}

static void test_moe_fit(void) {
  CHECK_EQ_INT(xp_kv_moe_fit(48, 16, 10.0 * MIB, 1e12), 48); /* fits */
  CHECK_EQ_INT(xp_kv_moe_fit(48, 16, 10.0 * MIB, 400.0 * MIB), 32); /* 40 fit; 32 is a multiple of 16 */
  CHECK_EQ_INT(xp_kv_moe_fit(48, 16, 10.0 * MIB, 100.0 * MIB), 8);  /* 10 fit; 8 divides 16 */
  CHECK_EQ_INT(xp_kv_moe_fit(48, 16, 10.0 * MIB, 15.0 * MIB), 1);   /* one copy, the least */
  CHECK_EQ_INT(xp_kv_moe_fit(48, 16, 10.0 * MIB, -5.0), 1);
  CHECK_EQ_INT(xp_kv_moe_fit(1, 16, 10.0 * MIB, 0), 1);
  CHECK_EQ_INT(xp_kv_moe_fit(6, 7, 10.0 * MIB, 55.0 * MIB), 1); /* 5 fit, but only 1 and 7 suit 7 */
  for (int R = 1; R <= 40; R++)
    for (int avail = 0; avail <= 100; avail += 7) {
      int n = xp_kv_moe_fit(64, R, 1.0, avail);
      CHECK(n >= 1 && n <= 64);
      CHECK(n == 1 || n <= avail);
      CHECK(R % n == 0 || n % R == 0);
    }
}

static void test_reads(void) {
  xp_kv_reads r;
  /* GEMM: one block of 5 copies of 1000 bytes, read 992 at a time at places 1024 apart. */
  CHECK_EQ_INT(xp_kv_reads_plan(&r, 1000, 5000, 0, 1, 5), 0);
  CHECK_EQ_INT(r.bytes, 992);
  CHECK_EQ_INT(r.stride, 1024);
  CHECK_EQ_INT(r.copies * r.places, 4); /* the fifth place would run past the block */
  CHECK_EQ_INT(xp_kv_reads_offset(&r, 3), 3072);
  CHECK_EQ_INT(xp_kv_reads_offset(&r, 4), 0);
  CHECK(xp_kv_reads_plan(&r, 8, 5000, 0, 1, 5) != 0);    /* nothing to read */
  CHECK(xp_kv_reads_plan(&r, 6000, 5000, 0, 1, 5) != 0); /* more than a copy */

  /* MoE: 6 copies of a 1 MiB + 48 layer, 256-aligned apart; 300 KiB per launch, 12 launches
  ** per graph: each launch reads inside its own copy, the one the kernel's launch reads. */
  const size_t L = MIB + 48, stride = (L + 255) / 256 * 256;
  CHECK_EQ_INT(xp_kv_reads_plan(&r, 300.0 * 1024, L, stride, 6, 12 / 6), 0);
  CHECK_EQ_INT(r.copies, 6);
  CHECK_EQ_INT(r.places, 2);
  for (int rep = 0; rep < 36; rep++) {
    size_t off = xp_kv_reads_offset(&r, rep), copy = off / stride;
    CHECK_EQ_INT(copy, rep % 6);
    CHECK(off + r.bytes <= copy * stride + L);
  }
  /* One copy (Kimi): places in turn through the block, as many as the routings. */
  CHECK_EQ_INT(xp_kv_reads_plan(&r, 22.0 * MIB, 1040.0 * MIB, 1040u * MIB, 1, 64), 0);
  CHECK_EQ_INT(r.places, 47); /* (1040 - 22) / 22 + 1 */
}

int main(void) {
  test_layer_bytes();
  test_gemm_copies();
  test_moe_copies();
  test_moe_fit();
  test_reads();
  CHECK_DONE();
}
