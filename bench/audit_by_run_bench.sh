#!/usr/bin/env bash
# xp audit --by-run with no DECISION: every query-based decision's runs since taken out of a
# scratch copy of the database one by one. A history of N runs (default 300: tests/data's
# nccl-tests sweep imported N times) after D decisions on a query (default 5), audited whole;
# median wall seconds of REPEATS interleaved runs (default 3), with
#   XP_BEFORE=path/to/an/older/xp: that binary beside xp (before/after a change), and the ratio.
# The two must print the same audit. Measured (s30, 2 shared cores): 300 runs, 5 decisions, 16 MiB,
# 77 s with a copy of the database a decision; one copy for the audit, each decision's take-outs
# rolled back to a savepoint, 90 s: the copy is not the cost, the take-outs and queries are.
# s31: the copy's 2 MiB page cache was (2.1 million reads of its temporary file a decision): sized
# to hold it, 23.1 s against 143.5 s before (machine loaded); each query's figures kept from one
# decision to the next (the runs since an older decision begin with a newer one's), 6.7 s against
# 76.6 s before, and 8.8 s against 32.1 s with the cache alone; every audit printed the same.
# s31, BY_RUN_MAX (100 newest runs attributed a decision) against 1000, same machine, 5 decisions:
# 300 runs 2.6 s against 4.4 s; 1000 runs (N=1000) 18 s (median of 3: 15.4, 18.7, 22.5) against
# 84 s (80.4, 84.4, 94.6) and 20 MB of audit against 2 MB: each run taken out costs a query over
# the whole copy, so the limit stays (run the two builds apart: their audits differ by design).
# Usage: XP=build/xp [XP_BEFORE=old/xp] bash bench/audit_by_run_bench.sh [N] [D] [REPEATS]
set -eu
XP=${XP:-xp}
n=${1:-300} decisions=${2:-5} reps=${3:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
sweep=$src/tests/data/nccl/nccltests_sweep.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/bench/lib.sh"

db=$tmp/history.db
"$XP" --db "$db" import nccl-tests "$sweep" > /dev/null
printf '%s\n' "SELECT c.name, count(*) AS runs, max(m.median) AS slowest FROM cases c JOIN metrics m ON m.case_id = c.id" \
  "WHERE m.name = 'time_us' GROUP BY c.name ORDER BY c.name;" > "$tmp/q.sql"
for ((i = 1; i <= decisions; i++)); do
  "$XP" --db "$db" decide "decision $i" --because "bench" --query "$tmp/q.sql" > /dev/null
done
for ((i = 1; i <= n; i++)); do "$XP" --db "$db" import nccl-tests "$sweep" > /dev/null; done
bins=("$XP")
[ -n "${XP_BEFORE:-}" ] && bins+=("$XP_BEFORE")
for ((r = 1; r <= reps; r++)); do
  for k in "${!bins[@]}"; do
    t0=$(now_ns)
    "${bins[$k]}" --db "$db" audit --by-run > "$tmp/out.$k" 2> /dev/null || [ $? -eq 1 ] ||
      { echo "audit_by_run_bench: xp audit failed" >&2; exit 1; }
    t1=$(now_ns)
    awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f\n", d / 1e9 }' >> "$tmp/t.$k"
  done
done
grep -q 'by run:' "$tmp/out.0" || { echo "audit_by_run_bench: nothing attributed: $(head -20 "$tmp/out.0")" >&2; exit 1; }
a=$(median < "$tmp/t.0")
echo "audit_by_run_bench: $n runs, $decisions query decisions, $(du -k "$db" | cut -f1) KiB; xp audit --by-run (median of $reps): xp ${a} s"
if [ -n "${XP_BEFORE:-}" ]; then
  cmp -s "$tmp/out.0" "$tmp/out.1" || { echo "audit_by_run_bench: the two printed different audits" >&2; exit 1; }
  b=$(median < "$tmp/t.1")
  echo "audit_by_run_bench: before ${b} s; after/before $(div "$a" "$b")"
fi
