#!/usr/bin/env bash
# GPU annotations (gpu_user_annotation: a record_function range on the GPU timeline) are stored per
# rank, step and name, and their totals equal torch.profiler's key_averages device time for the
# range (the fixtures' *.truth.json) to the nanosecond, Kineto's widening of each range taken off;
# a range belongs to the step its CPU range ran in, not the step its GPU time falls in.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"

"$XP" --db "$db" import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" \
  > "$tmp/out" 2> "$tmp/err"
check "import exit" 0 $?
# truth RANK: "name|count|ns" of each GPU annotation the trace holds, from the profiler's figures
truth() {
  python3 - "$data/decode_tp2_bs1_rank$1.trace.json.gz" "$data/decode_tp2_bs1_rank$1.truth.json" <<'PY'
import gzip, json, sys
names = {e["name"] for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("cat") == "gpu_user_annotation"}
rows = [r for r in json.load(open(sys.argv[2]))["kernels"] if r["name"] in names]
print(";".join(f'{r["name"]}|{r["count"]}|{round(r["self_device_us"] * 1000)}' for r in sorted(rows, key=lambda r: r["name"])))
PY
}
for r in 0 1; do
  want=$(truth $r)
  check "rank $r: four annotations in the truth" 4 "$(tr ';' '\n' <<< "$want" | wc -l)"
  check "rank $r: annotation totals equal the profiler's" "$want" \
    "$(query "SELECT group_concat(name || '|' || count || '|' || total_ns, ';') FROM
              (SELECT * FROM trace_annotation_totals WHERE rank = $r ORDER BY name)")"
done
check "every range in one of the 8 steps, 2 ns widening" "0|16|2" \
  "$(query "SELECT count(*) FILTER (WHERE step IS NULL) || '|' || count(DISTINCT rank || '.' || step) || '|' ||
            group_concat(DISTINCT widen_ns) AS x FROM trace_annotations")"
check "a decode_step a step" "0|0|0|0|0|0|0|0" \
  "$(query "SELECT group_concat(count - 1, '|') FROM trace_annotations WHERE rank = 0 AND name = 'decode_step'")"

# A writer of before 2023 widened a range by 1 ns (1 before its first kernel, none past its last);
# a tool that draws ranges as they ran, not at all. Two steps; the range "blk" of step 0 ran on a
# GPU behind its CPU, in step 1's CPU window (1200 us on); "late" has no CPU range of its own.
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; } # calc EXPR: microseconds to the ns (bc is not on every host)
trace() { # trace BEFORE PAST
  local b=$1 p=$2
  cat <<JSON
{"schemaVersion": 1, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 1000, "dur": 200},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 9, "tid": 9, "ts": 1200, "dur": 200},
{"ph": "X", "cat": "user_annotation", "name": "blk", "pid": 9, "tid": 9, "ts": 1010, "dur": 50, "args": {"External id": 5}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": 1020, "dur": 5, "args": {"External id": 6}},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 9, "tid": 9, "ts": 1030, "dur": 5, "args": {"External id": 7}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1250, "dur": 10, "args": {"External id": 6, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "add", "pid": 0, "tid": 7, "ts": 1265.5, "dur": 4.5, "args": {"External id": 7, "stream": 7}},
{"ph": "X", "cat": "gpu_user_annotation", "name": "blk", "pid": 0, "tid": 7, "ts": $(calc "1250 - $b"), "dur": $(calc "20 + $b + $p"), "args": {"External id": 5}},
{"ph": "X", "cat": "gpu_user_annotation", "name": "late", "pid": 0, "tid": 7, "ts": $(calc "1265.5 - $b"), "dur": $(calc "4.5 + $b + $p")}
]}
JSON
}
for w in "0.001 0.001 2" "0.001 0 1" "0 0 0"; do
  set -- $w
  rm -f "$db"
  trace "$1" "$2" > "$tmp/w.json"
  "$XP" --db "$db" import torch-trace "$tmp/w.json" > "$tmp/out" 2> "$tmp/err"
  check "widened $1 + $2 us: import exit" 0 $?
  check "widened $1 + $2 us: blk in step 0 by its CPU range, late in step 1 by its GPU start; as ran" \
    "blk|0|1|$3|20000;late|1|1|$3|4500" \
    "$(query "SELECT group_concat(name || '|' || step || '|' || count || '|' || widen_ns || '|' || total_ns, ';')
              FROM (SELECT * FROM trace_annotations ORDER BY name)")"
done
finish
