#!/usr/bin/env bash
# Each step's communication and the part of it no other GPU activity overlapped (trace_step_comm,
# queries/comm_overlap.sql): in the fixture's TP=2 decode, one stream, every all-reduce is exposed
# whole and the union equals the collectives' summed time; in a synthetic trace with compute on
# other streams, the overlapped part is taken off to the nanosecond, two collectives at once count
# once, a copy hides communication but not from compute_exposed_ns (schema 33, HTA's definition),
# and a step without communication has no row. On HTA's own traces, where the shared fixtures
# are present, compute_exposed_ns is HTA's figure as trace_comm_hta.py computes it.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"

"$XP" --db "$db" import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=m --set tp=2 --set batch=1 > "$tmp/out" 2> "$tmp/err"
check "fixture import" 0 $?
check "summary: one stream, every rank's communication exposed whole" 2 \
  "$(grep -cE 'communication ([0-9.]+) ms \(\1 ms exposed, \1 ms without compute beside it\)$' "$tmp/out")"
for r in 0 1; do
  check "rank $r: communication is the collectives' time, all exposed" \
    "$(query "SELECT sum(dur_ns) || '|' || sum(dur_ns) FROM trace_collectives WHERE rank = $r AND step IS NOT NULL")" \
    "$(query "SELECT sum(comm_ns) || '|' || sum(exposed_ns) FROM trace_step_comm WHERE rank = $r")"
done
check "8 steps a rank with communication" "8|8" "$(query "SELECT group_concat(n, '|') FROM (SELECT count(*) AS n FROM trace_step_comm GROUP BY rank ORDER BY rank)")"
check "query: nothing hidden" "2|16|0" \
  "$("$XP" --db "$db" query "$XP_SRC/queries/comm_overlap.sql" --format csv | awk -F, 'NR == 2 { print $8 "|" $9 "|" $15 }')"

# A synthetic trace, its events from the function $1: one a line, the last comma taken off.
AR="ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
AG="ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
GEMM="nvjet_tst_64x8_64x16_2x1_v_bz_TNT"
step() { # step N TS: ProfilerStep#N, 1000 us from TS
  printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%s", "pid": 9, "tid": 9, "ts": %s, "dur": 1000},\n' "$1" "$2"
}
act() { # act CAT NAME STREAM TS DUR: a GPU activity on device 0
  printf '{"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %s, "ts": %s, "dur": %s, "args": {"stream": %s, "device": 0}},\n' \
    "$1" "$2" "$3" "$4" "$5" "$3"
}
import_synthetic() { # import_synthetic EVENTS_FUNCTION: into a new $db, checked
  { printf '{"schemaVersion": 1, "traceEvents": [\n'; "$1" | sed '$ s/,$//'; printf ']}\n'; } > "$tmp/$1.json"
  rm -f "$db"
  "$XP" --db "$db" import torch-trace "$tmp/$1.json" > "$tmp/out" 2> "$tmp/err"
  check "$1: import" 0 $?
}

# Step 1 (CPU 0-1000 us): an all-reduce 100-200 on stream 7 with a GEMM 150-250 on stream 8:
# 100 us of communication, 50 exposed. Step 2 (1000-2000): an all-reduce 1300-1350 and an
# all-gather 1340-1400 on stream 9 (110 us summed, 100 as a union), a GEMM 1360-1370 and a
# copy 1395-1500: 100 - 10 - 5 = 85 exposed. Step 3 (2000-3000): a GEMM alone.
overlaps() {
  step 1 0; step 2 1000; step 3 2000
  act kernel "$AR" 7 100 100; act kernel "$GEMM" 8 150 100
  act kernel "$AR" 7 1300 50; act kernel "$AG" 9 1340 60; act kernel "$GEMM" 8 1360 10
  act gpu_memcpy "Memcpy DtoD (Device -> Device)" 8 1395 105
  act kernel "$GEMM" 8 2100 100
}
import_synthetic overlaps
# Counting compute kernels only, the copy hides nothing: 100 - 10 = 90 exposed in step 2.
check "summary: the trace's communication and its exposed parts" 1 \
  "$(grep -c 'GPU busy 0.450 ms of 2.100 ms, communication 0.200 ms (0.135 ms exposed, 0.140 ms without compute beside it)$' "$tmp/out")"
check "per step: communication, exposed, exposed to compute, ns" "0|100000|50000|50000;1|100000|85000|90000" \
  "$(query "SELECT group_concat(step || '|' || comm_ns || '|' || exposed_ns || '|' || compute_exposed_ns, ';')
    FROM (SELECT * FROM trace_step_comm JOIN trace_step_comm_compute USING (run_id, rank, step) ORDER BY step)")"
# busy 150 + 200 + 100 us; comm 200, exposed 135, 140 to compute
check "query: shares of busy time and of communication" "450|0.2|0.135|44.4|30|32.5|0.14|31.1" \
  "$("$XP" --db "$db" query "$XP_SRC/queries/comm_overlap.sql" --format csv | awk -F, 'NR == 2 { print $10*1000 "|" $11 "|" $12 "|" $13 "|" $14 "|" $15 "|" $16 "|" $17 }')"

# Another step's activity hides communication as its own step's does: step 1's all-reduce
# (900-1100 us, stream 7) runs on while step 2's GEMM (1000-1100, stream 8) starts, as where an
# engine schedules ahead. 100 us of it exposed, not 200: the steps agree with the trace.
across_steps() {
  step 1 0; step 2 1000
  act kernel "$AR" 7 900 200; act kernel "$GEMM" 8 1000 100
}
import_synthetic across_steps
check "across steps: the next step's GEMM hides the all-reduce's last 100 us" "0|200000|100000" \
  "$(query "SELECT group_concat(step || '|' || comm_ns || '|' || exposed_ns, ';') FROM trace_step_comm")"
check "across steps: the summary agrees" 1 "$(grep -c 'communication 0.200 ms (0.100 ms exposed, 0.100 ms without compute beside it)$' "$tmp/out")"

# A fill beside an all-reduce hides it from exposed_ns, not from compute_exposed_ns: an
# all-reduce 100-200 us, a memset 100-150 and a GEMM 180-200, on streams of their own.
fill() {
  step 1 0
  act kernel "$AR" 7 100 100; act gpu_memset "Memset (Device)" 8 100 50; act kernel "$GEMM" 9 180 20
}
import_synthetic fill
check "fill: 30 us exposed, 80 without compute beside it" "100000|30000|80000" \
  "$(query "SELECT comm_ns || '|' || exposed_ns || '|' || compute_exposed_ns FROM trace_step_comm JOIN trace_step_comm_compute USING (run_id, rank, step)")"

# A record_function range on the GPU timeline (gpu_user_annotation) is no GPU work, even where
# its producer wrote it a stream: HTA takes every event with a stream for a kernel, and one named
# for a layer for compute (trace_comm_hta.py: 0 exposed here), but the range ran nothing, so it
# hides no communication: an all-reduce 100-200 us under a range 90-290 on stream 8 is exposed whole.
annotated() {
  step 1 0
  act kernel "$AR" 7 100 100; act gpu_user_annotation "layer_0" 8 90 200
}
import_synthetic annotated
check "a GPU annotation with a stream hides nothing" "100000|100000|100000|100000" \
  "$(query "SELECT comm_ns || '|' || exposed_ns || '|' || compute_exposed_ns || '|' || busy_ns FROM trace_step_comm JOIN trace_step_comm_compute USING (run_id, rank, step) JOIN trace_steps USING (run_id, rank, step)")"
check "HTA's reading of it: the range as compute" "0.100 0.000 0.000" "$(python3 "$XP_SRC/tests/cli/trace_comm_hta.py" "$tmp/annotated.json")"

# HTA's own traces: the three figures as HTA's comm_comp_overlap defines them, computed apart from
# the raw trace (trace_comm_hta.py): nccl_data 46.876, 39.191 and 39.559 ms; sampled_rank-1
# 379.053, 299.495 and 303.523 ms.
hta="${XP_SHARED:-}/fixtures/hta"
for f in nccl_parser_config__nccl_data trace_filter__sampled_rank-1; do
  trace="$hta/tests__data__$f.json.gz"
  [ -f "$trace" ] || continue
  rm -f "$db"
  "$XP" --db "$db" import torch-trace "$trace" > "$tmp/out" 2> "$tmp/err"
  check "HTA $f: import" 0 $?
  check "HTA $f: communication, exposed, and without compute as HTA counts it" \
    "$(python3 "$XP_SRC/tests/cli/trace_comm_hta.py" "$trace")" \
    "$(sed -n 's/.*communication \([0-9.]*\) ms (\([0-9.]*\) ms exposed, \([0-9.]*\) ms without compute beside it)$/\1 \2 \3/p' "$tmp/out")"
done
finish
