#!/usr/bin/env bash
# xp report's "where the GPU time goes" chart draws the 16 configurations measured last, and
# says how many more there are: each trace imported without --set is a configuration of its
# own, and a folder of them drew a bar each, 46 px a bar (1000 jobs: a chart 46,000 px tall).
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
trace="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
# 18 jobs: the same rank's trace, each recorded an hour after the last (its own clock)
base=$(gzip -dc "$trace" | grep -o '"baseTimeNanoseconds": [0-9]*' | grep -o '[0-9]*$')
[ -n "$base" ] || die "the fixture has no baseTimeNanoseconds to change"
for i in $(seq 1 18); do
  gzip -dc "$trace" | sed "s/\"baseTimeNanoseconds\": $base/\"baseTimeNanoseconds\": $((base + i * 3600000000000))/" |
    gzip -1 > "$tmp/job$i.json.gz"
  run import torch-trace "$tmp/job$i.json.gz"; expect_rc 0
done
run report --out "$tmp/r.html"; expect_rc 0
awk '/<section class="chart-section"/ { s = 0 } /id="shares"/ { s = 1 } s' "$tmp/r.html" > "$tmp/shares"
check "bars drawn" 16 "$(grep -o 'class="row-label"' "$tmp/shares" | wc -l)"
has "Showing the 16 configurations measured last; 2 others are left out" "$tmp/shares"
has "row-label\">undeclared: job18.json.gz" "$tmp/shares"   # the newest is drawn
hasnt "row-label\">undeclared: job1.json.gz" "$tmp/shares"  # the two oldest are not
hasnt "row-label\">undeclared: job2.json.gz" "$tmp/shares"
finish
