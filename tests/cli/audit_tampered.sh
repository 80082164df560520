#!/usr/bin/env bash
# xp audit proves that the evidence a decision cites is still what was sealed: it hashes the
# evidence runs' rows again, as xp verify does, where it compared the decision's seal with the
# seal stored beside the rows, which rows edited in SQLite (its append-only triggers dropped)
# leave as it was; and it checks the decision's own record against its digest. xp decide
# refuses such rows as evidence.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
need_sqlite3 # the rows are edited under xp, its append-only triggers dropped
uuid() { sed -n 's/^run \([0-9a-f-]*\) ok$/\1/p' "$tmp/out"; }
run import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"; expect_rc 0
a=$(uuid)
run decide "Keep concurrency 8" --because "TTFT p50 27 ms" --evidence "${a:0:8}"; expect_rc 0
cp "$db" "$tmp/clean.db"
cp "$db" "$tmp/removed.db"
run audit; expect_rc 0
has "  run ${a:0:8}  serve_bench  ok"
has "seal unchanged"

# the evidence's TTFT samples made three times faster behind xp's back
sqlite3 "$db" "DROP TRIGGER xp_append_only_samples_update;
  UPDATE samples SET value = value / 3 WHERE metric = 'ttft_ms' AND case_id IN
    (SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid = '$a')"
run audit; expect_rc 5
has "ROWS CHANGED since the decision: they no longer hash to the seal it cites (xp verify names the table)"
hasnt "seal unchanged"
# and its verdict says so: "no evidence contradicted" read as the decision holding
has "verdict: EVIDENCE CHANGED since the decision (1 of 1 evidence run): what it rests on is no longer what was recorded (xp verify)"
hasnt "no evidence contradicted"
# and one line on stderr says why it exits 5, as xp verify's does (there was none)
check "audit of changed evidence: stderr" "xp: $db: 1 decision's evidence or record changed since it was made (xp verify)" \
  "$(cat "$tmp/err")"
run verify --quiet; expect_rc 5
has "run $a: its rows in samples differ from the seal"
# nor does a new decision take those rows as evidence under their old seal
n=$(sqlite3 "$db" "SELECT count(*) FROM decisions")
run decide "Keep concurrency 8 again" --because "TTFT p50 9 ms" --evidence "${a:0:8}"; expect_rc 5
check "decide on edited rows: one line" 1 "$(wc -l < "$tmp/err")"
has "xp: ${a:0:8}: run $a: its rows no longer hash to its seal (xp verify names the table); it is no evidence" "$tmp/err"
check "decide on edited rows: nothing recorded" "$n" "$(sqlite3 "$db" "SELECT count(*) FROM decisions")"

# the decision's record edited instead
db="$tmp/clean.db"
sqlite3 "$db" "DROP TRIGGER xp_decisions_no_update; UPDATE decisions SET rationale = 'TTFT p50 9 ms'"
run audit; expect_rc 5
has "DECISION ALTERED since it was made: its record (title, rationale, evidence or query) no longer matches its digest (xp verify)"
has "verdict: DECISION ALTERED since it was made (xp verify)"
hasnt "no evidence contradicted"

# the evidence run removed behind xp's back: its rows are gone, no longer what was sealed
db="$tmp/removed.db"
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_delete; PRAGMA foreign_keys = OFF; DELETE FROM runs WHERE uuid = '$a'"
run audit; expect_rc 5
has "  run $a: MISSING from this database: removed since the decision (xp verify)"
has "verdict: EVIDENCE CHANGED since the decision (1 of 1 evidence run): what it rests on is no longer what was recorded (xp verify)"
hasnt "no evidence contradicted"
[ "$fail" = 0 ] || exit 1 # check (lib.sh) only counts a failure
echo "ok: audit checks the evidence's rows and the decision's record, not the stored seal alone"
