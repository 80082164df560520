#!/usr/bin/env bash
# A database an older xp made, read by this one: a query needing a table a later migration
# adds fails with one line that says why and what migrates it (it said "no such table" alone,
# after a warning line that every read of the file printed, answered or not); reading commands
# leave the file at its schema; xp verify --seal migrates it, and the same query then answers.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
command -v sqlite3 > /dev/null || { echo "skipped: no sqlite3"; exit 77; }
# schema 30, as xp of that time created it: the migrations up to it, marked as xp marks a file
for f in "$XP_SRC"/schema/0[0-2][0-9]_*.sql "$XP_SRC"/schema/030_*.sql; do cat "$f"; echo; done > "$tmp/old.sql"
printf 'PRAGMA application_id = %d; PRAGMA user_version = 30;\n' 0x78704442 >> "$tmp/old.sql"
sqlite3 "$db" < "$tmp/old.sql" || die "making a schema-30 database"
printf 'INSERT INTO runs(uuid, kind, origin, status, started_at, spec_json, spec_sha256)'\
' VALUES (%s, %s, %s, %s, %s, %s, %s);\n' "'0123456789abcdef'" "'torch_trace'" "'imported'" "'ok'" \
  "'2026-12-01T10:00:00.000Z'" "'{}'" "'x'" | sqlite3 "$db" || die "a run"
# a query on what schema 30 has: it answers, nothing said on stderr
printf 'SELECT substr(uuid, 1, 8) AS run, measured_at FROM runs JOIN run_measured ON run_id = id;\n' > "$tmp/ok.sql"
run query "$tmp/ok.sql"; expect_rc 0
has 2026-12-01T10:00:00
[ ! -s "$tmp/err" ] || die "nothing on stderr, got: $(cat "$tmp/err")"
run runs; expect_rc 0
has 01234567
[ ! -s "$tmp/err" ] || die "xp runs: nothing on stderr, got: $(cat "$tmp/err")"
# one needing schema 31's table: one line, located, with the schema and the command that migrates it
run query "$XP_SRC/queries/comm_overlap.sql"; expect_rc 2
check "stderr lines" 1 "$(wc -l < "$tmp/err")"
has "comm_overlap.sql:" "$tmp/err"
has "no such table: trace_step_comm" "$tmp/err"
has "the database is of schema 30, an older xp's; this xp reads schema" "$tmp/err"
has "xp verify --seal, or any recording command, migrates it" "$tmp/err"
# xp report draws what schema 30 holds and says which chart needs a later one, on the page
run report --out "$tmp/r.html"; expect_rc 0
[ ! -s "$tmp/err" ] || die "report: nothing on stderr, got: $(cat "$tmp/err")"
has "written by an xp before schema 31" "$tmp/r.html"
# reading left the file as it was
check "schema left as it was" 30 "$(sqlite3 "$db" "PRAGMA user_version")"
"$XP" --db "$db" verify --seal > /dev/null 2>&1 || die "verify --seal: exit $?"
[ "$(sqlite3 "$db" "PRAGMA user_version")" -gt 30 ] || die "verify --seal left schema 30"
run query "$XP_SRC/queries/comm_overlap.sql"; expect_rc 0
# a misspelt table on a database of today's schema: SQLite's words alone
printf 'SELECT * FROM no_table_of_xp;\n' > "$tmp/bad.sql"
run query "$tmp/bad.sql"; expect_rc 2
has "no such table: no_table_of_xp" "$tmp/err"
hasnt "older xp" "$tmp/err"
finish
