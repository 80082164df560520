#!/usr/bin/env bash
# NCCL proof on a host with two GPUs on NVLink, side by side with ../shared/anchors.md
# (nccl-tests 2.19.6, all_reduce_perf -g 2, bf16, 2x H200, NCCL 2.28.9):
#   1. 14,336 B all-reduce as one CUDA graph of 122 (all_reduce_perf -n 122 -G 50): per-collective
#      time (burst / 122) and busbw within 5%; 917,504 B likewise;
#   2. 1 MiB, 16 MiB and 256 MiB eager (all_reduce_perf -n 20): within 5%; 14,336 B eager -n 2000;
#   3. the 122-burst in graph mode within 10% of 122 x the anchor's per-collective graph time;
#   4. the same burst with NCCL_P2P_DISABLE=1: its time, and the transport xp recorded.
# nccl-tests' time is a mean over back-to-back launches, so xp's mean of time_us (= burst_us / burst
# over back-to-back bursts) is compared; the median is shown too. If nccl-tests' all_reduce_perf is
# found ($NCCL_TESTS_BIN, else on PATH) it is run here as well and shown as a second reference.
# Usage: XP=build/xp XP_SRC=. bash bench/nccl_anchor.sh   (prints "skipped" without two GPUs)
set -u
XP=${XP:-xp}
XP_SRC=${XP_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
if [ "$ngpu" -lt 2 ]; then
  echo "nccl_anchor: skipped: needs two GPUs (found $ngpu)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/bench.db"
sql() { # sql "SELECT ...": rows as CSV without the header
  printf '%s;\n' "$1" > "$tmp/q.sql"
  "$XP" --db "$db" query "$tmp/q.sql" --format csv | tail -n +2
}
run() { # run NAME SPEC-LINES...: record it; stop on failure
  local name=$1 t0=$SECONDS
  shift
  printf '%s\n' 'kind = "nccl_burst"' "name = \"$name\"" 'collectives = ["allreduce"]' 'dtypes = ["bf16"]' \
    'gpus = [0, 1]' "$@" > "$tmp/$name.toml"
  if ! "$XP" --db "$db" run "$tmp/$name.toml" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
    cat "$tmp/$name.out" "$tmp/$name.err"
    echo "nccl_anchor: xp run $name failed"
    exit 1
  fi
  echo "ran $name in $((SECONDS - t0)) s"
}

run graph 'sizes = [14336, 917504]' 'burst = 122' 'modes = ["graph"]' 'warmup = 5' 'iterations = 50'
run eager 'sizes = ["1M", "16M", "256M"]' 'burst = 20' 'modes = ["eager"]' 'warmup = 5' 'iterations = 20'
run eager2000 'sizes = [14336]' 'burst = 2000' 'modes = ["eager"]' 'warmup = 1' 'iterations = 10'
run p2p_off 'sizes = [14336]' 'burst = 122' 'modes = ["graph"]' 'warmup = 5' 'iterations = 50' \
  'env = { NCCL_P2P_DISABLE = "1" }'

# nccl-tests side by side, when it is here: "bytes mode time busbw" lines.
nt=${NCCL_TESTS_BIN:-$(command -v all_reduce_perf 2> /dev/null)}
: > "$tmp/nt"
if [ -n "$nt" ] && [ -x "$nt" ]; then
  nt_run() { # nt_run MODE ARGS...: out-of-place time and busbw per size
    local mode=$1
    shift
    NCCL_NVLS_ENABLE=0 "$nt" -g 2 -d bfloat16 "$@" 2> /dev/null |
      awk -v m="$mode" '/^ *[0-9]/ && NF >= 9 { print $1, m, $6, $8 }' >> "$tmp/nt"
  }
  nt_run graph -b 14336 -e 917504 -f 64 -n 122 -w 5 -G 50
  nt_run eager -b 1M -e 256M -f 16 -n 20 -w 5
  nt_run eager2000 -b 14336 -e 14336 -n 2000 -w 1
  NCCL_P2P_DISABLE=1 nt_run p2p_off -b 14336 -e 14336 -n 122 -w 5 -G 50
  echo "nccl-tests: $nt"
else
  echo "nccl-tests: all_reduce_perf not found (set NCCL_TESTS_BIN); comparing with anchors.md only"
fi

# xp's figures: run, bytes, mean and median time_us, busbw at the median, burst_us median.
sql "SELECT json_extract(r.spec_json, '$.name') AS run, json_extract(c.params, '$.bytes') AS bytes,
            printf('%.3f', t.mean) AS mean, printf('%.3f', t.median) AS median,
            printf('%.2f', (SELECT median FROM metrics WHERE case_id = c.id AND name = 'busbw_GBps')) AS busbw,
            printf('%.1f', (SELECT median FROM metrics WHERE case_id = c.id AND name = 'burst_us')) AS burst_median,
            printf('%.1f', (SELECT mean FROM metrics WHERE case_id = c.id AND name = 'burst_us')) AS burst_mean,
            printf('%.0f', (SELECT median FROM metrics WHERE case_id = c.id AND name = 'wrong')) AS wrong
     FROM runs r JOIN cases c ON c.run_id = r.id JOIN metrics t ON t.case_id = c.id AND t.name = 'time_us'" > "$tmp/xp"

echo
echo "device:  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $ngpu GPUs"
echo "software: $(sql "SELECT group_concat(key || ' ' || value, ', ') AS v FROM (SELECT DISTINCT key, value FROM run_meta
  WHERE key IN ('cuda.runtime', 'nccl.version', 'nccl.version_info', 'gpu.driver') ORDER BY key) AS v")"
echo "GPU pair: $(sql "SELECT value AS v FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE json_extract(r.spec_json, '$.name') = 'graph' AND key = 'nccl.path.0-1'")"
echo
# Reference figures: anchors.md, and the 1 MiB line of the fixture sweep (same host, -n 20).
cat > "$tmp/ref" <<'REF'
graph 14336 7.46 1.92 anchors.md
graph 917504 12.48 73.5 anchors.md
eager 1048576 22.30 47.02 fixture-sweep
eager 16777216 77.82 215.6 anchors.md
eager 268435456 887.1 302.6 anchors.md
eager2000 14336 17.45 0.82 anchors.md
REF
awk -F, -v NT="$tmp/nt" -v REF="$tmp/ref" '
  BEGIN {
    while ((getline l < REF) > 0) { split(l, a, " "); rt[a[1] " " a[2]] = a[3]; rb[a[1] " " a[2]] = a[4]; rs[a[1] " " a[2]] = a[5] }
    while ((getline l < NT) > 0) { split(l, a, " "); nt[a[2] " " a[1]] = a[3]; nb[a[2] " " a[1]] = a[4] }
    printf "%-34s %9s %9s %9s %13s %7s %7s  %s\n", "check", "xp mean", "xp median", "reference", "source", "ratio", "limit", "verdict"
  }
  function row(label, x, med, ref, src, lim,   r, v) {
    if (ref == "" || ref == 0) return
    r = x / ref; v = (r >= 1 - lim && r <= 1 + lim) ? "ok" : "MISS"
    printf "%-34s %9s %9s %9s %13s %7.3f %6.0f%%  %s\n", label, x, med, ref, src, r, lim * 100, v
  }
  { xp[$1 " " $2] = $0; t[$1 " " $2] = $3; m[$1 " " $2] = $4; bw[$1 " " $2] = $5; bm[$1 " " $2] = $6; bmean[$1 " " $2] = $7; wr[$1 " " $2] = $8 }
  END {
    n = split("graph 14336|graph 917504|eager 1048576|eager 16777216|eager 268435456|eager2000 14336", keys, "|")
    for (i = 1; i <= n; i++) {
      k = keys[i]; split(k, p, " "); lab = sprintf("%s %s B", p[1], p[2])
      row(lab " time_us", t[k], m[k], rt[k], rs[k], 0.05)
      row(lab " busbw GB/s", bw[k], "", rb[k], rs[k], 0.05)
      if (nt[k] != "") { row(lab " time_us", t[k], m[k], nt[k], "nccl-tests", 0.05); row(lab " busbw GB/s", bw[k], "", nb[k], "nccl-tests", 0.05) }
      if (wr[k] != "0") printf "%-34s #wrong %s\n", lab, wr[k]
    }
    k = "graph 14336"
    row("122-burst graph burst_us", bmean[k], bm[k], sprintf("%.1f", 122 * rt[k]), "122 x anchor", 0.10)
    if (nt[k] != "") row("122-burst graph burst_us", bmean[k], bm[k], sprintf("%.1f", 122 * nt[k]), "122 x n-t", 0.10)
    k = "p2p_off 14336"
    printf "%-34s %9s %9s\n", "P2P off 122-burst graph burst_us", bmean[k], bm[k]
    printf "%-34s %9s %9s\n", "P2P off per-collective time_us", t[k], m[k]
    if (nt[k] != "") printf "%-34s %9s %9s %9s %13s\n", "P2P off time_us vs nccl-tests", t[k], m[k], nt[k], "nccl-tests"
  }' "$tmp/xp"
echo
echo "P2P disabled, as recorded: $(sql "SELECT 'interconnect ' || coalesce(r.interconnect, '?') || '; transports ' ||
  coalesce((SELECT value FROM run_meta WHERE run_id = r.id AND key = 'nccl.transports'), '?') || '; ' ||
  coalesce((SELECT value FROM run_meta WHERE run_id = r.id AND key = 'nccl.interconnect_basis'), '') AS v
  FROM runs r WHERE json_extract(r.spec_json, '$.name') = 'p2p_off'")"
echo "P2P enabled, as recorded:  $(sql "SELECT 'interconnect ' || coalesce(r.interconnect, '?') || '; transports ' ||
  coalesce((SELECT value FROM run_meta WHERE run_id = r.id AND key = 'nccl.transports'), '?') AS v
  FROM runs r WHERE json_extract(r.spec_json, '$.name') = 'graph'")"
echo "algorithms: $(sql "SELECT group_concat(DISTINCT json_extract(params, '$.bytes') || ' B ' || json_extract(params, '$.algo') || '/' ||
  json_extract(params, '$.proto')) AS v FROM cases WHERE json_extract(params, '$.algo') IS NOT NULL")"
