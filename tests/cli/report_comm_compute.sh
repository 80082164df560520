#!/usr/bin/env bash
# xp report's communication chart splits the exposed communication as queries/comm_overlap.sql
# does: the part nothing else ran beside (exposed), and the part only copies or fills ran beside,
# which HTA's comm_comp_overlap counts as exposed too (compute_exposed_ms, schema table
# trace_step_comm_compute); compute hid the rest. A job where the two agree (one stream, the
# fixture's TP=2 decode) draws no such part and no legend entry for it. Before, the chart drew the
# copy-hidden part as hidden by compute, and said nothing of compute_exposed_ms.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
section() { awk -v id="id=\"$1\"" '/<section class="chart-section"/ { s = 0 } index($0, id) { s = 1 } s' "$tmp/r.html" > "$tmp/$1"; }
beside="communication, beside copies or fills only"

run import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=M --set tp=2 --set batch=1; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
section comm
has 'data-has-data="1"' "$tmp/comm"
check "exposed alike either way: no copy-only part drawn" 0 "$(grep -c "$beside" "$tmp/comm" || true)"

# One step: an all-reduce 100-200 us on stream 7, beside it a copy 100-140 and a GEMM 160-180 on
# stream 8: 100 us of communication, 40 exposed, 80 with no compute beside it, busy 100
AR="ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
printf '{"schemaVersion": 1, "traceEvents": [\n%s,\n%s,\n%s,\n%s]}\n' \
  '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 0, "dur": 1000}' \
  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"$AR\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 100, \"args\": {\"stream\": 7, \"device\": 0}}" \
  '{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 8, "ts": 100, "dur": 40, "args": {"stream": 8, "device": 0}}' \
  '{"ph": "X", "cat": "kernel", "name": "nvjet_tst_64x8_64x16_2x1_v_bz_TNT", "pid": 0, "tid": 8, "ts": 160, "dur": 20, "args": {"stream": 8, "device": 0}}' \
  > "$tmp/copy.json"
db="$tmp/copy.db"
run import torch-trace "$tmp/copy.json" --set model=C --set tp=1 --set batch=1; expect_rc 0
"$XP" --db "$db" query "$XP_SRC/queries/comm_overlap.sql" --format csv | tail -n +2 > "$tmp/q"
check "the query: communication, exposed, exposed to compute (ms)" "0.1|0.04|0.08" \
  "$(awk -F, '{ print $11 "|" $12 "|" $16 }' "$tmp/q")"
run report --out "$tmp/r.html"; expect_rc 0
section comm
has "C · tp=1 · batch=1: communication, exposed 40.0%</title>" "$tmp/comm"
has "C · tp=1 · batch=1: $beside 40.0%</title>" "$tmp/comm"
has "C · tp=1 · batch=1: communication, hidden by compute 20.0%</title>" "$tmp/comm"
has "communication 100.0% of it, 40.0% exposed, 80.0% with no compute beside it" "$tmp/comm"
check "legend: the copy-only part" 1 "$(grep -c "<text[^>]*>$beside</text>" "$tmp/comm")"
finish
