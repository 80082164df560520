#!/usr/bin/env bash
# xp compare on runs with many cases: two imports of an nccl-tests sweep of N sizes (default
# 3000, so 6000 cases a run), each as text and --format json, xp side by side with
#   - XP_BEFORE=path/to/an/older/xp: that binary on the same database (before/after a change);
#   - XP_NO_INDEX=1: xp on a copy of the database without cases_by_name_run (schema 17), where
#     each case's lookup tests every case of the run (quadratic: about 70 s a run at the default
#     N, so not by default).
# The outputs must be byte-identical.
# Prints the median wall and CPU (user + sys) seconds of REPEATS interleaved runs and the ratios:
# on a shared machine the CPU time is the steadier figure.
# Usage: XP=build/xp [XP_BEFORE=old/xp] bash bench/compare_cases.sh [N] [REPEATS]
set -eu
XP=${XP:-xp}
n=${1:-3000} reps=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 > /dev/null || { echo "compare_cases: skipped: the sqlite3 CLI is missing"; exit 0; }
# A sweep: the header of a real all_reduce_perf output, then n sizes.
{
  echo "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809"
  echo "# Collective test starting: all_reduce_perf"
  echo "#"
  echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
  echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
  for ((i = 1; i <= n; i++)); do
    printf '%12d  %12d  bfloat16     sum      -1    18.54    0.00    0.00       0    17.25    0.00    0.00       0\n' \
      $((16 * i)) $((8 * i))
  done
  echo "# Avg bus bandwidth    : 0.00"
} > "$tmp/sweep.txt"
"$XP" --db "$tmp/with.db" import nccl-tests "$tmp/sweep.txt" > /dev/null
"$XP" --db "$tmp/with.db" import nccl-tests "$tmp/sweep.txt" > /dev/null
a=$(sqlite3 "$tmp/with.db" "SELECT uuid FROM runs ORDER BY id LIMIT 1")
b=$(sqlite3 "$tmp/with.db" "SELECT uuid FROM runs ORDER BY id DESC LIMIT 1")
# Variants: name, binary, database; the first is the one the others are measured against.
names=(xp) bins=("$XP") dbs=("$tmp/with.db")
if [ -n "${XP_BEFORE:-}" ]; then
  names+=(before) bins+=("$XP_BEFORE") dbs+=("$tmp/with.db")
fi
if [ "${XP_NO_INDEX:-0}" = 1 ]; then
  cp "$tmp/with.db" "$tmp/without.db"
  sqlite3 "$tmp/without.db" "DROP INDEX cases_by_name_run"
  names+=(no_index) bins+=("$XP") dbs+=("$tmp/without.db")
fi
. "$(dirname "$0")/lib.sh"
time_one() { # time_one VARIANT FORMAT: appends "wall cpu" to $tmp/t.VARIANT.FORMAT
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "${bins[$1]}" --db "${dbs[$1]}" compare "$a" "$b" --format "$2" > "$tmp/out.$1.$2" 2>&1; } 2>&1)
  echo "$t" | awk '{ print $1, $2 + $3 }' >> "$tmp/t.$1.$2"
}
for ((r = 0; r < reps; r++)); do # interleaved, so that a busy moment hits every variant alike
  for f in table json; do
    for v in "${!names[@]}"; do time_one "$v" "$f"; done
  done
done
for f in table json; do
  for v in "${!names[@]}"; do
    cmp -s "$tmp/out.0.$f" "$tmp/out.$v.$f" || { echo "compare_cases: ${names[$v]} --format $f: the output differs from xp's"; exit 1; }
  done
done
printf 'compare_cases: %d cases a run, median of %d runs, seconds wall / CPU\n' $((2 * n)) "$reps"
for f in table json; do
  line="  --format $f:"
  for v in "${!names[@]}"; do
    wall[v]=$(cut -d' ' -f1 < "$tmp/t.$v.$f" | median)
    cpu[v]=$(cut -d' ' -f2 < "$tmp/t.$v.$f" | median)
    line+=$(printf ' %s %.2f / %.2f' "${names[$v]}" "${wall[v]}" "${cpu[v]}")
    [ "$v" -gt 0 ] && line+=$(printf ' (%.1fx / %.1fx)' "$(div ${wall[v]} ${wall[0]})" \
      "$(div ${cpu[v]} ${cpu[0]})")
    [ "$v" -lt $((${#names[@]} - 1)) ] && line+=';'
  done
  echo "$line"
done
