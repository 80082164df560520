#!/usr/bin/env bash
# queries/bottleneck_by_config.sql and queries/allreduce_share.sql over a small history of
# imported traces: three jobs (the same two-rank traces recorded again an hour and two hours
# later: their baseTimeNanoseconds moved), of which the third has only its rank 1 imported.
# The first job is imported twice and its rank 1 alone as well: those count once (schema
# view trace_superseded). Figures are recomputed here from the base tables, and the answer
# says how many runs, from when, single-rank or not.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
r0="$data/decode_tp2_bs1_rank0.trace.json.gz"
r1="$data/decode_tp2_bs1_rank1.trace.json.gz"
later() { # later FILE HOURS: the trace as if recorded HOURS later
  zcat "$1" | sed "s/\"baseTimeNanoseconds\": 1790857026000000000/\"baseTimeNanoseconds\": $((1790857026000000000 + $2 * 3600000000000))/" \
    | gzip > "$tmp/$(basename "$1" .trace.json.gz).later$2.trace.json.gz"
}
for h in 1 2; do later "$r0" $h; later "$r1" $h; done
decl="--set model=moe-test --set tp=2 --set batch=1 --set interconnect=nvlink"
for i in 1 2; do "$XP" --db "$db" import torch-trace "$r0" "$r1" $decl > /dev/null 2>&1 || fail=1; done
"$XP" --db "$db" import torch-trace "$r1" $decl > /dev/null 2>&1 || fail=1
"$XP" --db "$db" import torch-trace "$tmp/decode_tp2_bs1_rank0.later1.trace.json.gz" \
  "$tmp/decode_tp2_bs1_rank1.later1.trace.json.gz" $decl > /dev/null 2>&1 || fail=1
"$XP" --db "$db" import torch-trace "$tmp/decode_tp2_bs1_rank1.later2.trace.json.gz" $decl > /dev/null 2>&1 || fail=1
check "superseded: the first import and rank 1 alone" "1|3" \
  "$(sql "SELECT group_concat(run_id, '|') FROM (SELECT run_id FROM trace_superseded ORDER BY run_id)")"

# The same figures straight from the base tables, per run: AllReduce share of step kernel time
# as recorded, and over the matched part with waiting removed.
query "SELECT r.id || '|' || i.single_rank || '|' ||
  printf('%.1f', 100.0 * (SELECT sum(k.total_ns) FROM trace_step_kernels k JOIN trace_names n ON n.id = k.name_id
                           WHERE k.run_id = r.id AND n.category = 'allreduce')
               / (SELECT sum(kernel_ns) FROM trace_steps s WHERE s.run_id = r.id)) || '|' ||
  coalesce(printf('%.1f', 100.0 * (SELECT sum(transfer_ns) FROM trace_collectives c WHERE c.run_id = r.id AND c.step IS NOT NULL AND c.match_group IS NOT NULL)
    / nullif((SELECT sum(kernel_ns) FROM trace_steps s WHERE s.run_id = r.id)
       - (SELECT coalesce(sum(wait_ns), 0) FROM trace_collectives c WHERE c.run_id = r.id AND c.step IS NOT NULL)
       - (SELECT coalesce(sum(dur_ns), 0) FROM trace_collectives c WHERE c.run_id = r.id AND c.step IS NOT NULL AND c.match_group IS NULL), 0)), '') AS x
  FROM runs r JOIN trace_imports i ON i.run_id = r.id ORDER BY r.id" > "$tmp/base"
rec_multi=$(awk -F'|' '$2 == 0 { print $3; exit }' "$tmp/base")
rec_single=$(awk -F'|' '$2 == 1 { print $3; exit }' "$tmp/base")
xfer=$(awk -F'|' '$2 == 0 { print $4; exit }' "$tmp/base")
check "both multi-rank imports agree" 1 "$(awk -F'|' '$2 == 0' "$tmp/base" | cut -d'|' -f3,4 | sort -u | wc -l)"

"$XP" --db "$db" query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv > "$tmp/b"
check "bottleneck query exit" 0 $?
row() { awk -F, -v c="$1" '$7 == c' "$tmp/b"; }
check "allreduce as recorded: runs, min, median, max, single-rank runs" \
  "3,$rec_single,$rec_multi,$rec_multi,1" \
  "$(row allreduce | awk -F, '{ printf "%d,%.1f,%.1f,%.1f,%d", $10, $11, $12, $13, $14 }')"
check "allreduce transfer only: multi-rank runs alone" "2,$xfer,0" \
  "$(row 'allreduce (transfer only)' | awk -F, '{ printf "%d,%.1f,%d", $10, $12, $14 }')"
check "latest run's shares add up to 100%" "100" \
  "$(awk -F, 'NR > 1 && $7 != "allreduce (transfer only)" { s += $8 } END { printf "%.0f", s }' "$tmp/b")"

"$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 --param interconnect=nvlink --format json > "$tmp/a"
check "allreduce_share exit" 0 $?
grep -qF "At TP=2 on nvlink, AllReduce is $rec_multi% of decode-step GPU time as recorded (median of 3 runs, " "$tmp/a" \
  || { echo "FAIL: allreduce_share answer (recorded)"; cat "$tmp/a"; fail=1; }
# 100% matched: rank 1's unmatched all-reduces were launched before the profiler began recording,
# and count in no step
grep -qF ", range $rec_single% to $rec_multi%); $xfer% transferring once waiting for the slowest rank is removed (2 multi-rank runs, 100% of AllReduce time matched across ranks); 1 single-rank run: waiting for peers is mixed into its figure" "$tmp/a" \
  || { echo "FAIL: allreduce_share answer (transfer, single rank)"; cat "$tmp/a"; fail=1; }
"$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=8 --param interconnect=pcie --format csv > "$tmp/none"
grep -q 'No imported traces at TP=8 on pcie (import with --set tp=8 --set interconnect=pcie)' "$tmp/none" || { echo "FAIL: no-data answer"; cat "$tmp/none"; fail=1; }
# the hint is a command an import takes: no "--set interconnect=any", no "--set tp=any"
"$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=8 --param interconnect=any --format csv > "$tmp/none"
grep -q 'No imported traces at TP=8 on any interconnect (import with --set tp=8)$' "$tmp/none" || { echo "FAIL: no-data answer, any interconnect"; cat "$tmp/none"; fail=1; }
"$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=any --param interconnect=any --format csv > "$tmp/none"
grep -q 'TP=any is not a tensor-parallel size: the answer is for one TP (--param tp=8)' "$tmp/none" || { echo "FAIL: no-data answer, tp=any"; cat "$tmp/none"; fail=1; }
"$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=8 > /dev/null 2> "$tmp/err"
check "missing parameter exit" 2 $?
grep -q 'interconnect' "$tmp/err" || { echo "FAIL: missing parameter message"; cat "$tmp/err"; fail=1; }
# xp show on a trace run: its figures as the queries count them
"$XP" --db "$db" show "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")" > "$tmp/show" 2>&1
check "show exit" 0 $?
grep -qE "^allreduce +[0-9]+ +[0-9.]+ +$rec_multi\$" "$tmp/show" || { echo "FAIL: show: allreduce share $rec_multi"; cat "$tmp/show"; fail=1; }
grep -q "== trace: heaviest kernels" "$tmp/show" || { echo "FAIL: show: no kernel section"; fail=1; }
# xp compare on two trace runs (the job and the same job an hour later): the step GPU time and
# each category's share, every step of every rank a sample; the same traces, so no change
"$XP" --db "$db" compare "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")" \
  "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 4")" > "$tmp/cmp" 2>&1
check "compare exit" 0 $?
grep -qE '^step +\{\} +gpu_time +us .* 16/16 +same \(noise\)$' "$tmp/cmp" || { echo "FAIL: compare: step time"; cat "$tmp/cmp"; fail=1; }
grep -qE '^step share +\{"category":"allreduce"\} +share +% .* 16/16 +same \(noise\)$' "$tmp/cmp" ||
  { echo "FAIL: compare: allreduce share"; cat "$tmp/cmp"; fail=1; }
# the median step's share beside all steps' time taken together, the share the queries give
grep -qx "  allreduce: A $rec_multi%; B $rec_multi%" "$tmp/cmp" ||
  { echo "FAIL: compare: pooled allreduce share $rec_multi% not said"; cat "$tmp/cmp"; fail=1; }
"$XP" --db "$db" compare "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")" \
  "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 4")" --format json > "$tmp/cmp.json"
check "compare --format json: pooled share" "$rec_multi" "$(python3 -c 'import json,sys
m = [m for m in json.load(open(sys.argv[1]))["metrics"] if m["params"].get("category") == "allreduce"][0]
print("%.1f" % m["pooled_a"])' "$tmp/cmp.json")"
finish
