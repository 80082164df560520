#!/usr/bin/env bash
# A warning is one line, as an error is, where a name in it holds a newline (a query file
# $'q\nx.sql' with an unused --param): it was printed as two lines, the second without "xp: ".
# (Errors: tests/bad_inputs/cli-file-name-with-newline, db-name-with-newline.)
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
"$XP" --db "$db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "a database to query" 0 $?
q=$'q\nx.sql'
echo "SELECT count(*) FROM runs;" > "$tmp/$q"
"$XP" --db "$db" query "$tmp/$q" --param unused=1 > /dev/null 2> "$tmp/err"
check "exit" 0 $?
check "the warning" "xp: warning: $tmp/q x.sql: --param unused: the query has no :unused (a misspelt name?)" "$(cat "$tmp/err")"
finish
