#!/usr/bin/env bash
# xp report's linear axes that start at 0 (throughput, bandwidth, shares) keep 0 their floor:
# a vLLM result whose output throughput is 0 (every request failed) was drawn on a scale from
# -1 to 1, a negative throughput on the axis; now from 0 to 1.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
sed 's/"output_throughput": [^,]*/"output_throughput": 0/' "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > "$tmp/zero.json"
grep -q '"output_throughput": 0,' "$tmp/zero.json" || die "the fixture has no output_throughput to change"
run import vllm-bench "$tmp/zero.json"; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
awk '/<section class="chart-section"/ { s = 0 } /id="serving"/ { s = 1 } s' "$tmp/r.html" > "$tmp/serving"
check "points drawn" 1 "$(grep -o '<circle class="mark point"' "$tmp/serving" | wc -l)"
# the y ticks (x=70, right-aligned beside the plot): 0 up to 1, none below 0
ticks=$(grep -o '<text class="tick" x="70"[^>]*>[^<]*' "$tmp/serving" | sed 's/.*>//' | tr '\n' ' ')
check "y ticks" "0 0.2 0.4 0.6 0.8 1 " "$ticks"
finish
