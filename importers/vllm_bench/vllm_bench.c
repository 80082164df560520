/*
** xp import vllm-bench FILE...: serving benchmarks (vllm bench serve --save-result, or the
** older benchmarks/benchmark_serving.py, or SGLang's python -m sglang.bench_serving
** --output-file JSONL) as one run of kind serve_bench, with one case per result object (each
** file holds one, or several with --append-result; SGLang's a line per benchmark): its
** concurrency or request rate. SGLang's offline throughput and one-batch benchmarks' lines are
** cases too ("offline", "batch=B,input=I,output=O"; vb_tools.c), and so are vLLM's throughput and latency
** benchmarks through their .pytorch.json side file (vb_pytorch.c). The macro numbers then sit in the same database as the
** micro-benchmarks. One command for both writers, the format told apart per result (see
** vb_parse.c), so that a sweep and its cases are the same whichever engine served it.
**
** Every file is read and checked before the run is begun (check()), so bad input leaves no
** run behind; execute() records that reading (held).
*/
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "kind.h"
#include "stats.h"
#include "vb_parse.h"
#include "xp.h"

static const xp_field vllm_bench_fields[] = {
    {"files", XP_T_STRINGS, 1, NULL, NULL, 0, 0,
     "result files of vllm bench serve --save-result, benchmark_serving.py, sglang.bench_serving (JSONL), "
     "sglang.bench_offline_throughput, sglang.bench_one_batch_server or sglang.bench_one_batch (--result-filename), "
     "the .pytorch.json of vllm bench serve, throughput or latency (SAVE_TO_PYTORCH_BENCHMARK_FORMAT=1), "
     "genai-perf's or AIPerf's profile export JSON, or trtllm-bench --report_json"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

typedef struct vb_set {
  vb_result *r;
  size_t n;
  char **text; /* each file given, as read: the artifact kept of it */
  size_t *len;
  int nfiles;
} vb_set;

static void set_free(vb_set *s) {
  vb_results_free(s->r, s->n);
  for (int i = 0; i < s->nfiles; i++) free(s->text[i]);
  free(s->text);
  free(s->len);
  *s = (vb_set){0};
}

/* The model declared on the command line (--set model=NAME), or NULL. */
static const char *declared_model(const xp_spec *spec) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec->root, "model"));
}

/* One run is one system under test: files of different models are separate imports. A result
** that names no model (SGLang's names one only in a server_info) is the declared model's;
** without one the import is refused rather than recorded under a model nobody named. */
static int check_same_model(const vb_set *s, const xp_spec *spec) {
  const vb_result *named = NULL, *unnamed = NULL;
  for (size_t i = 0; i < s->n; i++) {
    if (!s->r[i].model && !unnamed) unnamed = &s->r[i];
    const vb_result *r = &s->r[i];
    if (!r->model && !declared_model(spec) && r->tool != VB_SERVE)
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line, "the result names no model (%s names none); "
                         "say which with --set model=NAME", vb_tool_name[r->tool]);
    if (!r->model && !declared_model(spec))
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line,
                         "the result names no model (sglang.bench_serving names one only in a server_info); "
                         "say which with --set model=NAME");
    if (r->model && named && strcmp(r->model, named->model) != 0)
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line,
                         "model_id \"%s\" differs from \"%s\" in %s; import each model separately",
                         r->model, named->model, named->file);
    if (r->model && !named) named = r;
  }
  /* results that name no model are the declared one's: a file that names another is a
  ** second system under test, not a correction of the declaration */
  const char *declared = declared_model(spec);
  if (named && unnamed && strcmp(named->model, declared) != 0)
    return xp_error_at(XP_EXIT_USAGE, named->file, named->line,
                       "model_id \"%s\" differs from --set model=%s, the model of %s; import each model separately",
                       named->model, declared, unnamed->file);
  return 0;
}

/* A report that names its precision (trtllm-bench's engine.dtype and quantization, vb_trtllm.c)
** is what ran: a --set dtype that names another, or a --set quantization of a model the report
** says ran unquantized, is a declaration of another configuration, refused as a model is. */
static int check_precision(const vb_set *s, const xp_spec *spec) {
  const char *dtype = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec->root, "dtype"));
  const char *quant = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec->root, "quantization"));
  for (size_t i = 0; i < s->n; i++) {
    const vb_result *r = &s->r[i];
    const int unquantized = r->engine_quant && strcmp(r->engine_quant, "None") == 0;
    if (dtype && r->dtype && strcmp(dtype, r->dtype) != 0)
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line, "--set dtype=%s, yet the report ran dtype %s (engine.dtype "
                         "\"%s\", quantization %s%s%s); a dtype of another run, not this one's",
                         dtype, r->dtype, r->engine_dtype ? r->engine_dtype : "?", unquantized ? "" : "\"",
                         unquantized ? "null" : r->engine_quant ? r->engine_quant : "?", unquantized ? "" : "\"");
    if (quant && unquantized)
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line, "--set quantization=%s, yet the report's engine.quantization "
                         "is null: the model ran unquantized (engine.dtype \"%s\")",
                         quant, r->engine_dtype ? r->engine_dtype : "?");
  }
  return 0;
}

/* The model the run records: the files' (they agree), else the declared one. */
static const char *set_model(const vb_set *s, const xp_spec *spec) {
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].model) return s->r[i].model;
  return declared_model(spec);
}

/* Whether side, a vllm bench serve result rebuilt from its .pytorch.json, is r read again: one
** case, one date, and every value the side file carries r's to the last bit (the side file
** copies the result's numbers, json.dump writes a float the same twice; two measurements do not
** agree in duration, throughputs and every statistic). */
static int side_of(const vb_result *side, const vb_result *r) {
  if (!side->side || r->side || side->tool != VB_SERVE || r->tool != VB_SERVE || side->nvalues == 0 ||
      strcmp(side->case_name, r->case_name) != 0 || !side->date != !r->date ||
      (side->date && strcmp(side->date, r->date) != 0))
    return 0;
  for (size_t i = 0; i < side->nvalues; i++) {
    const vb_value *o = vb_find_value(r, side->values[i].metric);
    if (!o || o->v != side->values[i].v) return 0;
  }
  return 1;
}

/* vLLM writes X.pytorch.json beside its result X.json, the same result less the per-request
** lists: given with it, under any name or in any folder, each case would count twice (its
** values two samples each). Refused, naming both; told by content, not by name, as a copy kept
** elsewhere or renamed is the same result. */
static int side_with_its_result(const vb_set *s) {
  for (size_t i = 0; i < s->n; i++)
    for (size_t j = 0; j < s->n; j++)
      if (side_of(&s->r[i], &s->r[j]))
        return xp_error_at(XP_EXIT_USAGE, s->r[i].file, s->r[i].line, "the same result as %s:%d (vllm bench serve "
                           "writes its result again, less the per-request lists, to the .pytorch.json beside it): "
                           "each case would count twice; give one of them", s->r[j].file, s->r[j].line);
  return 0;
}

/* One result in two files: vllm bench sweep serve writes each run of a point to run=N.json and
** then all of them again, as a list, to the point's summary.json. Given both, each run's requests
** would count twice. Refused, naming the first (within one file, results are separate runs). */
static int result_twice(const vb_set *s) {
  for (size_t i = 1; i < s->n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(s->r[i].sum, s->r[j].sum) == 0 && strcmp(s->r[i].file, s->r[j].file) != 0)
        return xp_error_at(XP_EXIT_USAGE, s->r[i].file, s->r[i].line, "the same result as %s:%d (vllm bench sweep's "
                           "summary.json lists its run=N.json files' results again): each case would count its "
                           "requests twice; give the run files or the summary", s->r[j].file, s->r[j].line);
  return 0;
}

/* Whether every result has the server setting v, of v's value. */
static int shared_by_all(const vb_set *s, const cJSON *v) {
  for (size_t i = 0; i < s->n; i++) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(s->r[i].server, v->string);
    if (!o || !cJSON_Compare(o, v, 1)) return 0;
  }
  return 1;
}

/* A server setting of vllm bench sweep serve (vb_sweep.c) is the run's, one system under test,
** where every result has it alike. Where they do not (two points' files in one import,
** max_num_seqs 4 and 8) it is no setting of the run: kept in the settings of each case that has
** it, so that the points stay cases of their own. */
static void settle_server_settings(vb_set *s) {
  for (size_t i = 0; i < s->n; i++) {
    cJSON *v = s->r[i].server ? s->r[i].server->child : NULL;
    while (v) {
      cJSON *next = v->next;
      if (!shared_by_all(s, v)) {
        cJSON_DetachItemViaPointer(s->r[i].server, v);
        if (cJSON_HasObjectItem(s->r[i].params, v->string)) cJSON_Delete(v);
        else cJSON_AddItemToObject(s->r[i].params, v->string, v);
      }
      v = next;
    }
  }
}

/* How far sglang.bench_one_batch_server's --result-filename line may be from the unrounded value
** of the same batch, in the unit xp records it: BenchOneCaseResult.dump_to_jsonl (and the
** 2025 run_one_case) writes round(latency, 4) and round(last_ttft, 4) in seconds, the
** throughputs and acc_length to 2 places, cache_hit_rate to 4 (2 in %), the counts whole. */
static double line_rounding(const vb_value *v) {
  if (strcmp(v->unit, "ms") == 0) return 0.05;
  if (strcmp(v->unit, "s") == 0) return 0.00005;
  return 0.005;
}

/* Whether a and b are one batch of sglang.bench_one_batch_server, a line and a list entry: one
** case, and every value both record within the line's rounding of the other. Two measurements do
** not agree so: the throughputs to 2 places are the time to a few parts in a million. */
static int same_batch(const vb_result *a, const vb_result *b) {
  if (a->tool != VB_SGLANG_ONE_BATCH || b->tool != a->tool || a->listed == b->listed ||
      strcmp(a->case_name, b->case_name) != 0)
    return 0;
  if (!vb_find_value(a, "batch_latency_ms") || !vb_find_value(b, "batch_latency_ms")) return 0;
  for (size_t i = 0; i < a->nvalues; i++) {
    const vb_value *o = vb_find_value(b, a->values[i].metric);
    if (o && fabs(o->v - a->values[i].v) > line_rounding(o) + 1e-9 * fabs(o->v)) return 0;
  }
  return 1;
}

/* sglang.bench_one_batch_server writes each batch as a --result-filename line and again, unrounded,
** as an entry of its --output-path (2025) or --pydantic-result-filename list; neither carries a
** run id or time. Given both, each batch would count twice: refused, naming the first. */
static int batch_twice(const vb_set *s) {
  for (size_t i = 1; i < s->n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(s->r[i].file, s->r[j].file) != 0 && same_batch(&s->r[i], &s->r[j]))
        return xp_error_at(XP_EXIT_USAGE, s->r[i].file, s->r[i].line, "the same batch as %s:%d (sglang.bench_one_batch_server "
                           "writes each batch to its --result-filename line and again, unrounded, to --output-path or "
                           "--pydantic-result-filename): it would count twice; give one of them", s->r[j].file, s->r[j].line);
  return 0;
}

/* Whether trtllm-bench's requests (vb_trtllm.c) were all issued before the first ended (1), held
** back (0), or the report cannot tell (-1): the issue window against the shortest latency. */
static int trtllm_at_once(const vb_result *r) {
  const vb_value *w = vb_find_value(r, "issue_window_s"), *min = vb_find_value(r, "min_e2el_ms");
  return w && min ? w->v * 1e3 < min->v : -1;
}

/* trtllm-bench's report names no --concurrency. Its requests all issued at once are the offline
** load (case "offline", as vllm bench throughput's); held back, the load is what the user declares
** (--set concurrency=N: "offline,concurrency=N"), else refused; a declaration below the requests
** of a report that issued them all at once contradicts it. */
static int trtllm_load(vb_set *s, const xp_spec *spec) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(spec->root, "concurrency");
  for (size_t i = 0; i < s->n; i++) {
    vb_result *r = &s->r[i];
    if (r->tool != VB_TRTLLM_BENCH) continue;
    const int at_once = trtllm_at_once(r);
    const vb_value *n = vb_find_value(r, "completed");
    if (at_once == 1 && cJSON_IsNumber(c) && n && c->valuedouble < n->v)
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line, "--set concurrency=%g, yet its %g requests were all issued "
                         "before the first ended (world_info.issue_rate): at once", c->valuedouble, n->v);
    if (at_once == 1) continue;
    if (!cJSON_IsNumber(c) && at_once == 0)
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line, "the report names no concurrency, and its requests were held "
                         "back (issued over %.3g s, past the shortest one's end: world_info.issue_rate): trtllm-bench "
                         "ran with --concurrency below its requests; say which with --set concurrency=N",
                         vb_find_value(r, "issue_window_s")->v);
    if (!cJSON_IsNumber(c))
      return xp_error_at(XP_EXIT_USAGE, r->file, r->line, "the report names no concurrency, nor when its requests were "
                         "issued (world_info.issue_rate, performance.request_latency_percentiles_ms.minimum); say "
                         "which with --set concurrency=N");
    r->max_concurrency = (int64_t)c->valuedouble;
    cJSON_AddNumberToObject(r->params, "max_concurrency", c->valuedouble);
    free(r->case_name);
    r->case_name = xp_asprintf("offline,concurrency=%lld", (long long)r->max_concurrency);
  }
  return 0;
}

static int load_all(const xp_spec *spec, vb_set *out) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(spec->root, "files"), *f;
  const int nfiles = cJSON_GetArraySize(files);
  *out = (vb_set){NULL, 0, xp_xcalloc((size_t)(nfiles ? nfiles : 1), sizeof *out->text),
                  xp_xcalloc((size_t)(nfiles ? nfiles : 1), sizeof *out->len), nfiles};
  char **paths = xp_xcalloc((size_t)(nfiles ? nfiles : 1), sizeof *paths);
  int i = 0, rc = 0;
  cJSON_ArrayForEach(f, files) paths[i++] = xp_spec_resolve(spec, f->valuestring);
  /* one file twice, or a copy of it: a compare's test would see twice the samples there are */
  rc = xp_files_given_twice((const char *const *)paths, nfiles, "each case would count its requests twice");
  for (int k = 0; k < nfiles && rc == 0; k++) {
    vb_result *r = NULL;
    size_t n = 0;
    rc = vb_parse_file_kept(paths[k], &out->text[k], &out->len[k], &r, &n);
    if (rc) {
      vb_results_free(r, n); /* on a parse error, none */
      break;
    }
    /* vb_result owns heap pointers only, so moving the structs keeps them valid. */
    out->r = xp_xrealloc(out->r, (out->n + n) * sizeof *out->r);
    memcpy(out->r + out->n, r, n * sizeof *r);
    out->n += n;
    free(r);
    if (xp_interrupted()) {
      rc = XP_EXIT_ABORTED;
      break;
    }
  }
  if (!rc) rc = result_twice(out);
  if (!rc) rc = side_with_its_result(out);
  if (!rc) rc = batch_twice(out);
  for (int k = 0; k < i; k++) free(paths[k]);
  free(paths);
  if (!rc) rc = check_same_model(out, spec);
  if (!rc) rc = check_precision(out, spec);
  if (!rc) rc = trtllm_load(out, spec);
  if (rc) set_free(out);
  else settle_server_settings(out);
  return rc;
}

/* The files as check() read them, for the hooks that follow it in one command (against_history,
** plan, execute), each of which read and parsed every file again: three readings of a 3000-line
** JSONL where one is enough. Held for the spec read, told by its address and its text (a spec
** freed and another made at that address names other files); a hook of another spec reads its
** own. What the database holds is still asked in execute's transaction. */
static struct {
  const xp_spec *spec;
  char *text;
  vb_set set;
} held;

static void held_free(void) {
  set_free(&held.set);
  free(held.text);
  held.text = NULL;
  held.spec = NULL;
}

/* The reading of spec's files, held for it: check's, else read now (a hook called without check). */
static int held_reading(const xp_spec *spec, vb_set **out) {
  char *text = cJSON_PrintUnformatted(spec->root);
  if (held.spec == spec && held.text && text && strcmp(held.text, text) == 0) {
    free(text);
    *out = &held.set;
    return 0;
  }
  held_free();
  int rc = load_all(spec, &held.set);
  if (rc == 0) held.spec = spec, held.text = text;
  else free(text);
  *out = &held.set;
  return rc;
}

/* The held reading, taken: the caller frees it. */
static int take_reading(const xp_spec *spec, vb_set *out) {
  vb_set *s;
  int rc = held_reading(spec, &s);
  *out = *s;
  held.set = (vb_set){0};
  held_free();
  return rc;
}

/* The first hook of a command: it reads anew, so that a reading held past a command that did not
** record it (refused as nothing new, by a caller running several imports in one process: the
** fuzzers, the tests) is never taken for another spec's that has its address and text and whose
** file has changed since. */
static int vllm_bench_check(const xp_spec *spec) {
  vb_set *s;
  held_free();
  return held_reading(spec, &s);
}

/* ---- the summary printed by --dry-run and after recording ---- */

static void print_cell(FILE *out, const vb_result *r, const char *metric) {
  const vb_value *v = vb_find_value(r, metric);
  if (v) fprintf(out, "  %10.2f", v->v);
  else fprintf(out, "  %10s", "-");
}

/* A batch timed to its end: SGLang's one-batch benchmarks, vLLM's latency benchmark. */
static int batch_tool(enum vb_tool t) {
  return t == VB_SGLANG_ONE_BATCH || t == VB_SGLANG_ONE_BATCH_LOCAL || t == VB_VLLM_LATENCY;
}

static void print_serving_rows(FILE *out, const vb_set *s) {
  fprintf(out, "%-28s  %9s  %10s  %10s  %10s  %10s  %10s\n", "case", "requests", "req/s",
          "out tok/s", "TTFT p50", "TPOT p50", "ITL p50");
  for (size_t i = 0; i < s->n; i++) {
    const vb_result *r = &s->r[i];
    if (batch_tool(r->tool)) continue;
    const vb_value *done = vb_find_value(r, "completed");
    char req[32];
    if (r->requests) snprintf(req, sizeof req, "%lld/%lld", (long long)r->succeeded, (long long)r->requests);
    else if (done) snprintf(req, sizeof req, "%.0f", done->v);
    else snprintf(req, sizeof req, "-"); /* SGLang's July 2024 lines count no requests */
    fprintf(out, "%-28s  %9s", r->case_name, req);
    print_cell(out, r, "request_throughput");
    print_cell(out, r, "output_throughput");
    print_cell(out, r, "median_ttft_ms");
    print_cell(out, r, "median_tpot_ms");
    print_cell(out, r, "median_itl_ms");
    fputc('\n', out);
  }
}

/* One batch timed to its end (sglang.bench_one_batch_server, vllm bench latency): its own
** columns. Output over the whole latency in the first versions, over the time after the last
** first token later. vllm bench latency's batch latency is its iterations' median. */
static void print_batch_rows(FILE *out, const vb_set *s) {
  fprintf(out, "%-30s  %10s  %10s  %10s  %10s  %10s\n", "case", "batch ms", "TTFT last", "prefill/s",
          "decode/s", "total tok/s");
  for (size_t i = 0; i < s->n; i++) {
    const vb_result *r = &s->r[i];
    if (!batch_tool(r->tool)) continue;
    fprintf(out, "%-30s", r->case_name);
    if (r->samples[VB_BATCH].n) {
      xp_stats st;
      xp_stats_compute(r->samples[VB_BATCH].v, r->samples[VB_BATCH].n, &st);
      fprintf(out, "  %10.2f", st.median);
    } else
      print_cell(out, r, "batch_latency_ms");
    print_cell(out, r, "last_ttft_ms");
    print_cell(out, r, "prefill_throughput");
    /* the server's decode window, the in-process benchmark's median step (its mean step before
    ** 2025), or the first versions' output over the whole latency */
    const char *decode = vb_find_value(r, "decode_throughput")          ? "decode_throughput"
                         : vb_find_value(r, "median_decode_throughput") ? "median_decode_throughput"
                         : vb_find_value(r, "mean_decode_throughput")   ? "mean_decode_throughput"
                                                                        : "output_throughput";
    print_cell(out, r, decode);
    print_cell(out, r, "total_token_throughput");
    fputc('\n', out);
  }
}

static void print_summary(FILE *out, const vb_set *s) {
  size_t batches = 0;
  for (size_t i = 0; i < s->n; i++) batches += batch_tool(s->r[i].tool);
  if (batches < s->n) print_serving_rows(out, s);
  if (batches) print_batch_rows(out, s);
  fputs("(latencies in ms, as the benchmark computed them)\n", out);
}

static void print_plan(FILE *out, const vb_set *s, const xp_spec *spec) {
  fprintf(out, "would record one serve_bench run of %s with %zu case%s:\n", set_model(s, spec), s->n,
          s->n == 1 ? "" : "s");
  print_summary(out, s);
}

static int vllm_bench_plan(const xp_spec *spec, FILE *out) {
  vb_set s;
  int rc = take_reading(spec, &s);
  if (rc) return rc;
  print_plan(out, &s, spec);
  set_free(&s);
  return 0;
}

/* Results an earlier import recorded from another file are left out (vb_history.c): where every
** one is, the import is refused before its run is begun; with plan (--dry-run), the plan of those
** it would record, and the warning that names the others. Before the run, the warning is left to
** execute, which leaves them out again, in its own transaction. */
static int vllm_bench_against_history(sqlite3 *db, const xp_spec *spec, FILE *plan) {
  vb_set *held_set, s;
  int rc = plan ? take_reading(spec, &s) : held_reading(spec, &held_set);
  if (rc) return rc;
  if (!plan) { /* the reading stays held, whole, for execute */
    vb_reading *reading = vb_reading_new(held_set->r, held_set->n);
    rc = vb_find_imported(db, NULL, reading, held_set->r, held_set->n, 0);
    vb_reading_free(reading);
    return rc;
  }
  vb_reading *reading = vb_reading_new(s.r, s.n);
  rc = vb_drop_imported(db, NULL, reading, &s.r, &s.n, 1);
  vb_reading_free(reading);
  if (rc == 0) print_plan(plan, &s, spec);
  set_free(&s);
  return rc;
}

/* ---- recording ---- */

/* Run-level facts from every result: one value when they agree, else each distinct value in
** file order, comma-separated (dates of a concurrency sweep, say). */
static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The string field at offset of a result, of result i. */
static const char *result_text(const vb_set *s, size_t i, size_t offset) {
  return *(char *const *)((const char *)&s->r[i] + offset);
}

/* The string at offset that every result names the same, else NULL. */
static const char *named_by_every(const vb_set *s, size_t offset) {
  const char *v = result_text(s, 0, offset);
  for (size_t i = 1; i < s->n && v; i++) {
    const char *o = result_text(s, i, offset);
    if (!o || strcmp(v, o) != 0) v = NULL;
  }
  return v;
}

/* The distinct values of one field over the set's results, sorted and joined by commas: sorted,
** so that several results' dates ("20250901-090000") end with the latest whatever order the
** files were given in (run_measured takes the last), and one set of files names itself alike. */
static char *distinct_values(const vb_set *s, size_t offset) {
  const char **vals = xp_xcalloc(s->n + 1, sizeof *vals);
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++) {
    const char *v = result_text(s, i, offset);
    int seen = !v;
    for (size_t j = 0; j < n && !seen; j++) seen = strcmp(v, vals[j]) == 0;
    if (!seen) vals[n++] = v;
  }
  qsort(vals, n, sizeof *vals, by_text);
  char *joined = NULL;
  for (size_t i = 0; i < n; i++) {
    char *next = joined ? xp_asprintf("%s,%s", joined, vals[i]) : xp_strdup(vals[i]);
    free(joined);
    joined = next;
  }
  free(vals);
  return joined;
}

/* --enable-expert-parallel in the result's --metadata or its sweep's serve overrides. */
static int expert_parallel_on(const vb_result *r) {
  return vb_expert_parallel_on(r->params) || vb_expert_parallel_on(r->server);
}

/* A parallel size of a result: its --metadata's (tp=4, vLLM's own example, or
** tensor_parallel_size=4 as vLLM's CI passes it; pp, pipeline_parallel_size, ...), as a string or
** a number, else the size beside its settings (SGLang's server_info, vLLM's side-file args);
** -1 when none or not a whole number > 0. */
static int64_t result_parallel(const vb_result *r, enum vb_parallel k) {
  /* a sweep's override may spell the argument as its flag, tensor-parallel-size
  ** (ParameterSweepItem of vllm/benchmarks/sweep/param_sweep.py takes either) */
  char dashed[32];
  snprintf(dashed, sizeof dashed, "%s", vb_parallel_arg[k]);
  for (char *c = dashed; *c; c++)
    if (*c == '_') *c = '-';
  const char *const keys[] = {vb_parallel_name[k], vb_parallel_arg[k], dashed};
  for (size_t i = 0; i < 3; i++) {
    int64_t size = vb_parallel_size(cJSON_GetObjectItemCaseSensitive(r->params, keys[i]));
    if (size <= 0) size = vb_parallel_size(cJSON_GetObjectItemCaseSensitive(r->server, keys[i])); /* a sweep's */
    if (size > 0) return size;
  }
  if (k == VB_EP && r->server_parallel[k] <= 0 && expert_parallel_on(r)) {
    /* vLLM's switch: its experts spread over every TP rank of every DP rank */
    const int64_t tp = result_parallel(r, VB_TP), dp = result_parallel(r, VB_DP);
    return tp > 0 ? tp * (dp > 0 ? dp : 1) : -1;
  }
  return r->server_parallel[k];
}

/* --enable-expert-parallel named without a TP (a sweep's override, --metadata): vLLM's EP is
** TP x DP, and the TP is not known; said, rather than the run looking like one without EP. */
static void warn_unsized_ep(const vb_set *s) {
  for (size_t i = 0; i < s->n; i++)
    if (expert_parallel_on(&s->r[i]) && result_parallel(&s->r[i], VB_EP) < 0) {
      xp_warn("%s:%d: enable_expert_parallel without a tensor-parallel size: EP (vLLM's TP x DP) not recorded "
              "(--metadata tp=N says it)", s->r[i].file, s->r[i].line);
      return;
    }
}

/* The parallel sizes every result agrees on, as run metadata: TP in the runs' tp column, PP and
** EP in theirs (and so in the configuration's label, view run_config), DP as metadata "dp"
** (no column holds it). A PP, DP or EP of 1 is no parallelism of that kind, what every result
** that names none ran with: recorded, it would set one configuration apart from itself. */
static int record_parallel(xp_run *run, const vb_set *s) {
  int rc = 0;
  for (int k = 0; k < VB_NPARALLEL && rc == 0; k++) {
    int64_t size = result_parallel(&s->r[0], (enum vb_parallel)k);
    for (size_t i = 1; i < s->n; i++)
      if (result_parallel(&s->r[i], (enum vb_parallel)k) != size) size = -1;
    if (size > (k == VB_TP ? 0 : 1)) rc = xp_run_meta_int(run, vb_parallel_name[k], size, "trace");
  }
  warn_unsized_ep(s);
  return rc;
}

/* SGLang's benchmark names a backend by engine and API: sglang-native, sglang-oai,
** sglang-oai-chat, vllm-chat, lmdeploy-chat; "trt" is TensorRT-LLM (its Triton endpoint). */
static const char *engine_of(const char *backend) {
  static const char *const engines[] = {"vllm", "sglang", "tgi", "lmdeploy", "tensorrt-llm", "deepspeed-mii", NULL};
  if (backend && strcmp(backend, "trt") == 0) return "tensorrt-llm";
  for (int i = 0; backend && engines[i]; i++) {
    size_t n = strlen(engines[i]);
    if (strncmp(backend, engines[i], n) == 0 && (backend[n] == 0 || backend[n] == '-')) return engines[i];
  }
  return NULL;
}

/* The engine a result was measured on: SGLang's offline and in-process one-batch benchmarks
** drive SGLang's own engine (the offline one's backend "engine" or "runtime" names only how),
** vLLM's latency benchmark vLLM's; TensorRT-LLM's client, where the answers carried its
** server's field; the others' backend names it, if anything (vllm bench throughput's: vllm or
** vllm-chat, else hf or mii, not recorded). */
static const char *result_engine(const vb_result *r) {
  if (r->trtllm_server) return "tensorrt-llm"; /* its answers' own field (vb_parse.c take_decoded) */
  if (r->tool == VB_VLLM_LATENCY) return "vllm";
  if (r->tool == VB_TRTLLM_BENCH) return "tensorrt-llm";
  return r->tool == VB_SGLANG_OFFLINE || r->tool == VB_SGLANG_ONE_BATCH_LOCAL ? "sglang" : engine_of(r->backend);
}

/* The server settings of a vllm bench sweep serve point (settle_server_settings left those every
** result shares) as run metadata serve.KEY, the key spelt with underscores whichever spelling
** the sweep file used, so that xp compare lists a point's max_num_seqs against another's as a
** difference of the runs and xp compare --a serve.max_num_seqs=8 selects by it. */
static int record_server_settings(xp_run *run, const vb_set *s) {
  const cJSON *v;
  int rc = 0;
  cJSON_ArrayForEach(v, s->r[0].server) {
    char *key = xp_asprintf("serve.%s", v->string);
    for (char *c = key + 6; *c && *c != '.'; c++) /* a nested config's inner keys as written */
      if (*c == '-') *c = '_';
    char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
    rc = xp_run_meta(run, key, text ? text : v->valuestring, "trace");
    cJSON_free(text);
    free(key);
    if (rc) break;
  }
  return rc;
}

/* The server's dtype settings the results state (the KV cache's, --dtype, --quantization), as
** vllm bench sweep records them among a point's server settings (serve.KEY, a part of the run's
** configuration): each where every result names the same and the sweep's did not. */
static int record_stated_settings(xp_run *run, const vb_set *s) {
  static const struct { const char *key, *dashed; size_t offset; } keys[] = {
      {"kv_cache_dtype", "kv-cache-dtype", offsetof(vb_result, kv_cache_dtype)},
      {"dtype", "dtype", offsetof(vb_result, serve_dtype)},
      {"quantization", "quantization", offsetof(vb_result, serve_quant)}};
  int rc = 0;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0] && rc == 0; k++) {
    const char *v = named_by_every(s, keys[k].offset);
    const int swept = cJSON_HasObjectItem(s->r[0].server, keys[k].key) ||
                      cJSON_HasObjectItem(s->r[0].server, keys[k].dashed);
    char *key = xp_asprintf("serve.%s", keys[k].key);
    if (v && !swept) rc = xp_run_meta(run, key, v, "trace");
    free(key);
  }
  return rc;
}

/* A GPU every result names (trtllm-bench's machine.name, AIPerf's GPU telemetry), and how many ran
** it (trtllm-bench's world_size), as the run's; so the dtype. */
static int record_gpu(xp_run *run, const vb_set *s) {
  const char *gpu = named_by_every(s, offsetof(vb_result, gpu));
  int64_t gpus = s->r[0].gpu_count;
  for (size_t i = 1; i < s->n; i++)
    if (s->r[i].gpu_count != gpus) gpus = -1;
  int rc = gpu ? xp_run_meta(run, "gpu_name", gpu, "trace") : 0;
  if (rc == 0 && gpu && gpus > 0) rc = xp_run_meta_int(run, "gpu_count", gpus, "trace");
  /* and the dtype, where every result names the same (trtllm-bench's, in xp's names) */
  const char *dtype = named_by_every(s, offsetof(vb_result, dtype));
  if (rc == 0 && dtype) rc = xp_run_meta(run, "dtype", dtype, "trace");
  return rc;
}

static int record_meta(xp_run *run, const vb_set *s) {
  static const struct { const char *key; size_t offset; } keys[] = {
      {"model", offsetof(vb_result, model)},
      {"backend", offsetof(vb_result, backend)},
      {"endpoint_type", offsetof(vb_result, endpoint_type)},
      {"tokenizer_id", offsetof(vb_result, tokenizer)},
      {"label", offsetof(vb_result, label)},
      {"date", offsetof(vb_result, date)},
      {"engine_version", offsetof(vb_result, engine_version)},
      {"engine_dtype", offsetof(vb_result, engine_dtype)},
      {"engine_quantization", offsetof(vb_result, engine_quant)}};
  int rc = record_gpu(run, s);
  for (size_t k = 0; k < sizeof keys / sizeof keys[0] && rc == 0; k++) {
    char *v = distinct_values(s, keys[k].offset);
    if (v) rc = xp_run_meta(run, keys[k].key, v, "trace");
    free(v);
  }
  /* The run's concurrency only when every case shares it; otherwise it is per case. */
  int64_t c = s->r[0].max_concurrency;
  for (size_t i = 1; i < s->n; i++)
    if (s->r[i].max_concurrency != c) c = -1;
  if (rc == 0 && c > 0) rc = xp_run_meta_int(run, "concurrency", c, "trace");
  /* the engine, where the benchmark's backend names one (vllm, sglang, tgi, lmdeploy,
  ** tensorrt-llm); "openai" and "openai-chat" name only the API */
  const char *engine = result_engine(&s->r[0]);
  for (size_t i = 1; i < s->n && engine; i++) {
    const char *e = result_engine(&s->r[i]);
    if (!e || strcmp(e, engine) != 0) engine = NULL;
  }
  if (rc == 0 && engine) rc = xp_run_meta(run, "engine", engine, "trace");
  if (rc == 0) rc = record_server_settings(run, s);
  if (rc == 0) rc = record_stated_settings(run, s);
  return rc ? rc : record_parallel(run, s);
}

static int record_result(xp_run *run, const vb_result *r) {
  /* every request failed: the case is failed, and vLLM's latency placeholders were not kept */
  const int none = r->completed == 0;
  /* genai-perf counted no requests before its request_count (triton-inference-server/perf_analyzer
  ** PR 231, Dec. 2024), nor wrote the duration they were measured over: request_throughput times
  ** a duration would be a count, but neither the duration nor an exact product is in the file,
  ** so how many requests the case measured is not known, and the case says so */
  const char *note = none ? "no request completed"
                     : r->tool == VB_SUMMARY_EXPORT && r->completed < 0
                         ? "requests not counted: a genai-perf export from before its request_count (Dec. 2024) "
                           "writes no count and no duration to derive one from"
                         : NULL;
  int64_t case_id = xp_run_case(run, r->case_name, r->params, none ? "failed" : "ok", note);
  if (case_id < 0) return XP_EXIT_DB;
  int rc = 0;
  for (size_t i = 0; i < r->nvalues && rc == 0; i++)
    rc = xp_run_value(run, case_id, r->values[i].metric, r->values[i].unit, r->values[i].v);
  for (int k = 0; k < VB_NSAMPLES && rc == 0; k++)
    if (r->samples[k].n)
      rc = xp_run_metric(run, case_id, vb_sample_metric[k], "ms", r->samples[k].v, r->samples[k].n);
  return rc;
}

/* The result files themselves, as they were read, so that anything xp does not extract stays
** available. Read again here, a pipe (<(ssh host cat f.json)) was kept empty, and a file
** written over since kept as other bytes than its results'. */
static int keep_files(xp_run *run, const xp_spec *spec, const vb_set *s) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(spec->root, "files"), *f;
  int i = 0, rc = 0;
  cJSON_ArrayForEach(f, files) {
    const char *base = strrchr(f->valuestring, '/');
    char *name = xp_asprintf("vllm-bench/%d-%s", i, base ? base + 1 : f->valuestring);
    rc = xp_run_artifact(run, name, "application/json", s->text[i], s->len[i]);
    free(name);
    if (rc || ++i == s->nfiles) break;
  }
  return rc;
}

/* A vllm bench serve result read as a timed_trace replay though it names none (vb_parse.c
** spread_out): said, with why, so that a case rate=trace is not taken for a setting of the file. */
static void warn_spread_replay(const vb_set *s) {
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].spread_replay)
      xp_warn("%s:%d: request_rate inf and no max_concurrency, yet at most %g of its %lld requests were in flight "
              "at once (max_concurrent_requests): not sent at once, so a vllm bench serve --dataset-name timed_trace "
              "replay at the trace's timestamps (the result names neither); case rate=trace", s->r[i].file,
              s->r[i].line, vb_find_value(&s->r[i], "max_concurrent_requests")->v, (long long)s->r[i].completed);
}

/* A result whose output count was no count (vb_parse.c drop_uncounted_output, vLLM's one-token
** fallback; drop_unreturned_output, SGLang's lengths asked for) is recorded without it: said once
** a result, when recording, so that a case without output throughput is not taken for a file
** that lacks it. */
static void warn_uncounted_output(const vb_set *s) {
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].unstreamed)
      xp_warn("%s:%d: no gap timed between tokens though answers were longer than one (sglang.bench_serving "
              "--disable-stream): each came in one chunk, so its TTFT is the whole answer's time and TPOT no "
              "measurement; TPOT not recorded", s->r[i].file, s->r[i].line);
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].output_uncounted == VB_UNCOUNTED_NO_TEXT)
      xp_warn("%s:%d: total_output_tokens_retokenized 0: no request returned text, so sglang.bench_serving counted "
              "each the output length it asked for and timed no token; total_output_tokens, output_throughput, "
              "total_token_throughput and TPOT not recorded", s->r[i].file, s->r[i].line);
    else if (s->r[i].output_uncounted == VB_UNCOUNTED_FALLBACK)
      xp_warn("%s:%d: tokenizer_id null (vllm bench serve --skip-tokenizer-init) and one output token counted a "
              "request though more were timed (inter-token gaps, or max_output_tokens_per_s above the count): the "
              "requests reported no usage and vLLM counted each 1; total_output_tokens, output_throughput and "
              "total_token_throughput (and --record-power's tokens a joule, the GPU energy's joules an output token) not recorded",
              s->r[i].file, s->r[i].line);
}

/* sglang.bench_one_batch_server --profile runs every batch again under the profiler, after the
** measured ones, and appends those slower runs to the same --result-filename (run_benchmark of
** python/sglang/benchmark/one_batch_server.py, commit 0184a62; bench_one_batch_server.py since
** b23a42f). Their lines carry no key that says so (dump_to_jsonl leaves profile_link out), and a
** second run of the tool appended to the file repeats its batches alike: the lines cannot be
** told apart, and xp compare pools a repeat with the first as one case. Said once, with the lines to keep
** if the file is of a --profile run. */
static void warn_batch_repeated(const vb_set *s) {
  for (size_t i = 0; i < s->n; i++)
    for (size_t j = 0; j < i; j++) {
      const vb_result *a = &s->r[j], *b = &s->r[i];
      if (b->tool != VB_SGLANG_ONE_BATCH || a->tool != b->tool || a->listed || b->listed ||
          strcmp(a->file, b->file) != 0 || strcmp(a->case_name, b->case_name) != 0)
        continue;
      xp_warn("%s:%d: %s again (line %d): xp compare pools the two; sglang.bench_one_batch_server --profile appends each "
              "batch's profiled run after the measured ones, and no key tells them apart: for such a file, import "
              "its first %d lines", b->file, b->line, b->case_name, a->line, b->index);
      return;
    }
}

/* Results pasted into their file twice (vb_parse.c drop_repeats), counted once: said once a file,
** as the file given still holds the copies. */
static void warn_repeats(const vb_set *s) {
  const char *said = NULL;
  for (size_t i = 0; i < s->n; i++) {
    const vb_result *r = &s->r[i];
    if (!r->repeats || (said && strcmp(said, r->file) == 0)) continue;
    int more = r->repeats - 1;
    for (size_t j = i + 1; j < s->n && strcmp(s->r[j].file, r->file) == 0; j++) more += s->r[j].repeats;
    char others[64] = "";
    if (more) snprintf(others, sizeof others, " (and %d more repeat%s)", more, more == 1 ? "" : "s");
    xp_warn("%s:%d: result %d is result %d (line %d) again, value for value (pasted into the file twice?): counted "
            "once%s", r->file, r->repeat_line, r->repeat_index + 1, r->index + 1, r->line, others);
    said = r->file;
  }
}

/* The keys of a vb_nonfinite, "a, b, c"; malloc'd. */
static char *nonfinite_keys(const vb_nonfinite *n) {
  char *keys = xp_strdup("");
  const cJSON *k;
  cJSON_ArrayForEach(k, n->keys) {
    char *next = xp_asprintf("%s%s%s", keys, *keys ? ", " : "", k->valuestring);
    free(keys);
    keys = next;
  }
  return keys;
}

/* The values a result gave as infinite or NaN (vb_parse.c note_nonfinite), left out: each kind
** said at its first one's line, as nccl-tests' "inf" bandwidth is said, where the case was
** recorded without them and no word (xp report: "no serving benchmarks yet" where
** output_throughput was the one; the per-request samples a few short). */
static void warn_nonfinite(const vb_set *s) {
  static const char *const what[VB_NONFINITE_KINDS] = {
      [VB_INFINITE] = "infinite (Infinity, or a number past a double's range such as 1e999): no value",
      [VB_NAN] = "not a number (NaN): no value",
      [VB_ENTRIES] = "infinite or not a number (Infinity, NaN)"};
  for (size_t i = 0; i < s->n; i++) {
    const vb_result *r = &s->r[i];
    for (int k = 0; k < VB_NONFINITE_KINDS; k++) {
      const vb_nonfinite *n = &r->nonfinite[k];
      if (!n->keys) continue;
      char *keys = nonfinite_keys(n);
      if (k == VB_ENTRIES)
        xp_warn("%s:%d: %s: %ld entr%s %s: no sample, left out of case %s", r->file, n->line, keys, n->count,
                n->count == 1 ? "y" : "ies", what[k], r->case_name);
      else
        xp_warn("%s:%d: %s %s, not recorded in case %s", r->file, n->line, keys, what[k], r->case_name);
      free(keys);
    }
  }
}

static int vllm_bench_execute(xp_ctx *ctx) {
  vb_set s;
  int rc = take_reading(ctx->spec, &s);
  if (rc) return rc;
  vb_reading *reading = vb_reading_new(s.r, s.n); /* every result read, before any is left out */
  rc = vb_drop_imported(ctx->db, xp_run_uuid(ctx->run), reading, &s.r, &s.n, 1);
  if (rc) {
    vb_reading_free(reading);
    set_free(&s);
    return rc;
  }
  warn_uncounted_output(&s);
  warn_spread_replay(&s);
  warn_batch_repeated(&s);
  warn_repeats(&s);
  warn_nonfinite(&s);
  rc = record_meta(ctx->run, &s);
  if (rc == 0) rc = vb_record_reading(ctx->run, reading);
  vb_reading_free(reading);
  for (size_t i = 0; i < s.n && rc == 0; i++) rc = record_result(ctx->run, &s.r[i]);
  if (rc == 0) rc = keep_files(ctx->run, ctx->spec, &s);
  if (rc == 0 && !ctx->quiet) print_summary(ctx->out, &s);
  set_free(&s);
  return rc;
}

const xp_kind xp_kind_vllm_bench = {
    .name = "vllm_bench",
    .summary = "import serving benchmarks (vllm bench serve --save-result JSON, sglang.bench_serving JSONL, "
               "vLLM's .pytorch.json, genai-perf's and AIPerf's profile exports, trtllm-bench reports)",
    .fields = vllm_bench_fields,
    .needs_gpu = 0,
    .check = vllm_bench_check,
    .plan = vllm_bench_plan,
    .execute = vllm_bench_execute,
    .against_history = vllm_bench_against_history,
    .import_name = "vllm-bench",
    .records_as = "serve_bench",
    .show = vb_show_digests,
    /* what a result's keys become, where a user looks first (README holds the whole of it) */
    .notes = "A case per load (concurrency=N, rate=R, offline, batch=B,input=I,output=O); the load's\n"
             "  settings (dataset and its lengths, num_prompts, burstiness, ...) are the case's params.\n"
             "  vllm bench serve's --metadata tp=N (pp, dp, ep) names the parallel sizes (xp's own:\n"
             "  --set tp=N). A vllm bench serve --dataset-name timed_trace replay is case rate=trace\n"
             "  (--metadata dataset_name=timed_trace says so; without it, a rate inf result whose peak\n"
             "  in flight is below its completed requests, with a warning).\n"
             "  The server's settings are the run's metadata: a vllm bench sweep serve point's\n"
             "  --serve-params as serve.KEY (max_num_seqs, ...), the KV cache's dtype (not auto) as\n"
             "  serve.kv_cache_dtype, the server's --dtype and --quantization (not auto, not null) as\n"
             "  serve.dtype and serve.quantization. A goodput's SLO targets, where the file names them\n"
             "  (a .pytorch.json's args, genai-perf's and AIPerf's input_config), are the case's goodput.\n"
             "  Besides vLLM's latencies and throughputs: speculative decoding's acceptance at each\n"
             "  draft position (spec_decode_position_I_acceptance_rate, %, I from 0), NVML energy\n"
             "  (gpu_energy_j, gpu_avg_power_w, ...), --record-power's power, AIPerf's\n"
             "  total_gpu_energy (J) and total_gpu_power (W) and its energy ratios in the unit each\n"
             "  states (output_tokens_per_joule tok/J, energy_per_output_token mJ/tok, ...; nvidia_,\n"
             "  amd_ too).\n",
};
