#!/usr/bin/env bash
# Traces as vLLM's and SGLang's profiler hooks write them (tests/data/trace/variants/README.md):
# no ProfilerStep#N, a step annotation whose name carries the batch, a custom all-reduce with no
# collective args, vLLM's CPU-only front-end trace beside the workers', the engines' kernel names.
set -uo pipefail
: "${XP:?}"
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"
steps() { query "SELECT group_concat(rank || ':' || n || ':' || k, ' ') FROM (SELECT rank, count(*) AS n, sum(kernels) AS k FROM trace_steps GROUP BY rank ORDER BY rank)"; }

# vLLM: no ProfilerStep#N; the warning names the option that marks its steps
run import torch-trace "$v/vllm_r0.json.gz" "$v/vllm_r1.json.gz"
check "vLLM import" 0 "$rc"
check "the warning names vLLM's step annotations" 2 \
  "$(grep -c "no ProfilerStep#N annotations: its whole GPU window counts as one step; it has 2 vLLM step annotations: --step-annotation 'execute_context_\*' marks a step by each" "$tmp/err")"
check "one window step per rank" "0:1:132 1:1:132" "$(steps)"

# ... and NAME* marks a step by every annotation starting with NAME (execute_context_1(1)_generation_2(2),
# execute_context_0(0)_generation_3(3)): two steps per rank, each with its 66 kernels
db="$tmp/star.db"
run import torch-trace "$v/vllm_r0.json.gz" "$v/vllm_r1.json.gz" --step-annotation 'execute_context_*'
check "vLLM with execute_context_*" 0 "$rc"
check "steps by execute_context_*" "0:2:132 1:2:132" "$(steps)"
check "no warning" "" "$(cat "$tmp/err")"
check "step annotation recorded" "execute_context_*" "$(query "SELECT step_annotation FROM trace_imports")"
# the custom all-reduce (no collective args) counts as all-reduce and pairs across the ranks by time
check "custom all-reduce" "allreduce,12,12" \
  "$(query "SELECT collective, sum(kernels), sum(matched) FROM trace_step_collectives WHERE step IS NOT NULL GROUP BY collective")"
# (aten::topk's gatherTopK, the MoE router's top-k over 16 experts here, is elementwise, and so is
# the sort beside it, bitonicSortKVInPlace, which was other)
check "categories" "activation:12 allreduce:12 attention:12 elementwise:156 gemm:36 moe:24 norm:12" \
  "$(query "SELECT group_concat(category || ':' || n, ' ') FROM (SELECT category, sum(count) AS n FROM trace_step_categories GROUP BY category ORDER BY category)")"
# a name without the star is one name still
db="$tmp/exact.db"
run import torch-trace "$v/vllm_r0.json.gz" "$v/vllm_r1.json.gz" --step-annotation 'execute_context_1(1)_generation_2(2)'
check "one exact name: one step per rank" "0:1:66 1:1:66" "$(steps)"

# SGLang: step[DECODE bs=N]
db="$tmp/sgl.db"
run import torch-trace "$v/sglang_tp0.json.gz" "$v/sglang_tp1.json.gz"
check "the warning names SGLang's step annotations" 2 \
  "$(grep -c "it has 2 SGLang step annotations: --step-annotation 'step\[\*' marks a step by each" "$tmp/err")"
db="$tmp/sgl2.db"
run import torch-trace "$v/sglang_tp0.json.gz" "$v/sglang_tp1.json.gz" --step-annotation 'step[*'
check "steps by step[*" "0:2:132 1:2:132" "$(steps)"
check "SGLang's custom all-reduce" "12" "$(query "SELECT sum(matched) FROM trace_step_collectives WHERE collective = 'allreduce'")"

# vLLM's front end writes a CPU-only trace into the workers' directory: the error says so
printf '{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "x", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}' \
  > "$tmp/host_42.async_llm.1764640000000.pt.trace.json"
one_line "front-end trace" 2 "host_42.async_llm.1764640000000.pt.trace.json: no GPU kernels in the trace (1 events): vLLM's front end (AsyncLLM) profiles the CPU only; import its workers' traces without it" \
  "$XP" --db "$tmp/fe.db" import torch-trace "$v/vllm_r0.json.gz" "$tmp/host_42.async_llm.1764640000000.pt.trace.json" --step-annotation 'execute_context_*'

# kernel names of vLLM and SGLang that fell in "other"
names=("void vllm::merge_attn_states_kernel<__nv_bfloat16, 128u>(__nv_bfloat16*, float*, __nv_bfloat16 const*, float const*, unsigned int)"
       reduce_segments create_flashinfer_kv_indices_triton triton_tem_fused_mm_0 triton_tem_fused_addmm_mul_silu_1)
want=(attention attention attention gemm gemm)
{
  printf '{"traceEvents": ['
  sep=
  for i in "${!names[@]}"; do
    printf '%s{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %d, "dur": 1}' "$sep" "${names[$i]}" $((10 + 2 * i))
    sep=,
  done
  printf ']}'
} > "$tmp/names.json"
db="$tmp/names.db"
run import torch-trace "$tmp/names.json"
check "names import" 0 "$rc"
for i in "${!names[@]}"; do
  check "category of ${names[$i]}" "${want[$i]}" "$(query "SELECT category FROM trace_names WHERE name = '${names[$i]}'")"
done
finish
