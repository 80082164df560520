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
finish
