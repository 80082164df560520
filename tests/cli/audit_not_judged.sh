#!/usr/bin/env bash
# xp audit on evidence that newer runs cannot judge: too few samples a metric on a side. An
# imported nccl-tests log holds one sample a case (its row), fewer than the 5 a verdict needs;
# the note said such a run "has no samples" and blamed "a trace without marked steps", which
# misled on an nccl_burst run. It now names the minimum and what the kind's samples are.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
nccl="$XP_SRC/tests/data/nccl"

run import nccl-tests "$nccl/nccltests_sweep.txt" --set interconnect=nvlink; expect_rc 0
first=$(grep -o 'run [0-9a-f]\{8\}' "$tmp/out" | head -1 | cut -c5-)
run decide "NVLink for TP=2" --because "fast enough" --evidence "$first"; expect_rc 0
run import nccl-tests "$nccl/nccltests_sweep.txt" "$nccl/topo.xml" --set interconnect=nvlink; expect_rc 0
second=$(grep -o 'run [0-9a-f]\{8\}' "$tmp/out" | head -1 | cut -c5-)
run audit; expect_rc 0
has "NOT JUDGED: 1 newer run of the same configuration, but no metric has 5 samples on each side, the fewest a verdict needs (an imported nccl-tests log holds one sample a case, its row)"
hasnt "a trace without marked steps"
# xp compare of the two logs: no verdict anywhere, said once under the table with how to get one
run compare "$first" "$second"; expect_rc 0
has "no metric has 5 samples a side: give each side as a group of 5 or more runs (--a KEY=VALUE"
has "--b KEY=VALUE) for verdicts; so few because an imported nccl-tests log holds one sample a case, its row"
# a decision on a failed run (the probe's planned failure), newer ok runs of its configuration
# after it: audit said "verdict: no evidence contradicted" with nothing judged and nothing said
need_probe
fdb="$tmp/failed.db"
"$PROBE" record "$fdb" model=llama fail=true > /dev/null 2>&1
failed=$(db="$fdb" sql "SELECT substr(uuid, 1, 8) FROM runs WHERE status = 'failed'")
"$XP" --db "$fdb" decide "llama fails at TP=8" --because "it did" --evidence "$failed" > /dev/null 2>&1 ||
  { echo "FAIL: decide on a failed run"; fail=1; }
for i in 1 2 3 4 5; do "$PROBE" record "$fdb" model=llama > /dev/null 2>&1; done
"$XP" --db "$fdb" audit > "$tmp/out" 2> "$tmp/err"
check "audit of a failed run's decision: exit" "0 " "$? $(cat "$tmp/err")"
check "the failed evidence said not judged" \
  "    NOT JUDGED: the run is failed: newer runs are held against ok runs only (xp show $failed says why)" \
  "$(grep -A1 "run $failed" "$tmp/out" | tail -1)"
finish
