#!/usr/bin/env bash
# dtype fp8_block through the gemm runner on a real GPU: DeepSeek-V3/V4's decode shapes at
# M = 1, 2 (a MoE expert's rows at decode batch 16; both run padded where cuBLASLt has no
# right plan at them), 16 and 128 with random 128x128 weight and 1x128 activation scales. On Hopper (sm_90,
# the GPU cuBLASLt runs block scales on) every case passes the block-scaled reference check
# and is timed, its bytes counting the scales; on Ada and Blackwell every case is recorded
# skipped, saying why; before compute capability 8.9 the run is refused (exit 4). Then
# dtype = "checkpoint": one run of GEMMs at bf16, fp8_block and FP4.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
cat > "$tmp/block.toml" <<TOML
kind = "gemm"
dtype = "fp8_block"
ceilings = "measure"
m = [1, 2, 16, 128]
samples = 10
top_n = 4
shapes = [{name = "wo_b", n = 7168, k = 2048}, {name = "moe_down", n = 4096, k = 7168}]
TOML
gpu_run "$tmp/block.toml"
rc=$?
cat "$tmp/out" "$tmp/err"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
run="(SELECT id FROM runs WHERE kind='gemm' ORDER BY id DESC LIMIT 1)"
gemms="run_id=$run AND name NOT LIKE 'ceilings.%'"
if [ "${cc:-0}" -lt 89 ]; then
  check "fp8_block before cc 8.9" 4 $rc
  grep -q 'needs compute capability 8.9' "$tmp/err" || { echo "FAIL: fp8_block message"; fail=1; }
  finish
fi
check "fp8_block run" 0 $rc
check "cases: 2 shapes x 4 M, cold" 8 "$(query "SELECT count(*) FROM cases WHERE $gemms")"
check "labelled fp8_block" 8 "$(query "SELECT count(*) FROM cases WHERE $gemms AND json_extract(params,'\$.dtype')='fp8_block'")"
if [ "$cc" = 90 ]; then
  check "every case passed the check" 8 "$(query "SELECT count(*) FROM cases WHERE $gemms AND status='ok' AND json_extract(params,'\$.check_max_err_rms') <= 1.0/32")"
  # which operand order cuBLASLt ran is recorded
  check "every case names its operand order" 8 "$(query "SELECT count(*) FROM cases WHERE $gemms AND json_extract(params,'\$.algo_default') LIKE '% order=%,%'")"
  check "every case timed" 8 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id=c.id WHERE c.run_id=$run AND c.name NOT LIKE 'ceilings.%' AND m.name='time_us' AND m.n=10 AND m.median > 0")"
  # M = 1 and 2 run as more rows where cuBLASLt has no right plan at them (cuBLASLt 13.1: 4),
  # said in params and note
  check "M = 1, 2: a padded run says so" 4 "$(query "SELECT count(*) FROM cases WHERE $gemms AND json_extract(params,'\$.m') <= 2 AND coalesce(json_extract(params,'\$.m_run'),1) BETWEEN 1 AND 8 AND (json_extract(params,'\$.m_run') IS NULL OR note LIKE 'ran as % rows, % of them padding%')")"
  # fp8 weight, activations, bf16 output and the scales: 56 x 16 blocks of W, 16 groups of a token
  check "bytes count the scales" 14700096 "$(query "SELECT json_extract(params,'\$.bytes') FROM cases WHERE $gemms AND name='wo_b' AND json_extract(params,'\$.m')=1")"
else
  check "no block-scaled algorithm: skipped" 8 "$(query "SELECT count(*) FROM cases WHERE $gemms AND status='skipped' AND note LIKE '%fp8_block%sm_90%'")"
  grep -q 'recorded as skipped' "$tmp/err" || { echo "FAIL: skipped warning"; fail=1; }
fi

# Shapes off the documented 4s and 128s, which cuBLASLt runs (gemm.c's fp8_rules): an N of 578
# and 1 (a Qwen2-MoE shared_expert_gate), a K of 7184 and 192 (GLM-4.5's moe_down at TP=8), a
# last group of K under 128 scaled as its own: each passes the reference check and is timed.
cat > "$tmp/odd.toml" <<TOML
kind = "gemm"
dtype = "fp8_block"
ceilings = "measure"
m = [1, 16]
samples = 5
top_n = 2
shapes = [{name = "odd_n", n = 578, k = 7184}, {name = "gate", n = 1, k = 3584},
  {name = "glm_down", n = 5120, k = 192}]
TOML
gpu_run "$tmp/odd.toml"
rc=$?
cat "$tmp/out" "$tmp/err"
check "odd shapes run" 0 $rc
if [ "$cc" = 90 ]; then
  check "odd shapes: every case right and timed" 6 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id=c.id WHERE c.run_id=$run AND c.name NOT LIKE 'ceilings.%' AND c.status='ok' AND json_extract(c.params,'\$.check_max_err_rms') <= 1.0/32 AND m.name='time_us' AND m.median > 0")"
fi

# dtype = "checkpoint": DeepSeek-V4-Flash's GEMMs each at its checkpoint's dtype, in one run:
# wq_a block-scaled fp8 (skipped but on Hopper), lm_head bf16, the routed experts FP4 (skipped,
# xp measures none), with both matmul peaks measured inline.
printf 'kind = "gemm"\nmodel_file = "%s"\ntp = 8\ndtype = "checkpoint"\nceilings = "measure"\nm = [1]\nsamples = 5\ntop_n = 2\nonly = ["wq_a", "moe_gate_up", "lm_head"]\n' \
  "$XP_SRC/experiments/models/DeepSeek-V4-Flash.toml" > "$tmp/ck.toml"
gpu_run "$tmp/ck.toml"
rc=$?
cat "$tmp/out" "$tmp/err"
check "checkpoint run" 0 $rc
case_status() { query "SELECT status || ' ' || json_extract(params,'\$.dtype') FROM cases WHERE run_id=$run AND name='$1'"; }
check "checkpoint: lm_head at bf16, timed" "ok bf16" "$(case_status lm_head)"
check "checkpoint: experts FP4, skipped" "skipped fp4" "$(case_status moe_gate_up)"
if [ "$cc" = 90 ]; then
  check "checkpoint: wq_a block-scaled, timed" "ok fp8_block" "$(case_status wq_a)"
else
  check "checkpoint: wq_a block-scaled, skipped" "skipped fp8_block" "$(case_status wq_a)"
fi
check "checkpoint: both peaks measured" 2 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND name IN ('ceilings.matmul_bf16', 'ceilings.matmul_fp8')")"
finish
