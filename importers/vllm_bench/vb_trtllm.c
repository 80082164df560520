/*
** trtllm-bench throughput/latency --report_json: TensorRT-LLM's benchmark of its own engine,
** in-process (the LLM API, no server), rewritten in place as the serving benchmark's result of
** the same measurement, for vb_parse.c to read as it reads that one.
**
** The writer: ReportUtility.get_statistics_dict of tensorrt_llm/bench/dataclasses/reporting.py
** (NVIDIA/TensorRT-LLM commit 0249976): engine (model, version, backend, dtype, quantization),
** machine, world_info (tp_size, pp_size, ep_size, max_batch_size, max_num_tokens, issue_rate),
** request_info (num_requests, avg_input_length, avg_output_length), performance
** (total_latency_ms, request_throughput_req_s, system_output_throughput_tok_s,
** system_total_throughput_tok_s, output_throughput_per_user_tok_s: each request's output over
** its latency, averaged; request_latency_percentiles_ms: p50, p90, p95, p99, minimum, maximum,
** average), with --streaming streaming_metrics (ttft_percentiles, tpot_percentiles: a request's
** time per token after its first), then dataset. Every request is counted, none apart as failed.
**
** The load: the report names no --concurrency (its requests all at once where none was given).
** It names when they were issued: world_info.issue_rate is issue_rate_ns * 1e9, and issue_rate_ns
** the time from the first request's start to the last's over the requests, in ns
** (StatsKeeper.generate_statistics_summary: queue_time_total / num_requests; "Issue Rate
** (req/sec)" in its printout, a time per request however). A window shorter than the shortest
** request means every request was issued before any ended: all at once, the offline load of
** vllm bench throughput and sglang.bench_offline_throughput, case "offline". A longer one, the
** requests held back, a --concurrency below their count, which only the user can name (--set
** concurrency=N: vllm_bench.c names the case).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "vb_parse.h"
#include "xp.h"

/* The number at a key of object o (named "part.key" in messages), required or not; NAN where
** absent. */
static int number(const char *label, long line, const cJSON *o, const char *part, const char *key, int required,
                  double *x) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  *x = NAN;
  if ((!v || cJSON_IsNull(v)) && required)
    return xp_error_at(XP_EXIT_USAGE, label, line, "missing key \"%s.%s\" (not a trtllm-bench --report_json report?)",
                       part, key);
  if (!v || cJSON_IsNull(v)) return 0;
  if (!cJSON_IsNumber(v) || v->valuedouble < 0)
    return xp_error_at(XP_EXIT_USAGE, label, line, "%s.%s: expected a number >= 0, found %s", part, key,
                       cJSON_IsNumber(v) ? "a negative one" : vb_json_kind(v));
  *x = v->valuedouble;
  return 0;
}

/* One statistic's percentiles under vLLM's prefixes, average the mean, p50 the median, as
** PREFIX_NAME_ms for a latency (ms set) and PREFIX_NAME otherwise, each times factor; a value
** above most (a fraction's 1) is refused. */
static int take_percentiles(const char *label, long line, const cJSON *o, const char *part, const char *name, int ms,
                            double factor, double most, cJSON *flat) {
  static const char *const stats[][2] = {{"average", "mean"}, {"p50", "median"}, {"p90", "p90"}, {"p95", "p95"},
                                         {"p99", "p99"},      {"minimum", "min"}, {"maximum", "max"}};
  for (size_t i = 0; o && i < sizeof stats / sizeof stats[0]; i++) {
    double v;
    char key[96];
    if (number(label, line, o, part, stats[i][0], 0, &v)) return XP_EXIT_USAGE;
    if (v > most)
      return xp_error_at(XP_EXIT_USAGE, label, line, "%s.%s: expected a fraction from 0 to 1, found %g", part,
                         stats[i][0], v);
    snprintf(key, sizeof key, "%s_%s%s", stats[i][1], name, ms ? "_ms" : "");
    vb_flat_number(flat, key, v * factor);
  }
  return 0;
}

/* Speculative decoding's statistics over the requests (decoding_stats, written with a draft
** model or MTP: generate_statistics_summary of reporting.py, commit 0249976), each a request's:
** the tokens it got a decoding iteration (its output over its iterations), the drafted tokens
** accepted (a fraction: accepted over the iterations times the draft length, in % as vLLM
** prints its acceptance), and the tokens drafted and accepted. Not vLLM's
** spec_decode_acceptance_length, which is over all drafts at once: named apart. */
static const struct { const char *part, *name, *unit; double factor, most; } decoding[] = {
    {"acceptance_length_percentiles", "acceptance_length", "tokens", 1, INFINITY},
    {"draft_acceptance_rate_percentiles", "draft_acceptance_rate", "%", 100, 1},
    {"num_draft_tokens_percentiles", "draft_tokens", "tokens", 1, INFINITY},
    {"num_accepted_draft_tokens_percentiles", "accepted_draft_tokens", "tokens", 1, INFINITY}};

const char *vb_trtllm_unit(const char *key) {
  const char *stat = strchr(key, '_');
  for (size_t i = 0; stat && i < sizeof decoding / sizeof decoding[0]; i++)
    if (strcmp(stat + 1, decoding[i].name) == 0) return decoding[i].unit;
  return NULL;
}

static int take_decoding(const char *label, long line, const cJSON *dec, cJSON *flat) {
  char part[96];
  for (size_t i = 0; cJSON_IsObject(dec) && i < sizeof decoding / sizeof decoding[0]; i++) {
    snprintf(part, sizeof part, "decoding_stats.%s", decoding[i].part);
    if (take_percentiles(label, line, cJSON_GetObjectItemCaseSensitive(dec, decoding[i].part), part, decoding[i].name,
                         0, decoding[i].factor, decoding[i].most, flat))
      return XP_EXIT_USAGE;
  }
  return 0;
}

/* The measurement: counts, totals, throughputs and latencies, under vLLM's names. */
static int take_performance(const char *label, long line, const cJSON *o, cJSON *flat) {
  const cJSON *req = cJSON_GetObjectItemCaseSensitive(o, "request_info");
  const cJSON *perf = cJSON_GetObjectItemCaseSensitive(o, "performance");
  const cJSON *world = cJSON_GetObjectItemCaseSensitive(o, "world_info");
  const cJSON *stream = cJSON_GetObjectItemCaseSensitive(o, "streaming_metrics");
  double n, in, out, total, rps, tps, all, user, issue;
  if (number(label, line, req, "request_info", "num_requests", 1, &n) ||
      number(label, line, req, "request_info", "avg_input_length", 1, &in) ||
      number(label, line, req, "request_info", "avg_output_length", 1, &out) ||
      number(label, line, perf, "performance", "total_latency_ms", 1, &total) ||
      number(label, line, perf, "performance", "request_throughput_req_s", 1, &rps) ||
      number(label, line, perf, "performance", "system_output_throughput_tok_s", 1, &tps) ||
      number(label, line, perf, "performance", "system_total_throughput_tok_s", 0, &all) ||
      number(label, line, perf, "performance", "output_throughput_per_user_tok_s", 0, &user) ||
      number(label, line, world, "world_info", "issue_rate", 0, &issue))
    return XP_EXIT_USAGE;
  vb_flat_number(flat, "num_prompts", n);
  vb_flat_number(flat, "completed", n);
  vb_flat_number(flat, "total_input_tokens", in * n);
  vb_flat_number(flat, "total_output_tokens", out * n);
  vb_flat_number(flat, "duration", total / 1e3);
  vb_flat_number(flat, "request_throughput", rps);
  vb_flat_number(flat, "output_throughput", tps);
  vb_flat_number(flat, "total_token_throughput", all);
  vb_flat_number(flat, "user_throughput", user);
  vb_flat_number(flat, "issue_window_s", issue * n / 1e18); /* issue_rate / 1e9 ns a request, in s */
  if (take_percentiles(label, line, cJSON_GetObjectItemCaseSensitive(perf, "request_latency_percentiles_ms"),
                       "performance.request_latency_percentiles_ms", "e2el", 1, 1, INFINITY, flat) ||
      take_percentiles(label, line, cJSON_GetObjectItemCaseSensitive(stream, "ttft_percentiles"),
                       "streaming_metrics.ttft_percentiles", "ttft", 1, 1, INFINITY, flat) ||
      take_percentiles(label, line, cJSON_GetObjectItemCaseSensitive(stream, "tpot_percentiles"),
                       "streaming_metrics.tpot_percentiles", "tpot", 1, 1, INFINITY, flat) ||
      take_decoding(label, line, cJSON_GetObjectItemCaseSensitive(o, "decoding_stats"), flat))
    return XP_EXIT_USAGE;
  return 0;
}

/* The report's precision: engine.dtype, the model's (torch_dtype_to_str: "bfloat16", "float16",
** "float32"; the TRT engine's pretrained_config dtype), and engine.quantization, its QuantAlgo
** ("FP8", "FP8_BLOCK_SCALES", "NVFP4", "W4A16_AWQ", ...; null unquantized), both kept as written.
** xp's dtype is what the GEMMs run at, as --set dtype declares it of a vLLM run (bf16, fp8, and
** fp8_block as the gemm specs name DeepSeek's block scales): the model's dtype unquantized or
** with weight-only quantization (W4A16*, W8A16*: activations unquantized), fp8 for FP8 (weights
** and activations), fp8_block for FP8_BLOCK_SCALES; no xp name means the same as the others
** (NVFP4, W4A8_AWQ, W8A8_SQ_*, MIXED_PRECISION): none. */
static void take_precision(const cJSON *engine, cJSON *info) {
  static const char *const torch_names[][2] = {{"bfloat16", "bf16"}, {"float16", "fp16"}, {"float32", "fp32"}};
  const char *dtype = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(engine, "dtype"));
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(engine, "quantization");
  const char *quant = cJSON_GetStringValue(q);
  if (quant && strcmp(quant, "None") == 0) quant = NULL; /* QuantAlgo's absence, as str() may write it */
  const char *mine = NULL;
  for (size_t i = 0; dtype && i < sizeof torch_names / sizeof torch_names[0]; i++)
    if (strcmp(dtype, torch_names[i][0]) == 0) mine = torch_names[i][1];
  if (quant && strcmp(quant, "FP8") == 0) mine = "fp8";
  else if (quant && strcmp(quant, "FP8_BLOCK_SCALES") == 0) mine = "fp8_block";
  else if (quant && strncmp(quant, "W4A16", 5) != 0 && strncmp(quant, "W8A16", 5) != 0) mine = NULL;
  if (mine) cJSON_AddStringToObject(info, "dtype", mine);
  if (dtype && *dtype) cJSON_AddStringToObject(info, "engine_dtype", dtype);
  /* the KV cache's: a QuantAlgo of its kv_cache_quant_algo ("FP8", "NVFP4"), null unquantized */
  const char *kv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(engine, "kv_cache_dtype"));
  if (kv && *kv) cJSON_AddStringToObject(info, "kv_cache_dtype", kv);
  /* null is a statement (unquantized), absent none: only a report that has the key says it */
  if (q) cJSON_AddStringToObject(info, "engine_quantization", quant && *quant ? quant : "None");
}

int vb_trtllm_read(const char *label, long line, cJSON *o) {
  const cJSON *engine = cJSON_GetObjectItemCaseSensitive(o, "engine");
  const cJSON *world = cJSON_GetObjectItemCaseSensitive(o, "world_info");
  const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(engine, "model"));
  const char *version = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(engine, "version"));
  if (!model || !*model)
    return xp_error_at(XP_EXIT_USAGE, label, line, "missing key \"engine.model\": the report names no model");
  cJSON *flat = cJSON_CreateObject();
  cJSON_AddStringToObject(flat, "model_id", model);
  if (version && *version) cJSON_AddStringToObject(flat, "version", version);
  /* the parallel sizes, as SGLang's server_info names them (vb_parse.c take_server_model), and the
  ** GPU: machine.name, the first of the job's (TensorRT-LLM's GPUs are alike, _query_gpu_info),
  ** world_size of them */
  cJSON *info = cJSON_AddObjectToObject(flat, "server_info");
  const char *gpu = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "machine"), "name"));
  if (gpu && *gpu && strcmp(gpu, "Unknown") != 0) cJSON_AddStringToObject(info, "gpu_name", gpu);
  static const char *const sizes[] = {"tp_size", "pp_size", "ep_size", "world_size"};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(world, sizes[i]);
    if (cJSON_IsNumber(v)) cJSON_AddNumberToObject(info, sizes[i], v->valuedouble);
  }
  take_precision(engine, info);
  /* the speculative decoding that ran (decoding_stats.mode: the PyTorch backend's
  ** speculative_config.decoding_type, "MTP", "Eagle3", "NGram", ...; the TRT engine's decoding
  ** mode), a setting of the engine its statistics are of: the run's serve.decoding_mode */
  const cJSON *decoding = cJSON_GetObjectItemCaseSensitive(o, "decoding_stats");
  const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(decoding, "mode"));
  if (mode && *mode) cJSON_AddStringToObject(info, "decoding_mode", mode);
  if (take_performance(label, line, o, flat)) {
    cJSON_Delete(flat);
    return XP_EXIT_USAGE;
  }
  /* the report's own keys go: its strings would be read as settings of the case */
  vb_flat_replace(o, flat);
  return 0;
}
