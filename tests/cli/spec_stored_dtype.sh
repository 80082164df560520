#!/usr/bin/env bash
# xp rerun of a run an older xp recorded with its dtype in another tool's spelling (dtype = "BF16",
# which xp now refuses, naming "bf16"): the stored spec cannot be edited and rerun takes no --set,
# so its one line names the stored spec and says how to record the run anew. It said the key came
# from "<command line>: --set dtype" where the run's own --set gave it, and gave no way out.
set -u
. "$XP_SRC/tests/lib.sh"
trace="$XP_SRC/tests/data/trace"
printf 'kind = "torch_trace"\nfiles = ["%s", "%s"]\nmodel = "Kimi-K2.5"\ntp = 2\n' \
  "$trace/decode_tp2_bs1_rank0.trace.json.gz" "$trace/decode_tp2_bs1_rank1.trace.json.gz" > "$tmp/trace.toml"
"$XP" --db "$db" run "$tmp/trace.toml" --set dtype=bf16 > /dev/null 2>&1
check "xp run --set dtype=bf16" 0 $?
"$XP" --db "$db" import torch-trace "$trace/decode_tp2_bs1_rank0.trace.json.gz" \
  "$trace/decode_tp2_bs1_rank1.trace.json.gz" --set model=Kimi-K2.5 --set tp=2 --set quantization=fp8 > /dev/null 2>&1
check "xp import --set quantization=fp8" 0 $?
# as an older xp stored them, which took the other tools' spellings as given
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_update; UPDATE runs SET
  spec_json = replace(replace(spec_json, '\"bf16\"', '\"BF16\"'), '\"fp8\"', '\"FP8\"')"
run=$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 1")
one_line "rerun of a stored dtype BF16" 2 \
  "run $run (stored spec):1: dtype: \"BF16\": xp spells this dtype \"bf16\" (queries match runs by the dtype as written); a stored spec cannot be edited: record the run anew with --set dtype=bf16 (xp run SPEC, or xp import FORMAT FILES)$" \
  "$XP" --db "$db" rerun "$run"
one_line "its dry run" 2 "(stored spec):1: dtype: \"BF16\": .* --set dtype=bf16 " "$XP" --db "$db" rerun --dry-run "$run"
run=$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")
one_line "rerun of an import's stored quantization FP8" 2 \
  "run $run (stored spec):1: quantization: \"FP8\": xp spells this dtype \"fp8\" .* --set quantization=fp8 " \
  "$XP" --db "$db" rerun "$run"
check "nothing recorded" 2 "$(sql "SELECT count(*) FROM runs")"
finish
