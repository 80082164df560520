#!/usr/bin/env bash
# A file size limit (ulimit -f) reached while writing is a full disk by another name: one line
# that says so, exit 3 for the database (the run marked failed, none of its results kept) and
# exit 1 for an export or a report, no half-written file left. xp was killed by SIGXFSZ instead
# (exit 153, nothing on stderr, the run left 'running' and shown incomplete, an export's
# temporary file left beside its target); a report that could not be written said exit 2.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
trace=("$XP_SRC"/tests/data/trace/decode_tp2_bs1_rank{0,1}.trace.json.gz)
"$XP" --db "$db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "a database to write into" 0 $?

# The database and its -wal file are far below 100 KiB before the import and the trace's
# results far above: the limit is reached while they are written.
(ulimit -f 100 && exec "$XP" --db "$db" import torch-trace "${trace[@]}") > /dev/null 2> "$tmp/err"
check "import past the limit: exit" 3 $?
check "import past the limit: stderr lines" 1 "$(wc -l < "$tmp/err")"
grep -q "^xp: $db: .*size limit that ulimit -f sets" "$tmp/err" ||
  { echo "FAIL: import past the limit: stderr [$(cat "$tmp/err")] does not name the limit"; fail=1; }
# each run's status, its cases and the trace ranks it holds
runs_sql="SELECT r.status, (SELECT count(*) FROM cases c WHERE c.run_id = r.id),
  (SELECT count(*) FROM trace_ranks t WHERE t.run_id = r.id) FROM runs r ORDER BY r.id;"
check "the import is recorded failed and holds nothing" "ok,52,0|failed,0,0" "$(query "$runs_sql" | paste -sd'|')"
"$XP" --db "$db" verify > /dev/null 2>&1
check "verify after the failed import" 0 $?
"$XP" --db "$db" import torch-trace "${trace[@]}" > /dev/null 2>&1
check "the same import without the limit" 0 $?
check "... is recorded whole" "ok,52,0|failed,0,0|ok,0,2" "$(query "$runs_sql" | paste -sd'|')"

# An export of ~100 KiB under a 60 KiB limit (the database is read through its -shm file, 32 KiB)
(ulimit -f 60 && exec "$XP" --db "$db" export --out "$tmp/runs.json") > /dev/null 2> "$tmp/err"
check "export past the limit: exit" 1 $?
check "export past the limit: stderr" "xp: cannot write the export: File too large" "$(cat "$tmp/err")"
check "export past the limit leaves no file" "" "$(cd "$tmp" && ls -d runs.json* 2> /dev/null)"

# A report of ~38 KiB under a 33 KiB limit (the -shm file, 32 KiB, fits)
for _ in 1 2 3 4 5 6; do
  "$XP" --db "$db" import nccl-tests "$XP_SRC"/tests/data/nccl/nccltests_{sweep,graph}.txt > /dev/null 2>&1
done
(ulimit -f 33 && exec "$XP" --db "$db" report --out "$tmp/report.html") > /dev/null 2> "$tmp/err"
check "report past the limit: exit" 1 $?
check "report past the limit: stderr" "xp: $tmp/report.html: cannot write: File too large" "$(cat "$tmp/err")"
check "report past the limit leaves no file" "" "$(cd "$tmp" && ls -d report.html* 2> /dev/null)"
finish
