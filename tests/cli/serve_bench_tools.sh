#!/usr/bin/env bash
# xp import vllm-bench on the result files of the engines' other benchmark tools
# (tests/data/vllm_bench/formats/PROVENANCE.md, importers/vllm_bench/vb_tools.c): SGLang's
# offline throughput and one-batch benchmarks are read as serve_bench cases, under the serving
# benchmarks' names where the quantity is the same and names of their own where not, and pair in
# xp compare by their load; vLLM's throughput and latency results, which name neither the model
# nor the load, are refused in one line that names the tool.
set -u
. "$XP_SRC/tests/lib.sh"
fmt="$XP_SRC/tests/data/vllm_bench/formats"
imp() { # imp DB FILE [ARGS]: import, the new run's id prefix on stdout
  local d=$1
  shift
  "$XP" --db "$d" import vllm-bench "$@" > /dev/null 2> "$tmp/imperr" || { echo "FAIL: import $*: $(cat "$tmp/imperr")" >&2; fail=1; }
  db="$d" sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1"
}
metrics() { # metrics DB RUN CASE: "metric=median[unit]" of the run's case, sorted
  db="$1" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ')
    FROM (SELECT m.* FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$2%' AND m.case_name = '$3' ORDER BY m.metric)"
}

# sglang.bench_offline_throughput: one case, "offline", its totals under the serving names
# (successful_requests is completed, total_latency the duration), on SGLang's own engine
d="$tmp/off.db"
a=$(imp "$d" "$fmt/sglang_offline_throughput.jsonl" --set model=Qwen/Qwen3-8B)
check "offline throughput: the serving names and units" \
  "completed=1000[requests] duration=20[s] input_throughput=25600[tok/s] last_gen_throughput=7012.5[tok/s] output_throughput=6400[tok/s] request_throughput=50[req/s] total_input_tokens=512000[tokens] total_output_tokens=128000[tokens] total_token_throughput=32000[tok/s]" \
  "$(metrics "$d" "$a" offline)"
check "offline throughput: SGLang's engine, the model declared" "sglang|Qwen/Qwen3-8B|serve_bench" \
  "$(db="$d" query "SELECT engine || '|' || model || '|' || kind FROM runs")"
one_line "offline throughput without a model" 2 \
  "sglang_offline_throughput.jsonl:1: the result names no model (sglang.bench_offline_throughput names none); say which with --set model=NAME" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/sglang_offline_throughput.jsonl"
# the same load again pairs; prompts of 1024 tokens are another load
b=$(imp "$d" "$fmt/sglang_offline_throughput.jsonl" --set model=Qwen/Qwen3-8B)
"$XP" --db "$d" compare "$a" "$b" > "$tmp/cmp" 2>&1
grep -qE '^offline +\{\} +output_throughput +tok/s +6400 +6400 ' "$tmp/cmp" || { echo "FAIL: two offline runs do not pair:"; cat "$tmp/cmp"; fail=1; }
sed 's/"total_input_tokens": 512000/"total_input_tokens": 1024000/' "$fmt/sglang_offline_throughput.jsonl" > "$tmp/off1024.jsonl"
c=$(imp "$d" "$tmp/off1024.jsonl" --set model=Qwen/Qwen3-8B)
"$XP" --db "$d" compare "$a" "$c" > "$tmp/cmp" 2>&1
grep -q "^  offline only in A: B's offline is another workload: prompt tokens a request: A 512, B 1024$" "$tmp/cmp" ||
  { echo "FAIL: 512- and 1024-token offline runs pair:"; cat "$tmp/cmp"; fail=1; }

# sglang.bench_one_batch_server: a case per batch size and lengths, the batch's latency in ms;
# the first versions' output_throughput is over the whole latency (the serving name), the later
# ones' over the time after the last first token (decode_throughput), with the prefill's
d="$tmp/batch.db"
a=$(imp "$d" "$fmt/sglang_one_batch_server_2024.jsonl" --set model=m)
check "one batch 2024: a case per batch" "batch=1,input=1024,output=16 batch=16,input=1024,output=16" \
  "$(db="$d" query "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY seq)" | tr -d '"')"
check "one batch 2024: latency in ms, the output over the whole latency" \
  "batch_latency_ms=1200[ms] output_throughput=213.33[tok/s] total_token_throughput=13866.67[tok/s]" \
  "$(metrics "$d" "$a" batch=16,input=1024,output=16)"
check "one batch 2024: the batch's settings" '{"batch_size":16,"file":"sglang_one_batch_server_2024.jsonl","input_len":1024,"output_len":16,"result":1}' \
  "$(db="$d" sql "SELECT params FROM cases WHERE name = 'batch=16,input=1024,output=16'" | sed 's/""/"/g; s/^"//; s/"$//')"
b=$(imp "$d" "$fmt/sglang_one_batch_server_2026.jsonl" --set model=m)
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
# sglang.bench_one_batch (in-process, no server): the same cases, its prefill and median decode
# step timed inside, on SGLang's engine; it pairs with the server's batch of the same size
c=$(imp "$d" "$fmt/sglang_one_batch_2025.jsonl" --set model=m)
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
"$XP" --db "$d" report --out "$tmp/r.html" > /dev/null 2>&1
grep -q 'No serving benchmarks at a fixed concurrency yet: xp import' "$tmp/r.html" ||
  { echo "FAIL: the report's serving chart counts batch cases as request-rate runs:"; grep -o 'No serving[^<]*' "$tmp/r.html"; fail=1; }

# vLLM's throughput and latency results name no model and no load: refused, the tool named
one_line "vllm bench throughput --output-json" 2 \
  "vllm_throughput.json:1: a vllm bench throughput --output-json result (benchmark_throughput.py's too): it names no model, nor the prompt and output lengths" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_throughput.json" --set model=m
one_line "vllm bench latency --output-json" 2 \
  "vllm_latency.json:1: a vllm bench latency --output-json result (benchmark_latency.py's too): it names no model, batch size, input or output length" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/vllm_latency.json" --set model=m
check "nothing recorded by the refusals" "no" "$([ -e "$tmp/bad.db" ] && echo yes || echo no)"
finish
