#!/usr/bin/env bash
# xp audit counts the same result files imported again once, dated by their first import, as
# queries/regressions.sql and xp report do: a newer vLLM result imported twice is one newer
# run, its samples once (pooled twice, a 20% TTFT change of p=0.09 read as p=0.047,
# CONTRADICTED); the evidence's own nccl-tests log imported again (it names no date: dated by
# its import) is no newer run of it.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
serve="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"
uuid() { sed -n 's/^run \([0-9a-f-]*\) ok$/\1/p' "$tmp/out"; }
# the same benchmark a day later, every request's first token 20% later (the rest of it as long)
python3 - "$serve" "$tmp/next_day.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["date"] = "20250612-101500"
d["latencies"] = [l + 0.2 * t for l, t in zip(d["latencies"], d["ttfts"])]
d["ttfts"] = [1.2 * t for t in d["ttfts"]]
json.dump(d, open(sys.argv[2], "w"))
PY
run import vllm-bench "$serve"; expect_rc 0
a=$(uuid)
run decide "Keep concurrency 8" --because "TTFT p50 27 ms" --evidence "${a:0:8}"; expect_rc 0
run import vllm-bench "$tmp/next_day.json"; expect_rc 0
run audit; expect_rc 0
has "holds against 1 newer run of the same configuration"
run import vllm-bench "$tmp/next_day.json"; expect_rc 0   # the same file again
run audit
hasnt "CONTRADICTED"
has "holds against 1 newer run of the same configuration"
expect_rc 0

# a log that names no date, imported again after the decision on it
db="$tmp/nccl.db"
run import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_graph.txt"; expect_rc 0
b=$(uuid)
run decide "NVLink is enough" --because "the sweep" --evidence "${b:0:8}"; expect_rc 0
run import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_graph.txt"; expect_rc 0
run audit; expect_rc 0
has "    no newer ok runs of the same configuration"
hasnt "newer run of"
echo "ok: audit counts re-imported files once"
