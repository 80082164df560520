#!/usr/bin/env bash
# xp's split of collective kernels into waiting for the last rank and transfer after it, against
# an independent method (comms_crosscheck.py: TraceLens's numbering of a group's collectives,
# walked so that a rank's extra or missing kernel is passed over) on the raw traces: every
# kernel's wait and transfer, the step totals, and the transfer-only share that
# queries/bottleneck_by_config.sql and queries/allreduce_share.sql give. The shipped TP=2 pair,
# the same with one all-reduce cut from rank 1 (a profiler window or event lost), and the
# shared bs16 pair and HTA's sampled two ranks (128-rank job: nothing may be split) where the
# shared fixtures are present.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
shared="${XP_SHARED:-}/fixtures"
cross() { # cross WHAT FILES...: import the files as one job into a fresh database, compare
  local what=$1
  shift
  rm -f "$db"
  "$XP" --db "$db" import torch-trace "$@" --set tp=2 --set interconnect=nvlink > /dev/null 2> "$tmp/err"
  check "$what: import" 0 $?
  python3 "$XP_SRC/tests/cli/comms_crosscheck.py" "$db" "$@" > "$tmp/out"
  check "$what: every kernel's split and the step totals as computed apart" 0 $?
  grep '^DIFF' "$tmp/out" | head -5
  # the queries' transfer-only share, as the script computes it (one decimal)
  local mine
  mine=$(sed -n 's/.*% as recorded, \([0-9.]*\)% transfer only.*/\1/p' "$tmp/out")
  if [ -n "$mine" ] && [ "$mine" != 0.0 ]; then
    check "$what: bottleneck_by_config transfer only" "$mine" \
      "$(query "$(cat "$XP_SRC/queries/bottleneck_by_config.sql")" | awk -F, '$7 == "allreduce (transfer only)" { print $8 }')"
    check "$what: allreduce_share transfer only" "$mine" \
      "$("$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 --param interconnect=nvlink --format csv \
         | python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["transfer_only_pct"])')"
  fi
}
r0="$data/decode_tp2_bs1_rank0.trace.json.gz"
r1="$data/decode_tp2_bs1_rank1.trace.json.gz"
cross "bs1" "$r0" "$r1"
check "bs1: all of rank 0's all-reduces split" "256 of 256" \
  "$(sql "SELECT count(match_group) || ' of ' || count(*) FROM trace_collectives WHERE rank = 0")"

# rank 1 without its 100th all-reduce of group 0 (its record cut mid-window)
python3 - "$r1" "$tmp/cut_r1.json" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
ks = sorted((e for e in t["traceEvents"] if e.get("cat") == "kernel"
             and (e.get("args") or {}).get("Process Group Name") == "0"), key=lambda e: e["ts"])
t["traceEvents"].remove(ks[100])
json.dump(t, open(sys.argv[2], "w"))
PY
cross "one all-reduce cut from rank 1" "$r0" "$tmp/cut_r1.json"
check "cut: rank 0's peerless all-reduce alone unsplit" "255 of 256" \
  "$(sql "SELECT count(match_group) || ' of ' || count(*) FROM trace_collectives WHERE rank = 0")"

if [ -d "$shared/torch" ]; then
  cross "bs16" "$shared/torch/decode_tp2_bs16_rank0.trace.json.gz" "$shared/torch/decode_tp2_bs16_rank1.trace.json.gz"
fi
if [ -d "$shared/hta" ]; then
  cross "HTA sampled ranks 0 and 1 of 128" "$shared/hta/tests__data__trace_filter__sampled_rank-0.json.gz" \
    "$shared/hta/tests__data__trace_filter__sampled_rank-1.json.gz"
  check "HTA sampled: nothing split" 0 "$(sql "SELECT count(match_group) FROM trace_collectives")"
fi
finish
