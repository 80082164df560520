#!/usr/bin/env python3
"""Writes the result files of this folder, one a format (PROVENANCE.md says which source each
mirrors). Python 3 standard library only; the per-request times are made up, every statistic is
computed from them as the writer computes it (numpy's mean, median, population std, linear
percentile), in the writer's units: per-request times in seconds, statistics in ms."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def pct(v, p):
    v = sorted(v)
    k = (len(v) - 1) * p / 100
    i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)


def mean(v):
    return sum(v) / len(v)


def std(v):
    m = mean(v)
    return (sum((x - m) ** 2 for x in v) / len(v)) ** 0.5


def stats(name, v, ps, ms_suffix="_ms"):
    """SGLang's statistics of one latency, seconds in, ms out."""
    v = [x * 1e3 for x in v] or [0.0]
    out = {f"mean_{name}{ms_suffix}": mean(v), f"median_{name}{ms_suffix}": pct(v, 50), f"std_{name}{ms_suffix}": std(v)}
    out.update({f"p{p}_{name}{ms_suffix}": pct(v, p) for p in ps})
    return out


def requests(n, out_len, failed=()):
    """Per-request ttft, itls, latency (s) and output length; a failed request has 0s and []."""
    rows = []
    for i in range(n):
        if i in failed:
            rows.append((0.0, [], 0.0, 0))
            continue
        ttft = 0.030 + 0.004 * i
        itls = [0.011 + 0.0005 * ((i + j) % 5) for j in range(out_len - 1)]
        rows.append((ttft, itls, ttft + sum(itls) + 0.0002, out_len))
    return rows


def sglang_metrics(rows, prompt, duration, ps_e2e, ps_ttft, ps_tpot, ps_itl):
    ok = [r for r in rows if r[3]]
    ttfts, lat = [r[0] for r in ok], [r[2] for r in ok]
    itls = [x for r in ok for x in r[1]]
    tpots = [(r[2] - r[0]) / (r[3] - 1) for r in ok if r[3] > 1]
    out_tokens = sum(r[3] for r in ok)
    m = {"duration": duration, "completed": len(ok), "total_input_tokens": prompt * len(ok),
         "total_output_tokens": out_tokens, "total_output_tokens_retokenized": out_tokens - 1,
         "request_throughput": len(ok) / duration, "input_throughput": prompt * len(ok) / duration,
         "output_throughput": out_tokens / duration, "total_throughput": (prompt * len(ok) + out_tokens) / duration}
    m.update(stats("e2e_latency", lat, ps_e2e))
    m.update(stats("ttft", ttfts, ps_ttft))
    m.update(stats("tpot", tpots, ps_tpot))
    m.update(stats("itl", itls, ps_itl))
    m["concurrency"] = sum(lat) / duration
    return m


def details(rows, prompt):
    return {"input_lens": [prompt] * len(rows), "output_lens": [r[3] for r in rows], "ttfts": [r[0] for r in rows],
            "itls": [r[1] for r in rows], "generated_texts": ["x" * r[3] for r in rows],
            "errors": ["" if r[3] else "Internal Server Error" for r in rows]}


def write(name, objs):
    with open(os.path.join(HERE, name), "w") as f:
        for o in objs:
            f.write(json.dumps(o) + "\n")


def args(rate, concurrency, in_len, out_len, dataset="random"):
    return {"backend": "sglang", "dataset_name": dataset, "request_rate": rate, "max_concurrency": concurrency,
            "sharegpt_output_len": None, "random_input_len": in_len, "random_output_len": out_len,
            "random_range_ratio": 0.0}


# SGLang July 2024 (--multi): the eleven keys of the lines posted in sglang PR 685
write("sglang_2024_07.jsonl", [
    {"backend": "sglang", "dataset_name": "sharegpt", "request_rate": r, "total_input": 12040, "total_output": 10512,
     "median_ttft": ttft, "median_itl": itl, "output_token_throughput": thr, "sharegpt_output_len": None,
     "random_input_len": 1024, "random_output_len": 128}
    for r, ttft, itl, thr in ((1, 28.5, 11.75, 161.25), (2, 30.0, 12.5, 309.75))])

# SGLang late July 2024: retokenized count and e2e latency added, still without _tokens/_ms
write("sglang_2024_retok.jsonl", [
    {"backend": "sglang", "dataset_name": "random", "request_rate": 4, "completed": 64, "total_input": 32768,
     "total_output": 8192, "total_output_retokenized": 8177, "mean_e2e_latency": 1893.5, "median_e2e_latency": 1850.25,
     "median_ttft": 41.5, "median_itl": 14.5, "output_token_throughput": 512.0, "sharegpt_output_len": None,
     "random_input_len": 512, "random_output_len": 128, "random_range_ratio": 0.0}])

# SGLang PR 10409's metrics.py (unmerged, 2025): **metrics.__dict__ and a nested "details"
rows = requests(4, 8, failed={2})
m = sglang_metrics(rows, 512, 0.5, [99], [99], [99], [95, 99])
pr = {**args(float("inf"), 4, 512, 8), "duration": m["duration"], "completed": m["completed"],
      "total_input": m["total_input_tokens"], "total_output": m["total_output_tokens"],
      "total_output_retokenized": m["total_output_tokens_retokenized"],
      "request_throughput": m["request_throughput"], "input_throughput": m["input_throughput"],
      "output_throughput": m["output_throughput"],
      "output_throughput_retokenized": m["total_output_tokens_retokenized"] / m["duration"],
      "total_throughput": m["total_throughput"],
      "total_throughput_retokenized": (m["total_input_tokens"] + m["total_output_tokens_retokenized"]) / m["duration"]}
for k in ("ttft", "tpot", "itl"):
    pr.update({x: m[x] for x in m if x.endswith(f"_{k}_ms")})
pr["max_itl_ms"] = max(x for r in rows for x in r[1]) * 1e3
pr.update({x: m[x] for x in m if x.endswith("_e2e_latency_ms")})
pr.update({"concurrency": m["concurrency"], "accept_length": None, "details": details(rows, 512)})
write("sglang_pr10409_details.jsonl", [pr])

# SGLang 2026 (python -m sglang.benchmark.serving, or the sglang.bench_serving shim): p90/p95 of
# every latency; line 1 with --cache-report and --output-details, line 2 a multi-turn
# benchmark (input_requests=None: no prompt counted)
rows = requests(8, 8)
m = sglang_metrics(rows, 512, 0.25, [90, 95, 99], [90, 95, 99], [90, 95, 99], [90, 95, 99])
head = {"tag": None, **args(float("inf"), 8, 512, 8), "server_info": None}
one = {**head, **m, "accept_length": None, "max_output_tokens_per_s": 64.0, "max_concurrent_requests": 8,
       "cache_report": {"total_prompt_tokens": 4096, "total_cached_tokens": 1024, "cache_hit_rate_pct": 25.0,
                        "device_cached_tokens": 1024, "host_cached_tokens": 0, "storage_cached_tokens": None,
                        "storage_backend": None},
       **details(rows, 512), "cached_tokens": [128] * 8, "cached_tokens_details": [None] * 8}
m = sglang_metrics(rows, 0, 0.25, [90, 95, 99], [90, 95, 99], [90, 95, 99], [90, 95, 99])
two = {**head, "backend": "sglang-oai-chat", "dataset_name": "custom", "max_concurrency": 4, **m,
       "accept_length": None, "max_output_tokens_per_s": 64.0, "max_concurrent_requests": 4}
for line in (one, two):  # the input totals by modality (SGLang writes them after total_input_tokens)
    line["total_input_text_tokens"] = line["total_input_tokens"]
    line["total_input_vision_tokens"] = 0
write("sglang_2026.jsonl", [one, two])

# SGLang 2026, a multi-turn benchmark (sglang-oai-chat, a dataset of conversations) with
# --output-details and --cache-report: two conversations of three rounds, each round a request
# of its own whose prompt is the conversation so far (input_lens: the prompt tokens the server
# reported, _record_server_prompt_len); the second conversation's last round failed. Its
# metrics count no prompt (calculate_metrics(input_requests=None)).
rows = requests(6, 8, failed={5})
prompts = [500, 1020, 1540, 520, 1040, 1560]
m = sglang_metrics(rows, 0, 0.5, [90, 95, 99], [90, 95, 99], [90, 95, 99], [90, 95, 99])
sent = sum(p for p, r in zip(prompts, rows) if r[3])
mt = {**head, "backend": "sglang-oai-chat", "dataset_name": "custom", "max_concurrency": 4, **m,
      "total_input_text_tokens": 0, "total_input_vision_tokens": 0, "accept_length": None,
      "max_output_tokens_per_s": 40.0, "max_concurrent_requests": 2,
      "cache_report": {"total_prompt_tokens": sent, "total_cached_tokens": 2900,
                       "cache_hit_rate_pct": round(2900 / sent * 100, 2), "device_cached_tokens": 2900,
                       "host_cached_tokens": 0, "storage_cached_tokens": None, "storage_backend": None},
      **details(rows, 0), "input_lens": prompts, "cached_tokens": [0, 500, 1020, 0, 520, 0],
      "cached_tokens_details": [None] * 6}
write("sglang_2026_multiturn.jsonl", [mt])

# SGLang 2026 with --backend sglang-embedding (PR 20017): no output tokens
emb = {**head, "backend": "sglang-embedding", **sglang_metrics(requests(4, 1), 512, 0.1, [99], [99], [99], [99])}
write("sglang_2026_embedding.jsonl", [emb])

# vLLM 0.3-0.4 benchmarks/benchmark_serving.py --save-result: --version among the setup keys
rows = requests(6, 8)
for version, date in (("0.3.3", "20240305-101500"), ("0.4.0", "20240402-101500")):
    ok = rows
    ttfts = [r[0] * 1e3 for r in ok]
    tpots = [(r[2] - r[0]) / (r[3] - 1) * 1e3 for r in ok]
    d = {"date": date, "backend": "vllm", "version": version, "model_id": "meta-llama/Llama-2-7b-chat-hf",
         "tokenizer_id": "meta-llama/Llama-2-7b-chat-hf", "best_of": 1, "use_beam_search": False, "num_prompts": 6,
         "request_rate": 4.0, "duration": 1.5, "completed": 6, "total_input_tokens": 6 * 512,
         "total_output_tokens": 48, "request_inthroughput": 4.0, "input_throughput": 2048.0,
         "output_throughput": 32.0, "mean_ttft_ms": mean(ttfts), "median_ttft_ms": pct(ttfts, 50),
         "p99_ttft_ms": pct(ttfts, 99), "mean_tpot_ms": mean(tpots), "median_tpot_ms": pct(tpots, 50),
         "p99_tpot_ms": pct(tpots, 99)}
    with open(os.path.join(HERE, f"vllm_{version}.json"), "w") as f:
        json.dump(d, f)

# SGLang python -m sglang.bench_offline_throughput --result-filename (offline_throughput.py of
# sgl-project/sglang commit 2c9d9ef, throughput_test_once): one line a run, the totals of one
# batch of prompts handed to SGLang's Engine; 1000 prompts of 512 tokens, 128 out
lat = 20.0
off = {"backend": "engine", "successful_requests": 1000, "total_latency": lat, "total_input_tokens": 512000,
       "total_output_tokens": 128000, "request_throughput": 1000 / lat, "input_throughput": 512000 / lat,
       "output_throughput": 128000 / lat, "total_throughput": 640000 / lat, "last_gen_throughput": 7012.5}
write("sglang_offline_throughput.jsonl", [off])

# SGLang python -m sglang.bench_one_batch_server --result-filename, two versions: the first
# (2024: output tokens over the whole latency, no first-token time) and that of 2026
# (one_batch_server.py of commit 0184a62, BenchOneCaseResult.dump_to_jsonl: the batch's last
# first token timed, output over the time after it; -1 where the server has no gauge, a vLLM one)
first = []
for bs in (1, 16):
    latency = 0.4 + 0.05 * bs
    first.append({"run_name": "default", "batch_size": bs, "input_len": 1024, "output_len": 16,
                  "latency": round(latency, 4), "output_throughput": round(bs * 16 / latency, 2),
                  "overall_throughput": round(bs * (1024 + 16) / latency, 2)})
write("sglang_one_batch_server_2024.jsonl", first)
later = []
for bs in (1, 16):
    latency, ttft = 0.4 + 0.05 * bs, 0.05 + 0.01 * bs
    later.append({"run_name": "default", "batch_size": bs, "input_len": 1024, "output_len": 16,
                  "latency": round(latency, 4), "input_throughput": round(bs * 1024 / ttft, 2),
                  "output_throughput": round(bs * 16 / (latency - ttft), 2),
                  "overall_throughput": round(bs * (1024 + 16) / latency, 2), "last_ttft": round(ttft, 4),
                  "last_gen_throughput": -1, "acc_length": -1, "total_output_tokens": bs * 16,
                  "num_early_stopped": None, "steady_state_output_throughput": None,
                  "steady_state_window_s": None, "cache_hit_rate": 0.0})
write("sglang_one_batch_server_2026.jsonl", later)

# The same batches as one JSON list (json.dump(indent=2, ensure_ascii=False) of pydantic
# model_dump()s, unrounded): --output-path of bench_one_batch_server.py in 2025 (BenchmarkResult:
# model_path, ttft, acc_length None without speculative decoding, profile_links {extend, decode}
# with --profile) and --pydantic-result-filename since (save_results_as_pydantic_models of
# python/sglang/test/nightly_bench_utils.py, commit 019e2be: last_ttft, profile_link_extend and
# _decode, server_args, the launch arguments SGLang's nightly CI passes with
# --server-args-for-metrics)
def one_batch(bs):
    latency, ttft = 0.4 + 0.05 * bs, 0.05 + 0.01 * bs
    return latency, ttft, {"run_name": "default", "batch_size": bs, "input_len": 1024, "output_len": 16,
                           "latency": latency}


def dump_list(name, objs):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(objs, f, indent=2, ensure_ascii=False)


trace = "/tmp/profiles/Qwen_Qwen3-8B_1767225600/bs-16-il-1024"
listed = []
for bs in (1, 16):
    latency, ttft, head = one_batch(bs)
    listed.append({"model_path": "Qwen/Qwen3-8B", **head, "ttft": ttft, "input_throughput": bs * 1024 / ttft,
                   "output_throughput": bs * 16 / (latency - ttft), "overall_throughput": bs * (1024 + 16) / latency,
                   "last_gen_throughput": 250.0 + bs, "acc_length": None,
                   "profile_links": {"extend": trace + "-extend.trace.json.gz", "decode": trace + "-decode.trace.json.gz"}
                   if bs == 16 else None})
dump_list("sglang_one_batch_server_output_path.json", listed)
listed = []
for bs in (1, 16):
    latency, ttft, head = one_batch(bs)
    listed.append({"model_path": "Qwen/Qwen3-8B", **head, "input_throughput": bs * 1024 / ttft,
                   "output_throughput": bs * 16 / (latency - ttft), "overall_throughput": bs * (1024 + 16) / latency,
                   "last_ttft": ttft, "last_gen_throughput": 250.0 + bs, "acc_length": -1.0,
                   "profile_link_extend": trace + "/TP-0-EXTEND.trace.json.gz" if bs == 16 else None,
                   "profile_link_decode": trace + "/TP-0-DECODE.trace.json.gz" if bs == 16 else None,
                   "server_args": ["--tp", "2", "--trust-remote-code", "--dp-size=2", "--enable-dp-attention"]})
dump_list("sglang_one_batch_server_pydantic.json", listed)

# SGLang python -m sglang.bench_latency --result-filename (2024, the in-process benchmark before
# its rename to bench_one_batch; latency_test_run_once of python/sglang/bench_latency.py, commit
# 001733e): jsonlines' write_all of a line a batch, the decode steps' mean (avg_decode_latency,
# s, and avg_decode_throughput, the batch over it) where later versions write their median, and
# total_throughput where they write overall_throughput; output_len decode steps after the prefill
old_lines = []
for bs in (1, 16):
    prefill, step = 0.03 + 0.0113 * bs, 0.0121 + 0.0002 * bs
    total = prefill + 16 * step
    old_lines.append({"run_name": "before", "batch_size": bs, "input_len": 1024, "output_len": 16,
                      "prefill_latency": prefill, "prefill_throughput": 1024 * bs / prefill,
                      "avg_decode_latency": (total - prefill) / 16, "avg_decode_throughput": bs / ((total - prefill) / 16),
                      "total_latency": total, "total_throughput": (1024 + 16) * bs / total})
write("sglang_bench_latency_2024.jsonl", old_lines)

# vLLM vllm bench throughput / latency --output-json (vllm/benchmarks/throughput.py of commit
# 0202831 and latency.py of 00cae07; benchmarks/benchmark_throughput.py and benchmark_latency.py
# wrote the same keys, but std_latency): json.dump(results, f, indent=4); refused
thr = {"elapsed_time": 20.0, "num_requests": 1000, "total_num_tokens": 640000, "requests_per_second": 50.0,
       "tokens_per_second": 32000.0}
with open(os.path.join(HERE, "vllm_throughput.json"), "w") as f:
    json.dump(thr, f, indent=4)
lats = [0.452, 0.447, 0.461, 0.444, 0.449]
lat = {"avg_latency": mean(lats), "std_latency": std(lats), "latencies": lats,
       "percentiles": {p: pct(lats, p) for p in (10, 25, 50, 75, 90, 99)}}
with open(os.path.join(HERE, "vllm_latency.json"), "w") as f:
    json.dump(lat, f, indent=4)

# vllm bench serve --skip-tokenizer-init --save-result --save-detailed --max-concurrency 4 (serve.py
# of vllm-project/vllm commit 009e6d4): no tokenizer in the client, so main_async writes
# tokenizer_id None, and calculate_metrics counts output_len = 1 for a request whose stream
# carried no usage (output_tokens 0; async_request_openai_completions of
# lib/endpoint_request_func.py records an ITL for every chunk after the first all the same): 4
# requests of 8 tokens each counted 1, total_output_tokens = completed,
# output_throughput = request_throughput, while max_output_tokens_per_s counts every chunk
# timed (start + ttft + each ITL, a 1-s bucket: 32); benchmark() writes no TTFT, TPOT or ITL
# statistics without a tokenizer (`if task_type == TaskType.GENERATION and tokenizer`), and the
# default --percentile-metrics names no other; json.dump without indent; its output count is not
# recorded
ttfts = [0.0312, 0.0335, 0.0348, 0.0361]
chunk_itls = [[0.0101 + 0.0004 * ((i * 7 + j) % 5) for j in range(7)] for i in range(4)]
lats = [t + sum(g) for t, g in zip(ttfts, chunk_itls)]
starts = [100.0, 100.0, 100.0, 100.0]
dur = max(lats)
notok = {"date": "20261202-170000", "endpoint_type": "openai", "backend": "openai", "label": None,
         "model_id": "Qwen/Qwen3-8B", "tokenizer_id": None, "num_prompts": 4, "request_rate": "inf",
         "burstiness": 1.0, "max_concurrency": 4, "duration": dur, "completed": 4, "failed": 0,
         "total_input_tokens": 4 * 512, "total_output_tokens": 4, "request_throughput": 4 / dur,
         "request_goodput": None, "output_throughput": 4 / dur, "total_token_throughput": (4 * 512 + 4) / dur,
         "input_lens": [512] * 4, "output_lens": [1] * 4, "ttfts": ttfts, "itls": chunk_itls, "latencies": lats,
         "start_times": starts, "queue_times": [0.0] * 4, "generated_texts": [""] * 4, "errors": [""] * 4,
         "max_output_tokens_per_s": 32.0, "max_concurrent_requests": 4, "rtfx": 0.0}
with open(os.path.join(HERE, "vllm_skip_tokenizer_init.json"), "w") as f:
    json.dump(notok, f)
# the same run without --save-detailed: main_async deletes input_lens, output_lens, start_times,
# ttfts, itls, generated_texts and errors (latencies and queue_times stay). No list and no
# statistic shows a gap; max_output_tokens_per_s (32 timed in one second, 4 counted in all)
# alone says the count is the fallback's
summary = {k: v for k, v in notok.items()
           if k not in ("input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors")}
with open(os.path.join(HERE, "vllm_skip_tokenizer_init_summary.json"), "w") as f:
    json.dump(summary, f)

# vllm bench sweep startup's run=0.json (vllm/benchmarks/sweep/startup.py of vllm-project/vllm
# commit 0c49662, run_benchmark): the --output-json of vllm bench startup (startup.py of commit
# 045d757: per phase, cold then warm, and per measure, startup then compilation, avg_..._time,
# the iterations' ..._times and numpy's ..._percentiles keyed 10 ... 99, in s) read back,
# run_number and the point's serve and startup overrides added, json.dump(indent=4); refused
def startup_phase(phase, runs):
    out = {}
    for measure, times in runs.items():
        out[f"avg_{phase}_{measure}_time"] = mean(times)
        out[f"{phase}_{measure}_times"] = times
        out[f"{phase}_{measure}_percentiles"] = {str(p): pct(times, p) for p in (10, 25, 50, 75, 90, 99)}
    return out


startup = {**startup_phase("cold", {"startup": [61.2, 58.9, 59.4], "compilation": [31.5, 30.8, 31.1]}),
           **startup_phase("warm", {"startup": [24.1, 23.8, 24.3], "compilation": [6.2, 6.0, 6.1]}),
           "run_number": 0, "max_num_seqs": 8, "num_iters_cold": 3}
with open(os.path.join(HERE, "vllm_sweep_startup_run0.json"), "w") as f:
    json.dump(startup, f, indent=4)


# Their side files, <name>.pytorch.json, written with SAVE_TO_PYTORCH_BENCHMARK_FORMAT=1:
# convert_to_pytorch_benchmark_format and write_to_json of vllm/benchmarks/lib/utils.py (commit
# c400982; benchmarks/benchmark_utils.py before the move): a record a metric, every one with the
# run's vars(args) whole and the same extra_info; InfEncoder writes an infinite float as "inf",
# default= anything not JSON as "<type is not JSON serializable>"; json.dump without indent. The
# args here are a few of the real ones (vllm bench's own, the tool's, some of EngineArgs').
def clear_inf(o):
    if isinstance(o, dict):
        return {k: clear_inf(v) for k, v in o.items()}
    if isinstance(o, list):
        return [clear_inf(v) for v in o]
    return "inf" if isinstance(o, float) and o in (float("inf"), float("-inf")) else o


def write_pytorch(name, args, metrics, extra_info):
    records = []
    for metric, values in metrics.items():
        records.append({"benchmark": {"name": "vLLM benchmark", "extra_info": {"args": args}},
                        "model": {"name": args["model"]},
                        "metric": {"name": metric, "benchmark_values": values, "extra_info": extra_info}})
        if not args.get("tensor_parallel_size") and "tensor_parallel_size" in extra_info:
            args["tensor_parallel_size"] = extra_info["tensor_parallel_size"]
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(clear_inf(records), f, default=lambda o: f"<{type(o).__name__} is not JSON serializable>")


NOT_JSON = "<function is not JSON serializable>"  # args.dispatch_function, as default= writes it
ENGINE = {"tokenizer": None, "tensor_parallel_size": 1, "pipeline_parallel_size": 1, "data_parallel_size": 1,
          "dtype": "auto", "max_model_len": None, "gpu_memory_utilization": 0.9, "enforce_eager": False,
          "enable_prefix_caching": None, "max_num_seqs": None, "quantization": None, "seed": 0}

# vllm bench throughput (throughput.py of commit 0202831, save_to_pytorch_benchmark_format): the
# two rates, extra_info the run's totals; 1000 random prompts of 512 tokens, 128 out, TP 2
write_pytorch("vllm_throughput.pytorch.json",
              {"subparser": "bench", "bench_type": "throughput", "dispatch_function": NOT_JSON, "backend": "vllm",
               "dataset_name": "random", "dataset": None, "dataset_path": None, "input_len": 512, "output_len": 128,
               "n": 1, "num_prompts": 1000, "hf_max_batch_size": None, "output_json": "vllm_throughput.json",
               "async_engine": False, "disable_frontend_multiprocessing": False, "disable_detokenize": False,
               "lora_path": None, "prefix_len": 0, "random_range_ratio": 0.0, "hf_subset": None, "hf_split": None,
               "profile": False, **ENGINE, "model": "Qwen/Qwen3-8B", "tokenizer": "Qwen/Qwen3-8B",
               "tensor_parallel_size": 2},
              {"requests_per_second": [thr["requests_per_second"]], "tokens_per_second": [thr["tokens_per_second"]]},
              {k: thr[k] for k in ("elapsed_time", "num_requests", "total_num_tokens")})

# vllm bench latency (latency.py of commit 00cae07): one record, each iteration's latency of a
# batch of 16 prompts of 1024 tokens, 16 out; extra_info avg, std and percentiles
write_pytorch("vllm_latency.pytorch.json",
              {"subparser": "bench", "bench_type": "latency", "dispatch_function": NOT_JSON, "input_len": 1024,
               "output_len": 16, "batch_size": 16, "n": 1, "use_beam_search": False, "num_iters_warmup": 10,
               "num_iters": 5, "profile": False, "output_json": "vllm_latency.json", "disable_detokenize": False,
               **ENGINE, "model": "Qwen/Qwen3-8B", "enable_prefix_caching": False},
              {"latency": lat["latencies"]}, {k: lat[k] for k in ("avg_latency", "std_latency", "percentiles")})

# vllm bench serve --save-result (serve.py of commit def9ce8, save_to_pytorch_benchmark_format):
# the result of ../serve_c16_goodput.json (--goodput, --metric-percentiles 50,90,99,99.9,
# --metadata tp=2) as that version writes it (no per-request list without --save-detailed, no
# rtfx), a record for each of the twelve statistics of ttft, tpot and itl it has, extra_info the
# rest (its p50/p90/p99.9 too) but ttfts, itls, generated_texts and errors
SERVE_METRICS = ["median_ttft_ms", "mean_ttft_ms", "std_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
                 "std_tpot_ms", "p99_tpot_ms", "median_itl_ms", "mean_itl_ms", "std_itl_ms", "p99_itl_ms"]
with open(os.path.join(HERE, "..", "serve_c16_goodput.json")) as f:
    served = {k: v for k, v in json.load(f).items() if k not in ("latencies", "queue_times", "rtfx")}
write_pytorch("vllm_serve_c16.pytorch.json",
              {"subparser": "bench", "bench_type": "serve", "dispatch_function": NOT_JSON, "num_prompts": 24,
               "dataset_name": "random", "random_input_len": 128, "random_output_len": 8, "backend": "openai",
               "max_concurrency": 16, "model": "Qwen/Qwen3-0.6B", "request_rate": float("inf"),
               "metadata": ["tp=2"], "metric_percentiles": "50,90,99,99.9", "goodput": ["ttft:60", "tpot:15"]},
              {k: [served[k]] for k in SERVE_METRICS if k in served},
              {k: v for k, v in served.items()
               if k not in SERVE_METRICS and k not in ("ttfts", "itls", "generated_texts", "errors")})

# TensorRT-LLM's fork of benchmark_serving.py (python -m tensorrt_llm.serve.scripts.benchmark_serving
# --save-result --save-detailed --percentile-metrics ttft,tpot,itl,e2el --max-concurrency 4, against
# trtllm-serve with MTP: each response's avg_decoded_tokens_per_iter), NVIDIA/TensorRT-LLM commit
# 0228a71: benchmark()'s result ("request_goodput:", user_throughput, the avg_decoded_tokens_per_iter
# object, the per-request latencies as "e2els", no "failed"), then per metric std_, mean_, median_,
# p99_ (process_one_metric; avg_decoded_tokens_per_iter unitless, with min_ and max_), then main()'s
# traffic keys after the result; energy where the server answers /energy_metrics. json.dump, no
# indent.
rows = requests(4, 6, failed=(2,))
ok = [r for r in rows if r[3]]
decoded = [2.5, 2.0, 3.0]  # a successful request's tokens per iteration, as the server returned it
dur, prompt = 0.5, 64
out_tok = sum(r[3] for r in ok)
trt = {"date": "20260301-101500", "backend": "openai", "model_id": "nvidia/DeepSeek-R1-FP4",
       "tokenizer_id": "nvidia/DeepSeek-R1-FP4", "num_prompts": 4, "tp": "8",
       "duration": dur, "completed": len(ok), "total_input_tokens": prompt * len(ok), "total_output_tokens": out_tok,
       "request_throughput": len(ok) / dur, "request_goodput:": None, "output_throughput": out_tok / dur,
       "total_token_throughput": (prompt * len(ok) + out_tok) / dur,
       "user_throughput": mean([r[3] / r[2] for r in ok]),
       "avg_decoded_tokens_per_iter": {"mean": mean(decoded), "min": min(decoded), "max": max(decoded),
                                       "median": pct(decoded, 50), "std": std(decoded),
                                       "percentiles": {"p99.0": pct(decoded, 99)}},
       "input_lens": [prompt] * 4, "output_lens": [r[3] for r in rows], "ttfts": [r[0] for r in rows],
       "itls": [r[1] for r in rows], "e2els": [r[2] for r in rows], "generated_texts": ["x" * r[3] for r in rows],
       "errors": ["" if r[3] else "Internal Server Error" for r in rows],
       # trtllm-serve's /energy_metrics before and after: 150 J over queries 0.52 s apart
       "energy": {"total_energy_j": 150.0, "output_tps_per_w": out_tok / 150.0, "total_gpu_power_w": 150.0 / 0.52}}
trt.update({"std_avg_decoded_tokens_per_iter": std(decoded), "min_avg_decoded_tokens_per_iter": min(decoded),
            "max_avg_decoded_tokens_per_iter": max(decoded), "mean_avg_decoded_tokens_per_iter": mean(decoded),
            "median_avg_decoded_tokens_per_iter": pct(decoded, 50), "p99_avg_decoded_tokens_per_iter": pct(decoded, 99)})
for name, v in (("ttft", [r[0] for r in ok]), ("tpot", [(r[2] - r[0]) / (r[3] - 1) for r in ok]),
                ("itl", [x for r in ok for x in r[1]]), ("e2el", [r[2] for r in ok])):
    s = stats(name, v, [99])
    trt.update({k: s[k] for k in (f"std_{name}_ms", f"mean_{name}_ms", f"median_{name}_ms", f"p99_{name}_ms")})
trt.update({"request_rate": "inf", "burstiness": 1.0, "max_concurrency": 4})
with open(os.path.join(HERE, "trtllm_serve_c4_detailed.json"), "w") as f:
    json.dump(trt, f)

# vLLM's structured-output serving benchmark (benchmarks/benchmark_serving_structured_output.py
# --save-results --dataset json --max-concurrency 4, vllm-project/vllm commit 0055044): main()
# writes {"outputs": [...], setup keys, "correct_rate(%)", **benchmark()'s result}, json.dump
# indent 4; the result's pandas describe() of ttft and tpot (tpot never set: 0), the per-request
# lists (no latencies), then mean_, median_, std_, p99_ of ttft, tpot, itl. A request whose
# output is not JSON scores False: correct_rate 75 of 4.
rows = requests(4, 6)
so_ttfts = [r[0] for r in rows]
def describe(v):
    m = mean(v)
    sd = (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5
    return {"count": float(len(v)), "mean": m, "std": sd, "min": min(v), "25%": pct(v, 25), "50%": pct(v, 50),
            "75%": pct(v, 75), "max": max(v)}
so = {"outputs": [{"generated": '{"name": "a"}' if i != 1 else "not json", "expected": '{"name": "a"}',
                   "correctness": i != 1} for i in range(4)],
      "backend": "vllm", "model_id": "Qwen/Qwen3-8B", "tokenizer_id": "Qwen/Qwen3-8B", "num_prompts": 4,
      "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 4, "correct_rate(%)": 75.0,
      "duration": 0.5, "completed": 4, "total_input_tokens": 4 * 64, "total_output_tokens": 24,
      "request_throughput": 8.0, "output_throughput": 48.0, "total_token_throughput": (4 * 64 + 24) / 0.5,
      "ttft_description": describe(so_ttfts), "tpot_description": describe([0.0] * 4),
      "input_lens": [64] * 4, "output_lens": [r[3] for r in rows], "ttfts": so_ttfts, "itls": [r[1] for r in rows],
      "errors": [""] * 4}
for name, v in (("ttft", so_ttfts), ("tpot", [(r[2] - r[0]) / (r[3] - 1) for r in rows]),
                ("itl", [x for r in rows for x in r[1]])):
    s = stats(name, v, [99])
    so.update({k: s[k] for k in (f"mean_{name}_ms", f"median_{name}_ms", f"std_{name}_ms", f"p99_{name}_ms")})
with open(os.path.join(HERE, "vllm_structured_output.json"), "w") as f:
    json.dump(so, f, indent=4)

# vllm bench serve --record-power --save-result --max-concurrency 32 on ROCm (benchmark() and
# fill_and_print_power_summary of vllm/benchmarks/serve.py and power.py, vllm-project/vllm commit
# 33d976a; the run of vllm-project/vllm PR 38647's description: 300 requests, 72.85 s, GPU power
# P25 575.5 W ... P75 784.5 W over 15 samples): the recorder's statistics merged into the result
# (result.update(power_stats)), W; the CPU's null where amdsmi finds no socket; tokens a joule,
# each throughput over the median GPU power. No --save-detailed: the per-request lists deleted
dur = 72.85
tin, tout = 603090, 120481
pw = {"p25_power_w": 575.5, "mean_power_w": 679.93, "median_power_w": 649.0,
      "median_power_per_accelerator_w": 649.0, "p75_power_w": 784.5, "num_samples": 15,
      "cpu_p25_power_w": None, "cpu_mean_power_w": None, "cpu_median_power_w": None,
      "cpu_median_power_per_socket_w": None, "cpu_p75_power_w": None, "cpu_num_samples": None}
pw.update({"input_toks_per_joule": tin / dur / 649.0, "output_toks_per_joule": tout / dur / 649.0,
           "total_toks_per_joule": (tin + tout) / dur / 649.0})
power = {"date": "20260331-101500", "endpoint_type": "vllm", "backend": "vllm", "label": None,
         "model_id": "amd/Llama-3.1-70B-Instruct-FP8-KV", "tokenizer_id": "amd/Llama-3.1-70B-Instruct-FP8-KV",
         "num_prompts": 300, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 32, "duration": dur,
         "completed": 300, "failed": 0, "total_input_tokens": tin, "total_output_tokens": tout,
         "request_throughput": 300 / dur, "request_goodput": None, "output_throughput": tout / dur,
         "total_token_throughput": (tin + tout) / dur, "max_output_tokens_per_s": 4158.0,
         "max_concurrent_requests": 46, "rtfx": 0.0}
power.update(pw)
power.update({"mean_ttft_ms": 2871.4, "median_ttft_ms": 2650.2, "std_ttft_ms": 1120.7, "p99_ttft_ms": 5912.3,
              "mean_tpot_ms": 14.62, "median_tpot_ms": 14.31, "std_tpot_ms": 1.87, "p99_tpot_ms": 19.95,
              "mean_itl_ms": 14.55, "median_itl_ms": 12.08, "std_itl_ms": 21.4, "p99_itl_ms": 98.7})
with open(os.path.join(HERE, "vllm_record_power.json"), "w") as f:
    json.dump(power, f)

# python -m sglang.benchmark.serving --backend sglang --disable-stream --max-concurrency 8 (SGLang
# 2026, python/sglang/benchmark/serving.py commit 00f9ec4): each answer comes whole, one chunk;
# async_request_sglang_generate reads latency before it parses that chunk and TTFT after, so each
# TTFT is its latency and some 40 us more, no ITL is timed, and TPOT, (latency - TTFT) / (8 - 1),
# is a few microseconds below 0. SGLang writes what it computed; nothing here is refused
rows = [(0.120 + 0.004 * i + 0.00004, [], 0.120 + 0.004 * i, 8) for i in range(8)]
m = sglang_metrics(rows, 512, 0.25, [90, 95, 99], [90, 95, 99], [90, 95, 99], [90, 95, 99])
nostream = {"tag": None, **args(float("inf"), 8, 512, 8), "server_info": None, **m, "accept_length": None,
            "max_output_tokens_per_s": 8.0, "max_concurrent_requests": 8}
nostream["total_input_text_tokens"] = nostream["total_input_tokens"]
nostream["total_input_vision_tokens"] = 0
write("sglang_disable_stream.jsonl", [nostream])

# vllm bench serve with its NVML energy measurement (GpuEnergyMeter.get_results of
# vllm/benchmarks/lib/energy.py, vllm-project/vllm commit c8e9466, whose keys vLLM's own
# tests/benchmarks test of it asserts): energy_gpu_ids (the physical GPUs read), gpu_energy_j (the
# counters' deltas summed, mJ / 1000), gpu_energy_duration_s, gpu_avg_power_w (energy over that
# time), gpu_energy_per_output_token_j (over the output tokens counted; None without one), merged
# into the result; placed here after the statistics. 2 GPUs, 30 s, 18000 J, 6000 tokens out
dur, tin, tout = 30.0, 64 * 1024, 6000
energy = {"date": "20261120-093000", "endpoint_type": "openai", "backend": "openai", "label": None,
          "model_id": "Qwen/Qwen3-8B", "tokenizer_id": "Qwen/Qwen3-8B", "num_prompts": 64, "tp": "2",
          "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 16, "duration": dur, "completed": 64,
          "failed": 0, "total_input_tokens": tin, "total_output_tokens": tout, "request_throughput": 64 / dur,
          "request_goodput": None, "output_throughput": tout / dur, "total_token_throughput": (tin + tout) / dur,
          "max_output_tokens_per_s": 412.0, "max_concurrent_requests": 16, "rtfx": 0.0,
          "mean_ttft_ms": 180.5, "median_ttft_ms": 171.2, "std_ttft_ms": 40.3, "p99_ttft_ms": 301.7,
          "mean_tpot_ms": 36.1, "median_tpot_ms": 35.8, "std_tpot_ms": 2.2, "p99_tpot_ms": 42.0,
          "mean_itl_ms": 35.9, "median_itl_ms": 35.1, "std_itl_ms": 6.4, "p99_itl_ms": 61.3,
          "energy_gpu_ids": [0, 1], "gpu_energy_j": 18000.0, "gpu_energy_duration_s": dur,
          "gpu_avg_power_w": 18000.0 / dur, "gpu_energy_per_output_token_j": 18000.0 / tout}
with open(os.path.join(HERE, "vllm_gpu_energy.json"), "w") as f:
    json.dump(energy, f)

# Other clients' summaries, refused by name (vb_tools.c). NVIDIA genai-perf's profile export:
# JsonExporter of genai-perf/genai_perf/export_data/json_exporter.py (triton-inference-server/
# perf_analyzer commit 09628cd): the statistics, each metric {"unit", "avg", "p99", ..., "std"},
# then "input_config" (its args), json.dump(indent=2); a few metrics and args of the real ones
def summary(unit, avg, **ps):
    return {"unit": unit, "avg": avg, **ps}
lat = dict(p99=412.0, p95=405.1, p90=399.8, p75=391.2, p50=380.4, p25=371.9, max=415.3, min=360.2, std=12.7)
genai = {"request_throughput": summary("requests/sec", 10.4),
         "request_latency": summary("ms", 382.6, **lat),
         "time_to_first_token": summary("ms", 41.3, p99=60.2, p50=39.9, max=61.0, min=30.1, std=6.2),
         "inter_token_latency": summary("ms", 5.4, p99=6.1, p50=5.3, max=6.3, min=5.0, std=0.3),
         "output_token_throughput": summary("tokens/sec", 660.2),
         "output_sequence_length": summary("tokens", 64.0, p50=64.0, max=64.0, min=64.0, std=0.0),
         "input_sequence_length": summary("tokens", 550.0, p50=550.0, max=551.0, min=549.0, std=0.6),
         "input_config": {"model": ["Qwen/Qwen3-8B"], "backend": "tensorrtllm", "endpoint_type": "chat",
                          "service_kind": "openai", "concurrency": 4, "request_rate": None,
                          "synthetic_input_tokens_mean": 550, "output_tokens_mean": 64,
                          "profile_export_file": "profile_export.json", "artifact_dir": "artifacts/qwen3-concurrency4",
                          "extra_inputs": {}}}
with open(os.path.join(HERE, "genai_perf_profile_export.json"), "w") as f:
    json.dump(genai, f, indent=2)
# AIPerf 0.7 (genai-perf's successor): profile_export_aiperf.json, the same summaries under
# schema_version and aiperf_version (the key set of a real 0.7.0 export quoted in a public test
# fixture); no input_config here
aiperf = {"schema_version": "1.0", "aiperf_version": "0.7.0",
          "request_throughput": summary("requests/sec", 5.69),
          "request_latency": summary("ms", 588.94, p50=572.59, p99=625.61, p1=554.28, p5=556.34, min=553.76,
                                     max=625.64, std=29.77),
          "time_to_first_token": summary("ms", 61.91, p50=44.21, p99=96.86, p25=42.85, min=27.63, max=96.86, std=28.95),
          "output_token_throughput": summary("tokens/sec", 728.55)}
with open(os.path.join(HERE, "aiperf_0.7_profile_export.json"), "w") as f:
    json.dump(aiperf, f, indent=2)
# genai-perf from its ConfigCommand on (2025): input_config the nested configuration that
# genai_perf/subcommand/process_export_files.py reads back (model_names, perf_analyzer.stimulus,
# input.synthetic_tokens, input.output_tokens, endpoint, tokenizer), request_count ("count") among
# the summaries; legacy_rate4.json's load (4 req/s, 12 requests of 256-token prompts), spaced
# evenly by perf_analyzer (--request-distribution constant, its default)
genai_cfg = {"request_throughput": summary("requests/sec", 3.98),
             "request_latency": summary("ms", 95.2, p99=110.4, p90=104.1, p75=99.0, p50=94.8, p25=91.2, max=111.0,
                                        min=88.3, std=6.1),
             "time_to_first_token": summary("ms", 18.4, p99=24.9, p50=17.9, max=25.1, min=15.2, std=2.7),
             "time_to_second_token": summary("ms", 8.6, p99=9.9, p50=8.5, max=10.0, min=7.9, std=0.5),
             "inter_token_latency": summary("ms", 8.5, p99=9.4, p50=8.4, max=9.5, min=8.0, std=0.4),
             "output_token_throughput": summary("tokens/sec", 39.8),
             "output_token_throughput_per_user": summary("tokens/sec/user", 105.0, p50=105.5, max=113.2, min=90.1, std=6.3),
             "output_sequence_length": summary("tokens", 10.0, p50=10.0, max=10.0, min=10.0, std=0.0),
             "input_sequence_length": summary("tokens", 256.0, p50=256.0, max=256.0, min=256.0, std=0.0),
             "request_count": summary("count", 12),
             "input_config": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"],
                              "endpoint": {"model_selection_strategy": "round_robin", "backend": "tensorrtllm",
                                           "type": "kserve", "service_kind": "triton", "streaming": True,
                                           "url": "localhost:8001"},
                              "perf_analyzer": {"path": "perf_analyzer", "verbose": False,
                                                "stimulus": {"request_rate": 4.0},
                                                "stability_percentage": 999, "measurement_interval": 10000},
                              "input": {"batch_size": 1, "extra": {"max_tokens": 10, "ignore_eos": True},
                                        "num_dataset_entries": 100, "random_seed": 0,
                                        "output_tokens": {"mean": 10, "deterministic": False, "stddev": 0},
                                        "synthetic_tokens": {"mean": 256, "stddev": 0},
                                        "request_count": {"warmup": 0}},
                              "tokenizer": {"name": "meta-llama/Llama-3.1-8B-Instruct", "revision": "main",
                                            "trust_remote_code": False},
                              "output": {"artifact_directory": "artifacts/llama-rate4",
                                         "profile_export_file": "profile_export.json", "generate_plots": False}}}
with open(os.path.join(HERE, "genai_perf_config_rate4.json"), "w") as f:
    json.dump(genai_cfg, f, indent=2)
# AIPerf's profile_export_aiperf.json as its JsonExportData (src/aiperf/common/models/
# export_models.py; docs/tutorials/working-with-profile-exports.md): schema_version and
# aiperf_version, the summaries at the top, input_config its UserConfig with what was given
# (exclude_unset), was_cancelled, start_time; serve_c8_detailed.json's load (concurrency 8, 16
# requests of 128-token prompts, one failed: request_count 15, error_request_count 1), orjson's
# indent of 2
aip = {"schema_version": "1.0", "aiperf_version": "0.8.0", "benchmark_id": "5f0c2d7e-51a1-4b7e-9a43-0f8f6a2c1d11",
       "request_throughput": summary("requests/sec", 61.2),
       "request_latency": summary("ms", 118.6, p1=101.3, p5=102.9, p10=104.0, p25=108.8, p50=117.9, p75=126.4,
                                  p90=131.7, p95=134.1, p99=139.2, min=100.9, max=140.5, std=11.4),
       "request_count": summary("requests", 15.0),
       "time_to_first_token": summary("ms", 33.1, p50=29.0, p90=49.0, p99=53.5, min=20.4, max=54.1, std=10.3),
       "inter_token_latency": summary("ms", 11.8, p50=11.7, p90=12.4, p99=12.9, min=11.1, max=13.0, std=0.5),
       "output_token_throughput": summary("tokens/sec", 489.6),
       "output_sequence_length": summary("tokens", 8.0, p50=8.0, min=8.0, max=8.0),
       "input_sequence_length": summary("tokens", 128.0, p50=128.0, min=128.0, max=128.0),
       "benchmark_duration": summary("sec", 0.245),
       "total_isl": summary("tokens", 1920.0), "total_osl": summary("tokens", 120.0),
       "error_request_count": summary("requests", 1.0),
       "input_config": {"endpoint": {"model_names": ["Qwen/Qwen3-0.6B"], "type": "chat", "streaming": True,
                                     "url": "localhost:8000"},
                        "input": {"prompt": {"input_tokens": {"mean": 128}, "output_tokens": {"mean": 8}}},
                        "loadgen": {"concurrency": 8, "request_rate_mode": "concurrency_burst", "request_count": 16},
                        "cli_command": "aiperf profile -m Qwen/Qwen3-0.6B --streaming --concurrency 8 --endpoint-type chat "
                                       "--request-count 16 --isl 128 --osl 8"},
       "was_cancelled": False,
       "error_summary": [{"error_details": {"code": 500, "type": "InternalServerError",
                                            "message": "Server encountered an internal error"}, "count": 1}],
       "start_time": "2025-06-11T10:15:00.120391", "end_time": "2025-06-11T10:15:00.365102",
       # --gpu-telemetry: the DCGM exporter's GPUs (GpuSummary: index, name, uuid, host, metrics)
       "telemetry_data": {"summary": {"endpoints_configured": ["http://localhost:9400/metrics"],
                                      "endpoints_successful": ["http://localhost:9400/metrics"],
                                      "start_time": "2025-06-11T10:15:00.120391",
                                      "end_time": "2025-06-11T10:15:00.366011"},
                          "endpoints": {"localhost:9400": {"gpus": {
                              f"gpu_{i}": {"gpu_index": i, "gpu_name": "NVIDIA H200",
                                           "gpu_uuid": f"GPU-5f1c2d7e-51a1-4b7e-9a43-0f8f6a2c1d1{i}",
                                           "hostname": "node-a",
                                           "metrics": {"gpu_power_usage": {"unit": "W", "avg": 412.5 - 3 * i,
                                                                           "min": 120.2, "max": 690.1}}}
                              for i in range(2)}}}}}
with open(os.path.join(HERE, "aiperf_profile_export.json"), "w") as f:
    json.dump(aip, f, indent=2)
# AIPerf's configuration v2.0 (2026): input_config its BenchmarkConfig (src/aiperf/config/config.py,
# ai-dynamo/aiperf), dumped with exclude_unset: models.items, endpoint, datasets (prompts.isl as a
# distribution, osl a number), phases (a warmup, then "profiling" of type concurrency); the same
# measurement as aiperf_profile_export.json
aip2 = json.loads(json.dumps(aip))
aip2["aiperf_version"] = "0.12.0"
aip2["input_config"] = {"models": {"strategy": "round_robin", "items": [{"name": "Qwen/Qwen3-0.6B"}]},
                        "endpoint": {"urls": ["http://localhost:8000/v1/chat/completions"], "type": "chat",
                                     "streaming": True},
                        "datasets": [{"name": "default", "type": "synthetic", "entries": 100,
                                      "prompts": {"isl": {"mean": 128, "stddev": 0}, "osl": 8}}],
                        "phases": [{"name": "warmup", "type": "concurrency", "concurrency": 2, "requests": 4},
                                   {"name": "profiling", "type": "concurrency", "concurrency": 8, "requests": 16}]}
with open(os.path.join(HERE, "aiperf_v2_profile_export.json"), "w") as f:
    json.dump(aip2, f, indent=2)
# AIPerf's first exports (aiperf/exporters/json_exporter.py, ai-dynamo/aiperf commit 030f22d):
# JsonExportData(records={tag: MetricResult}, input_config, ...), each MetricResult with its tag,
# header and count, model_dump_json(indent=2, exclude_unset=True); legacy_rate4.json's load at
# Poisson arrivals (--request-rate 4 --request-rate-mode poisson)
def record(tag, header, unit, avg, **ps):
    return {"tag": tag, "header": header, "unit": unit, "avg": avg, **ps, "count": 12}
recs = {"request_latency": record("request_latency", "Request Latency", "ms", 96.0, p50=95.1, p99=112.0, min=88.0,
                                  max=112.4, std=6.4),
        "time_to_first_token": record("time_to_first_token", "Time to First Token", "ms", 18.9, p50=18.2, p99=25.3,
                                      min=15.0, max=25.6, std=2.9),
        "inter_token_latency": record("inter_token_latency", "Inter Token Latency", "ms", 8.6, p50=8.5, p99=9.6,
                                      min=8.0, max=9.7, std=0.4),
        "request_throughput": record("request_throughput", "Request Throughput", "requests/sec", 3.97),
        "output_token_throughput": record("output_token_throughput", "Output Token Throughput", "tokens/sec", 39.7),
        "request_count": record("request_count", "Request Count", "requests", 12.0),
        "benchmark_duration": record("benchmark_duration", "Benchmark Duration", "sec", 3.02)}
aip_early = {"records": recs,
             "input_config": {"endpoint": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"], "type": "completions",
                                           "streaming": True},
                              "loadgen": {"request_rate": 4.0, "request_rate_mode": "poisson", "request_count": 12},
                              "input": {"prompt": {"input_tokens": {"mean": 256}, "output_tokens": {"mean": 10}}}},
             "was_cancelled": False, "start_time": "2025-03-01T09:30:00.510000", "end_time": "2025-03-01T09:30:03.530000"}
with open(os.path.join(HERE, "aiperf_records_profile_export.json"), "w") as f:
    json.dump(aip_early, f, indent=2)
# trtllm-bench throughput --report_json: get_statistics_dict of tensorrt_llm/bench/dataclasses/
# reporting.py (NVIDIA/TensorRT-LLM commit 0249976): engine (model, paths, version, the PyTorch
# backend's dtype and quantization), machine, world_info, request_info, performance (ms, req/s,
# tok/s), dataset; no streaming_metrics without --streaming. json.dump(indent=4)
trtb = {"engine": {"model": "meta-llama/Llama-3.1-8B", "model_path": "None", "engine_dir": "None",
                   "version": "1.0.0", "backend": "Pytorch", "dtype": "bfloat16", "kv_cache_dtype": None,
                   "quantization": None},
        "machine": {"name": "NVIDIA H200", "memory.total": 139.8, "clocks.mem": 3.201},
        "world_info": {"tp_size": 1, "pp_size": 1, "ep_size": 1, "world_size": 1, "max_batch_size": 2048,
                       "max_num_tokens": 8192, "scheduling_policy": "GUARANTEED_NO_EVICT",
                       "kv_cache_percentage": 0.9, "issue_rate": 1.0e12},
        "request_info": {"num_requests": 1000, "avg_num_concurrent_requests": 870.2, "avg_input_length": 128.0,
                         "avg_output_length": 128.0},
        "performance": {"total_latency_ms": 20512.3, "avg_request_latency_ms": 17420.8,
                        "request_throughput_req_s": 48.75, "system_output_throughput_tok_s": 6240.1,
                        "system_total_throughput_tok_s": 12480.2, "output_throughput_per_user_tok_s": 7.6,
                        "output_throughput_per_gpu_tok_s": 6240.1,
                        "request_latency_percentiles_ms": {"p50": 17511.0, "p90": 19880.2, "p95": 20110.4,
                                                           "p99": 20400.9, "minimum": 9120.3, "maximum": 20501.7,
                                                           "average": 17420.8}},
        "dataset": {"isl_stats": {"average": 128.0}, "osl_stats": {"average": 128.0}, "num_requests": 1000}}
with open(os.path.join(HERE, "trtllm_bench_report.json"), "w") as f:
    json.dump(trtb, f, indent=4)

# the same with --streaming --concurrency 64 (as public sweeps run it, the concurrency only in the
# report's file name): streaming_metrics (TTFT and TPOT percentiles in ms, PercentileStats'
# names); 1000 requests issued over 14.8 s, each starting as one of 64 ended (issue_rate is
# 1e9 times the ns between the first and last start over the requests)
trts = json.loads(json.dumps(trtb))
trts["world_info"]["issue_rate"] = 14.8e9 / 1000 * 1e9
trts["request_info"]["avg_num_concurrent_requests"] = 63.4
trts["performance"].update({"total_latency_ms": 15210.4, "avg_request_latency_ms": 970.1,
                            "request_throughput_req_s": 65.74, "system_output_throughput_tok_s": 8415.2,
                            "system_total_throughput_tok_s": 16830.4, "output_throughput_per_user_tok_s": 132.1,
                            "output_throughput_per_gpu_tok_s": 8415.2,
                            "request_latency_percentiles_ms": {"p50": 968.2, "p90": 1001.7, "p95": 1010.3,
                                                               "p99": 1032.8, "minimum": 921.4, "maximum": 1040.2,
                                                               "average": 970.1}})
trts["streaming_metrics"] = {"token_output_speed_tok_s": 140.2, "avg_ttft_ms": 64.3, "avg_tpot_ms": 7.13,
                             "tpot_percentiles": {"p50": 7.11, "p90": 7.42, "p95": 7.51, "p99": 7.80,
                                                  "minimum": 6.82, "maximum": 7.95, "average": 7.13},
                             "ttft_percentiles": {"p50": 60.2, "p90": 88.4, "p95": 97.1, "p99": 120.3,
                                                  "minimum": 31.0, "maximum": 131.9, "average": 64.3},
                             "gen_tps_percentiles": {"p50": 140.6, "p90": 145.0, "p95": 146.2, "p99": 148.3,
                                                     "minimum": 125.8, "maximum": 146.6, "average": 140.2}}
with open(os.path.join(HERE, "trtllm_bench_report_c64_streaming.json"), "w") as f:
    json.dump(trts, f, indent=4)

# vLLM's benchmarks/benchmark_guided.py --save-results (offline guided decoding; vllm-project/vllm
# commit de698b0, main()): {"outputs": ret, elapsed_time, num_requests, total_num_tokens,
# total_output_tokens, requests_per_second, tokens_per_second and output_tokens_per_second as
# strings (f"{...:.2f}"), correct_rate(%)}, json.dump(indent=4); 4 requests, no --async-engine
guided = {"outputs": [{"generated": '{"name": "Ada"}', "expected": None, "correctness": True}] * 4,
          "elapsed_time": 2.0, "num_requests": 4, "total_num_tokens": 4 * (96 + 512), "total_output_tokens": 4 * 512,
          "requests_per_second": 2.0, "tokens_per_second": f"{4 * (96 + 512) / 2.0:.2f}",
          "output_tokens_per_second": f"{4 * 512 / 2.0:.2f}", "correct_rate(%)": 100.0}
with open(os.path.join(HERE, "vllm_guided_offline.json"), "w") as f:
    json.dump(guided, f, indent=4)

# vLLM's benchmarks/multi_turn/benchmark_serving_multi_turn.py (vllm-project/vllm commit 00d3953):
# --stats-json-output, each request's RequestStats._asdict() in a list, json.dump(indent=2), and
# --output-file, the conversations with the server's answers (conversations_dict_to_list of
# bench_dataset.py: {"id", "messages"}), json.dump(indent=4); neither names the model or the load
stats = [{"ttft_ms": 48.2 + i, "tpot_ms": 11.5, "latency_ms": 48.2 + i + 11.5 * 99, "start_time_ms": 1.0e6 + 900.0 * i,
          "input_num_turns": 1 + 2 * i, "input_num_tokens": 512 + 640 * i, "output_num_tokens": 100,
          "output_num_chunks": 99, "output_num_first_chunk_tokens": 1, "approx_cached_percent": 80.0 * i / (1 + i),
          "conversation_id": "CONV_ID_0", "client_id": 0} for i in range(2)]
with open(os.path.join(HERE, "vllm_multi_turn_stats.json"), "w") as f:
    json.dump(stats, f, indent=2)
conversations = [{"id": "CONV_ID_0", "messages": [{"role": "user", "content": "Please rewrite the following text"},
                                                  {"role": "assistant", "content": "Here it is, rewritten."}]}]
with open(os.path.join(HERE, "vllm_multi_turn_conversations.json"), "w") as f:
    json.dump(conversations, f, indent=4)
