#!/usr/bin/env bash
# Importing a big torch.profiler trace against merely decompressing it, side by side:
#   xp import torch-trace FILE   vs   zcat FILE > /dev/null   (median of 3 each, interleaved)
# and xp's peak resident memory, on the trace and on one twice as long (its events followed by
# a copy moved past them in time, ids and step numbers, made by trace_double.py, which needs
# python3 and about 4x the JSON in memory, into a temporary directory), to show that memory
# does not follow the trace's size.
# Targets: xp <= zcat (aim: half), RSS <= 64 MiB.
#   XP=build/xp XP_SHARED=../shared bash bench/trace_bench.sh [TRACE.json.gz]
set -u
: "${XP:?XP must name the xp binary}"
trace=${1:-${XP_SHARED:-../shared}/fixtures/torch/bigdecode_tp2_bs8_rank1.trace.json.gz}
if [ ! -f "$trace" ]; then
  echo "trace_bench: $trace not found (set XP_SHARED or pass a trace)"
  exit 0
fi
tmp=$(mktemp -d /tmp/xp-trace-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
have_time=0
[ -x /usr/bin/time ] && have_time=1

. "$(dirname "$0")/lib.sh"

# run_xp DB FILE: prints "microseconds peak_kib" for one import; xp's stderr in $tmp/xp.err
run_xp() {
  local t0 t1 kib=0
  t0=$(now_ns)
  if [ $have_time = 1 ]; then
    /usr/bin/time -o "$tmp/time" -f '%M' "$XP" --db "$1" import torch-trace "$2" > /dev/null 2> "$tmp/xp.err"
    kib=$(tail -n 1 "$tmp/time")
  else
    "$XP" --db "$1" import torch-trace "$2" > /dev/null 2> "$tmp/xp.err"
  fi
  t1=$(now_ns)
  echo "$(( (t1 - t0) / 1000 )) $kib"
}

run_zcat() {
  local t0 t1
  t0=$(now_ns)
  zcat "$1" > /dev/null
  t1=$(now_ns)
  echo $(( (t1 - t0) / 1000 ))
}

run_igzip() {
  local t0 t1
  t0=$(now_ns)
  igzip -dc "$1" > /dev/null
  t1=$(now_ns)
  echo $(( (t1 - t0) / 1000 ))
}

db="$tmp/bench.db"
"$XP" --db "$db" import torch-trace "$trace" > /dev/null 2>&1 || { echo "trace_bench: xp import failed"; exit 1; }
: > "$tmp/xp"; : > "$tmp/zcat"; : > "$tmp/igzip"; : > "$tmp/rss"
for i in 1 2 3; do
  run_zcat "$trace" >> "$tmp/zcat"
  read -r us kib < <(run_xp "$db" "$trace")
  echo "$us" >> "$tmp/xp"
  echo "$kib" >> "$tmp/rss"
  command -v igzip > /dev/null && run_igzip "$trace" >> "$tmp/igzip"
done
xp_us=$(median < "$tmp/xp")
zcat_us=$(median < "$tmp/zcat")
rss=$(sort -n "$tmp/rss" | tail -n 1)
json_bytes=$(zcat "$trace" | wc -c)

# Twice as long: the same events again after the last one ended, moved in time, External ids,
# correlations, flow ids and step numbers so that nothing is shared with the first half (a
# trace that holds copies of its own events keeps them, each half alike). What the import said
# of it is shown: its status, else its error.
double="python3 not found: not measured"
if command -v python3 > /dev/null; then
  read -r d_events d_shift < <(python3 "$(dirname "$0")/trace_double.py" "$trace" "$tmp/double.json.gz")
  read -r d_us d_kib < <(run_xp "$tmp/double.db" "$tmp/double.json.gz")
  d_bytes=$(zcat "$tmp/double.json.gz" | wc -c)
  echo "SELECT status FROM runs ORDER BY id DESC LIMIT 1;" > "$tmp/status.sql"
  d_ok=$("$XP" --db "$tmp/double.db" query "$tmp/status.sql" --format csv 2>/dev/null | tail -n 1)
  [ "$d_ok" = ok ] || d_ok="not imported: $(grep -v '^xp: warning:\|: [0-9]*%$' "$tmp/xp.err" | head -n 1)"
  double=$(printf '%8.1f MiB on %.1f MB of JSON, %d events (%s, %.3f s)' "$(div "$d_kib" 1024)" \
    "$(div "${d_bytes:-0}" 1000000)" "${d_events:-0}" "${d_ok:-?}" "$(div "${d_us:-0}" 1000000)")
fi

printf 'trace_bench: %s (%d MB gzip, %d MB JSON), median of 3, side by side\n' "$(basename "$trace")" \
  $(( $(stat -c %s "$trace") / 1000000 )) $(( json_bytes / 1000000 ))
printf '  %-34s %8.3f s\n' "zcat FILE > /dev/null" "$(div $zcat_us 1000000)"
[ -s "$tmp/igzip" ] && printf '  %-34s %8.3f s\n' "igzip -dc FILE > /dev/null" "$(div "$(median < "$tmp/igzip")" 1000000)"
printf '  %-34s %8.3f s   xp/zcat = %.2f (target <= 1, aim 0.5)\n' "xp import torch-trace FILE" \
  "$(div $xp_us 1000000)" "$(div $xp_us $zcat_us)"
if [ $have_time = 1 ]; then
  printf '  %-34s %8.1f MiB (limit 64 MiB)\n' "xp peak RSS" "$(div $rss 1024)"
  printf '  %-34s %s\n' "xp peak RSS, trace twice as long" "$double"
else
  echo "  peak RSS: /usr/bin/time not found"
fi
