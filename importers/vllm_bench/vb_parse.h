/*
** Reading vLLM serving-benchmark results: the JSON that `vllm bench serve --save-result`
** writes (vllm/benchmarks/serve.py) and the older benchmarks/benchmark_serving.py output.
** A file holds one result object, or several separated by newlines (--append-result).
**
** Each object becomes one vb_result: its traffic settings (the case), the values vLLM
** computed (throughputs, latency statistics), and the per-request timings when the file has
** them, converted to milliseconds so they sit beside vLLM's own *_ms statistics.
*/
#ifndef XP_VB_PARSE_H
#define XP_VB_PARSE_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

typedef struct vb_value {
  char *metric;     /* vLLM's key, with "request_goodput:" spelled "request_goodput" */
  const char *unit; /* "ms", "req/s", "tok/s", ... ; "" when vLLM's key does not say */
  double v;
} vb_value;

typedef struct vb_samples {
  double *v;
  size_t n;
} vb_samples;

/* Per-request timings, in milliseconds, of the requests that succeeded; and the latency of each
** iteration of a batch timed again and again (vllm bench latency), in milliseconds. */
enum vb_sample_kind { VB_TTFT, VB_TPOT, VB_ITL, VB_E2EL, VB_BATCH, VB_NSAMPLES };
extern const char *const vb_sample_metric[VB_NSAMPLES]; /* "ttft_ms", ..., "batch_latency_ms" */

/* Which tool wrote a result: a serving benchmark (vLLM's or SGLang's client), one of SGLang's
** batch tools (vb_tools.c), or vLLM's throughput or latency benchmark (their .pytorch.json side
** file, vb_pytorch.c), the last read as serve_bench cases under the serving benchmarks' names. */
enum vb_tool { VB_SERVE, VB_SGLANG_OFFLINE, VB_SGLANG_ONE_BATCH, VB_SGLANG_ONE_BATCH_LOCAL, VB_VLLM_THROUGHPUT,
               VB_VLLM_LATENCY, VB_SUMMARY_EXPORT, VB_TRTLLM_BENCH, VB_NTOOLS };
extern const char *const vb_tool_name[VB_NTOOLS]; /* "sglang.bench_offline_throughput", ...; NULL */

/* The parallel sizes a result can name, as xp records them (run metadata "tp", "pp", "dp",
** "ep"): tensor, pipeline, data and expert parallel. */
enum vb_parallel { VB_TP, VB_PP, VB_DP, VB_EP, VB_NPARALLEL };
extern const char *const vb_parallel_name[VB_NPARALLEL]; /* "tp", "pp", "dp", "ep" */
extern const char *const vb_parallel_arg[VB_NPARALLEL];  /* "tensor_parallel_size", ... */
/* A parallel size as a result writes it (a number, or --metadata's string of one): a whole
** number from 1 to 1e6, else -1. */
int64_t vb_parallel_size(const cJSON *v);
int64_t vb_parallel_text(const char *s); /* the same of a string (NULL: none) */
/* Whether vLLM's --enable-expert-parallel (a switch, no size) is on in o: true, or --metadata's
** string of it ("true", "True", "1"); its EP size is then TP x DP. */
int vb_expert_parallel_on(const cJSON *o);

/* Values a result gives that are no numbers (vb_parse.c note_nonfinite), left out, and said by
** the import: metrics infinite, metrics NaN, and entries of the per-request lists either. */
enum { VB_INFINITE, VB_NAN, VB_ENTRIES, VB_NONFINITE_KINDS };
typedef struct vb_nonfinite {
  cJSON *keys; /* the keys, in the order met; NULL where none */
  int line;    /* the first one's line */
  long count;  /* VB_ENTRIES: the entries left out, over all the lists */
} vb_nonfinite;

typedef struct vb_result {
  char *file;            /* path as given */
  int index;             /* 0-based position of the object in the file */
  int listed;            /* an entry of a JSON list of results (summary.json, one_batch_server's
                         ** --output-path), not an object or line of its own */
  int side;              /* rebuilt from a .pytorch.json side file (vb_pytorch.c) */
  enum vb_tool tool;
  int line;              /* line where the object starts */
  char sum[65];          /* SHA-256 of the object as read (its JSON printed again, unformatted):
                         ** the same result in two files reads alike whatever their indent */
  int repeats;           /* copies of it later in its file, value for value, left out (pasted */
  int repeat_line, repeat_index; /* twice: vb_parse.c drop_repeats); the first one's line, index */
  char *model;           /* model_id */
  char *backend, *endpoint_type, *tokenizer, *label, *date; /* NULL when absent or null */
  char *engine_version;  /* benchmark_serving.py 2024's --version; NULL when absent or "N/A" */
  int64_t max_concurrency; /* -1 when unset (null) */
  int64_t server_parallel[VB_NPARALLEL]; /* the sizes the result names beside its settings:
                           ** SGLang's server_info tp_size, pp_size, dp_size, ep_size, the vLLM side
                           ** file's args.tensor_/pipeline_/data_parallel_size (throughput,
                           ** latency); -1 where none */
  double request_rate;   /* INFINITY for "inf"; NAN when absent */
  char *case_name;       /* "concurrency=8", "rate=4", "rate=inf", "ramp=linear:1-10" */
  cJSON *params;         /* object of scalars describing the case */
  cJSON *server;         /* vllm bench sweep serve's server settings (--serve-params: max_num_seqs,
                         ** ...), told from the case's by vb_bench_arg; run metadata, not the
                         ** workload. Empty for any other file */
  vb_value *values;
  size_t nvalues;
  vb_samples samples[VB_NSAMPLES];
  int64_t requests;      /* per-request entries in the file (0 without --save-detailed) */
  int64_t succeeded;
  int64_t completed;     /* vLLM's count; 0: every request failed, so no latency was measured */
  double prompt_tokens;  /* input_lens summed over the requests that succeeded; NAN without it */
  int64_t one_counted_gaps; /* requests that succeeded counted one output token (output_lens) though
                         ** gaps between their chunks were timed (itls): vLLM's count without usage */
  enum { VB_COUNTED, VB_UNCOUNTED_FALLBACK, VB_UNCOUNTED_NO_TEXT } output_uncounted;
                         /* why the output count and its throughputs were not kept: vllm bench serve
                         ** --skip-tokenizer-init counted each request one token (no usage
                         ** reported); no request of sglang.bench_serving returned text */
  int trtllm_server;     /* the responses carried TensorRT-LLM's avg_decoded_tokens_per_iter, a field
                         ** of its servers' answers alone: the engine, where the backend names an API */
  int unstreamed;        /* sglang.bench_serving --disable-stream: each answer one chunk, TTFT its
                         ** latency, no TPOT (vb_parse.c unstreamed_sglang) */
  char *gpu;             /* the GPU a result names (trtllm-bench's machine.name), NULL where none */
  int64_t gpu_count;     /* and how many ran it (its world_info.world_size), -1 where none */
  char *dtype;           /* the dtype a result names in xp's spelling (trtllm-bench's engine.dtype and
                         ** quantization, vb_trtllm.c), NULL where none or none means the same */
  char *engine_dtype;    /* and the report's own: engine.dtype, engine.quantization ("None" where */
  char *engine_quant;    /* unquantized), NULL where it names none */
  char *kv_cache_dtype;  /* the KV cache's dtype a result names where not the model's own (vLLM's
                         ** --kv-cache-dtype in a .pytorch.json's args, SGLang's server_info, trtllm-bench's
                         ** engine.kv_cache_dtype; vb_parse.c vb_server_setting), NULL where none or auto */
  char *serve_dtype;     /* the server's --dtype and --quantization as a result states them */
  char *serve_quant;     /* (SGLang's server_info, vLLM's .pytorch.json args), NULL where auto or
                         ** null: settings, not the GEMMs' precision (a checkpoint's own
                         ** quantization_config applies with null; SGLang writes bfloat16 for
                         ** gpt-oss's MXFP4) */
  int spread_replay;     /* vllm bench serve at rate "inf" with no max_concurrency whose requests were
                         ** not all in flight at once: a timed_trace replay no key names
                         ** (vb_parse.c spread_out) */
  /* The keys of the metrics the result gives as infinite (Python's Infinity, or a number past a
  ** double's range: 1e999), and as NaN, not recorded; NULL where none. */
  vb_nonfinite nonfinite[VB_NONFINITE_KINDS];
} vb_result;

/* Read every result object of a file. Bad input is reported as one line,
** "xp: FILE:LINE: what is wrong", and XP_EXIT_USAGE is returned with nothing in *out. */
int vb_parse_file(const char *path, vb_result **out, size_t *n);
/* The same, the file's bytes as read into *kept (*kept_len) where it parsed: what the import
** keeps of it is what it read, once (a pipe, <(ssh host cat f.json), reads once). */
int vb_parse_file_kept(const char *path, char **kept, size_t *kept_len, vb_result **out, size_t *n);
/* The same over text already in memory (tests); label names it in messages. */
int vb_parse_text(const char *label, const char *text, size_t len, vb_result **out, size_t *n);
void vb_results_free(vb_result *r, size_t n);
/* Tell the other tools' results (vb_tools.c) from the serving benchmarks', in o itself: refuse
** (one line, XP_EXIT_USAGE) those that say too little to be recorded, rename the keys of those
** read to the serving benchmarks' names and units, and say which tool wrote it. */
int vb_tool_read(const char *label, long line, cJSON *o, enum vb_tool *tool);
/* genai-perf's or AIPerf's profile export (vb_summary.c), o, rewritten in place as the vllm bench
** serve result of the same measurement; bad input is one line and XP_EXIT_USAGE. */
int vb_summary_read(const char *label, long line, cJSON *o);
/* xp's unit of an AIPerf energy metric the rewritten export carries (total_gpu_energy "J",
** output_tokens_per_joule "tok/J", nvidia_ and amd_ ones ...), NULL for any other key. */
const char *vb_summary_unit(const char *key);
/* The SLO targets a goodput was counted against (vLLM's args' ["ttft:60", "tpot:15"], genai-perf's
** and AIPerf's {"time_to_first_token": 100}) as a case setting: the JSON text of a sorted list of
** "metric:value" (ms for a latency) in vLLM's names, a new string; NULL for another form or none. */
char *vb_goodput_targets(const cJSON *v);
/* trtllm-bench's --report_json (vb_trtllm.c), the same; and xp's unit of a speculative-decoding
** statistic it carries (mean_acceptance_length "tokens", p99_draft_acceptance_rate "%", ...), NULL
** for any other key. */
const char *vb_trtllm_unit(const char *key);
int vb_trtllm_read(const char *label, long line, cJSON *o);
/* For those two: a number into the object being built, where finite and not there yet; and the
** object built (flat, taken) in place of o's keys. */
void vb_flat_number(cJSON *flat, const char *key, double v);
void vb_flat_replace(cJSON *o, cJSON *flat);
/* A .pytorch.json of vLLM's benchmarks (vb_pytorch.c): its list of records (the file's one JSON
** value, at line) checked and made one result object in the serving names, for the reader of
** the other formats; bad input is one line and XP_EXIT_USAGE, nothing in *out. */
typedef struct vb_side {
  cJSON *flat;                  /* the result object (the caller's to free) */
  enum vb_tool tool;            /* VB_SERVE, VB_VLLM_THROUGHPUT or VB_VLLM_LATENCY */
  int64_t parallel[VB_NPARALLEL]; /* args.tensor_, pipeline_, data_parallel_size (throughput,
                                ** latency), else -1 */
  const cJSON *batch_latencies; /* latency: each iteration's (s), in list */
  const char *kv_cache_dtype;   /* throughput, latency: args.kv_cache_dtype as written, in list */
  const char *dtype;            /* and args.dtype, args.quantization */
  const char *quantization;
} vb_side;
int vb_pytorch_read(const char *label, long line, const cJSON *list, vb_side *out);
/* Whether a key vllm bench sweep serve added to a run file names an argument of vllm bench serve
** (either spelling, max_concurrency or max-concurrency; a nested key by its part before the dot):
** a bench override, a setting of the case; any other key is a server setting (vb_sweep.c). */
int vb_bench_arg(const char *key);
/* A server's dtype setting (the KV cache's, the model's --dtype, --quantization) as a result writes
** it, as xp records it (lower case: TensorRT-LLM's QuantAlgo "FP8" is vLLM's --kv-cache-dtype
** fp8), a new string; NULL for none, "auto" and "None" (the model's own). */
char *vb_server_setting(const char *written);
/* A value by metric name, or NULL. */
const vb_value *vb_find_value(const vb_result *r, const char *metric);
/* What a JSON value is, for messages: "a number", "an array", ...; "nothing" for NULL. */
const char *vb_json_kind(const cJSON *v);
/* Results another import read already from another file (vb_history.c: a sweep point's
** run=N.json that its summary.json lists again, a file's lines before --append-result added to
** it): left out of *r, with a warning naming the run that has them; where every one is, refused
** (one line, XP_EXIT_USAGE). reading: vb_reading_new of the results as read, every one, those
** left out then marked so, which vb_record_reading records as the run's (serve_result_digests)
** for the next import. uuid: this import's run, or NULL (none begun yet); say: whether to warn of
** those left out where some are new. */
struct xp_run;
struct sqlite3;
typedef struct vb_reading vb_reading;
vb_reading *vb_reading_new(const vb_result *r, size_t n);
void vb_reading_free(vb_reading *rd);
int vb_drop_imported(struct sqlite3 *db, const char *uuid, vb_reading *rd, vb_result **r, size_t *n, int say);
/* The same check, r left whole: only rd marks those an earlier import has (the check before a
** run is begun, whose results execute reads again in its own transaction). */
int vb_find_imported(struct sqlite3 *db, const char *uuid, vb_reading *rd, const vb_result *r, size_t n, int say);
int vb_record_reading(struct xp_run *run, const vb_reading *rd);
/* xp show's and xp export's section of a serving import: its rows of serve_result_digests, each
** result it read (kind.h's show). */
int vb_show_digests(struct sqlite3 *db, int64_t run_id, FILE *out, int fmt, cJSON *json);

#endif
