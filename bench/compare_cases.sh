#!/usr/bin/env bash
# xp compare on runs with many cases: two imports of an nccl-tests sweep of N sizes (default
# 3000, so 6000 cases a run), compared with cases_by_name_run (schema 17) and on a copy of the
# same database without it, side by side; prints both medians and their ratio. Without that
# index each case's lookup tested every case of the run (quadratic in cases).
# Usage: XP=build/xp bash bench/compare_cases.sh [N] [REPEATS]
set -eu
XP=${XP:-xp}
n=${1:-3000} reps=${2:-3}
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
cp "$tmp/with.db" "$tmp/without.db"
sqlite3 "$tmp/without.db" "DROP INDEX cases_by_name_run"
a=$(sqlite3 "$tmp/with.db" "SELECT uuid FROM runs ORDER BY id LIMIT 1")
b=$(sqlite3 "$tmp/with.db" "SELECT uuid FROM runs ORDER BY id DESC LIMIT 1")
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
time_one() { local t0 t1; t0=$(date +%s.%N); "$XP" --db "$1" compare "$a" "$b" > "$tmp/out.$2" 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
for ((r = 0; r < reps; r++)); do # interleaved
  time_one "$tmp/with.db" with >> "$tmp/t.with"
  time_one "$tmp/without.db" without >> "$tmp/t.without"
done
cmp -s "$tmp/out.with" "$tmp/out.without" || { echo "compare_cases: the two outputs differ"; exit 1; }
w=$(median < "$tmp/t.with") wo=$(median < "$tmp/t.without")
printf 'compare_cases: %d cases a run, %d runs each: with the index %.2f s, without %.2f s, ratio %.1fx\n' \
  $((2 * n)) "$reps" "$w" "$wo" "$(echo "$wo / $w" | bc -l)"
