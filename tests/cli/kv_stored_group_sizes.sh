#!/usr/bin/env bash
# xp rerun of a kernel_variant run whose stored spec lacks group_sizes (its variants quantized):
# refused with the way on that every other stored-spec refusal gives (spec_stored_refused.sh),
# where it said only that the key was missing, which no one can add to a stored spec. A spec
# file given to xp run is edited instead: no such advice. No GPU: --dry-run plans and stops.
set -u
. "$XP_SRC/tests/lib.sh"
grep -v '^group_sizes' "$XP_SRC/experiments/w4a16_variants.toml" > "$tmp/kv.toml"
one_line "xp run without group_sizes" 2 "kv.toml:1: group_sizes: required key is missing (the w4a16 variants are quantized)$" \
  "$XP" --db "$db" run --dry-run "$tmp/kv.toml"
# a stored run to hold the spec, as an older xp might have stored it
"$XP" --db "$db" import torch-trace "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz" \
  --set model=Kimi-K2.5 > /dev/null 2>&1
check "xp import" 0 $?
spec='{"kind": "kernel_variant", "model": "Kimi-K2.5", "tp": 8, "dtype": "bf16", "quantization": "int4",
  "family": "w4a16", "m": [1], "warmup": 1, "samples": 3, "shapes": [{"name": "down", "n": 7168, "k": 256}]}'
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_update; UPDATE runs SET kind = 'kernel_variant', spec_json = '$spec'"
run=$(sql "SELECT substr(uuid, 1, 8) FROM runs")
one_line "rerun without group_sizes" 2 "run $run (stored spec):1: group_sizes: required key is missing (the w4a16 variants are quantized); a stored spec cannot be edited: record the run anew (xp run SPEC, or xp import FORMAT FILES)$" \
  "$XP" --db "$db" rerun --dry-run "$run"
finish
