#!/usr/bin/env bash
# The queries count AllReduce as the views and xp show do after a reclassify. A collective
# kernel's category is its args' collective while its name's category is a communication one,
# else its name's (trace_kernel_stats); trace_collectives keeps the collective of import time.
# allreduce_share and bottleneck_by_config took the waiting and the matched time, and
# decode_gap_analysis the waiting and the message sizes, from trace_collectives: after a rule
# filed one NCCL kernel under "other", they still counted its waiting and its all-reduces
# beside an AllReduce time that no longer held them. xp reclassify printed the names' changes
# only, "allreduce -> communication" for a kernel that stays an all-reduce in every figure.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
rules="$XP_SRC/importers/torch_trace/categories.tsv"
q="$XP_SRC/queries"

# The two-rank sample with every other all-reduce carrying collective args renamed TREE_LL on
# both ranks (the k-th of a rank is matched with the k-th of the other), so that a rule can
# move one half out of the all-reduces and leave the other.
for r in 0 1; do
  zcat "$data/decode_tp2_bs1_rank$r.trace.json.gz" | awk '
    held { buf = buf "\n" $0; if (++n == 4) { if (buf ~ /"Collective name"/ && k++ % 2) sub(/RING_LL/, "TREE_LL", buf); print buf; held = 0 }; next }
    /"name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL/ { held = 1; n = 0; buf = $0; next } 1' | gzip > "$tmp/r$r.json.gz"
done
# Rules T: the built-in ones, with the TREE kernel's name filed under "other" first.
{ grep '^category' "$rules"; printf 'rule\tother\tprefix\tncclDevKernel_AllReduce_Sum_bf16_TREE\n'; grep '^rule' "$rules"; } > "$tmp/T.tsv"
# Rules A: every NCCL name a generic "communication" one, whose kernels keep their args' collective.
{ grep '^category' "$rules"; printf 'rule\tcommunication\tprefix\tncclDevKernel\n'; grep '^rule' "$rules"; } > "$tmp/A.tsv"

load() { # load DB: the job and an nccl-tests all-reduce sweep on 2 GPUs (decode_gap's prediction)
  "$XP" --db "$1" import torch-trace "$tmp/r0.json.gz" "$tmp/r1.json.gz" --set model=M --set tp=2 \
    --set batch=1 --set interconnect=nvlink > /dev/null 2>&1 || { echo "FAIL: import into $1"; fail=1; }
  "$XP" --db "$1" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1 ||
    { echo "FAIL: nccl-tests import into $1"; fail=1; }
}
answers() { # answers DB: the three queries' answers, run UUIDs left out
  "$XP" --db "$1" query "$q/allreduce_share.sql" --param tp=2 --param interconnect=any --format csv
  "$XP" --db "$1" query "$q/bottleneck_by_config.sql" --format csv
  "$XP" --db "$1" query "$q/decode_gap_analysis.sql" --param model=M --param tp=2 --param batch=1 \
    --param interconnect=any --format csv | sed 's/run [0-9a-f]\{8\}/run ?/'
}
col() { # col NAME < CSV: the first data row's column NAME (no quoted commas before it)
  awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k; exit }'
}

load "$db"
grep -q 'TREE_LL' <<< "$(query "SELECT name FROM trace_names WHERE name LIKE 'ncclDevKernel%TREE%'")" ||
  { echo "FAIL: the renamed trace has no TREE_LL kernel"; fail=1; }
check "before: both halves all-reduces, matched in pairs of one name" "512|0" \
  "$(sql "SELECT count(match_group) || '|' || (SELECT count(*) FROM trace_collectives a JOIN trace_collectives b
          ON a.match_group = b.match_group AND a.rank < b.rank WHERE a.name_id <> b.name_id) AS x FROM trace_collectives")"

# 1. Reclassified with T: the report says the TREE kernels leave the all-reduces in the figures.
"$XP" --db "$db" reclassify --rules "$tmp/T.tsv" > "$tmp/out" 2>&1
check "reclassify T" 0 $?
grep -A1 'allreduce *-> other *ncclDevKernel_AllReduce_Sum_bf16_TREE_LL' "$tmp/out" | grep -q 'figures: 256 kernels allreduce -> other$' ||
  { echo "FAIL: reclassify T report: $(cat "$tmp/out")"; fail=1; }
grep -q '^kernels: 11274 in the database, 256 changed category in the figures$' "$tmp/out" ||
  { echo "FAIL: reclassify T summary: $(cat "$tmp/out")"; fail=1; }

# The figures from the views: AllReduce share of step time, its waiting, matched time and
# transfer-only share (trace_step_categories, trace_step_collectives), per step and rank.
sql "WITH st AS (SELECT sum(kernel_ns) AS ns, count(*) AS n FROM trace_steps),
  ar AS (SELECT sum(total_ns) AS ns FROM trace_step_categories WHERE category = 'allreduce'),
  w AS (SELECT sum(wait_ns) AS wait, sum(matched_dur_ns) AS matched, sum(kernels) AS k
        FROM trace_step_collectives WHERE collective = 'allreduce' AND step IS NOT NULL)
  SELECT printf('%.1f', 100.0 * ar.ns / st.ns), printf('%.1f', 100.0 * (w.matched - w.wait) / (st.ns - w.wait - (ar.ns - w.matched))),
         printf('%.1f', 100.0 * w.matched / ar.ns), round(ar.ns / 1e3 / st.n, 1), round(w.wait / 1e3 / st.n, 1),
         printf('%.3f', w.wait / 1e6), w.k AS x
  FROM st, ar, w" > "$tmp/views"
IFS=, read -r v_pct v_xfer v_matched v_ar_us v_wait_us v_wait_ms v_kernels < "$tmp/views"
# 256 per rank: rank 1's 31 unmatched ones ran at the start of its first step but were launched
# before the profiler began recording (tt_done.c resolve_launches), in no step
check "views: all-reduces in steps after T" 256 "$v_kernels"

run=$("$XP" --db "$db" runs --kind torch_trace --format csv | sed -n 2p | cut -d, -f1)
"$XP" --db "$db" show "$run" > "$tmp/show"
check "xp show: AllReduce share of step time" "$v_pct" \
  "$(sed -n '/== trace: step GPU time by category/,/^$/p' "$tmp/show" | awk '$1 == "allreduce" { print $4 }')"
check "xp show: AllReduce waiting" "$v_wait_ms" \
  "$(sed -n '/== trace: collectives in steps/,/^$/p' "$tmp/show" | awk '$1 == "allreduce" { print $5 }')"

answers "$db" > "$tmp/answers"
"$XP" --db "$db" query "$q/allreduce_share.sql" --param tp=2 --param interconnect=any --format csv > "$tmp/share"
check "allreduce_share: share as recorded" "$v_pct" "$(col allreduce_pct < "$tmp/share")"
check "allreduce_share: transfer only" "$v_xfer" "$(col transfer_only_pct < "$tmp/share")"
# every all-reduce in a step is matched: xp query writes the 100.0 the views print as 100
check "allreduce_share: matched" "$v_matched" "$(col matched_pct < "$tmp/share" | awk '{ printf "%.1f", $1 }')"
"$XP" --db "$db" query "$q/bottleneck_by_config.sql" --format csv > "$tmp/bottleneck"
check "bottleneck_by_config: allreduce, transfer only (latest, matched)" "$v_pct|$v_matched;$v_xfer|$v_matched" \
  "$(awk -F, '$7 == "allreduce" { a = $8 "|" sprintf("%.1f", $15) } $7 == "allreduce (transfer only)" { t = $8 "|" sprintf("%.1f", $15) }
              END { print a ";" t }' "$tmp/bottleneck")"
"$XP" --db "$db" query "$q/decode_gap_analysis.sql" --param model=M --param tp=2 --param batch=1 \
  --param interconnect=any --format csv > "$tmp/gap"
check "decode_gap_analysis: measured all-reduce per step" "$v_ar_us" "$(awk -F, '$1 == "allreduce" { print $3 }' "$tmp/gap")"
grep '^allreduce,' "$tmp/gap" | grep -q "sizes from the traces: 8192 B x16.0;.* measured includes $v_wait_us us waiting" ||
  { echo "FAIL: decode_gap_analysis: all-reduce sizes and waiting as the views' ($v_wait_us us): $(grep '^allreduce,' "$tmp/gap")"; fail=1; }

# 2. A fresh import under T answers the same.
db2="$tmp/fresh.db"
"$XP" --db "$db2" reclassify --rules "$tmp/T.tsv" > /dev/null 2>&1
load "$db2"
answers "$db2" > "$tmp/answers2"
check "a fresh import under T gives the same answers" "$(cat "$tmp/answers")" "$(cat "$tmp/answers2")"

# 3. Rules A move both names to "communication": the figures keep the kernels whose args name
# the all-reduce, and only the 31 without args leave it; the report says so.
"$XP" --db "$db" reclassify --rules "$tmp/A.tsv" > "$tmp/out" 2>&1
check "reclassify A" 0 $?
grep -A1 'other *-> communication *ncclDevKernel_AllReduce_Sum_bf16_TREE_LL' "$tmp/out" | grep -q 'figures: 256 kernels other -> allreduce$' ||
  { echo "FAIL: reclassify A report (TREE): $(cat "$tmp/out")"; fail=1; }
grep -A1 'allreduce *-> communication *ncclDevKernel_AllReduce_Sum_bf16_RING_LL' "$tmp/out" |
  grep -q 'figures: 31 kernels allreduce -> communication, 256 stay allreduce (the collective their args name)$' ||
  { echo "FAIL: reclassify A report (RING): $(cat "$tmp/out")"; fail=1; }
"$XP" --db "$db" reclassify > "$tmp/out" 2>&1
"$XP" --db "$db" reclassify --rules "$tmp/A.tsv" --dry-run > "$tmp/out" 2>&1
grep -A1 'allreduce *-> communication *ncclDevKernel_AllReduce_Sum_bf16_TREE_LL' "$tmp/out" |
  grep -q 'figures: unchanged: 256 kernels stay allreduce (the collective their args name)$' ||
  { echo "FAIL: reclassify A dry run report: $(cat "$tmp/out")"; fail=1; }
grep -q '^kernels: 11274 in the database, 31 would change category in the figures$' "$tmp/out" ||
  { echo "FAIL: reclassify A dry run summary: $(cat "$tmp/out")"; fail=1; }

# 4. A database of schema 12 answers the same read as it is, and once migrated its views are a
# fresh database's.
if command -v sqlite3 > /dev/null; then
  old="$tmp/old.db"
  cp "$db2" "$old"
  sqlite3 "$old" "DROP VIEW trace_step_collectives; DROP VIEW trace_collective_kernels;
    $(sed -n '/^CREATE VIEW trace_step_collectives/,$p' "$XP_SRC/schema/012_one_kernel_category.sql")
    PRAGMA user_version = 12;"
  check "schema 12, read as it is" "$(cat "$tmp/answers")" "$(answers "$old" 2> /dev/null)"
  "$XP" --db "$old" reclassify --rules "$tmp/T.tsv" > /dev/null 2>&1
  check "schema 12 migrated: the views of a fresh database" "$(schema_views "$db2")" "$(schema_views "$old")"
  check "schema 12 migrated: the same answers" "$(cat "$tmp/answers")" "$(answers "$old")"
else
  echo "note: the sqlite3 CLI is missing; the migration from schema 12 is not exercised"
fi
finish
