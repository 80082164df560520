#!/usr/bin/env bash
# nccl_burst on real GPUs (up to 2, one process): every collective in both modes and both
# placements, bf16 and fp32 (and fp8 on compute capability 9+), each verified on its first and
# last iterations; what NCCL chose recorded with the run; asking for more GPUs than exist.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
n=$((ngpu < 2 ? ngpu : 2))
gpus=$(seq -s, 0 $((n - 1)))
dtypes='"bf16", "fp32"'
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | cut -d. -f1)
[ "${cc:-0}" -ge 9 ] && dtypes="$dtypes, \"fp8_e4m3\", \"fp8_e5m2\""
cat > "$tmp/all.toml" <<EOF
kind = "nccl_burst"
name = "every collective"
collectives = ["allreduce", "allgather", "reducescatter", "broadcast", "alltoall"]
dtypes = [$dtypes]
sizes = [4096, "1M"]
burst = 8
modes = ["eager", "graph"]
placements = ["out_of_place", "in_place"]
warmup = 2
iterations = 5
gpus = [$gpus]
root = $((n - 1))
timeout_s = 120
EOF
"$XP" --db "$db" run "$tmp/all.toml" > "$tmp/out" 2> "$tmp/err"
check "run exit status" 0 $?
[ $fail = 0 ] || { cat "$tmp/out" "$tmp/err"; exit 1; }
ndt=$(echo "$dtypes" | tr ',' '\n' | grep -c .)
check "cases measured" $((5 * ndt * 2 * 2 * 2 - ndt * 2 * 2)) "$(sql "SELECT count(*) FROM cases WHERE status = 'ok'")"
check "alltoall in place skipped" $((ndt * 2 * 2)) "$(sql "SELECT count(*) FROM cases WHERE status = 'skipped'")"
check "nothing wrong" 0 "$(sql "SELECT count(*) FROM metrics WHERE name = 'wrong' AND median != 0")"
check "every case verified" 0 "$(sql "SELECT count(*) FROM cases c WHERE status = 'ok' AND NOT EXISTS
  (SELECT 1 FROM metrics WHERE case_id = c.id AND name = 'wrong')")"
check "5 samples each" 0 "$(sql "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id = c.id
  WHERE c.status = 'ok' AND m.name IN ('burst_us', 'time_us') AND m.n != 5")"
check "burst = 8 x time" 0 "$(sql "SELECT count(*) FROM cases c
  JOIN metrics b ON b.case_id = c.id AND b.name = 'burst_us' JOIN metrics t ON t.case_id = c.id AND t.name = 'time_us'
  WHERE abs(b.median - 8 * t.median) > 1e-6 * b.median")"
check "positive times" 0 "$(sql "SELECT count(*) FROM metrics WHERE name = 'time_us' AND NOT (min > 0)")"
check "gpu_count" "$n" "$(sql "SELECT gpu_count FROM runs")"
check "NCCL log kept" 1 "$(sql "SELECT count(*) FROM artifacts WHERE name = 'nccl_info.log' AND size > 0")"
check "topology kept" 1 "$(sql "SELECT count(*) FROM artifacts WHERE name = 'nccl_topo.xml' AND size > 0")"
check "NVLS off" 0 "$(sql "SELECT value FROM run_meta WHERE key = 'env.NCCL_NVLS_ENABLE' AND source = 'env'")"
check "TUNING only while probing" 1 "$(sql "SELECT count(*) FROM run_meta WHERE key = 'nccl.tuning_log' AND value LIKE 'probe only%'")"
algo=$(sql "SELECT count(*) > 0 FROM cases WHERE json_extract(params, '$.algo') IS NOT NULL")
if [ "$n" -ge 2 ]; then
  check "algorithm recorded" 1 "$algo"
  check "interconnect detected" 1 "$(sql "SELECT count(*) FROM run_meta WHERE key = 'interconnect' AND source = 'detected'")"
  check "transports" 1 "$(sql "SELECT count(*) FROM run_meta WHERE key = 'nccl.transports'")"
  check "rank spread" 1 "$(sql "SELECT count(*) > 0 FROM metrics WHERE name = 'rank_spread_us'")"
else # one rank: NCCL copies locally and chooses no algorithm, so none may be claimed
  check "no algorithm on one rank" 0 "$algo"
fi
grep -qE '^allreduce +bf16 +1048576 +graph +out_of_place ' "$tmp/out" || { echo "FAIL: summary table"; cat "$tmp/out"; fail=1; }

# More GPUs than the host has: exit 4, said plainly.
cat > "$tmp/many.toml" <<EOF
kind = "nccl_burst"
sizes = [1024]
gpus = [$(seq -s, 0 "$ngpu")]
EOF
"$XP" --db "$db" run "$tmp/many.toml" > "$tmp/out" 2> "$tmp/err"
check "too many GPUs: exit" 4 $?
grep -q "needs $((ngpu + 1)) GPUs but only $ngpu" "$tmp/err" || { echo "FAIL: too many GPUs message"; cat "$tmp/err"; fail=1; }
finish
