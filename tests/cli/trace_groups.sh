#!/usr/bin/env bash
# Two tensor-parallel groups of a job of four (TP=2 x DP=2), in lockstep, whose all-reduce
# kernels give their group's size but not its name ("Collective name", "Group size": PyTorch's
# torch/csrc/profiler/util.cpp saveNcclMeta writes "Process Group Name" only where c10d's name for
# the group is not empty, and wrote none before that key was added), each rank's trace with
# the distributedInfo.pg_config PyTorch writes (torch/profiler/profiler.py _get_distributed_info:
# its process groups, the world's, its TP group's with NCCL and again with gloo, as vLLM makes
# them). Generated here with known figures: each all-reduce overlaps the other group's, so pooled
# across the four ranks they were taken for collectives of four.
set -u
. "$XP_SRC/tests/lib.sh"

# trace RANK: ProfilerStep#1 and three all-reduces of 4096 bf16 on its TP group, rank 0 arriving
# at 100 us, 1 at 101, 2 at 103, 3 at 105 (each step 100 us later); group {0, 1} leaves at 108 us,
# {2, 3} at 109 us.
trace() {
  local r=$1 tp="[0, 1]" name=1 k t
  [ "$r" -ge 2 ] && tp="[2, 3]" name=2 # c10d counts the groups every rank creates, its own or not
  local arrive=(0 1 3 5) leave=(8 8 9 9)
  printf '{"schemaVersion": 1, "deviceProperties": [{"id": %d, "name": "NVIDIA H200"}],\n' "$r"
  printf '"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 4' "$r"
  if [ -z "${no_config:-}" ]; then
    printf ', "pg_count": 3, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 4, "ranks": [0, 1, 2, 3]}, '
    printf '{"pg_name": "%d", "pg_desc": "undefined", "backend_config": "cuda:nccl", "pg_size": 2, "ranks": %s}, ' "$name" "$tp"
    printf '{"pg_name": "%d", "pg_desc": "undefined", "backend_config": "cpu:gloo", "pg_size": 2, "ranks": %s}' $((name + 2)) "$tp"
    [ -n "${dp:-}" ] && printf ', {"pg_name": "%d", "pg_desc": "undefined", "backend_config": "cuda:nccl", "pg_size": 2, "ranks": [%d, %d]}' \
      $((5 + r % 2)) $((r % 2)) $((r % 2 + 2))
    printf ']'
  fi
  printf '},\n"traceEvents": [\n'
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": %d, "tid": %d, "ts": 0.000, "dur": 1000.000, "args": {"External id": 1}},\n' $((100 + r)) $((100 + r))
  for k in 0 1 2; do
    t=$((100 + 100 * k))
    printf '{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": %d, "tid": %d, "ts": %d.000, "dur": 5.000, ' $((100 + r)) $((100 + r)) $((t - 20))
    local call=""  # what the call's record_param_comms alone may say (Kineto copying less onto the kernel)
    [ -n "${calls_named:-}" ] && call=", \"Process Group Name\": \"$name\", \"Process Group Description\": \"undefined\", \"Process Group Ranks\": \"$tp\""
    [ -n "${seq_on_call:-}" ] && call="$call, \"Seq\": $((k + 1))"
    printf '"args": {"External id": %d, "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 2%s}},\n' $((10 + k)) "$call"
    printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": %d.000, "dur": 3.000, "args": {"External id": %d, "correlation": %d}},\n' $((100 + r)) $((100 + r)) $((t - 18)) $((10 + k)) $((50 + k))
    printf '{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": %d, "tid": 13, "ts": %d.000, "dur": %d.000, ' "$r" $((t + ${arrive[$r]})) $((${leave[$r]} - ${arrive[$r]}))
    local again=""  # a key written twice: its last value counts (json.load, Chrome's and Perfetto's readers)
    [ -n "${size_twice:-}" ] && again='"Group size": 4, '
    printf '"args": {%s"External id": %d, "device": %d, "stream": 13, "correlation": %d, "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 2}},\n' "$again" $((10 + k)) "$r" $((50 + k))
  done
  printf '{"ph": "i", "cat": "cpu_instant_event", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 1000.000}\n],\n"traceName": "rank%d.json"}\n' "$r"
}
# waits [count]: per rank, the sum of its collectives' waits (ns), with "count" how many have one
waits() {
  local n=""
  [ "${1:-}" = count ] && n=" || '|' || count(wait_ns)"
  query "SELECT group_concat(x, ';') FROM (SELECT rank || '|' || sum(wait_ns)$n AS x
         FROM trace_collectives WHERE run_id = (SELECT max(run_id) FROM trace_collectives) GROUP BY rank ORDER BY rank)"
}
decl="--set model=tp2dp2 --set tp=2 --set batch=1 --set interconnect=nvlink"
for r in 0 1 2 3; do trace $r > "$tmp/r$r.json"; done
"$XP" --db "$db" import torch-trace "$tmp/r0.json" "$tmp/r1.json" "$tmp/r2.json" "$tmp/r3.json" $decl > "$tmp/out" 2> "$tmp/err"
check "import exit" 0 $?
grep -q '^collectives: 12 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: each TP group's all-reduces matched"; cat "$tmp/out"; fail=1; }
# waits to the last of its own group: rank 0 waits 1 us (for rank 1), rank 2 2 us (for rank 3);
# pooled, rank 0 waited 5 us (for rank 3, of the other group)
check "waits per rank over its three all-reduces, ns, to its own group's last" "0|3000;1|0;2|6000;3|0" \
  "$(waits)"
check "each collective pairs two ranks of one group" "0+1|3;2+3|3" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT ranks || '|' || count(*) AS x FROM (SELECT group_concat(rank, '+') AS ranks FROM
            (SELECT match_group, rank FROM trace_collectives WHERE run_id = (SELECT max(run_id) FROM trace_collectives) ORDER BY match_group, rank)
            GROUP BY match_group) GROUP BY ranks ORDER BY ranks)")"
check "the group is the one each rank's distributedInfo names (NCCL's, not gloo's)" "1|[0 1];2|[2 3]" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT DISTINCT pg_name || '|' || replace(pg_ranks, ', ', ' ') AS x FROM trace_collectives
            WHERE run_id = (SELECT max(run_id) FROM trace_collectives) ORDER BY x)")"

# a kernel's "Group size" written twice, 4 then 2: the last counts, as for every other JSON key
# the import reads (the first was read: the all-reduces taken for the world's and pooled)
for r in 0 1 2 3; do size_twice=1 trace $r > "$tmp/g$r.json"; done
"$XP" --db "$db" import torch-trace "$tmp/g0.json" "$tmp/g1.json" "$tmp/g2.json" "$tmp/g3.json" $decl > "$tmp/out" 2> "$tmp/err"
check "Group size given twice: import exit" 0 $?
grep -q '^collectives: 12 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: Group size given twice: matched"; cat "$tmp/out"; fail=1; }
check "Group size given twice: the last, each TP group's waits" "0|3000;1|0;2|6000;3|0" \
  "$(waits)"

# each rank in a data-parallel group of two as well ([0, 2], [1, 3]): which group of two the
# all-reduces ran in cannot be told, so they are not matched
for r in 0 1 2 3; do dp=1 trace $r > "$tmp/d$r.json"; done
"$XP" --db "$db" import torch-trace "$tmp/d0.json" "$tmp/d1.json" "$tmp/d2.json" "$tmp/d3.json" $decl > "$tmp/out" 2> "$tmp/err"
check "two groups of two: import exit" 0 $?
grep -q '^collectives: 0 matched, 12 unmatched' "$tmp/out" || { echo "FAIL: two groups of two: not matched"; cat "$tmp/out"; fail=1; }

# without pg_config (PyTorch before it wrote one): the group of two cannot be told, and the
# kernels are not pooled as one of four either: unmatched, the note says why
for r in 0 1 2 3; do no_config=1 trace $r > "$tmp/n$r.json"; done
"$XP" --db "$db" import torch-trace "$tmp/n0.json" "$tmp/n1.json" "$tmp/n2.json" "$tmp/n3.json" $decl > "$tmp/out" 2> "$tmp/err"
check "no pg_config: import exit" 0 $?
grep -q "^collectives: 0 matched, 12 unmatched (.*12 kernels naming no process group not matched: their \"Group size\" 2 is not the 4 ranks'" "$tmp/out" ||
  { echo "FAIL: no pg_config: not pooled, said"; cat "$tmp/out"; fail=1; }
# the group named by the calls alone: Kineto copied a record_param_comms' "Group size" onto its
# kernel before it copied the process group (pytorch/kineto#880, 2024), and "Seq", which PyTorch
# writes on the call (pytorch/kineto#1294), only from pytorch/kineto#1296 (2026). A kernel shares
# its call's External id: what its args leave out, the call gives. Before, the kernels of a rank in
# a TP and a DP group of two were left unmatched as above, and no kernel had a number
for r in 0 1 2 3; do dp=1 calls_named=1 seq_on_call=1 trace $r > "$tmp/c$r.json"; done
"$XP" --db "$db" import torch-trace "$tmp/c0.json" "$tmp/c1.json" "$tmp/c2.json" "$tmp/c3.json" $decl > "$tmp/out" 2> "$tmp/err"
check "group named by the calls: import exit" 0 $?
grep -q '^collectives: 12 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: group named by the calls: matched"; cat "$tmp/out"; fail=1; }
check "group named by the calls: each rank's TP group, its Seq" "0|1|[0 1]|1 2 3;1|1|[0 1]|1 2 3;2|2|[2 3]|1 2 3;3|2|[2 3]|1 2 3" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT rank || '|' || min(pg_name) || '|' || replace(min(pg_ranks), ', ', ' ') || '|' || group_concat(seq_arg, ' ') AS x
            FROM (SELECT * FROM trace_collectives WHERE run_id = (SELECT max(run_id) FROM trace_collectives) ORDER BY rank, seq) GROUP BY rank ORDER BY rank)")"
check "group named by the calls: waits as by the kernels' own args" "0|3000;1|0;2|6000;3|0" \
  "$(waits)"

# PyTorch 2.8 on (pytorch/pytorch#150398): a collective called with async_op=False runs on the
# caller's current stream, so a TP group's and a DP group's collectives share the compute stream
# (7), where before each group had an NCCL stream of its own (ProcessGroupNCCL's ncclStreams_, one
# per device: 13 for TP, 17 for DP). Each step: an all-reduce of the TP group (100 us, arriving as
# above), one of the DP group ([0, 2] and [1, 3]; ranks 0 and 1 arriving at 130 and 131 us, 2 and 3
# at 134 and 132, all leaving at 140) and one more of the TP group at 160 us that names no group
# (vLLM's pynccl: no record_param_comms, no args). On a stream of its own it is the TP group's, the
# figures those of the trace that names it; on the shared stream the collective before it is the
# DP group's, whose ranks it was matched with (rank 0 waiting 3 us for rank 2, not 1 us for rank 1):
# now it is left unmatched there, said, as which group it ran in cannot be told
trace2() {
  local r=$1 tp="[0, 1]" name=1 k t s e d
  [ "$r" -ge 2 ] && tp="[2, 3]" name=2
  local dpn=$((5 + r % 2)) dp="[$((r % 2)), $((r % 2 + 2))]"
  local arrive=(0 1 3 5) leave=(8 8 9 9) dparrive=(30 31 34 32)
  local tps=13 dps=17
  [ -n "${one_stream:-}" ] && tps=7 dps=7
  printf '{"schemaVersion": 1, "deviceProperties": [{"id": %d, "name": "NVIDIA H200"}],\n' "$r"
  printf '"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 4, "pg_count": 5, "pg_config": [' "$r"
  printf '{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 4, "ranks": [0, 1, 2, 3]}, '
  printf '{"pg_name": "%d", "pg_desc": "undefined", "backend_config": "cuda:nccl", "pg_size": 2, "ranks": %s}, ' "$name" "$tp"
  printf '{"pg_name": "%d", "pg_desc": "undefined", "backend_config": "cuda:nccl", "pg_size": 2, "ranks": %s}]},\n' "$dpn" "$dp"
  printf '"traceEvents": [\n'
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": %d, "tid": %d, "ts": 0.000, "dur": 1000.000, "args": {"External id": 1}},\n' $((100 + r)) $((100 + r))
  for k in 0 1 2; do
    t=$((100 + 100 * k))
    # kernel STREAM START DUR CORRELATION ARGS
    kernel() {
      printf '{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": %d, "tid": %d, "ts": %d.000, "dur": %d.000, "args": {"device": %d, "stream": %d, "correlation": %d%s}},\n' \
        "$r" "$1" "$2" "$3" "$r" "$1" "$4" "$5"
    }
    named() { printf ', "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 2, "Process Group Name": "%s", "Process Group Description": "undefined", "Process Group Ranks": "%s"' "$1" "$2"; }
    kernel $tps $((t + ${arrive[$r]})) $((${leave[$r]} - ${arrive[$r]})) $((50 + 3 * k)) "$(named $name "$tp")"
    kernel $dps $((t + ${dparrive[$r]})) $((40 - ${dparrive[$r]})) $((51 + 3 * k)) "$(named $dpn "$dp")"
    s=""
    [ -n "${third_named:-}" ] && s=$(named $name "$tp")
    kernel $tps $((t + 60 + ${arrive[$r]})) $((${leave[$r]} - ${arrive[$r]})) $((52 + 3 * k)) "$s"
  done
  printf '{"ph": "i", "cat": "cpu_instant_event", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 1000.000}\n],\n"traceName": "rank%d.json"}\n' "$r"
}
for form in "own streams|" "one stream|1"; do
  IFS='|' read -r label one <<< "$form"
  for r in 0 1 2 3; do one_stream=$one third_named=1 trace2 $r > "$tmp/s$r.json"; one_stream=$one trace2 $r > "$tmp/u$r.json"; done
  "$XP" --db "$db" import torch-trace "$tmp/s0.json" "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" $decl > "$tmp/out" 2> "$tmp/err"
  check "$label, all named: import exit" 0 $?
  grep -q '^collectives: 36 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: $label, all named: matched"; cat "$tmp/out"; fail=1; }
  # per rank: its wait over its matched all-reduces (ns) and their count: rank 0 1 us per TP
  # all-reduce and 4 us per DP one, rank 1 1 us per DP one, rank 2 2 us per TP one
  check "$label, all named: waits" "0|18000|9;1|3000|9;2|12000|9;3|0|9" "$(waits count)"
  "$XP" --db "$db" import torch-trace "$tmp/u0.json" "$tmp/u1.json" "$tmp/u2.json" "$tmp/u3.json" $decl > "$tmp/out" 2> "$tmp/err"
  check "$label, one naming none: import exit" 0 $?
  if [ -z "$one" ]; then
    grep -q '^collectives: 36 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: $label: matched"; cat "$tmp/out"; fail=1; }
    check "$label, one naming none: the TP group's, the figures of the trace naming it" "0|18000|9;1|3000|9;2|12000|9;3|0|9" "$(waits count)"
  else
    grep -q '^collectives: 24 matched, 12 unmatched (.*12 kernels naming no process group not matched' "$tmp/out" ||
      { echo "FAIL: $label: the one naming none unmatched, said"; cat "$tmp/out"; fail=1; }
    check "$label, one naming none: the named ones' waits as named; none for it" "0|15000|6;1|3000|6;2|6000|6;3|0|6" "$(waits count)"
  fi
done
# A group of more than 30 ranks: c10d lists it by its first 29 members and its last, "[0, 1, ...,
# 28, ..., 30]" (saveNcclMeta, torch/csrc/profiler/util.cpp kTruncatLength, as Kineto's tests
# write it), with its "Group size". wide RANK: one all-reduce of a 31-rank world, rank R arriving
# at 100 + R us, all leaving at 200 us.
wide() {
  local r=$1 ranks="[$(seq -s ', ' 0 28), ..., 30]"
  printf '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 31},\n"traceEvents": [\n' "$r"
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": %d, "tid": %d, "ts": 0.000, "dur": 1000.000, "args": {}},\n' $((100 + r)) $((100 + r))
  printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": 50.000, "dur": 3.000, "args": {"correlation": 50}},\n' $((100 + r)) $((100 + r))
  printf '{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 13, "ts": %d.000, "dur": %d.000, ' $((100 + r)) $((100 - r))
  printf '"args": {"device": 0, "stream": 13, "correlation": 50, "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 31, "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "%s", "Seq": 1}}\n]}\n' "$ranks"
}
all="" gap=""
for r in $(seq 0 30); do
  wide $r > "$tmp/w$r.json"
  all="$all $tmp/w$r.json"
  [ $r = 29 ] || gap="$gap $tmp/w$r.json"
done
"$XP" --db "$db" import torch-trace $all > "$tmp/out" 2> "$tmp/err"
check "31 ranks, all: import exit" 0 $?
grep -q '^collectives: 31 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: 31 ranks, all: matched"; cat "$tmp/out"; fail=1; }
check "31 ranks, all: rank 0 waits for rank 30" 30000 "$(query "SELECT wait_ns FROM trace_collectives WHERE rank = 0 AND run_id = (SELECT max(run_id) FROM trace_collectives)")"
# rank 29, which the cut list does not name, not imported: no collective is whole (it was taken
# for one of the 30 ranks imported, rank 0 waiting 30 us for rank 30 though 29 is unseen)
"$XP" --db "$db" import torch-trace $gap > "$tmp/out" 2> "$tmp/err"
check "31 ranks, one not imported: import exit" 0 $?
grep -q '^collectives: 0 matched, 30 unmatched' "$tmp/out" || { echo "FAIL: 31 ranks, one not imported: unmatched"; cat "$tmp/out"; fail=1; }
# ... and such a group as distributedInfo.pg_config lists it (every member): a kernel giving its
# "Group size" but no name is its rank's one configured group of that size, under the key the
# args of a kernel naming it give, "[0, 1, ..., 28, ..., 159]", not the whole list (stored cut
# at 511 bytes, mid-number) that named another group than the kernel naming it.
{
  printf '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 160, "pg_count": 1, '
  printf '"pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 160, "ranks": [%s]}]},\n' "$(seq -s ', ' 0 159)"
  printf '"traceEvents": [\n{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 100, "ts": 0.000, "dur": 1000.000, "args": {}},\n'
  for k in 0 1; do
    named=""
    [ $k = 0 ] && named=", \"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[$(seq -s ', ' 0 28), ..., 159]\""
    printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": %d.000, "dur": 3.000, "args": {"correlation": %d}},\n' $((50 + 100 * k)) $((50 + k))
    # each on a stream of its own: the one naming none is not given its stream's group
    printf '{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": %d, "ts": %d.000, "dur": 50.000, ' $((13 + k)) $((100 + 100 * k))
    printf '"args": {"device": 0, "stream": %d, "correlation": %d, "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 160%s}}%s\n' $((13 + k)) $((50 + k)) "$named" "$([ $k = 0 ] && echo ,)"
  done
  printf ']}\n'
} > "$tmp/wide_config.json"
"$XP" --db "$db" import torch-trace "$tmp/wide_config.json" > "$tmp/out" 2> "$tmp/err"
check "160 ranks configured: import exit" 0 $?
check "160 ranks configured: one group, as the args name it" "\"2|0|[$(seq -s ', ' 0 28), ..., 159]\"" \
  "$(query "SELECT count(*) || '|' || pg_name || '|' || pg_ranks FROM trace_collectives WHERE run_id = (SELECT max(run_id) FROM trace_collectives) GROUP BY pg_name, pg_ranks")"
finish
