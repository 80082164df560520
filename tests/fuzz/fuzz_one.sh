#!/bin/bash
# Run one libFuzzer target for a while over its seed corpus and say what it did.
# Usage: fuzz_one.sh FUZZER_BINARY FUZZ_SOURCE_DIR [SECONDS]
# Seconds default to $XP_FUZZ_SECONDS, else 20. The committed corpus is only read: new inputs go
# to a scratch folder. A crash (or a broken property, a leak, a timeout) fails the run; its
# input is kept under $XP_BUILD/fuzz-crashes/TARGET/ to be turned into a regression test
# (tests/fuzz/regressions/TARGET/, replayed by tests/unit/test_fuzz_replay.c in every build).
# Prints: "fuzz TARGET: N executions in S s, corpus A -> B inputs, crashes C".
set -u
bin=$1
src=$2
secs=${3:-${XP_FUZZ_SECONDS:-20}}
name=$(basename "$bin")
target=${name#fuzz_}
seeds=$src/corpus/$target
regressions=$src/regressions/$target
work=$(mktemp -d "${TMPDIR:-/tmp}/xp-fuzz-$target.XXXXXX")
trap 'rm -rf "$work"' EXIT
keep=${XP_BUILD:-${TMPDIR:-/tmp}}/fuzz-crashes/$target
crashes=$work/crashes
mkdir -p "$work/corpus" "$crashes"
dirs=("$work/corpus" "$seeds")
[ -d "$regressions" ] && dirs+=("$regressions")
# -error_exitcode: libFuzzer's default, 77, is what ctest reads as "skipped" (and what the targets
# exit with, from LLVMFuzzerInitialize, when this build lacks their importer).
"$bin" -max_total_time="$secs" -error_exitcode=99 -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$crashes/" "${dirs[@]}" > "$work/log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "fuzz $target: skipped: $(grep '^fuzz:' "$work/log" | head -1)"
  exit 77
fi
execs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$work/log")
took=$(awk '/^Done [0-9]+ runs in/ {print $5}' "$work/log")
seeds_n=$(ls "$seeds" 2>/dev/null | wc -l)
final=$(( $(ls "$work/corpus" | wc -l) + seeds_n ))
found=$(ls "$crashes" | wc -l)
echo "fuzz $target: ${execs:-0} executions in ${took:-?} s, corpus $seeds_n -> $final inputs, crashes $found"
if [ $rc -ne 0 ]; then
  grep -E 'ERROR|fuzz: property|SUMMARY|Test unit written|^    #[0-9]' "$work/log" | head -30
  mkdir -p "$keep" && cp "$crashes"/* "$keep"/ 2>/dev/null
  echo "fuzz $target: FAILED (exit $rc); inputs kept in $keep"
  exit 1
fi
exit 0
