#!/usr/bin/env bash
# Traces of other eras and vendors, generated here with known figures:
#   - torch 1.8/1.9: ProfilerStep#N is an "Operator"/"cpu_op" event, written after the operators
#     it holds, and the GPU runs 60 ms behind the CPU: each kernel belongs to its launching
#     operator's step, whatever its GPU time or where the step comes in the file;
#   - ROCm (roctracer through Kineto): a kernel's "External id" is its launch's correlation id,
#     shared with the hipLaunchKernel runtime event, not an operator's: the launch's CPU time
#     places it, and its operator is the innermost around that launch on its thread, not the
#     one whose External id (those numbers overlap) its id would name;
#     since Kineto's 2023 roctracer logger the launch carries its "correlation" apart and the
#     kernel's "External id" is its operator's again, also where the kernel has no correlation;
#     the older logger through Kineto's later JSON writer gave launches and kernels the
#     operator's External id and no correlation at all (one id on several launches says so);
#   - what old profilers wrote wrong: a kernel at "ts": 0 (pytorch/kineto#109), a negative
#     duration (before pytorch/kineto#646), an instant event of a kernel's category.
set -u
. "$XP_SRC/tests/lib.sh"

# old_trace CAT: 2 steps of 3 ops each (External ids 1..6), each op launching one 10 us kernel;
# every step's annotation is written after its ops, and kernels start 60 ms after their launch.
old_trace() {
  local cat=$1 s i ext t B=1700000000000000 # epoch microseconds, as Kineto writes them
  printf '{"schemaVersion": 1, "traceEvents": [\n'
  for s in 0 1; do
    for i in 0 1 2; do
      ext=$((1 + 3 * s + i)) t=$((B + 1000 * s + 100 * i))
      printf '{"ph": "X", "cat": "%s", "name": "aten::mm", "pid": 7, "tid": 7, "ts": %d, "dur": 50, ' "$cat" "$t"
      printf '"args": {"External id": %d, "Input Dims": [[8, 64], [64, 64]]}},\n' "$ext"
    done
    printf '{"ph": "X", "cat": "%s", "name": "ProfilerStep#%d", "pid": 7, "tid": 7, "ts": %d, "dur": 900, ' \
      "$cat" $((5 + s)) $((B - 10 + 1000 * s))
    printf '"args": {"External id": %d}},\n' $((100 + s))
  done
  for s in 0 1; do
    for i in 0 1 2; do
      ext=$((1 + 3 * s + i)) t=$((B + 60000 + 1000 * s + 100 * i))
      printf '{"ph": "X", "cat": "Kernel", "name": "gemm_kernel", "pid": 0, "tid": "stream 7", "ts": %d, "dur": 10, ' "$t"
      printf '"args": {"External id": %d, "correlation": %d}},\n' "$ext" $((500 + ext))
    done
  done
  printf '{"ph": "X", "cat": "Kernel", "name": "gemm_kernel", "pid": 0, "tid": "stream 7", "ts": 0, "dur": 10, "args": {}},\n'
  printf '{"ph": "X", "cat": "Kernel", "name": "neg_kernel", "pid": 0, "tid": "stream 7", "ts": %d, "dur": -5, "args": {}},\n' $((B + 60050))
  printf '{"ph": "i", "cat": "Kernel", "name": "marker", "pid": 0, "tid": "stream 7", "ts": %d, "s": "t"}\n' $((B + 60060))
  printf ']}\n'
}
for cat in Operator cpu_op; do
  old_trace $cat > "$tmp/old_$cat.json"
  "$XP" --db "$db" import torch-trace "$tmp/old_$cat.json" > "$tmp/out" 2> "$tmp/err"
  check "$cat: exit" 0 $?
  id=$(sql "SELECT max(id) FROM runs")
  check "$cat: steps by their operators" "5:3:30000|6:3:30000" \
    "$(sql "SELECT group_concat(number || ':' || kernels || ':' || kernel_ns, '|') FROM (SELECT * FROM trace_steps WHERE run_id = $id ORDER BY step)")"
  check "$cat: kernels kept" 7 "$(sql "SELECT kernels FROM trace_ranks WHERE run_id = $id")"
  for w in '1 GPU activity timed a minute or more before' '1 GPU activity with a negative duration' \
           '1 GPU event that is not complete'; do
    grep -q "$w" "$tmp/err" || { echo "FAIL: $cat: no warning [$w]"; cat "$tmp/err"; fail=1; }
  done
done

# rocm_trace: 2 steps; in each an operator (External ids 1 and 2) launches 3 kernels through
# hipLaunchKernel, whose correlation ids (1..6) are the kernels' "External id".
# $kernels_first: the kernels written before the CPU side, which says only later that the trace
# is ROCm's and how its ids read.
rocm_trace() {
  local s i c t
  printf '{"schemaVersion": 1, "deviceProperties": [{"id": 2, "name": "AMD Instinct MI300X", "gcnArchName": "gfx942"}],\n'
  printf '"traceEvents": [\n'
  [ -z "${kernels_first:-}" ] || rocm_kernels ,
  for s in 0 1; do
    printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 9, "tid": 9, "ts": %d, "dur": 900, "args": {}},\n' \
      "$s" $((2000000 + 1000 * s))
    printf '{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 9, "tid": 9, "ts": %d, "dur": 500, ' $((2000010 + 1000 * s))
    printf '"args": {"External id": %d, "Input Dims": [[4, 8], [8, 8]]}},\n' $((1 + s))
    for i in 0 1 2; do
      c=$((1 + 3 * s + i)) t=$((2000020 + 1000 * s + 100 * i))
      printf '{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 9, "tid": 9, "ts": %d, "dur": 5, ' "$t"
      printf '"args": {"External id": %d}},\n' "$c"
    done
  done
  if [ -n "${kernels_first:-}" ]; then
    printf '{"ph": "i", "cat": "cpu_instant_event", "s": "g", "name": "end", "pid": 9, "tid": 9, "ts": 2003000}\n'
  else
    rocm_kernels
  fi
  printf ']}\n'
}
rocm_kernels() { # rocm_kernels [,]: the six kernels, the last followed by a comma if asked
  local c
  for c in 1 2 3 4 5 6; do # GPU 70 us behind: kernels 4-6 start inside step 0's CPU window + lag
    printf '{"ph": "X", "cat": "kernel", "name": "Cijk_Ailk_Bljk_HHS", "pid": 2, "tid": 1, "ts": %d, "dur": 20, ' \
      $((2000000 + 150 * c + 500))
    printf '"args": {"External id": %d}}%s\n' "$c" "$([ $c = 6 ] && echo "${1:-}" || echo ,)"
  done
}
for order in launches_first kernels_first; do
  if [ $order = kernels_first ]; then kernels_first=1 rocm_trace; else rocm_trace; fi > "$tmp/rocm.json"
  "$XP" --db "$db" import torch-trace "$tmp/rocm.json" > "$tmp/out" 2> "$tmp/err"
  check "rocm, $order: exit" 0 $?
  id=$(sql "SELECT max(id) FROM runs")
  check "rocm, $order: kernels in their launches' steps" "0:3|1:3" \
    "$(sql "SELECT group_concat(number || ':' || kernels, '|') FROM (SELECT * FROM trace_steps WHERE run_id = $id ORDER BY step)")"
  # each kernel is the operator's around its launch on the thread, as Kineto of 2022-23's CUDA
  # kernels whose External id was their correlation; not the operator its id would name (ids 1
  # and 2 of six: 2 kernels)
  check "rocm, $order: each kernel its launch's operator" '"aten::addmm:[[4,8],[8,8]]:6"|6' \
    "$(sql "SELECT op || ':' || input_dims || ':' || count FROM trace_shapes WHERE run_id = $id")|$(
      sql "SELECT linked_kernels FROM trace_ranks WHERE run_id = $id")"
done

# rocm2023_trace ERA: the same launches as Kineto's roctracer logger writes them since 2023
# (ERA 2023): the hipExtModuleLaunchKernel event carries its correlation id (1..6) apart, and a
# kernel's "External id" is its operator's (1 and 2), though the kernel has no correlation arg.
# The ids overlap: read as correlation ids, step 1's kernels would follow launches of step 0.
# ERA 2022: the older logger's, where the launches carry their operator's External id and no
# correlation, and kernels the launch's args (a "stream" string).
rocm2023_trace() {
  local s i c t era=$1 rt kargs
  printf '{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "gcnArchName": "gfx942:sramecc+:xnack-"}],\n'
  printf '"traceEvents": [\n'
  for s in 0 1; do
    printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 9, "tid": 9, "ts": %d.5, "dur": 900, "args": {}},\n' \
      "$s" $((2000000 + 1000 * s))
    printf '{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 9, "tid": 9, "ts": %d, "dur": 500, ' $((2000010 + 1000 * s))
    printf '"args": {"External id": %d, "Input Dims": [[4, 8], [8, 8]]}},\n' $((1 + s))
    for i in 0 1 2; do
      c=$((1 + 3 * s + i)) t=$((2000020 + 1000 * s + 100 * i))
      printf '{"ph": "X", "cat": "cuda_runtime", "name": "hipExtModuleLaunchKernel", "pid": 9, "tid": 9, "ts": %d, "dur": 5, ' "$t"
      rt=', "cid": 104, "correlation": '$c
      [ "$era" = 2023 ] || rt=''
      printf '"args": {"External id": %d%s}},\n' $((1 + s)) "$rt"
    done
  done
  for c in 1 2 3 4 5 6; do # GPU behind: kernels 4-6 start inside step 0's CPU window + lag
    printf '{"ph": "X", "cat": "kernel", "name": "Cijk_Ailk_Bljk_BBS_BH_MT64x64x64", "pid": 0, "tid": 0, "ts": %d.25, "dur": 20.5, ' \
      $((2000000 + 150 * c + 500))
    kargs=''
    [ "$era" = 2023 ] || kargs=', "stream": "0x1f2e00", "grid dim": [64, 1, 1]'
    printf '"args": {"External id": %d%s}}%s\n' $(((c + 2) / 3)) "$kargs" "$([ $c = 6 ] || echo ,)"
  done
  printf ']}\n'
}
for era in 2023 2022; do
  rocm2023_trace $era > "$tmp/rocm$era.json"
  "$XP" --db "$db" import torch-trace "$tmp/rocm$era.json" > "$tmp/out" 2> "$tmp/err"
  check "rocm $era: exit" 0 $?
  id=$(sql "SELECT max(id) FROM runs")
  check "rocm $era: kernels in their operators' steps" "0:3|1:3" \
    "$(sql "SELECT group_concat(number || ':' || kernels, '|') FROM (SELECT * FROM trace_steps WHERE run_id = $id ORDER BY step)")"
  check "rocm $era: kernels linked to their operators" 6 "$(sql "SELECT linked_kernels FROM trace_ranks WHERE run_id = $id")"
  check "rocm $era: the operator's shapes" "aten::addmm:6" \
    "$(sql "SELECT group_concat(op || ':' || count, '|') FROM trace_shapes WHERE run_id = $id")"
done

# Kernel names of ROCm stacks as traces show them, each with the category it belongs in.
rocm_names='attention|attn_fwd
attention|bwd_kernel_dk_dv
attention|bwd_kernel_dq
attention|bwd_preprocess
attention|_attn_fwd
attention|void ck::kernel_batched_gemm_softmax_gemm_xdl_cshuffle_v1<ck::tensor_operation::device::DeviceBatchedGemmSoftmaxGemmPermute_Xdl_CShuffle<> >()
attention|void aiter::mla_decode_stage1_asm_fwd()
attention|_ZN5aiter24mla_a8w8_qh16_m32x1_n16x1E
memcpy|__amd_rocclr_copyBuffer.kd
memcpy|__amd_rocclr_copyBufferRect
memset|__amd_rocclr_fillBufferAligned
communication|mscclKernel_Sum_hip_bfloat16_Simple_false(ncclDevComm*, mscclAlgo*, mscclWork*)
gemm|Custom_Cijk_Alik_Bljk_BBS_BH_Bias_AS_SAV_UserArgs_MT256x256x64_MI16x16x1
gemm|void ck::kernel_gemm_xdl_cshuffle_v3<>()'
{
  printf '{"traceEvents": [\n'
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 0, "dur": 100000, "args": {}}'
  i=0
  while IFS='|' read -r want name; do
    printf ',\n{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 0, "ts": %d, "dur": 5, "args": {}}' "$name" $((10 + 10 * i))
    i=$((i + 1))
  done <<< "$rocm_names"
  printf '\n]}\n'
} > "$tmp/rocm_names.json"
"$XP" --db "$db" import torch-trace "$tmp/rocm_names.json" > "$tmp/out" 2> "$tmp/err"
check "rocm names: exit" 0 $?
while IFS='|' read -r want name; do
  check "rocm names: $name" "$want" "$(query "SELECT category FROM trace_names WHERE name = :n" --param "n=$name")"
done <<< "$rocm_names"

# A step nested in another (the outer's time after the inner ends is the outer's), a CUDA graph
# replayed from step 1 whose kernels reach the GPU in step 2 (no External id: the launch's
# correlation places them), and gzip padding after the stream (ignored, as gzip -d does).
B=1700000000000000
{
  printf '{"traceEvents": [\n'
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": %d, "dur": 100, "args": {}},\n' $B
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": %d, "dur": 30, "args": {}},\n' $((B + 10))
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": %d, "dur": 100, "args": {}},\n' $((B + 200))
  printf '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"External id": 7}},\n' $((B + 60))
  printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"External id": 8, "correlation": 900}},\n' $((B + 70))
  printf '{"ph": "X", "cat": "kernel", "name": "gemm_k", "pid": 0, "tid": 7, "ts": %d, "dur": 10, "args": {"External id": 7, "correlation": 800}},\n' $((B + 65))
  for k in 0 1; do
    printf '{"ph": "X", "cat": "kernel", "name": "graph_k", "pid": 0, "tid": 7, "ts": %d, "dur": 10, "args": {"correlation": 900}},\n' $((B + 250 + 20 * k))
  done
  printf '{"ph": "X", "cat": "kernel", "name": "inner_k", "pid": 0, "tid": 7, "ts": %d, "dur": 5, "args": {}}\n' $((B + 20))
  printf ']}\n'
} | gzip > "$tmp/nested.json.gz"
head -c 4096 /dev/zero >> "$tmp/nested.json.gz"
"$XP" --db "$db" import torch-trace "$tmp/nested.json.gz" > "$tmp/out" 2> "$tmp/err"
check "nested: exit" 0 $?
id=$(sql "SELECT max(id) FROM runs")
check "nested: steps 1 (outer: mm and the graph's 2), 2 (inner), 3 (none)" "1:3|2:1|3:0" \
  "$(sql "SELECT group_concat(number || ':' || kernels, '|') FROM (SELECT * FROM trace_steps WHERE run_id = $id ORDER BY number)")"
grep -q "4096 bytes after the end of the gzip stream ignored, as gzip -d ignores them: zero padding$" "$tmp/err" || { echo "FAIL: gzip padding not said"; cat "$tmp/err"; fail=1; }

finish
