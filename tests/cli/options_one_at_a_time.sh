#!/usr/bin/env bash
# A second word where a command takes one (a run, a spec, a help topic) is refused naming both,
# each cut as every error cuts a value (xp_value_cut): `xp show a b` said "one run at a time"
# without which two, and a long second word filled the line, the help hint cut away.
set -u
. "$XP_SRC/tests/lib.sh"
spec="$XP_SRC/experiments/allreduce_burst.toml"
long=$(printf 'x%.0s' $(seq 5000))
one_line "show a b" 2 "show: one run at a time (got 3f2a and 9b1c) (see \`xp show --help\`)$" "$XP" --db "$db" show 3f2a 9b1c
one_line "run two specs" 2 "run: one spec at a time (got $spec and b.toml) (see \`xp run --help\`)$" "$XP" --db "$db" run "$spec" b.toml
one_line "help two topics" 2 "help: one topic at a time (got runs and show) (see \`xp help --help\`)$" "$XP" help runs show
one_line "show, a long second" 2 "show: one run at a time (got 3f2a and x\{60\}\.\.\. (5000 bytes)) (see \`xp show --help\`)$" \
  "$XP" --db "$db" show 3f2a "$long"
one_line "run, a long second" 2 "run: one spec at a time (got $spec and x\{60\}\.\.\. (5000 bytes)) (see \`xp run --help\`)$" \
  "$XP" --db "$db" run "$spec" "$long"
one_line "help, a long second" 2 "help: one topic at a time (got runs and x\{60\}\.\.\. (5000 bytes)) (see \`xp help --help\`)$" \
  "$XP" help runs "$long"
# query, audit, merge and rerun said "one ... at a time" naming neither (and audit's unknown option
# named none meant)
one_line "query two files" 2 "query: one query file at a time (got a.sql and b.sql) (see \`xp query --help\`)$" \
  "$XP" --db "$db" query a.sql b.sql
one_line "audit two decisions" 2 "audit: one decision at a time (got 3f2a and 9b1c) (see \`xp audit --help\`)$" \
  "$XP" --db "$db" audit 3f2a 9b1c
one_line "merge two databases" 2 "merge: one database at a time (got a.db and b.db) (see \`xp merge --help\`)$" \
  "$XP" --db "$db" merge a.db b.db
one_line "rerun two runs" 2 "rerun: one run at a time (got 3f2a and 9b1c) (see \`xp rerun --help\`)$" \
  "$XP" --db "$db" rerun 3f2a 9b1c
one_line "audit --byrun" 2 "audit: unknown option --byrun: did you mean --by-run? (see \`xp audit --help\`)$" \
  "$XP" --db "$db" audit --byrun
[ ! -e "$db" ] || { echo "FAIL: $db was created"; fail=1; }
finish
