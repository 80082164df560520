#!/bin/bash
# Run every libFuzzer target of a fuzz build for SECONDS each and total the figures.
# Usage: tests/fuzz/run_all.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with -DXP_FUZZ=ON,
# as tests/reliability/sanitize.sh does). Exit 1 if any target crashed.
set -u
build=${1:?usage: run_all.sh BUILD_DIR [SECONDS]}
secs=${2:-${XP_FUZZ_SECONDS:-60}}
src=$(cd "$(dirname "$0")" && pwd)
total=0; crashed=0; n=0
for bin in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  line=$(XP_BUILD=$build bash "$src/fuzz_one.sh" "$bin" "$src" "$secs")
  rc=$?
  echo "$line" | head -1
  [ $rc -eq 1 ] && { crashed=$((crashed + 1)); echo "$line" | tail -n +2 | head -20; }
  execs=$(echo "$line" | head -1 | sed -n 's/.*: \([0-9]*\) executions.*/\1/p')
  total=$((total + ${execs:-0})); n=$((n + 1))
done
[ $n -gt 0 ] || { echo "fuzz: no fuzz_* targets in $build/tests/fuzz (configure it with -DXP_FUZZ=ON)"; exit 1; }
regressions=$(find "$src/regressions" -type f 2>/dev/null | wc -l)
echo "fuzz: $n targets x $secs s: $total executions, $crashed targets crashed; $regressions past crashes kept as regression inputs (tests/fuzz/regressions/)"
[ $crashed -eq 0 ]
