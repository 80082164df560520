#!/usr/bin/env bash
# A merged file of several ranks whose pids carry each rank's label, as SGLang's profile merger
# writes it (--merge-profiles; tests/data/trace/variants/sglang_merge.py rebuilds it from the
# TP 2 pair sglang_tp0/tp1 by the merger's logic): each label's process and GPU are a rank, with
# the figures of the rank's own file: kernel time, steps, collectives matched across the ranks
# and their wait and transfer. Read as one rank before: 264 kernels, 12 collectives unmatched.
set -uo pipefail
: "${XP:?}"
. "$XP_SRC/tests/lib.sh"
sglang_variants

db="$tmp/own.db"
imp "$v/sglang_tp0.json.gz" "$v/sglang_tp1.json.gz"
check "the ranks' own files" 0 $?
want=$(trace_figures)
check "own files: 12 collectives matched" "12" "$(query "SELECT count(match_group) FROM trace_collectives")"

db="$tmp/merged.db"
imp "$v/sglang_merged.json.gz"
check "merged file: exit" 0 $?
check "merged file: the figures of the ranks' own files" "$want" "$(trace_figures)"
check "merged file: summary" "rank 0  sglang_merged.json.gz: 132 kernels, 2 steps|rank 1  sglang_merged.json.gz: 132 kernels, 2 steps|collectives: 12 matched, 0 unmatched" \
  "$(grep -o '^rank [01]  sglang_merged.json.gz: 132 kernels, 2 steps\|^collectives: [0-9]* matched, [0-9]* unmatched' "$tmp/out" | paste -sd'|')"
check "merged file: said" "xp: warning: $v/sglang_merged.json.gz: 2 ranks merged into one file, its pids labelled [TP00] to [TP01] as SGLang's profile merger labels a rank's: each label's process and GPU are read as a rank, the label's TP rank" \
  "$(cat "$tmp/err")"

# ... read twice whatever the number of ranks: once whole, finding the labels, then once for all of
# them, each event to its label's rank; a read per label read a file of N ranks N + 1 times
if command -v strace > /dev/null 2>&1 && strace -f -qq -e trace=none true 2> /dev/null; then
  db="$tmp/merged_reads.db"
  strace -f -qq -e trace=openat -o "$tmp/opens.txt" "$XP" --db "$db" import torch-trace "$v/sglang_merged.json.gz" "${steps[@]}" > /dev/null 2>&1
  check "merged file: read twice" 2 "$(grep -c 'sglang_merged\.json\.gz"' "$tmp/opens.txt")"
  check "merged file read twice: the same figures" "$want" "$(trace_figures)"
else
  echo "merged file's reads: not counted (strace not available here)"
fi

# the torch_utils script SGLang's merger came from wrote an earlier form, the pid inside: "[TP01 1808]"
zcat "$v/sglang_merged.json.gz" | sed 's/"\[\(TP0[01]\)\] \([^"]*\)"/"[\1 \2]"/g' > "$tmp/inside.json"
check "pid inside the label: written" 774 "$(grep -o '"pid": "\[TP0[01] [^]"]*\]"' "$tmp/inside.json" | wc -l)"
db="$tmp/inside.db"
imp "$tmp/inside.json"
check "pid inside the label: the same figures" "$want" "$(trace_figures)"

# the rank given for the file is its first label's, the others' follow
db="$tmp/given.db"
imp "$v/sglang_merged.json.gz" --rank 4
check "--rank 4: ranks and sources" "4,option 5,option" "$(query "SELECT rank, rank_source FROM trace_ranks ORDER BY rank" | paste -sd' ')"

# labels the merger writes for other runs, by the files' names (sglang_merge.py NAME0 NAME1):
# TP 1 and PP 2: rank TP size * PP + TP (world 2 over 2 stages: TP size 1), ranks 0 and 1
ranks_of() { # NAME0 NAME1: the ranks of the merged file of sglang_tp0/tp1 named so, and their kernels
  python3 "$v/sglang_merge.py" "$tmp/m.json.gz" "$1" "$2" || return
  db="$tmp/m-$1-$2.db"
  imp "$tmp/m.json.gz"
  echo "$?:$(query "SELECT rank || '/' || kernels FROM trace_ranks ORDER BY rank" | paste -sd' ')"
}
check "[TP00-PP00], [TP00-PP01]" "0:0/132 1/132" "$(ranks_of TP-0-PP-0 TP-0-PP-1)"
check "[TP00-PP01]: said" 1 "$(grep -c 'labelled \[TP00-PP00\] to \[TP00-PP01\] .*: each label.s process and GPU are read as a rank, TP size \* PP + TP, as SGLang numbers its processes' "$tmp/err")"
# DP attention: the DP rank is the TP rank's group, every label its own TP rank
check "[TP00-DP00], [TP01-DP01]" "0:0/132 1/132" "$(ranks_of TP-0-DP-0 TP-1-DP-1)"
check "[TP00-EP00], [TP01-EP01]" "0:0/132 1/132" "$(ranks_of TP-0-EP-0 TP-1-EP-1)"
# DP without DP attention: one TP rank of two replicas, each a job of its own: refused, said why
python3 "$v/sglang_merge.py" "$tmp/dp.json.gz" TP-0-DP-0 TP-0-DP-1
one_line "DP replicas" 2 "dp.json.gz: ranks merged into one file, its pids labelled by rank (as SGLang's profile merger writes them): \[TP00-DP00\] and \[TP00-DP01\] are one rank of two data-parallel replicas, each a job of its own (SGLang's DP without DP attention), and xp imports one job's ranks" \
  "$XP" --db "$tmp/dp.db" import torch-trace "$tmp/dp.json.gz"
db="$tmp/dp.db"
check "DP replicas: recorded as failed, no trace rows" "failed|0" "$(query "SELECT status || '|' || (SELECT count(*) FROM trace_ranks) FROM runs")"

# --events keeps a file's events under one rank: refused, as for a file of several GPUs
one_line "--events" 2 "sglang_merged.json.gz: 2 ranks merged into one file (its pids labelled \[TP00\] to \[TP01\]), and xp counts one GPU per rank, but --events keeps a file's events under one rank" \
  "$XP" --db "$tmp/ev.db" import torch-trace "$v/sglang_merged.json.gz" --events

# two ranks with c10d's collectives (Seq, record_param_comms) merged: the same figures as their files
steps=()
db="$tmp/mn-own.db"
imp "$v/multinode_r0.json.gz" "$v/multinode_r1.json.gz"
want=$(trace_figures)
python3 "$v/sglang_merge.py" "$tmp/mn.json.gz" TP-0 TP-1 "$v/multinode_r0.json.gz" "$v/multinode_r1.json.gz"
db="$tmp/mn.db"
imp "$tmp/mn.json.gz"
check "c10d's collectives: the same figures" "$want" "$(trace_figures)"
check "c10d's collectives: sources" "trace trace" "$(query "SELECT rank_source FROM trace_ranks ORDER BY rank" | paste -sd' ')"
# ... the files named as each other's ranks: the labels' ranks, their calls' said
python3 "$v/sglang_merge.py" "$tmp/mnx.json.gz" TP-1 TP-0 "$v/multinode_r0.json.gz" "$v/multinode_r1.json.gz"
db="$tmp/mnx.db"
imp "$tmp/mnx.json.gz"
check "labels against the calls: ranks" "0:6:1 1:6:0" "$(query "SELECT rank || ':' || kernels || ':' || device FROM trace_ranks ORDER BY rank" | paste -sd' ')"
check "labels against the calls: said" "xp: warning: $tmp/mnx.json.gz: the pids labelled [TP00] are rank 0 but its record_param_comms name rank 1: recorded as rank 0, the label's" \
  "$(grep 'TP00\] are' "$tmp/err")"
steps=(--step-annotation 'step[*')

# a label that is none SGLang writes stays a string pid: one rank, as before
zcat "$v/sglang_merged.json.gz" | sed 's/"\[TP0\([01]\)\] /"[Rank\1] /g' > "$tmp/other.json"
db="$tmp/other.db"
imp "$tmp/other.json"
check "no label: one rank" "0/264" "$(query "SELECT rank || '/' || kernels FROM trace_ranks")"
# GPU activities with a label and one without (a number): read as one rank, said
zcat "$v/sglang_merged.json.gz" | python3 -c '
import json, sys
t = json.load(sys.stdin)
k = next(e for e in t["traceEvents"] if e.get("cat") == "kernel")
k["pid"] = 0
json.dump(t, sys.stdout)' > "$tmp/mixed.json"
db="$tmp/mixed.db"
imp "$tmp/mixed.json"
check "mixed: one rank" "0/264" "$(query "SELECT rank || '/' || kernels FROM trace_ranks")"
check "mixed: said" 1 "$(grep -c "263 GPU activities under rank labels (\[TP00\], as SGLang's profile merger writes a merged file's pids) and 1 without one: read as one rank" "$tmp/err")"

# The same ranks merged by TraceLens' TraceFuse (tracelens_fuse.py rebuilds it): no labels, each
# rank's pids moved apart (rank 1's GPU, pid 1, is pid 100001) and its args kept ("device": 1).
# Each GPU is a rank, with its process's CPU side, as the ranks' own files give them (but the
# clock: TraceFuse leaves out baseTimeNanoseconds, and the rank, told by the calls). Before, rank
# 1's device was stored as 100001, its pid.
own() {
  query "SELECT 'rank', rank, kernels, memcpys, cpu_ops, linked_kernels, device, world_size, busy_ns, kernel_ns, gpu_end_ns - gpu_start_ns FROM trace_ranks ORDER BY rank"
  query "SELECT 'step', rank, step, number, wall_ns, kernels, kernel_ns, busy_ns FROM trace_steps ORDER BY rank, step"
  query "SELECT 'coll', rank, seq, collective, step, dur_ns, match_group, wait_ns, transfer_ns FROM trace_collectives ORDER BY rank, seq"
  query "SELECT 'kernels', k.rank, n.name, k.count, k.total_ns FROM trace_kernel_stats k JOIN trace_names n ON n.id = k.name_id ORDER BY 2, 3"
}
db="$tmp/own2.db"
imp "$v/sglang_tp0.json.gz" "$v/sglang_tp1.json.gz"
want=$(own)
db="$tmp/fused.db"
imp "$v/tracelens_fused.json.gz"
check "TraceFuse: exit" 0 $?
check "TraceFuse: the figures of the ranks' own files" "$want" "$(own)"
check "TraceFuse: devices" "0:0 1:1" "$(query "SELECT rank || ':' || device FROM trace_ranks ORDER BY rank" | paste -sd' ')"
finish
