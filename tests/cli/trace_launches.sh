#!/usr/bin/env bash
# A GPU activity that no operator claims is placed by its launch: the runtime or driver event
# with its correlation id, whose CPU time lies in the step that launched it. Kineto writes that
# event after the activity (every launch of decode_tp2_bs1_rank0 comes after its kernel), so the
# lookup waits until the file is read. An activity whose launch the trace does not hold at all,
# with a correlation id below every launch it does hold, was launched before the profiler began
# recording (its warm-up): no step's work, wherever it ran. One rank, generated here, whose GPU
# runs 250 us behind its CPU: step k's work runs in step k + 1's CPU window.
set -u
. "$XP_SRC/tests/lib.sh"

# 4 ProfilerStep#N of 200 us from 1000 us; step k's GPU work starts at g = 1250 + 200 k.
#   gemm      stream 7, linked to aten::mm (External id), launched by cudaLaunchKernel
#   lost      stream 7 after gemm, a correlation id among the launches' but no launch: the
#             profiler dropped it, and stream order places it as before
#   graph     3 kernels on stream 9 replayed by one cudaGraphLaunch (its External id names no
#             operator)
#   direct    stream 11, cudaLaunchKernel outside any operator; then a memset (cudaMemsetAsync)
#             and a kernel launched through the driver (cuLaunchKernel, cat cuda_driver)
#   warmup    5 kernels on stream 7 at the start of step 0's window, correlation ids 100-104,
#             launched before the trace began: no launch event
# The file holds the CPU operators, then the GPU activities, then the launches ($ops_last: the
# operators last, after the kernels they launched).
trace() {
  local k s g c ext
  printf '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
  printf '"baseTimeNanoseconds": 1790000000000000000,\n"traceEvents": [\n'
  for k in 0 1 2 3; do
    s=$((1000 + 200 * k))
    [ -n "${nosteps:-}" ] || printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 900, "tid": 900, "ts": %d, "dur": 200},\n' \
      $((10 + k)) "$s"
    [ -n "${ops_last:-}" ] || op "$s" "$k"
  done
  for k in 0 1 2 3 4; do gpu kernel warmup $((1010 + 10 * k)) 5 7 $((100 + k)); done
  for k in 0 1 2 3; do
    g=$((1250 + 200 * k)) c=$((1000 + 10 * k))
    ext=$((100 + k))
    [ -z "${ext_is_corr:-}" ] || ext=$c # its correlation, as Kineto of 2022-23 wrote it
    gpu kernel gemm "$g" 20 7 "$c" "$ext"
    gpu kernel lost $((g + 30)) 5 7 $((c + 5))
    gpu kernel graph_a $((g + 40)) 5 9 $((c + 1)) $((500 + k))
    gpu kernel graph_b $((g + 50)) 5 9 $((c + 1)) $((500 + k))
    gpu kernel graph_c $((g + 60)) 5 9 $((c + 1)) $((500 + k))
    gpu kernel direct $((g + 70)) 5 11 $((c + 2))
    gpu gpu_memset "Memset (Device)" $((g + 80)) 2 11 $((c + 3))
    gpu kernel driver_launched $((g + 90)) 5 11 $((c + 4))
  done
  printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 900, "tid": 900, "ts": 990, "dur": 2, "args": {"cbid": 131, "correlation": %d}},\n' \
    $((999 + ${apart:-0}))
  # $graph_ext: a graph launched at the trace's start, written with its id as an External id and
  # no correlation (the older Kineto wrote both alike), its kernel with that id as correlation
  [ -z "${graph_ext:-}" ] || printf '%s\n' \
    '{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 900, "tid": 900, "ts": 995, "dur": 2, "args": {"cbid": 311, "External id": 90}},' \
    '{"ph": "X", "cat": "kernel", "name": "early_graph", "pid": 0, "tid": 9, "ts": 1005, "dur": 2, "args": {"device": 0, "stream": 9, "correlation": 90}},'
  # $other_proc: a second process's calls, numbered by its own counter
  [ -z "${other_proc:-}" ] || printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 901, "tid": 901, "ts": %d, "dur": 2, "args": {"cbid": 41, "correlation": %d}},\n' \
    1100 5000 1300 5001
  for k in 0 1 2 3; do
    s=$((1000 + 200 * k)) c=$((1000 + 10 * k))
    launch cuda_runtime cudaLaunchKernel $((s + 10)) "$c" $((100 + k))
    launch cuda_runtime cudaGraphLaunch $((s + 50)) $((c + 1)) $((500 + k))
    launch cuda_runtime cudaLaunchKernel $((s + 60)) $((c + 2))
    launch cuda_runtime cudaMemsetAsync $((s + 70)) $((c + 3))
    [ -n "${nodriver:-}" ] || launch cuda_driver cuLaunchKernel $((s + 80)) $((c + 4))
  done
  if [ -n "${ops_last:-}" ]; then for k in 0 1 2 3; do op $((1000 + 200 * k)) "$k"; done; fi
  printf '{"ph": "i", "cat": "cpu_instant_event", "s": "g", "name": "end", "pid": 900, "tid": 900, "ts": 3000}\n]}\n'
}
op() { # op STEP_START K: step K's aten::mm, which launched its gemm
  printf '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 900, "tid": 900, "ts": %d, "dur": 20, "args": {"External id": %d}},\n' \
    $(($1 + 5)) $((100 + $2))
  # $ext_is_corr: inside aten::mm an aten::empty that ends before the launch and an annotation
  # around it; on another thread an operator at the launch's time
  [ -z "${ext_is_corr:-}" ] || printf '%s\n' \
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 900, \"tid\": 900, \"ts\": $(($1 + 6)), \"dur\": 2, \"args\": {\"External id\": $((600 + $2))}}," \
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"around_launch\", \"pid\": 900, \"tid\": 900, \"ts\": $(($1 + 9)), \"dur\": 6, \"args\": {\"External id\": $((700 + $2))}}," \
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"other_thread\", \"pid\": 900, \"tid\": 901, \"ts\": $(($1 + 9)), \"dur\": 4, \"args\": {\"External id\": $((800 + $2))}},"
}
gpu() { # gpu CAT NAME TS DUR STREAM CORRELATION [EXT]
  printf '{"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %d, "ts": %d, "dur": %d, "args": {%s"device": 0, "stream": %d, "correlation": %d}},\n' \
    "$1" "$2" "$5" "$3" "$4" "${7:+\"External id\": $7, }" "$5" "$6"
}
launch() { # launch CAT NAME TS CORRELATION [EXT]; $apart: the launches numbered apart from the activities
  printf '{"ph": "X", "cat": "%s", "name": "%s", "pid": 900, "tid": 900, "ts": %d, "dur": 4, "args": {%s"cbid": 1, "correlation": %d}},\n' \
    "$1" "$2" "$3" "${5:+\"External id\": $5, }" $(($4 + ${apart:-0}))
}
# import_file FILE: FILE imported into $db, its stdout in $tmp/out and stderr in $tmp/err;
# returns the import's exit status. import_variant NAME [VAR=VALUE]: the trace written with
# VAR set, imported so into $tmp/NAME.db (now $db).
import_file() {
  "$XP" --db "$db" import torch-trace "$1" --set model=launch-test --set tp=1 --set batch=1 > "$tmp/out" 2> "$tmp/err"
}
import_variant() {
  db="$tmp/$1.db"
  (if [ -n "${2:-}" ]; then export "$2"; fi; trace) > "$tmp/$1.json"
  import_file "$tmp/$1.json"
}
trace > "$tmp/t.json"
import_file "$tmp/t.json"
check "import exit" 0 $?
check "nothing on stderr" "" "$(cat "$tmp/err")"
check "every activity read, 4 linked" "37|4" "$(query "SELECT (kernels + memcpys + memsets) || '|' || linked_kernels FROM trace_ranks")"

where() { # where NAME: the steps NAME was placed in, in step order
  query "SELECT group_concat(step, ' ') FROM (SELECT s.step FROM trace_step_kernels s JOIN trace_names n ON n.id = s.name_id
         WHERE n.name = '$1' ORDER BY s.step)"
}
check "linked kernels: their operator's step" "0 1 2 3" "$(where gemm)"
# The graph's kernels ran in the next step's window (the last one's after every step); their
# cudaGraphLaunch, written after them, ran in step k. Looked up as the kernel was read, it was
# not known yet, and the GPU start placed them: 1 2 3, three of each.
check "a graph replay's kernels: its launch's step, though written after them" "0 1 2 3|0 1 2 3|0 1 2 3" \
  "$(where graph_a)|$(where graph_b)|$(where graph_c)"
# Launched outside any operator, by name or by category: placed by the launch, not the GPU start
check "a kernel that cudaLaunchKernel launched outside an operator: its launch's step" "0 1 2 3" "$(where direct)"
check "a memset by cudaMemsetAsync" "0 1 2 3" "$(where 'Memset (Device)')"
check "a kernel launched through the driver (cuda_driver)" "0 1 2 3" "$(where driver_launched)"
# Its launch dropped, with an id among the recorded launches': stream order as before. Step k's
# runs in step k + 1's window between gemm k and k + 1 (in [k, k + 1]: k + 1); step 3's after
# every step, with no linked kernel after it: none.
check "an activity whose launch the trace lost: by stream order" "1 2 3" "$(where lost)"
# The warm-up kernels ran in step 0's window before its first linked kernel: stream order gave
# them step 0. They were launched before the trace: in no step.
check "kernels launched before the trace: in no step" "" "$(where warmup)"
check "activities per step, and outside every step" "7 8 8 8+6" \
  "$(query "SELECT group_concat(kernels, ' ') || '+' || ((SELECT kernels + memcpys + memsets FROM trace_ranks) - sum(kernels))
            FROM (SELECT kernels FROM trace_steps ORDER BY step)")"
check "the summary says how many were left out of the steps, and why" \
  "  5 launched before the profiler began recording (no launch in the trace, a correlation id below every launch it records): in no step" \
  "$(grep 'launched before' "$tmp/out")"
check "per-name totals: every activity counted" "5|4|4" \
  "$(query "SELECT group_concat(count, '|') FROM (SELECT k.count FROM trace_kernel_stats k JOIN trace_names n ON n.id = k.name_id
            WHERE n.name IN ('warmup', 'lost', 'direct') ORDER BY n.name DESC)")"

# The operators written after the kernels they launched (a writer other than Kineto, a merged or
# reordered file): linked as when written first, and the figures the same.
import_variant ops_last ops_last=1
check "operators after their kernels: exit" 0 $?
check "operators after their kernels: 4 linked" "37|4" "$(query "SELECT (kernels + memcpys + memsets) || '|' || linked_kernels FROM trace_ranks")"
check "operators after their kernels: their operator's step" "0 1 2 3" "$(where gemm)"
check "operators after their kernels: the operator's shapes count them" "aten::mm:4" \
  "$(query "SELECT op || ':' || count FROM trace_shapes")"
check "operators after their kernels: activities per step, and outside every step" "7 8 8 8+6" \
  "$(query "SELECT group_concat(kernels, ' ') || '+' || ((SELECT kernels + memcpys + memsets FROM trace_ranks) - sum(kernels))
            FROM (SELECT kernels FROM trace_steps ORDER BY step)")"

# The rule needs the activities numbered as the launches are. Launches from a second process
# (a merged file): each process numbers its own calls, and which one launched an activity the
# trace does not say; the warm-up kernels go by stream order, to step 0, and the import says so.
import_variant two_procs other_proc=1
check "two processes' launches: exit" 0 $?
check "two processes' launches: the warm-up kernels by stream order, in step 0" "0" "$(where warmup)"
check "two processes' launches: none said launched before the trace" "" "$(grep '^  [0-9]* launched before' "$tmp/out")"
check "two processes' launches: the import says why they were not" \
  "  5 with no launch in the trace and a correlation id below every launch it records, placed as the others: the launches come from several processes (pids), each numbering its own calls, so the ids do not say they were launched before the profiler began recording" \
  "$(grep 'placed as the others' "$tmp/out")"
check "two processes' launches: the rest as before" "0 1 2 3|0 1 2 3|1 2 3" "$(where direct)|$(where graph_a)|$(where lost)"
# Launches numbered apart from the activities (another process's, another numbering of ROCm's or
# older writers'): every id of an activity is below every launch's, and none names one. Not
# launched before the trace: the graph's and the direct kernels by their GPU start (1 2 3, the
# last after every step), the warm-up and lost ones by stream order.
import_variant apart apart=100000
check "numbered apart: exit" 0 $?
check "numbered apart: none in no step but by their GPU start" "0 1 2 3|1 2 3|1 2 3|0|1 2 3" \
  "$(where gemm)|$(where graph_a)|$(where direct)|$(where warmup)|$(where lost)"
check "numbered apart: the import says why" \
  "  33 with no launch in the trace and a correlation id below every launch it records, placed as the others: no activity's correlation id names a launch it records (numbered apart), so the ids do not say they were launched before the profiler began recording" \
  "$(grep 'placed as the others' "$tmp/out")"

# A call the trace records with an id below the warm-up kernels' (a graph launch keyed by its
# External id, which their lookup reads as a correlation): they were launched after it, while
# the profiler recorded (their launches dropped): by stream order, to step 0.
import_variant graph_ext graph_ext=1
check "a graph launch keyed by External id below them: exit" 0 $?
check "a graph launch keyed by External id below them: warm-up kernels by stream order" "0|0" "$(where warmup)|$(where early_graph)"
check "a graph launch keyed by External id below them: none said launched before" "" "$(grep '^  [0-9]* launched before' "$tmp/out")"

# A trace that records no driver call (Kineto before it read CUPTI's driver API): the kernels
# cuLaunchKernel launched (Triton's) have no launch, their ids among the launches', and the first
# made after the profiler began would be below them all: the ids prove nothing, the warm-up
# kernels go by stream order, to step 0, and the import says why.
import_variant nodriver nodriver=1
check "no driver call recorded: exit" 0 $?
check "no driver call recorded: warm-up kernels by stream order" "0|1 2 3" "$(where warmup)|$(where driver_launched)"
check "no driver call recorded: none said launched before" "" "$(grep '^  [0-9]* launched before' "$tmp/out")"
check "no driver call recorded: the import says why" \
  "  5 with no launch in the trace and a correlation id below every launch it records, placed as the others: activities among the launches lack theirs too, and the trace records no driver call (cuLaunchKernel, Triton's launch, which older Kineto did not record), so the ids do not say they were launched before the profiler began recording" \
  "$(grep 'placed as the others' "$tmp/out")"

# Without steps of its own (the whole GPU window is one step), every activity is in it.
import_variant window nosteps=1
check "window step: exit" 0 $?
check "window step: every activity in it" "37" "$(query "SELECT kernels FROM trace_steps")"
check "window step: none said left out" "" "$(grep 'launched before' "$tmp/out")"

# Kineto of 2022-23 wrote a kernel's correlation as its External id, which names no operator: gemm
# is the innermost cpu_op's around its launch on its thread, aten::mm's (not the aten::empty
# before the launch inside it, the annotation around the launch or the operator of another thread
# at its time); the launch's time, kept though an operator holds it, places it in step k (its
# GPU start: k + 1).
import_variant ext_is_corr ext_is_corr=1
check "a kernel whose External id is its correlation: exit" 0 $?
check "a kernel whose External id is its correlation: each linked" 4 "$(query "SELECT linked_kernels FROM trace_ranks")"
check "a kernel whose External id is its correlation: the operator around its launch" "aten::mm:4" \
  "$(query "SELECT group_concat(op || ':' || count, ' ') FROM trace_shapes")"
check "a kernel whose External id is its correlation: its launch's step" "0 1 2 3" "$(where gemm)"

# A trace that records no launch proves nothing by its ids (tests/cli/trace_lagging.sh): the
# warm-up kernels go by stream order, to step 0.
db="$tmp/nolaunch.db"
grep -v '"cat": "cuda_' "$tmp/t.json" > "$tmp/n.json"
import_file "$tmp/n.json"
check "no launches recorded: exit" 0 $?
check "no launches recorded: the 5 warm-up kernels by stream order, in step 0" "0|5" \
  "$(query "SELECT s.step || '|' || s.count FROM trace_step_kernels s JOIN trace_names n ON n.id = s.name_id WHERE n.name = 'warmup'")"
finish
