#!/usr/bin/env bash
# xp import vllm-bench on the result files of the engines' other benchmark tools
# (tests/data/vllm_bench/formats/PROVENANCE.md, importers/vllm_bench/vb_tools.c): SGLang's
# offline throughput and one-batch benchmarks are read as serve_bench cases, under the serving
# benchmarks' names where the quantity is the same and names of their own where not, and pair in
# xp compare by their load; vLLM's throughput and latency results, which name neither the model
# nor the load, are refused in one line that names the tool, and read from their .pytorch.json
# side file, whose args name both.
set -u
. "$XP_SRC/tests/lib.sh"
fmt="$XP_SRC/tests/data/vllm_bench/formats"
metrics() { # metrics DB RUN CASE: "metric=median[unit]" of the run's case, sorted
  db="$1" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ')
    FROM (SELECT m.* FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$2%' AND m.case_name = '$3' ORDER BY m.metric)"
}

# sglang.bench_offline_throughput: one case, "offline", its totals under the serving names
# (successful_requests is completed, total_latency the duration), on SGLang's own engine
d="$tmp/off.db"
a=$(import_vllm "$d" "$fmt/sglang_offline_throughput.jsonl" --set model=Qwen/Qwen3-8B)
check "offline throughput: the serving names and units" \
  "completed=1000[requests] duration=20[s] input_throughput=25600[tok/s] last_gen_throughput=7012.5[tok/s] output_throughput=6400[tok/s] request_throughput=50[req/s] total_input_tokens=512000[tokens] total_output_tokens=128000[tokens] total_token_throughput=32000[tok/s]" \
  "$(metrics "$d" "$a" offline)"
check "offline throughput: SGLang's engine, the model declared" "sglang|Qwen/Qwen3-8B|serve_bench" \
  "$(db="$d" query "SELECT engine || '|' || model || '|' || kind FROM runs")"
one_line "offline throughput without a model" 2 \
  "sglang_offline_throughput.jsonl:1: the result names no model (sglang.bench_offline_throughput names none); say which with --set model=NAME" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/sglang_offline_throughput.jsonl"
# the same load again pairs; prompts of 1024 tokens are another load
b=$(import_vllm "$d" "$fmt/sglang_offline_throughput.jsonl" --set model=Qwen/Qwen3-8B)
"$XP" --db "$d" compare "$a" "$b" > "$tmp/cmp" 2>&1
grep -qE '^offline +\{\} +output_throughput +tok/s +6400 +6400 ' "$tmp/cmp" || { echo "FAIL: two offline runs do not pair:"; cat "$tmp/cmp"; fail=1; }
sed 's/"total_input_tokens": 512000/"total_input_tokens": 1024000/' "$fmt/sglang_offline_throughput.jsonl" > "$tmp/off1024.jsonl"
c=$(import_vllm "$d" "$tmp/off1024.jsonl" --set model=Qwen/Qwen3-8B)
"$XP" --db "$d" compare "$a" "$c" > "$tmp/cmp" 2>&1
grep -q "^  offline only in A: B's offline is another workload: prompt tokens a request: A 512, B 1024$" "$tmp/cmp" ||
  { echo "FAIL: 512- and 1024-token offline runs pair:"; cat "$tmp/cmp"; fail=1; }

# sglang.bench_one_batch_server: a case per batch size and lengths, the batch's latency in ms;
# the first versions' output_throughput is over the whole latency (the serving name), the later
# ones' over the time after the last first token (decode_throughput), with the prefill's
d="$tmp/batch.db"
a=$(import_vllm "$d" "$fmt/sglang_one_batch_server_2024.jsonl" --set model=m)
check "one batch 2024: a case per batch" "batch=1,input=1024,output=16 batch=16,input=1024,output=16" \
  "$(db="$d" query "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY seq)" | tr -d '"')"
check "one batch 2024: latency in ms, the output over the whole latency" \
  "batch_latency_ms=1200[ms] output_throughput=213.33[tok/s] total_token_throughput=13866.67[tok/s]" \
  "$(metrics "$d" "$a" batch=16,input=1024,output=16)"
check "one batch 2024: the batch's settings" '{"batch_size":16,"file":"sglang_one_batch_server_2024.jsonl","input_len":1024,"output_len":16,"result":1}' \
  "$(db="$d" sql "SELECT params FROM cases WHERE name = 'batch=16,input=1024,output=16'" | sed 's/""/"/g; s/^"//; s/"$//')"
b=$(import_vllm "$d" "$fmt/sglang_one_batch_server_2026.jsonl" --set model=m)
check "one batch 2026: prefill and decode apart, the server's -1 gauges not kept" \
  "batch_latency_ms=1200[ms] cache_hit_rate_pct=0[%] decode_throughput=258.59[tok/s] last_ttft_ms=210[ms] prefill_throughput=78019.05[tok/s] total_output_tokens=256[tokens] total_token_throughput=13866.67[tok/s]" \
  "$(metrics "$d" "$b" batch=16,input=1024,output=16)"
check "one batch server: no engine (it benchmarks an SGLang or a vLLM server)" "0" "$(db="$d" sql "SELECT count(*) FROM runs WHERE engine IS NOT NULL")"
"$XP" --db "$d" import vllm-bench "$fmt/sglang_one_batch_server_2026.jsonl" --set model=m --dry-run > "$tmp/plan" 2>&1
grep -qE '^batch=16,input=1024,output=16 +1200\.00 +210\.00 +78019\.05 +258\.59 +13866\.67$' "$tmp/plan" ||
  { echo "FAIL: the batch's summary:"; cat "$tmp/plan"; fail=1; }
"$XP" --db "$d" compare "$a" "$b" > "$tmp/cmp" 2>&1
grep -qE '^batch=16,input=1024,output=16 .* batch_latency_ms +ms +1200 +1200 ' "$tmp/cmp" ||
  { echo "FAIL: the two versions' batch=16 do not pair:"; cat "$tmp/cmp"; fail=1; }
# the same batches as one JSON list: --pydantic-result-filename (SGLang's nightly CI) names the
# model (model_path) and the server's launch arguments (server_args: --tp 2 --dp-size=2
# --enable-dp-attention), so no --set model is needed and TP is recorded; with DP attention the
# dp size is the attention's groups within the TP's two GPUs, serve.dp_size, not DP (before:
# dp=2, four GPUs); the trace paths are no settings of the case
l=$(import_vllm "$d" "$fmt/sglang_one_batch_server_pydantic.json")
check "one batch JSON list: the model, TP and DP attention from model_path and server_args" \
  "Qwen/Qwen3-8B|2|serve.dp_size=2 serve.enable_dp_attention=true" \
  "$(db="$d" sql "SELECT r.model || '|' || r.tp || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$l%'")"
check "one batch JSON list: an entry a case, its settings" \
  '{"batch_size":16,"file":"sglang_one_batch_server_pydantic.json","input_len":1024,"output_len":16,"result":1}' \
  "$(db="$d" sql "SELECT c.params FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$l%' AND c.name = 'batch=16,input=1024,output=16'" | sed 's/""/"/g; s/^"//; s/"$//')"
check "one batch JSON list: the names of the lines, unrounded" \
  "batch_latency_ms=1200[ms] decode_throughput=258.5858586[tok/s] last_gen_throughput=266[tok/s] last_ttft_ms=210[ms] prefill_throughput=78019.04762[tok/s] total_token_throughput=13866.66667[tok/s]" \
  "$(metrics "$d" "$l" batch=16,input=1024,output=16)"
"$XP" --db "$d" compare "$b" "$l" > "$tmp/cmp" 2>&1
grep -qE '^batch=16,input=1024,output=16 .* batch_latency_ms +ms +1200 +1200 ' "$tmp/cmp" ||
  { echo "FAIL: the lines' and the JSON list's batch=16 do not pair:"; cat "$tmp/cmp"; fail=1; }
o=$(import_vllm "$d" "$fmt/sglang_one_batch_server_output_path.json")
check "one batch --output-path list (2025): the model, its ttft the batch's last first token" "Qwen/Qwen3-8B|210|2" \
  "$(db="$d" sql "SELECT r.model || '|' || printf('%.10g', m.median) || '|' || (SELECT count(*) FROM cases WHERE run_id = r.id) FROM runs r JOIN run_metrics m ON m.run_id = r.id AND m.metric = 'last_ttft_ms' AND m.case_name = 'batch=16,input=1024,output=16' WHERE r.uuid LIKE '$o%'")"
python3 -c "import json, sys; r = json.load(open(sys.argv[1])); r[1]['server_args'][1] = 2
json.dump(r, open(sys.argv[2], 'w'), indent=2)" "$fmt/sglang_one_batch_server_pydantic.json" "$tmp/args.json"
one_line "one batch JSON list: a launch argument not a string" 2 \
  "args.json:25: server_args: expected a list of strings, found a number in it" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/args.json"
# the lines and the list of one run: each batch written twice (BenchOneCaseResult.dump_to_jsonl
# rounds what the list keeps whole), with no run id or time to tell them by; refused, naming the
# line of the same batch (before: recorded, each case's batch counted twice)
one_line "one batch: the lines with the --output-path list of the same batches" 2 \
  "sglang_one_batch_server_output_path.json:2: the same batch as .*sglang_one_batch_server_2026.jsonl:1 .sglang.bench_one_batch_server writes each batch to its --result-filename line and again, unrounded, to --output-path or --pydantic-result-filename.: it would count twice; give one of them" \
  "$XP" --db "$tmp/twice.db" import vllm-bench "$fmt/sglang_one_batch_server_2026.jsonl" "$fmt/sglang_one_batch_server_output_path.json" --set model=Qwen/Qwen3-8B
check "one batch: nothing recorded of the lines with their list" "no" "$([ -e "$tmp/twice.db" ] && echo yes || echo no)"
one_line "one batch: the --pydantic-result-filename list given first" 2 \
  "sglang_one_batch_server_2026.jsonl:1: the same batch as .*sglang_one_batch_server_pydantic.json:2 " \
  "$XP" --db "$tmp/twice.db" import vllm-bench "$fmt/sglang_one_batch_server_pydantic.json" "$fmt/sglang_one_batch_server_2026.jsonl" --set model=Qwen/Qwen3-8B
# another measurement of the batches (the latency 0.1 ms off, the throughputs with it) is not the
# list's: both recorded
sed -e '1s/"latency": 0.45,/"latency": 0.4501,/' -e '1s/"overall_throughput": 2311.11,/"overall_throughput": 2310.6,/' \
  -e '2s/"latency": 1.2,/"latency": 1.2001,/' -e '2s/"overall_throughput": 13866.67,/"overall_throughput": 13865.51,/' \
  "$fmt/sglang_one_batch_server_2026.jsonl" > "$tmp/again.jsonl"
import_vllm "$tmp/again.db" "$tmp/again.jsonl" "$fmt/sglang_one_batch_server_output_path.json" --set model=Qwen/Qwen3-8B > /dev/null
check "one batch: another run's lines with the list, all recorded" 4 "$(db="$tmp/again.db" sql "SELECT count(*) FROM cases")"
# sglang.bench_one_batch (in-process, no server): the same cases, its prefill and median decode
# step timed inside, on SGLang's engine; it pairs with the server's batch of the same size
c=$(import_vllm "$d" "$fmt/sglang_one_batch_2025.jsonl" --set model=m)
check "one batch in-process: the batch's latency, its prefill and decode step in ms" \
  "batch_latency_ms=436.1[ms] median_decode_step_ms=15.1[ms] median_decode_throughput=1059.602649[tok/s] prefill_latency_ms=210[ms] prefill_throughput=78019.04762[tok/s] total_token_throughput=38156.38615[tok/s]" \
  "$(metrics "$d" "$c" batch=16,input=1024,output=16)"
check "one batch in-process: an output of one token has no decode step" \
  "batch_latency_ms prefill_latency_ms prefill_throughput total_token_throughput" \
  "$(db="$d" query "SELECT group_concat(metric, ' ') FROM (SELECT m.metric FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$c%' AND m.case_name = 'batch=16,input=1024,output=1' ORDER BY m.metric)")"
check "one batch in-process: SGLang's engine" "sglang" "$(db="$d" sql "SELECT engine FROM runs WHERE uuid LIKE '$c%'")"
"$XP" --db "$d" compare "$b" "$c" > "$tmp/cmp" 2>&1
grep -qE '^batch=16,input=1024,output=16 .* batch_latency_ms +ms +1200 +436\.1 ' "$tmp/cmp" ||
  { echo "FAIL: the server's and the in-process batch=16 do not pair:"; cat "$tmp/cmp"; fail=1; }
# its 2024 name, sglang.bench_latency: the decode steps' mean where later versions write their
# median, avg_decode_latency in s (recorded in ms, as every latency of these tools) and
# avg_decode_throughput; the same batch pairs with the later version's
e=$(import_vllm "$d" "$fmt/sglang_bench_latency_2024.jsonl" --set model=m)
check "bench_latency 2024: the mean decode step in ms, the names of the later version" \
  "batch_latency_ms=455.6[ms] mean_decode_step_ms=15.3[ms] mean_decode_throughput=1045.751634[tok/s] prefill_latency_ms=210.8[ms] prefill_throughput=77722.96015[tok/s] total_token_throughput=36523.26602[tok/s]" \
  "$(metrics "$d" "$e" batch=16,input=1024,output=16)"
"$XP" --db "$d" import vllm-bench "$fmt/sglang_bench_latency_2024.jsonl" --set model=m --dry-run > "$tmp/plan" 2>&1
grep -qE '^batch=16,input=1024,output=16 +455\.60 +- +77722\.96 +1045\.75 +36523\.27$' "$tmp/plan" ||
  { echo "FAIL: bench_latency 2024's summary lacks its decode throughput:"; cat "$tmp/plan"; fail=1; }
"$XP" --db "$d" compare "$c" "$e" > "$tmp/cmp" 2>&1
grep -qE '^batch=16,input=1024,output=16 .* batch_latency_ms +ms +436\.1 +455\.6 ' "$tmp/cmp" ||
  { echo "FAIL: bench_latency 2024 and bench_one_batch's batch=16 do not pair:"; cat "$tmp/cmp"; fail=1; }
sed 's/"latency": 1.2,/"latency": "slow",/' "$fmt/sglang_one_batch_server_2026.jsonl" > "$tmp/slow.jsonl"
one_line "one batch: a latency not a number, named as the file names it" 2 "slow.jsonl:2: latency: expected a number, found a string" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/slow.jsonl" --set model=m
sed '2s/"latency": 1.2, //' "$fmt/sglang_one_batch_server_2026.jsonl" > "$tmp/nolat.jsonl"
one_line "one batch: no latency, named as the file names it" 2 \
  "nolat.jsonl:2: missing key \"latency\" (not a sglang.bench_one_batch_server --result-filename line?)" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/nolat.jsonl" --set model=m
sed '1s/"input_len": 1024, //' "$fmt/sglang_one_batch_server_2024.jsonl" > "$tmp/nolen.jsonl"
one_line "one batch: no input length" 2 \
  "nolen.jsonl:1: missing key \"input_len\" (not a sglang.bench_one_batch_server --result-filename line?)" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/nolen.jsonl" --set model=m

# neither is paced by concurrency or rate: the report's serving chart leaves them out, and says
# no request-rate runs kept it empty
not_charted() { # not_charted WHAT: the report of $d leaves WHAT out of its serving chart, which stays empty
  "$XP" --db "$d" report --out "$tmp/r.html" > /dev/null 2>&1
  grep -q 'No serving benchmarks at a fixed concurrency yet: xp import' "$tmp/r.html" ||
    { echo "FAIL: the report's serving chart counts $1 as request-rate runs:"; grep -o 'No serving[^<]*' "$tmp/r.html"; fail=1; }
}
not_charted "batch cases"

# vLLM's throughput and latency benchmarks through their .pytorch.json side file (written with
# SAVE_TO_PYTORCH_BENCHMARK_FORMAT=1): the records' args name the model, TP and load. Throughput
# is a case "offline" under the serving names, pairing with SGLang's offline benchmark; latency
# a case a batch, its iterations the samples of batch_latency_ms, pairing with SGLang's batch
d="$tmp/side.db"
a=$(import_vllm "$d" "$fmt/vllm_throughput.pytorch.json")
check "throughput side file: the serving names and units" \
  "completed=1000[requests] duration=20[s] request_throughput=50[req/s] total_token_throughput=32000[tok/s]" \
  "$(metrics "$d" "$a" offline)"
check "throughput side file: model, engine, TP and backend from the args" "Qwen/Qwen3-8B|vllm|2|vllm" \
  "$(db="$d" sql "SELECT model || '|' || engine || '|' || tp || '|' || (SELECT value FROM run_meta WHERE key = 'backend') FROM runs")"
check "throughput side file: the load's settings" \
  '{"dataset_name":"random","file":"vllm_throughput.pytorch.json","input_len":512,"n":1,"num_prompts":1000,"output_len":128,"prefix_len":0,"random_range_ratio":0}' \
  "$(db="$d" sql "SELECT params FROM cases" | sed 's/""/"/g; s/^"//; s/"$//')"
# the args' pipeline_parallel_size and data_parallel_size: PP the run's pp (and its
# configuration), DP its metadata "dp" (and its configuration: schema 21); a size of 1 (the
# fixture's) is none and not recorded
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
for x in r: x['benchmark']['extra_info']['args'].update(pipeline_parallel_size=2, data_parallel_size=4)
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_throughput.pytorch.json" "$tmp/par.pytorch.json"
p=$(import_vllm "$d" "$tmp/par.pytorch.json")
check "throughput side file: TP, PP and DP from the args" "2|2|4|engine=vllm pp=2 dp=4" \
  "$(db="$d" sql "SELECT r.tp || '|' || r.pp || '|' || m.value || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id JOIN run_meta m ON m.run_id = r.id AND m.key = 'dp' WHERE r.uuid LIKE '$p%'")"
check "throughput side file of PP 1 and DP 1: neither recorded" "||engine=vllm" \
  "$(db="$d" sql "SELECT coalesce(r.pp, '') || '|' || coalesce((SELECT value FROM run_meta WHERE run_id = r.id AND key = 'dp'), '') || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$a%'")"
# --enable-expert-parallel (EngineArgs.enable_expert_parallel, a switch): EP over every TP and DP
# rank, TP x DP (FusedMoEParallelConfig.make of vllm/model_executor/layers/fused_moe/config.py)
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
for x in r: x['benchmark']['extra_info']['args'].update(data_parallel_size=4, enable_expert_parallel=True)
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_throughput.pytorch.json" "$tmp/ep.pytorch.json"
e=$(import_vllm "$d" "$tmp/ep.pytorch.json")
check "throughput side file with --enable-expert-parallel: EP is TP 2 x DP 4" "2|8|engine=vllm ep=8 dp=4" \
  "$(db="$d" sql "SELECT r.tp || '|' || r.ep || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$e%'")"
# the args' kv_cache_dtype (vLLM's --kv-cache-dtype): fp8 a part of the configuration, as a
# sweep's serve.kv_cache_dtype, and named by xp compare; auto (the model's dtype) is none
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
for x in r: x['benchmark']['extra_info']['args'].update(kv_cache_dtype=sys.argv[3])
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_throughput.pytorch.json" "$tmp/kv.pytorch.json" fp8
k=$(import_vllm "$d" "$tmp/kv.pytorch.json")
check "throughput side file with --kv-cache-dtype fp8: the KV cache's dtype, in the configuration" \
  "fp8|engine=vllm serve.kv_cache_dtype=fp8" \
  "$(db="$d" sql "SELECT m.value || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id JOIN run_meta m ON m.run_id = r.id AND m.key = 'serve.kv_cache_dtype' WHERE r.uuid LIKE '$k%'")"
"$XP" --db "$d" compare "$a" "$k" > "$tmp/cmp" 2>&1
grep -q '^  serve.kv_cache_dtype: A (unset); B fp8$' "$tmp/cmp" ||
  { echo "FAIL: xp compare does not tell the KV cache's dtypes apart:"; cat "$tmp/cmp"; fail=1; }
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
for x in r: x['benchmark']['extra_info']['args'].update(kv_cache_dtype=sys.argv[3])
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_throughput.pytorch.json" "$tmp/kvauto.pytorch.json" auto
k=$(import_vllm "$d" "$tmp/kvauto.pytorch.json")
check "throughput side file with --kv-cache-dtype auto: none" "engine=vllm|0" \
  "$(db="$d" sql "SELECT g.config || '|' || (SELECT count(*) FROM run_meta WHERE run_id = r.id AND key LIKE '%kv%') FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$k%'")"
# the args' dtype and quantization (vLLM's --dtype, --quantization; auto and null none): the
# server's settings, in the configuration, not xp's dtype (a checkpoint's own quantization applies)
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
for x in r: x['benchmark']['extra_info']['args'].update(dtype='bfloat16', quantization='fp8')
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_throughput.pytorch.json" "$tmp/q.pytorch.json"
k=$(import_vllm "$d" "$tmp/q.pytorch.json")
check "throughput side file with --dtype bfloat16 --quantization fp8: in the configuration" \
  "|engine=vllm serve.dtype=bfloat16 serve.quantization=fp8" \
  "$(db="$d" sql "SELECT coalesce(r.dtype, '') || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$k%'")"
"$XP" --db "$d" compare "$a" "$p" > "$tmp/cmp" 2>&1
grep -q '^  dp: A (unset); B 4$' "$tmp/cmp" && grep -q '^  pp: A (unset); B 2$' "$tmp/cmp" ||
  { echo "FAIL: xp compare does not tell the parallel sizes apart:"; cat "$tmp/cmp"; fail=1; }
b=$(import_vllm "$d" "$fmt/sglang_offline_throughput.jsonl" --set model=Qwen/Qwen3-8B)
"$XP" --db "$d" compare "$a" "$b" > "$tmp/cmp" 2>&1
grep -qE '^offline +\{\} +total_token_throughput +tok/s +32000 +32000 ' "$tmp/cmp" ||
  { echo "FAIL: vLLM's and SGLang's offline throughput do not pair:"; cat "$tmp/cmp"; fail=1; }
not_charted "an offline throughput"
d="$tmp/sidelat.db"
a=$(import_vllm "$d" "$fmt/vllm_latency.pytorch.json")
check "latency side file: a case a batch, each iteration a sample in ms" \
  "batch=16,input=1024,output=16|batch_latency_ms|ms|5|449|450.6|444|461" \
  "$(db="$d" sql "SELECT case_name || '|' || metric || '|' || unit || '|' || n || '|' || printf('%.10g', median) || '|' || printf('%.10g', mean) || '|' || printf('%.10g', min) || '|' || printf('%.10g', max) FROM run_metrics" | tr -d '"')"
check "latency side file: vLLM's engine, the model and TP from the args" "vllm|Qwen/Qwen3-8B|1" \
  "$(db="$d" sql "SELECT engine || '|' || model || '|' || tp FROM runs")"
"$XP" --db "$d" import vllm-bench "$fmt/vllm_latency.pytorch.json" --dry-run > "$tmp/plan" 2>&1
grep -qE '^batch=16,input=1024,output=16 +449\.00 +- +- +- +-$' "$tmp/plan" || { echo "FAIL: the latency's summary:"; cat "$tmp/plan"; fail=1; }
b=$(import_vllm "$d" "$fmt/sglang_one_batch_2025.jsonl" --set model=Qwen/Qwen3-8B)
"$XP" --db "$d" compare "$a" "$b" > "$tmp/cmp" 2>&1
grep -qE '^batch=16,input=1024,output=16 .* batch_latency_ms +ms +449 +436\.1 ' "$tmp/cmp" ||
  { echo "FAIL: vLLM's latency and SGLang's batch=16 do not pair:"; cat "$tmp/cmp"; fail=1; }
# vllm bench serve's side file is its result less the per-request lists: the same values, case
# and TP (--metadata tp=2) as the result it was written beside
d="$tmp/sideserve.db"
a=$(import_vllm "$d" "$XP_SRC/tests/data/vllm_bench/serve_c16_goodput.json")
b=$(import_vllm "$d" "$fmt/vllm_serve_c16.pytorch.json")
values() { db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ')
  FROM (SELECT m.* FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$1%' AND m.n = 1 ORDER BY m.metric)"; }
check "serve side file: the values of the result beside it" "$(values "$a")" "$(values "$b")"
check "serve side file: 32 values" 32 "$(values "$b" | wc -w)"
check "serve side file: its case and TP" "concurrency=16|2" \
  "$(db="$d" sql "SELECT c.name || '|' || r.tp FROM runs r JOIN cases c ON c.run_id = r.id WHERE r.uuid LIKE '$b%'")"
# the side file's args keep --goodput's SLO targets (["ttft:60", "tpot:15"]), which the result
# does not: a setting of its case, so that a goodput against other targets is not paired with it
check "serve side file: the goodput's SLO targets a setting of its case" '"goodput":"[\"tpot:15\",\"ttft:60\"]"' \
  "$(db="$d" sql "SELECT c.params FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$b%'" |
     sed 's/""/"/g' | grep -o '"goodput":"[^]]*]"')"
sed 's/"ttft:60", "tpot:15"/"ttft:120", "tpot:15"/g; s/"duration": 0.295807/"duration": 0.295809/g' \
  "$fmt/vllm_serve_c16.pytorch.json" > "$tmp/slo120.pytorch.json"
s=$(import_vllm "$d" "$tmp/slo120.pytorch.json")
"$XP" --db "$d" compare "$b" "$s" > "$tmp/cmp" 2>&1
grep -qE "^  concurrency=16 only in A: B's concurrency=16 is another workload: goodput: A .*ttft:60.*, B .*ttft:120" "$tmp/cmp" ||
  { echo "FAIL: goodputs against other SLO targets paired:"; cat "$tmp/cmp"; fail=1; }
# the result names the targets only as --metadata goodput="ttft:60 tpot:15" (vllm bench serve
# copies a KEY=VALUE as given, after num_prompts: main_async of vllm/benchmarks/serve.py 009e6d4):
# the same setting as the side file's args (before: "ttft:60 tpot:15" as written, another
# workload than the side file's ["tpot:15","ttft:60"]); a text not --goodput's kept as written
sed 's/"tp": "2",/"tp": "2", "goodput": "ttft:60 tpot:15",/' "$XP_SRC/tests/data/vllm_bench/serve_c16_goodput.json" > "$tmp/meta_slo.json"
sed 's/"tp": "2",/"tp": "2", "goodput": "strict",/' "$XP_SRC/tests/data/vllm_bench/serve_c16_goodput.json" > "$tmp/meta_word.json"
m=$(import_vllm "$d" "$tmp/meta_slo.json")
w=$(import_vllm "$d" "$tmp/meta_word.json")
check "serve --metadata goodput=: the targets as the side file's" '["tpot:15","ttft:60"]|strict' \
  "$(db="$d" sql "SELECT json_extract(c.params, '\$.goodput') || '|' || (SELECT json_extract(c2.params, '\$.goodput') FROM cases c2 JOIN runs r2 ON r2.id = c2.run_id WHERE r2.uuid LIKE '$w%') FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$m%'" | sed 's/""/"/g; s/^"//; s/"$//')"
sed 's/\["ttft:60", "tpot:15"\]/"ttft 60"/g' "$fmt/vllm_serve_c16.pytorch.json" > "$tmp/slobad.pytorch.json"
one_line "serve side file: goodput targets not --goodput's" 2 \
  'slobad.pytorch.json:1: record 0: benchmark.extra_info.args.goodput: expected --goodput'"'"'s targets (."ttft:60", ....), found a string' \
  "$XP" --db "$tmp/slobad.db" import vllm-bench "$tmp/slobad.pytorch.json"
cp "$XP_SRC/tests/data/vllm_bench/serve_c16_goodput.json" "$tmp/c16.json"
cp "$fmt/vllm_serve_c16.pytorch.json" "$tmp/c16.pytorch.json"
one_line "serve side file given with the result beside it" 2 \
  "c16.pytorch.json:1: the same result as $tmp/c16.json:1 (vllm bench serve writes its result again, less the per-request lists, to the .pytorch.json beside it): each case would count twice; give one of them" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/c16.json" "$tmp/c16.pytorch.json"
# told by content, not by name: a copy renamed, or kept in another folder, is the same result
mkdir "$tmp/side"
cp "$fmt/vllm_serve_c16.pytorch.json" "$tmp/side/c16.pytorch.json"
cp "$fmt/vllm_serve_c16.pytorch.json" "$tmp/c16-tp2.pytorch.json"
one_line "serve side file in another folder, with its result" 2 \
  "side/c16.pytorch.json:1: the same result as $tmp/c16.json:1 " \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/c16.json" "$tmp/side/c16.pytorch.json"
one_line "serve side file renamed, given before its result" 2 \
  "c16-tp2.pytorch.json:1: the same result as $tmp/c16.json:1 " \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/c16-tp2.pytorch.json" "$tmp/c16.json"
# another measurement of that point (its duration differs, in the last digit) is another result
sed 's/"duration": 0.295807/"duration": 0.295808/g' "$tmp/c16.pytorch.json" > "$tmp/other.pytorch.json"
o=$(import_vllm "$tmp/other.db" "$tmp/c16.json" "$tmp/other.pytorch.json")
check "another measurement's side file: both results recorded" "concurrency=16 concurrency=16" \
  "$(db="$tmp/other.db" query "SELECT group_concat(name, ' ') FROM cases")"

# a side file that is not one run of those three: refused in one line, nothing recorded
refused_side() { # refused_side WHAT SAMPLE NAME PYTHON LINE: SAMPLE's records (r) after PYTHON,
  # json.dump as vLLM writes them, into NAME.pytorch.json: refused with LINE, exit 2
  python3 -c "import json, sys; r = json.load(open(sys.argv[1])); $4; json.dump(r, open(sys.argv[2], 'w'))" \
    "$fmt/$2.pytorch.json" "$tmp/$3.pytorch.json"
  one_line "$1" 2 "$3.pytorch.json:1: $5" "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/$3.pytorch.json"
}
refused_side "side file: benchmark_values not a list" vllm_throughput vals \
  "r[1]['metric']['benchmark_values'] = 32000.0" \
  "record 1: metric.benchmark_values: expected an array, found a number"
refused_side "side file: records of two runs" vllm_throughput two \
  "r[1]['metric']['extra_info']['elapsed_time'] = 21.0" \
  "record 1: its metric.extra_info differs from record 0's (the records of one run share it)"
refused_side "throughput side file without its elapsed time" vllm_throughput notime \
  "[x['metric']['extra_info'].pop('elapsed_time') for x in r]" \
  "record 0: metric.extra_info.elapsed_time: expected a number, found nothing"
refused_side "latency side file without its batch size" vllm_latency nobatch \
  "del r[0]['benchmark']['extra_info']['args']['batch_size']" \
  "record 0: benchmark.extra_info.args.batch_size: missing; the case is named by it"
refused_side "latency side file: an iteration of no time" vllm_latency zero \
  "r[0]['metric']['benchmark_values'][2] = 0" \
  "record 0: metric \"latency\": benchmark_values entry 2: expected a time in seconds > 0, found one <= 0"
refused_side "side file of another benchmark" vllm_latency beam \
  "r[0]['benchmark']['name'] = 'vLLM beam search benchmark'" \
  "record 0: benchmark.name \"vLLM beam search benchmark\": not vllm bench serve's, throughput's or latency's"
refused_side "side file of another metric" vllm_latency prefill \
  "r[0]['metric']['name'] = 'prefill_128_mean_ms'" \
  "record 0: metric \"prefill_128_mean_ms\": not one vllm bench serve, throughput or latency writes"
head -c 700 "$fmt/vllm_throughput.pytorch.json" > "$tmp/cut.pytorch.json"
one_line "side file cut short" 2 "cut.pytorch.json:1: not valid JSON" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/cut.pytorch.json"
printf '[]\n' > "$tmp/empty.pytorch.json"
one_line "side file with no record" 2 "empty.pytorch.json:1: an empty list: no benchmark record" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/empty.pytorch.json"
{ cat "$fmt/vllm_latency.pytorch.json"; printf '\n'; cat "$fmt/vllm_latency.pytorch.json"; } > "$tmp/twice.pytorch.json"
one_line "two lists in one side file" 2 "twice.pytorch.json:2: more JSON after the list of records" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/twice.pytorch.json"
check "nothing recorded by the side files refused" "no" "$([ -e "$tmp/bad.db" ] && echo yes || echo no)"

# sglang.bench_one_batch_server --profile appends each batch's profiled (slower) run after the
# measured ones, in the same format: nothing tells them from a second run appended, so both are
# kept, with one warning naming the first repeat and how many lines the measured ones are
f="$fmt/sglang_one_batch_server_2026.jsonl"
{ cat "$f"; sed 's/"latency": 0.45/"latency": 0.61/; s/"latency": 1.2,/"latency": 1.48,/' "$f"; } > "$tmp/profiled.jsonl"
"$XP" --db "$tmp/prof.db" import vllm-bench "$tmp/profiled.jsonl" --set model=m > /dev/null 2> "$tmp/err"
check "one batch run again (--profile): exit, one warning" "0 1" "$? $(wc -l < "$tmp/err")"
grep -q '^xp: warning: .*profiled.jsonl:3: batch=1,input=1024,output=16 again (line 1): xp compare pools the two; sglang.bench_one_batch_server --profile .*import its first 2 lines$' "$tmp/err" ||
  { echo "FAIL: no warning of the repeated batch: $(cat "$tmp/err")"; fail=1; }
"$XP" --db "$tmp/once.db" import vllm-bench "$f" --set model=m > /dev/null 2> "$tmp/err"
check "one batch once: no warning" "" "$(cat "$tmp/err")"

# vLLM's throughput and latency results name no model and no load: refused, the tool named and
# the side file that names them pointed to
one_line "vllm bench throughput --output-json" 2 \
  "vllm_throughput.json:1: a vllm bench throughput --output-json result (benchmark_throughput.py's too): it names no model, nor the prompt and output lengths .*; give the .pytorch.json written beside it" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_throughput.json" --set model=m
one_line "vllm bench latency --output-json" 2 \
  "vllm_latency.json:1: a vllm bench latency --output-json result (benchmark_latency.py's too): it names no model, batch size, input or output length.*; give the .pytorch.json written beside it" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_latency.json" --set model=m
# vLLM's offline guided-decoding benchmark writes vllm bench throughput's keys and correct_rate(%):
# refused as what it is, not as a vllm bench throughput result
one_line "benchmark_guided.py" 2 \
  "vllm_guided_offline.json:1: a benchmark_guided.py result (vLLM's offline guided-decoding benchmark): it names no model, dataset or guided ratio" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_guided_offline.json" --set model=m
# vllm bench startup's times (here as vllm bench sweep startup keeps a run, and its summary.json's
# list of runs) serve no request: refused as what they are, not as a serve file missing model_id
one_line "vllm bench sweep startup run" 2 \
  "vllm_sweep_startup_run0.json:1: a vllm bench startup result (vllm bench sweep startup's too): the engine's cold and warm startup times, no serving measurement" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_sweep_startup_run0.json" --set model=m
{ echo '['; sed 's/^/    /' "$fmt/vllm_sweep_startup_run0.json"; echo ']'; } > "$tmp/summary.json"
one_line "vllm bench sweep startup summary" 2 "summary.json:2: a vllm bench startup result" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/summary.json" --set model=m
# vLLM's multi-turn benchmark (benchmarks/multi_turn/benchmark_serving_multi_turn.py) lists each
# request's timings (--stats-json-output) and the conversations (--output-file): neither names the
# model or the load; refused as what they are, not as a serve file missing model_id
one_line "benchmark_serving_multi_turn.py --stats-json-output" 2 \
  "vllm_multi_turn_stats.json:2: a request of vLLM's benchmark_serving_multi_turn.py --stats-json-output: it names no model and no load" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_multi_turn_stats.json" --set model=m
one_line "benchmark_serving_multi_turn.py --output-file" 2 \
  "vllm_multi_turn_conversations.json:2: a conversation (vLLM's benchmark_serving_multi_turn.py --output-file, or its ShareGPT input): the messages with the server's answers, no measurement" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_multi_turn_conversations.json" --set model=m
# genai-perf's and AIPerf's exports and trtllm-bench's report are read (serve_summary_exports.sh,
# serve_trtllm_bench.sh)
check "nothing recorded by the refusals" "no" "$([ -e "$tmp/bad.db" ] && echo yes || echo no)"

# xp import --help says where vllm bench throughput/latency results can be read from: their
# .pytorch.json side files (it said only that their JSON is refused)
"$XP" import --help > "$tmp/help" 2>&1
grep -q 'import their .pytorch.json side' "$tmp/help" || { echo "FAIL: import --help names the .pytorch.json files"; fail=1; }
finish
