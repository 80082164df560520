#!/usr/bin/env bash
# A GPU activity that no args link to an operator (and no correlation to a launch) is placed by
# stream order: one that ran between two linked kernels of step k on its stream was launched
# between them, in step k, wherever its GPU start falls. Two ranks, generated here: rank 0's GPU
# keeps up with its CPU, rank 1's runs behind by more every step (170 us, then 370, 570, 770),
# so its unlinked kernels start on the GPU in later steps' CPU windows, or after every step.
set -u
. "$XP_SRC/tests/lib.sh"

# trace RANK LAG GROWTH LATE: 4 ProfilerStep#N of 200 us from 1000 us, each launching aten::mm
# and aten::add (linked kernels gemm_a and add_b, stream 7); GPU work of step k starts at
# 1000 + 200 k + LAG + GROWTH k. Unlinked: unlinked_mid and a memset between gemm_a and add_b,
# unlinked_gap 10 us after add_b, unlinked_late at LATE us, side_stream alone on stream 13.
trace() {
  local r=$1 lag=$2 growth=$3 late=$4 k s g ext
  printf '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 2},\n' "$r"
  printf '"baseTimeNanoseconds": 1790000000000000000,\n"traceEvents": [\n'
  for k in 0 1 2 3; do
    s=$((1000 + 200 * k)) g=$((1000 + 200 * k + lag + growth * k)) ext=$((100 + 2 * k))
    printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 900, "tid": 900, "ts": %d, "dur": 200},\n' \
      $((10 + k)) "$s"
    cpu "aten::mm" $((s + 10)) "$ext"
    cpu "aten::add" $((s + 20)) $((ext + 1))
    gpu kernel gemm_a "$g" 20 7 "$ext"
    gpu kernel unlinked_mid $((g + 30)) 10 7
    gpu kernel side_stream $((g + 35)) 5 13
    gpu memset "Memset (Device)" $((g + 45)) 2 7
    gpu kernel add_b $((g + 50)) 20 7 $((ext + 1))
    gpu kernel unlinked_gap $((g + 80)) 10 7
    gpu kernel unlinked_late $((g + late)) 10 7
  done
  printf '{"ph": "i", "cat": "cpu_instant_event", "s": "g", "name": "end", "pid": 900, "tid": 900, "ts": 3000}\n]}\n'
}
cpu() { # cpu NAME TS EXT
  printf '{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 900, "tid": 900, "ts": %d, "dur": 5, "args": {"External id": %d}},\n' \
    "$1" "$2" "$3"
}
corr=5000
gpu() { # gpu CAT NAME TS DUR STREAM [EXT]
  corr=$((corr + 1))
  printf '{"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %d, "ts": %d, "dur": %d, "args": {%s"device": 0, "stream": %d, "correlation": %d}},\n' \
    "$(sed 's/^memset$/gpu_memset/' <<< "$1")" "$2" "$5" "$3" "$4" "${6:+\"External id\": $6, }" "$5" "$corr"
}
trace 0 40 0 150 > "$tmp/r0.json"
trace 1 170 200 250 > "$tmp/r1.json"
"$XP" --db "$db" import torch-trace "$tmp/r0.json" "$tmp/r1.json" --set model=lag-test --set tp=2 --set batch=1 \
  --set interconnect=nvlink > "$tmp/out" 2> "$tmp/err"
check "import exit" 0 $?
check "nothing on stderr" "" "$(cat "$tmp/err")"
check "every activity read, 8 of them linked" "0|24|4|8;1|24|4|8" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT rank || '|' || kernels || '|' || (memcpys + memsets) || '|' ||
            linked_kernels AS x FROM trace_ranks ORDER BY rank)")"

# per rank and step: activities; outside every step: the rest of the rank's 28.
steps() {
  query "SELECT group_concat(x, ';') FROM (SELECT r.rank || ':' || coalesce((SELECT group_concat(s.kernels, ' ')
         FROM (SELECT kernels FROM trace_steps s WHERE s.run_id = r.run_id AND s.rank = r.rank ORDER BY step) s), '') || '+' ||
         (r.kernels + r.memcpys + r.memsets - (SELECT sum(kernels) FROM trace_steps s WHERE s.run_id = r.run_id AND s.rank = r.rank))
         AS x FROM trace_ranks r ORDER BY r.rank)"
}
where() { # where RANK NAME: the steps NAME was placed in, in step order
  query "SELECT group_concat(step, ' ') FROM (SELECT s.step FROM trace_step_kernels s JOIN trace_names n ON n.id = s.name_id
         WHERE s.rank = $1 AND n.name = '$2' ORDER BY s.step)"
}
# Rank 0 keeps up: each step's 7 activities start in its CPU window, as they were launched.
check "rank 0: every activity in its step" "0:7 7 7 7+0" "$(steps | cut -d';' -f1)"
# Rank 1 runs behind. Step k's linked gemm_a and add_b start at 1170, 1570, 1970, 2370 us; the
# unlinked kernel and the memset between them start in a later step's window (step 0's in 1's,
# step 1's in 3's) or after every step (2, 3); all four belong to step k.
check "rank 1: the unlinked kernel between two of step k's linked ones is step k's" "0 1 2 3" \
  "$(where 1 unlinked_mid)"
check "rank 1: so is the memset" "0 1 2 3" "$(where 1 'Memset (Device)')"
# unlinked_gap, 10 us after add_b: launched between step k's add_b and step k + 1's gemm_a, in
# step k or k + 1. Its GPU start says: step 1 for step 0's (in range: kept); step 3 for step
# 1's, later than step 2's gemm_a was launched: step 2; after every step for step 2's: step 3,
# where the next gemm_a was launched; step 3's has no linked kernel after it: still none.
check "rank 1: a gap kernel by GPU start, bounded by its stream neighbours' steps" "1 2 3" "$(where 1 unlinked_gap)"
# unlinked_late, 250 us after gemm_a: step 2's window for step 0's, bounded to 1; after every
# step for step 1's and 2's: 2 and 3; step 3's again none.
check "rank 1: a later gap kernel" "1 2 3" "$(where 1 unlinked_late)"
# side_stream is alone on stream 13: nothing bounds it, its GPU start decides (steps 1 and 3, then
# after every step).
check "rank 1: an unlinked kernel with no linked one on its stream, by GPU start" "1 3" "$(where 1 side_stream)"
# Placed by GPU start alone, rank 1's steps held 2, 6, 3 and 6 activities and 11 fell outside.
check "rank 1: activities per step, and outside every step" "1:4 7 6 7+4" "$(steps | cut -d';' -f2)"
finish
