/*
** Reading vLLM serving-benchmark results (importers/vllm_bench): both file formats, the
** per-request timings against the statistics vLLM computed from them, failed requests,
** --append-result files, and the one-line errors for bad input.
**
** The fixtures' statistics were computed from their per-request lists the way vLLM does
** (tests/data/vllm_bench/make_fixtures.py), so xp's summary of the raw timings must agree
** with vLLM's numbers in the same file: that checks the unit conversion, which requests are
** counted, and the TPOT derivation, not just that something was stored.
*/
#include <stdlib.h>
#include "check.h"
#include "kind.h"
#include "testutil.h"
#include "stats.h"
#include "vllm_bench/vb_parse.h"
#include "xp.h"

static double value_of(const vb_result *r, const char *metric) {
  const vb_value *v = vb_find_value(r, metric);
  return v ? v->v : NAN;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* xp's statistics of the raw samples against vLLM's mean/median/std/p99 of the same metric. */
static void check_against_vllm(const vb_result *r, enum vb_sample_kind k, const char *name) {
  const vb_samples *s = &r->samples[k];
  CHECK(s->n > 0);
  if (!s->n) return;
  xp_stats st;
  xp_stats_compute(s->v, s->n, &st);
  char key[64];
  snprintf(key, sizeof key, "mean_%s_ms", name);
  CHECK_NEAR(st.mean, value_of(r, key), 1e-9);
  snprintf(key, sizeof key, "median_%s_ms", name);
  CHECK_NEAR(st.median, value_of(r, key), 1e-9);
  /* vLLM's std is numpy's population standard deviation. */
  double var = 0;
  for (size_t i = 0; i < s->n; i++) var += (s->v[i] - st.mean) * (s->v[i] - st.mean);
  snprintf(key, sizeof key, "std_%s_ms", name);
  CHECK_NEAR(sqrt(var / (double)s->n), value_of(r, key), 1e-9);
  double *sorted = xp_xmalloc(s->n * sizeof *sorted);
  memcpy(sorted, s->v, s->n * sizeof *sorted);
  qsort(sorted, s->n, sizeof *sorted, cmp);
  snprintf(key, sizeof key, "p99_%s_ms", name);
  CHECK_NEAR(xp_percentile_sorted(sorted, s->n, 0.99), value_of(r, key), 1e-9);
  free(sorted);
}

static void test_current_detailed(void) {
  char *path = test_data_path("vllm_bench", "serve_c8_detailed.json");
  vb_result *r = NULL;
  size_t n = 0;
  CHECK_EQ_INT(vb_parse_file(path, &r, &n), 0);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    CHECK_EQ_STR(r->model, "Qwen/Qwen3-0.6B");
    CHECK_EQ_STR(r->backend, "openai");
    CHECK_EQ_STR(r->date, "20250611-101500");
    CHECK(r->label == NULL); /* "label": null */
    CHECK_EQ_INT(r->max_concurrency, 8);
    CHECK(isinf(r->request_rate));
    CHECK_EQ_STR(r->case_name, "concurrency=8");
    /* One request of 16 failed: it is counted by vLLM as failed and left out of the timings. */
    CHECK_EQ_INT(r->requests, 16);
    CHECK_EQ_INT(r->succeeded, 15);
    CHECK_NEAR(value_of(r, "completed"), 15, 0);
    CHECK_NEAR(value_of(r, "failed"), 1, 0);
    CHECK_EQ_INT(r->samples[VB_TTFT].n, 15);
    CHECK_EQ_INT(r->samples[VB_E2EL].n, 15);
    CHECK_EQ_INT(r->samples[VB_ITL].n, 15 * 7); /* 8 output tokens: 7 gaps each */
    check_against_vllm(r, VB_TTFT, "ttft");
    check_against_vllm(r, VB_TPOT, "tpot");
    check_against_vllm(r, VB_ITL, "itl");
    CHECK_EQ_STR(vb_find_value(r, "output_throughput")->unit, "tok/s");
    CHECK_EQ_STR(vb_find_value(r, "request_throughput")->unit, "req/s");
    CHECK_EQ_STR(vb_find_value(r, "p99_ttft_ms")->unit, "ms");
    CHECK(vb_find_value(r, "request_goodput") == NULL); /* null without --goodput */
    CHECK(vb_find_value(r, "rtfx") == NULL);            /* 0 without audio input */
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(r->params, "max_concurrency")), 8, 0);
    CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r->params, "request_rate")), "inf");
    CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r->params, "file")), "serve_c8_detailed.json");
  }
  vb_results_free(r, n);
  free(path);
}

/* Without --save-detailed only latencies stay per request; --goodput and extra percentiles. */
static void test_current_summary_only(void) {
  char *path = test_data_path("vllm_bench", "serve_c16_goodput.json");
  vb_result *r = NULL;
  size_t n = 0;
  CHECK_EQ_INT(vb_parse_file(path, &r, &n), 0);
  if (n == 1) {
    CHECK_EQ_INT(r->samples[VB_TTFT].n, 0);
    CHECK_EQ_INT(r->samples[VB_TPOT].n, 0);
    CHECK_EQ_INT(r->samples[VB_E2EL].n, 24);
    CHECK(value_of(r, "request_goodput") > 0);
    CHECK_EQ_STR(vb_find_value(r, "request_goodput")->unit, "req/s");
    CHECK(vb_find_value(r, "p99.9_ttft_ms") != NULL);
    CHECK(vb_find_value(r, "p50_itl_ms") != NULL);
    CHECK(value_of(r, "max_output_tokens_per_s") > 0);
    /* --metadata tp=2 describes the case. */
    CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r->params, "tp")), "2");
    CHECK_EQ_STR(r->case_name, "concurrency=16");
  }
  vb_results_free(r, n);
  free(path);
}

static void test_append_result(void) {
  char *path = test_data_path("vllm_bench", "serve_append_c1_c2.json");
  vb_result *r = NULL;
  size_t n = 0;
  CHECK_EQ_INT(vb_parse_file(path, &r, &n), 0);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_STR(r[0].case_name, "concurrency=1");
    CHECK_EQ_STR(r[1].case_name, "concurrency=2");
    CHECK_EQ_INT(r[1].line, 2); /* vLLM separates appended objects with one newline */
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(r[1].params, "result")), 1, 0);
    check_against_vllm(&r[0], VB_TTFT, "ttft");
    check_against_vllm(&r[1], VB_TPOT, "tpot");
  }
  vb_results_free(r, n);
  free(path);
}

/* benchmark_serving.py: "request_goodput:", no "failed" (counted from its errors list: none), no
** latencies: no per-request TPOT (its latency, taken at the stream's end, is not in the file; ttft +
** the gaps falls short). */
static void test_legacy(void) {
  char *path = test_data_path("vllm_bench", "legacy_rate4.json");
  vb_result *r = NULL;
  size_t n = 0;
  CHECK_EQ_INT(vb_parse_file(path, &r, &n), 0);
  if (n == 1) {
    CHECK_EQ_STR(r->model, "meta-llama/Llama-3.1-8B-Instruct");
    CHECK_EQ_STR(r->backend, "vllm");
    CHECK_EQ_INT(r->max_concurrency, -1);
    CHECK_NEAR(r->request_rate, 4.0, 0);
    CHECK_EQ_STR(r->case_name, "rate=4");
    CHECK(vb_find_value(r, "failed") && vb_find_value(r, "failed")->v == 0);
    CHECK(vb_find_value(r, "request_goodput") == NULL); /* "request_goodput:": null */
    CHECK_EQ_INT(r->samples[VB_E2EL].n, 0);
    check_against_vllm(r, VB_TTFT, "ttft");
    CHECK_EQ_INT(r->samples[VB_TPOT].n, 0);
    CHECK(vb_find_value(r, "mean_tpot_ms") != NULL); /* vLLM's own statistic is kept */
    check_against_vllm(r, VB_ITL, "itl");
  }
  vb_results_free(r, n);
  free(path);
}

#define MOST_KEYS "\"model_id\": \"m\", \"request_throughput\": 2.0, \"output_throughput\": 10.0, " \
                  "\"mean_ttft_ms\": 5.0"
#define MINIMAL_KEYS MOST_KEYS ", \"duration\": 2.0, \"completed\": 4"

static void test_legacy_goodput_spelling(void) {
  const char *text = "{" MINIMAL_KEYS ", \"request_goodput:\": 1.5, \"request_rate\": 2}";
  vb_result *r = NULL;
  size_t n = 0;
  CHECK_EQ_INT(vb_parse_text("g.json", text, strlen(text), &r, &n), 0);
  if (n == 1) {
    CHECK_NEAR(value_of(r, "request_goodput"), 1.5, 0);
    CHECK(vb_find_value(r, "request_goodput:") == NULL);
    CHECK_EQ_STR(r->case_name, "rate=2");
  }
  vb_results_free(r, n);
}

/* Python's json.dump writes NaN and Infinity; they mean "no value", not a broken file. */
static void test_nonfinite_numbers(void) {
  const char *text = "{" MINIMAL_KEYS ", \"std_ttft_ms\": NaN, \"p99_ttft_ms\": Infinity,"
                     " \"label\": \"NaN Infinity\"}";
  vb_result *r = NULL;
  size_t n = 0;
  CHECK_EQ_INT(vb_parse_text("nan.json", text, strlen(text), &r, &n), 0);
  if (n == 1) {
    CHECK(vb_find_value(r, "std_ttft_ms") == NULL);
    CHECK(vb_find_value(r, "p99_ttft_ms") == NULL);
    CHECK_EQ_STR(r->label, "NaN Infinity"); /* strings are left alone */
  }
  vb_results_free(r, n);
}


/* Spellings and values of other vLLM versions and settings. */
static void test_versions(void) {
  vb_result *r = NULL;
  size_t n = 0;
  /* 0.3-0.4: "request_inthroughput"; --skip-tokenizer-init: no latency statistics at all */
  const char *old = "{\"model_id\": \"m\", \"duration\": 2.0, \"completed\": 4, \"request_inthroughput\": 2.0, "
                    "\"output_throughput\": 10.0, \"best_of\": 1, \"burstiness\": Infinity}";
  CHECK_EQ_INT(vb_parse_text("old.json", old, strlen(old), &r, &n), 0);
  if (n == 1) {
    CHECK_NEAR(value_of(r, "request_throughput"), 2.0, 0);
    CHECK(vb_find_value(r, "best_of") == NULL); /* a setting, not a measurement */
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r->params, "best_of")), 1, 0);
    CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->params, "burstiness")), "inf");
  }
  vb_results_free(r, n);
  /* every request failed: vLLM's zeros (or NaN) are not latencies */
  const char *failed = "{\"model_id\": \"m\", \"duration\": 2.0, \"completed\": 0, \"failed\": 5, "
                       "\"request_throughput\": 0.0, \"output_throughput\": 0.0, \"mean_ttft_ms\": 0.0, "
                       "\"p99_ttft_ms\": 0.0, \"median_tpot_ms\": NaN, \"ttfts\": [0, 0], \"errors\": [\"x\", \"y\"]}";
  CHECK_EQ_INT(vb_parse_text("failed.json", failed, strlen(failed), &r, &n), 0);
  if (n == 1) {
    CHECK_EQ_INT(r->completed, 0);
    CHECK(vb_find_value(r, "mean_ttft_ms") == NULL);
    CHECK(vb_find_value(r, "p99_ttft_ms") == NULL);
    CHECK_NEAR(value_of(r, "failed"), 5, 0);
    CHECK_EQ_INT(r->samples[VB_TTFT].n, 0);
  }
  vb_results_free(r, n);
}

/* SGLang's sglang.bench_serving lines: no model, its spellings recorded under vLLM's names. */
static void test_sglang(void) {
  vb_result *r = NULL;
  size_t n = 0;
  /* mid 2024: medians only, no request_throughput; 2025: the full set; later: "trace" */
  const char *text =
      "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"request_rate\": Infinity, "
      "\"total_input_tokens\": 40, \"total_output_tokens\": 8, \"total_output_tokens_retokenized\": 8, "
      "\"mean_e2e_latency_ms\": 90.0, \"median_e2e_latency_ms\": 88.0, \"median_ttft_ms\": 20.0, "
      "\"median_itl_ms\": 9.0, \"output_throughput\": 40.0, \"duration\": 0.2, \"completed\": 4}\n"
      "\n"
      "{\"backend\": \"sglang-oai\", \"request_rate\": 4.0, \"max_concurrency\": 2, \"duration\": 1.0, "
      "\"completed\": 4, \"total_output_tokens_retokenized\": 8, \"request_throughput\": 4.0, "
      "\"output_throughput\": 8.0, \"p99_e2e_latency_ms\": 95.0, \"p99_ttft_ms\": 30.0, \"concurrency\": 0.4, "
      "\"accept_length\": null}\n"
      "{\"tag\": \"t\", \"backend\": \"sglang\", \"request_rate\": \"trace\", \"max_concurrency\": null, "
      "\"server_info\": {\"tp_size\": 2}, \"duration\": 1.0, \"completed\": 4, "
      "\"total_output_tokens_retokenized\": 8, \"request_throughput\": 4.0, \"output_throughput\": 8.0, "
      "\"total_throughput\": 48.0, \"accept_length\": 2.5}\n";
  CHECK_EQ_INT(vb_parse_text("s.jsonl", text, strlen(text), &r, &n), 0);
  CHECK_EQ_INT((long long)n, 3);
  if (n == 3) {
    CHECK(r[0].model == NULL);
    CHECK_EQ_STR(r[0].case_name, "rate=inf");
    CHECK_NEAR(value_of(&r[0], "mean_e2el_ms"), 90.0, 0);
    CHECK_NEAR(value_of(&r[0], "median_e2el_ms"), 88.0, 0);
    CHECK(vb_find_value(&r[0], "mean_e2e_latency_ms") == NULL);
    CHECK(vb_find_value(&r[0], "request_throughput") == NULL); /* not written, not made up */
    CHECK_EQ_INT(r[1].line, 3);
    CHECK_EQ_STR(r[1].case_name, "concurrency=2,rate=4");
    CHECK_NEAR(value_of(&r[1], "p99_e2el_ms"), 95.0, 0);
    CHECK_NEAR(value_of(&r[1], "concurrency"), 0.4, 0);
    CHECK(vb_find_value(&r[1], "spec_decode_acceptance_length") == NULL);
    CHECK_EQ_STR(r[2].case_name, "rate=trace");
    CHECK_EQ_STR(r[2].label, "t");
    CHECK_NEAR(value_of(&r[2], "total_token_throughput"), 48.0, 0);
    CHECK_NEAR(value_of(&r[2], "spec_decode_acceptance_length"), 2.5, 0);
  }
  vb_results_free(r, n);
}

static void expect_error(const char *text, const char *expected) {
  vb_result *r = (vb_result *)1;
  size_t n = 99;
  xp_clear_error();
  CHECK_EQ_INT(vb_parse_text("bad.json", text, strlen(text), &r, &n), XP_EXIT_USAGE);
  CHECK(r == NULL && n == 0);
  if (!strstr(xp_last_error(), expected)) {
    fprintf(stderr, "error \"%s\" lacks \"%s\"\n", xp_last_error(), expected);
    CHECK(0);
  }
  CHECK(strchr(xp_last_error(), '\n') == NULL);
}

static void test_bad_input(void) {
  xp_error_quiet(1);
  expect_error("this is not json", "bad.json:1: not valid JSON");
  expect_error("", "bad.json: empty file");
  /* a list is a .pytorch.json side file's (vb_pytorch.c); after a result, no result */
  expect_error("[1, 2]", "bad.json:1: record 0: expected an object, found a number");
  expect_error("{" MINIMAL_KEYS "}\n[1, 2]", "bad.json:2: expected a JSON object");
  expect_error("{\"model_id\": \"m\"}", "missing key \"duration\"");
  expect_error("{\n\"model_id\": \"m\", \"duration\": 2.0, \"completed\": 4,\n"
               "\"request_throughput\": 2.0, \"mean_ttft_ms\": 5.0}",
               "missing key \"output_throughput\"");
  expect_error("{" MINIMAL_KEYS ",\n\"total_input_tokens\": \"many\"}",
               "bad.json:2: total_input_tokens: expected a whole number, found a string");
  expect_error("{\"model_id\": \"m\",\n\"duration\": \"2s\", \"completed\": 4, \"request_throughput\": 2.0,"
               " \"output_throughput\": 10.0, \"mean_ttft_ms\": 5.0}",
               "bad.json:2: duration: expected a number, found a string");
  expect_error("{" MOST_KEYS ", \"duration\": 2.0, \"completed\": 4.5}", "completed: expected a whole number >= 0");
  expect_error("{" MINIMAL_KEYS ", \"request_rate\": \"fast\"}", "request_rate: expected a number > 0, \"inf\" or \"trace\"");
  expect_error("{" MINIMAL_KEYS ", \"p99_ttft_ms\": \"12\"}", "p99_ttft_ms: expected a number, found a string");
  expect_error("{" MINIMAL_KEYS ", \"ttfts\": [0.1, \"x\"]}", "ttfts: entry 1: expected a number");
  expect_error("{" MINIMAL_KEYS ", \"itls\": [[0.1], 0.2]}", "itls: entry 1: expected an array of numbers");
  expect_error("{" MINIMAL_KEYS ", \"ttfts\": [0.1, 0.2],\n\"latencies\": [0.3]}",
               "bad.json:2: latencies: has 1 entries but ttfts has 2");
  expect_error("{\"model_id\": null, \"duration\": 2.0}", "model_id: is null");
  expect_error("{\"model_id\": \"e5\", \"duration\": 2.0, \"completed\": 4, \"request_throughput\": 2.0,"
               " \"input_sequence_throughput\": 2.0, \"mean_e2el_ms\": 9.0}", "a pooling (embedding) benchmark");
  /* A broken second object of an --append-result file names its line. */
  expect_error("{" MINIMAL_KEYS "}\n{" MOST_KEYS ", \"completed\": 4, \"duration\": true}", "bad.json:2: duration");
  expect_error("{" MINIMAL_KEYS "}\n{\"model_id\": ", "bad.json:2: not valid JSON");
  /* JSONL: a line cut short reads on into the next line's result; the cut line is named */
  expect_error("{" MINIMAL_KEYS "}\n{\"model_id\": \"m\", \"durat\n{" MINIMAL_KEYS "}",
               "bad.json:2: not valid JSON: the result that starts here is cut short");
  /* a median latency below the median TTFT (SGLang's spelling named) */
  expect_error("{\"backend\": \"sglang\", \"total_output_tokens_retokenized\": 8, \"duration\": 1.0, "
               "\"completed\": 4, \"output_throughput\": 8.0,\n\"median_e2e_latency_ms\": 10.0, \"median_ttft_ms\": 20.0}",
               "bad.json:2: median_e2e_latency_ms: 10 ms, shorter than median_ttft_ms (20 ms)");
  xp_error_quiet(0);
}

/* check() reads the files anew: a reading it held for a spec (an import refused before execute
** took it) is not what a later check of the same spec, its file written since, plans or
** records. The lines: sglang.bench_serving's (tests/data/vllm_bench/sglang_c1_c4_c8.jsonl). */
static void test_check_reads_anew(void) {
  size_t len = 0;
  char *three = test_data("vllm_bench", "sglang_c1_c4_c8.jsonl", &len);
  char *one = xp_asprintf("%.*s", (int)(strchr(three, '\n') + 1 - three), three);
  char *path = test_write_file("grows.jsonl", one);
  cJSON *root = cJSON_CreateObject(), *files = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "kind", "vllm_bench");
  cJSON_AddStringToObject(root, "model", "M");
  cJSON_AddItemToArray(files, cJSON_CreateString(path));
  cJSON_AddItemToObject(root, "files", files);
  xp_spec *spec = xp_spec_from_json(root, "<test>", test_dir);
  const xp_kind *k = xp_kind_find("vllm_bench");
  CHECK_EQ_INT(xp_validate_spec(k, spec), 0);
  free(test_write_file("grows.jsonl", three)); /* two results appended since */
  CHECK_EQ_INT(xp_validate_spec(k, spec), 0);
  char *plan = NULL;
  size_t plan_len = 0;
  FILE *out = open_memstream(&plan, &plan_len);
  CHECK_EQ_INT(k->plan(spec, out), 0);
  fclose(out);
  CHECK(strstr(plan, "with 3 cases") != NULL);
  free(plan);
  xp_spec_free(spec);
  free(path);
  free(one);
  free(three);
}

int main(void) {
  if (!getenv("XP_SRC")) {
    fprintf(stderr, "skipped: XP_SRC is not set (run through ctest)\n");
    return 77;
  }
  test_current_detailed();
  test_current_summary_only();
  test_append_result();
  test_legacy();
  test_legacy_goodput_spelling();
  test_versions();
  test_nonfinite_numbers();
  test_sglang();
  test_bad_input();
  if (!test_dir_make("/tmp/xp-test-vllm-bench-XXXXXX")) return 1;
  test_check_reads_anew();
  test_dir_remove();
  CHECK_DONE();
}
