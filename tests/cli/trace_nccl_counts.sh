#!/usr/bin/env bash
# An NCCL or RCCL kernel whose args carry none of its call's collective fields takes its
# collective, dtype and element counts from the record_param_comms call of its External id, as an
# XCCL kernel does (trace_xccl.sh). Kineto copies the call's "Collective name", "In msg nelems",
# "Out msg nelems", "Group size" and dtype onto the kernel all together or not at all
# (libkineto output_json.cpp, appendCollectiveArgs and before it handleActivity since
# pytorch/kineto#821): a call that lacks one, as PyTorch's lacked "Group size" before it wrote
# one, leaves the kernel with none, while the call still gives the counts.
set -u
. "$XP_SRC/tests/lib.sh"

call() { # call EXT COLLECTIVE TS ARGS (dtype and counts as written)
  printf '{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 9, "tid": 9, "ts": %s, "dur": 5, "args": {"External id": %s, "Collective name": "%s", %s"Rank": 0, "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]"}},\n' "$3" "$1" "$2" "$4"
}
kernel() { # kernel EXT TS NAME
  printf '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %s, "dur": 10, "args": {"External id": %s, "device": 0, "stream": 7, "correlation": %s}},\n' "$3" "$2" "$1" "$1"
}
{
  printf '{"schemaVersion": 1, "traceEvents": [\n'
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 1000, "dur": 900},\n'
  call 30 allreduce 1010 '"dtype": "BFloat16", "In msg nelems": 1000, "Out msg nelems": 1000, '
  kernel 30 1100 "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
  call 31 _allgather_base 1020 '"dtype": "BFloat16", "In msg nelems": 1000, "Out msg nelems": 2000, '
  kernel 31 1200 "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
  # NCCL 2.19+ and RCCL: one kernel for every collective, its name says none
  call 32 allreduce 1030 '"dtype": "Float", "In msg nelems": 512, "Out msg nelems": 512, '
  kernel 32 1300 "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"
  # NCCL 2.8-2.18's name, a call with the fields Kineto needs: the kernel's own are kept
  call 33 allreduce 1040 '"dtype": "Float", "In msg nelems": 8, "Out msg nelems": 8, "Group size": 2, '
  printf '{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "pid": 0, "tid": 7, "ts": 1400, "dur": 10, "args": {"External id": 33, "device": 0, "stream": 7, "correlation": 33, "Collective name": "allreduce", "In msg nelems": 300, "Out msg nelems": 300, "Group size": 2, "dtype": "Float"}},\n'
  printf '{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1880, "dur": 10, "args": {"device": 0, "stream": 7}}\n]}\n'
} > "$tmp/nccl.json"
"$XP" --db "$db" import torch-trace "$tmp/nccl.json" > "$tmp/out" 2> "$tmp/err"
check "import exit" 0 $?
check "collective, dtype and counts from the call where the kernel has none" \
  "1100|allreduce|args|bfloat16|1000|1000|2000|2000;1200|allgather|args|bfloat16|1000|2000|2000|4000;1300|allreduce|args|float32|512|512|2048|2048;1400|allreduce|args|float32|300|300|1200|1200" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT (start_ns / 1000) || '|' || collective || '|' || source || '|' || coalesce(dtype, '') || '|' ||
            coalesce(in_nelems, '') || '|' || coalesce(out_nelems, '') || '|' || coalesce(in_bytes, '') || '|' ||
            coalesce(out_bytes, '') AS x FROM trace_collectives ORDER BY seq)")"
check "kernels by collective, the generic one's from its call" "allgather|1;allreduce|3" \
  "$(query "SELECT group_concat(coll || '|' || n, ';') FROM (SELECT coll, sum(count) AS n FROM trace_kernels WHERE coll <> '' GROUP BY coll ORDER BY coll)")"
check "nothing said of message sizes" 0 "$(grep -c 'message size' "$tmp/err")"
finish
