#!/usr/bin/env bash
# xp report's communication chart draws a bar per traced job, and two jobs of one configuration
# (two TP=2 batch=1 runs on the same GPUs) read as one name twice: each of those is told apart by
# its run; a job whose configuration no other bar shares keeps its label alone.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
section() { awk -v id="id=\"$1\"" '/<section class="chart-section"/ { s = 0 } index($0, id) { s = 1 } s' "$tmp/r.html" > "$tmp/$1"; }
labels() { grep -o '<tspan class="row-label">[^<]*' "$tmp/comm" | sed 's/.*>//'; }
sample_job 0 1 "$tmp/a"
sample_job 2 1.5 "$tmp/b" # two hours later, slower kernels: another job
run import torch-trace "$tmp/a-r0.json.gz" "$tmp/a-r1.json.gz" --set model=M --set tp=2 --set batch=1; expect_rc 0
run import torch-trace "$tmp/b-r0.json.gz" "$tmp/b-r1.json.gz" --set model=M --set tp=2 --set batch=1; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
section comm
a=$(sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id LIMIT 1")
b=$(sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
check "two bars, each its run" "M · tp=2 · batch=1 · NVIDIA H200 · run $b
M · tp=2 · batch=1 · NVIDIA H200 · run $a" "$(labels)"
has "<title>M · tp=2 · batch=1 · NVIDIA H200 · run $b: communication, exposed" "$tmp/comm"

# a third job of another batch: its label stands alone, the two still apart
sample_job 4 1 "$tmp/c"
run import torch-trace "$tmp/c-r0.json.gz" "$tmp/c-r1.json.gz" --set model=M --set tp=2 --set batch=8; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
section comm
check "only the shared label is told apart" "M · tp=2 · batch=8 · NVIDIA H200
M · tp=2 · batch=1 · NVIDIA H200 · run $b
M · tp=2 · batch=1 · NVIDIA H200 · run $a" "$(labels)"
finish
