#!/usr/bin/env bash
# A vllm bench serve result whose metric is infinite (json.dump's Infinity, or 1e999: a number
# past a double's range) is imported without it, and says so at its line, as nccl-tests' "inf"
# bandwidth is said: it was left out without a word, and a result whose output_throughput was
# the one read as a file without any (xp report: "no serving benchmarks yet"). A setting's inf
# (--burstiness inf, written Infinity) is a setting, kept without a warning.
set -u
. "$XP_SRC/tests/lib.sh"
sed -e 's/"output_throughput": [0-9.e+-]*/"output_throughput": 1e999/' \
    -e 's/"request_throughput": [0-9.e+-]*/"request_throughput": Infinity/' \
    -e 's/"burstiness": 1.0/"burstiness": Infinity/' \
  "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/inf.json"
check "the fixture holds them" 1 "$(grep -c '"output_throughput": 1e999.*"burstiness"\|"burstiness": Infinity.*"output_throughput": 1e999' "$tmp/inf.json")"
"$XP" --db "$db" import vllm-bench "$tmp/inf.json" > /dev/null 2> "$tmp/err"
check "import: exit" 0 $?
check "import: one warning" 1 "$(wc -l < "$tmp/err")"
grep -q "^xp: warning: $tmp/inf.json:1: request_throughput, output_throughput infinite (Infinity, or a number past a double's range such as 1e999): no value, not recorded in case concurrency=8$" "$tmp/err" ||
  { echo "FAIL: the warning: $(cat "$tmp/err")"; fail=1; }
check "the infinite metrics: none recorded" 0 \
  "$(sql "SELECT count(*) FROM metrics WHERE name IN ('output_throughput', 'request_throughput')")"
check "the others: recorded" 8682.033298151237 \
  "$(sql "SELECT median FROM metrics WHERE name = 'total_token_throughput'")"
check "burstiness inf: a setting" inf "$(sql "SELECT json_extract(params, '\$.burstiness') FROM cases")"
finish
