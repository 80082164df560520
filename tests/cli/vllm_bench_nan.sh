#!/usr/bin/env bash
# A vllm bench serve result with a metric that is NaN (json.dump's NaN: numpy's mean of no
# sample, a 0/0) is imported without it and says so at its line, as an infinite one is
# (vllm_bench_infinite.sh): NaN read as null and the metric left out without a word. The same for
# the nested objects (TensorRT-LLM's energy, SGLang's cache_report) and for entries of the
# per-request lists, where a NaN read as null refused the file ("expected a number, found null")
# and an Infinity was left out of the samples silently. A null (vLLM's None) stays no word.
set -u
. "$XP_SRC/tests/lib.sh"
warned() { # warned WHAT PATTERN: a line of the import's stderr matches PATTERN (grep)
  grep -q "$2" "$tmp/err" || { echo "FAIL: $1: $(cat "$tmp/err")"; fail=1; }
}
sed -e 's/"std_ttft_ms": [0-9.e+-]*/"std_ttft_ms": NaN/' \
    -e 's/"mean_tpot_ms": [0-9.e+-]*/"mean_tpot_ms": NaN/' \
    -e 's/"ttfts": \[[0-9.e+-]*/"ttfts": [NaN/' \
    -e 's/"itls": \[\[[0-9.e+-]*, [0-9.e+-]*/"itls": [[Infinity, NaN/' \
  "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/nan.json"
check "the fixture holds them" 5 "$(grep -o 'NaN\|Infinity' "$tmp/nan.json" | wc -l)"
"$XP" --db "$db" import vllm-bench "$tmp/nan.json" > /dev/null 2> "$tmp/err"
check "import: exit" 0 $?
check "import: two warnings" 2 "$(wc -l < "$tmp/err")"
warned "the metrics' warning" "^xp: warning: $tmp/nan.json:1: std_ttft_ms, mean_tpot_ms not a number (NaN): no value, not recorded in case concurrency=8$"
warned "the entries' warning" "^xp: warning: $tmp/nan.json:1: ttfts, itls: 3 entries infinite or not a number (Infinity, NaN): no sample, left out of case concurrency=8$"
check "the NaN metrics: none recorded" 0 \
  "$(sql "SELECT count(*) FROM metrics WHERE name IN ('std_ttft_ms', 'mean_tpot_ms')")"
check "the others: recorded" 8682.033298151237 \
  "$(sql "SELECT median FROM metrics WHERE name = 'total_token_throughput'")"

# TensorRT-LLM's energy and SGLang's cache report, each at its own line
trt="$XP_SRC/tests/data/vllm_bench/formats/trtllm_serve_c4_detailed.json"
sed -e 's/"total_energy_j": 150.0/"total_energy_j": NaN/' "$trt" > "$tmp/energy.json"
"$XP" --db "$tmp/e.db" import vllm-bench "$tmp/energy.json" > /dev/null 2> "$tmp/err"
check "energy: exit" 0 $?
warned "energy's warning" "^xp: warning: $tmp/energy.json:[0-9]*: total_energy_j not a number (NaN): no value, not recorded in case "
sg="$XP_SRC/tests/data/vllm_bench/formats/sglang_2026.jsonl"
head -1 "$sg" | sed -e 's/"cache_hit_rate_pct": 25.0/"cache_hit_rate_pct": Infinity/' > "$tmp/cache.jsonl"
"$XP" --db "$tmp/c.db" import vllm-bench "$tmp/cache.jsonl" --set model=Qwen/Qwen3-0.6B > /dev/null 2> "$tmp/err"
check "cache report: exit" 0 $?
warned "cache report's warning" "^xp: warning: $tmp/cache.jsonl:1: cache_hit_rate_pct infinite (Infinity, or a number past a double's range such as 1e999): no value, not recorded in case "

# a count given as NaN is a metric like the others (it was refused: "found nan", or read as 0:
# "completed: says 0, but the per-request lists hold 15"); a setting's NaN is no setting, refused
sed -e 's/"total_input_tokens": 1920/"total_input_tokens": NaN/' -e 's/"completed": 15/"completed": NaN/' \
  "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/count.json"
"$XP" --db "$tmp/n.db" import vllm-bench "$tmp/count.json" > /dev/null 2> "$tmp/err"
check "counts: exit" 0 $?
check "counts: the warning" "xp: warning: $tmp/count.json:1: completed, total_input_tokens not a number (NaN): no value, not recorded in case concurrency=8" "$(cat "$tmp/err")"
sed -e 's/"max_concurrency": 8/"max_concurrency": NaN/' "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/setting.json"
one_line "a setting" 2 "setting.json:1: max_concurrency: expected a whole number, found NaN$" \
  "$XP" --db "$tmp/s.db" import vllm-bench "$tmp/setting.json"
# a number setting's NaN is no setting either: burstiness NaN was stored as null, as if not given
sed -e 's/"burstiness": 1.0/"burstiness": NaN/' "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/burst.json"
one_line "a number setting" 2 "burst.json:1: burstiness: expected a number, found NaN$" \
  "$XP" --db "$tmp/s.db" import vllm-bench "$tmp/burst.json"
sed -e 's/"request_rate": "inf"/"request_rate": NaN/' "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/rate.json"
one_line "a rate" 2 "rate.json:1: request_rate: expected a number > 0, \"inf\" or \"trace\", found NaN$" \
  "$XP" --db "$tmp/s.db" import vllm-bench "$tmp/rate.json"

# without the errors list (vllm bench serve without --save-detailed) a request failed where vLLM
# left its ttft and latency at 0: a NaN ttft is no such mark (it counted the request failed, 14 of
# a file whose completed says 15), the latency decides
sed -e 's/"errors": \[[^]]*\], //' -e 's/"ttfts": \[[0-9.e+-]*/"ttfts": [NaN/' \
  "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/noerrors.json"
check "no errors list: the fixture" "0|1" "$(grep -c '"errors"' "$tmp/noerrors.json")|$(grep -c '"ttfts": \[NaN' "$tmp/noerrors.json")"
"$XP" --db "$tmp/f.db" import vllm-bench "$tmp/noerrors.json" > "$tmp/out" 2> "$tmp/err"
check "no errors list: exit" 0 $?
check "no errors list: 15 of 16 succeeded" "15" "$(grep -o ' 1[0-9]/16 ' "$tmp/out" | tr -d ' ' | cut -d/ -f1)"
check "no errors list: its latency a sample" "15" "$(db="$tmp/f.db" sql "SELECT n FROM metrics WHERE name = 'e2el_ms'")"
warned "no errors list: the NaN said" "ttfts: 1 entry infinite or not a number (Infinity, NaN): no sample"

# NaN inside a string is text, and a control character inside a string still refused
sed -e 's/"label": null/"label": "NaN"/' "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/label.json"
"$XP" --db "$tmp/l.db" import vllm-bench "$tmp/label.json" > /dev/null 2> "$tmp/err"
check "a label NaN: exit" 0 $?
check "a label NaN: no warning" 0 "$(wc -l < "$tmp/err")"
printf '{"label": "\001"}\n' > "$tmp/ctl.json"
one_line "a control character" 2 "ctl.json:1: control character inside a string" "$XP" --db "$tmp/k.db" import vllm-bench "$tmp/ctl.json"
finish
