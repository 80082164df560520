/* Model files and decode-step GEMM shapes: the shipped models at the splits engineers
** run, the anchors' shapes (../shared/anchors.md), the routing arithmetic, and bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "models.h"
#include "xp.h"

static char dir[64];

/* A model file of this text in the test's folder; its path (caller frees). */
static char *model_file(const char *name, const char *text) {
  char *path = xp_asprintf("%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) fputs(text, f), fclose(f);
  return path;
}

static xp_model *load(const char *name) {
  const char *src = getenv("XP_SRC");
  char *path = xp_asprintf("%s/experiments/models/%s.toml", src, name);
  xp_model *m = NULL;
  int rc = xp_model_load(path, &m);
  if (rc) fprintf(stderr, "loading %s: %s\n", path, xp_last_error());
  CHECK_EQ_INT(rc, 0);
  free(path);
  return m;
}

/* Decode GEMMs of m at this split and batch (caller frees). */
static xp_gemm_shape *derive(const xp_model *m, int tp, int ep, int absorbed, int64_t batch,
                             size_t *n) {
  xp_parallel p = {.tp = tp, .ep = ep, .mla_absorbed = absorbed};
  char err[256];
  xp_gemm_shape *v = NULL;
  *n = 0;
  CHECK_EQ_INT(xp_model_check_parallel(m, &p, err, sizeof err), 0);
  CHECK_EQ_INT(xp_model_decode_gemms(m, &p, batch, &v, n), 0);
  return v;
}

static const xp_gemm_shape *find(const xp_gemm_shape *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) return &v[i];
  return NULL;
}

/* The entry of that name with m rows (expert GEMMs have two: q and q + 1 rows), else the first. */
static const xp_gemm_shape *find_m(const xp_gemm_shape *v, size_t n, const char *name, int64_t m) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0 && v[i].m == m) return &v[i];
  return find(v, n, name);
}

/* Rows of a GEMM summed over its entries, per layer: the routed rows one GPU receives. */
static int64_t rows_per_layer(const xp_gemm_shape *v, size_t n, const char *name, int64_t layers) {
  int64_t rows = 0;
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) rows += v[i].m * v[i].count;
  return rows / layers;
}

static void expect(const xp_gemm_shape *v, size_t n, const char *name, int64_t m, int64_t N,
                   int64_t K, int64_t bmm, int64_t count) {
  const xp_gemm_shape *s = find_m(v, n, name, m);
  if (!s) fprintf(stderr, "no GEMM named %s\n", name);
  CHECK(s != NULL);
  if (!s) return;
  if (s->m != m || s->n != N || s->k != K || s->bmm != bmm || s->count != count)
    fprintf(stderr, "%s: got m=%lld n=%lld k=%lld bmm=%lld count=%lld\n", name, (long long)s->m,
            (long long)s->n, (long long)s->k, (long long)s->bmm, (long long)s->count);
  CHECK_EQ_INT(s->m, m);
  CHECK_EQ_INT(s->n, N);
  CHECK_EQ_INT(s->k, K);
  CHECK_EQ_INT(s->bmm, bmm);
  CHECK_EQ_INT(s->count, count);
}

static void test_kimi(void) {
  xp_model *m = load("Kimi-K2.5");
  if (!m) return;
  CHECK_EQ_STR(m->name, "Kimi-K2.5");
  CHECK_EQ_INT(xp_model_moe_layers(m), 60);
  size_t n;
  xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
  /* The cuBLAS-from-C anchors' shapes (N x K) come out of the derivation. */
  expect(v, n, "moe_gate_up", 1, 512, 7168, 1, 60 * 8);
  expect(v, n, "moe_down", 1, 7168, 256, 1, 60 * 8);
  expect(v, n, "dense_gate_up", 1, 4608, 7168, 1, 1);
  expect(v, n, "dense_down", 1, 7168, 2304, 1, 1);
  expect(v, n, "o_proj", 1, 7168, 1024, 1, 61);
  /* MLA: latent projections replicated, per-head ones split 64/8 = 8 heads. */
  expect(v, n, "q_a_proj", 1, 1536, 7168, 1, 61);
  expect(v, n, "q_b_proj", 1, 8 * 192, 1536, 1, 61);
  expect(v, n, "kv_a_proj", 1, 576, 7168, 1, 61);
  expect(v, n, "kv_b_proj_k", 1, 512, 128, 8, 61);
  expect(v, n, "kv_b_proj_v", 1, 128, 512, 8, 61);
  expect(v, n, "moe_router", 1, 384, 7168, 1, 60);
  expect(v, n, "shared_expert_gate_up", 1, 512, 7168, 1, 60);
  expect(v, n, "shared_expert_down", 1, 7168, 256, 1, 60);
  expect(v, n, "lm_head", 1, 20480, 7168, 1, 1);
  CHECK_EQ_INT(n, 14);
  CHECK(find(v, n, "kv_b_proj") == NULL);
  for (size_t i = 0; i < n; i++) CHECK_EQ_INT(v[i].batch, 1);
  free(v);

  /* Batch 16: 16 tokens x 8 picks of 384 experts activate 384*(1-(376/384)^16) = 109.82
  ** experts on average, 110 launches; their rows add up to the 128 routed: 18 of 2, 92 of 1. */
  double act = 384.0 * (1.0 - pow(376.0 / 384.0, 16));
  CHECK_NEAR(xp_moe_expected_active(384, 8, 16), act, 1e-12);
  CHECK(act > 109.8 && act < 109.9);
  v = derive(m, 8, 1, 1, 16, &n);
  expect(v, n, "moe_gate_up", 2, 512, 7168, 1, 60 * 18);
  expect(v, n, "moe_gate_up", 1, 512, 7168, 1, 60 * 92);
  expect(v, n, "moe_down", 2, 7168, 256, 1, 60 * 18);
  expect(v, n, "moe_down", 1, 7168, 256, 1, 60 * 92);
  CHECK_EQ_INT(rows_per_layer(v, n, "moe_gate_up", 60), 128);
  CHECK_EQ_INT(rows_per_layer(v, n, "moe_down", 60), 128);
  expect(v, n, "o_proj", 16, 7168, 1024, 1, 61);
  free(v);
  /* 256 tokens: nearly every expert is hit; 2048 rows over 382 launches: 138 of 6, 244 of 5. */
  v = derive(m, 8, 1, 1, 256, &n);
  expect(v, n, "moe_gate_up", 6, 512, 7168, 1, 60 * 138);
  expect(v, n, "moe_gate_up", 5, 512, 7168, 1, 60 * 244);
  CHECK_EQ_INT(rows_per_layer(v, n, "moe_gate_up", 60), 2048);
  free(v);

  /* EP=8 inside TP=8: whole experts, 48 per GPU; at batch 1 one of the 8 picks per GPU. */
  v = derive(m, 8, 8, 1, 1, &n);
  expect(v, n, "moe_gate_up", 1, 4096, 7168, 1, 60);
  expect(v, n, "moe_down", 1, 7168, 2048, 1, 60);
  expect(v, n, "shared_expert_gate_up", 1, 512, 7168, 1, 60); /* shared expert stays TP */
  free(v);
  /* EP=2 inside TP=8: experts split 4 ways, 192 per GPU; half the 128 rows, on 55 experts. */
  v = derive(m, 8, 2, 1, 16, &n);
  expect(v, n, "moe_gate_up", 2, 1024, 7168, 1, 60 * 9);
  expect(v, n, "moe_gate_up", 1, 1024, 7168, 1, 60 * 46);
  CHECK_EQ_INT(rows_per_layer(v, n, "moe_gate_up", 60), 64);
  free(v);

  /* Under one routed row a layer: TP=EP=64, batch 1: 8 rows over 64 GPUs, 0.125 a layer. The
  ** step's mean is 60 x 0.125 = 7.5 launches of one row (8), where rounding each layer up to one
  ** launch counted 60. */
  v = derive(m, 64, 64, 1, 1, &n);
  expect(v, n, "moe_gate_up", 1, 2 * 2048, 7168, 1, 8);
  expect(v, n, "moe_down", 1, 7168, 2048, 1, 8);
  free(v);

  /* Naive MLA: kv_b_proj as one GEMM over the step's tokens. */
  v = derive(m, 8, 1, 0, 1, &n);
  expect(v, n, "kv_b_proj", 1, 8 * 256, 512, 1, 61);
  CHECK(find(v, n, "kv_b_proj_k") == NULL);
  free(v);

  /* Splits the model cannot take. */
  char err[256];
  xp_parallel bad = {.tp = 3, .ep = 1, .mla_absorbed = 1};
  CHECK_EQ_INT(xp_model_check_parallel(m, &bad, err, sizeof err), XP_EXIT_USAGE);
  CHECK(strstr(err, "64 attention heads do not split over tp=3") != NULL);
  bad = (xp_parallel){.tp = 8, .ep = 3, .mla_absorbed = 1};
  CHECK_EQ_INT(xp_model_check_parallel(m, &bad, err, sizeof err), XP_EXIT_USAGE);
  CHECK(strstr(err, "ep=3 must divide tp=8") != NULL);
  bad = (xp_parallel){.tp = 128, .ep = 1, .mla_absorbed = 1};
  CHECK_EQ_INT(xp_model_check_parallel(m, &bad, err, sizeof err), XP_EXIT_USAGE);
  v = NULL;
  n = 0;
  xp_error_quiet(1);
  xp_parallel ok = {.tp = 8, .ep = 1, .mla_absorbed = 1};
  CHECK_EQ_INT(xp_model_decode_gemms(m, &ok, 0, &v, &n), XP_EXIT_USAGE);
  xp_error_quiet(0);
  CHECK_EQ_INT(n, 0);
  xp_model_free(m);
}

static void test_deepseek_glm_llama(void) {
  size_t n;
  xp_model *m = load("DeepSeek-V3");
  if (m) {
    CHECK_EQ_INT(xp_model_moe_layers(m), 58);
    xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
    expect(v, n, "q_b_proj", 1, 16 * 192, 1536, 1, 61);
    expect(v, n, "kv_b_proj_k", 1, 512, 128, 16, 61);
    expect(v, n, "o_proj", 1, 7168, 2048, 1, 61);
    expect(v, n, "dense_gate_up", 1, 4608, 7168, 1, 3);
    expect(v, n, "moe_gate_up", 1, 512, 7168, 1, 58 * 8);
    expect(v, n, "moe_router", 1, 256, 7168, 1, 58);
    expect(v, n, "lm_head", 1, 16160, 7168, 1, 1);
    free(v);
    xp_model_free(m);
  }
  m = load("GLM-4.5");
  if (m) {
    CHECK_EQ_INT(xp_model_moe_layers(m), 89);
    xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
    expect(v, n, "qkv_proj", 1, (12 + 2) * 128, 5120, 1, 92); /* 8 KV heads: one per GPU */
    expect(v, n, "o_proj", 1, 5120, 1536, 1, 92);
    expect(v, n, "dense_gate_up", 1, 2 * 12288 / 8, 5120, 1, 3);
    expect(v, n, "moe_gate_up", 1, 2 * 1536 / 8, 5120, 1, 89 * 8);
    expect(v, n, "moe_down", 1, 5120, 192, 1, 89 * 8);
    expect(v, n, "lm_head", 1, 18944, 5120, 1, 1);
    CHECK(find(v, n, "q_a_proj") == NULL);
    free(v);
    xp_model_free(m);
  }
  m = load("Llama-3.1-70B");
  if (m) {
    CHECK_EQ_INT(xp_model_moe_layers(m), 0);
    xp_gemm_shape *v = derive(m, 8, 1, 1, 4, &n);
    expect(v, n, "qkv_proj", 4, (8 + 2) * 128, 8192, 1, 80);
    expect(v, n, "o_proj", 4, 8192, 1024, 1, 80);
    expect(v, n, "dense_gate_up", 4, 7168, 8192, 1, 80);
    expect(v, n, "dense_down", 4, 8192, 3584, 1, 80);
    expect(v, n, "lm_head", 4, 16032, 8192, 1, 1);
    CHECK_EQ_INT(n, 5);
    free(v);
    /* TP=16 with 8 KV heads: each GPU keeps a replica of one KV head. */
    v = derive(m, 16, 1, 1, 1, &n);
    expect(v, n, "qkv_proj", 1, (4 + 2) * 128, 8192, 1, 80);
    free(v);
    char err[256];
    xp_parallel ep2 = {.tp = 8, .ep = 2, .mla_absorbed = 1};
    CHECK_EQ_INT(xp_model_check_parallel(m, &ep2, err, sizeof err), XP_EXIT_USAGE);
    CHECK(strstr(err, "has no experts") != NULL);
    xp_model_free(m);
  }
}

/* GLM-5: MLA (192 + 64 query dims, 256-wide values) with DSA's lightning indexer in every layer,
** whose three GEMMs are replicated (vLLM's and SGLang's Indexer: ReplicatedLinear wq_b, wk,
** weights_proj). Without them a step lost 1.47 GB of weight reads a GPU at bf16, 10%. */
static void test_glm5(void) {
  size_t n;
  xp_model *m = load("GLM-5");
  if (!m) return;
  CHECK_EQ_INT(xp_model_moe_layers(m), 75);
  xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
  expect(v, n, "q_a_proj", 1, 2048, 6144, 1, 78);
  expect(v, n, "q_b_proj", 1, 8 * 256, 2048, 1, 78);
  expect(v, n, "kv_a_proj", 1, 512 + 64, 6144, 1, 78);
  expect(v, n, "indexer_wq_b", 1, 32 * 128, 2048, 1, 78);
  expect(v, n, "indexer_wk", 1, 128, 6144, 1, 78);
  expect(v, n, "indexer_weights_proj", 1, 32, 6144, 1, 78);
  expect(v, n, "kv_b_proj_k", 1, 512, 192, 8, 78);
  expect(v, n, "kv_b_proj_v", 1, 256, 512, 8, 78);
  expect(v, n, "o_proj", 1, 6144, 8 * 256, 1, 78);
  expect(v, n, "dense_gate_up", 1, 2 * 12288 / 8, 6144, 1, 3);
  expect(v, n, "dense_down", 1, 6144, 12288 / 8, 1, 3);
  expect(v, n, "moe_router", 1, 256, 6144, 1, 75);
  expect(v, n, "moe_gate_up", 1, 2 * 2048 / 8, 6144, 1, 75 * 8);
  expect(v, n, "moe_down", 1, 6144, 2048 / 8, 1, 75 * 8);
  expect(v, n, "shared_expert_gate_up", 1, 2 * 2048 / 8, 6144, 1, 75);
  expect(v, n, "lm_head", 1, 154880 / 8, 6144, 1, 1);
  CHECK_EQ_INT(n, 17);
  free(v);
  /* The indexer does not shard: the same at TP=4. */
  v = derive(m, 4, 1, 1, 1, &n);
  expect(v, n, "indexer_wq_b", 1, 32 * 128, 2048, 1, 78);
  expect(v, n, "q_b_proj", 1, 16 * 256, 2048, 1, 78);
  free(v);
  xp_model_free(m);
  /* Models without the indexer keys derive none. */
  m = load("DeepSeek-V3");
  if (m) {
    v = derive(m, 8, 1, 1, 1, &n);
    CHECK(find(v, n, "indexer_wq_b") == NULL);
    free(v);
    xp_model_free(m);
  }
}

/* DeepSeek-V4-Flash, by hand from its config: hidden 4096, 43 layers, 64 heads of head_dim 512,
** q_lora_rank 1024, one KV head, o_lora_rank 1024 in o_groups 8 (8 heads a group), compress
** ratios 0, 0, then 4 and 128 alternating up to layer 42 (21 layers of 4, 20 of 128), indexer
** 64 heads x 128, hc_mult 4, 256 experts top-6 of 2048, one shared expert, vocabulary 129280. */
static void test_deepseek_v4(void) {
  size_t n;
  xp_model *m = load("DeepSeek-V4-Flash");
  if (!m) return;
  CHECK_EQ_INT(m->c4_layers, 21);
  CHECK_EQ_INT(m->c128_layers, 20);
  CHECK_EQ_INT(xp_model_moe_layers(m), 43); /* no dense layer */
  /* TP=1: one GPU holds every head and group. */
  xp_gemm_shape *v = derive(m, 1, 1, 1, 1, &n);
  expect(v, n, "hc_pre", 1, (2 + 4) * 4, 4 * 4096, 1, 2 * 43); /* before attention and MLP */
  expect(v, n, "wq_a", 1, 1024, 4096, 1, 43);
  expect(v, n, "wkv", 1, 512, 4096, 1, 43);
  expect(v, n, "wq_b", 1, 64 * 512, 1024, 1, 43);
  expect(v, n, "c4_compress_wkv", 1, 2 * 512, 4096, 1, 21); /* overlapping windows */
  expect(v, n, "c4_compress_wgate", 1, 2 * 512, 4096, 1, 21);
  expect(v, n, "c128_compress_wkv", 1, 512, 4096, 1, 20);
  expect(v, n, "c128_compress_wgate", 1, 512, 4096, 1, 20);
  expect(v, n, "indexer_wq_b", 1, 64 * 128, 1024, 1, 21);
  expect(v, n, "indexer_weights_proj", 1, 64, 4096, 1, 21);
  expect(v, n, "indexer_compress_wkv", 1, 2 * 128, 4096, 1, 21);
  expect(v, n, "indexer_compress_wgate", 1, 2 * 128, 4096, 1, 21);
  expect(v, n, "wo_a", 1, 1024, 64 / 8 * 512, 8, 43); /* 8 groups of 8 heads x 512 */
  expect(v, n, "wo_b", 1, 4096, 8 * 1024, 1, 43);
  expect(v, n, "moe_router", 1, 256, 4096, 1, 43);
  expect(v, n, "moe_gate_up", 1, 2 * 2048, 4096, 1, 43 * 6); /* 6 experts a token */
  expect(v, n, "moe_down", 1, 4096, 2048, 1, 43 * 6);
  expect(v, n, "shared_expert_gate_up", 1, 2 * 2048, 4096, 1, 43);
  expect(v, n, "shared_expert_down", 1, 4096, 2048, 1, 43);
  expect(v, n, "hc_head", 1, 4, 4 * 4096, 1, 1);
  expect(v, n, "lm_head", 1, 129280, 4096, 1, 1);
  CHECK_EQ_INT(n, 21);
  /* no MLA and no GLM-5 indexer key projection */
  CHECK(find(v, n, "kv_a_proj") == NULL && find(v, n, "o_proj") == NULL);
  CHECK(find(v, n, "indexer_wk") == NULL);
  free(v);

  /* TP=8: 8 heads and 1 group a GPU; the latents, the KV head, compressors, indexer, router
  ** and hyper-connections are replicated; experts and the shared expert split 8 ways. */
  v = derive(m, 8, 1, 1, 1, &n);
  expect(v, n, "hc_pre", 1, 24, 16384, 1, 86);
  expect(v, n, "wq_a", 1, 1024, 4096, 1, 43);
  expect(v, n, "wkv", 1, 512, 4096, 1, 43);
  expect(v, n, "wq_b", 1, 64 / 8 * 512, 1024, 1, 43);
  expect(v, n, "c4_compress_wkv", 1, 1024, 4096, 1, 21);
  expect(v, n, "c128_compress_wgate", 1, 512, 4096, 1, 20);
  expect(v, n, "indexer_wq_b", 1, 8192, 1024, 1, 21);
  expect(v, n, "indexer_weights_proj", 1, 64, 4096, 1, 21);
  expect(v, n, "indexer_compress_wgate", 1, 256, 4096, 1, 21);
  expect(v, n, "wo_a", 1, 1024, 8 * 512, 8 / 8, 43);
  expect(v, n, "wo_b", 1, 4096, 8 / 8 * 1024, 1, 43);
  expect(v, n, "moe_router", 1, 256, 4096, 1, 43);
  expect(v, n, "moe_gate_up", 1, 2 * 2048 / 8, 4096, 1, 43 * 6);
  expect(v, n, "moe_down", 1, 4096, 2048 / 8, 1, 43 * 6);
  expect(v, n, "shared_expert_gate_up", 1, 2 * 2048 / 8, 4096, 1, 43);
  expect(v, n, "shared_expert_down", 1, 4096, 2048 / 8, 1, 43);
  expect(v, n, "hc_head", 1, 4, 16384, 1, 1);
  expect(v, n, "lm_head", 1, 129280 / 8, 4096, 1, 1);
  CHECK_EQ_INT(n, 21);
  free(v);
  /* TP=8 at batch 16: the per-token GEMMs take 16 rows; 16 x 6 = 96 routed rows land on
  ** 256*(1-(250/256)^16) = 80.84 experts, 81 launches: 15 of 2 rows and 66 of 1. */
  v = derive(m, 8, 1, 1, 16, &n);
  expect(v, n, "wo_a", 16, 1024, 4096, 1, 43);
  expect(v, n, "c4_compress_wkv", 16, 1024, 4096, 1, 21);
  expect(v, n, "moe_gate_up", 2, 512, 4096, 1, 43 * 15);
  expect(v, n, "moe_gate_up", 1, 512, 4096, 1, 43 * 66);
  CHECK_EQ_INT(rows_per_layer(v, n, "moe_gate_up", 43), 96);
  free(v);
  /* TP=4: 2 groups a GPU in wo_a's batched GEMM. */
  v = derive(m, 4, 1, 1, 1, &n);
  expect(v, n, "wo_a", 1, 1024, 4096, 2, 43);
  expect(v, n, "wo_b", 1, 4096, 2 * 1024, 1, 43);
  expect(v, n, "wq_b", 1, 16 * 512, 1024, 1, 43);
  free(v);

  /* 8 output groups cannot split over 16 GPUs, though 64 heads can. */
  char err[256];
  xp_parallel bad = {.tp = 16, .ep = 1, .mla_absorbed = 1};
  CHECK_EQ_INT(xp_model_check_parallel(m, &bad, err, sizeof err), XP_EXIT_USAGE);
  CHECK(strstr(err, "8 output groups (o_groups) do not split over tp=16") != NULL);
  xp_model_free(m);
}

/* CodeLlama-7b's vocabulary (config.json of huggingface.co/codellama/CodeLlama-7b-hf:
** vocab_size 32016, hidden_size 4096) is no multiple of 64: vLLM's ParallelLMHead pads it to
** 32064 (pad_vocab_size, DEFAULT_VOCAB_PADDING_SIZE 64) and gives each of 8 GPUs 4008 rows,
** where ceil(32016 / 8) = 4002 left the padded rows out. */
static void test_vocab_padding(void) {
  char *path = model_file("codellama.toml", "name = \"CodeLlama-7b\"\nsource = \"hf\"\nhidden_size = 4096\nnum_hidden_layers = 32\n"
        "num_attention_heads = 32\nnum_key_value_heads = 32\nvocab_size = 32016\n"
        "intermediate_size = 11008\n");
  xp_model *m = NULL;
  CHECK_EQ_INT(xp_model_load(path, &m), 0);
  if (m) {
    size_t n;
    xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
    expect(v, n, "lm_head", 1, 4008, 4096, 1, 1);
    free(v);
    v = derive(m, 1, 1, 1, 1, &n);
    expect(v, n, "lm_head", 1, 32064, 4096, 1, 1);
    free(v);
    xp_model_free(m);
  }
  free(path);
}

/* A model file with one problem: the error names the file, the line and the key. */
static void expect_bad_model(const char *text, const char *want) {
  char *path = model_file("bad.toml", text);
  xp_model *m = NULL;
  xp_error_quiet(1);
  int rc = xp_model_load(path, &m);
  xp_error_quiet(0);
  CHECK_EQ_INT(rc, XP_EXIT_USAGE);
  CHECK(m == NULL);
  if (!strstr(xp_last_error(), want) || !strstr(xp_last_error(), "bad.toml"))
    fprintf(stderr, "error \"%s\" lacks \"%s\"\n", xp_last_error(), want);
  CHECK(strstr(xp_last_error(), want) != NULL);
  free(path);
}

#define BASE "name = \"x\"\nsource = \"test\"\nhidden_size = 1024\nnum_hidden_layers = 4\n" \
             "num_attention_heads = 8\nvocab_size = 1000\n"

/* DeepSeek-V4's attention with one key wrong or missing. V4 is a valid small one: 4 layers,
** 8 heads of 64 in 2 output groups, ratios 0, 4, 128, 4, an indexer, MoE in every layer. */
#define V4_ATTN "head_dim = 64\nq_lora_rank = 128\nnum_key_value_heads = 1\no_lora_rank = 64\n" \
                "o_groups = 2\n"
#define V4_REST "compress_ratios = [0, 4, 128, 4]\nindex_n_heads = 4\nindex_head_dim = 32\n" \
                "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n"
static void test_bad_v4_models(void) {
  /* the valid one loads, and derives 2 compressed-by-4 and 1 compressed-by-128 layers */
  char *path = model_file("v4.toml", BASE V4_ATTN V4_REST);
  xp_model *m = NULL;
  CHECK_EQ_INT(xp_model_load(path, &m), 0);
  if (m) {
    CHECK_EQ_INT(m->c4_layers, 2);
    CHECK_EQ_INT(m->c128_layers, 1);
    size_t n;
    xp_gemm_shape *v = derive(m, 2, 1, 1, 1, &n);
    expect(v, n, "wo_a", 1, 64, 8 / 2 * 64, 1, 4);
    expect(v, n, "indexer_wq_b", 1, 4 * 32, 128, 1, 2);
    CHECK(find(v, n, "hc_pre") == NULL && find(v, n, "hc_head") == NULL); /* no hc_mult */
    free(v);
    xp_model_free(m);
  }
  free(path);
  expect_bad_model(BASE "head_dim = 64\nq_lora_rank = 128\nnum_key_value_heads = 1\no_lora_rank = 64\n" V4_REST,
                   "bad.toml:10: o_lora_rank: DeepSeek-V4's attention (o_lora_rank) needs o_groups, which is missing");
  expect_bad_model(BASE V4_ATTN "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n",
                   "o_lora_rank: DeepSeek-V4's attention (o_lora_rank) needs compress_ratios, which is missing");
  expect_bad_model(BASE "head_dim = 64\nq_lora_rank = 128\nnum_key_value_heads = 1\no_lora_rank = 64\n"
                   "o_groups = 3\n" V4_REST, "bad.toml:11: o_groups: 3 output groups do not divide 8 attention heads");
  expect_bad_model(BASE "head_dim = 64\nq_lora_rank = 128\nnum_key_value_heads = 8\no_lora_rank = 64\n"
                   "o_groups = 2\n" V4_REST, "bad.toml:9: num_key_value_heads: DeepSeek-V4's attention has one key-value head");
  expect_bad_model(BASE "head_dim = 64\nq_lora_rank = 0\nnum_key_value_heads = 1\no_lora_rank = 64\n"
                   "o_groups = 2\n" V4_REST, "bad.toml:8: q_lora_rank: DeepSeek-V4's queries come through a latent");
  expect_bad_model(BASE V4_ATTN "kv_lora_rank = 512\n" V4_REST,
                   "bad.toml:12: kv_lora_rank: kv_lora_rank with o_lora_rank");
  expect_bad_model(BASE V4_ATTN "v_head_dim = 64\n" V4_REST,
                   "bad.toml:12: v_head_dim: DeepSeek-V4's heads (o_lora_rank) are head_dim wide");
  expect_bad_model(BASE V4_ATTN "compress_ratios = [0, 4, 128]\nindex_n_heads = 4\nindex_head_dim = 32\n"
                   "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n",
                   "bad.toml:12: compress_ratios: 3 entries for 4 layers");
  expect_bad_model(BASE V4_ATTN "compress_ratios = [0, 4, 8, 4]\nindex_n_heads = 4\nindex_head_dim = 32\n"
                   "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n",
                   "bad.toml:12: compress_ratios[2]: compress ratio 8: xp derives 0");
  expect_bad_model(BASE V4_ATTN "compress_ratios = [0, 4, 128, 4]\n"
                   "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n",
                   "bad.toml:12: compress_ratios: 2 layers of compress ratio 4 run a DSA indexer each");
  expect_bad_model(BASE V4_ATTN "compress_ratios = [0, 128, 128, 0]\nindex_n_heads = 4\nindex_head_dim = 32\n"
                   "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n",
                   "bad.toml:13: index_n_heads: no layer has compress ratio 4");
  expect_bad_model(BASE V4_ATTN "compress_ratios = [0, 4, 128, 4]\nindex_n_heads = 4\n"
                   "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n",
                   "bad.toml:13: index_n_heads: a DSA indexer needs index_head_dim, which is missing");
  /* DeepSeek-V4 keys without o_lora_rank would be dropped in silence */
  expect_bad_model(BASE "intermediate_size = 64\no_groups = 8\n",
                   "bad.toml:8: o_groups: a DeepSeek-V4 attention key without o_lora_rank");
  expect_bad_model(BASE "intermediate_size = 64\ncompress_ratios = [0, 4, 128, 4]\n",
                   "bad.toml:8: compress_ratios: a DeepSeek-V4 attention key without o_lora_rank");
  expect_bad_model(BASE "intermediate_size = 64\nhc_mult = 0\n", "bad.toml:8: hc_mult: 0 is out of range");
}
#undef V4_ATTN
#undef V4_REST

static void test_bad_models(void) {
  expect_bad_model("name = \"x\"\nsource = \"t\"\nnum_hidden_layers = 4\nnum_attention_heads = 8\n"
                   "vocab_size = 1000\nintermediate_size = 64\n",
                   "hidden_size: required key is missing");
  expect_bad_model(BASE "intermediate_size = 64\nkv_lora_rank = 512\nqk_nope_head_dim = 128\n"
                   "qk_rope_head_dim = 64\n",
                   "bad.toml:8: kv_lora_rank: an MLA model (kv_lora_rank) needs v_head_dim");
  expect_bad_model(BASE "n_routed_experts = 64\nnum_experts_per_tok = 4\n",
                   "n_routed_experts: a MoE model (n_routed_experts) needs moe_intermediate_size");
  expect_bad_model(BASE "n_routed_experts = 4\nnum_experts_per_tok = 8\nmoe_intermediate_size = 64\n",
                   "bad.toml:8: num_experts_per_tok: 8 experts per token exceed the 4");
  /* Qwen3-235B-A22B's config.json (huggingface.co/Qwen/Qwen3-235B-A22B) with its num_experts
  ** dropped as unknown: every layer was derived as a dense MLP of intermediate_size 12288
  ** (dense_gate_up 3072 x 4096 at tp=8) where vLLM's qwen3_moe.py runs 128 experts of 1536 */
  expect_bad_model("name = \"Qwen3-235B-A22B\"\nsource = \"hf\"\nhidden_size = 4096\n"
                   "num_hidden_layers = 94\nnum_attention_heads = 64\nnum_key_value_heads = 4\n"
                   "head_dim = 128\nvocab_size = 151936\nintermediate_size = 12288\n"
                   "num_experts_per_tok = 8\nmoe_intermediate_size = 1536\n",
                   "bad.toml:10: num_experts_per_tok: a MoE key without n_routed_experts");
  expect_bad_model(BASE "intermediate_size = 64\nn_shared_experts = 1\n",
                   "bad.toml:8: n_shared_experts: a MoE key without n_routed_experts");
  expect_bad_model(BASE "intermediate_size = 64\nhiden_size = 3\n", "bad.toml:8: hiden_size: unknown key");
  /* config.json's own names in other families (openai/gpt-oss-120b: num_local_experts and
  ** experts_per_token; Qwen/Qwen3-235B-A22B: num_experts) say which key xp reads, the first
  ** written first, and an unknown key above them is still named as before */
  expect_bad_model(BASE "intermediate_size = 2880\nexperts_per_token = 4\nnum_local_experts = 128\n",
                   "bad.toml:8: experts_per_token: unknown key: gpt-oss's second name for num_experts_per_tok");
  expect_bad_model(BASE "intermediate_size = 2880\nnum_local_experts = 128\n",
                   "bad.toml:8: num_local_experts: unknown key: Mixtral's and gpt-oss's name for n_routed_experts");
  expect_bad_model(BASE "intermediate_size = 12288\nnum_experts = 128\n",
                   "bad.toml:8: num_experts: unknown key: Qwen's name for n_routed_experts");
  /* meta-llama/Llama-4-Maverick-17B-128E-Instruct's text_config: intermediate_size 8192 is the
  ** experts' width, intermediate_size_mlp 16384 the dense layers' */
  expect_bad_model(BASE "intermediate_size = 8192\nintermediate_size_mlp = 16384\n",
                   "bad.toml:8: intermediate_size_mlp: unknown key: Llama 4's dense MLP width: write it as intermediate_size");
  expect_bad_model(BASE "intermediate_size = 8192\ninterleave_moe_layer_step = 2\n",
                   "bad.toml:8: interleave_moe_layer_step: unknown key: Llama 4's MoE layer step: write decoder_sparse_step");
  /* openai/gpt-oss-120b's layer_types: sliding and full attention alternate */
  expect_bad_model(BASE "intermediate_size = 2880\nlayer_types = [\"sliding_attention\", \"full_attention\"]\n",
                   "bad.toml:8: layer_types: unknown key: each layer's attention: leave it out where it names "
                   "sliding_attention and full_attention alone");
  expect_bad_model(BASE "intermediate_size = 12288\nrope_theta = 1000000\nnum_experts = 128\n",
                   "bad.toml:8: rope_theta: unknown key");
  expect_bad_model(BASE "intermediate_size = 64\nnum_key_value_heads = 3\n",
                   "3 key-value heads do not divide 8");
  expect_bad_model(BASE, "a model with dense MLP layers needs intermediate_size");
  expect_bad_model(BASE "intermediate_size = 0\n", "intermediate_size: 0 is out of range");
  /* A q latent without kv_lora_rank or o_lora_rank (DeepSeek-V4's attention without its key):
  ** dropping the key would derive grouped-query shapes it does not run, and the message must
  ** not leave that as the only way out */
  expect_bad_model(BASE "intermediate_size = 64\nq_lora_rank = 1024\nqk_rope_head_dim = 64\n",
                   "bad.toml:8: q_lora_rank: an MLA key without kv_lora_rank: give kv_lora_rank (MLA) "
                   "or o_lora_rank (DeepSeek-V4), or drop the MLA keys");
#define MLA "intermediate_size = 64\nkv_lora_rank = 64\nqk_nope_head_dim = 32\n" \
            "qk_rope_head_dim = 16\nv_head_dim = 32\n"
  expect_bad_model(BASE MLA "q_lora_rank = 128\nindex_n_heads = 4\n",
                   "bad.toml:13: index_n_heads: a DSA indexer needs index_head_dim, which is missing");
  expect_bad_model(BASE MLA "index_n_heads = 4\nindex_head_dim = 32\n",
                   "bad.toml:12: index_n_heads: a DSA indexer projects the q latent: it needs q_lora_rank");
  expect_bad_model(BASE "intermediate_size = 64\nindex_head_dim = 32\n",
                   "bad.toml:8: index_head_dim: a DSA indexer key without kv_lora_rank");
#undef MLA
  /* Qwen3-Next-80B-A3B's config.json (huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct) in the
  ** keys xp reads: they derived full grouped-query attention in all 48 layers, where vLLM's
  ** qwen3_next.py runs Gated DeltaNet in 36 of them */
  expect_bad_model("name = \"Qwen3-Next-80B-A3B\"\nsource = \"hf\"\narchitecture = \"Qwen3NextForCausalLM\"\n"
                   "hidden_size = 2048\nnum_hidden_layers = 48\nnum_attention_heads = 16\n"
                   "num_key_value_heads = 2\nhead_dim = 256\nvocab_size = 151936\n"
                   "intermediate_size = 5120\nn_routed_experts = 512\nnum_experts_per_tok = 10\n"
                   "moe_intermediate_size = 512\n",
                   "bad.toml:3: architecture: xp derives no GEMMs of Qwen3NextForCausalLM's layers "
                   "(Gated DeltaNet linear attention");
  /* Llama-3.3-Nemotron-Super-49B-v1 (architectures ["DeciLMForCausalLM"]): per-layer widths in
  ** block_configs; with an intermediate_size made up for it, every layer was derived alike */
  expect_bad_model("name = \"Nemotron-Super-49B\"\nsource = \"hf\"\narchitecture = \"DeciLMForCausalLM\"\n"
                   "hidden_size = 8192\nnum_hidden_layers = 80\nnum_attention_heads = 64\n"
                   "vocab_size = 128256\nintermediate_size = 28672\n",
                   "bad.toml:3: architecture: xp derives no GEMMs of DeciLMForCausalLM's layers");
  /* DeepSeek-V3.2's config.json (huggingface.co/deepseek-ai/DeepSeek-V3.2) without its
  ** index_n_heads and index_head_dim: loaded as DeepSeek-V3, the indexer's three GEMMs a layer
  ** left out of the step in silence */
  expect_bad_model("name = \"DeepSeek-V3.2\"\nsource = \"hf\"\narchitecture = \"DeepseekV32ForCausalLM\"\n"
                   "hidden_size = 7168\nnum_hidden_layers = 61\nnum_attention_heads = 128\n"
                   "vocab_size = 129280\nintermediate_size = 18432\nq_lora_rank = 1536\n"
                   "kv_lora_rank = 512\nqk_nope_head_dim = 128\nqk_rope_head_dim = 64\nv_head_dim = 128\n"
                   "n_routed_experts = 256\nnum_experts_per_tok = 8\nn_shared_experts = 1\n"
                   "moe_intermediate_size = 2048\nfirst_k_dense_replace = 3\n",
                   "bad.toml:3: architecture: DeepseekV32ForCausalLM runs DSA's indexer, which needs index_n_heads");
  /* DeepSeek-V3's written with grouped-query keys alone (no MLA): full q/k/v projections */
  expect_bad_model("name = \"DeepSeek-V3\"\nsource = \"hf\"\narchitecture = \"DeepseekV3ForCausalLM\"\n"
                   "hidden_size = 7168\nnum_hidden_layers = 61\nnum_attention_heads = 128\n"
                   "num_key_value_heads = 128\nvocab_size = 129280\nintermediate_size = 18432\n",
                   "bad.toml:3: architecture: DeepseekV3ForCausalLM runs MLA, which needs kv_lora_rank");
  /* Kimi-K2.5's config.json (huggingface.co/moonshotai/Kimi-K2.5) names its top-level
  ** architecture KimiK25ForConditionalGeneration; text_config copied without its MLA keys */
  expect_bad_model("name = \"Kimi-K2.5\"\nsource = \"hf\"\narchitecture = \"KimiK25ForConditionalGeneration\"\n"
                   "hidden_size = 7168\nnum_hidden_layers = 61\nnum_attention_heads = 64\n"
                   "vocab_size = 163840\nintermediate_size = 18432\n",
                   "bad.toml:3: architecture: KimiK25ForConditionalGeneration runs MLA, which needs kv_lora_rank");
  /* openai/gpt-oss-120b's config.json without head_dim (64): the default, 2880 / 64 = 45,
  ** derived qkv_proj 1 x 450 x 2880 at tp=8 where vLLM's gpt_oss.py runs 640 */
  expect_bad_model("name = \"gpt-oss-120b\"\nsource = \"hf\"\narchitecture = \"GptOssForCausalLM\"\n"
                   "hidden_size = 2880\nnum_hidden_layers = 36\nnum_attention_heads = 64\n"
                   "num_key_value_heads = 8\nvocab_size = 201088\nn_routed_experts = 128\n"
                   "num_experts_per_tok = 4\nmoe_intermediate_size = 2880\n",
                   "bad.toml:3: architecture: GptOssForCausalLM runs heads of their own width, which needs head_dim");
  test_bad_v4_models();
  xp_model *m = NULL;
  xp_error_quiet(1);
  CHECK_EQ_INT(xp_model_load("/nonexistent/model.toml", &m), XP_EXIT_USAGE);
  xp_error_quiet(0);
}

/* Qwen's layer rule (transformers' and vLLM's qwen2_moe.py, qwen3_moe.py): layer i is MoE when
** (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers. Qwen1.5-MoE-A2.7B's
** config.json (huggingface.co/Qwen/Qwen1.5-MoE-A2.7B) at 5 layers, step 2: MoE in layers 1 and
** 3, dense in 0, 2 and 4 (written as moe_layer_freq = 2, DeepSeek's rule counts 0, 2 and 4 MoE);
** with mlp_only_layers = [1], layer 3 alone. */
static void expect_moe_layers(const char *extra, int64_t moe, int64_t dense) {
  char *text = xp_asprintf("name = \"Qwen1.5-MoE-A2.7B\"\nsource = \"hf\"\narchitecture = \"Qwen2MoeForCausalLM\"\n"
                           "hidden_size = 2048\nnum_hidden_layers = 5\nnum_attention_heads = 16\n"
                           "num_key_value_heads = 16\nvocab_size = 151936\nintermediate_size = 5632\n"
                           "n_routed_experts = 60\nnum_experts_per_tok = 4\nmoe_intermediate_size = 1408\n"
                           "shared_expert_intermediate_size = 5632\n%s", extra);
  char *path = model_file("qwen.toml", text);
  free(text);
  xp_model *m = NULL;
  const int rc = xp_model_load(path, &m);
  if (rc) fprintf(stderr, "loading %s: %s\n", path, xp_last_error());
  CHECK_EQ_INT(rc, 0);
  if (m) {
    size_t n;
    xp_gemm_shape *v = derive(m, 1, 1, 1, 1, &n);
    CHECK_EQ_INT(xp_model_moe_layers(m), moe);
    expect(v, n, "moe_router", 1, 60, 2048, 1, moe);
    if (dense) expect(v, n, "dense_down", 1, 2048, 5632, 1, dense);
    else CHECK(find(v, n, "dense_down") == NULL);
    expect(v, n, "o_proj", 1, 2048, 2048, 1, 5);
    expect(v, n, "shared_expert_gate", 1, 1, 2048, 1, moe);
    free(v);
  }
  xp_model_free(m);
  free(path);
}

/* Qwen2-MoE's shared expert (vLLM's qwen2_moe.py, Qwen2MoeSparseMoeBlock): one MLP of
** shared_expert_intermediate_size, tensor-parallel, its output scaled per token by the sigmoid
** of shared_expert_gate (torch.nn.Linear(hidden_size, 1), replicated). Qwen2-57B-A14B's
** config.json (huggingface.co/Qwen/Qwen2-57B-A14B): 20480 wide, 8 x its experts' 2560. Written
** as n_shared_experts = 8 (the only way before), the gate's 28 GEMMs were missing from the step. */
static void test_qwen_shared_expert(void) {
#define QWEN2_57B "name = \"Qwen2-57B-A14B\"\nsource = \"hf\"\narchitecture = \"Qwen2MoeForCausalLM\"\n" \
                  "hidden_size = 3584\nnum_hidden_layers = 28\nnum_attention_heads = 28\n" \
                  "num_key_value_heads = 4\nvocab_size = 151936\nn_routed_experts = 64\n" \
                  "num_experts_per_tok = 8\nmoe_intermediate_size = 2560\ndecoder_sparse_step = 1\n"
  char *path = model_file("qwen2-57b.toml", QWEN2_57B "shared_expert_intermediate_size = 20480\n");
  xp_model *m = NULL;
  CHECK_EQ_INT(xp_model_load(path, &m), 0);
  if (m) {
    size_t n;
    xp_gemm_shape *v = derive(m, 4, 1, 1, 8, &n);
    expect(v, n, "shared_expert_gate_up", 8, 2 * 20480 / 4, 3584, 1, 28);
    expect(v, n, "shared_expert_down", 8, 3584, 20480 / 4, 1, 28);
    expect(v, n, "shared_expert_gate", 8, 1, 3584, 1, 28);
    free(v);
  }
  xp_model_free(m);
  free(path);
  /* no shared expert (shared_expert_intermediate_size = 0): no gate either */
  path = model_file("qwen2-noshared.toml", QWEN2_57B "shared_expert_intermediate_size = 0\n");
  m = NULL;
  CHECK_EQ_INT(xp_model_load(path, &m), 0);
  if (m) {
    size_t n;
    xp_gemm_shape *v = derive(m, 1, 1, 1, 1, &n);
    CHECK(find(v, n, "shared_expert_gate") == NULL);
    CHECK(find(v, n, "shared_expert_down") == NULL);
    free(v);
  }
  xp_model_free(m);
  free(path);
  expect_bad_model(QWEN2_57B "n_shared_experts = 8\n",
                   "bad.toml:3: architecture: Qwen2MoeForCausalLM runs a shared expert gated per "
                   "token, which needs shared_expert_intermediate_size");
  expect_bad_model(QWEN2_57B "n_shared_experts = 8\nshared_expert_intermediate_size = 20480\n",
                   "bad.toml:14: shared_expert_intermediate_size: two shared expert widths");
#undef QWEN2_57B
}

/* gpt-oss-120b's config.json (huggingface.co/openai/gpt-oss-120b: its quantization_config holds
** the experts in MXFP4, attention, router and lm_head in bf16): vLLM's Mxfp4MoEMethod pads each
** GPU's expert width to a multiple of 64 (Triton, Hopper's default), 2880 / 8 = 360 to 384. */
static void test_gpt_oss_fp4_padding(void) {
  char *path = model_file("gpt-oss.toml", "name = \"gpt-oss-120b\"\nsource = \"hf\"\narchitecture = \"GptOssForCausalLM\"\n"
        "hidden_size = 2880\nnum_hidden_layers = 36\nnum_attention_heads = 64\n"
        "num_key_value_heads = 8\nhead_dim = 64\nvocab_size = 201088\nn_routed_experts = 128\n"
        "num_experts_per_tok = 4\nmoe_intermediate_size = 2880\ncheckpoint_dtype = \"bf16\"\n"
        "checkpoint_fp4 = [\"moe_gate_up\", \"moe_down\"]\n");
  xp_model *m = NULL;
  CHECK_EQ_INT(xp_model_load(path, &m), 0);
  static const struct { int tp; int64_t width; } cases[] = {{1, 2880}, {2, 1472}, {4, 768}, {8, 384}};
  for (size_t i = 0; m && i < sizeof cases / sizeof *cases; i++) {
    size_t n;
    xp_gemm_shape *v = derive(m, cases[i].tp, 1, 1, 1, &n);
    expect(v, n, "moe_gate_up", 1, 2 * cases[i].width, 2880, 1, 144);
    expect(v, n, "moe_down", 1, 2880, cases[i].width, 1, 144);
    expect(v, n, "qkv_proj", 1, (64 + 16) * 64 / cases[i].tp, 2880, 1, 36);
    free(v);
  }
  /* vLLM's other MXFP4 MoE backends pad otherwise (mxfp4.py, create_weights): Marlin the width
  ** to 128 and hidden_size to 256 ("n % 256 == 0 and k % 128 == 0"), FlashInfer's CUTLASS
  ** kernels (Hopper's SM90_FI_MXFP4_BF16) both to 128, its TensorRT-LLM ones both to 256; at
  ** TP=2 1440 wide. Derived as Triton's, a Marlin engine's step counted 1472 x 2880 experts
  ** where it runs 1536 x 3072. */
  static const struct { int backend; int64_t width, hidden; } backends[] = {
      {1, 1536, 3072}, {2, 1536, 2944}, {3, 1536, 3072}};
  CHECK_EQ_STR(xp_mxfp4_backends[0], "triton");
  for (size_t i = 0; m && i < sizeof backends / sizeof *backends; i++) {
    xp_parallel p = {.tp = 2, .ep = 1, .mla_absorbed = 1, .mxfp4_backend = backends[i].backend};
    xp_gemm_shape *v = NULL;
    size_t n = 0;
    CHECK_EQ_INT(xp_model_decode_gemms(m, &p, 1, &v, &n), 0);
    expect(v, n, "moe_gate_up", 1, 2 * backends[i].width, backends[i].hidden, 1, 144);
    expect(v, n, "moe_down", 1, backends[i].hidden, backends[i].width, 1, 144);
    expect(v, n, "moe_router", 1, 128, 2880, 1, 36); /* bf16: never padded */
    free(v);
  }
  xp_model_free(m);
  free(path);
}

/* The shipped Qwen3-235B-A22B and gpt-oss-120b files, against their config.json as vLLM splits
** them (qwen3_moe.py, gpt_oss.py): 4 KV heads replicated past tp=4, every layer MoE and no
** shared expert; gpt-oss's MXFP4 experts at Triton's padding (2880 / 8 = 360 wide: 384). */
static void test_qwen3_gpt_oss_files(void) {
  size_t n;
  xp_model *m = load("Qwen3-235B-A22B");
  if (m) {
    CHECK_EQ_INT(xp_model_moe_layers(m), 94);
    xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
    expect(v, n, "qkv_proj", 1, (8 + 2) * 128, 4096, 1, 94); /* 4 KV heads: one per GPU, each on two */
    expect(v, n, "o_proj", 1, 4096, 8 * 128, 1, 94);
    expect(v, n, "moe_router", 1, 128, 4096, 1, 94);
    expect(v, n, "moe_gate_up", 1, 2 * 1536 / 8, 4096, 1, 94 * 8);
    expect(v, n, "moe_down", 1, 4096, 1536 / 8, 1, 94 * 8);
    expect(v, n, "lm_head", 1, 151936 / 8, 4096, 1, 1);
    CHECK(find(v, n, "dense_gate_up") == NULL);
    CHECK(find(v, n, "shared_expert_gate_up") == NULL);
    CHECK_EQ_INT(n, 6);
    free(v);
    v = derive(m, 16, 1, 1, 1, &n);
    expect(v, n, "qkv_proj", 1, (4 + 2) * 128, 4096, 1, 94);
    free(v);
    xp_model_free(m);
  }
  m = load("gpt-oss-120b");
  if (m) {
    CHECK(xp_model_fp4_experts(m));
    xp_gemm_shape *v = derive(m, 8, 1, 1, 1, &n);
    expect(v, n, "qkv_proj", 1, (8 + 2) * 64, 2880, 1, 36);
    expect(v, n, "o_proj", 1, 2880, 8 * 64, 1, 36);
    expect(v, n, "moe_gate_up", 1, 2 * 384, 2880, 1, 36 * 4);
    expect(v, n, "moe_down", 1, 2880, 384, 1, 36 * 4);
    expect(v, n, "lm_head", 1, 201088 / 8, 2880, 1, 1);
    CHECK_EQ_INT(n, 6);
    free(v);
    xp_model_free(m);
  }
}

static void test_qwen_layers(void) {
  expect_moe_layers("decoder_sparse_step = 1\n", 5, 0);
  expect_moe_layers("decoder_sparse_step = 2\n", 2, 3);
  expect_moe_layers("decoder_sparse_step = 1\nmlp_only_layers = [1, 4]\n", 3, 2);
  expect_moe_layers("decoder_sparse_step = 2\nmlp_only_layers = [1]\n", 1, 4);
  expect_moe_layers("mlp_only_layers = []\n", 5, 0);
  expect_bad_model(BASE "intermediate_size = 64\nn_routed_experts = 8\nnum_experts_per_tok = 2\n"
                   "moe_intermediate_size = 64\nmlp_only_layers = [0, 4]\n",
                   "bad.toml:11: mlp_only_layers[1]: layer 4 is past the model's 4 layers");
  expect_bad_model(BASE "intermediate_size = 64\nn_routed_experts = 8\nnum_experts_per_tok = 2\n"
                   "moe_intermediate_size = 64\nmlp_only_layers = [2, 2]\n",
                   "bad.toml:11: mlp_only_layers[1]: 2 is given twice");
  expect_bad_model(BASE "intermediate_size = 64\nn_routed_experts = 8\nnum_experts_per_tok = 2\n"
                   "moe_intermediate_size = 64\ndecoder_sparse_step = 2\nmoe_layer_freq = 2\n",
                   "bad.toml:11: decoder_sparse_step: two MoE layer steps");
  expect_bad_model(BASE "intermediate_size = 64\ndecoder_sparse_step = 2\n",
                   "bad.toml:8: decoder_sparse_step: a MoE key without n_routed_experts");
  expect_bad_model(BASE "n_routed_experts = 8\nnum_experts_per_tok = 2\nmoe_intermediate_size = 64\n"
                   "mlp_only_layers = [3]\n",
                   "bad.toml:10: mlp_only_layers: a model with dense MLP layers needs intermediate_size");
}

/* Bytes and flops as the anchors count them: weight + activations + output, once. */
static void test_roofline(void) {
  xp_gemm_shape s = {"moe_gate_up", 1, 512, 7168, 1, 1, 1, ""};
  CHECK_NEAR(xp_gemm_bytes(&s, 2), 512.0 * 7168 * 2 + 7168 * 2 + 512 * 2, 1e-12);
  /* anchors: 6.84 us cold -> 1,076 GB/s */
  CHECK(fabs(xp_gemm_bytes(&s, 2) / 6.84e-6 / 1e9 - 1076) < 1);
  CHECK_NEAR(xp_gemm_bytes(&s, 1), 512.0 * 7168 + 7168 + 512 * 2, 1e-12);
  xp_gemm_shape b = {"kv_b_proj_k", 16, 512, 128, 8, 16, 61, ""};
  CHECK_NEAR(xp_gemm_flops(&b), 2.0 * 8 * 16 * 512 * 128, 1e-12);
  CHECK_NEAR(xp_gemm_bytes(&b, 2), 8.0 * (512 * 128 * 2 + 16 * 128 * 2 + 16 * 512 * 2), 1e-12);
  CHECK_EQ_STR(xp_gemm_bound(0.85, 0.01), "memory");
  CHECK_EQ_STR(xp_gemm_bound(0.10, 0.70), "compute");
  CHECK_EQ_STR(xp_gemm_bound(0.30, 0.20), "latency");
  CHECK_EQ_STR(xp_gemm_bound(0.60, 0.65), "compute");
}

int main(void) {
  if (!getenv("XP_SRC")) {
    printf("skipped: XP_SRC (the repository root) is not set\n");
    return 77;
  }
  snprintf(dir, sizeof dir, "/tmp/xp-test-models-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_kimi();
  test_deepseek_glm_llama();
  test_glm5();
  test_deepseek_v4();
  test_vocab_padding();
  test_bad_models();
  test_qwen_layers();
  test_qwen_shared_expert();
  test_gpt_oss_fp4_padding();
  test_qwen3_gpt_oss_files();
  test_roofline();
  char *cmd = xp_asprintf("rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(cmd);
  CHECK_DONE();
}
