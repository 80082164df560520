#!/usr/bin/env bash
# The GPUs' state sampled through NVML while a measured run runs (harness/gpu_watch.c): a
# ceilings run records its GPU's SM and memory clocks, clock-event reasons, temperature and power
# as run_meta gpu_state.0.*, read every 5 ms here, and the figures agree with the GPU: clocks
# above 0 and within the peak CUDA reports, minimum <= median <= maximum, a temperature a GPU can
# have. XP_GPU_WATCH_MS=0 records that sampling was off and no figures; a value that is not a
# number of milliseconds is said and the default (50 ms) taken. xp compare leaves each run's own
# readings out of the differences it lists.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
printf 'kind = "ceilings"\ncopy_mib = 256\nmatmul_size = 2048\nsamples = 5\ntop_n = 2\n' > "$tmp/ceil.toml"
last="(SELECT max(id) FROM runs)"
meta() { sql "SELECT value FROM run_meta WHERE run_id = $last AND key = '$1'"; }

XP_GPU_WATCH_MS=5 gpu_run "$tmp/ceil.toml"
check "ceilings run" 0 $?
check "sampler" '"nvml, every 5 ms"' "$(meta gpu_state.sampler)"
samples=$(meta gpu_state.0.samples) samples_run=$(meta gpu_state.0.samples_run)
[ "${samples:-0}" -ge 2 ] || { echo "FAIL: samples: $samples"; fail=1; }
# the figures are those read while xp timed (each timed loop is read at its start and end, and
# the ceilings run times several): fewer than the whole run's readings, which include the set-up
check "scope" timed "$(meta gpu_state.0.scope)"
[ "${samples_run:-0}" -gt "${samples:-0}" ] || { echo "FAIL: timed $samples of $samples_run readings"; fail=1; }
min=$(meta gpu_state.0.sm_clock_mhz_min) med=$(meta gpu_state.0.sm_clock_mhz_median)
max=$(meta gpu_state.0.sm_clock_mhz_max) peak=$(sql "SELECT clock_mhz FROM run_gpus WHERE run_id = $last AND idx = 0")
echo "samples $samples timed of $samples_run, SM clock $min/$med/$max MHz (CUDA's peak $peak), memory $(meta gpu_state.0.mem_clock_mhz_min) MHz," \
  "$(meta gpu_state.0.temperature_c_max) C, $(meta gpu_state.0.power_w_max) W, events $(meta gpu_state.0.clock_events)"
[ "${min:-0}" -gt 0 ] && [ "$min" -le "$med" ] && [ "$med" -le "$max" ] || { echo "FAIL: SM clocks $min $med $max"; fail=1; }
# NVML's SM clock and CUDA's peak (cudaDevAttrClockRate) are the same clock: within 5%
[ "${max:-0}" -le $(( ${peak:-0} * 105 / 100 )) ] || { echo "FAIL: SM clock $max above CUDA's peak $peak"; fail=1; }
mem=$(meta gpu_state.0.mem_clock_mhz_min)
[ "${mem:-0}" -gt 0 ] || { echo "FAIL: memory clock $mem"; fail=1; }
temp=$(meta gpu_state.0.temperature_c_max)
[ "${temp:-0}" -gt 0 ] && [ "$temp" -lt 130 ] || { echo "FAIL: temperature $temp"; fail=1; }
limit=$(meta gpu_state.0.power_limit_w) default=$(meta gpu_state.0.power_limit_default_w)
[ "${limit:-0}" -gt 0 ] && [ "${default:-0}" -gt 0 ] || { echo "FAIL: power limits $limit $default"; fail=1; }
echo "power limit $limit W (default $default W)"
events=$(meta gpu_state.0.clock_events)
[ -n "$events" ] || { echo "FAIL: no clock events recorded"; fail=1; }
share=$(meta gpu_state.0.slowdown_share)
case "$share" in 0.000|0.*|1.000) ;; *) echo "FAIL: slowdown share $share"; fail=1 ;; esac
# a slowed GPU is warned of, naming what to look at; a run without slowdown says nothing of it
if [ "$share" = 0.000 ]; then
  grep -q 'slowed its clocks' "$tmp/err" && { echo "FAIL: warned without a slowdown"; fail=1; }
else
  grep -q 'xp: warning: GPU 0 slowed its clocks during the run' "$tmp/err" || { echo "FAIL: slowdown not warned"; fail=1; }
fi

XP_GPU_WATCH_MS=0 gpu_run "$tmp/ceil.toml"
check "run, sampler off" 0 $?
check "sampler off" 'off (XP_GPU_WATCH_MS=0)' "$(meta gpu_state.sampler)"
check "no figures when off" 0 "$(sql "SELECT count(*) FROM run_meta WHERE run_id = $last AND key LIKE 'gpu_state.0.%'")"

XP_GPU_WATCH_MS=5ms gpu_run "$tmp/ceil.toml"
check "run, bad period" 0 $?
grep -q 'xp: warning: XP_GPU_WATCH_MS=5ms is not a number of milliseconds (0 to 3600000): sampling every 50 ms' \
  "$tmp/err" || { echo "FAIL: bad XP_GPU_WATCH_MS not said"; cat "$tmp/err"; fail=1; }
check "default period" '"nvml, every 50 ms"' "$(meta gpu_state.sampler)"
# at 50 ms the timed loops (a few ms each) fall between periodic readings: each is still read at
# its start and end, so the figures remain the timed ones
check "timed at the default period" timed "$(meta gpu_state.0.scope)"

# xp compare of two sampled runs: each run's own clocks, temperature and power are not
# differences between them; the sampler's period is
first=$(sql "SELECT uuid FROM runs ORDER BY id LIMIT 1") third=$(sql "SELECT uuid FROM runs ORDER BY id DESC LIMIT 1")
"$XP" --db "$db" compare "$first" "$third" > "$tmp/cmp" 2>&1
grep -E 'temperature_c_max|sm_clock_mhz|power_w_max|power_limit|\.samples|\.scope' "$tmp/cmp" && { echo "FAIL: compare lists readings"; fail=1; }
grep -q 'gpu_state.sampler' "$tmp/cmp" || { echo "FAIL: compare leaves out the sampler's period"; cat "$tmp/cmp"; fail=1; }
finish
