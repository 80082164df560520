#!/bin/bash
# Concurrent writers: PROCS processes each record RUNS runs into one fresh database at the same
# time (through the real recorder, tests/unit/test_reliability.c), while readers list and query
# it in a loop. Every run must arrive whole, and no process may see "database is locked".
# Usage: concurrency.sh [PROCS [RUNS [probe|cli]]]   probe: the recorder driver (8 cases x 100
# samples per run); cli: each run is one `xp import vllm-bench` process, as users run it.
# Prints one line of figures; exit 1 on any loss.
set -u
PROCS=${1:-8}
RUNS=${2:-50}
MODE=${3:-probe}
. "$(dirname "$0")/lib.sh"
SRC=${XP_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RESULT=$SRC/tests/data/vllm_bench/serve_c8_detailed.json
if [ "$MODE" = cli ]; then
  "$XP" help kinds 2>/dev/null | grep -q 'xp import vllm-bench' && [ -r "$RESULT" ] ||
    { echo "concurrency (cli): skipped: this xp has no vllm-bench importer"; exit 77; }
  # One xp process per run; "run UUID ok" on stdout becomes the probe's "ok UUID".
  writer() { for _ in $(seq 1 "$RUNS"); do "$XP" --db "$DB" import vllm-bench "$RESULT"; done |
               awk '$1 == "run" && $3 == "ok" {print "ok " $2; fflush()}'; }
else
  writer() { "$PROBE" record "$DB" "$RUNS" 8 100 2000; }
fi

DB=$WORK/xp.db
cat > "$WORK/read.sql" <<'SQL'
SELECT count(*) AS runs FROM runs;
SELECT status, count(*) AS n, sum(n) AS samples FROM run_metrics GROUP BY status;
SQL

# Readers start first and keep going until the writers are done. The database does not exist
# yet, so their first attempts fail with "no such database" or, while the first writer creates
# it, "empty database": those are the documented answers and not counted; anything else (a lock
# error above all) is.
readers_done=$WORK/readers.stop
reader() {
  local i=0
  while [ ! -e "$readers_done" ]; do
    "$XP" --db "$DB" runs --limit 5 >/dev/null 2>>"$WORK/reader$1.err"
    "$XP" --db "$DB" query "$WORK/read.sql" >/dev/null 2>>"$WORK/reader$1.err"
    i=$((i + 2))
  done
  echo "$i" > "$WORK/reader$1.count"
}
reader 1 & r1=$!
reader 2 & r2=$!

start=$(date +%s.%N)
pids=()
for p in $(seq 1 "$PROCS"); do
  writer > "$WORK/w$p.out" 2> "$WORK/w$p.err" &
  pids+=($!)
done
failed_procs=0
for p in "${pids[@]}"; do wait "$p" || failed_procs=$((failed_procs + 1)); done
end=$(date +%s.%N)
touch "$readers_done"
wait "$r1" "$r2"

expected=$((PROCS * RUNS))
reported=$(cat "$WORK"/w*.out | grep -c '^ok ')
locked=$(cat "$WORK"/w*.err "$WORK"/reader*.err | grep -c -i -E 'locked|busy')
writer_errors=$(unexpected_stderr -h "$WORK"/w*.err | wc -l)
not_yet='no such database|empty database: no xp runs recorded yet'
reader_errors=$(cat "$WORK"/reader*.err | grep -v -E "$not_yet" | wc -l)
reads=$(( $(cat "$WORK/reader1.count") + $(cat "$WORK/reader2.count") ))
listed=$("$XP" --db "$DB" runs --status ok --limit 100000 --format csv | tail -n +2 | wc -l)
# Every UUID a writer saw committed is in the database, as ok.
awk '$1 == "ok" {print $2}' "$WORK"/w*.out | sort > "$WORK/reported.txt"
cat > "$WORK/uuids.sql" <<'SQL'
SELECT uuid FROM runs WHERE status = 'ok' ORDER BY uuid;
SQL
"$XP" --db "$DB" query "$WORK/uuids.sql" --format csv | tail -n +2 | sort > "$WORK/stored.txt"
missing=$(comm -23 "$WORK/reported.txt" "$WORK/stored.txt" | wc -l)
check=$("$PROBE" check "$DB") || fail "invariants broken after concurrent recording: $check"
secs=$(awk "BEGIN {printf \"%.1f\", $end - $start}")

echo "concurrency ($MODE): $PROCS writers x $RUNS runs: expected $expected, recorded ok $listed, lost $((expected - listed)), reported-but-missing $missing, 'locked'/'busy' messages $locked, other writer errors $writer_errors, failed writers $failed_procs; $reads reads beside them, reader errors $reader_errors; ${secs} s; check: $check"
[ "$listed" -eq "$expected" ] || fail "runs lost: $((expected - listed)) of $expected"
[ "$reported" -eq "$expected" ] || fail "writers reported $reported of $expected runs ok"
[ "$missing" -eq 0 ] || fail "$missing runs reported ok are not in the database"
[ "$locked" -eq 0 ] || fail "'database is locked' reached the user $locked times"
[ "$writer_errors" -eq 0 ] || { unexpected_stderr -h "$WORK"/w*.err | head -5; fail "writers printed errors"; }
[ "$reader_errors" -eq 0 ] || { cat "$WORK"/reader*.err | grep -v -E "$not_yet" | sort | uniq -c | head -5; fail "readers printed errors"; }
[ "$failed_procs" -eq 0 ] || fail "$failed_procs writer processes failed"
exit 0
