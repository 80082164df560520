#!/usr/bin/env bash
# xp import vllm-bench on trtllm-bench's --report_json (TensorRT-LLM's benchmark of its own engine;
# importers/vllm_bench/vb_trtllm.c, tests/data/vllm_bench/formats/PROVENANCE.md): read as a
# serving benchmark's result under vLLM's names and units, the engine tensorrt-llm, TP from
# world_info; its load, which the report does not name, told by when its requests were issued:
# all before the first ended is the offline load, held back needs --set concurrency=N.
set -u
. "$XP_SRC/tests/lib.sh"
fmt="$XP_SRC/tests/data/vllm_bench/formats"
metrics() { # metrics DB RUN PATTERN: "metric=median[unit]" of the run's metrics LIKE PATTERN, sorted
  db="$1" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ')
    FROM (SELECT m.* FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$2%' AND m.metric LIKE '$3'
          ORDER BY m.metric)"
}

# trtllm-bench throughput without --concurrency: its 1000 requests issued within 1 ms, before the
# shortest ended (9.1 s): the offline load; the counts, totals and throughputs under vLLM's names
d="$tmp/t.db"
a=$(import_vllm "$d" "$fmt/trtllm_bench_report.json")
check "all at once: the offline case" 'offline|{"file":"trtllm_bench_report.json","num_prompts":1000}' \
  "$(db="$d" sql "SELECT c.name || '|' || c.params FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$a%'" | sed 's/""/"/g; s/^"//; s/"$//')"
check "all at once: the totals and throughputs" \
  "completed=1000[requests] duration=20.5123[s] output_throughput=6240.1[tok/s] request_throughput=48.75[req/s] total_input_tokens=128000[tokens] total_output_tokens=128000[tokens] total_token_throughput=12480.2[tok/s] user_throughput=7.6[tok/s]" \
  "$(metrics "$d" "$a" '%' | tr ' ' '\n' | grep -vE '_ms=|issue_window' | paste -sd' ')"
check "all at once: the latency's percentiles in ms" \
  "max_e2el_ms=20501.7[ms] mean_e2el_ms=17420.8[ms] median_e2el_ms=17511[ms] min_e2el_ms=9120.3[ms] p90_e2el_ms=19880.2[ms] p95_e2el_ms=20110.4[ms] p99_e2el_ms=20400.9[ms]" \
  "$(metrics "$d" "$a" '%e2el_ms')"
check "all at once: the engine, its version, TP, the model" "tensorrt-llm|1.0.0|1|meta-llama/Llama-3.1-8B" \
  "$(db="$d" sql "SELECT r.engine || '|' || m.value || '|' || r.tp || '|' || r.model FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = 'engine_version' WHERE r.uuid LIKE '$a%'")"
check "all at once: the GPU the report names (machine.name), world_size of them" "NVIDIA H200|1" \
  "$(db="$d" sql "SELECT gpu_name || '|' || gpu_count FROM runs WHERE uuid LIKE '$a%'")"
# the same report again: one load, paired
b=$(import_vllm "$d" "$fmt/trtllm_bench_report.json")
"$XP" --db "$d" compare "$a" "$b" > "$tmp/cmp" 2>&1
grep -qE '^offline +\{"num_prompts":1000\} +output_throughput +tok/s +6240\.1 +6240\.1 ' "$tmp/cmp" ||
  { echo "FAIL: two offline reports do not pair:"; cat "$tmp/cmp"; fail=1; }

# --concurrency 64 --streaming: the requests held back (issued over 14.8 s, past the shortest
# one's 0.92 s), a load the report does not name: refused without --set concurrency, read with it
one_line "held back, no concurrency declared" 2 \
  'trtllm_bench_report_c64_streaming.json:1: the report names no concurrency, and its requests were held back (issued over 14.8 s, past the shortest one.s end: world_info.issue_rate).*say which with --set concurrency=N$' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/trtllm_bench_report_c64_streaming.json"
c=$(import_vllm "$d" "$fmt/trtllm_bench_report_c64_streaming.json" --set concurrency=64)
check "held back: the declared concurrency names the case" 'offline,concurrency=64|64' \
  "$(db="$d" sql "SELECT c.name || '|' || r.concurrency FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$c%'" | tr -d '"')"
check "streaming: TTFT and TPOT percentiles" \
  "max_tpot_ms=7.95[ms] max_ttft_ms=131.9[ms] mean_tpot_ms=7.13[ms] mean_ttft_ms=64.3[ms] median_tpot_ms=7.11[ms] median_ttft_ms=60.2[ms] min_tpot_ms=6.82[ms] min_ttft_ms=31[ms] p90_tpot_ms=7.42[ms] p90_ttft_ms=88.4[ms] p95_tpot_ms=7.51[ms] p95_ttft_ms=97.1[ms] p99_tpot_ms=7.8[ms] p99_ttft_ms=120.3[ms]" \
  "$(metrics "$d" "$c" '%t_ms')"
# a declared concurrency below the requests of a report that issued them all at once: refused
one_line "declared against the report" 2 \
  'trtllm_bench_report.json:1: --set concurrency=64, yet its 1000 requests were all issued before the first ended' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/trtllm_bench_report.json" --set concurrency=64

# what a case needs, missing: one line naming the key
python3 - "$fmt/trtllm_bench_report.json" "$tmp" <<'PY'
import json, sys
base, tmp = json.load(open(sys.argv[1])), sys.argv[2]
def write(name, f):
    d = json.loads(json.dumps(base))
    f(d)
    json.dump(d, open(f"{tmp}/{name}.json", "w"), indent=4)
write("nomodel", lambda d: d["engine"].pop("model"))
write("noout", lambda d: d["performance"].pop("system_output_throughput_tok_s"))
write("noissue", lambda d: d["world_info"].pop("issue_rate"))
write("strreq", lambda d: d["request_info"].update(num_requests="1000"))
# the precisions TensorRT-LLM's reports state (engine.quantization a QuantAlgo, as its printouts
# in NVIDIA/TensorRT-LLM PRs 7104 and 9459 show: "Quantization: NVFP4", "FP8")
write("fp8", lambda d: d["engine"].update(quantization="FP8", kv_cache_dtype="FP8"))
write("nvfp4", lambda d: d["engine"].update(quantization="NVFP4", kv_cache_dtype="FP8"))
write("awq", lambda d: d["engine"].update(quantization="W4A16_AWQ", dtype="float16"))
PY
one_line "no model" 2 'nomodel.json:1: missing key "engine.model": the report names no model$' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/nomodel.json"
one_line "no output throughput" 2 'noout.json:1: missing key "performance.system_output_throughput_tok_s"' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/noout.json"
one_line "no issue rate" 2 'noissue.json:1: the report names no concurrency, nor when its requests were issued' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/noissue.json"
one_line "a count as a string" 2 'strreq.json:1: request_info.num_requests: expected a number >= 0, found a string$' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/strreq.json"

# the report's precision: engine.dtype and quantization as written, and the dtype the GEMMs ran
# at in xp's names (bf16 unquantized, fp8 for FP8, fp16 activations of a weight-only W4A16_AWQ;
# NVFP4 none, no xp dtype means the same), so a declared --set dtype=fp8 is the report's
prec() { db="$1" sql "SELECT coalesce(r.dtype, '-') || '|' || group_concat(m.value, '|') FROM runs r
  JOIN run_meta m ON m.run_id = r.id AND m.key IN ('engine_dtype', 'engine_quantization') WHERE r.uuid LIKE '$2%'
  GROUP BY r.id"; }
check "precision: unquantized bfloat16 is bf16" "bf16|bfloat16|None" "$(prec "$d" "$a")"
e=$(import_vllm "$tmp/p.db" "$tmp/fp8.json" --set dtype=fp8)
check "precision: FP8 is dtype fp8, as declared" "fp8|bfloat16|FP8" "$(prec "$tmp/p.db" "$e")"
check "precision: an FP8 KV cache (engine.kv_cache_dtype), in the configuration" \
  "fp8|engine=tensorrt-llm dtype=fp8 serve.kv_cache_dtype=fp8" \
  "$(db="$tmp/p.db" sql "SELECT m.value || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id JOIN run_meta m ON m.run_id = r.id AND m.key = 'serve.kv_cache_dtype' WHERE r.uuid LIKE '$e%'")"
check "precision: no KV cache quantization (null), none" "0" \
  "$(db="$d" sql "SELECT count(*) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE m.key LIKE '%kv%' AND r.uuid LIKE '$a%'")"
e=$(import_vllm "$tmp/p.db" "$tmp/nvfp4.json")
check "precision: NVFP4 kept, no dtype of xp's" "-|bfloat16|NVFP4" "$(prec "$tmp/p.db" "$e")"
e=$(import_vllm "$tmp/p.db" "$tmp/awq.json")
check "precision: weight-only, the activations' dtype" "fp16|float16|W4A16_AWQ" "$(prec "$tmp/p.db" "$e")"
e=$(import_vllm "$tmp/p.db" "$fmt/trtllm_bench_report.json" --set dtype=bf16)
check "precision: a declaration the report agrees with, one value" "bf16|" \
  "$(db="$tmp/p.db" sql "SELECT dtype || '|' || coalesce((SELECT value FROM run_meta WHERE run_id = runs.id AND key = 'mismatch.dtype'), '') FROM runs WHERE uuid LIKE '$e%'")"
one_line "precision: a declared dtype the report contradicts" 2 \
  'trtllm_bench_report.json:1: --set dtype=fp8, yet the report ran dtype bf16 .engine.dtype "bfloat16", quantization null.' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/trtllm_bench_report.json" --set dtype=fp8
one_line "precision: a quantization declared of an unquantized run" 2 \
  'trtllm_bench_report.json:1: --set quantization=fp8, yet the report.s engine.quantization is null' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$fmt/trtllm_bench_report.json" --set quantization=fp8
check "nothing recorded by the refusals" "no" "$([ -e "$tmp/bad.db" ] && echo yes || echo no)"

# speculative decoding (decoding_stats, reporting.py 0249976: a request's tokens an iteration, the
# drafts it accepted as a fraction, the tokens drafted and accepted; percentiles, no unit): each
# statistic recorded in tokens, the acceptance in %; an acceptance above 1 refused
python3 - "$fmt/trtllm_bench_report.json" "$tmp/mtp.json" "$tmp/mtpbad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pct = lambda avg, lo, hi: {"p50": avg, "p90": hi, "p95": hi, "p99": hi, "minimum": lo, "maximum": hi, "average": avg}
d["decoding_stats"] = {"mode": "MTP", "num_draft_tokens_percentiles": pct(126.0, 96.0, 150.0),
                       "num_accepted_draft_tokens_percentiles": pct(86.0, 60.0, 101.0),
                       "draft_acceptance_rate_percentiles": pct(0.68, 0.5, 0.81),
                       "acceptance_length_percentiles": pct(3.04, 2.5, 3.43)}
json.dump(d, open(sys.argv[2], "w"), indent=2)
d["decoding_stats"]["draft_acceptance_rate_percentiles"]["maximum"] = 68.0
json.dump(d, open(sys.argv[3], "w"), indent=2)
PY
m=$(import_vllm "$tmp/mtp.db" "$tmp/mtp.json")
check "speculative decoding: tokens an iteration and drafts accepted, each a request's" \
  "mean_acceptance_length=3.04[tokens] mean_accepted_draft_tokens=86[tokens] mean_draft_acceptance_rate=68[%] mean_draft_tokens=126[tokens]" \
  "$(metrics "$tmp/mtp.db" "$m" '%' | tr ' ' '\n' | grep -E '^mean_(acc|draft)' | paste -sd' ')"
check "speculative decoding: each statistic of it" "7 7 7 7" \
  "$(for n in acceptance_length accepted_draft_tokens draft_acceptance_rate draft_tokens; do
       metrics "$tmp/mtp.db" "$m" '%' | tr ' ' '\n' | grep -cE "^(mean|median|p90|p95|p99|min|max)_$n="; done | paste -sd' ')"
# which speculative decoding ran (decoding_stats.mode, the PyTorch backend's speculative_config
# decoding_type): the engine's setting, as a sweep's --serve-params are, so two reports of MTP and
# Eagle3 are told apart by xp compare; a report without speculative decoding has none
check "speculative decoding: its mode the run's serve.decoding_mode" "MTP|" \
  "$(db="$tmp/mtp.db" sql "SELECT group_concat(m.value) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE m.key = 'serve.decoding_mode' AND r.uuid LIKE '$m%'")|$(db="$d" sql "SELECT group_concat(m.value) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE m.key = 'serve.decoding_mode' AND r.uuid LIKE '$a%'")"
one_line "speculative decoding: an acceptance above 1" 2 \
  'mtpbad.json:1: decoding_stats.draft_acceptance_rate_percentiles.maximum: expected a fraction from 0 to 1, found 68' \
  "$XP" --db "$tmp/mtpbad.db" import vllm-bench "$tmp/mtpbad.json"
finish
