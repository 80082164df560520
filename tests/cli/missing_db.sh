#!/usr/bin/env bash
# Only a command that records creates a database. A dry run writes nothing, the database file
# included: `xp merge --dry-run` and `xp reclassify --dry-run` used to create an empty ./xp.db
# (or whatever a mistyped --db named) before rolling their transaction back, and so did
# `xp verify --seal`, which has nothing to seal there. Where there is no database they now say
# so (exit 3, as the reading commands do) and leave no file; the other dry runs open none.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
nccl="$XP_SRC/tests/data/nccl/nccltests_sweep.txt"

other="$tmp/other.db"
"$XP" --db "$other" import nccl-tests "$nccl" > /dev/null 2>&1
check "a database to merge from" 0 $?

missing="$tmp/missing.db"
one_line "merge --dry-run into no database" 3 "$missing: no such database" \
  "$XP" --db "$missing" merge "$other" --dry-run
check "merge --dry-run creates no database" "" "$(ls "$tmp" | grep missing)"
one_line "reclassify --dry-run on no database" 3 "$missing: no such database" \
  "$XP" --db "$missing" reclassify --dry-run
check "reclassify --dry-run creates no database" "" "$(ls "$tmp" | grep missing)"
one_line "verify --seal on no database" 3 "$missing: no such database" "$XP" --db "$missing" verify --seal
check "verify --seal creates no database" "" "$(ls "$tmp" | grep missing)"
"$XP" --db "$missing" import nccl-tests "$nccl" --dry-run > /dev/null 2>&1
check "import --dry-run exit" 0 $?
"$XP" --db "$missing" run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" --dry-run > /dev/null 2>&1
check "run --dry-run exit" 0 $?
check "import and run --dry-run create no database" "" "$(ls "$tmp" | grep missing)"

# XP_DB="~/results/xp.db", quoted (or from a systemd unit, a .env file): no shell expanded the ~,
# and "its folder does not exist" left the user looking at a folder that does; the line says why
(cd "$tmp" && XP_DB='~/results/xp.db' "$XP" import nccl-tests "$nccl" > /dev/null 2> "$tmp/err")
check "XP_DB with a quoted ~: exit" 3 $?
check "XP_DB with a quoted ~: the line" \
  'xp: ~/results/xp.db: cannot create the database: its folder does not exist (a leading ~ is the shell'"'"'s, not expanded where quoted: write $HOME)' \
  "$(cat "$tmp/err")"
one_line "--db with a quoted ~, reading" 3 "no such database (record a run first, or pass --db) (a leading ~ is the shell's" \
  "$XP" --db '~/results/xp.db' runs

# With a database there, the dry runs still answer (and still write nothing).
"$XP" --db "$missing" merge "$other" > /dev/null 2>&1
check "merge creates the database" 0 $?
"$XP" --db "$missing" merge "$other" --dry-run > "$tmp/out" 2>&1
check "merge --dry-run on a database exit" 0 $?
grep -q "^dry run (nothing written): from .*: 0 runs merged, 1 already here" "$tmp/out" ||
  { echo "FAIL: merge --dry-run output: $(cat "$tmp/out")"; fail=1; }
"$XP" --db "$missing" reclassify --dry-run > "$tmp/out" 2>&1
check "reclassify --dry-run on a database exit" 0 $?
grep -q "dry run, nothing written" "$tmp/out" || { echo "FAIL: reclassify --dry-run output: $(cat "$tmp/out")"; fail=1; }

# Nor does a dry run migrate an older xp's database (experiments/results/xp.db, schema 6): both
# opened it to write, which migrated it to this schema, which that xp then refuses as newer.
cp "$XP_SRC/experiments/results/xp.db" "$tmp/schema6.db"
sha6=$(sha256sum < "$tmp/schema6.db")
"$XP" --db "$tmp/schema6.db" merge "$other" --dry-run > "$tmp/out" 2>&1
check "merge --dry-run on schema 6 exit" 0 $?
grep -q "^dry run (nothing written): from .*: 1 run merged" "$tmp/out" ||
  { echo "FAIL: merge --dry-run on schema 6 output: $(cat "$tmp/out")"; fail=1; }
check "merge --dry-run leaves schema 6 as it was" "$sha6" "$(sha256sum < "$tmp/schema6.db")"
cp "$XP_SRC/experiments/results/xp.db" "$tmp/schema6.db"
"$XP" --db "$tmp/schema6.db" reclassify --dry-run > "$tmp/out" 2>&1
check "reclassify --dry-run on schema 6 exit" 0 $?
grep -q "^kernels: [1-9][0-9]* in the database" "$tmp/out" ||
  { echo "FAIL: reclassify --dry-run on schema 6 output: $(cat "$tmp/out")"; fail=1; }
check "reclassify --dry-run leaves schema 6 as it was" "$sha6" "$(sha256sum < "$tmp/schema6.db")"
finish
