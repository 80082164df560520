#!/usr/bin/env bash
# queries/comm_overlap.sql lists the newest traced job first, dating a trace as xp report does:
# by its own clock where it has an absolute one, else by its import. It sorted by the first GPU
# activity's raw time, so a trace with no absolute clock (Kineto without baseTimeNanoseconds: its
# times count from 0) came last however recently it was imported, under jobs months older.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
run import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=M --set tp=2 --set batch=1; expect_rc 0 # its clock: 2026-11-29
sed 's/"baseTimeNanoseconds": 1700000000000000000/"baseTimeNanoseconds": 0/' \
  "$data/variants/early_launch.json" > "$tmp/relative.json"
grep -q '"baseTimeNanoseconds": 0' "$tmp/relative.json" || die "the copy kept its absolute clock"
run import torch-trace "$tmp/relative.json"; expect_rc 0 # imported now, no absolute clock
check "its first activity counts from 0" 1 "$(sql "SELECT max(gpu_start_ns) < 1e15 FROM trace_ranks t JOIN trace_imports i USING (run_id) WHERE i.ranks = 1")"
"$XP" --db "$db" query "$XP_SRC/queries/comm_overlap.sql" --format csv | tail -n +2 | cut -d, -f7 > "$tmp/q"
check "two jobs" 2 "$(wc -l < "$tmp/q")"
check "the job imported last, first" "undeclared: relative.json" "$(head -1 "$tmp/q" | cut -c1-25)"
finish
