/*
** The result files of the engines' other benchmark tools, told apart from the serving
** benchmarks' by keys only they write, and read or refused before vb_parse.c reads an object.
**
**   python -m sglang.bench_offline_throughput --result-filename F (SGLang; since 2026
**     sglang.benchmark.offline_throughput): appends one line a run, the totals of one batch of
**     prompts handed to SGLang's own Engine (backend "engine", or "runtime"): backend,
**     successful_requests, total_latency (s), total_input_tokens, total_output_tokens,
**     request_throughput, input_throughput, output_throughput, total_throughput (tok/s) and,
**     later, last_gen_throughput (the server's own gauge). Every one is a serving benchmark's
**     quantity over the run: read under those names (successful_requests is completed,
**     total_latency the duration) as one case, "offline". No model: --set model=NAME.
**   python -m sglang.bench_one_batch_server --result-filename F (SGLang; since 2026
**     sglang.benchmark.one_batch_server): a line per batch size, input and output length: one
**     batch sent at once and timed to its end. run_name, batch_size, input_len, output_len,
**     latency (s), output_throughput, overall_throughput; later last_gen_throughput (-1 where
**     the server has none), input_throughput (tokens in over the time until the batch's last
**     first token: prefill), ttft (later last_ttft, s), acc_length (-1: none),
**     total_output_tokens, num_early_stopped, steady_state_output_throughput,
**     steady_state_window_s and cache_hit_rate (0-1); never --profile's profile_link
**     (dump_to_jsonl leaves it out), whose profiled runs are lines of their own after the
**     measured ones, alike (warn_batch_repeated of vllm_bench.c). The first versions divided
**     the output tokens by the whole latency (a serving benchmark's output_throughput); those
**     that time the first tokens divide them by the time after the last first token
**     (decode_throughput here). overall_throughput is total_token_throughput, acc_length
**     spec_decode_acceptance_length; the latency of the batch is batch_latency_ms and its last
**     first token last_ttft_ms (ms, as every latency xp records of these tools), the hit rate
**     cache_hit_rate_pct. No model, and no engine: it benchmarks an SGLang or a vLLM server and
**     does not say which.
**
**   Beside its lines, two versions write the batches as one JSON list (json.dump, indent 2):
**     --output-path (2025: BenchmarkResult of bench_one_batch_server.py, model_path, ttft,
**     profile_links) and --pydantic-result-filename (since: save_results_as_pydantic_models of
**     python/sglang/test/nightly_bench_utils.py, model_path, last_ttft, profile_link_extend and
**     _decode, server_args: the server's launch arguments, --server-args-for-metrics). Each entry
**     is read as a line (vb_parse.c splits the list); model_path names the model, and server_args'
**     --tp/--tp-size/--tensor-parallel-size N (and pp, dp, ep alike) the parallel sizes and
**     --enable-dp-attention (its --dp-size then no replicas, vb_parse.c dp_attention): gathered
**     as the server_info that sglang.bench_serving writes, where vb_parse.c reads them. The list
**     holds the batches of the run's lines, unrounded, and neither has a run id or time: a list
**     given with its lines is told by its values, each the line's before rounding (batch_twice
**     of vllm_bench.c), and refused.
**
**   python -m sglang.bench_one_batch --result-filename F (SGLang: the model run in-process, no
**     server; since 2026 sglang.benchmark.one_batch): a line per batch as the server's, timed
**     inside: run_name, batch_size, input_len, output_len, prefill_latency, prefill_throughput,
**     median_decode_latency and median_decode_throughput (of the decode steps; only for outputs
**     longer than one token), total_latency, overall_throughput. total_latency is the batch's
**     latency (batch_latency_ms), prefill_latency prefill_latency_ms, median_decode_latency
**     median_decode_step_ms; the engine is SGLang's. Before its rename (2024: sglang.bench_latency,
**     python/sglang/bench_latency.py) the same lines held the decode steps' mean instead,
**     avg_decode_latency (s) and avg_decode_throughput (the batch over it), and total_throughput
**     for overall_throughput: mean_decode_step_ms and mean_decode_throughput here.
**
**   vllm bench startup --output-json (and vllm bench sweep startup's run=N.json, summary.json):
**     refused. It times the engine's start, cold and warm (avg_cold_startup_time, the
**     iterations' cold_startup_times, their percentiles, the same of compilation), and serves no
**     request: nothing a serving benchmark's case is made of.
**   vllm bench throughput --output-json (benchmarks/benchmark_throughput.py before it) and
**   vllm bench latency --output-json (benchmarks/benchmark_latency.py): refused. The first
**     writes elapsed_time, num_requests, total_num_tokens (prompt and output together),
**     requests_per_second and tokens_per_second; the second avg_latency, std_latency (later),
**     latencies and percentiles. Neither names the model, nor the prompt and output lengths,
**     nor (latency) the batch size: nothing in the file says what was measured, and a record
**     of it could not be compared with anything. The .pytorch.json beside it (written with
**     SAVE_TO_PYTORCH_BENCHMARK_FORMAT set) holds the same numbers with the run's args, which
**     name them: that one is read (vb_pytorch.c), and the refusal says so.
**   benchmarks/benchmark_guided.py --output-json / --save-results (vLLM's offline benchmark of
**     guided decoding, 2025): refused, named. vllm bench throughput's keys and correct_rate(%),
**     the texts (outputs) and, with --async-engine, pandas' describe() of first- and next-token
**     latencies; no model, dataset or guided-decoding ratio.
**   benchmarks/multi_turn/benchmark_serving_multi_turn.py (vLLM's multi-turn chat benchmark):
**     refused, named. Its summary is printed, and kept only in an Excel file (--excel-output);
**     --stats-json-output lists each request's RequestStats (ttft_ms, tpot_ms, latency_ms,
**     input_num_turns, conversation_id, ...) and --output-file the conversations with the
**     server's answers. Neither names the model, nor the load (--num-clients, each client's
**     --request-rate, --max-active-conversations): no case could say what was measured.
**   NVIDIA genai-perf's profile_export_genai_perf.json and AIPerf's profile_export_aiperf.json:
**     each metric a summary object ({unit, avg, p50, p99, std, ...}: ms, requests/sec,
**     tokens/sec), what was run (model, concurrency or rate, lengths) in input_config, of
**     another layout in each writer: rewritten as a serving benchmark's result by vb_summary.c.
**   trtllm-bench throughput/latency --report_json: TensorRT-LLM's offline benchmark of its own
**     engine (engine, world_info, request_info, performance), no server: rewritten as a serving
**     benchmark's result by vb_trtllm.c, case "offline" (vllm_bench.c names a held-back load).
*/
#include <string.h>
#include "vb_parse.h"
#include "xp.h"

const char *const vb_tool_name[VB_NTOOLS] = {NULL, "sglang.bench_offline_throughput", "sglang.bench_one_batch_server",
                                             "sglang.bench_one_batch", "vllm bench throughput", "vllm bench latency",
                                             "genai-perf or AIPerf profile export", "trtllm-bench"};

static int has(const cJSON *o, const char *key) { return cJSON_HasObjectItem(o, key); }

/* Where a result is, for messages about the keys as the file spells them. */
typedef struct vb_at {
  const char *label;
  long line;
} vb_at;

/* Rename key to as (when there), its number scaled by scale (0: a string, kept as it is); a
** number below 0 is the tool's "none" (-1) and goes. A value of the wrong type is refused
** here, where its name is still the file's. */
static int rename_key(const vb_at *at, cJSON *o, const char *key, const char *as, double scale) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v || cJSON_IsNull(v)) return 0;
  if (scale != 0 && !cJSON_IsNumber(v))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "%s: expected a number, found %s", key,
                       cJSON_IsString(v) ? "a string" : "another type");
  if (scale != 0 && v->valuedouble < 0) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    return 0;
  }
  if (scale != 0 && scale != 1) cJSON_SetNumberValue(v, v->valuedouble * scale);
  char *name = xp_strdup(as);
  if (!(v->type & cJSON_StringIsConst)) cJSON_free(v->string);
  v->string = name;
  v->type &= ~cJSON_StringIsConst;
  return 0;
}

/* The key the tool always writes that becomes a required one under another name, asked for
** under the file's name. */
static int need(const vb_at *at, const cJSON *o, const char *key, enum vb_tool tool) {
  if (has(o, key)) return 0;
  return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "missing key \"%s\" (not a %s --result-filename line?)", key,
                     vb_tool_name[tool]);
}

/* A tool's key, the name xp records it under and the factor to xp's unit (0: a string). A key
** renamed to itself is there for its -1, which goes. */
typedef struct vb_rename {
  const char *key, *as;
  double scale;
} vb_rename;

static int rename_all(const vb_at *at, cJSON *o, const vb_rename *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (rename_key(at, o, names[i].key, names[i].as, names[i].scale)) return 1;
  return 0;
}
#define RENAME_ALL(at, o, names) rename_all(at, o, names, sizeof names / sizeof names[0])

static int read_offline(const vb_at *at, cJSON *o) {
  static const vb_rename names[] = {{"successful_requests", "completed", 1},
                                    {"total_latency", "duration", 1},
                                    {"last_gen_throughput", "last_gen_throughput", 1}};
  return RENAME_ALL(at, o, names);
}

/* The size a parallel dimension's flag gives among a server's launch arguments (strings): SGLang's
** --tp N, --tp-size N or --tensor-parallel-size N (argparse takes --tp for --tp-size), or with
** "="; -1 when not given or not a whole number. */
static int64_t flag_size(const cJSON *args, enum vb_parallel k) {
  char flag[3][48];
  snprintf(flag[0], sizeof flag[0], "--%s", vb_parallel_name[k]);
  snprintf(flag[1], sizeof flag[1], "--%s-size", vb_parallel_name[k]);
  snprintf(flag[2], sizeof flag[2], "--%s", vb_parallel_arg[k]);
  for (char *c = flag[2]; *c; c++)
    if (*c == '_') *c = '-';
  for (const cJSON *a = args->child; a; a = a->next)
    for (int f = 0; f < 3; f++) {
      const size_t fl = strlen(flag[f]);
      if (strncmp(a->valuestring, flag[f], fl) != 0) continue;
      if (a->valuestring[fl] == '=') return vb_parallel_text(a->valuestring + fl + 1);
      if (a->valuestring[fl] == 0) return vb_parallel_text(cJSON_GetStringValue(a->next));
    }
  return -1;
}

/* A one_batch_server JSON list's model_path and server_args say what sglang.bench_serving's
** server_info says: gathered as one, for vb_parse.c to read as it reads that. */
static int gather_server_info(const vb_at *at, cJSON *o) {
  const cJSON *model = cJSON_GetObjectItemCaseSensitive(o, "model_path");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "server_args"), *a;
  if (!model && !args) return 0;
  if (model && !cJSON_IsString(model) && !cJSON_IsNull(model))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "model_path: expected a string, found %s", vb_json_kind(model));
  if (args && !cJSON_IsArray(args) && !cJSON_IsNull(args))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "server_args: expected a list of strings, found %s",
                       vb_json_kind(args));
  const cJSON *list = cJSON_IsArray(args) ? args : NULL;
  cJSON_ArrayForEach(a, list) if (!cJSON_IsString(a))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "server_args: expected a list of strings, found %s in it",
                         vb_json_kind(a));
  cJSON *info = cJSON_CreateObject();
  if (cJSON_IsString(model)) cJSON_AddStringToObject(info, "model_path", model->valuestring);
  for (int k = 0; k < VB_NPARALLEL && list; k++) {
    char key[16];
    const int64_t size = flag_size(list, (enum vb_parallel)k);
    snprintf(key, sizeof key, "%s_size", vb_parallel_name[k]);
    if (size > 0) cJSON_AddNumberToObject(info, key, (double)size);
  }
  /* --enable-dp-attention (a switch): its --dp-size the attention's groups, no replicas */
  int dp_attention = 0;
  cJSON_ArrayForEach(a, list) dp_attention |= strcmp(a->valuestring, "--enable-dp-attention") == 0;
  if (dp_attention) cJSON_AddTrueToObject(info, "enable_dp_attention");
  cJSON_DeleteItemFromObjectCaseSensitive(o, "model_path");
  cJSON_DeleteItemFromObjectCaseSensitive(o, "server_args");
  cJSON_AddItemToObject(o, "server_info", info);
  return 0;
}

static int read_one_batch(const vb_at *at, cJSON *o) {
  /* versions that time the batch's first tokens divide the output by the time after them */
  const int decode = has(o, "last_gen_throughput") || has(o, "input_throughput") || has(o, "ttft") ||
                     has(o, "last_ttft");
  static const vb_rename names[] = {{"run_name", "label", 0},
                                    {"latency", "batch_latency_ms", 1e3},
                                    {"ttft", "last_ttft_ms", 1e3},
                                    {"last_ttft", "last_ttft_ms", 1e3},
                                    {"input_throughput", "prefill_throughput", 1},
                                    {"overall_throughput", "total_token_throughput", 1},
                                    {"acc_length", "spec_decode_acceptance_length", 1},
                                    {"last_gen_throughput", "last_gen_throughput", 1},
                                    {"cache_hit_rate", "cache_hit_rate_pct", 100},
                                    {"num_early_stopped", "early_stopped_requests", 1}};
  if (need(at, o, "latency", VB_SGLANG_ONE_BATCH) || gather_server_info(at, o)) return 1;
  if (decode && rename_key(at, o, "output_throughput", "decode_throughput", 1)) return 1;
  return RENAME_ALL(at, o, names);
}

static int read_one_batch_local(const vb_at *at, cJSON *o) {
  static const vb_rename names[] = {{"run_name", "label", 0},
                                    {"total_latency", "batch_latency_ms", 1e3},
                                    {"prefill_latency", "prefill_latency_ms", 1e3},
                                    {"median_decode_latency", "median_decode_step_ms", 1e3},
                                    {"avg_decode_latency", "mean_decode_step_ms", 1e3},
                                    {"avg_decode_throughput", "mean_decode_throughput", 1},
                                    {"overall_throughput", "total_token_throughput", 1}};
  if (need(at, o, "total_latency", VB_SGLANG_ONE_BATCH_LOCAL)) return 1;
  return RENAME_ALL(at, o, names);
}

/* NVIDIA's genai-perf (JsonExporter: profile_export_genai_perf.json) and AIPerf, its successor
** (profile_export_aiperf.json; its first versions under "records"), write each metric as a
** summary object, "request_latency": {"unit": "ms", "avg": ..., "p50": ..., "std": ...}, where
** every serving benchmark xp reads writes numbers. */
static int summary_export(const cJSON *o) {
  static const char *const metrics[] = {"request_latency", "time_to_first_token", "request_throughput"};
  const cJSON *records = cJSON_GetObjectItemCaseSensitive(o, "records");
  for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, metrics[i]), "unit")) ||
        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(records, metrics[i]), "unit")))
      return 1;
  return 0;
}

int vb_tool_read(const char *label, long line, cJSON *o, enum vb_tool *tool) {
  *tool = VB_SERVE;
  if (!cJSON_IsObject(o)) return 0;
  /* benchmarks/benchmark_guided.py (vLLM's offline guided-decoding benchmark, vllm-project/vllm commit
  ** de698b0) writes vllm bench throughput's keys (tokens_per_second a string) and correct_rate(%) */
  if (has(o, "elapsed_time") && has(o, "requests_per_second") && has(o, "correct_rate(%)"))
    return xp_error_at(XP_EXIT_USAGE, label, line,
                       "a benchmark_guided.py result (vLLM's offline guided-decoding benchmark): it names no "
                       "model, dataset or guided ratio (its file name alone does), so no record of it could say "
                       "what was measured; xp reads benchmark_serving_structured_output.py's, which name the model");
  if (has(o, "elapsed_time") && has(o, "requests_per_second") && has(o, "tokens_per_second"))
    return xp_error_at(XP_EXIT_USAGE, label, line,
                       "a vllm bench throughput --output-json result (benchmark_throughput.py's too): it names "
                       "no model, nor the prompt and output lengths (total_num_tokens is their sum), so no record "
                       "of it could say what was measured; give the .pytorch.json written beside it with "
                       "SAVE_TO_PYTORCH_BENCHMARK_FORMAT=1, whose args name them");
  if (has(o, "avg_latency") && has(o, "latencies") && has(o, "percentiles"))
    return xp_error_at(XP_EXIT_USAGE, label, line,
                       "a vllm bench latency --output-json result (benchmark_latency.py's too): it names no "
                       "model, batch size, input or output length, so no record of it could say what was "
                       "measured; give the .pytorch.json written beside it with SAVE_TO_PYTORCH_BENCHMARK_FORMAT=1, "
                       "whose args name them");
  /* vllm bench startup --output-json (vllm/benchmarks/startup.py), and vllm bench sweep startup's
  ** run=N.json and summary.json, which hold it with the point's overrides: the engine's cold and
  ** warm startup and compilation times, no request served, so no case a serve_bench run holds. */
  if (has(o, "avg_cold_startup_time") || has(o, "avg_warm_startup_time"))
    return xp_error_at(XP_EXIT_USAGE, label, line,
                       "a vllm bench startup result (vllm bench sweep startup's too): the engine's cold and warm "
                       "startup times, no serving measurement; xp records none of it");
  /* vllm bench sweep serve --continue-on-error keeps, for a run or a server that failed, the
  ** error beside the overrides (run=N.failure.json, SERVE-...-failure.json; run_comb and run_combs
  ** of vllm/benchmarks/sweep/serve.py): no result to record. Its error text (str(exc)) may span
  ** lines; the exception's class name does not. */
  if (has(o, "error_type") && has(o, "serve_overrides")) {
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "error_type"));
    return xp_error_at(XP_EXIT_USAGE, label, line, "vllm bench sweep's record of a failed %s (%s), no result; "
                       "leave its failure.json out", has(o, "run_number") ? "run" : "server",
                       type && !strpbrk(type, "\r\n") ? type : "an error");
  }
  /* the per-request files beside the summaries: perf_analyzer's profile export, genai-perf's input
  ** (ProfileDataExporter::ConvertToJson of triton-inference-server/perf_analyzer: experiments[],
  ** each {experiment: {mode, value}, requests: [{timestamp, response_timestamps, ...}],
  ** window_boundaries}, ns), and AIPerf's profile_export.jsonl (a line a request: metadata,
  ** metrics, error; docs/tutorials/working-with-profile-exports.md): neither names the model, nor
  ** (AIPerf's) the load, nor counts the tokens of the answers (perf_analyzer's) */
  const cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "experiments"), 0);
  if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ex, "experiment")) && has(ex, "requests"))
    return xp_error_at(XP_EXIT_USAGE, label, line, "perf_analyzer's profile export (genai-perf's profile_export.json): "
                       "per-request timestamps, no model and no token counts; give the profile_export_genai_perf.json "
                       "genai-perf writes beside it");
  if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "metadata")) && has(o, "metrics") && has(o, "error") &&
      cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(o, "metadata"), "request_start_ns"))
    return xp_error_at(XP_EXIT_USAGE, label, line, "an AIPerf per-request record (profile_export.jsonl): no model and no "
                       "load in it; give the profile_export_aiperf.json AIPerf writes beside it");
  /* vLLM's multi-turn benchmark's --stats-json-output and --output-file entries (see the top) */
  if (has(o, "ttft_ms") && has(o, "latency_ms") && has(o, "input_num_turns") && has(o, "conversation_id"))
    return xp_error_at(XP_EXIT_USAGE, label, line, "a request of vLLM's benchmark_serving_multi_turn.py "
                       "--stats-json-output: it names no model and no load (--num-clients, --request-rate, "
                       "--max-active-conversations), so no case could say what was measured; not read");
  if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "messages")) && has(o, "id"))
    return xp_error_at(XP_EXIT_USAGE, label, line, "a conversation (vLLM's benchmark_serving_multi_turn.py "
                       "--output-file, or its ShareGPT input): the messages with the server's answers, no measurement");
  /* AIPerf's other summaries: a multi-run aggregate (profile_export_aiperf_aggregate.json:
  ** AggregateConfidenceJsonExporter, metadata.aggregation_type, each metric's mean over the runs
  ** and its confidence interval) and the summaries per time slice (--slice-duration:
  ** TimesliceCollectionExportData, timeslices[] of timeslice_index and the metrics) */
  if (cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(o, "metadata"), "aggregation_type"))
    return xp_error_at(XP_EXIT_USAGE, label, line, "an AIPerf multi-run aggregate (profile_export_aiperf_aggregate.json): "
                       "each metric's mean over the runs and its confidence interval, no run's measurement; give each "
                       "run's profile_export_aiperf.json (xp compare pools runs of one load)");
  if (cJSON_HasObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "timeslices"), 0), "timeslice_index"))
    return xp_error_at(XP_EXIT_USAGE, label, line, "AIPerf's summaries per time slice (--slice-duration), no summary of "
                       "the run; give the profile_export_aiperf.json written beside it");
  if (summary_export(o)) {
    *tool = VB_SUMMARY_EXPORT;
    return vb_summary_read(label, line, o);
  }
  if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "engine")) && has(o, "world_info") && has(o, "performance")) {
    *tool = VB_TRTLLM_BENCH;
    return vb_trtllm_read(label, line, o);
  }
  const vb_at at = {label, line};
  if (has(o, "successful_requests") && has(o, "total_latency")) {
    *tool = VB_SGLANG_OFFLINE;
    return read_offline(&at, o) ? XP_EXIT_USAGE : 0;
  }
  if (has(o, "run_name") && has(o, "batch_size") && has(o, "prefill_latency")) {
    *tool = VB_SGLANG_ONE_BATCH_LOCAL;
    return read_one_batch_local(&at, o) ? XP_EXIT_USAGE : 0;
  }
  if (has(o, "run_name") && has(o, "batch_size") && has(o, "overall_throughput")) {
    *tool = VB_SGLANG_ONE_BATCH;
    return read_one_batch(&at, o) ? XP_EXIT_USAGE : 0;
  }
  return 0;
}
