#!/usr/bin/env bash
# gemm and ceilings on a real GPU: a gemm run refuses to start without ceilings, a ceilings
# run files them, then GEMMs at odd shapes (batched, M=1..64, cold and hot) pass the float32
# check, are timed, and read back through the queries; fp8 runs where the device has it and
# is refused with exit 4 where it does not.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
cat > "$tmp/small.toml" <<TOML
kind = "gemm"
m = [1, 3, 64]
cache = "both"
samples = 10
top_n = 4
shapes = [{name = "gate_up", n = 512, k = 7168},
          {name = "down", n = 7168, k = 256, count = 480},
          {name = "absorb", n = 512, k = 128, bmm = 8},
          {name = "odd", n = 576, k = 7168}]
TOML

# 1. No ceilings for this GPU yet: the gemm run says what to do.
gpu_run "$tmp/small.toml"
check "gemm before ceilings" 4 $?
grep -q 'run xp run experiments/ceilings.toml first' "$tmp/err" || { echo "FAIL: ceilings hint"; cat "$tmp/err"; fail=1; }

# 2. Ceilings, small and quick.
printf 'kind = "ceilings"\ncopy_mib = 512\nmatmul_size = 4096\nsamples = 5\ntop_n = 4\n' > "$tmp/ceil.toml"
"$XP" --db "$db" run "$tmp/ceil.toml" > "$tmp/out" 2> "$tmp/err"
check "ceilings run" 0 $?
cat "$tmp/out"
check "ceilings filed under the GPU" 3 "$(query "SELECT count(*) FROM run_meta WHERE key IN ('ceilings.gpu_uuid','ceilings.gpu_name','ceilings.driver')")"
copy=$(query "SELECT CAST(m.median AS INTEGER) FROM cases c JOIN metrics m ON m.case_id=c.id WHERE c.name='copy' AND m.name='gbps'")
[ "${copy:-0}" -gt 200 ] || { echo "FAIL: copy ceiling $copy GB/s"; fail=1; }
bf16=$(query "SELECT CAST(m.median AS INTEGER) FROM cases c JOIN metrics m ON m.case_id=c.id WHERE c.name='matmul_bf16' AND m.name='tflops'")
[ "${bf16:-0}" -gt 20 ] || { echo "FAIL: bf16 peak $bf16 TFLOP/s"; fail=1; }
check "the peak names its candidates and cuBLASLt's refusals" 1 "$(query "SELECT count(*) FROM cases WHERE name='matmul_bf16' AND json_extract(params,'\$.candidates') BETWEEN 1 AND 4 AND json_type(params,'\$.candidates_refused')='integer'")"
# a later ceilings run of the copy alone (matmul_dtypes = []) does not hide the bf16 peak from
# the gemm runs below (they failed: "the ceilings run ... has no bf16 matmul peak")
printf 'kind = "ceilings"\ncopy_mib = 256\nsamples = 3\nmatmul_dtypes = []\n' > "$tmp/copy_only.toml"
"$XP" --db "$db" run "$tmp/copy_only.toml" > /dev/null 2> "$tmp/err"
check "copy-only ceilings run" 0 $?

# 3. GEMMs at odd shapes: checked, timed, cold and hot.
"$XP" --db "$db" run "$tmp/small.toml" > "$tmp/out" 2> "$tmp/err"
check "gemm run" 0 $?
cat "$tmp/out"
check "gemm run filed under its device's GPU" 1 "$(query "SELECT count(*) FROM runs r JOIN run_gpus g ON g.run_id = r.id AND g.idx = 0 WHERE r.kind = 'gemm' AND r.status = 'ok' AND r.gpu_name = g.name")"
run="(SELECT id FROM runs WHERE kind='gemm' AND status='ok' ORDER BY id DESC LIMIT 1)"
check "cases: 4 shapes x 3 M x 2 caches" 24 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND status='ok'")"
check "every case timed" 24 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id=c.id WHERE c.run_id=$run AND m.name='time_us' AND m.n=10 AND m.median > 0")"
check "best never slower than default" 0 "$(query "SELECT count(*) FROM cases c JOIN metrics d ON d.case_id=c.id AND d.name='time_us' JOIN metrics b ON b.case_id=c.id AND b.name='time_best_us' WHERE c.run_id=$run AND b.median > d.median")"
check "cold rotates >= 2 buffers" 0 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_extract(params,'\$.cache')='cold' AND json_extract(params,'\$.cold_buffers') < 2")"
check "hot uses one buffer" 0 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_extract(params,'\$.cache')='hot' AND json_extract(params,'\$.cold_buffers') != 1")"
check "default within tolerance of the reference" 0 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_extract(params,'\$.check_max_err_rms') > 1.0/32")"
check "refusals counted, default named" 24 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_type(params,'\$.candidates_refused')='integer' AND json_type(params,'\$.default_index')='integer'")"
check "no refusal: the default is the heuristic's first" 0 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_extract(params,'\$.candidates_refused')=0 AND json_extract(params,'\$.default_index')!=0")"
check "algorithms described" 24 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_extract(params,'\$.algo_best') LIKE 'algo=% tile=%'")"
check "bound named" 24 "$(query "SELECT count(*) FROM cases WHERE run_id=$run AND json_extract(params,'\$.bound_best') IN ('memory','compute','latency')")"
check "ceilings run named" 1 "$(query "SELECT count(*) FROM run_meta WHERE run_id=$run AND key='gemm.ceilings_run' AND value IN (SELECT uuid FROM runs WHERE kind='ceilings')")"
"$XP" --db "$db" query "$XP_SRC/queries/gemm_roofline.sql" --format csv > "$tmp/roof" 2>&1
check "roofline query" 0 $?
check "roofline rows" 25 "$(wc -l < "$tmp/roof")" # header and 24 rows

# 3b. A weight of 8 KiB (n = k = 64, bf16) cold: at most 1024 copies rotate, a scratch write of
# the rest of the rotation before each round (it took 32768 copies, a graph of 32768 matmuls);
# the write's share is taken out of the time, which stays positive.
printf 'kind = "gemm"\nm = [1]\ncache = "cold"\nsamples = 10\ntop_n = 2\nshapes = [{name = "tiny", n = 64, k = 64}]\n' > "$tmp/tiny.toml"
"$XP" --db "$db" run "$tmp/tiny.toml" > "$tmp/out" 2> "$tmp/err"
check "tiny cold gemm run" 0 $?
tiny="(SELECT id FROM runs WHERE kind='gemm' AND status='ok' ORDER BY id DESC LIMIT 1)"
check "tiny: 1024 copies, a scratch write, its share under the time" 1 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id=c.id AND m.name='time_us' WHERE c.run_id=$tiny AND json_extract(c.params,'\$.cold_buffers')=1024 AND json_extract(c.params,'\$.cold_flush_bytes')>0 AND json_extract(c.params,'\$.cold_flush_us')>0 AND m.median > json_extract(c.params,'\$.cold_flush_us')")"

# 4. fp8 where the device has it (cc >= 8.9), a clear refusal where it does not.
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
printf 'kind = "gemm"\ndtype = "fp8"\nceilings = "measure"\nm = [1, 16]\nsamples = 5\ntop_n = 4\nshapes = [{name = "gate_up", n = 512, k = 7168}]\n' > "$tmp/fp8.toml"
"$XP" --db "$db" run "$tmp/fp8.toml" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "${cc:-0}" -ge 89 ]; then
  check "fp8 run" 0 $rc
  cat "$tmp/out"
  check "fp8 ceilings measured inline" 1 "$(query "SELECT count(*) FROM cases c JOIN runs r ON r.id=c.run_id WHERE r.kind='gemm' AND c.name='ceilings.matmul_fp8'")"
else
  check "fp8 before cc 8.9" 4 $rc
  grep -q 'needs compute capability 8.9' "$tmp/err" || { echo "FAIL: fp8 message"; cat "$tmp/err"; fail=1; }
fi

# 5. A model's decode GEMMs and the decode-step query over them.
printf 'kind = "gemm"\nmodel = "Kimi-K2.5"\nmodel_file = "%s"\ntp = 8\nm = [1]\nsamples = 5\ntop_n = 2\nonly = ["moe_gate_up", "moe_down", "kv_b_proj_k"]\n' \
  "$XP_SRC/experiments/models/Kimi-K2.5.toml" > "$tmp/kimi.toml"
"$XP" --db "$db" run "$tmp/kimi.toml" > "$tmp/out" 2> "$tmp/err"
check "kimi subset run" 0 $?
# the model file's bytes, as the run read them: an edit of the file gives other shapes
check "model file's sha256 recorded" "$(sha256sum < "$XP_SRC/experiments/models/Kimi-K2.5.toml" | cut -c1-64)" \
  "$(query "SELECT value FROM run_meta WHERE key = 'gemm.model_sha256' AND run_id = (SELECT max(id) FROM runs WHERE kind = 'gemm')")"
"$XP" --db "$db" query "$XP_SRC/queries/gemm_decode_step.sql" --param model=Kimi-K2.5 --param tp=8 --param batch=1 --format csv > "$tmp/step" 2>&1
check "decode step query" 0 $?
cat "$tmp/step"
grep -q '^moe_gate_up,1,512,7168,1,480,' "$tmp/step" || { echo "FAIL: decode step row"; fail=1; }
grep -q '^"\?decode step total' "$tmp/step" || { echo "FAIL: decode step total"; fail=1; }
finish
