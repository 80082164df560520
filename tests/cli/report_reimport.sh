#!/usr/bin/env bash
# xp report draws a measurement once however often its files were imported: the same vLLM
# result or nccl-tests log imported again (a script run twice, a corrected --set) or by xp
# rerun is one series, its latest import, as queries/regressions.sql counts it; a different
# result of the same configuration stays a series of its own.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
serve="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"
log="$XP_SRC/tests/data/nccl/nccltests_graph.txt"
section() { awk -v id="id=\"$1\"" '/<section class="chart-section"/ { s = 0 } index($0, id) { s = 1 } s' "$tmp/r.html" > "$tmp/$1"; }
series() { grep -o "<title>[^<:]*</title>" "$tmp/$1" | sort -u | wc -l; }

run import vllm-bench "$serve"; expect_rc 0
run import vllm-bench "$serve"; expect_rc 0
last=$("$XP" --db "$db" runs --format csv | awk -F, 'NR == 2 { print substr($1, 1, 8) }')
run rerun "$last"; expect_rc 0
run import nccl-tests "$log"; expect_rc 0
run import nccl-tests "$log" --set interconnect=nvlink; expect_rc 0   # a corrected --set
run report --out "$tmp/r.html"; expect_rc 0
section serving; section busbw
check "serving: one result imported three times, one series" 1 "$(series serving)"
has "numbers), 1 point;" "$tmp/serving"
# the log's out-of-place and in-place columns are a series each (report_charts.c): two, not four
check "busbw: one log imported twice, its two series once" 2 "$(series busbw)"
check "busbw: both of the latest import" 2 "$(grep -o "<title>[^<:]*</title>" "$tmp/busbw" | sort -u | grep -c "$("$XP" --db "$db" runs --kind nccl_burst --format csv | awk -F, 'NR == 2 { print substr($1, 1, 8) }')")"
has "nvlink" "$tmp/busbw"   # the latest import's
# another result (another date) of the same configuration is another series
sed 's/"date": "[^"]*"/"date": "20250612-101500"/' "$serve" > "$tmp/next_day.json"
grep -q 20250612 "$tmp/next_day.json" || die "the fixture has no date to change"
run import vllm-bench "$tmp/next_day.json"; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
section serving
check "serving: two results, two series" 2 "$(series serving)"
[ "$fail" = 0 ] || exit 1 # check (lib.sh) only counts a failure
echo "ok: report draws re-imported files once"
