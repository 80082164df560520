#!/usr/bin/env bash
# xp's main job, from a fresh clone: installs what is missing, builds xp, records into the
# database ($XP_DB, else ./xp.db in the current folder; the script takes no arguments) and
# answers "what share of a decode step is AllReduce, GEMM, attention, MoE ..." for the
# configurations recorded.
# Without a GPU it imports the two-rank sample trace shipped in tests/data/trace; with one it
# also measures the decode-step all-reduce burst on the real NCCL.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/cmake/install-deps.sh"
# the build's own output is hidden: say why nothing shows for minutes (about 5 on 2 cores)
echo "xp: building into $root/build (minutes the first time)" >&2
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" >/dev/null
xp="$root/build/xp"
"$xp" import torch-trace "$root"/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz \
  "$root"/tests/data/trace/decode_tp2_bs1_rank1.trace.json.gz \
  --set model=moe-16L-4096h-16e --set engine=torch --set tp=2 --set batch=1 --set interconnect=nvlink \
  --set notes="sample: torch.profiler, 2x H200, TP=2 MoE decode (tests/data/trace/PROVENANCE.md)"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  export NCCL_NVLS_ENABLE=0  # never NVLink multicast
  "$xp" run "$root/experiments/allreduce_burst.toml"
fi
"$xp" query "$root/queries/bottleneck_by_config.sql"
