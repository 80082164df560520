#!/usr/bin/env bash
# Does sampling the GPUs' state (harness/gpu_watch.c: NVML read on a thread of its own) change what
# a run measures? The same runs with the sampler off (XP_GPU_WATCH_MS=0), at its default (50 ms)
# and at 1 ms, interleaved, REPS times each: a 122 x 14,336 B all-reduce burst and 1 MiB, eager and
# as a CUDA graph (nccl_burst on every visible GPU: the most launch- and latency-bound timing xp
# does), and a 256 MiB copy and a 4096^3 bf16 matmul (ceilings). Prints, per case, the median over
# runs of each run's median time_us, and each sampled setting's ratio to off.
# Usage: XP=build/xp bash bench/gpu_watch_bench.sh [REPS]   (prints "skipped" without a GPU)
set -u
XP=${XP:-xp}
REPS=${1:-5}
. "$(dirname "$0")/lib.sh"
if [ "$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')" -lt 1 ]; then
  echo "gpu_watch_bench: skipped: no GPU"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/bench.db"
sql() { printf '%s;\n' "$1" > "$tmp/q.sql"; "$XP" --db "$db" query "$tmp/q.sql" --format csv | tail -n +2; }
cat > "$tmp/burst.toml" <<'TOML'
kind = "nccl_burst"
collectives = ["allreduce"]
dtypes = ["bf16"]
sizes = [14336, 1048576]
burst = 122
modes = ["eager", "graph"]
placements = ["out_of_place"]
warmup = 5
iterations = 50
TOML
printf 'kind = "ceilings"\ncopy_mib = 256\nmatmul_size = 4096\nsamples = 20\n' > "$tmp/ceil.toml"
: > "$tmp/runs"
for rep in $(seq "$REPS"); do
  for ms in 0 50 1; do
    for spec in burst ceil; do
      XP_GPU_WATCH_MS=$ms "$XP" --db "$db" run "$tmp/$spec.toml" > /dev/null 2> "$tmp/err" ||
        { echo "gpu_watch_bench: $spec at $ms ms failed:"; cat "$tmp/err"; exit 1; }
      echo "$(sql "SELECT max(id) FROM runs") $ms" >> "$tmp/runs"
    done
  done
done
sql "SELECT r.id, c.name, m.median FROM metrics m JOIN cases c ON c.id = m.case_id JOIN runs r ON r.id = c.run_id
     WHERE m.name = 'time_us' AND c.status = 'ok'" | tr ',' ' ' > "$tmp/times"
printf 'gpu_watch_bench: %d runs a setting, median of run medians (time_us); ratio to sampler off\n' "$REPS"
printf '  %-44s %12s %12s %8s %12s %8s\n' case off_us 50ms_us ratio 1ms_us ratio
for c in $(awk '{ print $2 }' "$tmp/times" | sort -u); do
  for ms in 0 50 1; do
    awk -v c="$c" -v ms="$ms" 'NR == FNR { mode[$1] = $2; next } $2 == c && mode[$1] == ms { print $3 }' \
      "$tmp/runs" "$tmp/times" | median > "$tmp/m$ms"
  done
  off=$(cat "$tmp/m0") on=$(cat "$tmp/m50") fast=$(cat "$tmp/m1")
  printf '  %-44s %12.3f %12.3f %8.3f %12.3f %8.3f\n' "$c" "$off" "$on" "$(div "$on" "$off")" "$fast" "$(div "$fast" "$off")"
done
sql "SELECT 'readings: ' || group_concat(DISTINCT value) FROM run_meta WHERE key = 'gpu_state.sampler'"
