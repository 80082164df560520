#!/usr/bin/env bash
# xp query as users of the sqlite3 shell and psql write queries: "-" reads the SQL from standard
# input (sqlite3 db < q.sql, psql -f -), named <stdin> in messages (xp decide --query - too); a
# shell line (.mode csv, .headers on) is refused naming the option that does its job, where
# SQLite said 'near ".": syntax error'; a file saved on Windows (BOM, CRLF), several statements
# and a trailing comment each answer.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
run import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_graph.txt"; expect_rc 0
stdin_query() { # stdin_query SQL ARGS...: xp query - with SQL on its standard input
  local q=$1
  shift
  printf '%s\n' "$q" | "$XP" --db "$db" query - "$@" > "$tmp/out" 2> "$tmp/err" && rc=0 || rc=$?
}
stdin_query "SELECT count(*) AS n FROM runs;" --format csv; expect_rc 0
[ "$(cat "$tmp/out")" = "$(printf 'n\n1')" ] || die "query -: the SQL from stdin, got: $(cat "$tmp/out" "$tmp/err")"
stdin_query "SELECT :k AS k;" --param k=7 --format csv; expect_rc 0
has 7
# an error names <stdin> and the line, as a file's would
stdin_query "$(printf 'SELECT 1;\nSELECT nope FROM runs;')"; expect_rc 2
[ "$(cat "$tmp/err")" = "xp: <stdin>:2: no such column: nope" ] || die "stdin error: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || die "no rows printed on an error: $(cat "$tmp/out")"
printf '%s\n' "-- if no rows: none here" "SELECT id FROM runs WHERE 0;" |
  "$XP" --db "$db" query - > "$tmp/out" 2> "$tmp/err"
has "xp: <stdin>: no rows: none here" "$tmp/err"
"$XP" --db "$db" query - < /dev/null > "$tmp/out" 2> "$tmp/err" && rc=0 || rc=$?
expect_rc 2; has "xp: <stdin>: no SQL statement" "$tmp/err"
# xp decide --query -: the query read from stdin, recorded as <stdin>
printf '%s\n' "SELECT count(*) AS n FROM runs;" |
  XP_AUTHOR=t "$XP" --db "$db" decide "count" --because "stdin" --query - > "$tmp/out" 2> "$tmp/err" && rc=0 || rc=$?
expect_rc 0; has "query <stdin>: 1 row"
run audit; expect_rc 0; has "query <stdin>"

# sqlite3 shell lines: one line naming the command and --format, exit 2, no rows
for dot in ".mode csv" ".headers on"; do
  printf '%s\n' "-- counts" "$dot" "SELECT 1;" > "$tmp/dot.sql"
  run query "$tmp/dot.sql"; expect_rc 2
  [ "$(wc -l < "$tmp/err")" = 1 ] || die "$dot: one line: $(cat "$tmp/err")"
  has "dot.sql:2: ${dot%% *} is a sqlite3 shell command, not SQL" "$tmp/err"
  has "--format" "$tmp/err"
  [ ! -s "$tmp/out" ] || die "$dot: nothing on stdout: $(cat "$tmp/out")"
done

# the schema and parameters as the shell lists and sets them: the SQL or option that does it
printf '%s\n' ".schema runs" > "$tmp/dot.sql"
run query "$tmp/dot.sql"; expect_rc 2
has "dot.sql:1: .schema is a sqlite3 shell command, not SQL: xp query runs SQL alone (the tables: SELECT name, sql FROM sqlite_schema)" "$tmp/err"
printf '%s\n' ".param set :tp 8" "SELECT :tp;" > "$tmp/dot.sql"
run query "$tmp/dot.sql"; expect_rc 2
has "(a parameter: --param NAME=VALUE)" "$tmp/err"

# Windows Notepad's UTF-8 (BOM, CRLF), two statements, a trailing comment: both answered
printf '\xef\xbb\xbfSELECT 1 AS a;\r\nSELECT 2 AS b; -- the second\r\n-- end\r\n' > "$tmp/win.sql"
run query "$tmp/win.sql" --format json; expect_rc 0
[ "$(tr -d ' \t\n' < "$tmp/out")" = '[[{"a":1}],[{"b":2}]]' ] || die "BOM/CRLF: $(cat "$tmp/out" "$tmp/err")"
echo "ok: query as sqlite3 users write it"
