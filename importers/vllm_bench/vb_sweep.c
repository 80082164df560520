/*
** Which side of vllm bench sweep serve an override of a run file came from.
**
** run_benchmark of vllm/benchmarks/sweep/serve.py (vllm-project/vllm commit 0031557) reads back
** the file vllm bench serve wrote and adds, in order, run_number, the point's --serve-params
** override (run_data.update(serve_overrides)) and its --bench-params override (update again):
** one flat object, no boundary. A bench override the result holds already (max_concurrency,
** num_prompts, request_rate) keeps its place before run_number; the others follow the serve
** ones. The folder SERVE-<serve>-BENCH-<bench> says which is which, but a file copied or
** renamed does not carry it, and its text is sanitize_filename's of Python's str() of values.
**
** What does tell them apart: apply_to_cmd (param_sweep.py) hands every bench override to the
** bench command as --KEY VALUE, and vllm bench serve's parser refuses an argument it does not
** know, so a run that wrote a result had only its own arguments as bench overrides; the serve
** overrides went to vllm serve. A key that is not one of vllm bench serve's arguments is a
** server setting. A key that is one of them (model, tokenizer, seed, served_model_name: both
** commands take them) stays a setting of the case: read as the workload it can keep two points
** apart that are one workload, but never make one of two workloads. So does _benchmark_name,
** the name a dict-form sweep file gives a point of either side.
**
** The list: add_cli_args of vllm/benchmarks/serve.py (commit 009e6d4) and add_dataset_parser of
** vllm/benchmarks/datasets.py (commit 0056b87), the names in the spelling argparse gives them
** (dashes as underscores), and the few the same files read from args elsewhere
** (trust_remote_code, common_prefix_len) or older versions took (best_of, dataset). A bench
** argument that vLLM adds later and this list lacks would be read as a server setting: it is
** then run metadata (serve.KEY) that xp compare lists as a difference, not hidden.
*/
#include <string.h>
#include "vb_parse.h"

static const char *const bench_args[] = {
    /* vllm/benchmarks/serve.py add_cli_args */
    "label", "backend", "base_url", "host", "port", "endpoint", "header", "max_concurrency", "model",
    "input_len", "output_len", "tokenizer", "tokenizer_mode", "use_beam_search", "logprobs", "request_rate",
    "burstiness", "probe_request_rate", "disable_tqdm", "num_warmups", "profile", "save_result", "save_detailed",
    "append_result", "metadata", "result_dir", "result_filename", "ignore_eos", "self_timed", "percentile_metrics",
    "metric_percentiles", "goodput", "request_id_prefix", "top_p", "top_k", "min_p", "temperature",
    "frequency_penalty", "presence_penalty", "repetition_penalty", "served_model_name", "lora_modules",
    "lora_assignment", "ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps", "ready_check_timeout_sec",
    "chat_template_kwargs", "extra_body", "skip_tokenizer_init", "insecure", "plot_timeline",
    "timeline_itl_thresholds", "plot_dataset_stats",
    /* vllm/benchmarks/datasets.py add_dataset_parser */
    "seed", "num_prompts", "dataset_name", "no_stream", "dataset_path", "no_oversample", "skip_chat_template",
    "disable_shuffle", "custom_output_len", "spec_bench_output_len", "spec_bench_category", "sonnet_input_len",
    "sonnet_output_len", "sonnet_prefix_len", "sharegpt_output_len", "blazedit_min_distance",
    "blazedit_max_distance", "random_input_len", "random_output_len", "random_range_ratio", "random_prefix_len",
    "random_batch_size", "no_reranker", "random_mm_base_items_per_request", "random_mm_num_mm_items_range_ratio",
    "random_mm_limit_mm_per_prompt", "txt_slices_input_len", "txt_slices_output_len", "random_mm_bucket_config",
    "hf_subset", "hf_split", "hf_name", "hf_output_len", "prefix_repetition_prefix_len",
    "prefix_repetition_suffix_len", "prefix_repetition_num_prefixes", "prefix_repetition_output_len",
    /* read from args by the same files; older versions' */
    "trust_remote_code", "common_prefix_len", "best_of", "dataset",
    /* either side's name of a point (ParameterSweep.read_from_dict) */
    "_benchmark_name", NULL};

int vb_bench_arg(const char *key) {
  char name[64];
  size_t n = strcspn(key, "."); /* a nested config's key: its argument is before the dot */
  if (n >= sizeof name) return 0;
  for (size_t i = 0; i < n; i++) name[i] = key[i] == '-' ? '_' : key[i]; /* either spelling */
  name[n] = 0;
  for (size_t i = 0; bench_args[i]; i++)
    if (strcmp(bench_args[i], name) == 0) return 1;
  return 0;
}
