#!/bin/bash
# Crash consistency: kill -9 at a random moment, TRIALS times, then check the database.
#   crash_trials.sh record TRIALS   kill the recorder (tests/unit/test_reliability.c) while it
#                                   records runs back to back: creating the database, beginning
#                                   runs, writing results, committing
#   crash_trials.sh import TRIALS   kill `xp import torch-trace` on the big fixture at a random
#                                   point of its import (calibrated by one uninterrupted import)
# After every kill: PRAGMA integrity_check passes, no run that is not ok holds results, every ok
# run is whole (probe runs: exactly what they say; imports: the same rows as the uninterrupted
# import), `xp runs` works and shows the killed run, if its row existed, as incomplete.
# Prints one line of figures; exit 1 if any trial broke an invariant.
set -u
MODE=${1:?usage: crash_trials.sh record|import TRIALS}
TRIALS=${2:-100}
. "$(dirname "$0")/lib.sh"
DB=$WORK/xp.db
TRACE=${XP_SHARED:-${XP_SRC:-.}/../shared}/fixtures/torch/bigdecode_tp2_bs8_rank1.trace.json.gz

count_status() {
  "$XP" --db "$DB" runs --status "$1" --limit 1000000 --format csv 2>/dev/null | tail -n +2 | wc -l
}
incomplete_count() { count_status incomplete; }

case $MODE in
record)
  start_victim() { "$PROBE" record "$DB" 0 10 100 5000 > "$WORK/victim.out" 2>"$WORK/victim.err" & }
  same=""
  ;;
import)
  if ! "$XP" import --help 2>/dev/null | grep -q . || ! "$XP" help kinds 2>/dev/null | grep -q torch_trace; then
    echo "crash trials (import): skipped: this xp has no torch-trace importer"
    exit 77
  fi
  [ -r "$TRACE" ] || { echo "crash trials (import): skipped: $TRACE not found"; exit 77; }
  start_victim() { "$XP" --db "$DB" import torch-trace "$TRACE" > "$WORK/victim.out" 2>"$WORK/victim.err" & }
  # One uninterrupted import: the reference for "whole", and the length of the kill window.
  t0=$(date +%s%N)
  "$XP" --db "$DB" import torch-trace "$TRACE" >/dev/null 2>"$WORK/ref.err" || { cat "$WORK/ref.err"; fail "reference import failed"; }
  t1=$(date +%s%N)
  # Kill anywhere from start-up to a little past the uninterrupted duration, so that some
  # trials land in the final writes and commit, and a few after it.
  lo=0; hi=$(( (t1 - t0) / 1000000 * 6 / 5 + 50 ))
  same="--same-results"
  ;;
*) fail "unknown mode $MODE" ;;
esac

survived=0; mid_run=0; before_row=0; finished=0; broken=0
for trial in $(seq 1 "$TRIALS"); do
  if [ "$MODE" = record ] && [ $((trial % 10)) = 1 ]; then
    # Every tenth trial starts a fresh database and kills early, while it is being created
    # and migrated; the next trials then carry on with whatever that left.
    DB=$WORK/xp$trial.db
    lo=0; hi=60
  elif [ "$MODE" = record ]; then lo=5; hi=400; fi
  before=$(incomplete_count)
  ok_before=$(count_status ok)
  start_victim
  victim=$!
  sleep_ms "$(random_ms "$lo" "$hi")"
  kill -9 "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
  ok=1
  if ! out=$("$PROBE" check "$DB" $same 2>"$WORK/check.err"); then
    ok=0; echo "trial $trial: $out"; head -5 "$WORK/check.err"
  fi
  if ! "$XP" --db "$DB" runs --limit 3 >/dev/null 2>"$WORK/runs.err"; then
    # Killed before the first run created the database: nothing to list, nothing to break.
    grep -q -E 'no such database|empty database' "$WORK/runs.err" || { ok=0; cat "$WORK/runs.err"; }
  fi
  after=$(incomplete_count)
  if [ "$MODE" = record ]; then
    last=$(awk '$1 == "begun" {u = $2} END {print u}' "$WORK/victim.out")
    if [ -n "$last" ] && ! grep -q "^ok $last" "$WORK/victim.out"; then
      # The run it was recording must now read as incomplete, or as ok when the kill came
      # after its commit but before the recorder said so.
      status=$("$XP" --db "$DB" runs --limit 1000000 --format csv | awk -F, -v u="${last:0:8}" '$1 == u {print $3}')
      case $status in
      incomplete) mid_run=$((mid_run + 1)) ;;
      ok) finished=$((finished + 1)) ;;
      *) ok=0; echo "trial $trial: run $last was killed and shows as '$status', not incomplete" ;;
      esac
    elif [ "$after" -gt "$before" ]; then mid_run=$((mid_run + 1))
    else before_row=$((before_row + 1)); fi
  else
    if [ "$after" -gt "$before" ]; then mid_run=$((mid_run + 1))
    elif [ "$(count_status ok)" -gt "$ok_before" ]; then finished=$((finished + 1))
    else before_row=$((before_row + 1)); fi
  fi
  [ $((after - before)) -le 1 ] || { ok=0; echo "trial $trial: $((after - before)) new incomplete runs"; }
  if [ $ok = 1 ]; then survived=$((survived + 1)); else broken=$((broken + 1)); fi
done
final=$("$PROBE" check "$DB" $same 2>&1)
echo "crash trials ($MODE): $TRIALS kill -9 trials, $survived survived, $broken broken; killed mid-run (left incomplete) $mid_run, before its run row existed $before_row, after its commit $finished; last database: $final"
[ "$broken" -eq 0 ] || fail "$broken of $TRIALS crash trials broke an invariant"
exit 0
