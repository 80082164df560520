#!/usr/bin/env bash
# gemm and ceilings specs without a GPU: --dry-run plans (shapes, launches per decode step,
# bytes and flops) and every kind of bad input answered with one located line and exit 2.
set -u
. "$XP_SRC/tests/lib.sh"
models="$XP_SRC/experiments/models"
# expect_bad NAME EXIT PATTERN SPEC-TEXT: the run is refused with PATTERN on stderr, one line.
expect_bad() {
  printf '%s\n' "$4" > "$tmp/$1.toml"
  "$XP" --db "$db" run --dry-run "$tmp/$1.toml" > "$tmp/out" 2> "$tmp/err"
  check "$1: exit status" "$2" $?
  grep -q -- "$3" "$tmp/err" || { echo "FAIL: $1: stderr lacks [$3]:"; cat "$tmp/err"; fail=1; }
  check "$1: one line on stderr" 1 "$(wc -l < "$tmp/err")"
}

# The Kimi experiment: 14 GEMMs at each of 7 batches, and a second expert entry (gate_up and
# down) at the 6 batches whose routed rows do not split evenly; the anchors' shapes among them.
"$XP" --db "$db" run --dry-run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" > "$tmp/plan" 2> "$tmp/err"
check "kimi dry run exit status" 0 $?
check "kimi dry run: GEMM rows" 110 "$(grep -cE '^(q_|kv_|o_proj|dense_|moe_|shared_|lm_head)' "$tmp/plan")"
check "kimi dry run: step totals" 7 "$(grep -c '^= per decode step' "$tmp/plan")"
# name batch m n k bmm count: expert gate+up at batch 1 and 16 (110 of 384 experts active, 128
# rows: 18 experts with 2 and 92 with 1, in each of the 60 MoE layers)
grep -qE '^moe_gate_up +1 +1 +512 +7168 +1 +480 ' "$tmp/plan" || { echo "FAIL: moe_gate_up at batch 1"; fail=1; }
grep -qE '^moe_gate_up +16 +2 +512 +7168 +1 +1080 ' "$tmp/plan" || { echo "FAIL: moe_gate_up at batch 16"; fail=1; }
grep -qE '^moe_gate_up +16 +1 +512 +7168 +1 +5520 ' "$tmp/plan" || { echo "FAIL: moe_gate_up at batch 16, 1 row"; fail=1; }
grep -qE '^moe_down +1 +1 +7168 +256 +1 +480 ' "$tmp/plan" || { echo "FAIL: moe_down"; fail=1; }
grep -qE '^dense_gate_up +1 +1 +4608 +7168 +1 +1 ' "$tmp/plan" || { echo "FAIL: dense_gate_up"; fail=1; }
grep -qE '^o_proj +256 +256 +7168 +1024 +1 +61 ' "$tmp/plan" || { echo "FAIL: o_proj"; fail=1; }
grep -qE '^kv_b_proj_k +1 +1 +512 +128 +8 +61 ' "$tmp/plan" || { echo "FAIL: absorbed MLA"; fail=1; }
grep -q 'cache cold and hot' "$tmp/plan" || { echo "FAIL: cache modes"; fail=1; }
check "dry run records nothing" 0 "$(ls "$db" 2>/dev/null | wc -l)"

# The DeepSeek-V4-Flash experiment: 21 GEMMs at each of 7 batches (its attention's projections,
# compressors and indexer, the hyper-connections' mixing, MoE, lm_head), and a second expert
# entry at the 6 batches whose 6 routed rows a token do not split evenly over the experts hit.
"$XP" --db "$db" run --dry-run "$XP_SRC/experiments/gemm_deepseek_v4_flash_tp8.toml" > "$tmp/plan" 2> "$tmp/err"
check "deepseek-v4 dry run exit status" 0 $?
check "deepseek-v4 dry run: GEMM rows" 159 "$(grep -cE '^(hc_|wq_|wkv|wo_|c4_|c128_|indexer_|moe_|shared_|lm_head)' "$tmp/plan")"
# name batch m n k bmm count: 8 of the 64 heads, one of the 8 output groups, a GPU
grep -qE '^wq_b +1 +1 +4096 +1024 +1 +43 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 wq_b"; fail=1; }
grep -qE '^wo_a +16 +16 +1024 +4096 +1 +43 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 wo_a"; fail=1; }
grep -qE '^wo_b +1 +1 +4096 +1024 +1 +43 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 wo_b"; fail=1; }
grep -qE '^c4_compress_wkv +1 +1 +1024 +4096 +1 +21 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 ratio-4 compressor"; fail=1; }
grep -qE '^c128_compress_wgate +1 +1 +512 +4096 +1 +20 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 ratio-128 compressor"; fail=1; }
grep -qE '^indexer_wq_b +1 +1 +8192 +1024 +1 +21 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 indexer"; fail=1; }
grep -qE '^hc_pre +1 +1 +24 +16384 +1 +86 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 hyper-connections"; fail=1; }
grep -qE '^moe_gate_up +8 +2 +512 +4096 +1 +172 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 experts at batch 8"; fail=1; }
grep -qE '^lm_head +1 +1 +16160 +4096 +1 +1 ' "$tmp/plan" || { echo "FAIL: deepseek-v4 lm_head"; fail=1; }

# DeepSeek-V3's FP8 linears at fp8_block: 10 GEMMs at each of 3 batches, a second expert entry
# (gate_up and down) at the 2 whose routed rows do not split evenly; no lm_head, router or bmm.
"$XP" --db "$db" run --dry-run "$XP_SRC/experiments/gemm_deepseek_v3_fp8_block_tp8.toml" > "$tmp/plan" 2> "$tmp/err"
check "deepseek-v3 fp8_block dry run exit status" 0 $?
check "deepseek-v3 fp8_block: GEMM rows" 34 "$(grep -cE '^(q_|kv_|o_proj|dense_|moe_|shared_|lm_head)' "$tmp/plan")"
check "deepseek-v3 fp8_block: no bf16 GEMM" 0 "$(grep -cE '^(lm_head|moe_router|kv_b_proj)' "$tmp/plan")"
grep -qE '^o_proj +1 +1 +7168 +2048 +1 +61 +14.68 ' "$tmp/plan" || { echo "FAIL: deepseek-v3 fp8_block o_proj"; fail=1; }

"$XP" run --dry-run "$XP_SRC/experiments/ceilings.toml" > "$tmp/plan" 2> "$tmp/err"
check "ceilings dry run exit status" 0 $?
grep -q 'copy .*1024 MiB' "$tmp/plan" || { echo "FAIL: ceilings plan"; cat "$tmp/plan"; fail=1; }

# The plan names the model file's SHA-256, which a run records as gemm.model_sha256: the spec
# names the file, not its content, so an edit to it (other shapes, one spec hash) shows there.
mkdir -p "$tmp/sha/models"
cp "$models/Kimi-K2.5.toml" "$tmp/sha/models/"
printf 'kind = "gemm"\nmodel = "Kimi-K2.5"\ntp = 8\nm = [1]\n' > "$tmp/sha/spec.toml"
"$XP" run --dry-run "$tmp/sha/spec.toml" > "$tmp/plan" 2> "$tmp/err"
sum=$(sha256sum < "$tmp/sha/models/Kimi-K2.5.toml" | cut -c1-64)
grep -q "^model file .*Kimi-K2.5.toml, sha256 $sum\$" "$tmp/plan" || { echo "FAIL: model file's sha256"; cat "$tmp/plan"; fail=1; }
sed -i 's/^moe_intermediate_size = .*/moe_intermediate_size = 1024/' "$tmp/sha/models/Kimi-K2.5.toml"
"$XP" run --dry-run "$tmp/sha/spec.toml" > "$tmp/plan" 2> "$tmp/err"
grep -q "^model file .*Kimi-K2.5.toml, sha256 $sum\$" "$tmp/plan" && { echo "FAIL: an edited model file, the same sha256"; fail=1; }
grep -q "^model file .*Kimi-K2.5.toml, sha256 $(sha256sum < "$tmp/sha/models/Kimi-K2.5.toml" | cut -c1-64)\$" "$tmp/plan" ||
  { echo "FAIL: the edited model file's sha256"; cat "$tmp/plan"; fail=1; }

# Every model file loads and derives at TP=8.
for m in "$models"/*.toml; do
  name=$(basename "$m" .toml)
  printf 'kind = "gemm"\nmodel_file = "%s"\ntp = 8\nm = [1]\n' "$m" > "$tmp/m.toml"
  "$XP" run --dry-run "$tmp/m.toml" > "$tmp/plan" 2> "$tmp/err"
  check "$name: dry run" 0 $?
  grep -q "^$name (https://" "$tmp/plan" || { echo "FAIL: $name header"; cat "$tmp/plan"; fail=1; }
  grep -q '^lm_head ' "$tmp/plan" || { echo "FAIL: $name lm_head"; fail=1; }
done

# Explicit shapes, fp8, hot, a subset of a model's GEMMs.
expect_ok() { # expect_ok NAME PATTERN SPEC-TEXT
  printf '%s\n' "$3" > "$tmp/$1.toml"
  "$XP" run --dry-run "$tmp/$1.toml" > "$tmp/plan" 2> "$tmp/err"
  check "$1: exit status" 0 $?
  grep -qE -- "$2" "$tmp/plan" || { echo "FAIL: $1: plan lacks [$2]"; cat "$tmp/plan" "$tmp/err"; fail=1; }
}
expect_ok shapes '^down +256 +256 +7168 +256 +1 +1 +3.67 ' 'kind = "gemm"
m = [1, 256]
shapes = [{name = "gate_up", n = 512, k = 7168}, {name = "down", n = 7168, k = 256}]'
expect_ok fp8 'dtype fp8 \(e4m3\), cache hot' "kind = \"gemm\"
dtype = \"fp8\"
cache = \"hot\"
m = [8]
shapes = [{name = \"o\", n = 7168, k = 1024, count = 61}]"
expect_ok only '^= per decode step +1 ' "kind = \"gemm\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 8
ep = 8
m = [1]
only = [\"moe_gate_up\", \"moe_down\"]"
grep -qE '^moe_gate_up +1 +1 +4096 +7168 +1 +60 ' "$tmp/plan" || { echo "FAIL: ep=8 experts"; cat "$tmp/plan"; fail=1; }
check "only: two GEMMs" 2 "$(grep -c '^moe_' "$tmp/plan")"

# Bad input.
expect_bad m_zero 2 'm_zero.toml:4: m\[1\]: M must be between 1 and 1048560, got 0' "kind = \"gemm\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 8
m = [1, 0]"
expect_bad m_empty 2 'm: give at least one M' 'kind = "gemm"
m = []
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad no_m 2 'm: required key is missing' 'kind = "gemm"
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad dtype 2 'dtype: gemm runs measure dtype "bf16", "fp8" (e4m3 with per-tensor scales), "fp8_block" (e4m3 with DeepSeek.s 128x128 block scales) or "checkpoint"' 'kind = "gemm"
dtype = "int4"
m = [1]
shapes = [{name = "x", n = 16, k = 16}]'
# dtypes as other tools spell them: PyTorch's str(torch.float8_e4m3fn), nccl_burst's fp8_e4m3
# (its element type; every other run's label is fp8)
expect_bad dtype_torch 2 'dtype_torch.toml:2: dtype: "torch.float8_e4m3fn": xp spells this dtype "fp8" ' 'kind = "gemm"
dtype = "torch.float8_e4m3fn"
m = [1]
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad dtype_capitals 2 'dtype_capitals.toml:2: dtype: "BF16": xp spells this dtype "bf16" ' 'kind = "gemm"
dtype = "BF16"
m = [1]
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad quantization_capitals 2 'quantization_capitals.toml:3: quantization: "FP8": xp spells this dtype "fp8" ' 'kind = "gemm"
dtype = "fp8"
quantization = "FP8"
m = [1]
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad dtype_nccl_name 2 'dtype_nccl_name.toml:2: dtype: "fp8_e4m3": xp spells this dtype "fp8" ' 'kind = "gemm"
dtype = "fp8_e4m3"
m = [1]
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad neither 2 'say which GEMMs' 'kind = "gemm"
m = [1]'
expect_bad no_model_file 2 'model: no model file .*models/Nonexistent-9B.toml' 'kind = "gemm"
model = "Nonexistent-9B"
m = [1]'
# a model named as a serving run records it (its Hugging Face id) or in another case: the file
# of that name is said, where 'no model file' left the user to list experiments/models/
for m in moonshotai/Kimi-K2.5 kimi-k2.5; do
  "$XP" --db "$db" run --dry-run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" --set model=$m > /dev/null 2> "$tmp/err"
  check "model $m: exit status" 2 $?
  grep -q -- "model: no model file .*models/$m.toml: did you mean \"Kimi-K2.5\"?\$" "$tmp/err" ||
    { echo "FAIL: model $m: $(cat "$tmp/err")"; fail=1; }
  check "model $m: one line on stderr" 1 "$(wc -l < "$tmp/err")"
done
expect_bad tp3 2 'tp: Kimi-K2.5.s 64 attention heads do not split over tp=3' "kind = \"gemm\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 3
m = [1]"
expect_bad v4_tp16 2 'tp: DeepSeek-V4-Flash.s 8 output groups (o_groups) do not split over tp=16' "kind = \"gemm\"
model_file = \"$models/DeepSeek-V4-Flash.toml\"
tp = 16
m = [1]"
expect_bad v4_naive 2 'mla: DeepSeek-V4-Flash has no MLA' "kind = \"gemm\"
model_file = \"$models/DeepSeek-V4-Flash.toml\"
tp = 8
m = [1]
mla = \"naive\""
expect_bad ep3 2 'ep: ep=3 must divide tp=8' "kind = \"gemm\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 8
ep = 3
m = [1]"
expect_bad only 2 'only\[0\]: Kimi-K2.5 has no GEMM named "qkv_proj"' "kind = \"gemm\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 8
m = [1]
only = [\"qkv_proj\"]"
expect_bad model_mismatch 2 'model: model "DeepSeek-V3" does not match the model file' "kind = \"gemm\"
model = \"DeepSeek-V3\"
model_file = \"$models/Kimi-K2.5.toml\"
m = [1]"
# gpt-oss-120b's MXFP4 experts (huggingface.co/openai/gpt-oss-120b) padded as the vLLM MoE backend
# the spec names allocates them (mxfp4.py): Triton, the default, at 64; Marlin at 128, with
# hidden_size at 256; a spec could not say which, and the plan did not say which it assumed
printf 'name = "gpt-oss-120b"\nsource = "hf"\narchitecture = "GptOssForCausalLM"\nhidden_size = 2880\nnum_hidden_layers = 36\nnum_attention_heads = 64\nnum_key_value_heads = 8\nhead_dim = 64\nvocab_size = 201088\nn_routed_experts = 128\nnum_experts_per_tok = 4\nmoe_intermediate_size = 2880\ncheckpoint_dtype = "bf16"\ncheckpoint_fp4 = ["moe_gate_up", "moe_down"]\n' > "$tmp/gpt-oss.toml"
printf 'kind = "gemm"\nmodel_file = "%s"\ntp = 2\nm = [1]\ndtype = "checkpoint"\n' "$tmp/gpt-oss.toml" > "$tmp/gpt-oss-gemm.toml"
"$XP" run --dry-run "$tmp/gpt-oss-gemm.toml" > "$tmp/plan" 2> "$tmp/err"
check "gpt-oss dry run" 0 $?
grep -q "^experts in MXFP4, padded as vLLM's triton MoE backend allocates them (mxfp4_backend)$" "$tmp/plan" || { echo "FAIL: gpt-oss: the backend assumed"; fail=1; }
grep -qE '^moe_down +1 +1 +2880 +1472 +1 +144 ' "$tmp/plan" || { echo "FAIL: gpt-oss: triton's padding"; fail=1; }
"$XP" run --dry-run "$tmp/gpt-oss-gemm.toml" --set mxfp4_backend=marlin > "$tmp/plan" 2> "$tmp/err"
check "gpt-oss dry run, marlin" 0 $?
grep -q "padded as vLLM's marlin MoE backend" "$tmp/plan" || { echo "FAIL: gpt-oss: marlin named"; fail=1; }
grep -qE '^moe_down +1 +1 +3072 +1536 +1 +144 ' "$tmp/plan" || { echo "FAIL: gpt-oss: marlin's padding"; fail=1; }
expect_bad mxfp4_no_fp4 2 'mxfp4_backend: Kimi-K2.5.s experts are not held in FP4' "kind = \"gemm\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 8
m = [1]
mxfp4_backend = \"marlin\""
expect_bad mxfp4_shapes 2 'mxfp4_backend: applies to shapes derived from a model' 'kind = "gemm"
m = [1]
mxfp4_backend = "marlin"
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad shapes_and_mla 2 'mla: applies to shapes derived from a model' 'kind = "gemm"
m = [1]
mla = "naive"
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad shape_k 2 'shapes\[0\].k: required key is missing' 'kind = "gemm"
m = [1]
shapes = [{name = "x", n = 16}]'
expect_bad cache 2 'cache: unknown value "warm"' 'kind = "gemm"
m = [1]
cache = "warm"
shapes = [{name = "x", n = 16, k = 16}]'
expect_bad ceil_dtype 2 'matmul_dtypes\[0\]: unknown value "fp16"' 'kind = "ceilings"
matmul_dtypes = ["fp16"]'
# fp8_block (DeepSeek's block scales): its bytes count the scales, one fp32 per 128x128 weight
# block and per token per 128 of K (fp8 alone: 70.25 MB); K must be whole groups of 128, which
# an explicit shape is refused at and a model's GEMM by name (GLM-4.5's experts at TP=8: 192).
expect_ok fp8_block '^wide +4096 +4096 +128 +16384 +1 +1 +2.10 +72.35 ' 'kind = "gemm"
dtype = "fp8_block"
m = [4096]
shapes = [{name = "wide", n = 128, k = 16384}]'
grep -q '^dtype fp8_block (e4m3, 128x128 weight and 1x128 activation scales)' "$tmp/plan" || { echo "FAIL: fp8_block header"; fail=1; }
expect_ok fp8_block_v4 '^wo_b +16 +16 +4096 +1024 +1 +43 ' "kind = \"gemm\"
model = \"DeepSeek-V4-Flash\"
model_file = \"$models/DeepSeek-V4-Flash.toml\"
tp = 8
dtype = \"fp8_block\"
m = [16]"
# fp8_block takes K in whole 16s and any N, as cuBLASLt 13 does on an H200
# (tests/unit/test_fp8_shapes_gpu.c holds the rule against it): a last group of K shorter than
# 128 is scaled as its own, and an N off 4 runs with the activations as cuBLASLt's A. The
# cuBLAS docs' "M and N must be multiples of 4" (Scaling factors layouts) is not what it does.
expect_bad block_k 2 'block_k.toml:5: shapes\[1\].k: dtype fp8_block takes K in multiples of 16 (cuBLASLt.s fp8 kernels: cuBLAS docs, "Tensor Core Usage"); k = 7000 is not a multiple of 16' 'kind = "gemm"
dtype = "fp8_block"
m = [1]
shapes = [{name = "ok", n = 128, k = 256},
  {name = "odd", n = 576, k = 7000}]'
expect_ok block_k_partial '^odd +1 +[0-9]+ +578 +7184 ' 'kind = "gemm"
dtype = "fp8_block"
m = [1]
shapes = [{name = "ok", n = 128, k = 256},
  {name = "odd", n = 578, k = 7184}]'
expect_ok block_k_model '^moe_down +1 +[0-9]+ +5120 +192 ' "kind = \"gemm\"
dtype = \"fp8_block\"
model_file = \"$models/GLM-4.5.toml\"
tp = 8
m = [1]"
# per-tensor fp8, as tests/unit/test_fp8_shapes_gpu.c finds it on an H200 too: "To use tensor- or
# block-scaled FP8 kernels ... all matrix dimensions must meet the optimal requirements listed in
# Tensor Core Usage" (cuBLAS docs, cublasLtMatmul):
# (k * AtypeSize) % 16 == 0 and, the bf16 output's rows being the weights' N, (m * CtypeSize) % 16
# == 0; DeepSeek-V4-Flash's hc_head (N = hc_mult = 4) is such a GEMM
expect_bad fp8_k 2 'fp8_k.toml:4: shapes\[0\].k: dtype fp8 takes K in multiples of 16 (cuBLASLt.s fp8 kernels: cuBLAS docs, "Tensor Core Usage"); k = 7000 is not a multiple of 16' 'kind = "gemm"
dtype = "fp8"
m = [1]
shapes = [{name = "odd", n = 128, k = 7000}]'
expect_bad fp8_n 2 'fp8_n.toml:4: shapes\[0\].n: dtype fp8: n = 100 is not a multiple of 8, and cuBLASLt.s fp8 kernels take N, their bf16 output.s rows, in multiples of 8' 'kind = "gemm"
dtype = "fp8"
m = [1]
shapes = [{name = "odd", n = 100, k = 7168}]'
expect_bad fp8_n_model 2 "fp8_n_model.toml:5: dtype: fp8: DeepSeek-V4-Flash's GEMM hc_head has N = 4, and cuBLASLt.s fp8 kernels take N" "kind = \"gemm\"
model_file = \"$models/DeepSeek-V4-Flash.toml\"
tp = 8
m = [1]
dtype = \"fp8\""
printf 'name = "Qwen2-57B-A14B"\nsource = "hf"\narchitecture = "Qwen2MoeForCausalLM"\nhidden_size = 3584\nnum_hidden_layers = 28\nnum_attention_heads = 28\nnum_key_value_heads = 4\nvocab_size = 151936\nn_routed_experts = 64\nnum_experts_per_tok = 8\nmoe_intermediate_size = 2560\nshared_expert_intermediate_size = 20480\n' > "$tmp/qwen2-57b.toml"
expect_ok block_n_model '^shared_expert_gate +1 +[0-9]+ +1 +3584 ' "kind = \"gemm\"
dtype = \"fp8_block\"
model_file = \"$tmp/qwen2-57b.toml\"
m = [1]"

# dtype = "checkpoint": each GEMM at the dtype its model file's checkpoint_* give it, in the
# plan's last column (DeepSeek-V4-Flash: FP8 block-scaled linears, bf16 hyper-connections and
# lm_head, FP4 routed experts: half a byte and a scale per 32 weights, bf16 activations).
"$XP" --db "$db" run --dry-run "$XP_SRC/experiments/gemm_deepseek_v4_flash_checkpoint_tp8.toml" > "$tmp/plan" 2> "$tmp/err"
check "v4 checkpoint dry run exit status" 0 $?
grep -qE '^wq_a +1 +1 +1024 +4096 +1 +43 +4.19 +180.67 +0.361 fp8_block$' "$tmp/plan" || { echo "FAIL: v4 checkpoint wq_a"; fail=1; }
grep -qE '^hc_pre +1 +1 +24 +16384 +1 +86 +0.79 +70.46 +0.068 bf16$' "$tmp/plan" || { echo "FAIL: v4 checkpoint hc_pre"; fail=1; }
grep -qE '^moe_gate_up +1 +1 +512 +4096 +1 +258 +1.11 +289.82 +1.082 fp4$' "$tmp/plan" || { echo "FAIL: v4 checkpoint experts"; fail=1; }
check "v4 checkpoint: bf16 GEMMs a step" 11 "$(grep -E '^[a-z]' "$tmp/plan" | awk '$2 == 1 && $NF == "bf16"' | wc -l)"
grep -q '^dtype checkpoint (each GEMM at its checkpoint.s: the last column)' "$tmp/plan" || { echo "FAIL: checkpoint header"; fail=1; }
expect_ok v3_checkpoint '^kv_b_proj_k +1 +1 +512 +128 +16 +61 .* bf16$' "kind = \"gemm\"
model_file = \"$models/DeepSeek-V3.toml\"
tp = 8
dtype = \"checkpoint\"
m = [1]"
grep -qE '^o_proj +1 +1 +7168 +2048 +1 +61 .* fp8_block$' "$tmp/plan" || { echo "FAIL: v3 checkpoint o_proj"; fail=1; }
expect_bad checkpoint_none 2 "checkpoint_none.toml:2: dtype: \"checkpoint\" takes each GEMM's dtype from the model file, and .*Kimi-K2.5.toml gives none" "kind = \"gemm\"
dtype = \"checkpoint\"
model_file = \"$models/Kimi-K2.5.toml\"
tp = 8
m = [1]"
expect_bad checkpoint_shapes 2 'checkpoint_shapes.toml:2: dtype: "checkpoint" takes each GEMM.s dtype from a model file, and an explicit shapes list has none' 'kind = "gemm"
dtype = "checkpoint"
m = [1]
shapes = [{name = "a", n = 128, k = 128}]'
# A model file's checkpoint keys: GEMM names xp derives, each once, beside checkpoint_dtype.
mini='name = "Mini"\nsource = "test"\nhidden_size = 1024\nnum_hidden_layers = 2\nnum_attention_heads = 8\nvocab_size = 1000\nintermediate_size = 2048\n'
printf "$mini"'checkpoint_dtype = "fp8_block"\ncheckpoint_bf16 = ["lm_head", "qkv"]\n' > "$tmp/Mini.toml"
expect_bad checkpoint_name 2 'Mini.toml:9: checkpoint_bf16\[1\]: Mini derives no GEMM named "qkv"' "kind = \"gemm\"
model_file = \"$tmp/Mini.toml\"
m = [1]"
printf "$mini"'checkpoint_dtype = "fp8_block"\ncheckpoint_bf16 = ["lm_head"]\ncheckpoint_fp4 = ["lm_head"]\n' > "$tmp/Mini.toml"
expect_bad checkpoint_twice 2 'Mini.toml:10: checkpoint_fp4\[0\]: "lm_head" is named twice' "kind = \"gemm\"
model_file = \"$tmp/Mini.toml\"
m = [1]"
printf "$mini"'checkpoint_bf16 = ["lm_head"]\n' > "$tmp/Mini.toml"
expect_bad checkpoint_alone 2 'Mini.toml:8: checkpoint_bf16: names GEMMs that differ from checkpoint_dtype, which is missing' "kind = \"gemm\"
model_file = \"$tmp/Mini.toml\"
m = [1]"

# a checkpoint_dtype as config.json's torch_dtype spells it
printf "$mini"'checkpoint_dtype = "bfloat16"\n' > "$tmp/Mini.toml"
expect_bad checkpoint_torch_dtype 2 'Mini.toml:8: checkpoint_dtype: unknown value "bfloat16": did you mean "bf16"?' "kind = \"gemm\"
model_file = \"$tmp/Mini.toml\"
m = [1]"

# A model file missing a field: the error points into the model file.
printf 'name = "Half"\nsource = "test"\nhidden_size = 1024\nnum_hidden_layers = 2\nnum_attention_heads = 8\nvocab_size = 1000\nkv_lora_rank = 64\nqk_nope_head_dim = 32\nqk_rope_head_dim = 16\n' > "$tmp/Half.toml"
expect_bad model_missing_field 2 "Half.toml:7: kv_lora_rank: an MLA model (kv_lora_rank) needs v_head_dim" "kind = \"gemm\"
model_file = \"$tmp/Half.toml\"
m = [1]"

# model_file in a spec is read from the spec's folder; given with --set, from the working folder
# (the shell's path: it was read under the spec's, "no model file specs/m/Llama-3.1-70B.toml")
mkdir -p "$tmp/w/specs" "$tmp/w/m"
cp "$models/Llama-3.1-70B.toml" "$tmp/w/m/"
printf 'kind = "gemm"\nmodel_file = "../m/Llama-3.1-70B.toml"\ntp = 8\nm = [1]\n' > "$tmp/w/specs/g.toml"
(cd / && "$XP" run --dry-run "$tmp/w/specs/g.toml" > "$tmp/out" 2> "$tmp/err")
check "model_file from the spec's folder" 0 $?
(cd "$tmp/w" && "$XP" run --dry-run specs/g.toml --set model_file=m/Llama-3.1-70B.toml > "$tmp/out" 2> "$tmp/err")
check "--set model_file from the working folder" 0 $?
grep -q '^model file m/Llama-3.1-70B.toml, sha256' "$tmp/out" || { echo "FAIL: --set model_file: $(cat "$tmp/out" "$tmp/err")"; fail=1; }

# Without a GPU (or without CUDA) a real run is refused as an environment problem (exit 4).
if ! nvidia-smi -L > /dev/null 2>&1; then
  "$XP" --db "$db" run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" > /dev/null 2> "$tmp/err"
  check "gemm run without a GPU" 4 $?
  grep -q 'gemm runs need a GPU' "$tmp/err" || { echo "FAIL: no-GPU message"; cat "$tmp/err"; fail=1; }
  "$XP" --db "$db" run "$XP_SRC/experiments/ceilings.toml" > /dev/null 2> "$tmp/err"
  check "ceilings run without a GPU" 4 $?
fi
# A list --set as a spec writes it ([1, 2], ['lm_head'], TOML's forms) plans as its comma form;
# before, "[1,2]" was read as the items "[1" and "2]" and refused as "not an integer".
kimi="$XP_SRC/experiments/gemm_kimi_k25_tp8.toml"
"$XP" --db "$db" run --dry-run "$kimi" --set m=1,2 --set only=lm_head,o_proj > "$tmp/comma" 2> "$tmp/err"
check "--set m=1,2: exit status" 0 $?
"$XP" --db "$db" run --dry-run "$kimi" --set 'm=[1, 2]' --set "only=['lm_head', \"o_proj\"]" > "$tmp/toml" 2> "$tmp/err"
check "--set m=[1, 2]: exit status" 0 $?
cmp -s "$tmp/comma" "$tmp/toml" || { echo "FAIL: --set lists in TOML form plan otherwise:"; diff "$tmp/comma" "$tmp/toml" | head; fail=1; }
"$XP" --db "$db" run --dry-run "$kimi" --set 'm=[1, "x"]' > /dev/null 2> "$tmp/err"
check "--set m=[1, \"x\"]: exit status" 2 $?
check "--set m=[1, \"x\"]: message" 'xp: <command line>: --set m: "[1, "x"]" is not a list of integers (1,2 or [1, 2])' "$(cat "$tmp/err")"
finish
