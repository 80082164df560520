#!/usr/bin/env bash
# Traces of shapes the shipped samples lack, cut from the samples' own events
# (tests/data/trace/variants/README.md says how):
#   - one process that drove two GPUs (single-process tensor or pipeline parallelism), its
#     kernels under pids 0 and 1 of one file: a rank is one GPU to xp, so the import refuses it
#     with one line rather than add the two devices' times up as one GPU's;
#   - CUDA graph replays launched through the driver API (cuGraphLaunch, a cuda_driver event):
#     the kernels carry only the launch's correlation, and run well after the step's CPU window
#     on a rank that waits for its peer; the launch's CPU time puts each in its step.
set -u
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"

one_line "two GPUs in one trace" 2 "twogpu_oneproc.json.gz: GPU activity on devices 0 and 1: one process drove several GPUs" \
  "$XP" --db "$db" import torch-trace "$v/twogpu_oneproc.json.gz"
check "two GPUs in one trace: nothing recorded" "" "$(query "SELECT run_id FROM trace_ranks")"
check "two GPUs in one trace: the run failed" "failed" "$(query "SELECT status FROM runs")"

db="$tmp/graph.db" # a database of its own: the queries below read every run
"$XP" --db "$db" import torch-trace "$v/cugraph_r1.json.gz" > /dev/null 2> "$tmp/err"
check "cuGraphLaunch: exit" 0 $?
# 400 kernels replayed in each of the two steps, every one in its step
check "cuGraphLaunch: kernels per step" "0,400
1,400" "$(query "SELECT step, kernels FROM trace_steps ORDER BY step")"
check "cuGraphLaunch: every kernel's time in a step" "$(query "SELECT kernel_ns FROM trace_ranks")" \
  "$(query "SELECT sum(kernel_ns) FROM trace_steps")"
check "cuGraphLaunch: every all-reduce in a step" "38|0" \
  "$(query "SELECT count(*) || '|' || count(*) FILTER (WHERE step IS NULL) FROM trace_collectives")"
finish
