#!/usr/bin/env bash
# A decision that picks one option over another records which side each evidence run stands on
# (xp decide --evidence CHOSEN... --over ALTERNATIVE..., schema 34). Kept as one list, xp audit
# read a newer run of the alternative that got 30% faster as "MOVED, same direction", exit 0:
# the option the decision was taken over had caught up, and nothing said so. Now a run of the
# alternative contradicts by getting better, and bears the decision out by getting worse; evidence
# given without --over is audited as before, and the side survives xp merge with the digest.
set -uo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
decided() { # decided DB [--over]: a fresh database $tmp/DB.db, a decision on tp=2 ($c) and tp=4 ($o) runs
  db="$tmp/$1.db"
  c=$(record model=m tp=2); o=$(record model=m tp=4)
  if [ "${2:-}" = --over ]; then
    run decide "TP=2 over TP=4" --because "faster" --evidence "${c:0:8}" --over "${o:0:8}"
  else
    run decide "TP=2 over TP=4" --because "faster" --evidence "${c:0:8}" "${o:0:8}"
  fi
  expect_rc 0
}

decided sides --over
has "evidence: 2 runs (1 chosen, 1 alternative)"
check "each evidence run's side" "${c}|chosen
${o}|alternative" "$(db=$tmp/sides.db query "SELECT run_uuid || '|' || side FROM decision_evidence JOIN decision_evidence_sides USING (decision_id, seq) ORDER BY seq")"
# xp show names the decisions that cite a run, and its side in each
run show "${o:0:8}" --format json; expect_rc 0
check "xp show: the decision and side" "TP=2 over TP=4|alternative" \
  "$(python3 -c 'import json,sys; print("\n".join(d["title"] + "|" + d["side"] for d in json.load(sys.stdin)["decisions"]))' < "$tmp/out")"
run show "${c:0:8}"; expect_rc 0
has "== decisions =="; grep -qE "TP=2 over TP=4 +[0-9T:.Z-]+ +chosen" "$tmp/out" || die "xp show's decisions: $(cat "$tmp/out")"
run audit; expect_rc 0
has "  run ${c:0:8} (chosen)  hist_probe  ok"
has "  run ${o:0:8} (alternative)  hist_probe  ok"

# the alternative got faster: that contradicts the decision, said as such
f=$(record model=m tp=4 scale=0.7)
run audit; expect_rc 1
grep -qE "^  CONTRADICTED: run ${o:0:8} \(alternative\) op \{\"i\":0\} time: median [0-9.]+ us then; [0-9.]+ us in 1 newer run \(-30\.0%, p=[0-9.e-]+\); the alternative got better \(lower is better for us\): the decision may no longer hold$" "$tmp/out" ||
  die "a faster run of the alternative contradicts: $(cat "$tmp/out")"
has "verdict: CONTRADICTED by newer runs of the alternative: it got better"

# the alternative got slower: it bears the decision out
decided slower --over
record model=m tp=4 scale=1.3 > /dev/null
run audit; expect_rc 0
has "the alternative got worse (lower is better for us): not contradicted"
has "verdict: no evidence contradicted"
# the chosen side is held as before: slower contradicts
record model=m tp=2 scale=1.3 > /dev/null
run audit; expect_rc 1
grep -qE "^  CONTRADICTED: run ${c:0:8} \(chosen\) op" "$tmp/out" || die "a slower chosen run contradicts: $(cat "$tmp/out")"
has "verdict: CONTRADICTED by newer runs"

# without --over, as before: no sides, a faster run of either is no contradiction
decided plain
record model=m tp=4 scale=0.7 > /dev/null
run audit; expect_rc 0
has "  run ${o:0:8}  hist_probe  ok"
has "MOVED, same direction: run ${o:0:8} op"
check "no side without --over" "0" "$(db=$tmp/plain.db sql "SELECT count(*) FROM decision_evidence_sides")"

# the side is part of the record: edited, the decision is altered; merged, it comes along
db="$tmp/sides.db"
uuid=$(sql "SELECT uuid FROM decisions")
sqlite3 "$tmp/sides.db" "DROP TRIGGER xp_decision_evidence_sides_no_update; UPDATE decision_evidence_sides SET side = 'chosen'"
run audit; expect_rc 5
has "DECISION ALTERED since it was made"
db="$tmp/merged.db"
run merge "$tmp/slower.db"; expect_rc 0
check "sides merged" "chosen alternative" "$(sql "SELECT group_concat(side, ' ') FROM (SELECT side FROM decision_evidence_sides ORDER BY seq)")"
run verify; expect_rc 0

# usage: --over alone, or one run on both sides
db="$tmp/plain.db" # $c and $o are its runs
one_line "--over alone" 2 "decide: --over names the alternative's runs; --evidence names the chosen option's" \
  "$XP" --db "$db" decide "t" --because "w" --over "${o:0:8}"
one_line "a run on both sides" 2 "a run stands on one side" \
  "$XP" --db "$db" decide "t" --because "w" --evidence "${c:0:8}" --over "${c:0:8}"
echo "ok: a decision's evidence keeps its sides, and xp audit holds the alternative the other way"
finish
