#!/usr/bin/env bash
# xp audit tells a figure that got worse from one that got better: evidence says what a decision
# rests on is fast (or cheap) enough, and only a worse figure undoes that. Newer runs 30% faster
# were flagged CONTRADICTED, exit 1, though they bore the decision out; they are now "MOVED, same
# direction", exit 0, and a slower run still contradicts. A unit that does not say which way is
# better (a share, %) contradicts either way.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
e=$(record model=m tp=2)
run decide "Keep m at TP=2" --because "fast enough" --evidence "${e:0:8}"; expect_rc 0
f1=$(record model=m tp=2 scale=0.7); f2=$(record model=m tp=2 scale=0.7)
run audit; expect_rc 0
grep -qE "^  MOVED, same direction: run ${e:0:8} op \{\"i\":0\} time: median 100\.1 us then; 70\.07 us in 2 newer runs \(-30\.0%, p=[0-9.e-]+\); better \(lower is better for us\): not contradicted$" "$tmp/out" ||
  die "faster newer runs: moved the same way, not contradicted: $(cat "$tmp/out")"
grep -qE "^    each newer run judged alone: ${f1:0:8} -30\.0% \(p=[0-9.e-]+\) better, ${f2:0:8} -30\.0% \(p=[0-9.e-]+\) better$" "$tmp/out" ||
  die "each faster run said better: $(cat "$tmp/out")"
has "    holds against 2 newer runs of the same configuration (2 after the decision; 2 metrics judged, some better: MOVED above)"
has "verdict: no evidence contradicted"
hasnt "CONTRADICTED"

# pooled (runs of 3 samples each), the same: faster is no contradiction, slower is
db="$tmp/pooled.db"
e=$(record model=m tp=2)
run decide "Keep m at TP=2" --because "fast enough" --evidence "${e:0:8}"; expect_rc 0
record model=m tp=2 samples=3 scale=0.7 > /dev/null; record model=m tp=2 samples=3 scale=0.7 > /dev/null
run audit; expect_rc 0
has "pooled: no newer run has 5 samples alone; better (lower is better for us): not contradicted"
db="$tmp/slower.db"
e=$(record model=m tp=2)
run decide "Keep m at TP=2" --because "fast enough" --evidence "${e:0:8}"; expect_rc 0
record model=m tp=2 samples=3 scale=1.4 > /dev/null; record model=m tp=2 samples=3 scale=1.4 > /dev/null
run audit; expect_rc 1
grep -qE "^  CONTRADICTED: run ${e:0:8} op \{\"i\":0\} time: median 100\.1 us then; [0-9.]+ us in 2 newer runs \(\+[0-9.]+%, p=[0-9.e-]+\); pooled: no newer run has 5 samples alone$" "$tmp/out" ||
  die "slower pooled runs contradict: $(cat "$tmp/out")"
echo "ok: audit tells worse from better"
