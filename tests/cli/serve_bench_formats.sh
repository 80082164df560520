#!/usr/bin/env bash
# xp import vllm-bench on the result formats of other versions of the two clients
# (tests/data/vllm_bench/formats/PROVENANCE.md): each is read under vLLM's metric names and
# units, its case pairs with the other engine's of the same workload in xp compare, and what
# cannot be a generation benchmark is refused in one line.
set -u
. "$XP_SRC/tests/lib.sh"
fmt="$XP_SRC/tests/data/vllm_bench/formats"
metrics() { # metrics DB CASE: "metric=median[unit]" of the case, sorted
  db="$1" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ')
    FROM (SELECT * FROM run_metrics WHERE case_name = '$2' ORDER BY metric)"
}

# SGLang, July 2024 (--multi): no _tokens or _ms in the names, output_token_throughput, and no
# duration or request count. Read under vLLM's names; the rate names each case.
d="$tmp/jul.db"
import_vllm "$d" "$fmt/sglang_2024_07.jsonl" --set model=m > /dev/null
check "SGLang July 2024: a case per rate" "rate=1 rate=2" "$(db="$d" query "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY seq)")"
check "SGLang July 2024: vLLM's names and units" \
  "median_itl_ms=11.75[ms] median_ttft_ms=28.5[ms] output_throughput=161.25[tok/s] total_input_tokens=12040[tokens] total_output_tokens=10512[tokens]" \
  "$(metrics "$d" rate=1)"
check "SGLang July 2024: the engine from the backend" "sglang" "$(db="$d" sql "SELECT engine FROM runs")"
"$XP" --db "$d" import vllm-bench "$fmt/sglang_2024_07.jsonl" --set model=m --dry-run > "$tmp/plan" 2>&1
grep -qE '^rate=1 +- +- +161\.25 +28\.50 +- +11\.75$' "$tmp/plan" || { echo "FAIL: no request count shown as '-': $(cat "$tmp/plan")"; fail=1; }

# with --disable-stream there is no inter-token gap: SGLang wrote np.median([0]), no measurement
sed '1s/"median_itl": 11.75/"median_itl": 0.0/' "$fmt/sglang_2024_07.jsonl" > "$tmp/nostream.jsonl"
import_vllm "$tmp/nostream.db" "$tmp/nostream.jsonl" --set model=m > /dev/null
check "SGLang July 2024 without streaming: no ITL of 0 ms" "median_ttft_ms" \
  "$(db="$tmp/nostream.db" query "SELECT group_concat(metric, ' ') FROM run_metrics WHERE case_name = 'rate=1' AND unit = 'ms'")"

# SGLang, late July 2024: the retokenized count and the e2e latency, still unsuffixed; at rate 4
# with 512-token prompts it is the workload of vLLM 0.3.3's file (rate 4, 512 tokens a prompt),
# and the two pair
d="$tmp/retok.db"
va=$(import_vllm "$d" "$fmt/vllm_0.3.3.json")
sb=$(import_vllm "$d" "$fmt/sglang_2024_retok.jsonl" --set model=meta-llama/Llama-2-7b-chat-hf)
check "SGLang late July 2024: vLLM's names and units" \
  "completed=64[requests] mean_e2el_ms=1893.5[ms] median_e2el_ms=1850.25[ms] median_itl_ms=14.5[ms] median_ttft_ms=41.5[ms] output_throughput=512[tok/s] total_input_tokens=32768[tokens] total_output_tokens=8192[tokens] total_output_tokens_retokenized=8177[tokens]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.engine = 'sglang' ORDER BY metric)")"
"$XP" --db "$d" compare "$va" "$sb" > "$tmp/cmp" 2>&1
check "vLLM 0.3.3 against SGLang July 2024: compare exit" 0 $?
grep -qE '^rate=4 +\{"request_rate":4\} +median_ttft_ms +ms +40 +41\.5 ' "$tmp/cmp" || { echo "FAIL: the rate=4 cases do not pair:"; cat "$tmp/cmp"; fail=1; }
grep -q '^  rate=4 only in' "$tmp/cmp" && { echo "FAIL: a case unpaired:"; grep 'only in' "$tmp/cmp"; fail=1; }
# a latency below TTFT is named as that version spells both
sed 's/"median_e2e_latency": 1850.25/"median_e2e_latency": 20.5/' "$fmt/sglang_2024_retok.jsonl" > "$tmp/short.jsonl"
one_line "SGLang July 2024: a median latency below the median TTFT" 2 \
  "short.jsonl:1: median_e2e_latency: 20.5 ms, shorter than median_ttft (41.5 ms)" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/short.jsonl" --set model=m
sed 's/"output_token_throughput": 161.25/"output_token_throughput": "fast"/' "$fmt/sglang_2024_07.jsonl" > "$tmp/type.jsonl"
one_line "SGLang July 2024: a throughput not a number" 2 \
  "type.jsonl:1: output_token_throughput: expected a number, found a string" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/type.jsonl" --set model=m
# without it nothing tells the line from a vLLM result that lacks its keys
sed 's/"output_token_throughput": [0-9.]*, //' "$fmt/sglang_2024_07.jsonl" > "$tmp/noout.jsonl"
one_line "SGLang July 2024 without its throughput" 2 \
  "noout.jsonl:1: missing key \"model_id\" (not a vllm bench serve --save-result file?)" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/noout.jsonl" --set model=m

# SGLang's unmerged refactor (PR 10409): the totals unsuffixed, --output-details' lists nested
# under "details" (4 requests, the third failed)
d="$tmp/pr.db"
import_vllm "$d" "$fmt/sglang_pr10409_details.jsonl" --set model=m > /dev/null
check "PR 10409: per-request TTFTs from details, the failure left out" "3" \
  "$(db="$d" sql "SELECT n FROM run_metrics WHERE metric = 'ttft_ms'")"
check "PR 10409: totals and retokenized throughputs" \
  "output_throughput_retokenized=46[tok/s] total_input_tokens=1536[tokens] total_output_tokens_retokenized=23[tokens] total_throughput_retokenized=3118[tok/s]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric IN ('total_input_tokens', 'total_output_tokens_retokenized', 'output_throughput_retokenized', 'total_throughput_retokenized') ORDER BY metric)")"
sed 's/"details": {/"details": "none", "x": {/' "$fmt/sglang_pr10409_details.jsonl" > "$tmp/details.jsonl"
one_line "PR 10409: details not an object" 2 "details.jsonl:1: details: expected an object, found a string" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/details.jsonl" --set model=m
sed 's/"ttfts": \[[0-9.e-]*,/"ttfts": [-0.5,/' "$fmt/sglang_pr10409_details.jsonl" > "$tmp/neg.jsonl"
one_line "PR 10409: a negative TTFT in details" 2 "neg.jsonl:1: ttfts: entry 0: expected a number >= 0, found -0.5" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/neg.jsonl" --set model=m

# SGLang 2026: p90 and p95 of every latency, --cache-report's totals; a multi-turn line counts
# no prompt (total_input_tokens 0), which is no measurement and must not keep it from pairing
d="$tmp/2026.db"
sb=$(import_vllm "$d" "$fmt/sglang_2026.jsonl" --set model=Qwen/Qwen3-0.6B)
check "SGLang 2026: p90/p95 under vLLM's names" "p90_e2el_ms=ms p90_ttft_ms=ms p95_e2el_ms=ms p95_tpot_ms=ms" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || unit, ' ') FROM (SELECT * FROM run_metrics WHERE case_name = 'concurrency=8' AND metric IN ('p90_e2el_ms', 'p95_e2el_ms', 'p90_ttft_ms', 'p95_tpot_ms') ORDER BY metric)")"
check "SGLang 2026: the cache report" \
  "cache_hit_rate_pct=25[%] device_cached_tokens=1024[tokens] host_cached_tokens=0[tokens] total_cached_tokens=1024[tokens] total_prompt_tokens=4096[tokens]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE case_name = 'concurrency=8' AND (metric LIKE '%cache%' OR metric LIKE '%cached%' OR metric = 'total_prompt_tokens') ORDER BY metric)")"
check "SGLang 2026 multi-turn: no input count, nor throughputs made of it" "" \
  "$(db="$d" query "SELECT group_concat(metric, ' ') FROM run_metrics WHERE case_name = 'concurrency=4' AND metric IN ('total_input_tokens', 'total_input_text_tokens', 'input_throughput', 'total_token_throughput')")"
check "SGLang 2026 multi-turn: the output throughput kept" "256" \
  "$(db="$d" sql "SELECT median FROM run_metrics WHERE case_name = 'concurrency=4' AND metric = 'output_throughput'")"
sed -e 's/"max_concurrency": 8/"max_concurrency": 4/' -e 's/"total_input_tokens": 1920/"total_input_tokens": 7680/' \
  "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/vllm_c4.json"
va=$(import_vllm "$d" "$tmp/vllm_c4.json")
"$XP" --db "$d" compare "$va" "$sb" > "$tmp/cmp" 2>&1
grep -qE '^concurrency=4 .* median_ttft_ms +ms +27\.32 +44 ' "$tmp/cmp" ||
  { echo "FAIL: vLLM's concurrency=4 and SGLang's multi-turn one do not pair:"; grep 'concurrency=4' "$tmp/cmp"; fail=1; }
# a multi-turn line that says what its requests sent (--output-details' input_lens: each round's
# prompt, the conversation so far; or --cache-report's total_prompt_tokens): the count is
# rebuilt from it over the requests that succeeded (500+1020+1540+520+1040 of 5, the sixth
# failed), so the case pairs by its own load: 924 tokens a request, not vLLM's 512
d="$tmp/mt.db"
sb=$(import_vllm "$d" "$fmt/sglang_2026_multiturn.jsonl" --set model=Qwen/Qwen3-0.6B)
check "SGLang 2026 multi-turn: the prompt count rebuilt from input_lens, and the throughputs of it" \
  "input_throughput=9240[tok/s] total_input_tokens=4620[tokens] total_token_throughput=9320[tok/s]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric IN ('total_input_tokens', 'total_input_text_tokens', 'input_throughput', 'total_token_throughput') ORDER BY metric)")"
va=$(import_vllm "$d" "$tmp/vllm_c4.json")
"$XP" --db "$d" compare "$va" "$sb" > "$tmp/cmp" 2>&1
grep -q "^  concurrency=4 only in A: B's concurrency=4 is another workload: prompt tokens a request: A 512, B 924$" "$tmp/cmp" ||
  { echo "FAIL: vLLM's 512-token concurrency=4 pairs with SGLang's multi-turn one of 924:"; grep 'concurrency=4' "$tmp/cmp"; fail=1; }
sed 's/"total_input_tokens": 7680/"total_input_tokens": 13860/' "$tmp/vllm_c4.json" > "$tmp/vllm_c4_924.json"
va=$(import_vllm "$d" "$tmp/vllm_c4_924.json")
"$XP" --db "$d" compare "$va" "$sb" > "$tmp/cmp" 2>&1
grep -qE '^concurrency=4 .* median_ttft_ms +ms +27\.32 +38 ' "$tmp/cmp" ||
  { echo "FAIL: vLLM's 924-token concurrency=4 and SGLang's multi-turn one do not pair:"; grep 'concurrency=4' "$tmp/cmp"; fail=1; }
python3 - "$fmt/sglang_2026_multiturn.jsonl" "$tmp/mt_cache.jsonl" "$tmp/mt_short.jsonl" <<'PY'
import json, sys
line = json.loads(open(sys.argv[1]).read())
cache = {k: v for k, v in line.items() if k != "input_lens"}
open(sys.argv[2], "w").write(json.dumps(cache) + "\n")
line["input_lens"] = line["input_lens"][:5]
open(sys.argv[3], "w").write(json.dumps(line) + "\n")
PY
import_vllm "$tmp/mtc.db" "$tmp/mt_cache.jsonl" --set model=m > /dev/null
check "SGLang 2026 multi-turn without input_lens: the count from the cache report" "4620" \
  "$(db="$tmp/mtc.db" sql "SELECT median FROM run_metrics WHERE metric = 'total_input_tokens'")"
one_line "SGLang 2026 multi-turn: input_lens cut short" 2 \
  "mt_short.jsonl:1: input_lens: has 5 entries but the other lists 6 (one per request): the prompt tokens of a multi-turn benchmark cannot be counted" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/mt_short.jsonl" --set model=m
sed 's/"cache_hit_rate_pct": 25.0/"cache_hit_rate_pct": -25.0/' "$fmt/sglang_2026.jsonl" > "$tmp/cache.jsonl"
one_line "SGLang 2026: a negative cache hit rate" 2 "cache.jsonl:1: cache_hit_rate_pct: expected a number >= 0, found -25" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/cache.jsonl" --set model=m
one_line "SGLang 2026: an embedding benchmark" 2 \
  "sglang_2026_embedding.jsonl:1: backend: \"sglang-embedding\": an embedding benchmark; serve_bench records generation benchmarks" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/sglang_2026_embedding.jsonl" --set model=m
check "nothing recorded by the refusals" "no" "$([ -e "$tmp/bad.db" ] && echo yes || echo no)"

# SGLang 0.5.8 (a real line, formats/PROVENANCE.md): a server of TP 4 and DP 2. Its server_info
# names the model and the parallel sizes: TP the run's tp, DP metadata "dp" (no column holds
# it; the configuration's label names it, schema 21), a PP and EP of 1 (no parallelism of that
# kind) not recorded, so the configuration is the one of any TP-4 SGLang run but for DP, which
# xp compare names
d="$tmp/dp.db"
dp2=$(import_vllm "$d" "$fmt/sglang_0.5.8_tp4_dp2.jsonl")
check "SGLang 0.5.8 TP 4 DP 2: model, TP, PP, EP and configuration" "/workspace/gpt-oss-120b|4|||engine=sglang dp=2 serve.dtype=bfloat16" \
  "$(db="$d" sql "SELECT r.model || '|' || r.tp || '|' || coalesce(r.pp, '') || '|' || coalesce(r.ep, '') || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id")"
check "SGLang 0.5.8 TP 4 DP 2: the parallel sizes as run metadata" "dp=2 tp=4" \
  "$(db="$d" query "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM run_meta WHERE key IN ('tp', 'pp', 'dp', 'ep') ORDER BY key)")"
check "SGLang 0.5.8 TP 4 DP 2: the result's numbers" "866.5077001|3842.531911|100" \
  "$(db="$d" sql "SELECT group_concat(printf('%.10g', median), '|') FROM (SELECT median FROM run_metrics WHERE metric IN ('median_ttft_ms', 'output_throughput', 'completed') ORDER BY metric DESC)")"
sed 's/"dp_size": 2/"dp_size": 1/' "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/dp1.jsonl"
dp1=$(import_vllm "$d" "$tmp/dp1.jsonl")
"$XP" --db "$d" compare "$dp1" "$dp2" > "$tmp/cmp" 2>&1
grep -q '^  dp: A (unset); B 2$' "$tmp/cmp" || { echo "FAIL: xp compare does not tell DP 1 from DP 2:"; cat "$tmp/cmp"; fail=1; }
sed 's/"pp_size": 1/"pp_size": 2/; s/"ep_size": 1/"ep_size": 4/' "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/pp2.jsonl"
import_vllm "$tmp/pp.db" "$tmp/pp2.jsonl" > /dev/null
check "SGLang PP 2, EP 4: the runs' pp and ep columns and the configuration" "2|4|engine=sglang ep=4 pp=2 dp=2 serve.dtype=bfloat16" \
  "$(db="$tmp/pp.db" sql "SELECT r.pp || '|' || r.ep || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id")"
# the server's KV cache dtype (ServerArgs kv_cache_dtype, in get_server_info as every server arg):
# fp8_e5m2 a part of the configuration
sed 's/"quantization": null,/"quantization": null, "kv_cache_dtype": "fp8_e5m2",/' "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/kv.jsonl"
import_vllm "$tmp/kv.db" "$tmp/kv.jsonl" > /dev/null
check "SGLang --kv-cache-dtype fp8_e5m2: the KV cache's dtype in the configuration" "engine=sglang dp=2 serve.dtype=bfloat16 serve.kv_cache_dtype=fp8_e5m2" \
  "$(db="$tmp/kv.db" sql "SELECT config FROM run_configuration")"
# the server's --dtype and --quantization as set (ServerArgs dtype, quantization): settings of its
# configuration, named by xp compare, never xp's dtype (the GEMMs'): this gpt-oss-120b ran its
# checkpoint's MXFP4 with quantization null and dtype bfloat16, which SGLang writes for it
check "SGLang server_info dtype bfloat16, quantization null: a setting, not xp's dtype" "|bfloat16|0" \
  "$(db="$d" sql "SELECT coalesce(r.dtype, '') || '|' || m.value || '|' || (SELECT count(*) FROM run_meta WHERE run_id = r.id AND key = 'serve.quantization') FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = 'serve.dtype' WHERE r.uuid LIKE '$dp2%'")"
sed 's/"dtype": "bfloat16", "quantization": null/"dtype": "float16", "quantization": "fp8"/' "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/q.jsonl"
q=$(import_vllm "$d" "$tmp/q.jsonl")
check "SGLang --dtype float16 --quantization fp8: both in the configuration" "engine=sglang dp=2 serve.dtype=float16 serve.quantization=fp8" \
  "$(db="$d" sql "SELECT g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$q%'")"
"$XP" --db "$d" compare "$dp2" "$q" > "$tmp/cmp" 2>&1
grep -q '^  serve.quantization: A (unset); B fp8$' "$tmp/cmp" && grep -q '^  serve.dtype: A bfloat16; B float16$' "$tmp/cmp" ||
  { echo "FAIL: xp compare does not tell SGLang's dtype and quantization apart:"; cat "$tmp/cmp"; fail=1; }
sed 's/"dtype": "bfloat16"/"dtype": "auto"/' "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/auto.jsonl"
import_vllm "$tmp/auto.db" "$tmp/auto.jsonl" > /dev/null
check "SGLang --dtype auto: none" "engine=sglang dp=2" "$(db="$tmp/auto.db" sql "SELECT config FROM run_configuration")"
# the server's speculative decoding (ServerArgs speculative_algorithm and its draft's steps, top-k
# and tokens) and DP attention (enable_dp_attention: its dp_size splits each TP group's attention,
# tp_size GPUs in all, not DP replicas: serve.dp_size, no dp): settings of the configuration, so an
# EAGLE run and a plain one are told apart; false, null and a draft's numbers without an algorithm
# are none (before: dp=2 beside tp=4, eight GPUs where the server ran on four)
sed 's/"enable_dp_attention": false/"enable_dp_attention": true, "speculative_algorithm": "EAGLE", "speculative_num_steps": 3, "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4/' \
  "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/eagle.jsonl"
e=$(import_vllm "$d" "$tmp/eagle.jsonl")
check "SGLang EAGLE with DP attention: both in the configuration" \
  "engine=sglang serve.dp_size=2 serve.dtype=bfloat16 serve.enable_dp_attention=true serve.speculative_algorithm=EAGLE serve.speculative_eagle_topk=1 serve.speculative_num_draft_tokens=4 serve.speculative_num_steps=3" \
  "$(db="$d" sql "SELECT g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id WHERE r.uuid LIKE '$e%'")"
check "SGLang DP attention: TP 4, its dp_size no DP" "tp=4" \
  "$(db="$d" sql "SELECT group_concat(m.key || '=' || m.value, ' ') FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$e%' AND m.key IN ('tp', 'pp', 'dp', 'ep')")"
sed 's/"enable_dp_attention": false/"enable_dp_attention": false, "speculative_algorithm": null, "speculative_num_steps": 0/' \
  "$fmt/sglang_0.5.8_tp4_dp2.jsonl" > "$tmp/nospec.jsonl"
import_vllm "$tmp/nospec.db" "$tmp/nospec.jsonl" > /dev/null
check "SGLang without speculative decoding or DP attention: neither" "engine=sglang dp=2 serve.dtype=bfloat16" \
  "$(db="$tmp/nospec.db" sql "SELECT config FROM run_configuration")"

# vLLM 0.3-0.4 benchmark_serving.py: --version is the engine's, run metadata and not a setting
# of the case, so the same load on two versions pairs (and the versions are named apart)
d="$tmp/ver.db"
v3=$(import_vllm "$d" "$fmt/vllm_0.3.3.json")
v4=$(import_vllm "$d" "$fmt/vllm_0.4.0.json")
check "vLLM 0.3-0.4: engine_version as run metadata" "0.3.3|trace 0.4.0|trace" \
  "$(db="$d" query "SELECT group_concat(value || '|' || source, ' ') FROM (SELECT * FROM run_meta WHERE key = 'engine_version' ORDER BY value)")"
check "vLLM 0.3-0.4: the case's settings" '{"best_of":1,"file":"vllm_0.3.3.json","num_prompts":6,"request_rate":4,"use_beam_search":false}' \
  "$(db="$d" sql "SELECT params FROM cases ORDER BY id LIMIT 1" | sed 's/""/"/g; s/^"//; s/"$//')"
"$XP" --db "$d" compare "$v3" "$v4" > "$tmp/cmp" 2>&1
grep -qE '^rate=4 .* median_ttft_ms +ms +40 +40 ' "$tmp/cmp" || { echo "FAIL: two vLLM versions' rate=4 do not pair:"; cat "$tmp/cmp"; fail=1; }
grep -q '^  engine_version: A 0.3.3; B 0.4.0$' "$tmp/cmp" || { echo "FAIL: the versions are not named apart:"; cat "$tmp/cmp"; fail=1; }
sed 's/"version": "0.3.3"/"version": "N\/A"/' "$fmt/vllm_0.3.3.json" > "$tmp/na.json"
import_vllm "$tmp/na.db" "$tmp/na.json" > /dev/null
check "vLLM --version's default N/A names no version" 0 "$(db="$tmp/na.db" sql "SELECT count(*) FROM run_meta WHERE key = 'engine_version'")"

# vllm bench sweep serve (real files, formats/PROVENANCE.md): a point's run=N.json is vllm bench
# serve's result, then run_number and the point's overrides (max_num_seqs, a server setting);
# its summary.json the list of the point's runs. The overrides are settings of the case, not
# metrics; run_number is neither, so a point's runs pool as one case
d="$tmp/sweep.db"
import_vllm "$d" "$fmt/vllm_sweep_seqs4_run0.json" "$fmt/vllm_sweep_seqs8_summary.json" > /dev/null
check "vllm bench sweep: a case a run, the server setting in its settings" \
  "concurrency=2:4:vllm_sweep_seqs4_run0.json: concurrency=2:8:vllm_sweep_seqs8_summary.json:0 concurrency=2:8:vllm_sweep_seqs8_summary.json:1" \
  "$(db="$d" query "SELECT group_concat(name || ':' || json_extract(params, '$.max_num_seqs') || ':' || json_extract(params, '$.file') || ':' || coalesce(json_extract(params, '$.result'), ''), ' ') FROM (SELECT * FROM cases ORDER BY seq)")"
check "vllm bench sweep: run_number and the overrides are no metrics" 0 \
  "$(db="$d" sql "SELECT count(*) FROM run_metrics WHERE metric IN ('run_number', 'max_num_seqs')")"
check "vllm bench sweep: the summary's runs, its numbers" "43.21107800 36.01084350" \
  "$(db="$d" query "SELECT group_concat(printf('%.8f', median), ' ') FROM (SELECT m.median FROM run_metrics m JOIN cases c ON c.id = m.case_id WHERE m.metric = 'median_ttft_ms' AND json_extract(c.params, '$.max_num_seqs') = 8 ORDER BY c.seq)")"
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
r.update(max_num_seqs=4, tensor_parallel_size=2, compilation_config={'mode': 3}, _benchmark_name='tp2')
json.dump(r, open(sys.argv[2], 'w'), indent=4)" "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/tp2.json"
import_vllm "$tmp/tp2.db" "$tmp/tp2.json" > /dev/null
check "vllm bench sweep over TP: the run's TP, the point's name its setting" \
  '2|{"_benchmark_name":"tp2"}' \
  "$(db="$tmp/tp2.db" sql "SELECT r.tp || '|' || json_remove(c.params, '$.file', '$.burstiness', '$.max_concurrency', '$.num_prompts', '$.request_rate') FROM runs r JOIN cases c ON c.run_id = r.id" | sed 's/""/"/g; s/^"//; s/"$//')"
check "vllm bench sweep over TP: the serve overrides, of any type, the run's metadata" \
  'serve.compilation_config={"mode":3} serve.max_num_seqs=4 serve.tensor_parallel_size=2' \
  "$(db="$tmp/tp2.db" query "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM run_meta WHERE key LIKE 'serve.%' ORDER BY key)" | sed 's/""/"/g; s/^"//; s/"$//')"
# a point's summary.json lists its run=N.json files' results again (formats/PROVENANCE.md: the
# point's run=0.json and summary.json, both real): given together, run 0 would count twice
one_line "vllm bench sweep: summary.json with its run file" 2 \
  "vllm_sweep_seqs8_summary.json:2: the same result as .*vllm_sweep_seqs8_run0.json:1 (vllm bench sweep's summary.json lists its run=N.json files' results again)" \
  "$XP" --db "$tmp/twice.db" import vllm-bench "$fmt/vllm_sweep_seqs8_run0.json" "$fmt/vllm_sweep_seqs8_summary.json"
check "vllm bench sweep: nothing recorded of the summary given with its run file" "no" "$([ -e "$tmp/twice.db" ] && echo yes || echo no)"
# ... and imported apart (two runs before, every reader of the history counting run 0 twice,
# queries/regressions.sql comparing it with itself): the summary after its run file records the
# run it adds alone, a warning naming the run that has the other; the run file after its summary,
# nothing new, is refused naming that run; the same file imported again (xp rerun, a corrected
# --set: counted once as its latest) is recorded, and so is another point's run
r0=$(import_vllm "$tmp/apart.db" "$fmt/vllm_sweep_seqs8_run0.json")
"$XP" --db "$tmp/apart.db" import vllm-bench "$fmt/vllm_sweep_seqs8_summary.json" > /dev/null 2> "$tmp/err"
check "vllm bench sweep: summary.json after its run file: exit, one warning" "0 1" "$? $(wc -l < "$tmp/err")"
grep -q "^xp: warning: .*vllm_sweep_seqs8_summary.json:2: the same result as vllm_sweep_seqs8_run0.json:1, imported already as run $r0: not recorded again, so that none counts twice (1 of the 2 results given; the rest recorded)$" "$tmp/err" ||
  { echo "FAIL: vllm bench sweep: no warning of the run imported already: $(cat "$tmp/err")"; fail=1; }
check "vllm bench sweep: summary.json after its run file records the run it adds" "36.01084350" \
  "$(db="$tmp/apart.db" query "SELECT group_concat(printf('%.8f', median), ' ') FROM run_metrics WHERE metric = 'median_ttft_ms' AND run_id = (SELECT max(id) FROM runs)")"
s0=$(import_vllm "$tmp/apart2.db" "$fmt/vllm_sweep_seqs8_summary.json")
one_line "vllm bench sweep: a run file after its summary.json" 2 \
  "vllm_sweep_seqs8_run0.json:1: the same result as vllm_sweep_seqs8_summary.json:2, imported already as run $s0: it would count twice .*; nothing given is new" \
  "$XP" --db "$tmp/apart2.db" import vllm-bench "$fmt/vllm_sweep_seqs8_run0.json"
import_vllm "$tmp/apart.db" "$fmt/vllm_sweep_seqs8_run0.json" > /dev/null
import_vllm "$tmp/apart.db" "$fmt/vllm_sweep_seqs4_run0.json" > /dev/null
check "vllm bench sweep: each run of the point once, the run file again, another point's" "1 1 1 1" \
  "$(db="$tmp/apart.db" query "SELECT group_concat(n, ' ') FROM (SELECT count(c.id) AS n FROM runs r JOIN cases c ON c.run_id = r.id WHERE r.status = 'ok' GROUP BY r.id ORDER BY r.id)")"
# a point run once (--num-runs 1, the default): its summary.json the run=0.json's one result again,
# in a list; another file all the same. A copy of the run file saved with CRLF line ends is that
# file imported again (the same results, in the same form), recorded as a re-import is
python3 -c "import json, sys; json.dump([json.load(open(sys.argv[1]))], open(sys.argv[2], 'w'), indent=4)" \
  "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/summary.json"
r1=$(import_vllm "$tmp/once.db" "$fmt/vllm_sweep_seqs4_run0.json")
one_line "vllm bench sweep: the summary of a point run once, after its run file" 2 \
  "summary.json:2: the same result as vllm_sweep_seqs4_run0.json:1, imported already as run $r1: .*nothing given is new" \
  "$XP" --db "$tmp/once.db" import vllm-bench "$tmp/summary.json"
sed 's/$/\r/' "$fmt/vllm_sweep_seqs4_run0.json" > "$tmp/crlf_run0.json"
"$XP" --db "$tmp/once.db" import vllm-bench "$tmp/crlf_run0.json" > /dev/null 2> "$tmp/err"
check "vllm bench sweep: the run file saved with CRLF, imported again" "0|" "$?|$(cat "$tmp/err")"
# vllm bench serve --append-result adds each run's result to the file that holds the earlier ones
# (../serve_append_c1_c2.json, concurrency 1 then 2): the file imported after each run records the
# new line alone, the first already a run of its own
head -1 "$fmt/../serve_append_c1_c2.json" > "$tmp/appended.json"
import_vllm "$tmp/append.db" "$tmp/appended.json" > /dev/null
cp "$fmt/../serve_append_c1_c2.json" "$tmp/appended.json"
"$XP" --db "$tmp/append.db" import vllm-bench "$tmp/appended.json" > /dev/null 2> "$tmp/err"
check "--append-result imported after each run: a case once each, one warning" "concurrency=1 concurrency=2|1" \
  "$(db="$tmp/append.db" query "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY id)")|$(grep -c 'appended.json:1: the same result as appended.json:1, imported already as run' "$tmp/err")"
import_vllm "$tmp/runs.db" "$fmt/vllm_sweep_seqs8_run0.json" "$fmt/vllm_sweep_seqs4_run0.json" > /dev/null
check "vllm bench sweep: two points' run files, one case each" 2 "$(db="$tmp/runs.db" sql "SELECT count(*) FROM cases")"
# A serve override is the server's, not the workload: run_benchmark of vllm/benchmarks/sweep/
# serve.py adds both sides' overrides after run_number with no boundary, but every bench override
# went to vllm bench serve, which takes only its own arguments (vb_sweep.c). The two real points,
# max_num_seqs 4 and 8, a run each: one workload measured on two server settings, paired by xp
# compare, the setting the runs' metadata and their difference (before: not paired, "another
# workload: max_num_seqs: A 4, B 8")
ra=$(import_vllm "$tmp/pair.db" "$fmt/vllm_sweep_seqs4_run0.json")
rb=$(import_vllm "$tmp/pair.db" "$fmt/vllm_sweep_seqs8_run0.json")
check "vllm bench sweep: the server setting, the runs' metadata" "4 8" \
  "$(db="$tmp/pair.db" query "SELECT group_concat(value, ' ') FROM (SELECT value FROM run_meta WHERE key = 'serve.max_num_seqs' ORDER BY run_id)")"
check "vllm bench sweep: the server setting, no setting of the case" 0 \
  "$(db="$tmp/pair.db" sql "SELECT count(*) FROM cases WHERE json_extract(params, '$.max_num_seqs') IS NOT NULL")"
"$XP" --db "$tmp/pair.db" compare "$ra" "$rb" > "$tmp/cmp" 2>&1
grep -qE '^concurrency=2 +\{.* +median_ttft_ms +ms +44\.9229 +43\.2111 ' "$tmp/cmp" ||
  { echo "FAIL: vllm bench sweep: two server settings of one workload, not paired: $(grep -E '^  .* only in' "$tmp/cmp")"; fail=1; }
grep -q '^  serve.max_num_seqs: A 4; B 8$' "$tmp/cmp" ||
  { echo "FAIL: vllm bench sweep: the server setting not listed as the runs' difference: $(sed -n '/^unfair/,$p' "$tmp/cmp")"; fail=1; }
# ... but two configurations (schema 23): the max_num_seqs 8 point is no newer run of the 4 one,
# whose "regression" regressions.sql listed (+104% better) and xp audit judged by
check "vllm bench sweep: each server setting its own configuration" "serve.max_num_seqs=4;serve.max_num_seqs=8" \
  "$(db="$tmp/pair.db" query "SELECT group_concat(config, ';') FROM (SELECT config FROM run_configuration ORDER BY run_id)")"
check "vllm bench sweep: no regression between two server settings" 0 \
  "$("$XP" --db "$tmp/pair.db" query "$XP_SRC/queries/regressions.sql" --format csv 2> /dev/null | tail -n +2 | wc -l)"
# a bench override the result lacks (random_input_len, or spelt as its flag) follows the serve
# ones and stays the workload, as does a key both commands take (seed); a serve override spelt
# as its flag is the same metadata key
python3 -c "import json, sys; r = json.load(open(sys.argv[1])); del r['max_num_seqs']
r.update({'max-num-seqs': 4, 'gpu_memory_utilization': 0.8, 'seed': 1, 'random_input_len': 32, 'random-output-len': 16})
json.dump(r, open(sys.argv[2], 'w'), indent=4)" "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/bench_side.json"
import_vllm "$tmp/bench_side.db" "$tmp/bench_side.json" > /dev/null
check "vllm bench sweep: bench overrides the case's settings" '{"random-output-len":16,"random_input_len":32,"seed":1}' \
  "$(db="$tmp/bench_side.db" sql "SELECT json_remove(params, '$.file', '$.burstiness', '$.max_concurrency', '$.num_prompts', '$.request_rate') FROM cases" | sed 's/""/"/g; s/^"//; s/"$//')"
# a goodput bench override (one SLO target: apply_to_cmd passes a value as one argument,
# ParameterSweepItem of vllm/benchmarks/sweep/param_sweep.py 0f17ee0) is the same setting a
# .pytorch.json's args.goodput of that target is (["ttft:60"])
python3 -c "import json, sys; r = json.load(open(sys.argv[1])); r['goodput'] = 'ttft:60.0'
json.dump(r, open(sys.argv[2], 'w'), indent=4)" "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/sweep_slo.json"
import_vllm "$tmp/sweep_slo.db" "$tmp/sweep_slo.json" > /dev/null
check "vllm bench sweep: a goodput override as --goodput's targets" '"goodput":"[\"ttft:60\"]"' \
  "$(db="$tmp/sweep_slo.db" sql "SELECT params FROM cases" | sed 's/""/"/g' | grep -o '"goodput":"[^]]*]"')"
check "vllm bench sweep: serve overrides the run's, spelt with underscores" 'serve.gpu_memory_utilization=0.8 serve.max_num_seqs=4' \
  "$(db="$tmp/bench_side.db" query "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM run_meta WHERE key LIKE 'serve.%' ORDER BY key)")"
# --warmup-num-prompts: the point run once first, kept as warmup.json (run_number -1, its
# num_prompts the warmup's; run_comb of vllm/benchmarks/sweep/serve.py): no measurement
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
r.update(num_prompts=2, run_number=-1)
json.dump(r, open(sys.argv[2], 'w'), indent=4)" "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/warmup.json"
one_line "vllm bench sweep: the warmup run" 2 \
  "warmup.json:40: run_number: -1: vllm bench sweep's warmup run (--warmup-num-prompts), not a measurement; leave its warmup.json out" \
  "$XP" --db "$tmp/warm.db" import vllm-bench "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/warmup.json"
check "vllm bench sweep: nothing recorded with the warmup run" "no" "$([ -e "$tmp/warm.db" ] && echo yes || echo no)"
# vLLM's expert parallelism is a switch, --enable-expert-parallel, its size TP x DP
# (FusedMoEParallelConfig.make of vllm/model_executor/layers/fused_moe/config.py): a sweep over it
# (serve override enable_expert_parallel: true, or spelt with dashes as ParameterSweepItem allows)
# records the run's ep from the TP beside it; without a TP, a warning and no ep
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
r.update(tensor_parallel_size=2, enable_expert_parallel=True)
json.dump(r, open(sys.argv[2], 'w'), indent=4)
r = json.load(open(sys.argv[1]))
r.update({'enable-expert-parallel': True})
json.dump(r, open(sys.argv[3], 'w'), indent=4)
r.update({'tensor-parallel-size': 4, 'data-parallel-size': 2})
json.dump(r, open(sys.argv[4], 'w'), indent=4)" "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/ep2.json" "$tmp/ep_notp.json" "$tmp/ep_dashed.json"
import_vllm "$tmp/ep2.db" "$tmp/ep2.json" > /dev/null
check "vllm bench sweep with --enable-expert-parallel and TP 2: EP 2, in the configuration" "2|2|ep=2 serve.max_num_seqs=4" \
  "$(db="$tmp/ep2.db" sql "SELECT r.tp || '|' || r.ep || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id")"
"$XP" --db "$tmp/ep_notp.db" import vllm-bench "$tmp/ep_notp.json" > /dev/null 2> "$tmp/err"
check "vllm bench sweep with --enable-expert-parallel, no TP: a warning" \
  "xp: warning: $tmp/ep_notp.json:1: enable_expert_parallel without a tensor-parallel size: EP (vLLM's TP x DP) not recorded (--metadata tp=N says it)" \
  "$(cat "$tmp/err")"
check "vllm bench sweep with --enable-expert-parallel, no TP: no EP" "" "$(db="$tmp/ep_notp.db" sql "SELECT ep FROM runs")"
import_vllm "$tmp/ep_dashed.db" "$tmp/ep_dashed.json" > /dev/null
check "vllm bench sweep, its overrides spelt as flags (tensor-parallel-size): TP 4, DP 2, EP 8" "4|8|2" \
  "$(db="$tmp/ep_dashed.db" sql "SELECT r.tp || '|' || r.ep || '|' || m.value FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = 'dp'")"
# TensorRT-LLM's fork of benchmark_serving.py (formats/PROVENANCE.md): --save-detailed keeps the
# per-request latencies as "e2els"; read as vLLM's latencies, the requests' e2el and TPOT samples
# agree with the statistics the writer computed of them (3 of 4 succeeded)
d="$tmp/trt.db"
import_vllm "$d" "$fmt/trtllm_serve_c4_detailed.json" > /dev/null
check "TensorRT-LLM: the per-request e2el and TPOT from e2els, as its statistics" \
  "e2el_ms:3:94.2:95.53333333 tpot_ms:3:12.04:12.04" \
  "$(db="$d" query "SELECT group_concat(metric || ':' || n || ':' || printf('%.10g', median) || ':' || printf('%.10g', mean), ' ') FROM (SELECT * FROM run_metrics WHERE metric IN ('e2el_ms', 'tpot_ms') ORDER BY metric)")"
check "TensorRT-LLM: its own median of them" "94.2" "$(db="$d" sql "SELECT printf('%.10g', median) FROM run_metrics WHERE metric = 'median_e2el_ms'")"
# its own measurements, in their units: each request's output over its latency (tok/s), the
# tokens decoded an iteration (speculative decoding), the server's energy (J, W, tokens a joule)
check "TensorRT-LLM: user_throughput, energy and decoded tokens an iteration, with units" \
  "mean_avg_decoded_tokens_per_iter=2.5[tokens] output_tps_per_w=0.12[tok/J] total_energy_j=150[J] total_gpu_power_w=288.4615385[W] user_throughput=62.97384313[tok/s]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric IN ('user_throughput', 'mean_avg_decoded_tokens_per_iter', 'total_energy_j', 'total_gpu_power_w', 'output_tps_per_w') ORDER BY metric)")"
# its backend (openai) names the API; the tokens decoded an iteration come only in TensorRT-LLM's
# servers' answers (backend_request_func.py reads them "from TensorRT-LLM response"): the engine
check "TensorRT-LLM: the engine, from its servers' own field" "tensorrt-llm" "$(db="$d" sql "SELECT engine FROM runs")"
# the version that writes the last value read, 0.0 where no answer carried one (commit f61d71d):
# 0 no measurement and no engine; 1.8 tokens, TensorRT-LLM's server
python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
r['avg_decoded_tokens_per_iter'] = 0.0
json.dump(r, open(sys.argv[2], 'w'))
r['avg_decoded_tokens_per_iter'] = 1.8
json.dump(r, open(sys.argv[3], 'w'))" "$fmt/trtllm_serve_c4_detailed.json" "$tmp/trt_zero.json" "$tmp/trt_one.json"
import_vllm "$tmp/trt_zero.db" "$tmp/trt_zero.json" > /dev/null
import_vllm "$tmp/trt_one.db" "$tmp/trt_one.json" > /dev/null
check "TensorRT-LLM: 0 tokens an iteration, none measured, no engine" "|0" \
  "$(db="$tmp/trt_zero.db" sql "SELECT ifnull(engine, '') FROM runs")|$(db="$tmp/trt_zero.db" sql "SELECT count(*) FROM run_metrics WHERE metric = 'avg_decoded_tokens_per_iter'")"
check "TensorRT-LLM: 1.8 tokens an iteration, and the engine" "tensorrt-llm|1.8[tokens]" \
  "$(db="$tmp/trt_one.db" sql "SELECT engine FROM runs")|$(db="$tmp/trt_one.db" sql "SELECT printf('%.10g', median) || '[' || unit || ']' FROM run_metrics WHERE metric = 'avg_decoded_tokens_per_iter'")"
sed 's/"total_energy_j": 150.0/"total_energy_j": "150"/' "$fmt/trtllm_serve_c4_detailed.json" > "$tmp/trt_energy.json"
one_line "TensorRT-LLM: energy not a number" 2 "trt_energy.json:1: total_energy_j: expected a number, found a string" \
  "$XP" --db "$tmp/bad_trt.db" import vllm-bench "$tmp/trt_energy.json"
sed 's/"e2els": \[0.0902,/"e2els": [0.0102,/' "$fmt/trtllm_serve_c4_detailed.json" > "$tmp/trt_short.json"
one_line "TensorRT-LLM: a latency shorter than its TTFT, named as the file spells it" 2 \
  "trt_short.json:1: e2els: entry 0: 0.0102 s, shorter than its time to first token (0.03 s)" \
  "$XP" --db "$tmp/bad_trt.db" import vllm-bench "$tmp/trt_short.json"
# --continue-on-error: a failed run's or server's error beside its overrides, json.dumps(indent=2)
# (run_comb and run_combs of vllm/benchmarks/sweep/serve.py, vllm-project/vllm 0031557): no
# result, refused as what it is (its error text, a traceback perhaps, not in the one line)
python3 -c "import json, sys
run = {'run_number': 1, 'error_type': 'RuntimeError', 'error': 'Server exited\\nTraceback (most recent call last):',
       'serve_overrides': {'max_num_seqs': 8}, 'bench_overrides': {'max_concurrency': 2, 'num_prompts': 8}}
open(sys.argv[1], 'w').write(json.dumps(run, indent=2) + '\\n')
server = {'error_type': 'TimeoutError', 'error': 'Server failed to start', 'serve_overrides': {'max_num_seqs': 8}}
open(sys.argv[2], 'w').write(json.dumps(server, indent=2) + '\\n')" "$tmp/run=1.failure.json" "$tmp/SERVE-max_num_seqs=8-failure.json"
one_line "vllm bench sweep: a failed run's record" 2 \
  "run=1.failure.json:1: vllm bench sweep's record of a failed run (RuntimeError), no result; leave its failure.json out" \
  "$XP" --db "$tmp/fail.db" import vllm-bench "$fmt/vllm_sweep_seqs4_run0.json" "$tmp/run=1.failure.json"
one_line "vllm bench sweep: a failed server's record" 2 \
  "SERVE-max_num_seqs=8-failure.json:1: vllm bench sweep's record of a failed server (TimeoutError), no result" \
  "$XP" --db "$tmp/fail.db" import vllm-bench "$tmp/SERVE-max_num_seqs=8-failure.json"
# vLLM's structured-output benchmark (formats/PROVENANCE.md): the share of outputs that are what
# the request asked for is a percentage; its per-request timings agree with its statistics
d="$tmp/so.db"
import_vllm "$d" "$fmt/vllm_structured_output.json" > /dev/null
check "structured output: correct_rate(%) in %, and the TTFT samples as its statistics" "correct_rate(%)=75[%] ttft_ms=36[ms]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric IN ('correct_rate(%)', 'ttft_ms') ORDER BY metric)")"
check "structured output: its own median TTFT" "36" "$(db="$d" sql "SELECT printf('%.10g', median) FROM run_metrics WHERE metric = 'median_ttft_ms'")"

# vllm bench serve --skip-tokenizer-init (tokenizer_id null) whose requests reported no usage:
# vLLM counted each request one output token though 8 came apart (its ITLs). The count and the
# throughputs of it are left out, with one warning; the rest (request rate, TTFT, ITL) kept
d="$tmp/notok.db"
"$XP" --db "$d" import vllm-bench "$fmt/vllm_skip_tokenizer_init.json" > /dev/null 2> "$tmp/err"
check "skip-tokenizer-init: exit" 0 $?
check "skip-tokenizer-init: one warning" 1 "$(grep -c '^xp: warning: .*vllm_skip_tokenizer_init.json:1: tokenizer_id null (vllm bench serve --skip-tokenizer-init) and one output token counted a request .*output_throughput .*not recorded$' "$tmp/err")"
check "skip-tokenizer-init: no output count or throughput of it" "completed failed max_concurrent_requests request_throughput total_input_tokens" \
  "$(db="$d" query "SELECT group_concat(metric, ' ') FROM (SELECT metric FROM run_metrics WHERE metric NOT LIKE '%\_ms' ESCAPE '\\' AND metric NOT LIKE '%per_s' AND metric <> 'duration' ORDER BY metric)")"
check "skip-tokenizer-init: TTFT and ITL kept" "ttft_ms=4 itl_ms=28" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || n, ' ') FROM (SELECT metric, n FROM run_metrics WHERE metric IN ('ttft_ms', 'itl_ms') ORDER BY metric DESC)")"
# the same run without --save-detailed: no ITL list, and no TTFT, TPOT or ITL statistic (that
# version writes none without a tokenizer); 32 tokens timed in one second
# (max_output_tokens_per_s), 4 counted in all, tell the fallback
d="$tmp/notok_summary.db"
"$XP" --db "$d" import vllm-bench "$fmt/vllm_skip_tokenizer_init_summary.json" > /dev/null 2> "$tmp/err"
check "skip-tokenizer-init without --save-detailed: exit" 0 $?
check "skip-tokenizer-init without --save-detailed: one warning" 1 "$(grep -c '^xp: warning: .*vllm_skip_tokenizer_init_summary.json:1: tokenizer_id null .* max_output_tokens_per_s above the count.*output_throughput .*not recorded$' "$tmp/err")"
check "skip-tokenizer-init without --save-detailed: no output count or throughput of it" \
  "completed duration e2el_ms failed max_concurrent_requests max_output_tokens_per_s request_throughput total_input_tokens" \
  "$(db="$d" query "SELECT group_concat(metric, ' ') FROM (SELECT metric FROM run_metrics ORDER BY metric)")"
# some streams with usage, some without: two requests counted their 8 tokens, two the fallback's 1
# (18 in all, above completed); the requests counted 1 with gaps timed tell it, and without the
# lists the peak (32 timed in a second) above the 18 counted
python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
r['output_lens'] = [8, 8, 1, 1]
r['total_output_tokens'] = 18
r['output_throughput'] = 18 / r['duration']
r['total_token_throughput'] = (r['total_input_tokens'] + 18) / r['duration']
r['max_output_tokens_per_s'] = 16.0
json.dump(r, open(sys.argv[2], 'w'))
for k in ('input_lens', 'output_lens', 'start_times', 'ttfts', 'itls', 'generated_texts', 'errors'):
    del r[k]
r['max_output_tokens_per_s'] = 32.0
json.dump(r, open(sys.argv[3], 'w'))" "$fmt/vllm_skip_tokenizer_init.json" "$tmp/some_usage.json" "$tmp/some_usage_summary.json"
"$XP" --db "$tmp/some.db" import vllm-bench "$tmp/some_usage.json" > /dev/null 2> "$tmp/err"
check "skip-tokenizer-init, some requests without usage: a warning, no output count" "1|0" \
  "$(grep -c 'tokenizer_id null (vllm bench serve --skip-tokenizer-init)' "$tmp/err")|$(db="$tmp/some.db" sql "SELECT count(*) FROM run_metrics WHERE metric IN ('total_output_tokens', 'output_throughput', 'total_token_throughput')")"
"$XP" --db "$tmp/some_summary.db" import vllm-bench "$tmp/some_usage_summary.json" > /dev/null 2> "$tmp/err"
check "skip-tokenizer-init, some without usage, no lists: the peak tells it" "1|0" \
  "$(grep -c 'tokenizer_id null' "$tmp/err")|$(db="$tmp/some_summary.db" sql "SELECT count(*) FROM run_metrics WHERE metric = 'output_throughput'")"
# every request one token long (a prefill benchmark, --random-output-len 1): as many timed in a
# second as counted at most, no gap; the count is the measurement and is kept
sed 's/"max_output_tokens_per_s": 32.0/"max_output_tokens_per_s": 4.0/' "$fmt/vllm_skip_tokenizer_init_summary.json" > "$tmp/one.json"
"$XP" --db "$tmp/one.db" import vllm-bench "$tmp/one.json" > /dev/null 2> "$tmp/err"
check "one token a request: no warning, the output throughput kept" "0|35.71428571" \
  "$(grep -c warning "$tmp/err")|$(db="$tmp/one.db" sql "SELECT printf('%.10g', median) FROM run_metrics WHERE metric = 'output_throughput'")"
# vllm bench serve --record-power (ROCm): the power statistics merged into the result, in W, the
# samples taken, and tokens a joule; the CPU's null (no socket found) not recorded
d="$tmp/power.db"
import_vllm "$d" "$fmt/vllm_record_power.json" > /dev/null
check "--record-power: units" \
  "input_toks_per_joule=12.7558[tok/J] mean_power_w=679.93[W] median_power_per_accelerator_w=649[W] median_power_w=649[W] num_samples=15[samples] output_toks_per_joule=2.54826[tok/J] p25_power_w=575.5[W] p75_power_w=784.5[W] total_toks_per_joule=15.3041[tok/J]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.6g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric LIKE '%power%' OR metric LIKE '%joule' OR metric LIKE '%samples' ORDER BY metric)")"
# its output and total tokens a joule are made of the output count: without a count, neither
python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
r.update(output_toks_per_joule=0.01, total_toks_per_joule=5.0, input_toks_per_joule=4.99, median_power_w=640.0)
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_skip_tokenizer_init_summary.json" "$tmp/notok_power.json"
import_vllm "$tmp/notok_power.db" "$tmp/notok_power.json" 2> /dev/null > /dev/null
check "skip-tokenizer-init with --record-power: the input's tokens a joule alone" "input_toks_per_joule" \
  "$(db="$tmp/notok_power.db" query "SELECT group_concat(metric, ' ') FROM run_metrics WHERE unit = 'tok/J'")"
# vllm bench serve's NVML energy (GpuEnergyMeter): joules, the seconds they were read over, W,
# joules an output token; which GPUs (a list) is no measurement
d="$tmp/energy.db"
import_vllm "$d" "$fmt/vllm_gpu_energy.json" > /dev/null
check "GPU energy: units" \
  "gpu_avg_power_w=600[W] gpu_energy_duration_s=30[s] gpu_energy_j=18000[J] gpu_energy_per_output_token_j=3[J/tok]" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.6g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric LIKE 'gpu_%' OR metric LIKE 'energy%' ORDER BY metric)")"
sed 's/"gpu_energy_j": 18000.0/"gpu_energy_j": -1.0/' "$fmt/vllm_gpu_energy.json" > "$tmp/energy_neg.json"
"$XP" --db "$tmp/energy_neg.db" import vllm-bench "$tmp/energy_neg.json" > /dev/null 2> "$tmp/err"
check "GPU energy below 0: refused, one line" "2|xp: $tmp/energy_neg.json:1: gpu_energy_j: expected a number >= 0, found -1" "$?|$(cat "$tmp/err")"
# the joules an output token are of the output count: with vLLM's one-token fallback, not recorded
python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
r.update(energy_gpu_ids=[0], gpu_energy_j=90.0, gpu_energy_duration_s=0.14, gpu_avg_power_w=642.9, gpu_energy_per_output_token_j=22.5)
json.dump(r, open(sys.argv[2], 'w'))" "$fmt/vllm_skip_tokenizer_init_summary.json" "$tmp/notok_energy.json"
import_vllm "$tmp/notok_energy.db" "$tmp/notok_energy.json" 2> /dev/null > /dev/null
check "skip-tokenizer-init with GPU energy: the energy kept, not a token's" "gpu_avg_power_w gpu_energy_duration_s gpu_energy_j" \
  "$(db="$tmp/notok_energy.db" query "SELECT group_concat(metric, ' ') FROM (SELECT metric FROM run_metrics WHERE metric LIKE 'gpu_%' ORDER BY metric)")"
# sglang.bench_serving whose requests returned no text (sgl-project/sglang issue 12389's line):
# total_output_tokens is the lengths asked for (300 x 1000), TPOT the latency over 999, TTFT and
# ITL 0; those are left out, with one warning, the latencies and counts kept
d="$tmp/notext.db"
"$XP" --db "$d" import vllm-bench "$fmt/sglang_no_text.jsonl" --set model=Qwen/QwQ-32B > /dev/null 2> "$tmp/err"
check "SGLang, no text returned: exit" 0 $?
check "SGLang, no text returned: one warning" 1 "$(grep -c '^xp: warning: .*sglang_no_text.jsonl:1: total_output_tokens_retokenized 0: no request returned text, .*TPOT not recorded$' "$tmp/err")"
check "SGLang, no text returned: no output count, throughput or TPOT" \
  "completed concurrency duration input_throughput mean_e2el_ms median_e2el_ms p99_e2el_ms request_throughput std_e2el_ms total_input_text_tokens total_input_tokens total_input_vision_tokens total_output_tokens_retokenized" \
  "$(db="$d" query "SELECT group_concat(metric, ' ') FROM (SELECT metric FROM run_metrics ORDER BY metric)")"
# with --output-details: each request's TTFT is the 0 it started at, no sample
python3 -c "import json, sys
r = json.loads(open(sys.argv[1]).readline().replace('Infinity', '1e999'))
n = r['completed']
r.update(input_lens=[250000] * n, output_lens=[1000] * n, ttfts=[0.0] * n, itls=[[]] * n, generated_texts=[''] * n,
         errors=[''] * n)
open(sys.argv[2], 'w').write(json.dumps(r) + '\n')" "$fmt/sglang_no_text.jsonl" "$tmp/notext_details.jsonl"
"$XP" --db "$tmp/notext_details.db" import vllm-bench "$tmp/notext_details.jsonl" --set model=Qwen/QwQ-32B > /dev/null 2>&1
check "SGLang, no text returned, --output-details: no TTFT sample of 0" "0" \
  "$(db="$tmp/notext_details.db" sql "SELECT count(*) FROM run_metrics WHERE metric = 'ttft_ms'")"
# sglang.bench_serving --disable-stream: each answer one chunk, TTFT read a little after the
# latency, TPOT a little below 0; read (not refused: 'mean_tpot_ms: expected a number >= 0'),
# TPOT left out with one warning, TTFT and E2E kept
d="$tmp/nostream2026.db"
"$XP" --db "$d" import vllm-bench "$fmt/sglang_disable_stream.jsonl" --set model=m > /dev/null 2> "$tmp/err"
check "SGLang --disable-stream: exit" 0 $?
check "SGLang --disable-stream: one warning" 1 "$(grep -c '^xp: warning: .*sglang_disable_stream.jsonl:1: no gap timed between tokens .*--disable-stream.*TPOT not recorded$' "$tmp/err")"
check "SGLang --disable-stream: TTFT and E2E kept, no TPOT or ITL" "median_e2el_ms=134 median_ttft_ms=134.04" \
  "$(db="$d" query "SELECT group_concat(metric || '=' || printf('%.6g', median), ' ') FROM (SELECT * FROM run_metrics WHERE metric LIKE 'median%' ORDER BY metric)")"
# with a tokenizer the client would have counted the text: the same counts are then taken as written
sed 's/"tokenizer_id": null/"tokenizer_id": "Qwen\/Qwen3-8B"/' "$fmt/vllm_skip_tokenizer_init.json" > "$tmp/tok.json"
"$XP" --db "$tmp/tok.db" import vllm-bench "$tmp/tok.json" > /dev/null 2> "$tmp/err"
check "with a tokenizer: no warning, the output throughput kept" "0|35.71428571" \
  "$(grep -c warning "$tmp/err")|$(db="$tmp/tok.db" sql "SELECT printf('%.10g', median) FROM run_metrics WHERE metric = 'output_throughput'")"
finish
