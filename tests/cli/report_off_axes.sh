#!/usr/bin/env bash
# A figure a chart's axes cannot place (a vLLM result's "max_concurrency": 0 on the logarithmic
# concurrency axis) is neither drawn nor counted: the chart said "1 points" and drew none (the
# page's own check, and a reader, saw a blank chart); now the note says a point is not shown and
# why, and a chart with nothing it can draw is "no data yet".
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
result="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"
section() { awk -v id="id=\"$1\"" '/<section class="chart-section"/ { s = 0 } index($0, id) { s = 1 } s' "$tmp/r.html" > "$tmp/$1"; }
sed 's/"max_concurrency": 8/"max_concurrency": 0/' "$result" > "$tmp/c0.json"
grep -q '"max_concurrency": 0' "$tmp/c0.json" || die "the fixture has no max_concurrency to change"
run import vllm-bench "$tmp/c0.json"; expect_rc 0
check "recorded at concurrency 0" 0 "$(sql "SELECT json_extract(params, '\$.max_concurrency') FROM cases")"
run report --out "$tmp/r.html"; expect_rc 0
section serving
has 'data-has-data="0"' "$tmp/serving"
has "No data yet." "$tmp/serving"
has "1 point is not shown: a value the axes cannot place (0 or below on a logarithmic axis" "$tmp/serving"
# beside a result it can draw (the same benchmark a day later, at concurrency 8): that one point
sed 's/"date": "[^"]*"/"date": "20250612-101500"/' "$result" > "$tmp/c8.json"
run import vllm-bench "$tmp/c8.json"; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
section serving
has 'data-has-data="1"' "$tmp/serving"
check "points drawn" 1 "$(grep -o '<circle class="mark point"' "$tmp/serving" | wc -l)"
has "numbers), 1 point;" "$tmp/serving"
has "1 point is not shown" "$tmp/serving"
finish
