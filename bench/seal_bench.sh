#!/usr/bin/env bash
# Sealing runs: xp merge of a database of N imported runs (default 300: tests/data's nccl-tests
# sweep, imported N times) into an empty one, which seals every merged run, and single imports,
# which seal one run each (30 into a new database, a thirtieth of their time). Median CPU seconds of REPEATS interleaved runs (default 3), with
#   XP_BEFORE=path/to/an/older/xp: that binary beside xp (before/after a change), and the ratio.
# The merged databases must hold the same seals (content_sha256) whichever xp merged them.
# Usage: XP=build/xp [XP_BEFORE=old/xp] bash bench/seal_bench.sh [N] [REPEATS]
set -eu
XP=${XP:-xp}
n=${1:-300} reps=${2:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
sweep=$src/tests/data/nccl/nccltests_sweep.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/bench/lib.sh"
command -v sqlite3 > /dev/null || { echo "seal_bench: skipped: the sqlite3 CLI is missing"; exit 0; }

# secs CMD...: CPU seconds (user + sys) of one run of CMD, the steadier figure on a shared
# machine (wall seconds where /usr/bin/time is missing); a failure stops the bench
secs() {
  local t0 t1
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" > /dev/null 2>&1 || { echo "seal_bench: failed: $*" >&2; exit 1; }
    awk '{ printf "%.4f\n", $1 + $2 }' "$tmp/time"
    return
  fi
  t0=$(now_ns)
  "$@" > /dev/null 2>&1 || { echo "seal_bench: failed: $*" >&2; exit 1; }
  t1=$(now_ns)
  awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f\n", d / 1e9 }'
}

bins=("$XP")
[ -n "${XP_BEFORE:-}" ] && bins+=("$XP_BEFORE")
# imports: 30 in a row into a new database, per binary, interleaved; a run's figure is a thirtieth
imports30='for ((i = 1; i <= 30; i++)); do "$0" --db "$1" import nccl-tests "$2" || exit 1; done'
for ((r = 1; r <= reps; r++)); do
  for k in "${!bins[@]}"; do
    rm -f "$tmp/i$k.db"*
    t=$(secs bash -c "$imports30" "${bins[$k]}" "$tmp/i$k.db" "$sweep")
    awk -v t="$t" 'BEGIN { printf "%.5f\n", t / 30 }' >> "$tmp/import.$k"
  done
done
for ((i = 1; i <= n; i++)); do "$XP" --db "$tmp/many.db" import nccl-tests "$sweep" > /dev/null; done
for ((r = 1; r <= reps; r++)); do
  for k in "${!bins[@]}"; do
    rm -f "$tmp/into$k.db"*
    secs "${bins[$k]}" --db "$tmp/into$k.db" merge "$tmp/many.db" >> "$tmp/merge.$k"
  done
done
seals() { sqlite3 "$1" "SELECT group_concat(content_sha256, ',') FROM (SELECT content_sha256 FROM runs ORDER BY uuid)"; }
a_import=$(median < "$tmp/import.0")
a_merge=$(median < "$tmp/merge.0")
echo "seal_bench: $n runs; xp merge of all of them (median of $reps): xp ${a_merge} s"
echo "seal_bench: xp import nccl-tests, one run (30 in a row, median of $reps): xp ${a_import} s"
if [ -n "${XP_BEFORE:-}" ]; then
  [ "$(seals "$tmp/into0.db")" = "$(seals "$tmp/into1.db")" ] ||
    { echo "seal_bench: the two merges sealed different contents" >&2; exit 1; }
  b_merge=$(median < "$tmp/merge.1")
  b_import=$(median < "$tmp/import.1")
  echo "seal_bench: merge: before ${b_merge} s, after ${a_merge} s, before/after $(div "$b_merge" "$a_merge")"
  echo "seal_bench: import: before ${b_import} s, after ${a_import} s, before/after $(div "$b_import" "$a_import")"
fi
