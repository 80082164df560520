#!/usr/bin/env bash
# A GPU activity written more than once (the same name, stream, start, end and correlation id),
# as a trace merged with a copy of itself, or joined with an overlapping part of itself, holds
# it: each counts once, said. Before, every copy counted: kernels, kernel time, steps and
# collectives (unmatched across the ranks) all grew with them. Built from the SGLang TP 2 pair
# of tests/data/trace/variants: each activity written again right after itself (the file still
# in stream order), or all of them appended after the rest (out of order).
set -uo pipefail
: "${XP:?}"
. "$XP_SRC/tests/lib.sh"
sglang_variants
# copy IN OUT HOW: IN's GPU activities written twice; HOW: adjacent (each after itself), appended
# (all after the rest), othercorr (one kernel again under another correlation id: no copy),
# graph (one kernel again, its correlation id another kernel's of its stream, as a graph launch's)
# othernode (a CUDA graph node's kernel again under another "graph node id": no copy), or
# nonodes (no "graph node id" or "graph id" written, as CUDA before 12 and HIP write none) or
# nonodes-merged (that, each GPU activity and graph launch written again after the rest) or
# nonodes-gpu (that, only the GPU activities written again: the launches once) or nonodes-gpu-but1
# (that, but for one graphed kernel)
copy() {
  python3 - "$1" "$2" "$3" << 'EOF'
import gzip, json, sys
src, out, how = sys.argv[1:]
t = json.load(gzip.open(src, "rt"))
gpu = lambda e: e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
evs = t["traceEvents"]
if how.startswith("nonodes"):
    for e in evs:
        for k in ("graph node id", "graph id"): e.get("args", {}).pop(k, None)
    if how == "nonodes-merged":
        t["traceEvents"] = evs + [dict(e) for e in evs if gpu(e) or "GraphLaunch" in e.get("name", "")]
    elif how.startswith("nonodes-gpu"):
        again = [dict(e) for e in evs if gpu(e)]
        t["traceEvents"] = evs + (again[1:] if how == "nonodes-gpu-but1" else again)
elif how == "adjacent":
    t["traceEvents"] = [c for e in evs for c in ([e, dict(e)] if gpu(e) else [e])]
elif how == "appended":
    t["traceEvents"] = evs + [dict(e) for e in evs if gpu(e)]
else:
    k = next(e for e in evs if e.get("cat") == "kernel" and "correlation" in e.get("args", {}))
    if how == "othernode": # a node beside it in its graph launch, over the same time
        k = next(e for e in evs if e.get("cat") == "kernel" and e["args"].get("graph node id"))
        again = dict(k, args=dict(k["args"], **{"graph node id": k["args"]["graph node id"] + 1000}))
    elif how == "othercorr":
        again = dict(k, args=dict(k["args"], correlation=k["args"]["correlation"] + 1000000))
    else:
        k2 = next(e for e in evs if e.get("cat") == "kernel" and e is not k and e["tid"] == k["tid"])
        k2["args"]["correlation"] = k["args"]["correlation"]
        again = dict(k)
    t["traceEvents"] = evs + [again]
json.dump(t, gzip.open(out, "wt"))
EOF
}
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }

db="$tmp/own.db"
imp "$v/sglang_tp0.json.gz" "$v/sglang_tp1.json.gz"
check "the ranks' own files" 0 $?
want=$(trace_figures)
check "no copies, nothing said of them" "" "$(grep 'written again' "$tmp/err")"
n0=$(sql "SELECT kernels + memcpys + memsets FROM trace_ranks WHERE rank = 0")
k0=$(sql "SELECT kernels FROM trace_ranks WHERE rank = 0")

for how in adjacent appended; do
  copy "$v/sglang_tp0.json.gz" "$tmp/$how-tp0.json.gz" "$how"
  copy "$v/sglang_tp1.json.gz" "$tmp/$how-tp1.json.gz" "$how"
  db="$tmp/$how.db"
  imp "$tmp/$how-tp0.json.gz" "$tmp/$how-tp1.json.gz"
  check "$how: exit" 0 $?
  check "$how: the figures of the files without copies" "$want" "$(trace_figures)"
  check "$how: said, per file, with how many" 2 \
    "$(grep -c "^xp: warning: $tmp/$how-tp[01].json.gz: $n0 GPU activities written again (the same name, stream, start, end, correlation and graph node id as one before: a trace merged with a copy of itself?): each counted once" "$tmp/err")"
done

# the same place under another correlation id is no copy: counted as written
copy "$v/sglang_tp0.json.gz" "$tmp/other-tp0.json.gz" othercorr
db="$tmp/other.db"
imp "$tmp/other-tp0.json.gz" --rank 0
check "another correlation: exit" 0 $?
check "another correlation: one kernel more than the file" "$((k0 + 1))" \
  "$(sql "SELECT kernels FROM trace_ranks")"
check "another correlation: no copy said" "" "$(grep 'written again' "$tmp/err")"

# ... nor is one of a graph launch, whose correlation id its other kernels share: its branches,
# drawn on one stream, may run the same kernel over the same (timer-coarse) time
copy "$v/sglang_tp0.json.gz" "$tmp/graph-tp0.json.gz" graph
db="$tmp/graph.db"
imp "$tmp/graph-tp0.json.gz" --rank 0
check "a graph launch's: exit" 0 $?
check "a graph launch's: counted as written" "$((k0 + 1))" "$(sql "SELECT kernels FROM trace_ranks")"
check "a graph launch's: no copy said" "" "$(grep 'written again' "$tmp/err")"
check "a graph launch's, one place of many: nothing said" "" "$(grep 'more than once' "$tmp/err")"

# A CUDA graph's replayed kernels all carry their launch's correlation id, so the id alone cannot
# tell a copy: Kineto writes each one's "graph node id" (CUDA 12 on, libkineto CuptiActivity.cpp
# getGraphNodeMetadata), which with it names one kernel of one replay. cugraph_r1's 800 graphed
# kernels (two launches), the file merged with a copy of itself: each counts once, said
steps=()
db="$tmp/cugraph.db"
imp "$v/cugraph_r1.json.gz"
check "graphed kernels: the file alone" 0 $?
want=$(trace_figures)
copy "$v/cugraph_r1.json.gz" "$tmp/cugraph-appended.json.gz" appended
db="$tmp/cugraph-appended.db"
imp "$tmp/cugraph-appended.json.gz"
check "graphed kernels merged with their copy: exit" 0 $?
check "graphed kernels merged with their copy: the figures of the file" "$want" "$(trace_figures)"
check "graphed kernels merged with their copy: said" 1 \
  "$(grep -c "^xp: warning: $tmp/cugraph-appended.json.gz: 800 GPU activities written again (the same name, stream, start, end, correlation and graph node id as one before: " "$tmp/err")"
# ... while another node of the same launch over the same time (the GPU timer's 1 us alike) is no copy
copy "$v/cugraph_r1.json.gz" "$tmp/cugraph-node.json.gz" othernode
db="$tmp/cugraph-node.db"
imp "$tmp/cugraph-node.json.gz"
check "another graph node: exit" 0 $?
check "another graph node: one kernel more than the file" 801 "$(sql "SELECT kernels FROM trace_ranks")"
check "another graph node: no copy said" "" "$(grep 'written again' "$tmp/err")"
# A graph launch that wrote no node ids (CUDA before 12, HIP graphs: Kineto's roctracer and
# rocprofiler loggers write none) whose only kernels are two like nodes of concurrent branches over
# one (timer-coarse) time: its correlation id is shared, though the two read alike. Neither is a
# copy, whichever runtime launched the graph; a cudaLaunchKernel's activity written twice still is.
twin_nodes() { # twin_nodes LAUNCH: a trace of one step, LAUNCH (correlation 50) and two like kernels
  local k='{"ph": "X", "cat": "kernel", "name": "act_quant", "pid": 0, "tid": 7, "ts": 1100, "dur": 3, "args": {"correlation": 50, "stream": 7, "device": 0}}'
  printf '{"schemaVersion": 1, "traceEvents": [\n%s,\n%s,\n%s,\n%s]}\n' \
    '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 10, "tid": 10, "ts": 1000, "dur": 1000}' \
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"$1\", \"pid\": 10, \"tid\": 10, \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 50}}" \
    "$k" "$k" > "$tmp/twin-$1.json"
  db="$tmp/twin-$1.db"
  "$XP" --db "$db" import torch-trace "$tmp/twin-$1.json" > /dev/null 2> "$tmp/err"
  check "$1: exit" 0 $?
}
for launch in cudaGraphLaunch cudaGraphLaunch_v10000 cuGraphLaunch hipGraphLaunch; do
  twin_nodes "$launch"
  check "$launch: two like nodes, both counted" 2 "$(sql "SELECT kernels FROM trace_ranks")"
  check "$launch: no copy said" "" "$(grep 'written again' "$tmp/err")"
done
twin_nodes cudaLaunchKernel
check "cudaLaunchKernel: its activity written twice counts once" 1 "$(sql "SELECT kernels FROM trace_ranks")"
check "cudaLaunchKernel: said" 1 "$(grep -c 'written again' "$tmp/err")"

# A graph launch that wrote no node ids, merged with a copy of itself: its cuGraphLaunch is written
# again at its own time under its own correlation id, which no other launch does, so each of its
# activities written as often is that many copies (before: cugraph_r1's 800 graphed kernels, with
# no node ids, counted twice, said nowhere)
copy "$v/cugraph_r1.json.gz" "$tmp/nonodes-alone.json.gz" nonodes
copy "$v/cugraph_r1.json.gz" "$tmp/nonodes.json.gz" nonodes-merged
db="$tmp/nonodes-alone.db"
imp "$tmp/nonodes-alone.json.gz"
check "graphed kernels, no node ids: the file alone" 0 $?
check "graphed kernels, no node ids: 800 kernels" 800 "$(sql "SELECT kernels FROM trace_ranks")"
want=$(trace_figures)
db="$tmp/nonodes.db"
imp "$tmp/nonodes.json.gz"
check "graphed kernels, no node ids, merged with their copy: exit" 0 $?
check "graphed kernels, no node ids, merged with their copy: the figures of the file" "$want" "$(trace_figures)"
check "graphed kernels, no node ids, merged with their copy: said" 1 \
  "$(grep -c "^xp: warning: $tmp/nonodes.json.gz: 800 GPU activities written again (" "$tmp/err")"
# two like nodes of concurrent branches (one place) of a launch written again, with them: two, not
# four; three such under a launch written twice are no whole copy: counted as written, and said
twin_copy() { # twin_copy LAUNCH N: LAUNCH (correlation 50) written twice, then N like kernels
  local k='{"ph": "X", "cat": "kernel", "name": "act_quant", "pid": 0, "tid": 7, "ts": 1100, "dur": 3, "args": {"correlation": 50, "stream": 7, "device": 0}}'
  local l="{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"$1\", \"pid\": 10, \"tid\": 10, \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 50}}"
  { printf '{"schemaVersion": 1, "traceEvents": [\n%s,\n%s,\n%s' \
      '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 10, "tid": 10, "ts": 1000, "dur": 1000}' "$l" "$l"
    for _ in $(seq "$2"); do printf ',\n%s' "$k"; done
    printf ']}\n'; } > "$tmp/twincopy-$1-$2.json"
  db="$tmp/twincopy-$1-$2.db"
  "$XP" --db "$db" import torch-trace "$tmp/twincopy-$1-$2.json" > /dev/null 2> "$tmp/err"
  check "$1 written twice, $2 like kernels: exit" 0 $?
}
for launch in cudaGraphLaunch cuGraphLaunch hipGraphLaunch; do
  twin_copy "$launch" 4
  check "$launch written twice, 4 like kernels: two" 2 "$(sql "SELECT kernels FROM trace_ranks")"
  check "$launch written twice, 4 like kernels: said" 1 "$(grep -c 'xp: warning: .*: 2 GPU activities written again' "$tmp/err")"
  twin_copy "$launch" 3
  check "$launch written twice, 3 like kernels: counted as written" 3 "$(sql "SELECT kernels FROM trace_ranks")"
  check "$launch written twice, 3 like kernels: said" \
    "xp: warning: $tmp/twincopy-$launch-3.json: 1 graph launch written again (the same correlation id and time as one before: a trace merged with a copy of itself?) whose activities are not each written as often: they are counted as written (the first, correlation 50)" \
    "$(cat "$tmp/err")"
done

# The same file merged with a copy of its GPU activities alone (a tool joining a trace with the
# device side of itself): the launches written once, so no launch tells the copy; but every
# activity of the rank written twice, each over the same place as its first, is the whole GPU
# timeline again, which two like nodes of a graph's concurrent branches are not (before: 1600
# kernels, said nowhere)
copy "$v/cugraph_r1.json.gz" "$tmp/nonodes-gpu.json.gz" nonodes-gpu
db="$tmp/nonodes-gpu.db"
imp "$tmp/nonodes-gpu.json.gz"
check "graphed kernels, no node ids, their GPU activities copied: exit" 0 $?
check "graphed kernels, no node ids, their GPU activities copied: the figures of the file" "$want" "$(trace_figures)"
check "graphed kernels, no node ids, their GPU activities copied: said" 1 \
  "$(grep -c "^xp: warning: $tmp/nonodes-gpu.json.gz: 800 GPU activities written again (" "$tmp/err")"
# ... but for one kernel: no whole copy, the like activities of a graph launch counted as written
copy "$v/cugraph_r1.json.gz" "$tmp/nonodes-gpu-but1.json.gz" nonodes-gpu-but1
db="$tmp/nonodes-gpu-but1.db"
imp "$tmp/nonodes-gpu-but1.json.gz"
check "graphed kernels copied but one: counted as written" 1599 "$(sql "SELECT kernels FROM trace_ranks")"
check "graphed kernels copied but one: no copy said" "" "$(grep 'written again' "$tmp/err")"
# ... but said: nearly every place holds an activity written twice, which like nodes do not (before:
# 1599 kernels, said nowhere)
check "graphed kernels copied but one: said" \
  "xp: warning: $tmp/nonodes-gpu-but1.json.gz: 799 of the 800 places of GPU activities hold one written more than once (a graph launch's, or with no id, which nothing tells from like nodes of its concurrent branches): counted as written (a trace merged with a copy of part of itself?)" \
  "$(cat "$tmp/err")"
# two launches of one graph each of two like nodes alone (one place each) stay four kernels: two
# places, each written twice, are as likely nodes as copies
twin_twice() {
  local k='{"ph": "X", "cat": "kernel", "name": "act_quant", "pid": 0, "tid": 7, "ts": TS, "dur": 3, "args": {"correlation": CORR, "stream": 7, "device": 0}}'
  local l='{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 10, "tid": 10, "ts": TS, "dur": 5, "args": {"correlation": CORR}}'
  { printf '{"schemaVersion": 1, "traceEvents": [\n%s' \
      '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 10, "tid": 10, "ts": 1000, "dur": 1000}'
    for c in 50:1100 51:1200; do
      printf ',\n%s' "$(echo "$l" | sed "s/TS/$((${c#*:} - 90))/; s/CORR/${c%:*}/")"
      for _ in 1 2; do printf ',\n%s' "$(echo "$k" | sed "s/TS/${c#*:}/; s/CORR/${c%:*}/")"; done
    done
    printf ']}\n'; } > "$tmp/twintwice.json"
  db="$tmp/twintwice.db"
  "$XP" --db "$db" import torch-trace "$tmp/twintwice.json" > /dev/null 2> "$tmp/err"
  check "two launches of two like nodes: exit" 0 $?
}
twin_twice
check "two launches of two like nodes: four kernels" 4 "$(sql "SELECT kernels FROM trace_ranks")"
check "two launches of two like nodes: no copy said" "" "$(grep 'written again' "$tmp/err")"
check "two launches of two like nodes: both places said" 1 "$(grep -c ': 2 of the 2 places of GPU activities hold one written more than once' "$tmp/err")"
# ... but beside an eager kernel (a launch's own correlation id), all written twice, they are the
# timeline's copy: the eager kernel and the two nodes, three kernels
k='{"ph": "X", "cat": "kernel", "name": "act_quant", "pid": 0, "tid": 7, "ts": 1100, "dur": 3, "args": {"correlation": 50, "stream": 7, "device": 0}}'
e='{"ph": "X", "cat": "kernel", "name": "gemv", "pid": 0, "tid": 7, "ts": 1300, "dur": 9, "args": {"correlation": 60, "stream": 7, "device": 0}}'
printf '{"schemaVersion": 1, "traceEvents": [\n%s,\n%s,\n%s' \
  '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 10, "tid": 10, "ts": 1000, "dur": 1000}' \
  '{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 10, "tid": 10, "ts": 1010, "dur": 5, "args": {"correlation": 50}}' \
  '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1210, "dur": 5, "args": {"correlation": 60}}' > "$tmp/eager.json"
for _ in 1 2; do printf ',\n%s,\n%s,\n%s' "$k" "$k" "$e"; done >> "$tmp/eager.json"
printf ']}\n' >> "$tmp/eager.json"
db="$tmp/eager.db"
"$XP" --db "$db" import torch-trace "$tmp/eager.json" > /dev/null 2> "$tmp/err"
check "two like nodes and an eager kernel, all written twice: exit" 0 $?
check "two like nodes and an eager kernel, all written twice: three kernels" 3 "$(sql "SELECT kernels FROM trace_ranks")"
check "two like nodes and an eager kernel, all written twice: said" 1 "$(grep -c 'xp: warning: .*: 3 GPU activities written again' "$tmp/err")"

# ROCm's Kineto (roctracer's logger, RoctracerActivity_inl.h: a GPU activity's metadataJson is
# empty) writes a kernel its operator's "External id" alone, no correlation; the hipGraphLaunch
# its own correlation and that operator's External id, the graph's kernels the same External id
# (output_json.cpp: a linked activity's id): so only the External id ties them. One aten::mm
# (External id 5, one kernel) and a graph replayed under a record_function (External id 7, three
# kernels); merged with a copy of itself (GPU activities and the launch again), or of its GPU
# activities alone: four kernels, said (before: eight, said nowhere)
rocm() { # rocm OUT HOW: HOW none, merged (activities and launch again) or gpu (activities again)
  local gpu="" launch='{"ph": "X", "cat": "cuda_runtime", "name": "hipGraphLaunch", "pid": 10, "tid": 10, "ts": 1051, "dur": 4, "args": {"External id": 7, "cid": 117, "correlation": 101}}' k t
  for k in Cijk_Ailk_Bljk_BBS_BH:1020:5 k_rmsnorm:1100:7 k_silu_mul:1110:7 k_gemv:1120:7; do
    t=${k#*:}
    gpu="$gpu,
{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"${k%%:*}\", \"pid\": 2, \"tid\": 1, \"ts\": ${t%:*}, \"dur\": 6, \"args\": {\"External id\": ${t#*:}}}"
  done
  { printf '{"schemaVersion": 1, "traceEvents": [\n%s,\n%s,\n%s,\n%s,\n%s%s' \
      '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 10, "tid": 10, "ts": 1000, "dur": 1000, "args": {"External id": 1}}' \
      '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 1002, "dur": 10, "args": {"External id": 5}}' \
      '{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 10, "tid": 10, "ts": 1004, "dur": 4, "args": {"External id": 5, "cid": 28, "correlation": 100}}' \
      '{"ph": "X", "cat": "user_annotation", "name": "graph_replay", "pid": 10, "tid": 10, "ts": 1050, "dur": 10, "args": {"External id": 7}}' \
      "$launch" "$gpu"
    case $2 in merged) printf ',\n%s%s' "$launch" "$gpu" ;; gpu) printf '%s' "$gpu" ;; esac
    printf ']}\n'; } > "$1"
}
rocm "$tmp/rocm.json" none
db="$tmp/rocm.db"
imp "$tmp/rocm.json"
check "ROCm, External ids alone: exit" 0 $?
check "ROCm, External ids alone: four kernels" 4 "$(sql "SELECT kernels FROM trace_ranks")"
want=$(trace_figures)
for how in merged gpu; do
  rocm "$tmp/rocm-$how.json" "$how"
  db="$tmp/rocm-$how.db"
  imp "$tmp/rocm-$how.json"
  check "ROCm, External ids alone, $how with a copy: exit" 0 $?
  check "ROCm, External ids alone, $how with a copy: the figures of the file" "$want" "$(trace_figures)"
  check "ROCm, External ids alone, $how with a copy: said" 1 "$(grep -c "^xp: warning: $tmp/rocm-$how.json: 4 GPU activities written again (" "$tmp/err")"
done
# ... while two like nodes of such a launch, written once, stay two (its External id is theirs alone)
sed 's/"args": {"correlation": 50, "stream": 7, "device": 0}/"args": {"External id": 7}/; s/"args": {"correlation": 50}/"args": {"External id": 7, "correlation": 50}/' \
  "$tmp/twin-hipGraphLaunch.json" > "$tmp/rocm-twin.json"
check "ROCm, two like nodes: External ids alone" 2 "$(grep -c '"cat": "kernel".*"args": {"External id": 7}}' "$tmp/rocm-twin.json")"
db="$tmp/rocm-twin.db"
imp "$tmp/rocm-twin.json"
check "ROCm, two like nodes: both counted" 2 "$(sql "SELECT kernels FROM trace_ranks")"
check "ROCm, two like nodes: no copy said" "" "$(grep 'written again' "$tmp/err")"
finish
