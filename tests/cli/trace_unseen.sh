#!/usr/bin/env bash
# Traces of shapes the shipped samples lack, cut from the samples' own events
# (tests/data/trace/variants/README.md says how):
#   - one process that drove two GPUs (single-process tensor or pipeline parallelism), its
#     kernels under pids 0 and 1 of one file: a rank is one GPU to xp, so each device becomes a
#     rank of its own (numbered by the device) rather than add the two devices' times up as one
#     GPU's; where a rank is given for the file there is none to give each: refused;
#   - CUDA graph replays launched through the driver API (cuGraphLaunch, a cuda_driver event):
#     the kernels carry only the launch's correlation, and run well after the step's CPU window
#     on a rank that waits for its peer; the launch's CPU time puts each in its step.
set -u
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"

"$XP" --db "$db" import torch-trace "$v/twogpu_oneproc.json.gz" > /dev/null 2> "$tmp/err"
check "two GPUs in one trace: exit" 0 $?
check "two GPUs in one trace: warned" "xp: warning: $v/twogpu_oneproc.json.gz: GPU activity on 2 devices (one process drove several GPUs): each is a rank of its own, numbered by its device" "$(cat "$tmp/err")"
# the file's GPU events: 12 kernels on pid 0 summing to 16.608 us, 12 on pid 1 to 46071.727 us
check "two GPUs in one trace: a rank per device" "0,0,2,12,16608
1,1,2,12,46071727" "$(query "SELECT rank, device, world_size, kernels, kernel_ns FROM trace_ranks ORDER BY rank")"
check "two GPUs in one trace: device 0's steps" "0,6,8223
1,6,8385" "$(query "SELECT step, kernels, kernel_ns FROM trace_steps WHERE rank = 0 ORDER BY step")"
one_line "two GPUs in one trace, one rank given" 2 "GPU activity on devices 0 and 1: one process drove several GPUs, and xp counts one GPU per rank, but one rank was given for all of them" \
  "$XP" --db "$tmp/r.db" import torch-trace "$v/twogpu_oneproc.json.gz" --rank 3

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
