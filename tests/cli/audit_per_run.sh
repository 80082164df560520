#!/usr/bin/env bash
# xp audit judges each newer run alone where it holds enough samples: evidence at 1.0x against
# newer runs at 1.0x and 1.3x read "CONTRADICTED +14.7%" over the pooled samples, though one of
# them measured what the decision rests on. Newer runs that disagree among themselves are a
# split, said run by run, and no contradiction; every newer run moved, the same way, is one.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
decided() { # decided DB: a fresh database $tmp/DB.db with a decision resting on a probe run, $e
  db="$tmp/$1.db"
  e=$(record model=m tp=2)
  run decide "Keep m at TP=2" --because "fast enough" --evidence "${e:0:8}"; expect_rc 0
}
decided split
agrees=$(record model=m tp=2)
slower=$(record model=m tp=2 scale=1.3)
run audit; expect_rc 0
grep -qE "^  SPLIT: run ${e:0:8} op \{\"i\":0\} time: median 100\.1 us then; [0-9.]+ us in 2 newer runs \([^)]*\); the newer runs disagree: 1 worse, 1 agree, 0 better: not contradicted$" "$tmp/out" ||
  die "one newer run agrees, one moved: a split, not a contradiction: $(cat "$tmp/out")"
grep -qE "^    each newer run judged alone: ${agrees:0:8} [-+]0\.[0-9]% \(p=[0-9.e-]+\) agrees, ${slower:0:8} \+30\.0% \(p=[0-9.e-]+\) worse$" "$tmp/out" ||
  die "each newer run's verdict, oldest first: $(cat "$tmp/out")"
has "    not contradicted: 2 newer runs of the same configuration (2 after the decision; 2 metrics judged) disagree among themselves on 2 metrics (SPLIT above)"
has "verdict: no evidence contradicted; newer runs SPLIT on 2 metrics (some agree)"
hasnt "CONTRADICTED"

# every newer run slower: contradicted, each said
decided all
s1=$(record model=m tp=2 scale=1.3); s2=$(record model=m tp=2 scale=1.25)
run audit; expect_rc 1
has "  CONTRADICTED: run ${e:0:8} op {\"i\":0} time: median 100.1 us then;"
grep -qE "^    each newer run judged alone: ${s1:0:8} \+30\.0% \(p=[0-9.e-]+\) worse, ${s2:0:8} \+25\.0% \(p=[0-9.e-]+\) worse$" "$tmp/out" ||
  die "each newer run moved: $(cat "$tmp/out")"
has "verdict: CONTRADICTED by newer runs"

# newer runs too small to judge alone (fewer than 5 samples each, as a kind of one sample a case
# a run) are pooled, as before: two of 3 samples each, slower, still contradict
decided pooled
record model=m tp=2 samples=3 scale=1.3 > /dev/null; record model=m tp=2 samples=3 scale=1.3 > /dev/null
run audit; expect_rc 1
grep -qE "^  CONTRADICTED: run ${e:0:8} op \{\"i\":0\} time: median 100\.1 us then; [0-9.]+ us in 2 newer runs \(\+29\.4%, p=[0-9.e-]+\); pooled: no newer run has 5 samples alone$" "$tmp/out" ||
  die "newer runs of 3 samples each, pooled: $(cat "$tmp/out")"
hasnt "each newer run judged alone"

# Which way: only a worse figure contradicts. Evidence says what a decision rests on is fast (or
# cheap) enough; newer runs 30% faster were flagged CONTRADICTED, exit 1, though they bore it
# out: now "MOVED, same direction", exit 0, and a slower run still contradicts. A unit that does
# not say which way is better (a share, %) contradicts either way.
decided faster
f1=$(record model=m tp=2 scale=0.7); f2=$(record model=m tp=2 scale=0.7)
run audit; expect_rc 0
grep -qE "^  MOVED, same direction: run ${e:0:8} op \{\"i\":0\} time: median 100\.1 us then; 70\.07 us in 2 newer runs \(-30\.0%, p=[0-9.e-]+\); better \(lower is better for us\): not contradicted$" "$tmp/out" ||
  die "faster newer runs: moved the same way, not contradicted: $(cat "$tmp/out")"
grep -qE "^    each newer run judged alone: ${f1:0:8} -30\.0% \(p=[0-9.e-]+\) better, ${f2:0:8} -30\.0% \(p=[0-9.e-]+\) better$" "$tmp/out" ||
  die "each faster run said better: $(cat "$tmp/out")"
has "    holds against 2 newer runs of the same configuration (2 after the decision; 2 metrics judged, some better: MOVED above)"
has "verdict: no evidence contradicted"
hasnt "CONTRADICTED"

# pooled (runs of 3 samples each), the same: faster is no contradiction (slower is: above)
decided pooled_faster
record model=m tp=2 samples=3 scale=0.7 > /dev/null; record model=m tp=2 samples=3 scale=0.7 > /dev/null
run audit; expect_rc 0
has "pooled: no newer run has 5 samples alone; better (lower is better for us): not contradicted"
echo "ok: audit judges each newer run alone, and worse from better"
