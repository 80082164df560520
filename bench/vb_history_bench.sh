#!/usr/bin/env bash
# xp import vllm-bench against a history of N imports by an xp before result digests (default
# 300: tests/data/vllm_bench/schema26_undigested_run0.sql.gz's run, its kept run=0.json, copied
# N times), each of whose kept files the import parses to find results recorded before
# (vb_history.c), the database at today's schema. The import: a sweep point's summary.json (its run=0.json's result, found there,
# and run 1's, recorded). Median CPU seconds of REPEATS interleaved imports (default 5), each into
# a fresh copy of the history, with
#   XP_BEFORE=path/to/an/older/xp: that binary beside xp (before/after a change), and the ratio.
# Both must record the same: the summary's run 1 alone, a warning naming an older run.
# Usage: XP=build/xp [XP_BEFORE=old/xp] bash bench/vb_history_bench.sh [N] [REPEATS]
set -eu
XP=${XP:-xp}
n=${1:-300} reps=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
summary=$src/tests/data/vllm_bench/formats/vllm_sweep_seqs8_summary.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/bench/lib.sh"
command -v sqlite3 > /dev/null || { echo "vb_history_bench: skipped: the sqlite3 CLI is missing"; exit 0; }

# the history: the one digest-less import, and N - 1 copies of it (each 'running' while its
# artifact is added, as the recorder writes a run, then 'ok')
gzip -dc "$src/tests/data/vllm_bench/schema26_undigested_run0.sql.gz" | sqlite3 "$tmp/history.db"
sqlite3 "$tmp/history.db" "
  WITH RECURSIVE k(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
  INSERT INTO runs (uuid, kind, origin, status, started_at, spec_json, spec_sha256)
    SELECT printf('00000000-0000-4000-8000-%012d', i), kind, origin, 'running', started_at, spec_json, spec_sha256
    FROM runs, k WHERE runs.id = 1;
  INSERT INTO artifacts SELECT r.id, a.name, a.media_type, a.encoding, a.size, a.sha256, a.data
    FROM runs r, artifacts a WHERE r.id > 1 AND a.run_id = 1;
  UPDATE runs SET status = 'ok', finished_at = started_at WHERE id > 1;"
# migrated to today's schema before it is timed (an import of another result), so the time is the
# import's own; the import that migrates measures the same on both binaries
"$XP" --db "$tmp/history.db" import vllm-bench "$src/tests/data/vllm_bench/formats/vllm_0.4.0.json" > /dev/null 2>&1 ||
  { echo "vb_history_bench: the history did not take an import" >&2; exit 1; }

secs() { # secs CMD...: CPU seconds (user + sys) of one run of CMD
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" || { echo "vb_history_bench: failed: $* $(cat "$tmp/err")" >&2; exit 1; }
  awk '{ printf "%.4f\n", $1 + $2 }' "$tmp/time"
}
bins=("$XP")
[ -n "${XP_BEFORE:-}" ] && bins+=("$XP_BEFORE")
for ((r = 1; r <= reps; r++)); do
  for k in "${!bins[@]}"; do
    cp "$tmp/history.db" "$tmp/h$k.db"
    secs "${bins[$k]}" --db "$tmp/h$k.db" import vllm-bench "$summary" >> "$tmp/t$k"
    grep -q 'imported already as run' "$tmp/err" || { echo "vb_history_bench: no earlier result found: $(cat "$tmp/err")" >&2; exit 1; }
    sqlite3 "$tmp/h$k.db" "SELECT count(*) FROM cases WHERE run_id = (SELECT max(id) FROM runs)" > "$tmp/cases$k"
  done
done
after=$(median < "$tmp/t0")
echo "vb_history_bench: import of a summary.json against $n digest-less imports: $after s CPU (median of $reps)"
if [ -n "${XP_BEFORE:-}" ]; then
  before=$(median < "$tmp/t1")
  cmp -s "$tmp/cases0" "$tmp/cases1" || { echo "vb_history_bench: the two binaries recorded differently" >&2; exit 1; }
  echo "vb_history_bench: before: $before s; before / after: $(div "$before" "$after")"
fi
