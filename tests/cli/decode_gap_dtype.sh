#!/usr/bin/env bash
# queries/decode_gap_analysis.sql with DeepSeek's dtypes: traces declared fp8 (vLLM and SGLang run
# DeepSeek-V3/V4's FP8 checkpoints block-scaled) are predicted from a gemm run of dtype fp8_block or
# checkpoint, the basis naming it, where the query took those for another dtype than the traces'
# ('measured in fp8_block, the traces ran fp8, no prediction'); and a GEMM recorded skipped (FP4 in
# a checkpoint run, fp8_block off Hopper) is counted as skipped, not failed. The runs:
# tests/unit/test_report --keep (its gemm run relabelled past the append-only guard, in this copy
# only) and the sample trace imported as an H200's, dtype fp8. A bf16 run for fp8 traces is told
# to run dtype = "checkpoint" where the model's checkpoint is block-scaled fp8 (run_meta
# gemm.checkpoint_dtype, as a gemm run records its model file's checkpoint_dtype).
set -u
. "$XP_SRC/tests/lib.sh"
need_test_report
q="$XP_SRC/queries/decode_gap_analysis.sql"
"$XP_BUILD/tests/test_report" --keep "$tmp" > /dev/null || { echo "FAIL: test_report --keep"; exit 1; }
sample_job 0 1 "$tmp/r" "NVIDIA H200"
"$XP" --db "$db" import torch-trace "$tmp/r-r0.json.gz" "$tmp/r-r1.json.gz" --set model=Kimi-K2.5 --set tp=2 \
  --set batch=64 --set dtype=fp8 > /dev/null || { echo "FAIL: import"; exit 1; }
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_update; DROP TRIGGER xp_append_only_cases_update"
gap() { # gap: the gemm row as CSV (predicted in field 2, the basis after the gap columns)
  "$XP" --db "$db" query "$q" --param model=Kimi-K2.5 --param tp=2 --param batch=64 --param interconnect=any \
    --format csv | grep '^gemm,'
}
relabel() { sqlite3 "$db" "UPDATE runs SET dtype = '$1' WHERE kind = 'gemm'"; }

relabel bf16 # the traces' fp8 is not bf16: no prediction, as before
gap > "$tmp/g"
check "bf16 GEMMs for fp8 traces: no prediction" "" "$(cut -d, -f2 "$tmp/g")"
grep -q 'measured in bf16, the traces ran fp8, no prediction' "$tmp/g" || { echo "FAIL: bf16 basis: $(cat "$tmp/g")"; fail=1; }
grep -q 'with dtype = ""fp8""' "$tmp/g" || { echo "FAIL: bf16 advice, a model of no checkpoint_dtype: $(cat "$tmp/g")"; fail=1; }
# a model whose checkpoint is block-scaled fp8 (DeepSeek-V3/V4's model files: checkpoint_dtype =
# "fp8_block"), as a gemm run records it: per-tensor fp8 GEMMs are not what an engine runs for it
sqlite3 "$db" "DROP TRIGGER xp_append_only_run_meta_insert; INSERT INTO run_meta (run_id, key, source, value)
  SELECT id, 'gemm.checkpoint_dtype', 'declared', 'fp8_block' FROM runs WHERE kind = 'gemm'"
gap > "$tmp/g"
grep -q 'with dtype = ""checkpoint"" (the model.s checkpoint is block-scaled fp8; or ""fp8_block"")' "$tmp/g" ||
  { echo "FAIL: bf16 advice, a block-scaled fp8 checkpoint: $(cat "$tmp/g")"; fail=1; }
for dt in fp8_block checkpoint; do
  relabel $dt
  gap > "$tmp/g"
  check "$dt GEMMs for fp8 traces: predicted" 2745 "$(cut -d, -f2 "$tmp/g" | cut -d. -f1)"
  grep -q "; measured as $dt for the traces' fp8" "$tmp/g" || { echo "FAIL: $dt basis: $(cat "$tmp/g")"; fail=1; }
  grep -q 'no prediction' "$tmp/g" && { echo "FAIL: $dt: no prediction: $(cat "$tmp/g")"; fail=1; }
done

# one GEMM of the step skipped: no prediction, counted as skipped
sqlite3 "$db" "UPDATE cases SET status = 'skipped' WHERE id = (SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id
  WHERE r.kind = 'gemm' AND json_extract(c.params, '\$.batch') = 64 AND json_extract(c.params, '\$.cache') = 'cold' LIMIT 1)"
gap > "$tmp/g"
check "a skipped GEMM: no prediction" "" "$(cut -d, -f2 "$tmp/g")"
grep -q 'incomplete: 1 GEMM(s) skipped (not measured at their dtype)' "$tmp/g" ||
  { echo "FAIL: skipped basis: $(cat "$tmp/g")"; fail=1; }
grep -q 'GEMM(s) failed' "$tmp/g" && { echo "FAIL: a skipped GEMM counted failed: $(cat "$tmp/g")"; fail=1; }
finish
