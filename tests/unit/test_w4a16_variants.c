/*
** The w4a16 family table and the kernel_variant spec, without a GPU: which shapes each
** variant supports and why not, the parameters it records, spec validation (bad input is
** refused with the key's line), the --dry-run plan, and experiments/w4a16_variants.toml.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kind.h"
#include "runners/kernel_variant.h"
#include "spec.h"
#include "xp.h"

extern const xp_kind xp_kind_kernel_variant;

static const char *why(const char *variant, xp_kv_problem p, const char *spec_json) {
  static char buf[512];
  const xp_kv_variant *v = xp_kv_variant_find(&xp_kv_w4a16, variant);
  if (!v) return "no such variant";
  cJSON *spec = cJSON_Parse(spec_json ? spec_json : "{}");
  const char *r = v->supports(&p, spec, buf, sizeof buf);
  cJSON_Delete(spec);
  return r;
}

static xp_kv_problem gemm(int n, int k, int m, int group) {
  xp_kv_problem p = {0};
  p.shape = "s", p.n = n, p.k = k, p.m = m, p.group = group, p.arch = 90;
  return p;
}

static xp_kv_problem moe(int m, int group, int experts, int topk) {
  xp_kv_problem p = {0};
  p.shape = "moe", p.moe = 1, p.hidden = 7168, p.inter = 256, p.experts = experts, p.topk = topk;
  p.m = m, p.group = group, p.arch = 90;
  return p;
}

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static void test_family(void) {
  CHECK(xp_kv_family_find("w4a16") == &xp_kv_w4a16);
  CHECK(xp_kv_family_find("nope") == NULL);
  const char *names[] = {"cublas_bf16", "dequant_cublas", "fused_gemv", "fused_mma", "fused_splitk",
                         "grouped_moe", "grouped_moe_pdl", "cublas_bf16_per_expert"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const xp_kv_variant *v = xp_kv_variant_find(&xp_kv_w4a16, names[i]);
    CHECK(v != NULL);
    if (v) CHECK(v->supports && v->params && v->role && v->summary);
  }
  CHECK_EQ_INT(xp_kv_w4a16.nvariants, 8);
  CHECK(xp_kv_variant_find(&xp_kv_w4a16, "fused") == NULL);
}

static void test_supports(void) {
  /* Kimi-K2.5 TP=8 shapes run everywhere they should. */
  const char *all[] = {"cublas_bf16", "dequant_cublas", "fused_gemv", "fused_mma", "fused_splitk"};
  for (int g = 32; g <= 128; g *= 4)
    for (int m = 1; m <= 16; m *= 2)
      for (size_t i = 0; i < 5; i++) {
        CHECK(why(all[i], gemm(512, 7168, m, g), NULL) == NULL);
        CHECK(why(all[i], gemm(7168, 256, m, g), NULL) == NULL);
      }
  CHECK(why("grouped_moe", moe(1, 128, 384, 8), NULL) == NULL);
  CHECK(why("grouped_moe", moe(16, 32, 384, 8), NULL) == NULL);
  CHECK(why("grouped_moe_pdl", moe(16, 32, 384, 8), NULL) == NULL);
  CHECK(why("cublas_bf16_per_expert", moe(16, 128, 384, 8), NULL) == NULL);

  /* Reasons, never a launch. */
  CHECK(contains(why("fused_mma", gemm(512, 7168, 1, 96), NULL), "power of two"));
  CHECK(contains(why("fused_mma", gemm(512, 7200, 1, 32), NULL), "multiple of 64"));
  CHECK(contains(why("fused_gemv", gemm(520, 7168, 1, 128), NULL), "multiple of 16"));
  CHECK(contains(why("fused_gemv", gemm(512, 192, 1, 128), NULL), "multiple of the group"));
  CHECK(contains(why("dequant_cublas", gemm(512, 7200, 1, 32), NULL), "multiple of 64"));
  CHECK(contains(why("fused_mma", gemm(512, 7168, 17, 128), NULL), "at most 16"));
  CHECK(contains(why("fused_gemv", gemm(512, 7168, 32, 128), NULL), "at most 16"));
  CHECK(why("cublas_bf16", gemm(512, 7168, 256, 128), NULL) == NULL);   /* no token limit */
  CHECK(why("dequant_cublas", gemm(512, 7168, 256, 128), NULL) == NULL);
  CHECK(contains(why("fused_splitk", gemm(7168, 256, 1, 32), "{\"split_k\": 8}"), "split_k 8 exceeds the 4"));
  CHECK(why("fused_splitk", gemm(7168, 256, 1, 32), "{\"split_k\": 4}") == NULL);
  CHECK(contains(why("grouped_moe", moe(17, 128, 384, 8), NULL), "at most 16"));
  CHECK(contains(why("grouped_moe", moe(16, 128, 384, 20), NULL), "pairs"));
  CHECK(contains(why("grouped_moe", moe(4, 128, 2048, 8), NULL), "bitmap"));
  CHECK(contains(why("grouped_moe", moe(4, 128, 4, 8), NULL), "not a routing"));
  CHECK(contains(why("grouped_moe", moe(4, 512, 384, 8), NULL), "down"));   /* K = 256 < group */
  xp_kv_problem old = moe(4, 128, 384, 8);
  old.arch = 80;
  CHECK(contains(why("grouped_moe_pdl", old, NULL), "sm_90"));
  CHECK(why("grouped_moe", old, NULL) == NULL);
  old.arch = 0; /* planning: the arch is not known yet */
  CHECK(why("grouped_moe_pdl", old, NULL) == NULL);
}

static void test_params(void) {
  cJSON *o = cJSON_CreateObject(), *spec = cJSON_Parse("{\"split_k\": 4}");
  xp_kv_problem p = gemm(512, 7168, 9, 128);
  xp_kv_variant_find(&xp_kv_w4a16, "fused_splitk")->params(&p, spec, o);
  CHECK_EQ_INT(xp_spec_int(o, "split_k", 0), 4);
  CHECK_EQ_INT(xp_spec_int(o, "warps_per_tile", 0), 8); /* 112 chunks / 4 slices = 28 */
  CHECK_EQ_INT(xp_spec_int(o, "token_tiles", 0), 2);
  CHECK_EQ_INT(xp_spec_int(o, "k_stages", 0), 1); /* two token tiles: rounds of four chunks */
  CHECK_EQ_INT(xp_spec_int(o, "k_chunks_per_stage", 0), 4);
  CHECK_EQ_STR(xp_spec_str(o, "scale", ""), "after_mma_fp32");
  cJSON_Delete(o);
  o = cJSON_CreateObject();
  p = gemm(7168, 256, 1, 32);
  xp_kv_variant_find(&xp_kv_w4a16, "fused_mma")->params(&p, spec, o);
  CHECK_EQ_INT(xp_spec_int(o, "warps_per_tile", 0), 4); /* K = 256: four chunks */
  CHECK_EQ_INT(xp_spec_int(o, "tiles_per_block", 0), 2);
  CHECK_EQ_INT(xp_spec_int(o, "token_tiles", 0), 1);
  CHECK_EQ_INT(xp_spec_int(o, "k_stages", 0), 2);
  CHECK_EQ_STR(xp_spec_str(o, "scale", ""), "before_mma_bf16");
  cJSON_Delete(o);
  o = cJSON_CreateObject();
  p = gemm(7168, 256, 5, 32);
  xp_kv_variant_find(&xp_kv_w4a16, "fused_gemv")->params(&p, spec, o);
  CHECK_EQ_INT(xp_spec_int(o, "token_accumulators", 0), 8);
  cJSON_Delete(o);
  o = cJSON_CreateObject();
  p = moe(1, 128, 384, 8);
  xp_kv_variant_find(&xp_kv_w4a16, "grouped_moe_pdl")->params(&p, spec, o);
  CHECK_EQ_INT(xp_spec_int(o, "pdl", 0), 1);
  CHECK_EQ_INT(xp_spec_int(o, "cooperative", 1), 0);
  CHECK_EQ_INT(xp_spec_int(o, "launches", 0), 1);
  CHECK_EQ_INT(xp_spec_int(o, "k_stages", 0), 2);
  CHECK_EQ_INT(xp_spec_int(o, "k_chunks_per_stage", 0), 2);
  CHECK_EQ_INT(xp_spec_int(o, "token_tiles", 0), 1);
  cJSON_Delete(o);
  o = cJSON_CreateObject();
  p = moe(16, 32, 384, 8);
  xp_kv_variant_find(&xp_kv_w4a16, "grouped_moe")->params(&p, spec, o);
  CHECK_EQ_INT(xp_spec_int(o, "pdl", 1), 0);
  CHECK_EQ_INT(xp_spec_int(o, "cooperative", 0), 1);
  CHECK_EQ_INT(xp_spec_int(o, "token_tiles", 0), 2);
  CHECK_EQ_INT(xp_spec_int(o, "k_stages", 0), 2); /* one token tile per pass */
  CHECK_EQ_INT(xp_spec_int(o, "k_chunks_per_stage", 0), 2);
  CHECK_EQ_STR(xp_spec_str(o, "scale", ""), "before_mma_bf16");
  cJSON_Delete(o);
  cJSON_Delete(spec);
}

static int validate(const char *json) {
  xp_spec *s = xp_spec_parse_json(json, "t.json", ".");
  if (!s) return -1;
  xp_error_quiet(1);
  int rc = xp_validate_spec(&xp_kind_kernel_variant, s);
  xp_error_quiet(0);
  xp_spec_free(s);
  return rc;
}

#define GEMM_SHAPES "\"shapes\": [{\"name\": \"gate_up\", \"n\": 512, \"k\": 7168}]"
#define MOE_SHAPES "\"shapes\": [{\"name\": \"moe\", \"type\": \"moe\", \"hidden\": 7168, " \
                   "\"intermediate\": 256, \"experts\": 384, \"topk\": 8}]"

static void test_spec(void) {
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1, 16], "
                        "\"group_sizes\": [128], " GEMM_SHAPES "}"), 0);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [32], \"variants\": [\"grouped_moe\"], " MOE_SHAPES "}"), 0);
  /* Unknown family, unknown variant, unknown key. */
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w8a8\", \"m\": [1], "
                        "\"group_sizes\": [128], " GEMM_SHAPES "}"), XP_EXIT_USAGE);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"variants\": [\"fused_magic\"], " GEMM_SHAPES "}"), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "fused_magic") && strstr(xp_last_error(), "fused_mma"));
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"tile\": 3, " GEMM_SHAPES "}"), XP_EXIT_USAGE);
  /* Shapes: a gemm needs n and k; moe keys do not belong on it; names are unique. */
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"shapes\": [{\"name\": \"a\", \"n\": 512}]}"), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "needs k") != NULL);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"shapes\": [{\"name\": \"a\", \"n\": 512, \"k\": 64, "
                        "\"topk\": 8}]}"), XP_EXIT_USAGE);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"shapes\": [{\"name\": \"a\", \"type\": \"moe\", "
                        "\"hidden\": 7168, \"intermediate\": 256, \"experts\": 384}]}"), XP_EXIT_USAGE);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"shapes\": [{\"name\": \"a\", \"n\": 512, \"k\": 64}, "
                        "{\"name\": \"a\", \"n\": 16, \"k\": 64}]}"), XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "names two shapes") != NULL);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128], \"shapes\": [{\"name\": \"a\", \"type\": \"dense\", "
                        "\"n\": 512, \"k\": 64}]}"), XP_EXIT_USAGE);
  /* Quantized variants need group sizes; m and tolerance are range-checked. */
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], " GEMM_SHAPES "}"),
               XP_EXIT_USAGE);
  CHECK(strstr(xp_last_error(), "group_sizes") != NULL);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"variants\": [\"cublas_bf16\"], " GEMM_SHAPES "}"), 0);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [0], "
                        "\"group_sizes\": [128], " GEMM_SHAPES "}"), XP_EXIT_USAGE);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [], "
                        "\"group_sizes\": [128], " GEMM_SHAPES "}"), XP_EXIT_USAGE);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"tolerance\": 2, \"group_sizes\": [128], " GEMM_SHAPES "}"), XP_EXIT_USAGE);
  CHECK_EQ_INT(validate("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                        "\"group_sizes\": [128]}"), XP_EXIT_USAGE);
}

/* The spec validated and its --dry-run plan as text (malloc'd); failures are counted. */
static char *plan_text(xp_spec *s) {
  CHECK_EQ_INT(xp_validate_spec(&xp_kind_kernel_variant, s), 0);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK_EQ_INT(xp_kind_kernel_variant.plan(s, f), 0);
  fclose(f);
  return text;
}

/* --dry-run lists every case, with the reason of each skip. */
static void test_plan(void) {
  xp_spec *s = xp_spec_parse_json(
      "{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1, 32], \"group_sizes\": [128, 96], "
      "\"variants\": [\"cublas_bf16\", \"fused_mma\", \"grouped_moe\"], \"shapes\": [{\"name\": \"gate_up\", "
      "\"n\": 512, \"k\": 7168}, {\"name\": \"moe\", \"type\": \"moe\", \"hidden\": 7168, "
      "\"intermediate\": 256, \"experts\": 384, \"topk\": 8}]}", "t.json", ".");
  CHECK(s != NULL);
  if (!s) return;
  char *text = plan_text(s);
  /* gate_up: bf16 x 2 m (group 128 only) + mma x 2 m x 2 groups; moe: grouped x 2 m x 2 groups. */
  CHECK(strstr(text, "10 cases") != NULL);
  CHECK(strstr(text, "cublas_bf16/gate_up/m1 ") != NULL);
  CHECK(strstr(text, "cublas_bf16/gate_up/m1/g96") == NULL);
  CHECK(strstr(text, "fused_mma/gate_up/m32/g128") && strstr(text, "at most 16"));
  CHECK(strstr(text, "fused_mma/gate_up/m1/g96") && strstr(text, "power of two"));
  CHECK(strstr(text, "grouped_moe/moe/m1/g128") != NULL);
  CHECK(strstr(text, "grouped_moe/gate_up") == NULL); /* an MoE variant on a GEMM shape is no case */
  free(text);
  xp_spec_free(s);

  /* Unquantized variants alone need no group sizes, and are not skipped for lack of one. */
  s = xp_spec_parse_json("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1, 64], "
                         "\"variants\": [\"cublas_bf16\"], " GEMM_SHAPES "}", "t.json", ".");
  CHECK(s != NULL);
  if (!s) return;
  text = plan_text(s);
  CHECK(strstr(text, "2 cases (2 to measure, 0 skipped)") != NULL);
  free(text);
  xp_spec_free(s);

  /* One case is said in the singular (was "1 cases"). */
  s = xp_spec_parse_json("{\"kind\": \"kernel_variant\", \"family\": \"w4a16\", \"m\": [1], "
                         "\"variants\": [\"cublas_bf16\"], \"shapes\": [{\"name\": \"down\", \"n\": 7168, "
                         "\"k\": 256}]}", "t.json", ".");
  CHECK(s != NULL);
  if (!s) return;
  text = plan_text(s);
  CHECK(strstr(text, "family w4a16, 1 case (1 to measure, 0 skipped)") != NULL);
  free(text);
  xp_spec_free(s);
}

static void test_experiment_file(void) {
  const char *src = getenv("XP_SRC");
  if (!src) {
    fprintf(stderr, "XP_SRC not set: experiments/w4a16_variants.toml not checked\n");
    return;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/experiments/w4a16_variants.toml", src);
  xp_spec *s = xp_spec_load(path);
  CHECK(s != NULL);
  if (!s) return;
  char *text = plan_text(s);
  /* 2 GEMM shapes x (bf16 x 5 m + 4 quantized x 5 m x 2 groups) + moe (2 x 5 x 2 + 5). */
  CHECK(strstr(text, "115 cases (115 to measure, 0 skipped)") != NULL);
  if (!strstr(text, "115 cases")) fputs(text, stderr);
  /* the sizes measured, under the labels they are filed by */
  CHECK(strstr(text, "shapes, filed under model Kimi-K2.5 at tp=8:\n") != NULL);
  CHECK(strstr(text, "  gate_up          gemm  n=512 k=7168\n") != NULL);
  CHECK(strstr(text, "  moe_layer        moe   hidden=7168 intermediate=256 experts=384 topk=8\n") != NULL);
  free(text);
  xp_spec_free(s);

  /* Its shapes are Kimi-K2.5's at TP=8 (models/Kimi-K2.5.toml beside it): another model or
  ** split on the command line (xp run ... --set model=GLM-4.5) would file Kimi's shapes under a
  ** label they are not, and is refused, naming the first shape the label's model does not run. */
  static const struct { const char *key, *value, *want; } relabel[] = {
      {"model", "GLM-4.5", "shapes[0] (gate_up) is not a shape GLM-4.5 runs at tp=8"},
      {"model", "DeepSeek-V3", "shapes[2] (moe_layer) is not a shape DeepSeek-V3 runs at tp=8"},
      {"tp", "4", "shapes[0] (gate_up) is not a shape Kimi-K2.5 runs at tp=4"},
      {"tp", "3", "64 attention heads do not split over tp=3"},
  };
  for (size_t i = 0; i < sizeof relabel / sizeof relabel[0]; i++) {
    s = xp_spec_load(path);
    CHECK(s != NULL);
    if (!s) return;
    cJSON *v = strcmp(relabel[i].key, "tp") == 0 ? cJSON_CreateNumber(atoi(relabel[i].value))
                                                 : cJSON_CreateString(relabel[i].value);
    cJSON_ReplaceItemInObjectCaseSensitive(s->root, relabel[i].key, v);
    xp_spec_mark_cli(s, relabel[i].key);
    xp_error_quiet(1);
    CHECK_EQ_INT(xp_validate_spec(&xp_kind_kernel_variant, s), XP_EXIT_USAGE);
    xp_error_quiet(0);
    if (!strstr(xp_last_error(), relabel[i].want))
      fprintf(stderr, "error \"%s\" lacks \"%s\"\n", xp_last_error(), relabel[i].want);
    CHECK(strstr(xp_last_error(), relabel[i].want) != NULL);
    xp_spec_free(s);
  }
}

int main(void) {
  test_family();
  test_supports();
  test_params();
  test_spec();
  test_plan();
  test_experiment_file();
  CHECK_DONE();
}
