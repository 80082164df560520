#!/usr/bin/env bash
# Integrity (issue 7): finished runs are append-only, each run is sealed into a hash chain,
# and xp verify names every break: an edited metric, a removed run, an unsealed run, an edited
# decision, a dangling row. Exit 5 on a break.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3
refused() { # SQL that the triggers must refuse, and the message they give
  set +e; sqlite3 "$db" "$1" 2>"$tmp/sqlerr"; local r=$?; set -e
  [ $r -ne 0 ] || die "not refused: $1"
  grep -qF -- "$2" "$tmp/sqlerr" || die "refused without '$2': $(cat "$tmp/sqlerr")"
}

run verify --help; expect_rc 0; has "usage: xp verify"
r1=$(record cases=2)
r2=$(record cases=2 scale=1.1)
r3=$(record cases=1 fail=true)
run verify; expect_rc 0
has "3 sealed runs, chain of 3 links (head $(sqlite3 "$db" "SELECT substr(chain_sha256, 1, 16) FROM runs WHERE chain_seq = 3"))"
has "intact (integrity_check ok, foreign keys ok)"
[ "$(sqlite3 "$db" "SELECT group_concat(chain_seq) FROM (SELECT chain_seq FROM runs ORDER BY id)")" = "1,2,3" ] ||
  die "each finished run (the failed one too) is a link of the chain"

# the triggers refuse every change to a finished run's results
refused "UPDATE metrics SET median = 1" "finished runs are append-only"
refused "DELETE FROM samples" "finished runs are append-only"
refused "DELETE FROM runs WHERE uuid = '$r1'" "finished runs are append-only"
refused "UPDATE runs SET gpu_name = 'B200' WHERE uuid = '$r2'" "finished runs are append-only"
refused "INSERT INTO cases(run_id, seq, name) SELECT id, 9, 'late' FROM runs WHERE uuid = '$r1'" "finished runs are append-only"
refused "UPDATE runs SET content_sha256 = NULL, chain_sha256 = NULL WHERE uuid = '$r1'" "finished runs are append-only"
run verify; expect_rc 0

# an edit behind xp's back (triggers dropped, as the sqlite3 CLI allows) is caught and named
cp "$db" "$tmp/clean.db"
sqlite3 "$db" "DROP TRIGGER xp_append_only_metrics_update;
  UPDATE metrics SET median = median * 0.8 WHERE name = 'time' AND case_id IN
    (SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid = '$r2');"
run verify; expect_rc 5
has "BREAK: run $r2: its rows in metrics differ from the seal"
hasnt "run $r1"
has "BROKEN"; has "1 break found" "$tmp/err"
run verify --quiet; expect_rc 5; has "BREAK: run $r2"

# a run removed from the middle of the chain
cp "$tmp/clean.db" "$db"
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_delete; PRAGMA foreign_keys = ON; DELETE FROM runs WHERE uuid = '$r2';"
run verify; expect_rc 5
has "runs were removed from the chain"
has "(run $r3) does not follow the previous link"

# a row pointing at nothing: SQLite's foreign_key_check, reported by verify
cp "$tmp/clean.db" "$db"
sqlite3 "$db" "INSERT INTO cases(run_id, seq, name) VALUES (999, 0, 'orphan')"
run verify; expect_rc 5; has "sqlite foreign_key_check: a row of cases (rowid "
# ... naming the key it holds that nothing has: which run to look for in a backup
has "points at a missing row of runs (cases.run_id = 999)"
# a run deleted with foreign keys off leaves every row of it dangling: a break per table, with
# how many, where it was one a row (a probe run's 20 metadata rows each read "rowid 0")
cp "$tmp/clean.db" "$db"
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_delete; PRAGMA foreign_keys = OFF; DELETE FROM runs WHERE uuid = '$r2'"
meta=$(sqlite3 "$tmp/clean.db" "SELECT count(*) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid = '$r2'")
run verify; expect_rc 5
id2=$(sqlite3 "$tmp/clean.db" "SELECT id FROM runs WHERE uuid = '$r2'")
has "sqlite foreign_key_check: $meta rows of run_meta point at missing rows of runs (run_meta.run_id = $id2)"
[ "$(grep -c "foreign_key_check: .* of run_meta " "$tmp/out")" = 1 ] || die "one break for run_meta: $(cat "$tmp/out")"
grep -qE "foreign_key_check: [0-9]+ rows of cases point at missing rows of runs \(cases\.run_id = $id2; the first rowid [0-9]+\)$" "$tmp/out" ||
  die "the missing run and the first row: $(cat "$tmp/out")"
hasnt "rowid 0)"

# a finished run without a seal (recorded before the chain existed): named, then sealed
cp "$tmp/clean.db" "$db"
sqlite3 "$db" "INSERT INTO runs(uuid, kind, status, started_at, finished_at, spec_json, spec_sha256)
  VALUES ('01d00000-0000-4000-8000-000000000001', 'legacy', 'ok', '2025-01-01T00:00:00Z', '2025-01-01T00:01:00Z', '{}', 'x')"
run verify; expect_rc 5; has "finished (ok) but never sealed"
run verify --seal; expect_rc 0; has "1 unsealed run sealed"; has "4 sealed runs, chain of 4 links"
run verify; expect_rc 0

# decisions: never edited; an edit behind xp's back is caught
run decide "Keep the probe" --because "it is fast" --evidence "$r1"; expect_rc 0
refused "UPDATE decisions SET title = 'Drop the probe'" "decisions are never edited"
refused "DELETE FROM decisions" "decisions are never deleted"
refused "INSERT INTO decision_evidence(decision_id, seq, run_uuid) SELECT id, 5, '$r2' FROM decisions" "evidence of a decision is never edited"
run verify; expect_rc 0; has "1 decision"
sqlite3 "$db" "DROP TRIGGER xp_decisions_no_update; UPDATE decisions SET rationale = 'it was cheap'"
run verify; expect_rc 5; has "its record differs from its digest"

# the newest run, or a decision, removed behind xp's back: the chain left is whole, only
# shorter, and the head recorded apart (schema 8) shows it
cp "$tmp/clean.db" "$db"
run verify; expect_rc 0
sqlite3 "$db" "PRAGMA foreign_keys = ON; DROP TRIGGER xp_append_only_runs_delete;
  DELETE FROM runs WHERE chain_seq = (SELECT max(chain_seq) FROM runs)"
run verify; expect_rc 5; has "runs were removed from its end"
cp "$tmp/clean.db" "$db"
run decide "Keep the probe" --because "it is fast" --evidence "$r1"; expect_rc 0
sqlite3 "$db" "DROP TRIGGER xp_decisions_no_delete; DELETE FROM decisions"
run verify; expect_rc 5; has "decisions were removed"
sqlite3 "$db" "DELETE FROM chain_head" 2>"$tmp/sqlerr" && die "the chain head was deleted"
has "the chain head is never deleted" "$tmp/sqlerr"
# the head only moves forward (schema 9): set back by a link, it would hide the newest run's removal
sqlite3 "$db" "UPDATE chain_head SET run_seq = run_seq - 1" 2>"$tmp/sqlerr" && die "the chain head moved back"
has "the chain head only moves forward" "$tmp/sqlerr"
sqlite3 "$db" "DROP TRIGGER xp_chain_head_delete; DELETE FROM chain_head"
run verify; expect_rc 5; has "its head record is missing"

# a kernel name planted under another name's id (shared dictionary, outside any seal): caught,
# and refused by merge, where every later import would have filed the kernel under it
cp "$tmp/clean.db" "$db"
sqlite3 "$db" "INSERT INTO trace_names(id, name, kind, category) VALUES (1, 'nvjet_planted', 'kernel', 'gemm')"
run verify; expect_rc 5; has "trace_names: id 1 is not the hash of its name \"nvjet_planted\""
cp "$tmp/clean.db" "$tmp/into.db"
set +e; "$XP" --db "$tmp/into.db" merge "$db" > /dev/null 2> "$tmp/merr"; mrc=$?; set -e
[ "$mrc" = 5 ] || die "merge of a planted name: exit $mrc"
has "trace_names: id 1 is not the hash of its name" "$tmp/merr"

# kernel categories are derived outside any seal (the rule set's text, its rules, the groups and
# each name's category), and every trace query reads them: each edited in SQLite is a break where
# verify said 'intact' and allreduce_share.sql's AllReduce share went from 92.8% to 0.0%
if "$XP" help kinds | grep -q torch_trace; then
  k="$tmp/k.db"
  "$XP" --db "$k" import torch-trace "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz" \
    "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank1.trace.json.gz" > /dev/null 2>&1 || die "sample import failed"
  cp "$k" "$tmp/k0.db"
  vk() { "$XP" --db "$k" verify > "$tmp/out" 2> "$tmp/err" && rc=0 || rc=$?; }
  vk; expect_rc 0
  while IFS='#' read -r edit want; do
    cp "$tmp/k0.db" "$k"
    sqlite3 "$k" "$edit"
    vk; expect_rc 5; has "$want"
  done <<'EDITS'
UPDATE trace_names SET category = 'gemm' WHERE name LIKE 'ncclDevKernel_AllReduce%'#is category gemm, the rules in force give allreduce
UPDATE trace_categories SET grp = 'compute' WHERE category = 'allreduce'#category allreduce is in group compute, the rule set's text puts it in communication
UPDATE trace_rules SET pattern = 'nothing' WHERE seq = 1#trace_rules: rule 1 (
UPDATE trace_rule_set SET text = text || char(10)#trace_rule_set: its text does not hash to its sha256
UPDATE trace_categories SET category = char(27) || '[31mplanted' WHERE category = 'allreduce'#category \x1b[31mplanted is not one
EDITS
fi

# not a database / no database
run verify extra; expect_rc 2
set +e; "$XP" --db "$tmp/none.db" verify >/dev/null 2>&1; rc=$?; set -e; expect_rc 3
echo "ok: verify"
