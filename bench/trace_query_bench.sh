#!/usr/bin/env bash
# xp query and xp report on histories of N two-rank trace jobs (default 100 and 300: tests/data/trace's
# sample, imported N times with its baseTimeNanoseconds moved an hour each, so each is a job of
# its own, --set model=m$((i%5)) tp=2 batch=$((i%4+1))), against an xp before a change:
#   queries/decode_gap_analysis.sql for one configuration (model m1, batch 2: a twentieth of the
#   jobs), allreduce_share.sql for tp 2, bottleneck_by_config.sql (every configuration), xp report
# Median CPU seconds (user + sys) and peak RSS of REPEATS interleaved runs (default 5) each, and
# the answers compared byte for byte (a rewrite must not change them).
#   XP=build/xp XP_BEFORE=old/xp [XP_BEFORE_SRC=old/checkout] bash bench/trace_query_bench.sh [N[,N...]] [REPEATS]
# XP_BEFORE_SRC: where the older xp's queries/ are (default: this checkout's). A query whose time
# grows with the whole history, not with the runs it selects, shows it between the sizes.
set -eu
: "${XP:?XP must name the xp binary}"
sizes=${1:-100,300} reps=${2:-5}
n=$(tr , '\n' <<< "$sizes" | sort -n | tail -1)  # the files of the largest; a smaller history imports the first
src=$(cd "$(dirname "$0")/.." && pwd)
before_src=${XP_BEFORE_SRC:-$src}
tmp=$(mktemp -d /tmp/xp-trace-query-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$src/bench/lib.sh"
[ -x /usr/bin/time ] || { echo "trace_query_bench: skipped: /usr/bin/time is missing"; exit 0; }

# the jobs' files: the sample's two ranks, an hour later per job (the text edited, not parsed:
# fast enough for 300)
for i in $(seq 1 "$n"); do
  for r in 0 1; do
    gzip -dc "$src/tests/data/trace/decode_tp2_bs1_rank$r.trace.json.gz" |
      sed "s/\"baseTimeNanoseconds\": 1790857026000000000/\"baseTimeNanoseconds\": $((1790857026000000000 + i * 3600000000000))/" |
      gzip -1 > "$tmp/job$i-rank$r.trace.json.gz"
  done
done
history() { # history XP DB FROM TO: jobs FROM..TO imported by XP into DB
  for i in $(seq "$3" "$4"); do
    "$1" --db "$2" import torch-trace "$tmp/job$i-rank0.trace.json.gz" "$tmp/job$i-rank1.trace.json.gz" \
      --set model=m$((i % 5)) --set tp=2 --set batch=$((i % 4 + 1)) --set interconnect=nvlink > /dev/null 2>&1 ||
      { echo "trace_query_bench: import $i failed" >&2; exit 1; }
  done
}

params_decode_gap_analysis="--param tp=2 --param model=m1 --param batch=2 --param interconnect=any"
params_allreduce_share="--param tp=2 --param interconnect=any"
params_bottleneck_by_config=""
measure() { # measure SIDE NAME ARGS...: "cpu_s rss_kib" of one run, its output kept as SIDE-NAME.out
  local side=$1 name=$2 bin=$XP db=$tmp/after.db
  shift 2
  [ "$side" = before ] && bin=$XP_BEFORE db=$tmp/before.db
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$bin" --db "$db" "$@" > "$tmp/$side-$name.out" 2> "$tmp/err" ||
    { echo "trace_query_bench: $side $name failed: $(cat "$tmp/err")" >&2; exit 1; }
  awk '{ printf "%.4f %d\n", $1 + $2, $3 }' "$tmp/time"
}
run_case() { # run_case NAME ARGS-AFTER... -- ARGS-BEFORE...: medians side by side
  local name=$1 after=() before=() side=after
  shift
  for a in "$@"; do
    if [ "$a" = -- ]; then side=before; continue; fi
    if [ $side = after ]; then after+=("$a"); else before+=("$a"); fi
  done
  : > "$tmp/a" && : > "$tmp/b"
  for _ in $(seq 1 "$reps"); do
    measure after "$name" "${after[@]}" >> "$tmp/a"
    [ -n "${XP_BEFORE:-}" ] && measure before "$name" "${before[@]}" >> "$tmp/b"
  done
  local ca ra cb rb
  ca=$(cut -d' ' -f1 "$tmp/a" | median) ra=$(cut -d' ' -f2 "$tmp/a" | median)
  if [ -n "${XP_BEFORE:-}" ]; then
    cb=$(cut -d' ' -f1 "$tmp/b" | median) rb=$(cut -d' ' -f2 "$tmp/b" | median)
    local same=identical
    # the report's page names its database and when and by which xp it was made: those aside
    if ! cmp -s <(sed -E 's/<p class="meta">[^<]*<\/p>//' "$tmp/before-$name.out") \
                <(sed -E 's/<p class="meta">[^<]*<\/p>//' "$tmp/after-$name.out"); then
      same=DIFFERENT
    fi
    printf '%4d jobs  %-22s before %7.3f s %7.1f MiB   after %7.3f s %7.1f MiB   x%s faster   answers %s\n' "$jobs" "$name" \
      "$cb" "$(div "$rb" 1024)" "$ca" "$(div "$ra" 1024)" "$(div "$cb" "$ca")" "$same"
  else
    printf '%4d jobs  %-22s %7.3f s %7.1f MiB\n' "$jobs" "$name" "$ca" "$(div "$ra" 1024)"
  fi
}
echo "trace_query_bench: $sizes two-rank trace jobs, median of $reps (CPU seconds, peak RSS)"
jobs=0
for size in $(tr , '\n' <<< "$sizes" | sort -n); do
  # the history grown to size, made by the older xp where given, read by both: the same runs (their
  # UUIDs are in the report), so the answers compare byte for byte; a newer xp reads it as it reads
  # any history of an older schema (the views of its later migrations as TEMP views, nothing written)
  history "${XP_BEFORE:-$XP}" "$tmp/after.db" $((jobs + 1)) "$size"
  cp "$tmp/after.db" "$tmp/before.db"
  jobs=$size
  for q in decode_gap_analysis allreduce_share bottleneck_by_config; do
    params=params_$q
    # shellcheck disable=SC2086
    run_case "$q" query "$src/queries/$q.sql" ${!params} -- query "$before_src/queries/$q.sql" ${!params}
  done
  run_case report report --out - -- report --out -
done
