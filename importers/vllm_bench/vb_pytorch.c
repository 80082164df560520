/*
** The "PyTorch OSS benchmark format" side file of vLLM's benchmarks, <name>.pytorch.json, read
** as one result in the serving benchmarks' names (vb_parse.c reads what this builds).
**
** With SAVE_TO_PYTORCH_BENCHMARK_FORMAT set, each of vLLM's benchmarks writes, beside its own
** result, convert_to_pytorch_benchmark_format()'s records (benchmarks/benchmark_utils.py since
** PR 13068, February 2025; vllm/benchmarks/lib/utils.py since): a JSON list, a record a metric,
**   {"benchmark": {"name": "vLLM benchmark", "extra_info": {"args": vars(args)}},
**    "model": {"name": args.model},
**    "metric": {"name": NAME, "benchmark_values": [...], "extra_info": {...}}}
** every record of a file carrying the same args and extra_info. write_to_json's InfEncoder
** writes an infinite float as "inf", and anything not JSON as "<type is not JSON serializable>".
**
**   vllm bench serve (benchmark_serving.py): a record for each of median/mean/std/p99 of
**     ttft, tpot and itl (ms) that the result has, its extra_info the whole result (setup keys,
**     --metadata pairs, counts, throughputs, the other statistics) but ttfts, itls,
**     generated_texts and errors. Rebuilt as that result and read as vllm bench serve's: the
**     same values, and per request only what a result without those lists gives.
**   vllm bench throughput (benchmark_throughput.py): requests_per_second and tokens_per_second,
**     extra_info elapsed_time, num_requests and total_num_tokens; the args name the model, the
**     backend and the load (dataset_name, input_len and output_len where fixed, num_prompts, n).
**     A case "offline", as SGLang's offline throughput benchmark (vb_tools.c), under the serving
**     names: request_throughput, total_token_throughput (prompt and output tokens over the time),
**     duration, completed (every request handed to the engine: LLM.generate returns them all or
**     raises). total_num_tokens is total_token_throughput times duration: not kept twice.
**   vllm bench latency (benchmark_latency.py): one record, "latency", its values the seconds
**     each iteration took to generate the whole batch; extra_info their avg, std (later) and
**     percentiles, which are not kept again. A case "batch=B,input=I,output=O" from the args'
**     batch_size, input_len and output_len, as SGLang's one-batch benchmarks, its iterations
**     the samples of batch_latency_ms.
** For the last two, the parallel sizes are the args' tensor_parallel_size,
** pipeline_parallel_size and data_parallel_size (EngineArgs), and with enable_expert_parallel
** an EP of TP x DP. The beam-search
** benchmark and others of that format (another benchmark name, other metrics) are refused.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vb_parse.h"
#include "xp.h"

/* Where the list is, for messages. */
typedef struct pt_at {
  const char *label;
  long line;
} pt_at;

/* The member at a dotted path ("benchmark.extra_info.args"), or NULL. */
static const cJSON *at_path(const cJSON *o, const char *path) {
  char key[64];
  while (o && *path) {
    size_t n = strcspn(path, ".");
    if (n >= sizeof key) return NULL;
    memcpy(key, path, n);
    key[n] = 0;
    o = cJSON_GetObjectItemCaseSensitive(o, key);
    path += n + (path[n] == '.');
  }
  return o;
}

/* The object at path in record i, or an error. */
static int need_object(const pt_at *at, const cJSON *rec, int i, const char *path, const cJSON **out) {
  *out = at_path(rec, path);
  if (cJSON_IsObject(*out)) return 0;
  return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: %s: expected an object, found %s "
                     "(not a .pytorch.json of vLLM's benchmarks?)", i, path, vb_json_kind(*out));
}

static int need_string(const pt_at *at, const cJSON *rec, int i, const char *path, const char **out) {
  const cJSON *v = at_path(rec, path);
  *out = cJSON_GetStringValue(v);
  if (*out) return 0;
  return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: %s: expected a string, found %s", i, path,
                     vb_json_kind(v));
}

/* The records of one run carry one benchmark, model and metric extra_info. */
static int same_run(const pt_at *at, const cJSON *first, const cJSON *rec, int i) {
  static const char *const shared[] = {"benchmark", "model", "metric.extra_info"};
  for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++)
    if (!cJSON_Compare(at_path(first, shared[k]), at_path(rec, shared[k]), 1))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: its %s differs from record 0's "
                         "(the records of one run share it)", i, shared[k]);
  return 0;
}

/* Check each record's shape and that they are one run's; name[i] its metric. */
static int check_records(const pt_at *at, const cJSON *list, const char **name) {
  int i = 0;
  const cJSON *rec, *o;
  cJSON_ArrayForEach(rec, list) {
    const char *bench;
    if (!cJSON_IsObject(rec))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: expected an object, found %s", i,
                         vb_json_kind(rec));
    if (need_object(at, rec, i, "benchmark", &o) || need_string(at, rec, i, "benchmark.name", &bench) ||
        need_object(at, rec, i, "benchmark.extra_info.args", &o) || need_object(at, rec, i, "model", &o) ||
        need_object(at, rec, i, "metric", &o) || need_string(at, rec, i, "metric.name", &name[i]) ||
        need_object(at, rec, i, "metric.extra_info", &o))
      return XP_EXIT_USAGE;
    if (strcmp(bench, "vLLM benchmark") != 0)
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: benchmark.name \"%s\": not vllm bench serve's, "
                         "throughput's or latency's (they write \"vLLM benchmark\")", i, bench);
    const cJSON *values = at_path(rec, "metric.benchmark_values");
    if (!cJSON_IsArray(values))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: metric.benchmark_values: expected an array, "
                         "found %s", i, vb_json_kind(values));
    for (int j = 0; j < i; j++)
      if (strcmp(name[j], name[i]) == 0)
        return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: metric \"%s\" given again (record %d)", i,
                           name[i], j);
    if (i > 0 && same_run(at, cJSON_GetArrayItem(list, 0), rec, i)) return XP_EXIT_USAGE;
    i++;
  }
  return 0;
}

/* A statistic vllm bench serve puts in a record of its own: mean_, median_, std_ or p<P>_ of
** ttft, tpot or itl, in ms (the twelve of its list, or others a version adds). */
static int serve_metric(const char *m) {
  size_t n = strlen(m);
  if (n < 8 || strcmp(m + n - 3, "_ms") != 0) return 0;
  const char *u = strchr(m, '_');
  if (!(strncmp(m, "mean_", 5) == 0 || strncmp(m, "median_", 7) == 0 || strncmp(m, "std_", 4) == 0 ||
        (m[0] == 'p' && strspn(m + 1, "0123456789.") == (size_t)(u - m - 1) && u > m + 1)))
    return 0;
  return strcmp(u, "_ttft_ms") == 0 || strcmp(u, "_tpot_ms") == 0 || strcmp(u, "_itl_ms") == 0 ||
         strcmp(u, "_e2el_ms") == 0;
}

static enum vb_tool tool_of(const char *m) {
  if (strcmp(m, "latency") == 0) return VB_VLLM_LATENCY;
  if (strcmp(m, "requests_per_second") == 0 || strcmp(m, "tokens_per_second") == 0) return VB_VLLM_THROUGHPUT;
  return serve_metric(m) ? VB_SERVE : VB_NTOOLS;
}

/* The one value of a record's metric (every serve and throughput metric has one). */
static int one_value(const pt_at *at, const cJSON *rec, int i, const char *name, const cJSON **out) {
  const cJSON *values = at_path(rec, "metric.benchmark_values");
  *out = cJSON_GetArrayItem(values, 0);
  if (cJSON_GetArraySize(values) != 1)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: metric \"%s\": benchmark_values holds %d "
                       "values, expected one", i, name, cJSON_GetArraySize(values));
  if (!cJSON_IsNumber(*out) && !cJSON_IsNull(*out))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: metric \"%s\": expected a number, found %s",
                       i, name, vb_json_kind(*out));
  return 0;
}

/* vllm bench serve: the result back, extra_info with each record's value beside it. Read as
** vllm bench serve's own file (its model_id, else the record's model). */
static int build_serve(const pt_at *at, const cJSON *list, const char **name, cJSON *flat) {
  const cJSON *first = cJSON_GetArrayItem(list, 0), *rec, *v;
  cJSON_ArrayForEach(v, at_path(first, "metric.extra_info"))
    cJSON_AddItemToObject(flat, v->string, cJSON_Duplicate(v, 1));
  int i = 0;
  cJSON_ArrayForEach(rec, list) {
    if (one_value(at, rec, i, name[i], &v)) return XP_EXIT_USAGE;
    cJSON_DeleteItemFromObjectCaseSensitive(flat, name[i]);
    cJSON_AddItemToObject(flat, name[i], cJSON_Duplicate(v, 0));
    i++;
  }
  /* InfEncoder's "inf": --burstiness inf, which vllm bench serve's own file writes as Infinity */
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(flat, "burstiness");
  if (cJSON_IsString(b) && strcmp(b->valuestring, "inf") == 0)
    cJSON_ReplaceItemInObjectCaseSensitive(flat, "burstiness", cJSON_CreateNumber(INFINITY));
  const char *model = cJSON_GetStringValue(at_path(first, "model.name"));
  const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(flat, "model_id"));
  if (model && id && strcmp(model, id) != 0)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: model.name \"%s\" differs from "
                       "metric.extra_info.model_id \"%s\"", model, id);
  if (model && !id) {
    cJSON_DeleteItemFromObjectCaseSensitive(flat, "model_id");
    cJSON_AddStringToObject(flat, "model_id", model);
  }
  /* --goodput's SLO targets, which the result itself does not write: a setting of the case */
  const cJSON *slo = at_path(first, "benchmark.extra_info.args.goodput");
  char *targets = vb_goodput_targets(slo);
  if (slo && !cJSON_IsNull(slo) && !targets)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: benchmark.extra_info.args.goodput: expected "
                       "--goodput's targets ([\"ttft:60\", ...]), found %s", vb_json_kind(slo));
  if (targets && !cJSON_HasObjectItem(flat, "goodput")) cJSON_AddStringToObject(flat, "goodput", targets);
  free(targets);
  return 0;
}

/* A number of args or extra_info (path from the record), copied to flat as key; whole: a whole
** number. Absent or null: left out, or an error where required. */
static int take_number(const pt_at *at, const cJSON *rec, const char *path, cJSON *flat, const char *key, int whole,
                       int required) {
  const cJSON *v = at_path(rec, path);
  if ((!v || cJSON_IsNull(v)) && !required) return 0;
  if (!cJSON_IsNumber(v))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: %s: expected a %snumber, found %s", path,
                       whole ? "whole " : "", vb_json_kind(v));
  const double x = v->valuedouble;
  if (x < 0 || !isfinite(x) || (whole && (x != floor(x) || x > 9e18)))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: %s: expected a %snumber >= 0, found %g", path,
                       whole ? "whole " : "", x);
  cJSON_AddNumberToObject(flat, key, v->valuedouble);
  return 0;
}

/* What the args say of the run: the model (the record's) and tokenizer; the settings of the
** load that the tool's case records (settings: NULL-terminated args names, each a whole number
** but dataset_name, random_range_ratio and use_beam_search), required those that name it. */
static int take_args(const pt_at *at, const cJSON *rec, const char *const *settings, const char *const *required,
                     cJSON *flat) {
  const char *model = cJSON_GetStringValue(at_path(rec, "model.name"));
  if (!model || !*model)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: model.name: expected the model's name, found %s",
                       model ? "\"\"" : vb_json_kind(at_path(rec, "model.name")));
  cJSON_AddStringToObject(flat, "model_id", model);
  const cJSON *args = at_path(rec, "benchmark.extra_info.args");
  const char *tokenizer = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "tokenizer"));
  if (tokenizer && *tokenizer) cJSON_AddStringToObject(flat, "tokenizer_id", tokenizer);
  char path[96];
  for (const char *const *r = required; *r; r++)
    if (!cJSON_GetObjectItemCaseSensitive(args, *r) || cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(args, *r)))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: benchmark.extra_info.args.%s: missing; "
                         "the case is named by it", *r);
  for (const char *const *s = settings; *s; s++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, *s);
    snprintf(path, sizeof path, "benchmark.extra_info.args.%s", *s);
    if (!v || cJSON_IsNull(v)) continue;
    if (strcmp(*s, "dataset_name") == 0 || strcmp(*s, "use_beam_search") == 0) {
      if (!cJSON_IsString(v) && !cJSON_IsBool(v))
        return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: %s: expected a string or true/false, found %s",
                           path, vb_json_kind(v));
      cJSON_AddItemToObject(flat, *s, cJSON_Duplicate(v, 0));
    } else if (take_number(at, rec, path, flat, *s, strcmp(*s, "random_range_ratio") != 0, 0))
      return XP_EXIT_USAGE;
  }
  return 0;
}

/* The parallel sizes the engine ran with (its EngineArgs among the args), -1 where not given. */
static void args_parallel(const cJSON *rec, int64_t *parallel) {
  const cJSON *args = at_path(rec, "benchmark.extra_info.args");
  for (int k = 0; k < VB_NPARALLEL; k++) {
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(args, vb_parallel_arg[k]);
    parallel[k] = cJSON_IsNumber(size) ? vb_parallel_size(size) : -1;
  }
  /* --enable-expert-parallel: EP over every TP and DP rank (EngineArgs' defaults 1) */
  if (vb_expert_parallel_on(args))
    parallel[VB_EP] = (parallel[VB_TP] > 0 ? parallel[VB_TP] : 1) * (parallel[VB_DP] > 0 ? parallel[VB_DP] : 1);
}

/* vllm bench throughput: its two rates and the run's totals, under the serving names. */
static int build_throughput(const pt_at *at, const cJSON *list, const char **name, cJSON *flat) {
  static const char *const settings[] = {"dataset_name", "input_len", "output_len", "num_prompts", "n",
                                         "random_range_ratio", "prefix_len", "use_beam_search", NULL};
  static const char *const none[] = {NULL};
  const cJSON *first = cJSON_GetArrayItem(list, 0), *rec, *v;
  if (take_args(at, first, settings, none, flat)) return XP_EXIT_USAGE;
  /* vllm, vllm-chat, hf (transformers) or mii (DeepSpeed-MII): what ran the model */
  const char *backend = cJSON_GetStringValue(at_path(first, "benchmark.extra_info.args.backend"));
  if (backend && *backend) cJSON_AddStringToObject(flat, "backend", backend);
  int i = 0, rates = 0;
  cJSON_ArrayForEach(rec, list) {
    if (one_value(at, rec, i, name[i], &v)) return XP_EXIT_USAGE;
    const int req = strcmp(name[i], "requests_per_second") == 0;
    if (cJSON_IsNumber(v) && v->valuedouble < 0)
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record %d: metric \"%s\": expected a number >= 0, "
                         "found %g", i, name[i], v->valuedouble);
    cJSON_AddItemToObject(flat, req ? "request_throughput" : "total_token_throughput", cJSON_Duplicate(v, 0));
    rates |= req ? 1 : 2;
    i++;
  }
  if (rates != 3)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "no record of metric \"%s\" (vllm bench throughput writes "
                       "requests_per_second and tokens_per_second)",
                       rates & 1 ? "tokens_per_second" : "requests_per_second");
  if (take_number(at, first, "metric.extra_info.elapsed_time", flat, "duration", 0, 1) ||
      take_number(at, first, "metric.extra_info.num_requests", flat, "completed", 1, 1))
    return XP_EXIT_USAGE;
  return 0;
}

/* vllm bench latency: the batch and its iterations' latencies (s). */
static int build_latency(const pt_at *at, const cJSON *list, cJSON *flat, const cJSON **latencies) {
  static const char *const settings[] = {"batch_size", "input_len", "output_len", "n", "use_beam_search", NULL};
  static const char *const required[] = {"batch_size", "input_len", "output_len", NULL};
  const cJSON *first = cJSON_GetArrayItem(list, 0), *v;
  if (take_args(at, first, settings, required, flat)) return XP_EXIT_USAGE;
  *latencies = at_path(first, "metric.benchmark_values");
  int i = 0;
  cJSON_ArrayForEach(v, *latencies) {
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: metric \"latency\": benchmark_values entry %d: "
                         "expected a time in seconds > 0, found %s", i, cJSON_IsNumber(v) ? "one <= 0" : vb_json_kind(v));
    i++;
  }
  if (i == 0)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "record 0: metric \"latency\": benchmark_values is empty "
                       "(no iteration timed)");
  return 0;
}

int vb_pytorch_read(const char *label, long line, const cJSON *list, vb_side *out) {
  memset(out, 0, sizeof *out);
  for (int k = 0; k < VB_NPARALLEL; k++) out->parallel[k] = -1;
  const pt_at at = {label, line};
  const int n = cJSON_GetArraySize(list);
  if (n == 0)
    return xp_error_at(XP_EXIT_USAGE, label, line, "an empty list: no benchmark record (a .pytorch.json of vLLM's "
                       "benchmarks holds a record a metric)");
  const char **name = xp_xcalloc((size_t)n, sizeof *name);
  int rc = check_records(&at, list, name);
  out->tool = rc ? VB_NTOOLS : tool_of(name[0]);
  for (int i = 0; rc == 0 && i < n; i++)
    if (out->tool == VB_NTOOLS || tool_of(name[i]) != out->tool || (out->tool == VB_VLLM_LATENCY && i > 0))
      rc = xp_error_at(XP_EXIT_USAGE, label, line, i == 0 ? "record %d: metric \"%s\": not one vllm bench serve, throughput "
                       "or latency writes (a PyTorch benchmark-format file of another benchmark?)"
                       : "record %d: metric \"%s\" beside record 0's \"%s\": not the records of one of vllm bench "
                       "serve, throughput or latency", i, name[i], name[0]);
  if (rc == 0) {
    out->flat = cJSON_CreateObject();
    const cJSON *first = cJSON_GetArrayItem(list, 0);
    if (out->tool == VB_SERVE) rc = build_serve(&at, list, name, out->flat);
    else if (out->tool == VB_VLLM_THROUGHPUT) rc = build_throughput(&at, list, name, out->flat);
    else rc = build_latency(&at, list, out->flat, &out->batch_latencies);
    if (out->tool != VB_SERVE) args_parallel(first, out->parallel);
    /* EngineArgs' --kv-cache-dtype (auto: the model's dtype), --dtype and --quantization */
    if (out->tool != VB_SERVE) {
      out->kv_cache_dtype = cJSON_GetStringValue(at_path(first, "benchmark.extra_info.args.kv_cache_dtype"));
      out->dtype = cJSON_GetStringValue(at_path(first, "benchmark.extra_info.args.dtype"));
      out->quantization = cJSON_GetStringValue(at_path(first, "benchmark.extra_info.args.quantization"));
    }
  }
  free(name);
  if (rc) {
    cJSON_Delete(out->flat);
    memset(out, 0, sizeof *out);
  }
  return rc;
}
