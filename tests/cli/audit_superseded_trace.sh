#!/usr/bin/env bash
# A decision whose evidence is a trace import that a later import of the same job supersedes
# (all its ranks, or other step marks): every query now answers from the other import, and
# xp audit says so beside the evidence, naming the import that counts.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
uuid() { sed -n 's/^run \([0-9a-f-]*\) ok$/\1/p' "$tmp/out"; }

run import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" --set model=toy --set tp=2 --set batch=1
expect_rc 0
alone=$(uuid)
run decide "Optimize the all-reduce" --because "it is most of rank 0's step" --evidence "${alone:0:8}"
expect_rc 0
run audit; expect_rc 0
hasnt "superseded by run"

# both ranks of the same job: the rank-0 import no longer counts
run import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=toy --set tp=2 --set batch=1
expect_rc 0
both=$(uuid)
[ -n "$alone" ] && [ -n "$both" ] || die "no run ids: $alone $both"
run audit; expect_rc 0
has "  run ${alone:0:8}  torch_trace  ok"
has "    superseded by run ${both:0:8}, another import of the same job: queries count that import, not this one (xp compare ${alone:0:8} ${both:0:8})"
echo "ok: audit names the import that supersedes a decision's evidence"
