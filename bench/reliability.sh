#!/bin/bash
# Reliability figures (not a test: tests/cli/reliability_*.sh are the CI versions): concurrent
# writers, kill -9 crash trials (100 during recording, 100 during a big trace import),
# environment faults, the bad-input catalogue, security checks and, when a fuzz build exists
# (XP_FUZZ_BUILD, else build-asan beside the source, made by tests/reliability/sanitize.sh),
# a fuzzing session. Prints each part's figures, then a table of them last.
# Environment: XP, XP_SRC, XP_SHARED (as `cmake --build build --target bench` sets them);
# CRASH_TRIALS (100), FUZZ_SECONDS per target (60).
set -u
: "${XP:?}"
SRC=${XP_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
export XP XP_SRC=$SRC XP_SHARED=${XP_SHARED:-$SRC/../shared}
rel=$SRC/tests/reliability
trials=${CRASH_TRIALS:-100}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
part() { # TITLE COMMAND...: run, show its output, keep its last line for the table
  local title=$1; shift
  echo "== $title"
  "$@" 2>&1 | tee "$out.part"
  printf '%s\t%s\n' "$title" "$(grep -v '^\(ok \|skip \|FAIL \)' "$out.part" | tail -1)" >> "$out"
}
part "concurrent writers (recorder)" bash "$rel/concurrency.sh" 8 50 probe
part "concurrent writers (xp import)" bash "$rel/concurrency.sh" 8 50 cli
part "kill -9 while recording" bash "$rel/crash_trials.sh" record "$trials"
part "kill -9 while importing" bash "$rel/crash_trials.sh" import "$trials"
part "environment faults" bash "$rel/env_faults.sh"
part "bad inputs" bash "$SRC/tests/cli/bad_inputs.sh"
part "security" bash "$SRC/tests/cli/reliability_security.sh"
fuzz_build=${XP_FUZZ_BUILD:-$SRC/build-asan}
if ls "$fuzz_build"/tests/fuzz/fuzz_* >/dev/null 2>&1; then
  part "fuzzing" bash "$SRC/tests/fuzz/run_all.sh" "$fuzz_build" "${FUZZ_SECONDS:-60}"
else
  printf 'fuzzing\tno fuzz build at %s (run tests/reliability/sanitize.sh, or set XP_FUZZ_BUILD)\n' "$fuzz_build" >> "$out"
fi
rm -f "$out.part"
echo
echo "== reliability figures"
column -t -s "$(printf '\t')" "$out" 2>/dev/null || cat "$out"
