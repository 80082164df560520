#!/usr/bin/env bash
# xp audit of a decision whose query no longer runs on this database (a table or column it read
# is gone: another schema, a table of the team's own dropped). It said "cannot run on today's
# database (error above); the recorded rows stand alone" and "verdict: no evidence
# contradicted", as if the query had been checked. It now says the rows are not checked, on
# which schema, and how to check them again (a successor decision), and the verdict says so.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
need_sqlite3

run import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" --set interconnect=nvlink; expect_rc 0
# the team's own table beside xp's, which the decision's query reads
sqlite3 "$db" "CREATE TABLE team_targets (collective TEXT, bytes INTEGER, target_us REAL);
               INSERT INTO team_targets VALUES ('allreduce', 8, 20.0);"
printf "SELECT t.collective, t.target_us, min(m.median) AS us FROM team_targets t JOIN cases c\n  ON c.name LIKE t.collective || '/%%/' || t.bytes || '/%%' JOIN metrics m ON m.case_id = c.id;\n" > "$tmp/targets.sql"
run decide "8-byte all-reduce meets its target" --because "18.5 us < 20 us" --query "$tmp/targets.sql"; expect_rc 0
decision=$(grep -o 'decision [0-9a-f]\{8\}' "$tmp/out" | cut -c10-)
run audit; expect_rc 0
hasnt "NOT CHECKED"
sqlite3 "$db" "DROP TABLE team_targets"
run audit; expect_rc 0
has "targets.sql: cannot run on this database, of schema $(sqlite3 "$db" "PRAGMA user_version") (the error is above); its recorded rows are NOT CHECKED: a decision that supersedes it (xp decide --supersedes $decision --query FILE) with the query as this schema has it can be"
has "verdict: no evidence contradicted; its query NOT CHECKED (it no longer runs here)"
check "the error: one line" "xp: $tmp/targets.sql:1: no such table: team_targets" "$(cat "$tmp/err")"
finish
