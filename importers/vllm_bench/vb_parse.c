/*
** Reading vLLM serving-benchmark result files (see vb_parse.h for what comes out).
**
** The formats, from vLLM's source:
**   vllm/benchmarks/serve.py (`vllm bench serve`): main_async() writes the setup keys (date,
**     endpoint_type, backend, label, model_id, tokenizer_id, num_prompts, --metadata KEY=VALUE
**     pairs as their own keys, request_rate as a number or "inf", burstiness, max_concurrency,
**     ramp-up keys), then benchmark()'s result: counts, throughputs, per-request lists (most of
**     them only with --save-detailed; latencies and queue_times always), and
**     mean_/median_/std_/p<P>_<metric>_ms for each metric of --percentile-metrics.
**     --append-result adds objects to the same file, separated by a newline.
**   benchmarks/benchmark_serving.py (older): the same idea, but the goodput key is spelled
**     "request_goodput:" (with the colon), there is no "failed", and the per-request lists are
**     always kept; 0.3-0.4 wrote --version (the engine's, "N/A" unless given: run metadata
**     engine_version, not a setting of the case) and request_inthroughput.
**   vllm bench sweep serve: each run's result (run=N.json, indent 4) as vllm bench serve wrote
**     it, then run_number and the point's serve and bench overrides (--serve-params,
**     --bench-params: max_num_seqs, tensor_parallel_size, ...): a bench override (an argument
**     of vllm bench serve) a setting of the case, a serve override the server's (vb_sweep.c),
**     whatever their type (take_sweep_setting); summary.json a list of a point's runs;
**     warmup.json (--warmup-num-prompts, vllm-project/vllm commit 0031557) the warmup's result,
**     run_number -1, refused.
**   python -m tensorrt_llm.serve.scripts.benchmark_serving --save-result (TensorRT-LLM's fork of
**     benchmark_serving.py, for trtllm-serve): its keys, "request_goodput:" too, and no failed;
**     --save-detailed's per-request latencies are "e2els", read as vLLM's latencies; besides,
**     user_throughput (each request's output over its latency, averaged), energy (an object)
**     and avg_decoded_tokens_per_iter (an object, and its statistics without a unit suffix).
**   benchmarks/benchmark_serving_structured_output.py --save-results (vLLM's benchmark of guided
**     decoding): the texts (outputs), the setup keys, correct_rate(%), then its benchmark's
**     result, without latencies; pandas' describe() of ttft and tpot (objects, not read).
**   python -m sglang.bench_serving --output-file F (SGLang, python/sglang/bench_serving.py; since
**     June 2026 python/sglang/benchmark/serving.py, the old name a shim to it):
**     appends one line per benchmark (JSONL). Every version since August 2024 writes backend
**     and total_output_tokens_retokenized, which vLLM never writes: that key tells the formats
**     apart, per line. July 2024 wrote total_input, total_output, median_ttft, median_itl (ms)
**     and output_token_throughput (vLLM's output_throughput), later total_output_retokenized
**     and mean_/median_e2e_latency, and no duration (nor, at first, a request count); the
**     unmerged refactor of 2025 (PR 10409) spelled the totals so again and nested
**     --output-details' lists under "details". 2026 adds p90_ and p95_ of every latency,
**     --cache-report's totals (cache_report), embedding backends (refused: no output tokens)
**     and, for a multi-turn dataset, a total_input_tokens of 0 (no prompt counted; rebuilt
**     from input_lens or cache_report, see rebuild_uncounted_input).
**     SGLang writes no model (nor tokenizer) but in the server's
**     /get_server_info that later versions add (server_info: model_path, tokenizer_path, and
**     the parallel sizes tp_size, pp_size, dp_size, ep_size);
**     without it the importer takes --set model=NAME. Its statistics are vLLM's with e2e
**     latency spelled <stat>_e2e_latency_ms (vLLM: <stat>_e2el_ms), total_throughput for vLLM's
**     total_token_throughput and accept_length for spec_decode_acceptance_length; they are
**     recorded under vLLM's names so that a query sees one metric in both. Versions: mid
**     2024 wrote only medians, the mean e2e latency and output_throughput (no
**     request_throughput); 2025 added max_concurrency, request/input throughputs, the mean,
**     std and p99 of each latency, p95_itl_ms, concurrency (mean requests in flight) and
**     accept_length; later ones tag, server_info, total_throughput, the vision/text input
**     token split, max_output_tokens_per_s, max_concurrent_requests, and request_rate "trace"
**     for a replayed trace. --output-details adds input_lens, output_lens, ttfts, itls,
**     generated_texts and errors ("" for a success), but no per-request latencies.
**   <name>.pytorch.json (vLLM's benchmarks with SAVE_TO_PYTORCH_BENCHMARK_FORMAT set): a JSON
**     list of records, one a metric; vb_pytorch.c rebuilds the result it records (vllm bench
**     serve's, throughput's or latency's) as one object, read here as the others (read_side).
**     A list of anything but those records is a list of results, each read as a file's object
**     (results_list).
**   genai-perf's profile_export_genai_perf.json and AIPerf's profile_export_aiperf.json: each
**     metric a summary object, the load in input_config; vb_summary.c rewrites them as the
**     vllm bench serve result of the same measurement, read here as one (W_SUMMARY).
** Per-request times in the files are seconds; vLLM's statistics are milliseconds. A failed
** request keeps its place in the lists with ttft 0, latency 0 and no inter-token gaps.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "spec.h"
#include "torch_trace/tt_source.h"
#include "vb_parse.h"
#include "xp.h"

const char *const vb_sample_metric[VB_NSAMPLES] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms", "batch_latency_ms"};

/* The parallel sizes under the names each writer gives them: xp's (and --metadata's short
** one), vLLM's engine argument (also a --metadata key, as vLLM's own CI passes TP; SGLang's long
** flag, --tensor-parallel-size), SGLang's server_info field. vLLM has no expert-parallel size
** (--enable-expert-parallel is a switch, vb_expert_parallel_on): expert_parallel_size is SGLang's
** alone. */
const char *const vb_parallel_name[VB_NPARALLEL] = {"tp", "pp", "dp", "ep"};
const char *const vb_parallel_arg[VB_NPARALLEL] = {"tensor_parallel_size", "pipeline_parallel_size",
                                                   "data_parallel_size", "expert_parallel_size"};
static const char *const parallel_server_info[VB_NPARALLEL] = {"tp_size", "pp_size", "dp_size", "ep_size"};

static int64_t whole_size(double x) { return x >= 1 && x <= 1e6 && x == floor(x) ? (int64_t)x : -1; }

int64_t vb_parallel_text(const char *s) {
  char *end = NULL;
  const double x = s ? strtod(s, &end) : NAN;
  return end && end != s && !*end ? whole_size(x) : -1; /* not "auto", "4x", "" */
}

/* vLLM's expert parallelism is a switch (EngineArgs.enable_expert_parallel) and its size the
** devices of every TP and DP rank (FusedMoEParallelConfig.make of
** vllm/model_executor/layers/fused_moe/config.py: use_ep where dp_size * tp_size > 1). A sweep
** may spell its key with dashes, as it spells the flag (ParameterSweepItem). */
int vb_expert_parallel_on(const cJSON *o) {
  static const char *const keys[] = {"enable_expert_parallel", "enable-expert-parallel"};
  for (size_t i = 0; i < 2; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
    const char *s = cJSON_GetStringValue(v);
    if (cJSON_IsTrue(v) || (s && (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "1") == 0))) return 1;
  }
  return 0;
}

int64_t vb_parallel_size(const cJSON *v) {
  return cJSON_IsNumber(v) ? whole_size(v->valuedouble) : vb_parallel_text(cJSON_GetStringValue(v));
}

/* ---- locating keys, for messages that point at the line ---- */

typedef struct vb_src {
  const char *label;     /* file name for messages */
  const char *text;      /* whole file (after the non-finite numbers were replaced) */
  size_t start, end;     /* this object's extent in text */
  long line;             /* the line of start */
  int index;
  int side;              /* rebuilt from a .pytorch.json side file (vb_pytorch.c) */
} vb_src;

/* Line of `"key":` within the object; the object's first line when not found. */
static long key_line(const vb_src *s, const char *key) {
  size_t klen = strlen(key);
  for (size_t i = s->start; i + klen + 2 <= s->end; i++) {
    if (s->text[i] != '"' || strncmp(s->text + i + 1, key, klen) != 0 || s->text[i + 1 + klen] != '"')
      continue;
    size_t j = i + klen + 2;
    while (j < s->end && isspace((unsigned char)s->text[j])) j++;
    if (j < s->end && s->text[j] == ':') return xp_line_of_offset(s->text, i);
  }
  return s->line;
}

static int bad_key(const vb_src *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_key(const vb_src *s, const char *key, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return xp_error_at(XP_EXIT_USAGE, s->label, key_line(s, key), "%s: %s", key, msg);
}

/* What a JSON value is, for messages ("expected a number, found a string"); "nothing" where
** the key is missing. */
const char *vb_json_kind(const cJSON *v) {
  if (!v) return "nothing";
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsBool(v)) return "true/false";
  if (cJSON_IsNumber(v)) return isnan(v->valuedouble) ? "NaN" : "a number";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsObject(v)) return "an object";
  return "an invalid value";
}

/* ---- what each key of the format means ---- */

enum vb_type {
  T_STR,       /* string or null */
  T_NUM,       /* number or null */
  T_INT,       /* whole number or null */
  T_RATE,      /* number, the string "inf", or SGLang's "trace" */
  T_LIST_NUM,  /* array of numbers */
  T_LIST_LIST, /* array of arrays of numbers (itls) */
  T_LIST_STR,  /* array of strings or nulls (errors) */
  T_OBJ,       /* object or null (SGLang's details and cache_report, read by read_object) */
  T_ANY        /* kept by vLLM, not by xp (texts, ramp-up events) */
};
enum vb_dest { D_META, D_PARAM, D_VALUE, D_LIST, D_NONE };

typedef struct vb_key {
  const char *key;
  enum vb_type type;
  enum vb_dest dest;
  int required;
  const char *unit;
  const char *as; /* another spelling of this key: recorded, and required, as that one */
} vb_key;

static const vb_key known_keys[] = {
    {"date", T_STR, D_META, 0, NULL, NULL},
    {"endpoint_type", T_STR, D_META, 0, NULL, NULL},
    {"backend", T_STR, D_META, 0, NULL, NULL},
    {"label", T_STR, D_META, 0, NULL, NULL},
    {"model_id", T_STR, D_META, 1, NULL, NULL},
    {"tokenizer_id", T_STR, D_META, 0, NULL, NULL},
    {"version", T_STR, D_META, 0, NULL, NULL}, /* benchmark_serving.py 2024: --version, the engine's */
    {"tag", T_STR, D_META, 0, NULL, "label"}, /* SGLang's --tag, its label */
    {"dataset_name", T_STR, D_PARAM, 0, NULL, NULL}, /* SGLang */
    {"fixed_output_len", T_NUM, D_PARAM, 0, NULL, NULL}, /* SGLang, some versions */
    {"num_prompts", T_INT, D_PARAM, 0, NULL, NULL},
    {"request_rate", T_RATE, D_PARAM, 0, NULL, NULL},
    {"burstiness", T_NUM, D_PARAM, 0, NULL, NULL},
    /* settings some versions write beside the results (0.5-0.7: best_of; SGLang's writer: the
    ** dataset's lengths): they describe the case, they are not measurements */
    {"best_of", T_NUM, D_PARAM, 0, NULL, NULL},
    {"seed", T_NUM, D_PARAM, 0, NULL, NULL},
    {"random_input_len", T_NUM, D_PARAM, 0, NULL, NULL},
    {"random_output_len", T_NUM, D_PARAM, 0, NULL, NULL},
    {"random_range_ratio", T_NUM, D_PARAM, 0, NULL, NULL},
    {"random_prefix_len", T_NUM, D_PARAM, 0, NULL, NULL},
    {"sharegpt_output_len", T_NUM, D_PARAM, 0, NULL, NULL},
    {"num_warmups", T_NUM, D_PARAM, 0, NULL, NULL},
    {"max_concurrency", T_INT, D_PARAM, 0, NULL, NULL},
    {"prefill_concurrency", T_INT, D_PARAM, 0, NULL, NULL}, /* AIPerf's (vb_summary.c) */
    {"ramp_up_strategy", T_STR, D_PARAM, 0, NULL, NULL},
    {"ramp_up_start_rps", T_NUM, D_PARAM, 0, NULL, NULL},
    {"ramp_up_end_rps", T_NUM, D_PARAM, 0, NULL, NULL},
    {"duration", T_NUM, D_VALUE, 1, "s", NULL},
    {"completed", T_INT, D_VALUE, 1, "requests", NULL},
    {"failed", T_INT, D_VALUE, 0, "requests", NULL},
    {"total_input_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    {"total_output_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    {"total_input_sequences", T_INT, D_VALUE, 0, "sequences", NULL},
    /* SGLang: output tokens counted again by encoding the texts, and the split of the input */
    {"total_output_tokens_retokenized", T_INT, D_VALUE, 0, "tokens", NULL},
    {"total_input_text_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    {"total_input_vision_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    /* SGLang's July 2024 spellings (no _tokens, no _ms; output_token_throughput), which the
    ** unmerged refactor of 2025 (PR 10409) wrote again for the totals; recorded as the later ones */
    {"total_input", T_INT, D_VALUE, 0, "tokens", "total_input_tokens"},
    {"total_output", T_INT, D_VALUE, 0, "tokens", "total_output_tokens"},
    {"total_output_retokenized", T_INT, D_VALUE, 0, "tokens", "total_output_tokens_retokenized"},
    {"output_token_throughput", T_NUM, D_VALUE, 0, "tok/s", "output_throughput"},
    {"mean_e2e_latency", T_NUM, D_VALUE, 0, "ms", "mean_e2el_ms"},
    {"median_e2e_latency", T_NUM, D_VALUE, 0, "ms", "median_e2el_ms"},
    {"median_ttft", T_NUM, D_VALUE, 0, "ms", "median_ttft_ms"},
    {"median_itl", T_NUM, D_VALUE, 0, "ms", "median_itl_ms"},
    {"output_throughput_retokenized", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"total_throughput_retokenized", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"total_throughput", T_NUM, D_VALUE, 0, "tok/s", "total_token_throughput"}, /* SGLang's spelling */
    {"concurrency", T_NUM, D_VALUE, 0, "requests", NULL}, /* SGLang: sum of latencies / duration */
    {"accept_length", T_NUM, D_VALUE, 0, "tokens", "spec_decode_acceptance_length"}, /* SGLang's */
    {"request_throughput", T_NUM, D_VALUE, 1, "req/s", NULL},
    {"request_goodput", T_NUM, D_VALUE, 0, "req/s", NULL},
    {"request_goodput:", T_NUM, D_VALUE, 0, "req/s", "request_goodput"}, /* benchmark_serving.py's spelling */
    {"request_inthroughput", T_NUM, D_VALUE, 0, "req/s", "request_throughput"}, /* 0.3-0.4's spelling */
    {"input_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},  /* versions before total_token_throughput */
    {"output_throughput", T_NUM, D_VALUE, 1, "tok/s", NULL},
    {"total_token_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"input_sequence_throughput", T_NUM, D_VALUE, 0, "seq/s", NULL},
    {"max_output_tokens_per_s", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"max_concurrent_requests", T_INT, D_VALUE, 0, "requests", NULL},
    {"rtfx", T_NUM, D_VALUE, 0, "x", NULL},
    {"probe_completed", T_INT, D_VALUE, 0, "requests", NULL},
    {"probe_failed", T_INT, D_VALUE, 0, "requests", NULL},
    {"spec_decode_acceptance_rate", T_NUM, D_VALUE, 0, "%", NULL},
    {"spec_decode_acceptance_length", T_NUM, D_VALUE, 0, "tokens", NULL},
    {"spec_decode_num_drafts", T_INT, D_VALUE, 0, "drafts", NULL},
    {"spec_decode_draft_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    {"spec_decode_accepted_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    {"diffusion_committed_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"diffusion_steps_per_canvas", T_NUM, D_VALUE, 0, "steps", NULL},
    {"diffusion_committed_per_step", T_NUM, D_VALUE, 0, "tokens", NULL},
    {"diffusion_committed_tokens", T_INT, D_VALUE, 0, "tokens", NULL},
    {"diffusion_denoising_steps", T_INT, D_VALUE, 0, "steps", NULL},
    {"diffusion_canvas_positions", T_INT, D_VALUE, 0, "positions", NULL},
    /* SGLang's batch tools (vb_tools.c renames their keys to these): the batch, and what was
    ** timed of it */
    {"batch_size", T_INT, D_PARAM, 0, NULL, NULL},
    {"input_len", T_INT, D_PARAM, 0, NULL, NULL},
    {"output_len", T_INT, D_PARAM, 0, NULL, NULL},
    /* vllm bench throughput's and latency's args (vb_pytorch.c): sequences a prompt, and the
    ** tokens before a random prompt */
    {"n", T_INT, D_PARAM, 0, NULL, NULL},
    {"prefix_len", T_INT, D_PARAM, 0, NULL, NULL},
    {"batch_latency_ms", T_NUM, D_VALUE, 0, "ms", NULL},
    /* trtllm-bench: the time from its first request's start to its last's (vb_trtllm.c) */
    {"issue_window_s", T_NUM, D_VALUE, 0, "s", NULL},
    {"last_ttft_ms", T_NUM, D_VALUE, 0, "ms", NULL},
    {"prefill_latency_ms", T_NUM, D_VALUE, 0, "ms", NULL},
    {"median_decode_step_ms", T_NUM, D_VALUE, 0, "ms", NULL},
    {"median_decode_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"mean_decode_step_ms", T_NUM, D_VALUE, 0, "ms", NULL},
    {"mean_decode_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"prefill_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"decode_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"last_gen_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"steady_state_output_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL},
    {"steady_state_window_s", T_NUM, D_VALUE, 0, "s", NULL},
    {"early_stopped_requests", T_INT, D_VALUE, 0, "requests", NULL},
    {"cache_hit_rate_pct", T_NUM, D_VALUE, 0, "%", NULL},
    {"profile_link", T_ANY, D_NONE, 0, NULL, NULL},
    {"profile_links", T_ANY, D_NONE, 0, NULL, NULL},      /* one_batch_server's JSON lists: trace paths */
    {"profile_link_extend", T_ANY, D_NONE, 0, NULL, NULL},
    {"profile_link_decode", T_ANY, D_NONE, 0, NULL, NULL},
    {"fine_grained_output", T_ANY, D_NONE, 0, NULL, NULL},
    {"input_lens", T_LIST_NUM, D_LIST, 0, NULL, NULL},
    {"output_lens", T_LIST_NUM, D_LIST, 0, NULL, NULL},
    {"ttfts", T_LIST_NUM, D_LIST, 0, NULL, NULL},
    {"itls", T_LIST_LIST, D_LIST, 0, NULL, NULL},
    {"latencies", T_LIST_NUM, D_LIST, 0, NULL, NULL},
    {"e2els", T_LIST_NUM, D_LIST, 0, NULL, NULL}, /* TensorRT-LLM's fork: the latencies so named */
    {"errors", T_LIST_STR, D_LIST, 0, NULL, NULL},
    {"start_times", T_LIST_NUM, D_NONE, 0, NULL, NULL},
    {"queue_times", T_LIST_NUM, D_NONE, 0, NULL, NULL},
    {"generated_texts", T_ANY, D_NONE, 0, NULL, NULL},
    {"rps_change_events", T_ANY, D_NONE, 0, NULL, NULL},
    /* vllm bench sweep serve: the run's repetition of its point (-1 the warmup, refused), no
    ** setting: the runs of a point pool as one case, as the results of --append-result do */
    {"run_number", T_NUM, D_NONE, 0, NULL, NULL},
    {"spec_decode_per_position_acceptance_rates", T_ANY, D_NONE, 0, NULL, NULL}, /* take_positions */
    {"server_info", T_ANY, D_NONE, 0, NULL, NULL}, /* SGLang: the server's whole configuration */
    {"details", T_OBJ, D_NONE, 0, NULL, NULL},      /* PR 10409's --output-details lists */
    {"cache_report", T_OBJ, D_NONE, 0, NULL, NULL}, /* SGLang 2026: --cache-report's totals */
    {"energy", T_OBJ, D_NONE, 0, NULL, NULL},       /* TensorRT-LLM: the server's energy (take_energy) */
    {"avg_decoded_tokens_per_iter", T_ANY, D_NONE, 0, NULL, NULL}, /* TensorRT-LLM: take_decoded */
    {"user_throughput", T_NUM, D_VALUE, 0, "tok/s", NULL}, /* TensorRT-LLM: a request's output / its latency */
    /* vllm bench serve's NVML energy (GpuEnergyMeter.get_results of vllm/benchmarks/lib/energy.py,
    ** vllm-project/vllm commit c8e9466): the selected GPUs' energy counters over the benchmark, summed
    ** (mJ / 1000), the time they were read over, that energy over that time, and over the output
    ** tokens counted (null without one); which GPUs is no measurement (the file keeps it) */
    {"gpu_energy_j", T_NUM, D_VALUE, 0, "J", NULL},
    {"gpu_energy_duration_s", T_NUM, D_VALUE, 0, "s", NULL},
    {"gpu_avg_power_w", T_NUM, D_VALUE, 0, "W", NULL},
    {"gpu_energy_per_output_token_j", T_NUM, D_VALUE, 0, "J/tok", NULL},
    {"energy_gpu_ids", T_ANY, D_NONE, 0, NULL, NULL},
    /* benchmarks/benchmark_serving_structured_output.py: the outputs that are what the request
    ** asked for (JSON, a regex's match, a choice), in %; null where it cannot tell */
    {"correct_rate(%)", T_NUM, D_VALUE, 0, "%", NULL},
    {"outputs", T_ANY, D_NONE, 0, NULL, NULL}, /* its texts, generated and expected */
    {"cached_tokens", T_ANY, D_NONE, 0, NULL, NULL},
    {"cached_tokens_details", T_ANY, D_NONE, 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL}};

static const vb_key *find_key(const char *key) {
  for (const vb_key *k = known_keys; k->key; k++)
    if (strcmp(k->key, key) == 0) return k;
  return NULL;
}

/* Statistics vLLM writes per metric: mean_, median_, std_ and p<P>_ (P as 99 or 99.9). */
static int is_statistic_key(const char *key) {
  size_t n = strlen(key);
  if (n < 4 || strcmp(key + n - 3, "_ms") != 0) return 0;
  if (strncmp(key, "mean_", 5) == 0 || strncmp(key, "median_", 7) == 0 || strncmp(key, "std_", 4) == 0)
    return 1;
  if (key[0] != 'p' || !isdigit((unsigned char)key[1])) return 0;
  const char *p = key + 1;
  while (isdigit((unsigned char)*p) || *p == '.') p++;
  return *p == '_';
}

/* Who wrote the object, told by keys that writer alone writes (see the top of this file):
** SGLang's retokenized output count (its July 2024 lines have none, but spell the output
** throughput output_token_throughput, which vLLM never wrote). vLLM's throughput and latency
** benchmarks come from their side file, which vb_pytorch.c checked and rebuilt. */
enum vb_writer { W_VLLM, W_SGLANG, W_SGLANG_2024, W_SGLANG_BATCH, W_VLLM_SIDE, W_SUMMARY };

static enum vb_writer writer_of(const cJSON *o, enum vb_tool tool) {
  if (tool == VB_SGLANG_ONE_BATCH || tool == VB_SGLANG_ONE_BATCH_LOCAL) return W_SGLANG_BATCH;
  if (tool == VB_VLLM_THROUGHPUT || tool == VB_VLLM_LATENCY) return W_VLLM_SIDE;
  if (tool == VB_SUMMARY_EXPORT || tool == VB_TRTLLM_BENCH) return W_SUMMARY;
  if (tool == VB_SGLANG_OFFLINE) return W_SGLANG;
  if (cJSON_HasObjectItem(o, "output_token_throughput")) return W_SGLANG_2024;
  if (cJSON_HasObjectItem(o, "total_output_tokens_retokenized") || cJSON_HasObjectItem(o, "total_output_retokenized"))
    return W_SGLANG;
  return W_VLLM;
}

/* SGLang writes no model (the importer asks for --set model=NAME) and, before 2025, no
** request_throughput; in July 2024 no duration or request count either. The other keys vLLM
** requires it writes in every version. */
static int required_in(const vb_key *k, enum vb_writer w) {
  static const char *const batch[] = {"batch_size", "input_len", "output_len", "batch_latency_ms"};
  /* the rest vb_pytorch.c asked for; vb_summary.c the same of genai-perf's and AIPerf's summaries,
  ** whose request count and duration genai-perf wrote only later and never */
  if (w == W_VLLM_SIDE || w == W_SUMMARY) return strcmp(k->key, "model_id") == 0;
  if (w == W_SGLANG_BATCH) { /* one batch, timed: what it was and how long it took */
    for (size_t i = 0; i < sizeof batch / sizeof batch[0]; i++)
      if (strcmp(k->key, batch[i]) == 0) return 1;
    return 0;
  }
  if (!k->required || w == W_VLLM) return k->required;
  if (strcmp(k->key, "model_id") == 0 || strcmp(k->key, "request_throughput") == 0) return 0;
  return w != W_SGLANG_2024 || (strcmp(k->key, "duration") != 0 && strcmp(k->key, "completed") != 0);
}

/* vLLM's name of a statistic SGLang spells otherwise: mean_e2e_latency_ms -> mean_e2el_ms. */
static const char *vllm_spelling(const char *key, char *buf, size_t n) {
  static const char sgl[] = "_e2e_latency_ms";
  size_t len = strlen(key), sl = sizeof sgl - 1;
  if (len <= sl || strcmp(key + len - sl, sgl) != 0 || !is_statistic_key(key)) return key;
  snprintf(buf, n, "%.*s_e2el_ms", (int)(len - sl), key);
  return buf;
}

/* Whether o holds key under another spelling (request_inthroughput for request_throughput). */
static int spelled_otherwise(const cJSON *o, const char *key) {
  for (const vb_key *k = known_keys; k->key; k++)
    if (k->as && strcmp(k->as, key) == 0 && cJSON_HasObjectItem(o, k->key)) return 1;
  return 0;
}

/* A setting's number: vLLM's --metadata KEY=VALUE writes every value as a string, so a setting
** SGLang writes as a number (--metadata random_input_len=1024, to say what vLLM leaves out)
** comes as the string of one. Measurements are numbers, as every writer writes them. */
static int setting_number(const vb_key *k, const cJSON *v, double *x) {
  return (cJSON_IsNumber(v) || k->dest == D_PARAM) && xp_json_number(v, x);
}

static int check_type(const vb_src *s, const vb_key *k, const cJSON *v) {
  double x;
  switch (k->type) {
  case T_STR:
    if (!cJSON_IsString(v) && !cJSON_IsNull(v)) return bad_key(s, k->key, "expected a string, found %s", vb_json_kind(v));
    return 0;
  case T_NUM:
    if (!cJSON_IsNull(v) && !setting_number(k, v, &x))
      return bad_key(s, k->key, "expected a number, found %s", vb_json_kind(v));
    /* a setting's NaN is no setting (burstiness NaN was stored as null, as if never given), as a
    ** whole number's is (T_INT); a measurement's is left out with a warning (note_nonfinite) */
    if (k->dest == D_PARAM && !cJSON_IsNull(v) && isnan(x)) return bad_key(s, k->key, "expected a number, found NaN");
    /* durations, throughputs and rates vLLM measured are never negative */
    if (k->dest == D_VALUE && cJSON_IsNumber(v) && v->valuedouble < 0)
      return bad_key(s, k->key, "expected a number >= 0, found %g", v->valuedouble);
    return 0;
  case T_INT:
    /* a count the result gives as NaN: no value, said (note_nonfinite); a setting's is no setting */
    if (cJSON_IsNull(v) || (k->dest == D_VALUE && cJSON_IsNumber(v) && isnan(v->valuedouble))) return 0;
    if (!setting_number(k, v, &x)) return bad_key(s, k->key, "expected a whole number, found %s", vb_json_kind(v));
    if (isnan(x)) return bad_key(s, k->key, "expected a whole number, found NaN");
    if (x != floor(x) || x < 0 || x > 9e18)
      return bad_key(s, k->key, "expected a whole number >= 0 and <= 9e18, found %g", x);
    return 0;
  case T_RATE:
    if (cJSON_IsNumber(v) && v->valuedouble > 0) return 0;
    if (cJSON_IsString(v) && (strcmp(v->valuestring, "inf") == 0 || strcmp(v->valuestring, "trace") == 0)) return 0;
    return bad_key(s, k->key, "expected a number > 0, \"inf\" or \"trace\", found %s",
                   cJSON_IsNumber(v) && !isnan(v->valuedouble) ? "a number <= 0" : vb_json_kind(v));
  case T_LIST_NUM:
  case T_LIST_LIST:
  case T_LIST_STR: {
    if (!cJSON_IsArray(v)) return bad_key(s, k->key, "expected an array, found %s", vb_json_kind(v));
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
      if (k->type == T_LIST_NUM && !cJSON_IsNumber(e))
        return bad_key(s, k->key, "entry %d: expected a number, found %s", i, vb_json_kind(e));
      if (k->type == T_LIST_NUM && k->dest == D_LIST && e->valuedouble < 0) /* times and lengths */
        return bad_key(s, k->key, "entry %d: expected a number >= 0, found %g", i, e->valuedouble);
      if (k->type == T_LIST_STR && !cJSON_IsString(e) && !cJSON_IsNull(e))
        return bad_key(s, k->key, "entry %d: expected a string, found %s", i, vb_json_kind(e));
      if (k->type == T_LIST_LIST) {
        if (!cJSON_IsArray(e)) return bad_key(s, k->key, "entry %d: expected an array of numbers, found %s", i, vb_json_kind(e));
        const cJSON *x;
        cJSON_ArrayForEach(x, e) if (!cJSON_IsNumber(x) || x->valuedouble < 0)
            return bad_key(s, k->key, "entry %d: expected numbers >= 0, found %s", i,
                           cJSON_IsNumber(x) ? "a negative one" : vb_json_kind(x));
      }
      i++;
    }
    return 0;
  }
  case T_OBJ:
    if (!cJSON_IsObject(v) && !cJSON_IsNull(v)) return bad_key(s, k->key, "expected an object, found %s", vb_json_kind(v));
    return 0;
  case T_ANY:
    return 0;
  }
  return 0;
}

/* ---- per-request timings ---- */

static void push(vb_samples *s, double v) {
  if ((s->n & (s->n - 1)) == 0) s->v = xp_xrealloc(s->v, (s->n ? 2 * s->n : 1) * sizeof *s->v); /* at powers of 2 */
  s->v[s->n++] = v;
}

/* The lists vLLM keeps per request, all of one length when present. */
typedef struct vb_lists {
  const cJSON *ttfts, *itls, *latencies, *output_lens, *errors;
  const char *latencies_key; /* "latencies", or TensorRT-LLM's "e2els", for messages */
  const cJSON *input_lens; /* not checked with the others: read only to rebuild a prompt count */
} vb_lists;

static int check_lengths(const vb_src *s, const vb_lists *l, int *n) {
  const struct { const char *key; const cJSON *v; } all[] = {
      {"ttfts", l->ttfts}, {"itls", l->itls}, {l->latencies_key, l->latencies},
      {"output_lens", l->output_lens}, {"errors", l->errors}};
  /* the reference is the length most lists share, so that the one list cut short is named;
  ** each length counted once (cJSON_GetArraySize walks its list) */
  const size_t nall = sizeof all / sizeof all[0];
  int len[sizeof all / sizeof all[0]], ref = -1, ref_votes = 0;
  const char *ref_key = NULL;
  for (size_t i = 0; i < nall; i++) len[i] = all[i].v ? cJSON_GetArraySize(all[i].v) : -1;
  for (size_t i = 0; i < nall; i++) {
    if (!all[i].v) continue;
    int votes = 0;
    for (size_t j = 0; j < nall; j++) votes += len[j] == len[i];
    if (votes > ref_votes) ref = len[i], ref_votes = votes, ref_key = all[i].key;
  }
  *n = ref > 0 ? ref : 0;
  for (size_t i = 0; i < nall; i++)
    if (all[i].v && len[i] != ref)
      return bad_key(s, all[i].key, "has %d entries but %s has %d (one per request)", len[i], ref_key, ref);
  return 0;
}

/* The lists walked together, one request at a time (a cursor each: cJSON_GetArrayItem walks
** from the start, which made a 100k-request file take minutes). */
typedef struct vb_cursor {
  const cJSON *ttft, *itl, *latency, *output_len, *error, *input_len;
} vb_cursor;

static const cJSON *first(const cJSON *list) { return list ? list->child : NULL; }
static const cJSON *next(const cJSON *item) { return item ? item->next : NULL; }

/* A request succeeded when its error text is empty. Files without the errors list (vllm bench
** serve without --save-detailed) still mark failures: vLLM leaves ttft and latency at 0. A NaN
** (json.dump's, a 0/0) is no such mark: the latency decides where the ttft is NaN, and a request
** neither marks failed succeeded (a NaN ttft counted its request failed, 14/16 of a file whose
** completed says 15; note_nonfinite_entries says the NaN). */
static int request_ok(const vb_cursor *c, double ttft, double lat) {
  if (c->error) return cJSON_IsNull(c->error) || (cJSON_IsString(c->error) && c->error->valuestring[0] == 0);
  if (c->ttft && !isnan(ttft)) return ttft > 0;
  if (c->latency && !isnan(lat)) return lat > 0;
  return c->ttft || c->latency; /* NaN in each list there is; with neither list, as before */
}

static void push_finite(vb_samples *s, double v) {
  if (isfinite(v)) push(s, v);
}

/* A metric the result gives as infinite (json.dump's Infinity for a division by a zero time,
** 1e999, a number past a double's range) or as NaN (json.dump's NaN: numpy's mean of no sample,
** a 0/0) has no value to record: noted, so that the import says which it left out
** (vllm_bench.c warn_nonfinite) where a case without its output_throughput read as a file
** without one. A setting's inf (request_rate, burstiness) is a setting, kept. */
static void note_nonfinite(const vb_src *s, vb_result *r, const cJSON *v) {
  if (!cJSON_IsNumber(v) || isfinite(v->valuedouble)) return;
  vb_nonfinite *n = &r->nonfinite[isnan(v->valuedouble) ? VB_NAN : VB_INFINITE];
  if (!n->keys) {
    n->keys = cJSON_CreateArray();
    n->line = (int)key_line(s, v->string);
  }
  cJSON_AddItemToArray(n->keys, cJSON_CreateString(v->string));
}

/* An entry of a list at key that is infinite or NaN: no sample, counted. */
static void note_nonfinite_entry(const vb_src *s, vb_result *r, const char *key, const cJSON *e) {
  if (!cJSON_IsNumber(e) || isfinite(e->valuedouble)) return;
  vb_nonfinite *n = &r->nonfinite[VB_ENTRIES];
  if (!n->keys) {
    n->keys = cJSON_CreateArray();
    n->line = (int)key_line(s, key);
  }
  const cJSON *last = cJSON_GetArrayItem(n->keys, cJSON_GetArraySize(n->keys) - 1);
  if (!last || strcmp(last->valuestring, key) != 0) cJSON_AddItemToArray(n->keys, cJSON_CreateString(key));
  n->count++;
}

/* The per-request lists sampled (ttfts, itls, latencies): their entries that are infinite or NaN,
** which push_finite leaves out, noted for the import's warning. */
static void note_nonfinite_entries(const vb_src *s, const vb_lists *l, vb_result *r) {
  const struct { const char *key; const cJSON *list; } sampled[] = {
      {"ttfts", l->ttfts}, {"itls", l->itls}, {l->latencies_key, l->latencies}};
  for (size_t i = 0; i < sizeof sampled / sizeof sampled[0]; i++) {
    const cJSON *e, *x;
    cJSON_ArrayForEach(e, sampled[i].list) {
      if (cJSON_IsArray(e)) cJSON_ArrayForEach(x, e) note_nonfinite_entry(s, r, sampled[i].key, x);
      else note_nonfinite_entry(s, r, sampled[i].key, e);
    }
  }
}

/* Per-request TTFT, ITL, end-to-end latency and TPOT, in ms, for the requests that succeeded.
** TPOT is vLLM's own definition (calculate_metrics): (latency - ttft) / (output_len - 1) for
** outputs longer than one token. Files without latencies (benchmark_serving.py before 0.7)
** give no TPOT here: the latency vLLM took then came after the last token, at the stream's
** end, and ttft + the gaps would fall short of it (vLLM's own mean_tpot_ms is kept). */
static int collect_samples(const vb_src *s, const vb_lists *l, int n, vb_result *r) {
  /* input_lens only where it has an entry a request (vLLM tests and tools empty it) */
  const cJSON *inputs = l->input_lens && cJSON_GetArraySize(l->input_lens) == n ? l->input_lens : NULL;
  vb_cursor c = {first(l->ttfts), first(l->itls), first(l->latencies), first(l->output_lens), first(l->errors),
                 first(inputs)};
  r->prompt_tokens = inputs && n > 0 ? 0 : NAN;
  note_nonfinite_entries(s, l, r);
  for (int i = 0; i < n; i++) {
    double ttft = c.ttft ? c.ttft->valuedouble : NAN;
    double lat = c.latency ? c.latency->valuedouble : NAN;
    if (request_ok(&c, ttft, lat)) {
      /* the first token comes within the request: a latency shorter than it is no timing */
      if (c.ttft && c.latency && lat < ttft)
        return bad_key(s, l->latencies_key, "entry %d: %g s, shorter than its time to first token (%g s)", i, lat, ttft);
      r->succeeded++;
      if (c.input_len) r->prompt_tokens += c.input_len->valuedouble;
      /* 0 is the clients' initial TTFT, left where no chunk brought text: no sample */
      if (c.ttft && ttft > 0) push_finite(&r->samples[VB_TTFT], ttft * 1e3);
      const cJSON *x;
      if (c.itl) cJSON_ArrayForEach(x, c.itl) push_finite(&r->samples[VB_ITL], x->valuedouble * 1e3);
      if (c.itl && c.itl->child && c.output_len && c.output_len->valuedouble == 1) r->one_counted_gaps++;
      if (c.latency) push_finite(&r->samples[VB_E2EL], lat * 1e3);
      if (c.output_len && c.ttft && c.latency && c.output_len->valuedouble > 1)
        push_finite(&r->samples[VB_TPOT], (lat - ttft) / (c.output_len->valuedouble - 1) * 1e3);
    }
    c = (vb_cursor){next(c.ttft), next(c.itl), next(c.latency), next(c.output_len), next(c.error), next(c.input_len)};
  }
  r->requests = n;
  /* with the errors list, every request's fate is known: vLLM's count must agree with it */
  if (l->errors && r->completed >= 0 && r->succeeded != r->completed)
    return bad_key(s, "completed", "says %lld, but the per-request lists hold %lld requests that succeeded",
                   (long long)r->completed, (long long)r->succeeded);
  return 0;
}

/* The values whose drop[i] is set leave r, the others keep their order. */
static void remove_values(vb_result *r, const char *drop) {
  size_t kept = 0;
  for (size_t i = 0; i < r->nvalues; i++) {
    if (drop[i]) free(r->values[i].metric);
    else r->values[kept++] = r->values[i];
  }
  r->nvalues = kept;
}

/* The values of the n metrics named leave r. */
static void remove_named(vb_result *r, const char *const *names, size_t n) {
  char *drop = xp_xcalloc(r->nvalues + 1, 1);
  for (size_t i = 0; i < r->nvalues; i++)
    for (size_t j = 0; j < n; j++) drop[i] |= strcmp(r->values[i].metric, names[j]) == 0;
  remove_values(r, drop);
  free(drop);
}

/* Every TPOT statistic leaves r (mean_tpot_ms ... p99_tpot_ms, as many as the file has). */
static void remove_tpot(vb_result *r) {
  char *drop = xp_xcalloc(r->nvalues + 1, 1);
  for (size_t i = 0; i < r->nvalues; i++) {
    const char *m = r->values[i].metric;
    size_t n = strlen(m);
    drop[i] = is_statistic_key(m) && n > 8 && strcmp(m + n - 8, "_tpot_ms") == 0;
  }
  remove_values(r, drop);
  free(drop);
}

/* Statistics of a latency that vLLM had no sample of: np.mean(x or 0) writes 0 for mean,
** median, std and every percentile (TPOT and ITL of a benchmark whose outputs are one token
** long, every latency when no request completed). A real latency is never exactly 0: a metric
** whose mean is 0 is dropped whole, as is every statistic when nothing completed, and where no
** mean was written (SGLang's July 2024 medians) a statistic of 0 (ITL without streaming). */
static void drop_unmeasured(vb_result *r) {
  char *drop = xp_xcalloc(r->nvalues + 1, 1);
  for (size_t i = 0; i < r->nvalues; i++) { /* decided before anything moves */
    const char *m = r->values[i].metric;
    if (!is_statistic_key(m)) continue;
    char mean[96];
    snprintf(mean, sizeof mean, "mean_%s", strchr(m, '_') + 1); /* "tpot_ms" of "p99.9_tpot_ms" */
    const vb_value *mv = vb_find_value(r, mean);
    drop[i] = r->completed == 0 || (mv ? mv->v == 0 : r->values[i].v == 0);
  }
  remove_values(r, drop);
  free(drop);
}

/* vllm bench serve --skip-tokenizer-init runs its client without a tokenizer, and writes
** tokenizer_id null (otherwise --tokenizer or the model). calculate_metrics of
** vllm/benchmarks/serve.py (commit 009e6d4) then counts one output token for a request whose
** stream reported no usage, however many it streamed; lib/endpoint_request_func.py times every
** chunk after the first all the same. So where every request counted one token
** (total_output_tokens = completed) yet inter-token gaps were timed, the outputs were longer
** than counted: the count, and the throughputs made of it, are the fallback's, not a
** measurement (output_throughput would be request_throughput). They are not kept; the caller
** warns. (A request with usage counts at least one token a chunk, so one counted token and a
** gap cannot both be measured.) Without a tokenizer that version writes no TTFT, TPOT or ITL
** statistic, and without --save-detailed no itls: then max_output_tokens_per_s, which
** calculate_metrics counts from every chunk timed (one a token, in 1-s buckets) and which every
** result keeps, tells it: more tokens timed in one second than counted in all. --record-power's
** output and total tokens a joule are made of the same count, and go with it. Where only some
** streams carried usage (a server that reports it for some requests, a proxy that drops it for
** others) the count is the reported lengths plus 1 a request without, above completed yet short:
** told by a request of --save-detailed's lists counted 1 with gaps timed, or by the peak again;
** without either, such a count cannot be told from a measured one and is kept. */
static void drop_uncounted_output(const cJSON *o, vb_result *r, enum vb_writer w) {
  static const char *const counted[] = {"total_output_tokens", "output_throughput", "total_token_throughput",
                                        /* --record-power's, of the same count (unit_by_suffix) */
                                        "output_toks_per_joule", "total_toks_per_joule",
                                        "output_toks_per_total_joule", "total_toks_per_total_joule",
                                        /* the NVML energy's over the same count */
                                        "gpu_energy_per_output_token_j"};
  const cJSON *tok = cJSON_GetObjectItemCaseSensitive(o, "tokenizer_id");
  const vb_value *out = vb_find_value(r, "total_output_tokens"), *itl = vb_find_value(r, "mean_itl_ms");
  const vb_value *peak = vb_find_value(r, "max_output_tokens_per_s");
  if (w != W_VLLM || !cJSON_IsNull(tok) || r->completed <= 0 || !out) return;
  const int each_one = out->v == (double)r->completed; /* every request counted 1 */
  if (!(each_one && (r->samples[VB_ITL].n || (itl && itl->v > 0))) && !(peak && peak->v > out->v) &&
      r->one_counted_gaps == 0)
    return;
  remove_named(r, counted, sizeof counted / sizeof counted[0]);
  r->output_uncounted = VB_UNCOUNTED_FALLBACK;
}

/* sglang.bench_serving's request functions start each request's output_len at the length it asked
** for and replace it only from a chunk that carries text (async_request_sglang_generate of
** python/sglang/benchmark/serving.py, commit 00f9ec4: meta_info.completion_tokens; the OpenAI
** ones: usage), and its TTFT at 0, set by that chunk alone. When no request returned text
** (total_output_tokens_retokenized 0, the text encoded again: nothing; sgl-project/sglang issues
** 6525, 9585, 12389, whose prompts the server did not answer) total_output_tokens is the lengths
** asked for, the output throughputs are made of them, and each TPOT is the latency over that
** length less one (TTFT 0): none is a measurement. They are not kept, the caller warns; the
** latencies, to the end of each request, and the request counts are. */
static void drop_unreturned_output(vb_result *r, enum vb_writer w) {
  static const char *const counted[] = {"total_output_tokens", "output_throughput", "total_token_throughput"};
  const vb_value *retok = vb_find_value(r, "total_output_tokens_retokenized");
  const vb_value *out = vb_find_value(r, "total_output_tokens");
  if (w != W_SGLANG || r->completed <= 0 || !retok || retok->v != 0 || !out || out->v <= 0) return;
  remove_tpot(r);
  remove_named(r, counted, sizeof counted / sizeof counted[0]);
  r->output_uncounted = VB_UNCOUNTED_NO_TEXT;
}

/* Whether an sglang.bench_serving line was run with --disable-stream: requests answered with
** more than one token (total_output_tokens above completed) and not one gap timed between two
** chunks (the mean ITL np.mean([] or 0) = 0). Each answer came whole, in one chunk; its request
** function (python/sglang/benchmark/serving.py commit 00f9ec4) reads the latency before parsing
** that chunk and the TTFT after, so TTFT is the latency and some microseconds more, and TPOT,
** (latency - TTFT) / (length - 1), the clock's reading order, at or a little below 0. */
static int unstreamed_sglang(const cJSON *o) {
  double itl, out, done;
  return xp_json_number(cJSON_GetObjectItemCaseSensitive(o, "mean_itl_ms"), &itl) && itl == 0 &&
         xp_json_number(cJSON_GetObjectItemCaseSensitive(o, "completed"), &done) && done > 0 &&
         xp_json_number(cJSON_GetObjectItemCaseSensitive(o, "total_output_tokens"), &out) && out > done;
}

/* A TPOT statistic of an unstreamed line: below 0 by the clock's reading order, not refused. */
static int unstreamed_tpot(const vb_result *r, const char *key) {
  const size_t n = strlen(key);
  return r->unstreamed && n > 8 && strcmp(key + n - 8, "_tpot_ms") == 0;
}

/* Each request's latency includes its time to first token, so over the same requests every
** order statistic (median, percentile) and the mean of the latencies is at least TTFT's: a
** summary that says otherwise is no measurement. This is the check for files without
** per-request latencies (SGLang writes none). The error names the statistic as the file spells it. */
static int check_summary_order(const vb_src *s, const vb_result *r, enum vb_writer w) {
  if (r->unstreamed) return 0; /* TTFT and latency one moment, read in the other order */
  for (size_t i = 0; i < r->nvalues; i++) {
    const char *m = r->values[i].metric;
    size_t len = strlen(m);
    if (len < 9 || strcmp(m + len - 8, "_e2el_ms") != 0 || strncmp(m, "std_", 4) == 0) continue;
    char ttft[96], key[96];
    snprintf(ttft, sizeof ttft, "%.*s_ttft_ms", (int)(len - 8), m);
    const vb_value *t = vb_find_value(r, ttft);
    if (!t || r->values[i].v >= t->v) continue;
    static const char *const e2e[] = {"_e2el_ms", "_e2e_latency_ms", "_e2e_latency", "_e2el_ms", "_e2el_ms", "_e2el_ms"};
    snprintf(key, sizeof key, "%.*s%s", (int)(len - 8), m, e2e[w]);
    if (w == W_SGLANG_2024) ttft[strlen(ttft) - 3] = 0; /* median_ttft, as that version spells it */
    return bad_key(s, key, "%g ms, shorter than %s (%g ms): a latency includes its time to first token",
                   r->values[i].v, ttft, t->v);
  }
  return 0;
}

/* ---- one result object ---- */

/* The first value of a metric wins: a file with both goodput spellings records one. (A key
** given twice is another matter: read_object keeps its last value, as Python's json.load.) */
static void add_value(vb_result *r, const char *metric, const char *unit, double v) {
  if (!isfinite(v) || vb_find_value(r, metric)) return; /* NaN or Infinity: no value */
  r->values = xp_xrealloc(r->values, (r->nvalues + 1) * sizeof *r->values);
  r->values[r->nvalues++] = (vb_value){xp_strdup(metric), unit, v};
}

/* The requests that failed, where the writer counts none but its errors list tells each request's
** fate: sglang.bench_serving --output-details, benchmark_serving.py before vLLM's failed key,
** TensorRT-LLM's fork. vLLM's own count is the same, the requests that did not succeed
** (calculate_metrics of vllm/benchmarks/serve.py, 009e6d4), so a failure is one metric whichever
** client met it. */
static void count_failed(const vb_lists *l, vb_result *r) {
  if (l->errors && r->requests > 0) add_value(r, "failed", "requests", (double)(r->requests - r->succeeded));
}

static char **meta_slot(vb_result *r, const char *key) {
  if (strcmp(key, "model_id") == 0) return &r->model;
  if (strcmp(key, "backend") == 0) return &r->backend;
  if (strcmp(key, "endpoint_type") == 0) return &r->endpoint_type;
  if (strcmp(key, "tokenizer_id") == 0) return &r->tokenizer;
  if (strcmp(key, "label") == 0) return &r->label;
  if (strcmp(key, "date") == 0) return &r->date;
  if (strcmp(key, "version") == 0) return &r->engine_version;
  return NULL;
}

static void take_known(vb_result *r, const vb_key *k, const cJSON *v, vb_lists *l) {
  if (cJSON_IsNull(v)) return;
  switch (k->dest) {
  case D_META: {
    if (strcmp(k->key, "version") == 0 && strcmp(v->valuestring, "N/A") == 0) break; /* --version's default */
    char **slot = meta_slot(r, k->as ? k->as : k->key);
    free(*slot);
    *slot = v->valuestring[0] ? xp_strdup(v->valuestring) : NULL; /* "" says nothing: absent */
    break;
  }
  case D_PARAM: {
    /* a number given as a string (setting_number) is kept as the number, as SGLang writes it */
    double x;
    cJSON *num = NULL;
    if (k->type != T_STR && k->type != T_RATE && cJSON_IsString(v) && setting_number(k, v, &x))
      v = num = cJSON_CreateNumber(x);
    /* "trace" (SGLang replaying a trace's timestamps): no rate; NAN, the case named for it */
    if (strcmp(k->key, "request_rate") == 0)
      r->request_rate = !cJSON_IsString(v) ? v->valuedouble : strcmp(v->valuestring, "inf") == 0 ? INFINITY : NAN;
    /* vLLM takes a max_concurrency of 0 as none (`if max_concurrency` makes no semaphore) */
    if (strcmp(k->key, "max_concurrency") == 0 && v->valuedouble > 0) r->max_concurrency = xp_saturate_int64(v->valuedouble);
    /* --burstiness inf arrives as Infinity (json.dump): kept as "inf", as vLLM writes the rate */
    if (cJSON_IsNumber(v) && isinf(v->valuedouble)) cJSON_AddStringToObject(r->params, k->key, "inf");
    else cJSON_AddItemToObject(r->params, k->key, cJSON_Duplicate(v, 0));
    cJSON_Delete(num);
    break;
  }
  case D_VALUE:
    /* vLLM writes rtfx = 0 for every benchmark without audio input: not a measurement. */
    if (strcmp(k->key, "rtfx") == 0 && v->valuedouble == 0) break;
    add_value(r, k->as ? k->as : k->key, k->unit, v->valuedouble);
    break;
  case D_LIST:
    if (strcmp(k->key, "ttfts") == 0) l->ttfts = v;
    else if (strcmp(k->key, "itls") == 0) l->itls = v;
    else if (strcmp(k->key, "latencies") == 0 || strcmp(k->key, "e2els") == 0) {
      l->latencies = v;
      l->latencies_key = k->key;
    }
    else if (strcmp(k->key, "output_lens") == 0) l->output_lens = v;
    else if (strcmp(k->key, "errors") == 0) l->errors = v;
    else if (strcmp(k->key, "input_lens") == 0) l->input_lens = v;
    break;
  case D_NONE: break;
  }
}

/* The unit of a number xp has no key for, by how its name ends: vLLM's _ms; TensorRT-LLM's
** statistics of the tokens each request decoded an iteration (speculative decoding), std_ ...
** p99_avg_decoded_tokens_per_iter; vllm bench serve --record-power's (benchmark() of
** vllm/benchmarks/serve.py, commit 33d976a: result.update(power_stats), power.py; SGLang's
** power.py the same get_stats()): the GPU's and CPU's power in W (p25_, mean_, median_, p75_power_w,
** median_power_per_accelerator_w, cpu_..._per_socket_w), the samples taken, and the tokens a
** joule (each throughput over the median power, toks_per_joule, or over GPU and CPU's,
** toks_per_total_joule). "" for any other. */
static const char *unit_by_suffix(const char *key) {
  static const struct { const char *suffix, *unit; } units[] = {
      {"_ms", "ms"}, {"_avg_decoded_tokens_per_iter", "tokens"}, {"_power_w", "W"},
      {"_power_per_accelerator_w", "W"}, {"_power_per_socket_w", "W"}, {"num_samples", "samples"},
      {"toks_per_joule", "tok/J"}, {"toks_per_total_joule", "tok/J"}};
  const size_t n = strlen(key);
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    const size_t sl = strlen(units[i].suffix);
    if (n >= sl && strcmp(key + n - sl, units[i].suffix) == 0) return units[i].unit;
  }
  return "";
}

/* A goodput's SLO targets as vLLM's command line takes them, "ttft:60 tpot:15" (--goodput's
** pairs, nargs "+", apart by spaces), where a result carries them as text (--metadata
** goodput=..., which vllm bench serve copies as given; a sweep's bench override): the case's
** setting in the form every other file's targets take (vb_goodput_targets), a new string; NULL
** where the text is not that form. */
static char *goodput_of_text(const char *text) {
  cJSON *pairs = cJSON_CreateArray();
  char *copy = xp_strdup(text), *save = NULL;
  for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
    cJSON_AddItemToArray(pairs, cJSON_CreateString(t));
  char *targets = vb_goodput_targets(pairs);
  cJSON_Delete(pairs);
  free(copy);
  return targets;
}

/* Keys xp does not know: --metadata KEY=VALUE pairs (strings) describe the case (goodput=, the
** goodput's targets, which the result does not name otherwise, in their one form); numbers are
** metrics of a newer vLLM, kept as recorded. */
static void take_unknown(vb_result *r, const char *key, const cJSON *v) {
  char buf[128], *targets = NULL;
  key = vllm_spelling(key, buf, sizeof buf);
  if (is_statistic_key(key) && cJSON_IsNumber(v)) add_value(r, key, "ms", v->valuedouble); /* drop_unmeasured */
  else if (strcmp(key, "goodput") == 0 && cJSON_IsString(v) && !cJSON_HasObjectItem(r->params, key) &&
           (targets = goodput_of_text(v->valuestring))) {
    cJSON_AddStringToObject(r->params, key, targets);
    free(targets);
  }
  else if (cJSON_IsNumber(v)) {
    /* the units of what vb_summary.c and vb_trtllm.c rewrote: AIPerf's energy, trtllm-bench's drafts */
    const char *unit = r->tool == VB_SUMMARY_EXPORT ? vb_summary_unit(key)
                       : r->tool == VB_TRTLLM_BENCH ? vb_trtllm_unit(key)
                                                    : NULL;
    add_value(r, key, unit ? unit : unit_by_suffix(key), v->valuedouble);
  }
  else if ((cJSON_IsString(v) || cJSON_IsBool(v)) && !cJSON_HasObjectItem(r->params, key))
    cJSON_AddItemToObject(r->params, key, cJSON_Duplicate(v, 0));
}

/* A setting vllm bench sweep serve added to the result: the point's serve and bench overrides
** (max_num_seqs, tensor_parallel_size, random_input_len, a _benchmark_name), of any JSON type. A
** setting, whatever its type: kept as it is where a scalar, a list or table (an engine config)
** as its JSON text. A bench override (an argument of vllm bench serve, vb_sweep.c) is the
** workload, a setting of the case; a serve override the server's, which the run records
** (vllm_bench.c), so that one workload on two server settings pairs in xp compare. */
static void take_sweep_setting(vb_result *r, const cJSON *v) {
  cJSON *to = vb_bench_arg(v->string) ? r->params : r->server;
  if (cJSON_IsNull(v) || cJSON_HasObjectItem(to, v->string)) return;
  /* --goodput's SLO target (one: the sweep passes a value as one argument, str(v)), in the form a
  ** .pytorch.json's and genai-perf's targets take, so that the same target is one setting
  ** whichever file names it */
  if (strcmp(v->string, "goodput") == 0 && cJSON_IsString(v)) {
    char *targets = goodput_of_text(v->valuestring);
    if (targets) {
      cJSON_AddStringToObject(to, v->string, targets);
      free(targets);
      return;
    }
  }
  if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
    char *text = cJSON_PrintUnformatted(v);
    cJSON_AddStringToObject(to, v->string, text);
    cJSON_free(text);
  } else if (cJSON_IsNumber(v) && isinf(v->valuedouble))
    cJSON_AddStringToObject(to, v->string, v->valuedouble > 0 ? "inf" : "-inf");
  else
    cJSON_AddItemToObject(to, v->string, cJSON_Duplicate(v, 0));
}

/* A batch of SGLang's one-batch benchmarks or vLLM's latency benchmark by its size and lengths;
** an offline throughput benchmark (SGLang's, vLLM's) has one load, which its totals and settings
** describe. */
static int name_batch_case(vb_result *r) {
  const cJSON *p = r->params;
  double b, in, out;
  if (r->tool == VB_SGLANG_OFFLINE || r->tool == VB_VLLM_THROUGHPUT || r->tool == VB_TRTLLM_BENCH)
    r->case_name = xp_strdup("offline");
  else if ((r->tool == VB_SGLANG_ONE_BATCH || r->tool == VB_SGLANG_ONE_BATCH_LOCAL || r->tool == VB_VLLM_LATENCY) &&
           xp_json_number(cJSON_GetObjectItemCaseSensitive(p, "batch_size"), &b) &&
           xp_json_number(cJSON_GetObjectItemCaseSensitive(p, "input_len"), &in) &&
           xp_json_number(cJSON_GetObjectItemCaseSensitive(p, "output_len"), &out))
    r->case_name = xp_asprintf("batch=%g,input=%g,output=%g", b, in, out);
  return r->case_name != NULL;
}

/* A setting of the case in either spelling (a sweep's bench override may write dataset-name). */
static const cJSON *case_setting(const vb_result *r, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->params, key);
  char dashed[64];
  snprintf(dashed, sizeof dashed, "%s", key);
  for (char *c = dashed; *c; c++)
    if (*c == '_') *c = '-';
  return v ? v : cJSON_GetObjectItemCaseSensitive(r->params, dashed);
}

/* Whether the requests went out at a trace's own timestamps: vllm bench serve --dataset-name
** timed_trace turns self_timed on unless --no-self-timed (main_async of vllm/benchmarks/serve.py,
** vllm-project/vllm commit 009e6d4), and get_request then applies no rate; yet the result says
** request_rate "inf" (the default, or the rate given and not applied) and names no dataset. Only
** a sweep's bench override or --metadata dataset_name=timed_trace says so; self_timed false
** (--no-self-timed) is a rate applied to the trace's requests. */
static int self_timed_trace(const vb_result *r) {
  const char *ds = cJSON_GetStringValue(case_setting(r, "dataset_name"));
  const cJSON *t = case_setting(r, "self_timed");
  const char *ts = cJSON_GetStringValue(t);
  const int off = cJSON_IsFalse(t) || (ts && (strcmp(ts, "false") == 0 || strcmp(ts, "False") == 0 || strcmp(ts, "0") == 0));
  return ds && strcmp(ds, "timed_trace") == 0 && !off;
}

/* Whether a vllm bench serve result at request_rate "inf" with no max_concurrency (and no ramp-up)
** had its requests spread out. Such a run sends every request at once: get_request waits before
** none, so each starts in the one sweep of the event loop before any has ended, and the peak of
** requests in flight (max_concurrent_requests: calculate_metrics' sweep over the successful
** requests' [start, end)) is every completed one. A peak below that, by one request or by many
** (a replay of a busy trace has most of its requests in flight at once), is requests sent over
** time, which of vllm bench serve's loads only a timed_trace replay at the trace's timestamps
** does (self_timed: no rate applied, and request_rate written "inf"; main_async and
** benchmark() of vllm/benchmarks/serve.py, vllm-project/vllm commit 009e6d4, name neither the
** dataset nor self_timed). --no-self-timed, said, is a rate applied: not inferred against it. */
static int spread_out(const vb_result *r) {
  const vb_value *peak = vb_find_value(r, "max_concurrent_requests");
  const cJSON *t = case_setting(r, "self_timed");
  const char *ts = cJSON_GetStringValue(t);
  if (r->max_concurrency >= 0 || !isinf(r->request_rate) || r->request_rate < 0 || !peak || r->completed < 2 ||
      cJSON_HasObjectItem(r->params, "ramp_up_strategy") || cJSON_IsFalse(t) ||
      (ts && (strcmp(ts, "false") == 0 || strcmp(ts, "False") == 0 || strcmp(ts, "0") == 0)))
    return 0;
  return peak->v < (double)r->completed;
}

/* structured: a result of benchmarks/benchmark_serving_structured_output.py (correct_rate(%)),
** whose prompts ask for JSON, a grammar, a regex or a choice and whose server constrains the
** decoding: another workload than a plain benchmark's at the same load, named apart so that xp
** compare never pairs the two (the writer records neither its --dataset nor its
** --structured-output-ratio, only its file name does). */
static void name_case(vb_result *r, int structured) {
  char buf[160] = "";
  size_t n = 0;
  if (name_batch_case(r)) return;
  if (structured) n += (size_t)snprintf(buf, sizeof buf, "structured_output");
  const char *ramp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->params, "ramp_up_strategy"));
  if (r->max_concurrency >= 0)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%sconcurrency=%lld", n ? "," : "", (long long)r->max_concurrency);
  if (self_timed_trace(r) || r->spread_replay)
    snprintf(buf + n, sizeof buf - n, "%srate=trace", n ? "," : "");
  else if (ramp) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(r->params, "ramp_up_start_rps");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(r->params, "ramp_up_end_rps");
    snprintf(buf + n, sizeof buf - n, "%sramp=%s:%g-%g", n ? "," : "", ramp,
             cJSON_IsNumber(a) ? a->valuedouble : 0, cJSON_IsNumber(b) ? b->valuedouble : 0);
  } else if (isfinite(r->request_rate))
    snprintf(buf + n, sizeof buf - n, "%srate=%g", n ? "," : "", r->request_rate);
  else if (isnan(r->request_rate) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r->params, "request_rate")))
    snprintf(buf + n, sizeof buf - n, "%srate=trace", n ? "," : "");
  else if (r->max_concurrency < 0)
    snprintf(buf + n, sizeof buf - n, "%srate=inf", n ? "," : "");
  r->case_name = xp_strdup(buf);
}

/* Whether a server_info's server ran SGLang's DP attention (--enable-dp-attention): its dp_size then
** splits each TP group's attention into that many groups (tp_size % dp_size == 0, "1 < dp-size
** <= tp-size": ServerArgs of python/sglang/srt/server_args.py), one engine of tp_size GPUs, not
** dp_size replicas of it. */
static int dp_attention(const cJSON *info) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(info, "enable_dp_attention"));
}

/* The server settings a server_info names that change what ran, as a sweep's --serve-params are:
** SGLang's ServerArgs of speculative decoding (its algorithm, EAGLE, ...; steps, top-k, draft
** tokens, those only with an algorithm) and of DP attention (its dp_size, the attention's groups,
** only with it), and trtllm-bench's decoding mode (vb_trtllm.c). Each where set (not null, not
** false) is a server setting of the result, the run's serve.KEY where every result has it alike
** (vllm_bench.c settle_server_settings). */
static void take_server_settings(vb_result *r, const cJSON *info) {
  static const char *const keys[] = {"speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk",
                                     "speculative_num_draft_tokens", "enable_dp_attention", "dp_size", "decoding_mode"};
  const char *algorithm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, keys[0]));
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(info, keys[k]);
    const int drafts = k >= 1 && k <= 3; /* the draft's shape, of no draft without an algorithm */
    const int groups = k == 5;           /* the attention's DP groups, of no DP attention without it */
    const int set = (cJSON_IsTrue(v) || cJSON_IsNumber(v) || (cJSON_IsString(v) && v->valuestring[0])) &&
                    (!drafts || (algorithm && *algorithm)) && (!groups || dp_attention(info));
    if (set && !cJSON_HasObjectItem(r->server, keys[k])) cJSON_AddItemToObject(r->server, keys[k], cJSON_Duplicate(v, 0));
  }
}

/* Who writes a server_info key (take_server_model): any writer, trtllm-bench's report alone, every
** writer but it, or it and AIPerf (vb_trtllm.c, vb_summary.c gather their keys there). */
enum vb_info_from { I_ANY, I_TRTLLM, I_NOT_TRTLLM, I_NAMED };

/* SGLang's result names no model, but later versions write the server's /get_server_info beside
** it (null when the server has none, as vLLM's): its model_path is the model the server loaded,
** its tokenizer_path the tokenizer, its tp_size, pp_size, dp_size and ep_size the parallel
** sizes (a disaggregated deployment's under "decode", where SGLang itself reads them). Each
** string key fills its field once, the first writer's: as written, or as a server's setting
** (vb_server_setting: NULL for auto and None). */
static void take_server_model(vb_result *r, const cJSON *o) {
  static const struct {
    const char *key;
    size_t field;             /* offsetof a char * of vb_result */
    int setting;              /* through vb_server_setting, else as written where not "" */
    enum vb_info_from from;
  } keys[] = {
      {"model_path", offsetof(vb_result, model), 0, I_ANY},
      {"tokenizer_path", offsetof(vb_result, tokenizer), 0, I_ANY},
      /* trtllm-bench's GPU, AIPerf's telemetry's GPU; SGLang's server_info names none */
      {"gpu_name", offsetof(vb_result, gpu), 0, I_NAMED},
      /* the KV cache's dtype: SGLang's ServerArgs kv_cache_dtype, trtllm-bench's (vb_trtllm.c) */
      {"kv_cache_dtype", offsetof(vb_result, kv_cache_dtype), 1, I_ANY},
      /* and its --dtype and --quantization as set (ServerArgs dtype, quantization): null
      ** quantization is a checkpoint's own, if any, so neither is the GEMMs' precision (xp's
      ** dtype, which trtllm-bench's report names: vb_trtllm.c take_precision) */
      {"dtype", offsetof(vb_result, serve_dtype), 1, I_NOT_TRTLLM},
      {"quantization", offsetof(vb_result, serve_quant), 1, I_NOT_TRTLLM},
      {"dtype", offsetof(vb_result, dtype), 0, I_TRTLLM},
      {"engine_dtype", offsetof(vb_result, engine_dtype), 0, I_TRTLLM},
      {"engine_quantization", offsetof(vb_result, engine_quant), 0, I_TRTLLM}};
  const cJSON *info = cJSON_GetObjectItemCaseSensitive(o, "server_info");
  const cJSON *decode = cJSON_GetObjectItemCaseSensitive(info, "decode");
  if (cJSON_IsArray(decode)) info = cJSON_GetArrayItem(decode, 0);
  const int trtllm = r->tool == VB_TRTLLM_BENCH;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    const enum vb_info_from f = keys[k].from;
    if ((f == I_TRTLLM && !trtllm) || (f == I_NOT_TRTLLM && trtllm) ||
        (f == I_NAMED && !trtllm && r->tool != VB_SUMMARY_EXPORT))
      continue;
    char **dest = (char **)((char *)r + keys[k].field);
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, keys[k].key));
    if (*dest) continue;
    if (keys[k].setting) *dest = vb_server_setting(v);
    else if (v && *v) *dest = xp_strdup(v);
  }
  for (int k = 0; k < VB_NPARALLEL; k++) {
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(info, parallel_server_info[k]);
    /* DP attention's dp_size is no data parallelism (dp_attention): a server setting instead */
    if (cJSON_IsNumber(size) && !(k == VB_DP && dp_attention(info))) r->server_parallel[k] = vb_parallel_size(size);
  }
  if (trtllm) r->gpu_count = vb_parallel_size(cJSON_GetObjectItemCaseSensitive(info, "world_size"));
  take_server_settings(r, info);
}

/* The per-request lists SGLang's unmerged refactor of 2025 (PR 10409, python -m
** sglang.benchmark.serving on that branch) nested under "details" with --output-details: read
** as they are read at the top. */
static int take_details(const vb_src *s, vb_result *r, const cJSON *details, vb_lists *l) {
  const cJSON *v;
  cJSON_ArrayForEach(v, details) {
    const vb_key *k = find_key(v->string);
    if (!k || (k->dest != D_LIST && k->dest != D_NONE)) continue; /* lists only, as SGLang writes there */
    if (check_type(s, k, v)) return 1;
    take_known(r, k, v, l);
  }
  return 0;
}

/* SGLang's --cache-report totals (2026): prompt tokens the completed requests sent, how many
** of them the server's prefix cache held, on device, host and storage, and the hit rate. The
** storage backend's name is no measurement. */
static int take_cache_report(const vb_src *s, vb_result *r, const cJSON *cache) {
  const cJSON *v;
  cJSON_ArrayForEach(v, cache) {
    if (!cJSON_IsNumber(v)) continue;
    note_nonfinite(s, r, v);
    if (v->valuedouble < 0) return bad_key(s, v->string, "expected a number >= 0, found %g", v->valuedouble);
    size_t n = strlen(v->string);
    const char *unit = n > 4 && strcmp(v->string + n - 4, "_pct") == 0       ? "%"
                       : n > 7 && strcmp(v->string + n - 7, "_tokens") == 0 ? "tokens"
                                                                           : "";
    add_value(r, v->string, unit, v->valuedouble);
  }
  return 0;
}

/* TensorRT-LLM's energy over the benchmark, from trtllm-serve's /energy_metrics before and after:
** joules, the output tokens a joule (null without energy), the mean power (0 where the two
** queries came at one time: no measurement). */
static int take_energy(const vb_src *s, vb_result *r, const cJSON *energy) {
  static const struct { const char *key, *unit; } known[] = {
      {"total_energy_j", "J"}, {"output_tps_per_w", "tok/J"}, {"total_gpu_power_w", "W"}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(energy, known[i].key);
    if (!v || cJSON_IsNull(v)) continue;
    if (!cJSON_IsNumber(v)) return bad_key(s, known[i].key, "expected a number, found %s", vb_json_kind(v));
    note_nonfinite(s, r, v);
    if (v->valuedouble < 0) return bad_key(s, known[i].key, "expected a number >= 0, found %g", v->valuedouble);
    if (v->valuedouble > 0) add_value(r, known[i].key, known[i].unit, v->valuedouble);
  }
  return 0;
}

/* vllm bench serve's speculative decoding, each draft position's acceptance: the tokens accepted
** at position i over the drafts, from the server's counters before and after the benchmark
** (spec_decode_per_position_acceptance_rates of benchmark() in vllm/benchmarks/serve.py, commit
** 009e6d4; printed "Position i:" under "Per-position acceptance (%)"). How deep drafts hold is
** what a number of speculative tokens buys a decode step, so each is a value,
** spec_decode_position_I_acceptance_rate in % as vLLM prints it, I from 0. */
static int take_positions(const vb_src *s, vb_result *r, const cJSON *rates) {
  const char *key = "spec_decode_per_position_acceptance_rates";
  const cJSON *v;
  int i = 0;
  if (!rates || cJSON_IsNull(rates)) return 0;
  if (!cJSON_IsArray(rates)) return bad_key(s, key, "expected a list of numbers, found %s", vb_json_kind(rates));
  cJSON_ArrayForEach(v, rates) {
    if (!cJSON_IsNumber(v)) return bad_key(s, key, "item %d: expected a number, found %s", i, vb_json_kind(v));
    note_nonfinite_entry(s, r, key, v);
    if (v->valuedouble < 0 || v->valuedouble > 1)
      return bad_key(s, key, "item %d: expected a fraction from 0 to 1, found %g", i, v->valuedouble);
    char name[64];
    snprintf(name, sizeof name, "spec_decode_position_%d_acceptance_rate", i++);
    add_value(r, name, "%", v->valuedouble * 100);
  }
  return 0;
}

/* TensorRT-LLM's client reads avg_decoded_tokens_per_iter from each response where the server put
** it in (async_request_openai_completions of tensorrt_llm/serve/scripts/backend_request_func.py:
** "from TensorRT-LLM response"), a field no other engine's answers carry, and writes the last one
** read, 0.0 where none came (calculate_metrics of its benchmark_serving.py, commit f61d71d); later
** versions an object of its statistics ({mean, median, ...}, the statistics beside it). A value
** above 0 is the tokens a decoding step gave a request, and says the server was TensorRT-LLM's:
** its backend, openai or openai-chat, names only the API. 0 is no measurement. */
static int take_decoded(const vb_src *s, vb_result *r, const cJSON *v) {
  const cJSON *mean = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "mean") : v;
  if (!v || cJSON_IsNull(v) || (cJSON_IsObject(v) && (!mean || cJSON_IsNull(mean)))) return 0;
  if (cJSON_IsNumber(mean) && !isfinite(mean->valuedouble)) { /* no value, and no word of the server */
    if (!cJSON_IsObject(v)) note_nonfinite(s, r, v);
    return 0;
  }
  if (!cJSON_IsNumber(mean) || mean->valuedouble < 0)
    return bad_key(s, "avg_decoded_tokens_per_iter", "expected a number >= 0 or an object with one as its mean, found %s",
                   cJSON_IsNumber(mean) ? "a number below 0" : vb_json_kind(mean));
  if (mean->valuedouble == 0) return 0;
  r->trtllm_server = 1;
  if (!cJSON_IsObject(v)) add_value(r, "avg_decoded_tokens_per_iter", "tokens", v->valuedouble);
  return 0;
}

/* Every prompt has tokens: a total of 0 input tokens over requests that completed is a count
** the client did not make. SGLang's multi-turn benchmark (2026) hands its metrics no dataset
** rows (each round of a conversation is a request of its own) and so adds up no prompt, and the
** throughputs made of it count the output alone; recorded, they would make the case another
** workload for xp compare (prompt tokens a request: 0). They are dropped, and the count rebuilt
** from what the file says of each request's prompt: input_lens (--output-details: per round,
** the prompt tokens the server reported) over the requests that succeeded, else --cache-report's
** total_prompt_tokens, the same sum; with it input_throughput and total_token_throughput as
** SGLang computes them for one turn. Without either the case has no prompt count, and xp
** compare pairs it on its settings alone. */
static int rebuild_uncounted_input(const vb_src *s, const vb_lists *l, vb_result *r) {
  static const char *const counted[] = {"total_input_tokens", "total_input_text_tokens", "input_throughput",
                                        "total_token_throughput", "total_throughput_retokenized"};
  const vb_value *in = vb_find_value(r, "total_input_tokens");
  if (!in || in->v != 0 || r->completed <= 0) return 0;
  if (l->input_lens && cJSON_GetArraySize(l->input_lens) != r->requests)
    return bad_key(s, "input_lens", "has %d entries but the other lists %lld (one per request): "
                   "the prompt tokens of a multi-turn benchmark cannot be counted",
                   cJSON_GetArraySize(l->input_lens), (long long)r->requests);
  remove_named(r, counted, sizeof counted / sizeof counted[0]);
  const vb_value *cached = vb_find_value(r, "total_prompt_tokens");
  const double sent = isfinite(r->prompt_tokens) ? r->prompt_tokens : cached ? cached->v : 0;
  if (sent <= 0) return 0;
  /* values, not pointers: add_value moves r->values */
  const vb_value *d = vb_find_value(r, "duration"), *o = vb_find_value(r, "total_output_tokens");
  const double dur = d ? d->v : 0, out = o ? o->v : NAN;
  add_value(r, "total_input_tokens", "tokens", sent);
  if (dur > 0) add_value(r, "input_throughput", "tok/s", sent / dur);
  if (dur > 0 && !isnan(out)) add_value(r, "total_token_throughput", "tok/s", (sent + out) / dur);
  return 0;
}

static int read_object(const vb_src *s, cJSON *o, int nobjects, vb_result *r) {
  if (!cJSON_IsObject(o))
    return xp_error_at(XP_EXIT_USAGE, s->label, s->line,
                       "expected a JSON object (the output of vllm bench serve --save-result), found %s",
                       vb_json_kind(o));
  /* vllm bench serve with a pooling backend (embeddings) writes requests, not tokens out. */
  if (!cJSON_HasObjectItem(o, "output_throughput") && cJSON_HasObjectItem(o, "input_sequence_throughput"))
    return xp_error_at(XP_EXIT_USAGE, s->label, s->line,
                       "a pooling (embedding) benchmark: serve_bench records generation benchmarks, "
                       "with output tokens");
  /* a side file's tool is known already (vb_pytorch.c) */
  if (r->tool == VB_SERVE && vb_tool_read(s->label, s->line, o, &r->tool)) return XP_EXIT_USAGE;
  const enum vb_writer w = writer_of(o, r->tool);
  const int sglang = w == W_SGLANG || w == W_SGLANG_2024 || w == W_SGLANG_BATCH;
  /* SGLang's client benchmarks an embedding server too (sglang-embedding, vllm-embedding): no
  ** tokens come out, and its zeros are no generation benchmark */
  const char *backend = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "backend"));
  size_t blen = backend ? strlen(backend) : 0;
  if (sglang && blen > 10 && strcmp(backend + blen - 10, "-embedding") == 0)
    return bad_key(s, "backend", "\"%s\": an embedding benchmark; serve_bench records generation benchmarks, "
                   "with output tokens", backend);
  for (const vb_key *k = known_keys; k->key; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k->key);
    const int required = required_in(k, w);
    if (required && !v && !spelled_otherwise(o, k->key))
      return xp_error_at(XP_EXIT_USAGE, s->label, s->line, "missing key \"%s\" (%s%s%s)", k->key,
                         r->tool != VB_SERVE ? "not a " : "",
                         r->tool != VB_SERVE ? vb_tool_name[r->tool]
                         : s->side           ? "not the .pytorch.json of a vllm bench serve --save-result; its records' metric.extra_info has none"
                         : sglang            ? "not an sglang.bench_serving --output-file line"
                                             : "not a vllm bench serve --save-result file",
                         r->tool != VB_SERVE ? " --result-filename line?" : s->side ? "" : "?");
    if (required && cJSON_IsNull(v)) return bad_key(s, k->key, "is null; a value is required");
    if (v && check_type(s, k, v)) return XP_EXIT_USAGE;
  }
  /* vllm bench sweep serve's --warmup-num-prompts runs a point once before its runs, to
  ** warm the server, and keeps that result as warmup.json, run_number -1: no measurement */
  const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run_number");
  if (cJSON_IsNumber(run) && run->valuedouble < 0)
    return bad_key(s, "run_number", "%g: vllm bench sweep's warmup run (--warmup-num-prompts), not a "
                   "measurement; leave its warmup.json out", run->valuedouble);
  r->params = cJSON_CreateObject();
  r->server = cJSON_CreateObject();
  const char *base = strrchr(s->label, '/');
  cJSON_AddStringToObject(r->params, "file", base ? base + 1 : s->label);
  if (nobjects > 1) cJSON_AddNumberToObject(r->params, "result", s->index);
  r->max_concurrency = -1;
  r->gpu_count = -1;
  for (int k = 0; k < VB_NPARALLEL; k++) r->server_parallel[k] = -1;
  r->request_rate = NAN;
  const cJSON *done = cJSON_GetObjectItemCaseSensitive(o, "completed");
  r->completed = cJSON_IsNumber(done) && !isnan(done->valuedouble) ? xp_saturate_int64(done->valuedouble) : -1;
  r->unstreamed = w == W_SGLANG && unstreamed_sglang(o);
  vb_lists lists = {.latencies_key = "latencies"};
  const cJSON *v;
  int sweep = 0; /* past vllm bench sweep's run_number, where it added the point's settings */
  cJSON_ArrayForEach(v, o) {
    if (strcmp(v->string, "run_number") == 0) sweep = 1;
    const vb_key *k = find_key(v->string);
    if (k ? k->dest == D_VALUE : !sweep) note_nonfinite(s, r, v);
    if (k) take_known(r, k, v, &lists);
    else if (sweep) take_sweep_setting(r, v);
    else if (is_statistic_key(v->string) && !cJSON_IsNumber(v) && !cJSON_IsNull(v))
      return bad_key(s, v->string, "expected a number, found %s", vb_json_kind(v));
    else if (is_statistic_key(v->string) && cJSON_IsNumber(v) && v->valuedouble < 0 && !unstreamed_tpot(r, v->string))
      return bad_key(s, v->string, "expected a number >= 0, found %g", v->valuedouble);
    else take_unknown(r, v->string, v);
  }
  if (sglang || w == W_SUMMARY) take_server_model(r, o); /* trtllm-bench's world_info, so gathered */
  const cJSON *details = cJSON_GetObjectItemCaseSensitive(o, "details");
  const cJSON *cache = cJSON_GetObjectItemCaseSensitive(o, "cache_report");
  if (cJSON_IsObject(details) && take_details(s, r, details, &lists)) return XP_EXIT_USAGE;
  if (cJSON_IsObject(cache) && take_cache_report(s, r, cache)) return XP_EXIT_USAGE;
  const cJSON *energy = cJSON_GetObjectItemCaseSensitive(o, "energy");
  if (cJSON_IsObject(energy) && take_energy(s, r, energy)) return XP_EXIT_USAGE;
  if (take_decoded(s, r, cJSON_GetObjectItemCaseSensitive(o, "avg_decoded_tokens_per_iter"))) return XP_EXIT_USAGE;
  if (take_positions(s, r, cJSON_GetObjectItemCaseSensitive(o, "spec_decode_per_position_acceptance_rates")))
    return XP_EXIT_USAGE;
  int n;
  if (check_lengths(s, &lists, &n) || collect_samples(s, &lists, n, r)) return XP_EXIT_USAGE;
  count_failed(&lists, r);
  drop_unmeasured(r);
  if (r->unstreamed) remove_tpot(r);
  drop_uncounted_output(o, r, w);
  drop_unreturned_output(r, w);
  if (rebuild_uncounted_input(s, &lists, r) || check_summary_order(s, r, w)) return XP_EXIT_USAGE;
  r->spread_replay = w == W_VLLM && !self_timed_trace(r) && spread_out(r);
  name_case(r, cJSON_HasObjectItem(o, "correct_rate(%)"));
  return 0;
}

/* A .pytorch.json side file (its one JSON value a list of records) read as the result it
** records: vb_pytorch.c checks the records and rebuilds the result, read here as the others;
** then what the rebuilt object cannot carry, the engine's parallel sizes and a latency's
** iterations. */
static int read_side(const vb_src *s, const cJSON *list, vb_result *r) {
  vb_side side;
  int rc = vb_pytorch_read(s->label, s->line, list, &side);
  if (rc) return rc;
  r->tool = side.tool;
  rc = read_object(s, side.flat, 1, r);
  for (int k = 0; k < VB_NPARALLEL && rc == 0; k++)
    if (side.parallel[k] > 0) r->server_parallel[k] = side.parallel[k];
  if (rc == 0) {
    r->kv_cache_dtype = vb_server_setting(side.kv_cache_dtype);
    r->serve_dtype = vb_server_setting(side.dtype);
    r->serve_quant = vb_server_setting(side.quantization);
  }
  const cJSON *v;
  if (rc == 0) cJSON_ArrayForEach(v, side.batch_latencies) push(&r->samples[VB_BATCH], v->valuedouble * 1e3);
  cJSON_Delete(side.flat);
  return rc;
}

/* ---- the file ---- */

/* Python's json.dump writes NaN, Infinity and -Infinity, which are not JSON. Outside strings, the
** infinities become 1e999 and -1e999, which read as infinite (a rate or a burstiness of inf is a
** setting; a value that is infinite is not recorded), and NaN the string NAN_MARK, which no file
** can hold (a control character inside a string is refused, checked on the file as written) and
** which restore_nan makes a number again: a NaN, told from a null (vLLM's None: no such value,
** said nowhere) so that a metric that is not a number is said. Each is as long as the word it
** replaces, padded with spaces, so that offsets and line numbers match the file's. */
#define NAN_MARK "\x01"
static char *replace_nonfinite(const char *text, size_t len) {
  static const char *const words[] = {"-Infinity", "Infinity", "NaN"};
  static const char *const as[] = {"-1e999   ", "1e999   ", "\"" NAN_MARK "\""};
  char *out = xp_xmalloc(len + 1);
  int in_str = 0;
  for (size_t i = 0; i < len;) {
    char c = text[i];
    if (in_str) {
      out[i] = c;
      if (c == '\\' && i + 1 < len) i++, out[i] = text[i];
      else if (c == '"') in_str = 0;
      i++;
      continue;
    }
    if (c == '"') in_str = 1;
    size_t w = 0;
    while (w < 3 && !(i + strlen(words[w]) <= len && memcmp(text + i, words[w], strlen(words[w])) == 0)) w++;
    if (w == 3) out[i] = text[i], i++;
    else memcpy(out + i, as[w], strlen(words[w])), i += strlen(words[w]);
  }
  out[len] = 0;
  return out;
}

/* The NaNs of v (replace_nonfinite's NAN_MARK strings) as numbers again. */
static void restore_nan(cJSON *v) {
  cJSON *c;
  cJSON_ArrayForEach(c, v) {
    if (cJSON_IsString(c) && strcmp(c->valuestring, NAN_MARK) == 0) {
      cJSON_free(c->valuestring);
      c->valuestring = NULL;
      c->type = cJSON_Number;
      c->valuedouble = NAN;
      c->valueint = 0;
    } else if (cJSON_IsObject(c) || cJSON_IsArray(c))
      restore_nan(c);
  }
}

static size_t skip_space(const char *t, size_t i, size_t len) {
  while (i < len && isspace((unsigned char)t[i])) i++;
  return i;
}

/* A result cut short by a writer that died mid-line (JSONL: a result a line) reads on into
** the next line's result, and cJSON stops there: the line at fault is the one the object
** started on. Told by the line where parsing stopped beginning with "{" (a line of its own
** result), below the line where the object began. */
static int cut_short(const char *text, size_t start, size_t err) {
  size_t bol = err;
  while (bol > start && text[bol - 1] != '\n') bol--;
  if (bol <= start) return 0; /* stopped on the object's own first line */
  while (text[bol] == ' ' || text[bol] == '\t') bol++;
  return text[bol] == '{';
}

/* The JSON values of a file in order, each with its extent in the text. */
typedef struct vb_values {
  size_t n, cap;
  size_t *starts, *ends;
  cJSON **v;
} vb_values;

static void values_push(vb_values *l, cJSON *v, size_t start, size_t end) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->starts = xp_xrealloc(l->starts, l->cap * sizeof *l->starts);
    l->ends = xp_xrealloc(l->ends, l->cap * sizeof *l->ends);
    l->v = xp_xrealloc(l->v, l->cap * sizeof *l->v);
  }
  l->starts[l->n] = start;
  l->ends[l->n] = end;
  l->v[l->n++] = v;
}

static void values_free(vb_values *l) {
  for (size_t k = 0; k < l->n; k++) cJSON_Delete(l->v[k]);
  free(l->v);
  free(l->starts);
  free(l->ends);
  memset(l, 0, sizeof *l);
}

/* Split the text into its JSON values (one result object, several of --append-result or a
** JSONL file, or one list). text is the file as written, clean the same with its non-finite
** numbers replaced (replace_nonfinite: the same offsets). */
static int split_values(const char *label, const char *text, const char *clean, size_t clen, vb_values *out) {
  for (size_t i = skip_space(clean, 0, clen); i < clen; i = skip_space(clean, i, clen)) {
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(clean + i, clen - i, &end, 0);
    if (!o) {
      const char *at = cJSON_GetErrorPtr();
      size_t off = at && at >= clean && at <= clean + clen ? (size_t)(at - clean) : i;
      return cut_short(clean, i, off) ? xp_error_at(XP_EXIT_USAGE, label, xp_line_of_offset(clean, i),
                                                    "not valid JSON: the result that starts here is cut short "
                                                    "(the next line begins another)")
                                      : xp_error_at(XP_EXIT_USAGE, label, xp_line_of_offset(clean, off), "not valid JSON%s",
                                                    out->n ? " (after the previous result object)" : "");
    }
    values_push(out, o, i, (size_t)(end - clean));
    /* checked once whole: a line cut inside a string reads on into the next, said above */
    const size_t ctl = xp_json_control_in_string(text, i, (size_t)(end - clean));
    if (ctl < (size_t)(end - clean)) /* tt_json's words for the same fault of a trace */
      return xp_error_at(XP_EXIT_USAGE, label, xp_line_of_offset(clean, ctl), "control character inside a string");
    restore_nan(o);
    i = (size_t)(end - clean);
  }
  if (out->n == 0) return xp_error_at(XP_EXIT_USAGE, label, 0, "empty file: no result object");
  /* write_to_json writes one list a file */
  if (out->n > 1 && cJSON_IsArray(out->v[0]))
    return xp_error_at(XP_EXIT_USAGE, label, xp_line_of_offset(clean, out->starts[1]),
                       "more JSON after the list of records (a .pytorch.json holds one list)");
  return 0;
}

/* A file's one list is vLLM's .pytorch.json side file (records of "benchmark", "model" and
** "metric"), unless its first entry is an object of another kind: then it is a list of
** results, each read as a result object of a file (vllm bench sweep serve's summary.json, a
** point's runs; sglang.bench_one_batch_server's --output-path and --pydantic-result-filename,
** a batch each). The side file's reader names what is wrong with a list of neither. */
static int results_list(const vb_values *l) {
  const cJSON *first = l->n == 1 && cJSON_IsArray(l->v[0]) ? cJSON_GetArrayItem(l->v[0], 0) : NULL;
  return cJSON_IsObject(first) && !cJSON_HasObjectItem(first, "benchmark");
}

/* The list's entries in place of the list, each with its extent (parsed again where the list
** was: cJSON keeps no positions). */
static void split_list(const char *clean, vb_values *l) {
  vb_values entries = {0};
  const size_t end = l->ends[0];
  size_t i = skip_space(clean, l->starts[0] + 1, end); /* after "[" */
  while (i < end && clean[i] != ']') {
    const char *stop = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(clean + i, end - i, &stop, 0); /* parsed once already */
    if (!v) break;
    restore_nan(v);
    values_push(&entries, v, i, (size_t)(stop - clean));
    i = skip_space(clean, (size_t)(stop - clean), end);
    if (i < end && clean[i] == ',') i = skip_space(clean, i + 1, end);
  }
  values_free(l);
  *l = entries;
}

/* The digest of a result object as read: its JSON printed again, unformatted, a key given twice
** kept last as json.load keeps it, so that the same result reads alike whatever its indent. */
static void value_sum(cJSON *o, char sum[65]) {
  xp_json_keep_last(o);
  char *printed = cJSON_PrintUnformatted(o);
  xp_sha256_hex(printed, strlen(printed), sum);
  cJSON_free(printed);
}

/* What drop_repeats tells of each value it kept. */
typedef struct vb_kept {
  char sum[65];     /* value_sum */
  int index;        /* its position among the file's values, repeats counted */
  int repeats;      /* copies of it left out */
  int repeat_line;  /* the first copy's line and position */
  int repeat_index;
} vb_kept;

/* A result pasted into its file again (`cat r.json >> all.json` run twice) is the same object,
** value for value, which two measurements never are (each has its date, duration and timings of
** its own): read as written, its case counted every request twice. Each repeat is left out of l,
** and kept[] tells of each value kept, for the import to say. Results of one file that differ
** are separate runs (--append-result), each kept.
** SGLang's one-batch tools write no date either, and two runs of one batch appended to one file
** (their --result-filename is opened "a", result.jsonl by default) hold the same keys; their lines
** are still measurements, value for value. sglang.bench_one_batch writes its perf_counter times
** unrounded (measurement_results of bench_one_batch.py); bench_one_batch_server rounds latency
** (and, later, last_ttft) to 0.1 ms but each throughput, a count over the unrounded time, to 0.01
** tok/s (run_one_case, 2024; dump_to_jsonl of BenchOneCaseResult since): at the defaults (batch 1,
** 1024 in, 16 out) and 0.45 s, overall_throughput 2311.11 pins the latency to 2 us, where two HTTP
** round trips differ by milliseconds. Two such lines alike are one pasted twice, as here. */
static void drop_repeats(const char *clean, vb_values *l, vb_kept *kept) {
  size_t n = 0;
  for (size_t k = 0; k < l->n; k++) {
    vb_kept *at = &kept[n];
    value_sum(l->v[k], at->sum);
    size_t same = 0;
    while (same < n && strcmp(kept[same].sum, at->sum) != 0) same++;
    if (same == n) {
      at->index = (int)k;
      l->v[n] = l->v[k], l->starts[n] = l->starts[k], l->ends[n++] = l->ends[k];
      continue;
    }
    if (kept[same].repeats++ == 0) {
      kept[same].repeat_line = (int)xp_line_of_offset(clean, l->starts[k]);
      kept[same].repeat_index = (int)k;
    }
    cJSON_Delete(l->v[k]);
  }
  l->n = n;
}

/* The line ends in text from from to to. */
static long lines_between(const char *text, size_t from, size_t to) {
  long n = 0;
  for (size_t i = from; i < to; i++) n += text[i] == '\n';
  return n;
}

int vb_parse_text(const char *label, const char *text, size_t len, vb_result **out, size_t *n) {
  *out = NULL;
  *n = 0;
  /* a result saved again by Windows PowerShell (UTF-16): said as such, where "not UTF-8 text
  ** (byte 0)" named no cause (a gzip'd one is inflated before: vb_parse_file_kept) */
  if (xp_utf16_refused(label, text, len)) return XP_EXIT_USAGE;
  /* json.dump writes ASCII (or UTF-8 with ensure_ascii off): other bytes are a damaged file,
  ** and stored they would make every JSON export of the history invalid */
  const long bad = xp_utf8_invalid_at(text, len);
  if (bad >= 0)
    return xp_error_at(XP_EXIT_USAGE, label, xp_line_of_offset(text, (size_t)bad), "not UTF-8 text (byte %ld)", bad);
  /* genai-perf's and AIPerf's CSV export (profile_export_genai_perf.csv: CsvExporter of
  ** genai-perf/genai_perf/export_data/csv_exporter.py, "Metric,avg,min,max,p99,..." rows of the
  ** summaries) holds no model and no load, which only the JSON beside it names */
  if (len >= 7 && memcmp(text, "Metric,", 7) == 0)
    return xp_error_at(XP_EXIT_USAGE, label, 1, "a genai-perf or AIPerf CSV export: it names no model and no load "
                       "(concurrency or request rate); give the profile_export_genai_perf.json or "
                       "profile_export_aiperf.json written beside it");
  char *clean = replace_nonfinite(text, len);
  /* First pass: split into objects, so that each knows whether it shares the file. */
  vb_values l = {0};
  int rc = split_values(label, text, clean, strlen(clean), &l);
  const int listed = rc == 0 && results_list(&l);
  if (listed) split_list(clean, &l);
  vb_kept *kept = xp_xcalloc(l.n ? l.n : 1, sizeof *kept);
  if (rc == 0) drop_repeats(clean, &l, kept);
  const size_t count = l.n;
  vb_result *res = rc == 0 ? xp_xcalloc(count, sizeof *res) : NULL;
  long line = 1; /* counted on from the object before: from the file's start each time, a
                 ** JSONL file of 3000 lines took 15 s a reading */
  for (size_t k = 0; rc == 0 && k < count; k++) {
    line += lines_between(clean, k ? l.starts[k - 1] : 0, l.starts[k]);
    vb_src src = {label, clean, l.starts[k], l.ends[k], line, kept[k].index, cJSON_IsArray(l.v[k]) && count == 1};
    res[k].file = xp_strdup(label);
    res[k].index = kept[k].index;
    res[k].listed = listed;
    res[k].side = src.side;
    res[k].line = (int)line;
    memcpy(res[k].sum, kept[k].sum, sizeof res[k].sum); /* before read_object renames any key */
    res[k].repeats = kept[k].repeats;
    res[k].repeat_line = kept[k].repeat_line;
    res[k].repeat_index = kept[k].repeat_index;
    rc = src.side ? read_side(&src, l.v[k], &res[k]) : read_object(&src, l.v[k], (int)count, &res[k]);
  }
  values_free(&l);
  free(clean);
  free(kept);
  if (rc) {
    vb_results_free(res, count);
    return rc;
  }
  *out = res;
  *n = count;
  return 0;
}

int vb_parse_file_kept(const char *path, char **kept, size_t *kept_len, vb_result **out, size_t *n) {
  size_t len = 0;
  char *text = xp_read_file(path, &len);
  if (!text) return xp_error_at(XP_EXIT_USAGE, path, 0, "cannot read: %s", strerror(errno));
  /* a result kept gzip'd (gzip result.json, a CI's archive): read as its JSON, as nccl-tests' logs
  ** and torch traces are, the run keeping the JSON; it was refused ("gunzip -k it first") */
  int rc = tt_inflate_text(path, &text, &len, "JSON");
  if (rc == 0) rc = vb_parse_text(path, text, len, out, n);
  if (rc == 0 && kept) *kept = text, *kept_len = len;
  else free(text);
  return rc;
}

int vb_parse_file(const char *path, vb_result **out, size_t *n) {
  return vb_parse_file_kept(path, NULL, NULL, out, n);
}

void vb_results_free(vb_result *r, size_t n) {
  if (!r) return;
  for (size_t i = 0; i < n; i++) {
    free(r[i].file);
    free(r[i].model);
    free(r[i].backend);
    free(r[i].endpoint_type);
    free(r[i].tokenizer);
    free(r[i].label);
    free(r[i].date);
    free(r[i].engine_version);
    free(r[i].gpu);
    free(r[i].dtype);
    free(r[i].engine_dtype);
    free(r[i].engine_quant);
    free(r[i].kv_cache_dtype);
    free(r[i].serve_dtype);
    free(r[i].serve_quant);
    free(r[i].case_name);
    cJSON_Delete(r[i].params);
    cJSON_Delete(r[i].server);
    for (int k = 0; k < VB_NONFINITE_KINDS; k++) cJSON_Delete(r[i].nonfinite[k].keys);
    for (size_t j = 0; j < r[i].nvalues; j++) free(r[i].values[j].metric);
    free(r[i].values);
    for (int s = 0; s < VB_NSAMPLES; s++) free(r[i].samples[s].v);
  }
  free(r);
}

char *vb_server_setting(const char *written) {
  if (!written || !*written || strcmp(written, "auto") == 0 || strcmp(written, "None") == 0) return NULL;
  char *v = xp_strdup(written);
  for (char *c = v; *c; c++) *c = (char)tolower((unsigned char)*c);
  return v;
}

const vb_value *vb_find_value(const vb_result *r, const char *metric) {
  for (size_t i = 0; i < r->nvalues; i++)
    if (strcmp(r->values[i].metric, metric) == 0) return &r->values[i];
  return NULL;
}
