#!/usr/bin/env bash
# w4a16 kernel variants on a real GPU: every variant passes the float32 gate on Kimi-K2.5's
# expert shapes (token counts on both sides of the 8-token MMA tile, group sizes with the
# scale applied before and after the MMA) and on a grouped MoE layer; shapes a variant
# cannot run are skipped with the reason and never launched; a gate that cannot be met
# records the variant failed with its error and no timing; the query reads it all back.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
cat > "$tmp/small.toml" <<'TOML'
kind = "kernel_variant"
family = "w4a16"
m = [1, 3, 8, 9, 16]
group_sizes = [128, 32, 96]
samples = 5
warmup = 2
routings = 4
ceilings = "measure"
shapes = [{name = "gate_up", n = 512, k = 7168},
          {name = "down", n = 7168, k = 256},
          {name = "odd", n = 520, k = 7168},
          {name = "moe", type = "moe", hidden = 7168, intermediate = 256, experts = 64, topk = 8}]
TOML

gpu_run_ok "$tmp/small.toml" "kernel_variant run"

# 1. Every supported case passed the gate and was timed; none failed.
failed=$(query "SELECT name || ': ' || note FROM cases WHERE status = 'failed'")
check "failed cases" "" "$failed"
check "cases measured" 115 "$(query "SELECT count(*) FROM cases WHERE status = 'ok' AND name NOT LIKE 'ceiling.%'")"
check "cases skipped" 115 "$(query "SELECT count(*) FROM cases WHERE status = 'skipped'")"
check "timed with 5 samples each" 0 "$(query "SELECT count(*) FROM cases c LEFT JOIN metrics m ON m.case_id = c.id
  AND m.name = 'time_us' AND m.n = 5 WHERE c.status = 'ok' AND c.name NOT LIKE 'ceiling.%' AND m.case_id IS NULL")"
check "errors within the tolerance" 0 "$(query "SELECT count(*) FROM cases c LEFT JOIN metrics m ON m.case_id = c.id
  AND m.name = 'max_err' WHERE c.status = 'ok' AND c.name NOT LIKE 'ceiling.%' AND NOT (m.median <= 0.01)")"
check "copy ceiling measured and used" 1 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id = c.id
  WHERE c.name = 'ceiling.copy' AND m.name = 'gbps' AND m.median > 200")"
check "copy shares recorded" 0 "$(query "SELECT count(*) FROM cases c LEFT JOIN metrics m ON m.case_id = c.id
  AND m.name = 'copy_share' WHERE c.status = 'ok' AND c.name NOT LIKE 'ceiling.%' AND m.case_id IS NULL")"

# 2. What a case records: arch, kernel attributes, parameters.
check "arch recorded" 0 "$(query "SELECT count(*) FROM cases WHERE status = 'ok' AND name NOT LIKE 'ceiling.%'
  AND json_extract(params, '\$.arch') NOT LIKE 'sm_%'")"
check "registers of fused kernels" 0 "$(query "SELECT count(*) FROM cases WHERE status = 'ok'
  AND json_extract(params, '\$.variant') IN ('fused_gemv', 'fused_mma', 'fused_splitk')
  AND NOT (json_extract(params, '\$.regs') > 0 AND json_extract(params, '\$.binary_arch') > 0)")"
check "registers, shared memory and grid of the grouped launch" 0 "$(query "SELECT count(*) FROM cases WHERE status = 'ok'
  AND json_extract(params, '\$.variant') LIKE 'grouped_moe%'
  AND NOT (json_extract(params, '\$.regs') > 0 AND json_extract(params, '\$.smem_static') > 0
           AND json_extract(params, '\$.blocks') >= 1)")"
check "cuBLASLt algorithm named" 0 "$(query "SELECT count(*) FROM cases WHERE status = 'ok'
  AND json_extract(params, '\$.variant') IN ('cublas_bf16', 'dequant_cublas') AND json_extract(params, '\$.algo') IS NULL")"
check "split-K factor" 4 "$(query "SELECT DISTINCT json_extract(params, '\$.split_k') FROM cases
  WHERE json_extract(params, '\$.variant') = 'fused_splitk' AND status = 'ok'")"

# 3. Unsupported shapes: skipped with the reason, never run.
check "odd N skipped" 65 "$(query "SELECT count(*) FROM cases WHERE status = 'skipped'
  AND json_extract(params, '\$.shape') = 'odd' AND note LIKE '%multiple of 16%'")"
check "group 96 skipped" 50 "$(query "SELECT count(*) FROM cases WHERE status = 'skipped'
  AND json_extract(params, '\$.group') = 96 AND note LIKE '%power of two%'")"
check "skips have no timing" 0 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id = c.id WHERE c.status = 'skipped'")"

# 4. Grouped MoE at batch 1 beats a cuBLAS launch per expert (the proof is bench/w4a16_moe.sh).
faster=$(query "SELECT count(*) FROM cases g JOIN metrics gm ON gm.case_id = g.id AND gm.name = 'time_us'
  JOIN cases b ON b.run_id = g.run_id AND json_extract(b.params, '\$.variant') = 'cublas_bf16_per_expert'
   AND json_extract(b.params, '\$.m') = 1
  JOIN metrics bm ON bm.case_id = b.id AND bm.name = 'time_us'
  WHERE json_extract(g.params, '\$.variant') = 'grouped_moe' AND json_extract(g.params, '\$.m') = 1
    AND g.status = 'ok' AND gm.median < bm.median")
check "grouped_moe faster than per-expert cuBLAS at batch 1 (both groups)" 2 "$faster"

# 4b. Floors beside the INT4 kernels: a bare read of their bytes for every fused and grouped
# case, and for the grouped launch the same launch with routing and barrier only, which does
# strictly less and so takes less time than the kernel.
check "read floor of every INT4 kernel" 0 "$(query "SELECT count(*) FROM cases c LEFT JOIN metrics m ON m.case_id = c.id
  AND m.name = 'read_floor_us' AND m.n = 5 AND m.min > 0 WHERE c.status = 'ok'
  AND json_extract(c.params, '\$.variant') IN ('fused_gemv', 'fused_mma', 'fused_splitk', 'grouped_moe', 'grouped_moe_pdl')
  AND m.case_id IS NULL")"
check "no floors for the cuBLAS paths" 0 "$(query "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id = c.id
  AND m.name LIKE '%floor%' WHERE json_extract(c.params, '\$.variant') IN ('cublas_bf16', 'dequant_cublas', 'cublas_bf16_per_expert')")"
check "launch floor below the grouped kernel" 0 "$(query "SELECT count(*) FROM cases c
  JOIN metrics t ON t.case_id = c.id AND t.name = 'time_us'
  LEFT JOIN metrics f ON f.case_id = c.id AND f.name = 'launch_floor_us' AND f.n = 5 AND f.min > 0
  WHERE c.status = 'ok' AND json_extract(c.params, '\$.variant') LIKE 'grouped_moe%'
    AND NOT (f.median < t.median)")"
# The skeleton (routing, barrier, every load, no arithmetic) does strictly more than the
# launch floor and less than the kernel.
check "skeleton floor between the launch floor and the kernel" 0 "$(query "SELECT count(*) FROM cases c
  JOIN metrics t ON t.case_id = c.id AND t.name = 'time_us'
  JOIN metrics l ON l.case_id = c.id AND l.name = 'launch_floor_us'
  LEFT JOIN metrics f ON f.case_id = c.id AND f.name = 'skeleton_floor_us' AND f.n = 5 AND f.min > 0
  WHERE c.status = 'ok' AND json_extract(c.params, '\$.variant') LIKE 'grouped_moe%'
    AND NOT (f.median < t.median AND f.median > l.median)")"

# Its barrier after every load, or none: each does the skeleton's loads with a barrier that
# splits no stream (or none), so it is faster than the skeleton and slower than the launch.
check "stream and routed-read floors below the skeleton" 0 "$(query "SELECT count(*) FROM cases c
  JOIN metrics k ON k.case_id = c.id AND k.name = 'skeleton_floor_us'
  JOIN metrics l ON l.case_id = c.id AND l.name = 'launch_floor_us'
  LEFT JOIN metrics st ON st.case_id = c.id AND st.name = 'stream_floor_us' AND st.n = 5 AND st.min > 0
  LEFT JOIN metrics rr ON rr.case_id = c.id AND rr.name = 'routed_read_floor_us' AND rr.n = 5 AND rr.min > 0
  WHERE c.status = 'ok' AND json_extract(c.params, '\$.variant') LIKE 'grouped_moe%'
    AND NOT (st.median < k.median AND rr.median < k.median AND rr.median > l.median AND st.median > l.median)")"

# 5. The query: a best variant for every measured shape, M and group.
"$XP" --db "$db" query "$XP_SRC/queries/kernel_variants.sql"
"$XP" --db "$db" query "$XP_SRC/queries/kernel_variants.sql" --format csv > "$tmp/best" 2> "$tmp/qerr"
check "kernel_variants.sql" 0 $?
check "best rows (3 shapes x 5 M x 2 groups)" 30 "$(tail -n +2 "$tmp/best" | wc -l)"
check "speedups over both baselines for the GEMMs" 20 "$(tail -n +2 "$tmp/best" | awk -F, '$4 != "moe" && $12 != "" && $15 != ""' | wc -l)"

# 6. A gate that cannot pass (bf16 output rounding exceeds 1e-7): failed, with the error, untimed.
cat > "$tmp/strict.toml" <<'TOML'
kind = "kernel_variant"
family = "w4a16"
variants = ["fused_mma"]
m = [1]
group_sizes = [128]
tolerance = 1e-7
samples = 3
shapes = [{name = "down", n = 7168, k = 256}]
TOML
"$XP" --db "$db" run "$tmp/strict.toml" > "$tmp/out" 2> "$tmp/err"
check "strict run is recorded" 0 $?
last="(SELECT max(id) FROM runs WHERE kind = 'kernel_variant')"
check "strict gate: failed with the error" "failed,1" "$(query "SELECT status, note LIKE 'wrong result: max |out - ref|%exceeds the tolerance%'
  FROM cases WHERE run_id = $last AND name NOT LIKE 'ceiling.%'")"
check "strict gate: never timed" 0 "$(query "SELECT count(*) FROM metrics m JOIN cases c ON c.id = m.case_id
  WHERE c.run_id = $last AND c.name NOT LIKE 'ceiling.%'")"

finish
