#!/usr/bin/env bash
# A decision resting on a query: xp audit said its figures moved ("slowest 100.1 then; 200.2
# now") and over how many runs since, but not which of them moved it; with dozens since, the
# reviewer looked for it by hand. xp audit DECISION --by-run names each run that moved a figure,
# with what it moved (the figures without it against with it), and says which moved nothing.
set -uo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
record model=m > /dev/null
cat > "$tmp/slowest.sql" <<'SQL'
SELECT r.model, max(m.median) AS slowest FROM runs r JOIN cases c ON c.run_id = r.id
JOIN metrics m ON m.case_id = c.id WHERE r.status = 'ok' AND m.name = 'time' GROUP BY r.model ORDER BY r.model;
SQL
run decide "m is fast enough" --because "slowest op 200 us" --query "$tmp/slowest.sql"; expect_rc 0
decision=$(sql "SELECT substr(uuid, 1, 8) FROM decisions")
faster=$(record model=m scale=0.5); slower=$(record model=m scale=2); other=$(record model=z)
run audit "$decision"; expect_rc 0
has "  model=m: slowest 200.2 then; 400.4 now (+100.0%)"
has "  (xp audit $decision --by-run names the runs since the decision that moved them)"
hasnt "by run"
run audit "$decision" --by-run; expect_rc 0
has "  by run, newest first (the figures with the run against without it, the runs before it kept):"
# each run's changed values under its line, indented past it (they were at the run line's indent)
grep -A1 -F "  run ${other:0:8} (hist_probe, " "$tmp/out" | grep -qxF "    model=z: new (the query did not return this row then)" ||
  die "the run of model z added its row: $(cat "$tmp/out")"
grep -A1 -F "  run ${slower:0:8} (hist_probe, " "$tmp/out" | grep -qxF "    model=m: slowest 200.2 then; 400.4 now (+100.0%)" ||
  die "the slower run moved m's figure: $(cat "$tmp/out")"
hasnt "  run ${faster:0:8}"
has "  by run: 2 of 3 runs since the decision moved figures"
# the database is left as it was: the runs were taken out of a copy
check "runs kept" 4 "$(sql "SELECT count(*) FROM runs")"
run verify; expect_rc 0
# no run since: said
db="$tmp/quiet.db"; record model=m > /dev/null
run decide "m" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
run audit --by-run; expect_rc 0
has "  by run: no run arrived since the decision: what moved, moved without one"
# runs since that are evidence of a later decision, with sides, are taken out of the copy with
# their citations
db="$tmp/cited.db"; record model=m > /dev/null
run decide "m" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
first=$(sql "SELECT substr(uuid, 1, 8) FROM decisions")
x=$(record model=m scale=2); y=$(record model=z)
run decide "m over z" --because "w" --evidence "${x:0:8}" --over "${y:0:8}"; expect_rc 0
run audit "$first" --by-run; expect_rc 0
hasnt "NOT ATTRIBUTED"
has "  by run: 2 of 2 runs since the decision moved figures"
# every decision audited at once: each finds the copy whole, whatever the one before took out of it
db="$tmp/two.db"; record model=m > /dev/null
run decide "m first" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
run decide "m second" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
record model=m scale=2 > /dev/null; record model=z > /dev/null; record model=m scale=0.5 > /dev/null
run audit --by-run; expect_rc 0
check "each decision's runs attributed" 2 "$(grep -cxF "  by run: 2 of 3 runs since the decision moved figures" "$tmp/out")"
# a decision without a query, audited --by-run: said that there is nothing to attribute, where the
# flag was passed over in silence and the audit read as if no run had moved anything
db="$tmp/evidence.db"; e=$(record model=m)
run decide "m" --because "w" --evidence "${e:0:8}"; expect_rc 0
record model=m scale=2 > /dev/null
run audit --by-run
has "  by run: NOT ATTRIBUTED: the decision has no query (--by-run names the runs that moved a query's figures;"
# decisions over two queries, taken at three times, audited at once: each says what it says alone
# (the audit keeps one query's figures from one decision to the next, and one copy to take runs
# out of: a query met again, or another's runs still taken out, must not answer for this one)
db="$tmp/mixed.db"; record model=m > /dev/null
printf 'SELECT count(*) AS runs FROM runs WHERE status = %s;\n' "'ok'" > "$tmp/count.sql"
run decide "slowest, first" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
record model=m scale=2 > /dev/null; record model=z > /dev/null
run decide "count" --because "w" --query "$tmp/count.sql"; expect_rc 0
record model=m scale=0.5 > /dev/null
run decide "slowest, last" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
record model=z scale=3 > /dev/null; record model=m scale=4 > /dev/null
: > "$tmp/alone"
for id in $(query "SELECT substr(uuid, 1, 8) FROM decisions ORDER BY created_at, id"); do
  [ -s "$tmp/alone" ] && echo >> "$tmp/alone"
  run audit "$id" --by-run; expect_rc 0
  cat "$tmp/out" >> "$tmp/alone"
done
run audit --by-run; expect_rc 0
cmp -s "$tmp/alone" "$tmp/out" || die "audited at once, the decisions said otherwise: $(diff "$tmp/alone" "$tmp/out")"
check "each decision's runs attributed" 3 "$(grep -c "^  by run: [0-9]* of [0-9]* runs since" "$tmp/out")"
# past BY_RUN_MAX (100) runs since: the summary counts the runs attributed, the newest, where it
# said "100 of 101 runs since the decision" whatever the number since (1000 read as 101)
db="$tmp/many.db"; record model=m > /dev/null
run decide "many since" --because "w" --query "$tmp/slowest.sql"; expect_rc 0
for i in $(seq 105); do record model=m > /dev/null; done
run audit --by-run; expect_rc 0
has "  and older runs since the decision, not attributed (100 at most)"
has "  by run: none of the 100 newest of the 105 runs since the decision moved a figure"
hasnt "of 101 runs"
echo "ok: xp audit --by-run names the runs that moved a query's figures"
finish
