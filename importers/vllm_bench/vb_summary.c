/*
** NVIDIA genai-perf's and AIPerf's profile exports, read as a serving benchmark's result: each
** rewritten, in place, as the object vllm bench serve --save-result would have written for the
** same measurement, for vb_parse.c to read as it reads that one.
**
** The writers (each metric a summary, {"unit", "avg", "p1" ... "p99", "min", "max", "std"},
** numpy's mean, linear percentiles and population std over the requests):
**   genai-perf profile: JsonExporter of genai-perf/genai_perf/export_data/json_exporter.py
**     (triton-inference-server/perf_analyzer, commits 09628cd, 4cc7650) writes Statistics.
**     stats_dict (genai_perf/metrics/statistics.py: time metrics in ms, request_throughput and
**     request_goodput "requests/sec", output_token_throughput "tokens/sec", request_count "count",
**     the sequence lengths "tokens") and then input_config. Until 2025 input_config is its
**     argparse namespace (vars(args): model a list, concurrency, request_rate, request_count,
**     synthetic_input_tokens_mean, output_tokens_mean -1 where not given, endpoint_type,
**     service_kind, backend, tokenizer; tests/test_exporters/test_json_exporter.py); from
**     ConfigCommand on (genai_perf/config/input/config_command.py) a nested configuration:
**     model_names, perf_analyzer.stimulus {concurrency | request_rate | session_concurrency},
**     input.synthetic_tokens.mean, input.output_tokens.mean, endpoint.type,
**     tokenizer.name (as genai_perf/subcommand/process_export_files.py reads it back).
**   AIPerf (ai-dynamo/aiperf, genai-perf's successor) profile_export_aiperf.json: first (aiperf/
**     exporters/json_exporter.py, commit 030f22d) the summaries under "records", each a
**     MetricResult with its tag and header; then (src/aiperf/common/models/export_models.py
**     JsonExportData, "designed to mimic the structure of the GenAI-Perf JSON output") at the top
**     level, with benchmark_duration ("sec"), request_count ("requests": those that succeeded),
**     error_request_count, total_isl and total_osl, goodput, start_time, was_cancelled, and later
**     schema_version and aiperf_version. input_config is its UserConfig dumped with
**     exclude_unset: endpoint.model_names, endpoint.type, loadgen.concurrency, loadgen.
**     request_rate, loadgen.request_rate_mode (constant, poisson; later arrival_pattern, with gamma
**     and arrival_smoothness), loadgen.request_count,
**     input.prompt.input_tokens.mean, input.prompt.output_tokens.mean; a setting left at its
**     default is not written.
**
** The mapping: each writer's inter_token_latency is a request's (latency - TTFT) / (output tokens
** - 1), averaged over the requests (genai-perf's LLMProfileDataParser, AIPerf's
** InterTokenLatencyMetric): vLLM's TPOT, so tpot here, not vLLM's ITL (the gaps between chunks,
** pooled). request_latency is the e2el, time_to_first_token the ttft; avg is mean_, p50 median_;
** min_ and max_ kept under those names. The load is the case, as vLLM names it: concurrency=N
** (genai-perf's and AIPerf's concurrency mode keeps N requests in flight, as vllm bench serve
** --max-concurrency with every request ready), rate=R. A rate's arrivals: perf_analyzer spaces
** genai-perf's requests evenly (--request-distribution, constant unless passed through), AIPerf
** as request_rate_mode says; vLLM's burstiness names the same (1 Poisson, inf evenly spaced), so
** a constant rate is burstiness inf and never pairs with vLLM's Poisson arrivals of that rate.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spec.h"
#include "vb_parse.h"
#include "xp.h"

typedef struct vb_at {
  const char *label;
  long line;
} vb_at;

/* A summary's statistic under vLLM's prefix: avg is the mean, p50 the median. AIPerf's adj_pNN
** (failed requests counted as unbounded latencies) has no vLLM counterpart and is left out. */
static const char *stat_prefix(const char *stat, char *buf, size_t n) {
  if (strcmp(stat, "avg") == 0) return "mean";
  if (strcmp(stat, "p50") == 0) return "median";
  if (strcmp(stat, "std") == 0 || strcmp(stat, "min") == 0 || strcmp(stat, "max") == 0) return stat;
  if (stat[0] == 'p' && stat[1] >= '0' && stat[1] <= '9' && strspn(stat + 1, "0123456789.") == strlen(stat + 1)) {
    snprintf(buf, n, "%s", stat);
    return buf;
  }
  return NULL;
}

/* The factor from a time unit to ms, 0 for any other unit. */
static double to_ms(const char *unit) {
  static const struct { const char *unit; double f; } units[] = {
      {"ms", 1}, {"us", 1e-3}, {"ns", 1e-6}, {"s", 1e3}, {"sec", 1e3}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(unit, units[i].unit) == 0) return units[i].f;
  return 0;
}

/* The writers' latencies, as vLLM names them (see the top of this file); time_to_second_token,
** which vLLM has not, under a name of its own. Their other times (AIPerf's request timestamps,
** benchmark_duration) are no latencies of a request. */
static const char *latency_name(const char *metric) {
  static const char *const names[][2] = {{"time_to_first_token", "ttft"}, {"inter_token_latency", "tpot"},
                                         {"request_latency", "e2el"}, {"time_to_second_token", "ttst"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(metric, names[i][0]) == 0) return names[i][1];
  return NULL;
}

/* The SLO targets a goodput was counted against, as one setting of the case (vllm bench sweep's
** bench override goodput is one too), so that xp compare never pairs goodputs of other targets:
** the JSON text of a list of "metric:value" in vLLM's --goodput spelling, sorted (["tpot:15",
** "ttft:60"]), each value in its metric's unit (ms for a latency; genai-perf and AIPerf take a
** throughput too). vLLM's args write them as given (["ttft:60", "tpot:15"]: its .pytorch.json,
** parse_goodput of vllm/benchmarks/serve.py); genai-perf's args and AIPerf's input.goodput an
** object of metric tag and value ({"time_to_first_token": 100}: _check_goodput_args of genai_perf/
** parser.py, InputConfig.goodput of src/aiperf/common/config/input_config.py), its latencies
** named here as vLLM names them (ttft, tpot, e2el). NULL where v is neither form, or empty. */
static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char *vb_goodput_targets(const cJSON *v) {
  const int n = cJSON_IsArray(v) || cJSON_IsObject(v) ? cJSON_GetArraySize(v) : 0;
  char **items = xp_xcalloc((size_t)n + 1, sizeof *items), *out = NULL;
  const cJSON *e;
  int k = 0;
  cJSON_ArrayForEach(e, v) {
    if (cJSON_IsObject(v)) { /* {"time_to_first_token": 100} */
      if (!cJSON_IsNumber(e)) break;
      const char *as = latency_name(e->string);
      items[k++] = xp_asprintf("%s:%g", as ? as : e->string, e->valuedouble);
      continue;
    }
    const char *s = cJSON_GetStringValue(e), *colon = s ? strchr(s, ':') : NULL; /* "ttft:60" */
    char *end = NULL;
    const double ms = colon && colon > s ? strtod(colon + 1, &end) : NAN;
    if (!end || end == colon + 1 || *end) break;
    items[k++] = xp_asprintf("%.*s:%g", (int)(colon - s), s, ms);
  }
  if (n > 0 && k == n) {
    qsort(items, (size_t)n, sizeof *items, by_text);
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(list, cJSON_CreateString(items[i]));
    char *text = cJSON_PrintUnformatted(list);
    out = xp_strdup(text);
    cJSON_free(text);
    cJSON_Delete(list);
  }
  for (int i = 0; i < k; i++) free(items[i]);
  free(items);
  return out;
}

/* A summary's average, read alone: the writers' totals and throughputs are one number kept as
** a summary of one. NAN where the summary has none; below 0 (genai-perf's -1 goodput: its
** constraints named no metric it measured) is none too. */
static int summary_avg(const vb_at *at, const cJSON *summaries, const char *metric, double *v) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(summaries, metric);
  const cJSON *avg = cJSON_GetObjectItemCaseSensitive(s, "avg");
  *v = NAN;
  if (!s || cJSON_IsNull(s) || !avg || cJSON_IsNull(avg)) return 0;
  if (!cJSON_IsNumber(avg))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "%s.avg: expected a number, found %s", metric, vb_json_kind(avg));
  if (avg->valuedouble >= 0) *v = avg->valuedouble;
  return 0;
}

void vb_flat_number(cJSON *flat, const char *key, double v) {
  if (isfinite(v) && !cJSON_HasObjectItem(flat, key)) cJSON_AddNumberToObject(flat, key, v);
}

void vb_flat_replace(cJSON *o, cJSON *flat) {
  while (o->child) cJSON_DeleteItemFromArray(o, 0);
  while (flat->child) {
    cJSON *item = cJSON_DetachItemFromArray(flat, 0);
    cJSON_AddItemToObject(o, item->string, item); /* the key copied before the item's is freed */
  }
  cJSON_Delete(flat);
}

/* One latency's statistics into flat under vLLM's names, in ms (mean_ttft_ms, median_ttft_ms,
** p99_ttft_ms, min_ttft_ms ...). The other summaries (sequence lengths, a request's own
** throughput) are not taken: the file is kept whole as the run's artifact. */
static int take_summary(const vb_at *at, const cJSON *s, cJSON *flat) {
  const cJSON *unit = cJSON_GetObjectItemCaseSensitive(s, "unit"), *v;
  const char *name = latency_name(s->string);
  const double f = cJSON_IsString(unit) ? to_ms(unit->valuestring) : 0;
  if (f == 0)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "%s.unit: expected a unit of time (ms, s, us, ns)", s->string);
  cJSON_ArrayForEach(v, s) {
    char buf[16], key[160];
    const char *prefix = stat_prefix(v->string, buf, sizeof buf);
    if (!prefix || cJSON_IsNull(v)) continue;
    if (!cJSON_IsNumber(v))
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "%s.%s: expected a number, found %s", s->string, v->string,
                         vb_json_kind(v));
    snprintf(key, sizeof key, "%s_%s_ms", prefix, name);
    vb_flat_number(flat, key, v->valuedouble * f);
  }
  return 0;
}

/* Where each writer keeps the settings xp reads, first found wins: genai-perf's argparse
** namespace, its ConfigCommand, AIPerf's UserConfig. */
static const cJSON *path_get(const cJSON *o, const char *path) {
  char part[64];
  while (o && *path) {
    size_t n = strcspn(path, ".");
    snprintf(part, sizeof part, "%.*s", (int)n, path);
    o = cJSON_GetObjectItemCaseSensitive(o, part);
    path += n + (path[n] == '.');
  }
  return o && !cJSON_IsNull(o) ? o : NULL;
}

/* The first of paths that holds a value (strings only, where strings is set: genai-perf's argparse
** tokenizer is a name, its ConfigCommand's an object holding one). */
static const cJSON *first_of(const cJSON *cfg, const char *const *paths, const char **found, int strings) {
  for (; *paths; paths++) {
    const cJSON *v = path_get(cfg, *paths);
    if (v && (!strings || cJSON_IsString(v))) {
      if (found) *found = *paths;
      return v;
    }
  }
  return NULL;
}

/* A setting that must be a number above 0 where given (a length, a load); 0 and the writers' -1
** (genai-perf's output_tokens_mean where none was asked) are none. */
static int setting(const vb_at *at, const cJSON *cfg, const char *const *paths, double *x) {
  const char *where = NULL;
  const cJSON *v = first_of(cfg, paths, &where, 0);
  *x = NAN;
  if (!v) return 0;
  if (!cJSON_IsNumber(v))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.%s: expected a number, found %s", where,
                       vb_json_kind(v));
  if (v->valuedouble > 0) *x = v->valuedouble;
  return 0;
}

/* The model: one, as a run is one system under test (genai-perf can spread requests over several,
** --model A B, round robin). */
static int take_model(const vb_at *at, const cJSON *cfg, cJSON *flat) {
  static const char *const paths[] = {"model", "model_names", "endpoint.model_names", NULL};
  const char *where = NULL;
  const cJSON *m = first_of(cfg, paths, &where, 0);
  const cJSON *name = cJSON_IsArray(m) ? cJSON_GetArrayItem(m, 0) : m;
  if (!m)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line,
                       "missing key \"input_config.model\" (model_names, endpoint.model_names, models.items): the export names no model");
  if (cJSON_IsArray(m) && cJSON_GetArraySize(m) != 1)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.%s: %d models; one run is one model "
                       "(import a benchmark of each alone)", where, cJSON_GetArraySize(m));
  if (!cJSON_IsString(name) || !name->valuestring[0])
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.%s: expected a model's name, found %s", where,
                       vb_json_kind(name));
  cJSON_AddStringToObject(flat, "model_id", name->valuestring);
  return 0;
}

/* Whether AIPerf replayed a trace at its timestamps (its fixed schedule): --fixed-schedule, which
** wins over a rate or concurrency given beside it (validate_timing_mode of src/aiperf/common/config/
** user_config.py, ai-dynamo/aiperf 08c788f: a concurrency then caps it), or a trace dataset
** (mooncake_trace, bailian_trace) with neither, which AIPerf replays so unless --no-fixed-schedule:
** any other run without a load is given concurrency 1, written then. v2_config writes its
** fixed_schedule phase as the flag. */
static int fixed_schedule(const cJSON *cfg, int load_given) {
  const char *type = cJSON_GetStringValue(path_get(cfg, "input.custom_dataset_type"));
  const size_t n = type ? strlen(type) : 0;
  if (cJSON_IsTrue(path_get(cfg, "input.fixed_schedule"))) return 1;
  return !load_given && n > 6 && strcmp(type + n - 6, "_trace") == 0 &&
         !cJSON_IsTrue(path_get(cfg, "input.disable_auto_fixed_schedule")) && !path_get(cfg, "loadgen.user_centric_rate");
}

/* Whether genai-perf replayed its input file's timestamps (perf_analyzer's fixed schedule):
** --fixed-schedule, which CreateConfig writes as the stimulus {"fixed_schedule": None} (genai_perf/
** config/input/create_config.py, _convert_args_to_stimulus; a config file's stimulus
** "fixed_schedule" alike), the export's input_config then holding no concurrency or rate. */
static int genai_perf_fixed_schedule(const cJSON *cfg) {
  const cJSON *stimulus = path_get(cfg, "perf_analyzer.stimulus");
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(stimulus, "fixed_schedule");
  return v && !cJSON_IsFalse(v);
}

/* The load, as vLLM's settings name it: max_concurrency, request_rate and its arrivals
** (burstiness); AIPerf's trace replay request_rate "trace", as SGLang's (its dataset's type the
** dataset_name). A multi-turn benchmark's session concurrency is no load vLLM's cases name. */
static int take_load(const vb_at *at, const cJSON *cfg, int aiperf, cJSON *flat) {
  static const char *const conc[] = {"concurrency", "perf_analyzer.stimulus.concurrency", "loadgen.concurrency", NULL};
  static const char *const rate[] = {"request_rate", "perf_analyzer.stimulus.request_rate", "loadgen.request_rate",
                                     NULL};
  /* genai-perf's multi-turn loads: --session-concurrency (argparse, then ConfigCommand's stimulus),
  ** and a config file's stimulus session_request_rate, sessions started at a rate (ConfigPerfAnalyzer
  ** of genai_perf/config/input/config_perf_analyzer.py, 2025; no command-line flag writes it) */
  static const char *const sessions[] = {"session_concurrency", "perf_analyzer.stimulus.session_concurrency",
                                         "perf_analyzer.stimulus.session_request_rate", NULL};
  static const char *const prefill[] = {"loadgen.prefill_concurrency", NULL};
  double c, r, s, pc;
  const char *session_key = NULL;
  first_of(cfg, sessions, &session_key, 0);
  if (setting(at, cfg, conc, &c) || setting(at, cfg, rate, &r) || setting(at, cfg, sessions, &s) ||
      setting(at, cfg, prefill, &pc))
    return XP_EXIT_USAGE;
  if (session_key && strstr(session_key, "request_rate"))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.%s: a multi-turn benchmark (sessions started "
                       "at %g a second, each sending its turns in turn), a load no serving case of xp names; not read",
                       session_key, s);
  if (session_key)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.%s: a multi-turn benchmark (%g sessions at "
                       "once), a load no serving case of xp names; not read", session_key, s);
  /* AIPerf's --user-centric-rate with --num-users: the rate shared among that many users, each
  ** pacing its own multi-turn session, a concurrency given beside it only its cap (UserConfig's
  ** timing mode USER_CENTRIC_RATE, src/aiperf/common/config/user_config.py; v2's user_centric
  ** phase, refused in v2_config alike) */
  const cJSON *users_rate = path_get(cfg, "loadgen.user_centric_rate");
  if (aiperf && users_rate)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.loadgen.user_centric_rate: a rate shared among "
                       "users' multi-turn sessions (AIPerf's user-centric mode), a load no serving case of xp names; "
                       "not read");
  /* AIPerf's --prefill-concurrency, the requests let into prefill at once (before their first
  ** token) beside the concurrency: another load than the concurrency alone, a setting of the case */
  vb_flat_number(flat, "prefill_concurrency", pc);
  if (aiperf ? fixed_schedule(cfg, isfinite(c) || isfinite(r)) : genai_perf_fixed_schedule(cfg)) {
    const char *type = cJSON_GetStringValue(path_get(cfg, "input.custom_dataset_type"));
    if (isfinite(c)) cJSON_AddNumberToObject(flat, "max_concurrency", c);
    cJSON_AddStringToObject(flat, "request_rate", "trace"); /* a rate given beside it is not applied */
    if (type && *type) cJSON_AddStringToObject(flat, "dataset_name", type);
    return 0;
  }
  if (isnan(c) && isnan(r))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line,
                       "missing key \"input_config.%s\" (or %s): the export names no concurrency or request rate, "
                       "the load its results are of", aiperf ? "loadgen.concurrency" : "concurrency",
                       aiperf ? "loadgen.request_rate" : "request_rate");
  if (isfinite(c)) cJSON_AddNumberToObject(flat, "max_concurrency", c);
  if (isnan(r)) return 0;
  cJSON_AddNumberToObject(flat, "request_rate", r);
  /* AIPerf's arrivals: request_rate_mode, renamed arrival_pattern (--request-rate-mode its alias),
  ** with arrival_smoothness; input_config leaves out what was left at its default, and the
  ** default is poisson in every version (LoadGeneratorDefaults: REQUEST_RATE_MODE =
  ** RequestRateMode.POISSON, then ARRIVAL_PATTERN = ArrivalPattern.POISSON, of aiperf/common/
  ** config/config_defaults.py) */
  const char *mode = cJSON_GetStringValue(path_get(cfg, "loadgen.request_rate_mode"));
  if (!mode) mode = cJSON_GetStringValue(path_get(cfg, "loadgen.arrival_pattern"));
  if (!mode) mode = "poisson";
  const cJSON *shape = path_get(cfg, "loadgen.smoothness"); /* a v2 phase's, copied (v2_config) */
  if (!shape) shape = path_get(cfg, "loadgen.arrival_smoothness");
  /* as vLLM's --burstiness inf comes (json.dump's Infinity), kept as "inf" */
  if (!aiperf || strcmp(mode, "constant") == 0) cJSON_AddNumberToObject(flat, "burstiness", INFINITY);
  else if (strcmp(mode, "poisson") == 0) cJSON_AddNumberToObject(flat, "burstiness", 1.0);
  else if (strcmp(mode, "gamma") == 0 && cJSON_IsNumber(shape) && shape->valuedouble > 0)
    cJSON_AddNumberToObject(flat, "burstiness", shape->valuedouble); /* the gamma's shape, as vLLM's */
  /* a gamma left at its smoothness is not written (exclude_unset, or a v2 phase without one):
  ** AIPerf's GammaIntervalGenerator runs it at 1 (arrival_smoothness or 1.0), Poisson's */
  else if (strcmp(mode, "gamma") == 0 && (!shape || cJSON_IsNull(shape)))
    cJSON_AddNumberToObject(flat, "burstiness", 1.0);
  return 0;
}

/* The prompt and output lengths asked for, as vLLM's and SGLang's random dataset name them, and
** the requests sent; the client's endpoint and tokenizer. */
static int take_workload(const vb_at *at, const cJSON *cfg, cJSON *flat) {
  static const char *const in[] = {"synthetic_input_tokens_mean", "input.synthetic_tokens.mean",
                                   "input.prompt.input_tokens.mean", NULL};
  static const char *const out[] = {"output_tokens_mean", "input.output_tokens.mean", "input.prompt.output_tokens.mean",
                                    NULL};
  static const char *const count[] = {"request_count", "loadgen.request_count", NULL};
  static const char *const endpoint[] = {"endpoint_type", "endpoint.type", NULL};
  static const char *const tokenizer[] = {"tokenizer", "tokenizer.name", NULL};
  double i, o, n;
  if (setting(at, cfg, in, &i) || setting(at, cfg, out, &o) || setting(at, cfg, count, &n)) return XP_EXIT_USAGE;
  /* the synthetic prompts' length means nothing where the prompts came from a file */
  const char *source = cJSON_GetStringValue(path_get(cfg, "prompt_source"));
  if (!path_get(cfg, "input_file") && !path_get(cfg, "input.file") && !path_get(cfg, "input.file_path") &&
      (!source || strcmp(source, "synthetic") == 0))
    vb_flat_number(flat, "random_input_len", i);
  vb_flat_number(flat, "random_output_len", o);
  vb_flat_number(flat, "num_prompts", n);
  /* the SLO targets of its goodput (genai-perf's args, its ConfigCommand's and AIPerf's input, its
  ** v2 slos) */
  static const char *const slo[] = {"goodput", "input.goodput", "slos", NULL};
  const char *where = NULL;
  const cJSON *g = first_of(cfg, slo, &where, 0);
  char *targets = g ? vb_goodput_targets(g) : NULL;
  if (g && !targets && !(cJSON_IsObject(g) && !g->child))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.%s: expected the goodput's targets "
                       "({\"metric\": ms, ...}), found %s", where, vb_json_kind(g));
  if (targets) cJSON_AddStringToObject(flat, "goodput", targets);
  free(targets);
  const char *e = cJSON_GetStringValue(first_of(cfg, endpoint, NULL, 1));
  const char *t = cJSON_GetStringValue(first_of(cfg, tokenizer, NULL, 1));
  if (e) cJSON_AddStringToObject(flat, "endpoint_type", e);
  if (t) cJSON_AddStringToObject(flat, "tokenizer_id", t);
  /* genai-perf's Triton service kind names the server's backend, the engine (its openai kind
  ** names only the API, the backend then its unused default) */
  static const char *const kinds[] = {"service_kind", "endpoint.service_kind", NULL};
  static const char *const backends[] = {"backend", "endpoint.backend", NULL};
  const char *kind = cJSON_GetStringValue(first_of(cfg, kinds, NULL, 1));
  const char *backend = cJSON_GetStringValue(first_of(cfg, backends, NULL, 1));
  if (kind && strcmp(kind, "triton") == 0 && backend)
    cJSON_AddStringToObject(flat, "backend", strcmp(backend, "tensorrtllm") == 0 ? "tensorrt-llm" : backend);
  return 0;
}

/* A length AIPerf's v2 dataset gives as a number or a distribution ({"mean": N, ...}). */
static const cJSON *length_of(const cJSON *v) {
  return cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "mean") : v;
}

/* v (a copy) into to under key, or at its end where key is NULL (a list); nothing where v is none. */
static void copy_into(cJSON *to, const char *key, const cJSON *v) {
  if (!v || cJSON_IsNull(v)) return;
  if (key) cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1));
  else cJSON_AddItemToArray(to, cJSON_Duplicate(v, 1));
}

/* AIPerf's configuration v2.0 (2026: BenchmarkConfig of src/aiperf/config/config.py, dumped with
** exclude_unset) names the model, load and lengths otherwise: models.items[].name, datasets[0].
** prompts.isl and osl, and phases, the one named "profiling" (warmup apart) of a type: concurrency
** (its concurrency, 1 where not given: PhaseConfig's default), or a rate's arrivals, poisson,
** constant or gamma (its smoothness the gamma's shape: vLLM's burstiness), with a rate, a
** concurrency cap and its requests, or fixed_schedule (a trace replayed, take_load); and slos, its
** goodput's targets. Rewritten in the UserConfig layout the rest of this file reads; *v2 set where
** the configuration is of that version. */
static int v2_config(const vb_at *at, const cJSON *cfg, cJSON **v2) {
  const cJSON *phases = cJSON_GetObjectItemCaseSensitive(cfg, "phases"), *p, *phase = NULL, *item;
  *v2 = NULL;
  if (!cJSON_IsArray(phases)) return 0;
  cJSON_ArrayForEach(p, phases) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name"));
    if (name && strcmp(name, "profiling") == 0) phase = p;
  }
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(phase, "type"));
  if (!type)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "missing key \"input_config.phases[profiling].type\": the "
                       "export names no load");
  static const char *const kinds[] = {"concurrency", "poisson", "constant", "gamma", "fixed_schedule"};
  size_t k = 0;
  while (k < 5 && strcmp(type, kinds[k]) != 0) k++;
  if (k == 5)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "input_config.phases[profiling].type \"%.40s\": a load no "
                       "serving case of xp names (concurrency, poisson, constant, gamma, fixed_schedule); not read", type);
  cJSON *out = cJSON_CreateObject(), *endpoint = cJSON_AddObjectToObject(out, "endpoint");
  cJSON *names = cJSON_AddArrayToObject(endpoint, "model_names"), *load = cJSON_AddObjectToObject(out, "loadgen");
  cJSON_ArrayForEach(item, path_get(cfg, "models.items")) copy_into(names, NULL, path_get(item, "name"));
  if (cJSON_GetArraySize(names) == 0) cJSON_DeleteItemFromObject(endpoint, "model_names");
  copy_into(endpoint, "type", path_get(cfg, "endpoint.type"));
  copy_into(endpoint, "streaming", path_get(cfg, "endpoint.streaming"));
  const cJSON *conc = path_get(phase, "concurrency");
  copy_into(load, "prefill_concurrency", path_get(phase, "prefill_concurrency"));
  if (conc) copy_into(load, "concurrency", conc);
  else if (k == 0) cJSON_AddNumberToObject(load, "concurrency", 1);
  copy_into(load, "request_rate", path_get(phase, "rate"));
  if (k > 0 && k < 4) cJSON_AddStringToObject(load, "request_rate_mode", type);
  copy_into(load, "smoothness", path_get(phase, "smoothness"));
  copy_into(load, "request_count", path_get(phase, "requests"));
  const cJSON *dataset = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cfg, "datasets"), 0);
  const cJSON *prompts = path_get(dataset, "prompts");
  cJSON *input = cJSON_AddObjectToObject(out, "input"), *prompt = cJSON_AddObjectToObject(input, "prompt");
  if (k == 4) { /* a replay at the trace's timestamps, of its dataset */
    cJSON_AddTrueToObject(input, "fixed_schedule");
    copy_into(input, "custom_dataset_type", path_get(dataset, "type"));
  }
  copy_into(cJSON_AddObjectToObject(prompt, "input_tokens"), "mean", length_of(path_get(prompts, "isl")));
  copy_into(cJSON_AddObjectToObject(prompt, "output_tokens"), "mean", length_of(path_get(prompts, "osl")));
  copy_into(out, "tokenizer", path_get(cfg, "tokenizer"));
  /* the goodput's SLO targets: --goodput's {"metric tag": value} (convert_cli_to_aiperf of
  ** src/aiperf/config/flags/converter.py, 0205ea1), a section of its own in v2 */
  copy_into(out, "slos", path_get(cfg, "slos"));
  *v2 = out;
  return 0;
}

/* AIPerf's benchmark_duration, from the first request sent to the last response, as vLLM's
** duration in s: in the unit its summary states (MetricResult.unit: "sec", the display unit of
** BenchmarkDurationMetric, whose own unit is ns; MetricTimeUnit's tags ns, us, ms, sec), never
** taken for seconds unread. */
static int take_duration(const vb_at *at, const cJSON *m, cJSON *flat) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(m, "benchmark_duration");
  const char *unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "unit"));
  double v;
  if (summary_avg(at, m, "benchmark_duration", &v)) return XP_EXIT_USAGE;
  if (isnan(v)) return 0;
  const double f = unit ? to_ms(unit) : 0;
  if (f == 0)
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "benchmark_duration.unit: expected a unit of time (sec, "
                       "ms, us, ns), found %s%s%s", unit ? "\"" : "", unit ? unit : "none", unit ? "\"" : "");
  vb_flat_number(flat, "duration", v * f / 1e3);
  return 0;
}

/* The counts and throughputs, under vLLM's names; the request count is of the requests that
** succeeded (AIPerf's error_request_count apart), genai-perf's before 2025 none. */
static int take_totals(const vb_at *at, const cJSON *m, cJSON *flat) {
  static const char *const names[][2] = {
      {"request_throughput", "request_throughput"}, {"output_token_throughput", "output_throughput"},
      {"request_goodput", "request_goodput"},       {"goodput", "request_goodput"},
      {"request_count", "completed"},               {"error_request_count", "failed"},
      {"total_isl", "total_input_tokens"},          {"total_osl", "total_output_tokens"}};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    double v;
    if (summary_avg(at, m, names[k][0], &v)) return XP_EXIT_USAGE;
    vb_flat_number(flat, names[k][1], v);
  }
  if (take_duration(at, m, flat)) return XP_EXIT_USAGE;
  /* genai-perf counts no prompt tokens but their mean over the requests it counts */
  double isl, n;
  if (summary_avg(at, m, "input_sequence_length", &isl) || summary_avg(at, m, "request_count", &n)) return XP_EXIT_USAGE;
  vb_flat_number(flat, "total_input_tokens", isl * n);
  if (!cJSON_HasObjectItem(flat, "request_throughput"))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "missing key \"request_throughput\" (its avg): no throughput measured");
  if (!cJSON_HasObjectItem(flat, "output_throughput"))
    return xp_error_at(XP_EXIT_USAGE, at->label, at->line,
                       "missing key \"output_token_throughput\": no output tokens counted (an embeddings or rankings "
                       "profile?); serve_bench records generation benchmarks");
  return 0;
}

/* AIPerf's GPU energy over the profiling phase, from --gpu-telemetry's counters, summed over the
** GPUs the telemetry saw: total_gpu_energy (J, the counters' deltas) and total_gpu_power (W, each
** GPU's mean power) (src/aiperf/metrics/types/power_efficiency_metrics.py of ai-dynamo/aiperf,
** commits fbbddec, 2beab27); and what EnergyEfficiencyAnalyzer (src/aiperf/metrics/
** energy_efficiency_analyzer.py, commit 347f0c7) makes of that energy: the mean power over the
** phase, the output tokens a joule, the energy an output token, a token in or out, a request, a
** user of the concurrency, and the request, goodput and output-token throughputs a watt. AIPerf's
** split by vendor names each nvidia_ and amd_ (the same file of ShounakRay/aiperf, commit 5412a65).
** Each a summary of one, its unit a tag of aiperf/common/enums/metric_enums.py (EnergyMetricUnit J,
** mJ, MJ; PowerMetricUnit W, mW; GenericMetricUnit TOKENS_PER_JOULE "tokens/J", JOULES_PER_USER
** "joules/user"; commit 03240ef) or the strings its energy efficiency summary wrote ("mJ/token",
** "J/req", "req/s/W", "tps/W", "good-req/s/W"): recorded under its tag in xp's spelling of that
** unit (vb_summary_unit), J and W for the multiples; another unit is refused, never guessed. The
** GPUs are those the telemetry saw (a DCGM exporter's node, the server's or not), so not vLLM's
** gpu_energy_j. The energy-delay product (J*s), whose unit tag is in no stored source, is not read. */
enum vb_ratio { R_ENERGY, R_POWER, R_TOK_PER_J, R_MJ_PER_TOK, R_J_PER_REQ, R_J_PER_USER, R_REQ_S_W, R_GOOD_S_W,
                R_TOK_S_W, R_NKINDS };
static const struct { const char *tag; enum vb_ratio kind; } energy_tags[] = {
    {"total_gpu_energy", R_ENERGY},          {"total_gpu_power", R_POWER},
    {"average_gpu_power", R_POWER},          {"output_tokens_per_joule", R_TOK_PER_J},
    {"energy_per_output_token", R_MJ_PER_TOK}, {"energy_per_total_token", R_MJ_PER_TOK},
    {"energy_per_request", R_J_PER_REQ},     {"energy_per_user", R_J_PER_USER},
    {"performance_per_watt", R_REQ_S_W},     {"goodput_per_watt", R_GOOD_S_W},
    {"output_tps_per_watt", R_TOK_S_W}};
/* each kind's units as written, xp's unit (the kind's first) and the factor to it */
static const struct { enum vb_ratio kind; const char *written, *unit; double f; } energy_units[] = {
    {R_ENERGY, "J", "J", 1},          {R_ENERGY, "mJ", "J", 1e-3},          {R_ENERGY, "MJ", "J", 1e6},
    {R_POWER, "W", "W", 1},           {R_POWER, "mW", "W", 1e-3},           {R_TOK_PER_J, "tokens/J", "tok/J", 1},
    {R_MJ_PER_TOK, "mJ/token", "mJ/tok", 1}, {R_J_PER_REQ, "J/req", "J/req", 1},
    {R_J_PER_USER, "joules/user", "J/user", 1}, {R_REQ_S_W, "req/s/W", "req/s/W", 1},
    {R_GOOD_S_W, "good-req/s/W", "req/s/W", 1}, {R_TOK_S_W, "tps/W", "tok/s/W", 1}};
static const char *const kind_words[R_NKINDS] = {
    "energy", "power", "tokens per energy", "energy per token", "energy per request", "energy per user",
    "request throughput per power", "goodput per power", "token throughput per power"};

/* The energy tag a key names, the vendor's prefix left off; -1 for none. */
static int energy_tag(const char *key) {
  static const char *const vendors[] = {"", "nvidia_", "amd_"};
  for (size_t p = 0; p < sizeof vendors / sizeof vendors[0]; p++) {
    const size_t n = strlen(vendors[p]);
    if (strncmp(key, vendors[p], n) != 0) continue;
    for (size_t t = 0; t < sizeof energy_tags / sizeof energy_tags[0]; t++)
      if (strcmp(key + n, energy_tags[t].tag) == 0) return (int)t;
  }
  return -1;
}

const char *vb_summary_unit(const char *key) {
  const int t = energy_tag(key);
  for (size_t u = 0; t >= 0 && u < sizeof energy_units / sizeof energy_units[0]; u++)
    if (energy_units[u].kind == energy_tags[t].kind) return energy_units[u].unit;
  return NULL;
}

static int take_energy(const vb_at *at, const cJSON *m, cJSON *flat) {
  const cJSON *s;
  cJSON_ArrayForEach(s, m) {
    const int t = s->string ? energy_tag(s->string) : -1;
    double x;
    if (t < 0) continue;
    if (summary_avg(at, m, s->string, &x)) return XP_EXIT_USAGE;
    if (isnan(x)) continue;
    const enum vb_ratio kind = energy_tags[t].kind;
    const char *unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "unit"));
    char known[64] = "";
    size_t u, n = 0, found = 0;
    for (u = 0; u < sizeof energy_units / sizeof energy_units[0]; u++) {
      if (energy_units[u].kind != kind) continue;
      if (unit && strcmp(unit, energy_units[u].written) == 0) found = u + 1;
      n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", n ? ", " : "", energy_units[u].written);
    }
    if (!found)
      return xp_error_at(XP_EXIT_USAGE, at->label, at->line, "%s.unit: expected a unit of %s (%s)", s->string,
                         kind_words[kind], known);
    vb_flat_number(flat, s->string, x * energy_units[found - 1].f);
  }
  return 0;
}

/* The GPU AIPerf's --gpu-telemetry saw serving (telemetry_data.endpoints.<DCGM endpoint>.gpus.
** <gpu_N>.gpu_name; export_models.py GpuSummary), where every one it names is that GPU, as
** SGLang's server_info names a server (vb_parse.c take_server_model). Not how many: a DCGM
** exporter reports every GPU of its node, the server's or not. */
static void take_gpu(const cJSON *o, cJSON *flat) {
  const cJSON *eps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "telemetry_data"), "endpoints");
  const cJSON *ep, *g;
  const char *name = NULL;
  if (!cJSON_IsObject(eps)) return;
  cJSON_ArrayForEach(ep, eps) {
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(ep, "gpus");
    if (!cJSON_IsObject(gpus)) continue;
    cJSON_ArrayForEach(g, gpus) {
      const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(g, "gpu_name"));
      if (!n || !*n || (name && strcmp(name, n) != 0)) return; /* unnamed, or GPUs of two kinds */
      name = n;
    }
  }
  if (name) cJSON_AddStringToObject(cJSON_AddObjectToObject(flat, "server_info"), "gpu_name", name);
}

/* AIPerf's start_time ("2025-10-17T20:22:08.939332", its local clock, as vLLM's date) in vLLM's
** form, "20251017-202208", which run_measured reads. */
static void take_date(const cJSON *o, cJSON *flat) {
  const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "start_time"));
  int y, mo, d, h, mi, s;
  if (t && sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) == 6) {
    char date[32];
    snprintf(date, sizeof date, "%04d%02d%02d-%02d%02d%02d", y, mo, d, h, mi, s);
    cJSON_AddStringToObject(flat, "date", date);
  }
}

int vb_summary_read(const char *label, long line, cJSON *o) {
  const vb_at at = {label, line};
  /* AIPerf's first exports keep the summaries under "records" */
  const cJSON *records = cJSON_GetObjectItemCaseSensitive(o, "records");
  const cJSON *m = cJSON_IsObject(records) ? records : o, *s;
  const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "input_config");
  const int aiperf = cJSON_HasObjectItem(o, "aiperf_version") || m == records || path_get(cfg, "loadgen") ||
                     path_get(cfg, "endpoint.model_names");
  if (!cJSON_IsObject(cfg))
    return xp_error_at(XP_EXIT_USAGE, label, line, "%s \"input_config\" (the model and the load are named only there)",
                       cfg ? "expected an object in" : "missing key");
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "was_cancelled")))
    return xp_error_at(XP_EXIT_USAGE, label, line, "was_cancelled: true: the benchmark was stopped before its end, "
                       "its summaries are of part of the load; not read");
  cJSON *v2 = NULL;
  if (v2_config(&at, cfg, &v2)) return XP_EXIT_USAGE;
  if (v2) cfg = v2;
  cJSON *flat = cJSON_CreateObject();
  int rc = take_model(&at, cfg, flat);
  if (!rc) rc = take_load(&at, cfg, aiperf || v2, flat);
  if (!rc) rc = take_workload(&at, cfg, flat);
  if (!rc) rc = take_totals(&at, m, flat);
  if (!rc) rc = take_energy(&at, m, flat);
  /* unstreamed (genai-perf without --streaming), the first response is the whole answer: its
  ** "time to first token" is the latency, and the time between tokens none (genai-perf's own CSV
  ** and console leave both out then) */
  static const char *const streaming[] = {"streaming", "endpoint.streaming", NULL};
  const int unstreamed = cJSON_IsFalse(first_of(cfg, streaming, NULL, 0));
  cJSON_ArrayForEach(s, m) {
    const char *name = latency_name(s->string);
    if (!rc && cJSON_IsObject(s) && name && (!unstreamed || strcmp(name, "e2el") == 0)) rc = take_summary(&at, s, flat);
  }
  cJSON_Delete(v2);
  if (rc) {
    cJSON_Delete(flat);
    return XP_EXIT_USAGE;
  }
  take_date(o, flat);
  take_gpu(o, flat);
  /* the object is now the result vLLM would have written: the export's own keys go (its
  ** strings would otherwise be read as settings of the case) */
  vb_flat_replace(o, flat);
  return 0;
}
