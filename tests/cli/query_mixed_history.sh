#!/usr/bin/env bash
# The shipped queries over a history that mixes what users have: two GPUs' nccl-tests logs, the
# same files imported again, kernel_variant runs of two models whose shapes share a name, and
# serving results imported twice. Each answer is checked against figures worked out here from
# the files themselves (the logs' rows), not against the query's own output.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/nccl"
pro="NVIDIA RTX PRO 6000 Blackwell Server Edition"

# allreduce_burst.sql: an H200 pair's log and an RTX PRO 6000 pair's, neither showing its
# interconnect (no NCCL INFO lines: '?'), are two rows of 14336 B, each its own GPU's time, where
# they were one row averaging them (7.49 and 14.98 us: 11.235).
sed -e "s/NVIDIA H200/$pro/" -e 's/  7.49 / 14.98 /' "$data/nccltests_graph.txt" > "$tmp/pro.txt"
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" > /dev/null 2>&1 || { echo "FAIL: import H200"; fail=1; }
"$XP" --db "$db" import nccl-tests "$tmp/pro.txt" > /dev/null 2>&1 || { echo "FAIL: import RTX PRO 6000"; fail=1; }
"$XP" --db "$db" import nccl-tests "$tmp/pro.txt" > /dev/null 2>&1 # the same file again: once
burst() { # burst: the 14336 B graph out-of-place rows: gpu, runs, time_us
  "$XP" --db "$db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv |
    awk -F, '$3 == 14336 && $4 == "graph" && $5 == "out_of_place" { print $8 "|" $12 "|" $15 }'
}
check "allreduce_burst: a row per GPU, each its own time" \
  "NVIDIA H200|1|7.49 $pro|1|14.98" "$(burst | sort | tr '\n' ' ' | sed 's/ $//')"

# regressions.sql: the same files imported again are one measurement, dated when first
# imported. An H200 log A, a later log B 2 us slower at 14336 B, then A again (xp rerun, a
# corrected label): B against A is +26.7%, worse; the re-import was the newest and compared
# with A and B together (-11.8%, better).
reg() { # reg DB METRIC CASE: newest|older_median|older_runs|change_pct|verdict of that series
  "$XP" --db "$1" query "$XP_SRC/queries/regressions.sql" --format json |
    python3 -c 'import json, sys
for r in json.load(sys.stdin):
    if r["metric"] == sys.argv[1] and r["case_name"] == sys.argv[2]:
        print("|".join(str(r[k]) for k in ("newest", "older_median", "older_runs", "change_pct", "verdict")))' "$2" "$3"
}
sed 's/  7.49 /  9.49 /' "$data/nccltests_graph.txt" > "$tmp/later.txt"
for f in "$data/nccltests_graph.txt" "$tmp/later.txt" "$data/nccltests_graph.txt"; do
  "$XP" --db "$tmp/reg.db" import nccl-tests "$f" > /dev/null 2>&1 || { echo "FAIL: import $f"; fail=1; }
done
want=$(awk 'BEGIN { printf "9.49|7.49|1|%.1f|worse", 100 * (9.49 - 7.49) / 7.49 }')
check "regressions: a log imported again counts once, dated by its first import" "$want" \
  "$(reg "$tmp/reg.db" time_us allreduce/bf16/14336/graph/out_of_place)"
# A vLLM result of 10 June (its TTFTs 200 ms more), the one of 11 June, then that one again:
# the 11 June result against the 10 June one alone.
vdata="$XP_SRC/tests/data/vllm_bench"
sed -e 's/"date": "20250611-101500"/"date": "20250610-101500"/' \
    -e 's/"\(mean\|median\|p99\)_ttft_ms": \([0-9.]*\)/"\1_ttft_ms": 2\2/g' "$vdata/serve_c8_detailed.json" > "$tmp/june10.json"
for f in "$tmp/june10.json" "$vdata/serve_c8_detailed.json" "$vdata/serve_c8_detailed.json"; do
  "$XP" --db "$tmp/vreg.db" import vllm-bench "$f" > /dev/null 2>&1 || { echo "FAIL: import $f"; fail=1; }
done
want=$(python3 -c 'import json, sys
n, o = (json.load(open(f))["mean_ttft_ms"] for f in sys.argv[1:])
print("%s|%s|1|%.1f|better" % (round(n, 6), round(o, 6), round(100 * (n - o) / o, 1)))' \
  "$vdata/serve_c8_detailed.json" "$tmp/june10.json")
got=$(reg "$tmp/vreg.db" mean_ttft_ms "$(db="$tmp/vreg.db" query "SELECT name FROM cases LIMIT 1")" |
  python3 -c 'import sys
f = sys.stdin.read().strip().split("|")
print("|".join([str(round(float(f[0]), 6)), str(round(float(f[1]), 6))] + f[2:]) if len(f) == 5 else "")')
check "regressions: a vLLM result imported again counts once" "$want" "$got"

# allreduce_share.sql with interconnect=any: an H200 job over NVLink and one over PCIe (P2P
# through the host: another job, its kernels 1.5 times as long) are a row each, each as the
# query for its own interconnect answers it, where they were one row of 2 runs.
sample_job 0 1 "$tmp/nv" "NVIDIA H200"
sample_job 2 1.5 "$tmp/pc" "NVIDIA H200"
for j in nv:nvlink pc:pcie; do
  "$XP" --db "$tmp/share.db" import torch-trace "$tmp/${j%%:*}-r0.json.gz" "$tmp/${j%%:*}-r1.json.gz" \
    --set model=Kimi-K2.5 --set tp=2 --set batch=1 --set "interconnect=${j#*:}" > /dev/null 2>&1 ||
    { echo "FAIL: import $j"; fail=1; }
done
share() { # share INTERCONNECT: each row's interconnect|runs|allreduce_pct|transfer_only_pct
  "$XP" --db "$tmp/share.db" query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 --param "interconnect=$1" \
    --format json | python3 -c 'import json, sys
for r in json.load(sys.stdin):
    print("|".join(str(r.get(k)) for k in ("interconnect", "runs", "allreduce_pct", "transfer_only_pct")))'
}
check "allreduce_share any: a row per interconnect, as each alone" "$(share nvlink; share pcie)" "$(share any)"
check "allreduce_share: the two jobs differ (transfer only)" 2 "$(share any | cut -d'|' -f4 | sort -u | wc -l)"

# regressions.sql: a later log of the same sweep run with rccl-tests' -A 1 (or NCCL's TUNING
# lines), whose rows name the algorithm and protocol, 2 us slower at 14336 B: +26.7% worse,
# where its cases were a series of their own and nothing was listed. rccl-tests' common.cu
# prints the three columns (PRINT("%8s  %8s  %10d", ...)), as test_nccl_tests_parse reads them.
awk '/#wrong *$/ { print $0 "     algo     proto   nchannels"; next }
     /^ +[0-9]/ { print $0 "    Ring        LL           2"; next } { print }' "$data/nccltests_graph.txt" |
  sed 's/  7.49 /  9.49 /' > "$tmp/tuned.txt"
for f in "$data/nccltests_graph.txt" "$tmp/tuned.txt"; do
  "$XP" --db "$tmp/tuned.db" import nccl-tests "$f" > /dev/null 2>&1 || { echo "FAIL: import $f"; fail=1; }
done
want=$(awk 'BEGIN { printf "9.49|7.49|1|%.1f|worse", 100 * (9.49 - 7.49) / 7.49 }')
check "regressions: NCCL's algorithm named in one log only, still one series" "$want" \
  "$(reg "$tmp/tuned.db" time_us allreduce/bf16/14336/graph/out_of_place)"

# decode_gap_analysis.sql takes the interconnect in any case, as allreduce_share.sql does:
# --param interconnect=NVLink measures the NVLink job as nvlink does, where it found no trace.
gap() { # gap INTERCONNECT [MODEL]: the measured decode step and its interconnect
  "$XP" --db "$tmp/share.db" query "$XP_SRC/queries/decode_gap_analysis.sql" --param "model=${2:-Kimi-K2.5}" --param tp=2 \
    --param batch=1 --param "interconnect=$1" --format json |
    python3 -c 'import json, sys
print(" ".join("%s|%s" % (r["measured_us"], r["interconnect"]) for r in json.load(sys.stdin) if r["component"] == "decode step"))'
}
check "decode_gap: the NVLink job alone" 1 "$(gap nvlink | wc -w)"
check "decode_gap: NVLink as nvlink" "$(gap nvlink)" "$(gap NVLink)"
check "decode_gap: Any as any" "$(gap any)" "$(gap Any)"
# ... and the model too, as a gemm spec takes it against its model file
check "decode_gap: kimi-k2.5 as Kimi-K2.5" "$(gap nvlink)" "$(gap nvlink kimi-k2.5)"

finish
