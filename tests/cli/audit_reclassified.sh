#!/usr/bin/env bash
# A decision recorded on a query's rows alone, its figures since moved by xp reclassify (no run
# recorded since): xp audit's verdict says its figures moved, and why they may have (the kernel
# category rules were replaced after the decision: which, when). It said "verdict: no evidence
# contradicted" under AllReduce's share gone from 92.8% to 0 over "0 runs recorded since".
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
"$XP" help kinds | grep -q torch_trace || { echo "skipped: no torch_trace kind in this build"; exit 77; }
T="$XP_SRC/tests/data/trace"
run import torch-trace "$T/decode_tp2_bs1_rank0.trace.json.gz" "$T/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=m --set tp=2 --set batch=1 --set interconnect=pcie; expect_rc 0
run decide "AllReduce dominates decode at TP=2" --because "92.8% of the step" \
  --query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 --param interconnect=pcie; expect_rc 0
run audit; expect_rc 0
has "verdict: no evidence contradicted"
hasnt "MOVED"

# NCCL's kernels put in category other
awk '/^rule/ && !done { print "rule\tother\tcontains\tnccl"; done = 1 } { print }' \
  "$XP_SRC/importers/torch_trace/categories.tsv" > "$tmp/rules.tsv"
run reclassify --rules "$tmp/rules.tsv"; expect_rc 0
run audit; expect_rc 0
has "allreduce_pct 92.8 then; 0 now (-100.0%)"
has "runs recorded since the decision: 0 (0 ok)"
has "note: the kernel category rules were replaced since the decision (xp reclassify: $tmp/rules.tsv, at "
has "verdict: no evidence contradicted; its query's figures MOVED since the decision (5 values)"
# figures moved by the first trace import after the decision: the rules it put in place were
# none replaced
db="$tmp/first.db"
run import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"; expect_rc 0
run decide "No AllReduce yet" --because "no trace" --query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 \
  --param interconnect=pcie; expect_rc 0
run import torch-trace "$T/decode_tp2_bs1_rank0.trace.json.gz" "$T/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=m --set tp=2 --set batch=1 --set interconnect=pcie; expect_rc 0
run audit; expect_rc 0
has "its query's figures MOVED"
hasnt "category rules were replaced"
echo "ok: audit says a query's figures moved, and that the category rules changed under them"
