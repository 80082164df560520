#!/usr/bin/env bash
# grouped_moe's gate_up loop, the way main runs it beside the ways a redesign would
# (bench/w4a16_gate_up_sim.cu): each checked against a double-precision reference, then timed
# (median of 25 launches, launch included). Prints "skipped" without a GPU.
# Usage: XP=build/xp bash bench/w4a16_gate_up_sim.sh [tiles ...]
set -u
sim=$(dirname "${XP:-build/xp}")/w4a16_gate_up_sim
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "w4a16_gate_up_sim: skipped: no GPU"
  exit 0
fi
if [ ! -x "$sim" ]; then
  echo "w4a16_gate_up_sim: $sim not built (needs nvcc)" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exec "$sim" "$@"
