#!/usr/bin/env bash
# xp import nccl-tests of a long text log: tests/data's 2-rank sweep repeated to ~100k lines (the
# same test run again and again into one log, each report read as its own), as one job, and as
# two jobs (pdsh | dshbak: a block per host, ~50k lines each, a run each). Median wall seconds
# of REPEATS interleaved imports (default 5), each into a fresh database, with
#   XP_BEFORE=path/to/an/older/xp: that binary beside xp (before/after a change), and the ratio.
# The two must record the same cases and figures.
# Usage: XP=build/xp [XP_BEFORE=old/xp] bash bench/nccl_log_bench.sh [LINES] [REPEATS]
set -eu
XP=${XP:-xp}
lines=${1:-100000} reps=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
sweep=$src/tests/data/nccl/nccltests_sweep.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/bench/lib.sh"

copies=$((lines / $(wc -l < "$sweep")))
for ((i = 0; i < copies; i++)); do cat "$sweep"; done > "$tmp/one_job.txt"
other_host() { sed -e 's/ on         vm / on        vm2 /' -e 's/^vm:/vm2:/' "$sweep"; }
{ printf -- '----------------\nnode01\n----------------\n'
  for ((i = 0; i < copies / 2; i++)); do cat "$sweep"; done
  printf -- '----------------\nnode02\n----------------\n'
  for ((i = 0; i < copies / 2; i++)); do other_host; done; } > "$tmp/two_jobs.txt"

bins=("$XP")
[ -n "${XP_BEFORE:-}" ] && bins+=("$XP_BEFORE")
[ ${#bins[@]} = 1 ] || command -v sqlite3 > /dev/null ||
  { echo "nccl_log_bench: skipped: the sqlite3 CLI is missing (it compares the two binaries' figures)"; exit 0; }
# What a database holds, figures and all: the same for both binaries.
recorded() {
  sqlite3 "$1" "SELECT c.name, m.name, m.n, m.median FROM runs r JOIN cases c ON c.run_id = r.id
                JOIN metrics m ON m.case_id = c.id ORDER BY r.id, c.seq, m.name"
}
for log in one_job two_jobs; do
  for ((r = 1; r <= reps; r++)); do
    for k in "${!bins[@]}"; do
      rm -f "$tmp/$k.db"*
      t0=$(now_ns)
      "${bins[$k]}" --db "$tmp/$k.db" import nccl-tests "$tmp/$log.txt" > /dev/null 2> "$tmp/err.$k" ||
        { echo "nccl_log_bench: $log: xp import failed: $(head -3 "$tmp/err.$k")" >&2; exit 1; }
      t1=$(now_ns)
      awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f\n", d / 1e9 }' >> "$tmp/t.$log.$k"
    done
  done
  a=$(median < "$tmp/t.$log.0")
  echo "nccl_log_bench: $log, $(wc -l < "$tmp/$log.txt") lines: xp import (median of $reps): xp ${a} s"
  if [ -n "${XP_BEFORE:-}" ]; then
    [ "$(recorded "$tmp/0.db")" = "$(recorded "$tmp/1.db")" ] ||
      { echo "nccl_log_bench: $log: the two recorded different figures" >&2; exit 1; }
    cmp -s "$tmp/err.0" "$tmp/err.1" || { echo "nccl_log_bench: $log: the two warned differently" >&2; exit 1; }
    b=$(median < "$tmp/t.$log.1")
    echo "nccl_log_bench: $log: before ${b} s; after/before $(div "$a" "$b")"
  fi
done
