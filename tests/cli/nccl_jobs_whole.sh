#!/usr/bin/env bash
# An nccl-tests log of several jobs (the test run on each host, gathered by pdsh | dshbak) is
# recorded as a run per job, all committed together: a database fault while job 2 is recorded
# leaves no job's run ok, the import's first run marked failed with why, where job 1's run was
# committed ok on its own and the import left half recorded. The fault is injected by a trigger
# that refuses job 2's rows (its begin, then its cases).
set -u
. "$XP_SRC/tests/lib.sh"
need_sqlite3
sweep=$XP_SRC/tests/data/nccl/nccltests_sweep.txt
{ printf -- '----------------\nnode01\n----------------\n'; cat "$sweep"
  printf -- '----------------\nnode02\n----------------\n'
  sed -e 's/ on         vm / on        vm2 /' -e 's/^vm:/vm2:/' "$sweep"; } > "$tmp/two_jobs.txt"
runs() { # runs DB: each run's status, cases and error, in the order recorded
  sqlite3 "$1" "SELECT status || ' ' || (SELECT count(*) FROM cases c WHERE c.run_id = r.id) || ' ' ||
                coalesce(error, '-') FROM runs r ORDER BY id"
}
fault() { # fault DB TRIGGER-SQL: a database holding one import, with the trigger that injects the fault
  "$XP" --db "$1" import nccl-tests "$sweep" > /dev/null 2>&1
  sqlite3 "$1" "$2"
}

# Whole: two runs, each job's summary followed by its run's line, in job order.
"$XP" --db "$tmp/whole.db" import nccl-tests "$tmp/two_jobs.txt" > "$tmp/out" 2> "$tmp/err"
check "two jobs: exit" 0 $?
check "two jobs: runs" "ok 52 -
ok 52 -" "$(runs "$tmp/whole.db")"
check "two jobs: output in job order" "imported job 1 of 2
run ok
imported job 2 of 2
run ok" "$(sed -e 's/^imported .*, \(job [12] of 2\) in it.*/imported \1/' -e 's/^run [0-9a-f-]* /run /' "$tmp/out")"
"$XP" --db "$tmp/whole.db" verify > /dev/null 2>&1
check "two jobs: verify" 0 $?

# Job 2's cases refused: the import fails whole; job 1's run is the one failed run, its error naming job 2.
fault "$tmp/cases.db" "CREATE TRIGGER fault BEFORE INSERT ON cases WHEN (SELECT value FROM run_meta
  WHERE run_id = NEW.run_id AND key = 'nccl_tests.job') LIKE '2 of 2%' BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
"$XP" --db "$tmp/cases.db" import nccl-tests "$tmp/two_jobs.txt" > "$tmp/out" 2> "$tmp/err"
check "job 2's cases refused: exit" 3 $?
check "job 2's cases refused: one line" 1 "$(wc -l < "$tmp/err")"
grep -q '^xp: .*cases.db: .*injected fault' "$tmp/err" || { echo "FAIL: job 2's cases refused: stderr [$(cat "$tmp/err")]"; fail=1; }
check "job 2's cases refused: runs" "ok 52 -
failed 0 job 2 of 2 (no job's run is kept): $(sed 's/^xp: //' "$tmp/err")" "$(runs "$tmp/cases.db")"
check "job 2's cases refused: no summary, the run failed" "run failed" "$(sed 's/^run [0-9a-f-]* /run /' "$tmp/out")"
sqlite3 "$tmp/cases.db" "DROP TRIGGER fault"
"$XP" --db "$tmp/cases.db" verify > /dev/null 2>&1
check "job 2's cases refused: verify" 0 $?

# Job 2's run row refused (its begin): the same.
fault "$tmp/begin.db" "CREATE TRIGGER fault BEFORE INSERT ON runs WHEN (SELECT count(*) FROM runs) >= 2
  BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
"$XP" --db "$tmp/begin.db" import nccl-tests "$tmp/two_jobs.txt" > "$tmp/out" 2> "$tmp/err"
check "job 2's begin refused: exit" 3 $?
check "job 2's begin refused: one line" 1 "$(wc -l < "$tmp/err")"
check "job 2's begin refused: runs" "ok 52 -
failed 0 job 2 of 2 (no job's run is kept): $(sed 's/^xp: //' "$tmp/err")" "$(runs "$tmp/begin.db")"

# Each text is read once where it was read again to say its warnings: a row cut short is said once,
# at its line, in a log of one job and in the second job of two (by that job's run alone).
sed -e '/^ *2048 /s/^\(.\{40\}\).*/\1/' "$sweep" > "$tmp/cut_one.txt"
"$XP" --db "$tmp/cut_one.db" import nccl-tests "$tmp/cut_one.txt" > /dev/null 2> "$tmp/err"
check "one job, a row cut short: said once" "xp: warning: $tmp/cut_one.txt:147: result line cut short, left out" \
  "$(cat "$tmp/err")"
sed -e '/^node02$/,$ {/^ *2048 /s/^\(.\{40\}\).*/\1/}' "$tmp/two_jobs.txt" > "$tmp/cut_two.txt"
"$XP" --db "$tmp/cut_two.db" import nccl-tests "$tmp/cut_two.txt" > "$tmp/out" 2> "$tmp/err"
check "two jobs, job 2's row cut short: said once" "xp: warning: $tmp/cut_two.txt:326: result line cut short, left out" \
  "$(cat "$tmp/err")"
check "two jobs, job 2's row cut short: cases" "ok 52 -
ok 50 -" "$(runs "$tmp/cut_two.db")"
finish
