#!/usr/bin/env bash
# Traces as serving engines write them: vLLM and SGLang start and stop torch.profiler without
# stepping it (no ProfilerStep#N) and replay decode as CUDA graphs, so every kernel of a step
# shares its cudaGraphLaunch's correlation id and a collective kernel carries no "Collective
# name" args. Two ranks of such a job, generated here with known figures: the import counts
# each rank's whole GPU window as one step and says so, the queries answer from it (and mark
# it), the NCCL kernels are matched across ranks by time, and --step-annotation marks real
# steps, which decode_gap_analysis.sql takes where it leaves the window out.
set -u
. "$XP_SRC/tests/lib.sh"

# trace RANK: 4 decode steps, each an "execute_model" annotation and one graph launch of 5
# kernels. Rank 1 enters each all-reduce 5 us after rank 0; both leave it together.
trace() {
  local r=$1 ar_start=35 ar_dur=25
  [ "$r" = 1 ] && ar_start=40 ar_dur=20
  printf '{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", '
  printf '"computeMajor": 12, "computeMinor": 0, "numSms": 188}],\n'
  [ -n "${mpi:-}" ] || printf '"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n' "$r" "${world:-2}"
  printf '"displayTimeUnit": "ms", "baseTimeNanoseconds": 1790000000000000000,\n"traceEvents": [\n'
  local i s corr
  for i in 0 1 2 3; do
    s=$((1000 + 200 * i)) corr=$((500 + i))
    printf '{"ph": "X", "cat": "user_annotation", "name": "execute_model", "pid": 900, "tid": 900, '
    printf '"ts": %d.000, "dur": 150.000, "args": {"External id": %d}},\n' "$s" $((10 + 2 * i))
    printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 900, "tid": 900, '
    printf '"ts": %d.500, "dur": 8.250, "args": {"External id": %d, "cbid": 311, "correlation": %d}},\n' \
      "$s" $((11 + 2 * i)) "$corr"
    kernel "$s" 10 20 "nvjet_tst_64x8_64x16_4x1_v_bz_TNT" 7
    if [ $i -lt 2 ]; then
      kernel "$s" "$ar_start" "$ar_dur" "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)" 13
    else # vLLM's custom all-reduce, on the compute stream
      kernel "$s" "$ar_start" "$ar_dur" "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)" 7
    fi
    kernel "$s" 65 5 "void vllm::moe::topkGating<8, 256, 4, 16, 32, int, __nv_bfloat16, 2>(float const*, bool const*, float*, int, int*, int*, int, int, int, bool)" 7
    kernel "$s" 72 40 "fused_moe_kernel" 7
    kernel "$s" 115 5 "void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)" 7
  done
  printf '{"ph": "i", "cat": "cpu_instant_event", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 1900.000}\n'
  printf '],\n"traceName": "rank%d.pt.trace.json"}\n' "$r"
}
kernel() { # kernel STEP_START OFFSET DUR NAME STREAM, in the step's graph launch (corr, i)
  local name=${4//\"/\\\"}
  printf '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, "ts": %d.000, "dur": %d.000, ' \
    "$name" "$5" $(($1 + $2)) "$3"
  printf '"args": {"External id": %d, "device": 0, "stream": %d, "correlation": %d, "graph id": 3, ' \
    $((11 + 2 * i)) "$5" "$corr"
  printf '"graph node id": %d, "registers per thread": 128, "grid": [132, 1, 1], "block": [256, 1, 1]}},\n' $((40 + $2))
}
trace 0 | gzip > "$tmp/r0.pt.trace.json.gz"
trace 1 > "$tmp/r1.pt.trace.json"
decl="--set model=graph-test --set tp=2 --set batch=8 --set interconnect=pcie"

"$XP" --db "$db" import torch-trace "$tmp/r0.pt.trace.json.gz" "$tmp/r1.pt.trace.json" $decl > "$tmp/out" 2> "$tmp/err"
check "import exit" 0 $?
check "one warning per rank, naming what was done" 2 \
  "$(grep -c 'no ProfilerStep#N annotations: its whole GPU window counts as one step' "$tmp/err")"
check "each rank's line counts one step, not '1 steps'" 2 "$(grep -c ': 20 kernels, 1 step, GPU busy' "$tmp/out")"
check "the import says its steps are windows" "(whole window)|(whole window)" \
  "$(query "SELECT i.step_annotation || '|' || m.value FROM trace_imports i JOIN run_meta m ON m.run_id = i.run_id
            WHERE m.key = 'trace.step_annotation'")"
# the window runs from the first kernel (1010 us) to the end of the last (1720 us), plus 1 ns
check "one step per rank, every kernel in it" "0|1|20|95000|710001;1|1|20|90000|710001" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT r.rank || '|' || r.steps || '|' || s.kernels || '|' ||
            (s.kernel_ns / 4) || '|' || s.wall_ns AS x FROM trace_ranks r JOIN trace_steps s USING (run_id, rank) ORDER BY r.rank)")"
check "graph-launched NCCL and custom all-reduce kernels are all-reduces, matched by time" "0|4|20000|80000;1|4|0|80000" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT rank || '|' || count(match_group) || '|' || sum(wait_ns) || '|' ||
            sum(transfer_ns) AS x FROM trace_collectives WHERE collective = 'allreduce' GROUP BY rank ORDER BY rank)")"

# Step kernel time 4 x (95 + 90) = 740 us; AllReduce 4 x (25 + 20) = 180 us (24.3%); with rank
# 0's 20 us of waiting removed, 160 of 720 us (22.2%); MoE 4 x 2 x (5 + 40) = 360 us (48.6%).
"$XP" --db "$db" query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv > "$tmp/b"
check "bottleneck query exit" 0 $?
col() { # col NAME: that column's number in $tmp/b
  head -1 "$tmp/b" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}
row() { awk -F, -v c="$1" -v k="$(col category)" '$k == c' "$tmp/b"; }
check "allreduce share, as recorded, from the window" "24.3,1" \
  "$(row allreduce | awk -F, -v p="$(col latest_pct)" -v w="$(col window_runs)" '{ print $p "," $w }')"
check "allreduce share, transfer only" "22.2" \
  "$(row 'allreduce (transfer only)' | awk -F, -v p="$(col latest_pct)" '{ print $p }')"
check "moe share" "48.6" "$(row moe | awk -F, -v p="$(col latest_pct)" '{ print $p }')"
"$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 --param interconnect=pcie --format csv > "$tmp/a"
grep -q 'AllReduce is 24.3% of decode-step GPU time as recorded.*22.2% transferring.*1 run without step marks: its whole profiled window counted as one step' "$tmp/a" \
  || { echo "FAIL: allreduce_share answer"; cat "$tmp/a"; fail=1; }
"$XP" --db "$db" report --out "$tmp/r.html" > /dev/null 2>&1
check "report exit" 0 $?
check "the report says the time is a window's" 1 "$(grep -c 'ms of GPU time in its whole window (no step marks)' "$tmp/r.html")"
"$XP" --db "$db" query "$XP_SRC/queries/decode_gap_analysis.sql" --param model=graph-test --param tp=2 \
  --param batch=8 --param interconnect=any --format csv > "$tmp/g"
check "decode_gap_analysis leaves the window out" 1 "$(grep -c 'no trace with marked steps' "$tmp/g")"

# The same traces with their steps marked by the engine's annotation.
"$XP" --db "$db" import torch-trace "$tmp/r0.pt.trace.json.gz" "$tmp/r1.pt.trace.json" $decl \
  --step-annotation execute_model > "$tmp/out" 2> "$tmp/err"
check "marked import exit" 0 $?
check "marked import warns nothing" "" "$(cat "$tmp/err")"
check "four steps per rank, each with its five kernels" "execute_model|0|4|20;execute_model|1|4|20" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT i.step_annotation || '|' || r.rank || '|' || r.steps || '|' ||
            (SELECT sum(kernels) FROM trace_steps s WHERE s.run_id = r.run_id AND s.rank = r.rank) AS x
            FROM trace_ranks r JOIN trace_imports i USING (run_id) WHERE i.step_annotation <> '(whole window)' ORDER BY r.rank)")"
"$XP" --db "$db" query "$XP_SRC/queries/decode_gap_analysis.sql" --param model=graph-test --param tp=2 \
  --param batch=8 --param interconnect=any --format csv > "$tmp/g"
check "decode_gap_analysis takes the marked steps" 0 "$(grep -c 'no trace with marked steps' "$tmp/g")"

# Two ranks of a job of four: the group of a kernel that names none cannot be told, so it
# stays unmatched rather than be paired with a rank that may not be in its group.
world=4 trace 0 > "$tmp/w0.json"
world=4 trace 1 > "$tmp/w1.json"
"$XP" --db "$db" import torch-trace "$tmp/w0.json" "$tmp/w1.json" $decl > "$tmp/out" 2> /dev/null
check "part of a job: exit" 0 $?
grep -q '^collectives: 0 matched, 8 unmatched' "$tmp/out" || { echo "FAIL: part of a job"; cat "$tmp/out"; fail=1; }

# An engine launched with MPI (TensorRT-LLM) has no distributedInfo: the ranks are given in
# the files' order, and its collectives are still matched.
mpi=1 trace 0 > "$tmp/m0.json"
mpi=1 trace 1 > "$tmp/m1.json"
one_line "no ranks in the traces" 2 'no distributedInfo.rank.*--ranks R0,R1' \
  "$XP" --db "$db" import torch-trace "$tmp/m0.json" "$tmp/m1.json" $decl --step-annotation execute_model
one_line "a rank short" 2 'ranks: 1 ranks for 2 trace files' \
  "$XP" --db "$db" import torch-trace "$tmp/m0.json" "$tmp/m1.json" $decl --ranks 0
one_line "a rank twice" 2 'ranks: rank 1 given twice' \
  "$XP" --db "$db" import torch-trace "$tmp/m0.json" "$tmp/m1.json" $decl --ranks 1,1
"$XP" --db "$db" import torch-trace "$tmp/m1.json" "$tmp/m0.json" $decl --ranks 1,0 > "$tmp/out" 2> /dev/null
check "ranks given: exit" 0 $?
grep -q '^collectives: 8 matched, 0 unmatched' "$tmp/out" || { echo "FAIL: ranks given: matching"; cat "$tmp/out"; fail=1; }
check "ranks given, by option, in the files' order" "0|option|m0.json;1|option|m1.json" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT rank || '|' || rank_source || '|' || replace(file, rtrim(file, replace(file, '/', '')), '') AS x
            FROM trace_ranks WHERE run_id = (SELECT max(run_id) FROM trace_ranks) ORDER BY rank)")"

# One rank marked with ProfilerStep#N, the other not: the import says which rank is a window.
sed 's/"execute_model"/"ProfilerStep#7"/' "$tmp/w0.json" > "$tmp/p0.json"
"$XP" --db "$db" import torch-trace "$tmp/p0.json" "$tmp/w1.json" $decl > /dev/null 2> "$tmp/err"
check "mixed steps: exit" 0 $?
grep -q "w1.json: rank 1's whole window counts as one step while the other ranks mark theirs" "$tmp/err" \
  || { echo "FAIL: mixed steps warning"; cat "$tmp/err"; fail=1; }

# An annotation asked for by name and absent stays absent: no window in its place.
"$XP" --db "$db" import torch-trace "$tmp/r1.pt.trace.json" $decl --step-annotation decode_step > /dev/null 2> "$tmp/err"
check "absent annotation: exit" 0 $?
grep -q 'no "decode_step" annotations: per-step figures are empty' "$tmp/err" \
  || { echo "FAIL: absent annotation warning"; cat "$tmp/err"; fail=1; }
check "absent annotation: no steps" "decode_step|0" \
  "$(query "SELECT i.step_annotation || '|' || r.steps FROM trace_imports i JOIN trace_ranks r USING (run_id)
            WHERE i.step_annotation = 'decode_step'")"
# A copy the runtime names its own way (HIP's CopyHostToDevice) is a copy, at import and
# after xp reclassify.
{ trace 1 | sed '$d' | sed '$d'
  printf ',\n{"ph": "X", "cat": "gpu_memcpy", "name": "CopyHostToDevice", "pid": 0, "tid": 7, "ts": 1800.000, '
  printf '"dur": 3.000, "args": {"device": 0, "stream": 7, "correlation": 900, "bytes": 4096}}\n],\n"traceName": "x"}\n'
} > "$tmp/copy.json"
"$XP" --db "$db" import torch-trace "$tmp/copy.json" $decl > /dev/null 2> "$tmp/err"
check "copy trace: exit" 0 $?
check "HIP copy named by kind" "memcpy|memcpy" \
  "$(query "SELECT kind || '|' || category FROM trace_names WHERE name = 'CopyHostToDevice'")"
"$XP" --db "$db" reclassify > /dev/null 2>&1
check "and after reclassify" "memcpy" "$(query "SELECT category FROM trace_names WHERE name = 'CopyHostToDevice'")"
finish
