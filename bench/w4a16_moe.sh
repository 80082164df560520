#!/usr/bin/env bash
# W4A16 proof on a GPU host: experiments/w4a16_variants.toml (Kimi-K2.5 TP=8 expert shapes,
# M = 1..16, groups 128 and 32, and the grouped MoE layer: top-8 of 384 experts, decode
# batch 1..16), then
#   1. every case: time, GB/s, share of the copy ceiling, speedup over cuBLAS bf16 on the
#      unquantized weights (cublas_bf16; per expert for the MoE layer);
#   2. the issue's targets for grouped_moe: <= 18 us and >= 5x the per-expert cuBLAS bf16
#      launches at batch 1 (../shared/anchors.md: 90.9 us), INT4 bytes at >= 70% of the
#      copy ceiling (us_at_70pct: the time that would take), and the floors the kernel stands
#      on: its bytes read bare in one launch, its launch with routing and barrier only, and
#      its skeleton (routing, barrier, every load in its order, no arithmetic), and the
#      skeleton with its barrier after every load (stream) or left out (routed read);
#   3. queries/kernel_variants.sql: best variant per shape and arch, speedups.
# Usage: XP=build/xp XP_SRC=. bash bench/w4a16_moe.sh   (prints "skipped" without a GPU)
set -u
XP=${XP:-xp}
XP_SRC=${XP_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "w4a16_moe: skipped: no GPU"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=${XP_BENCH_DB:-$tmp/bench.db}
q() { # q TITLE SQL: print a titled table
  printf '%s\n' "$2" > "$tmp/q.sql"
  echo
  echo "== $1"
  "$XP" --db "$db" query "$tmp/q.sql"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
t0=$SECONDS
if ! "$XP" --db "$db" run "$XP_SRC/experiments/w4a16_variants.toml" > "$tmp/run.out" 2> "$tmp/run.err"; then
  cat "$tmp/run.out" "$tmp/run.err"
  echo "w4a16_moe: xp run failed"
  exit 1
fi
grep -E 'failed|copy ceiling' "$tmp/run.out"
echo "ran w4a16_variants.toml in $((SECONDS - t0)) s"

CASES="WITH run AS (SELECT max(id) AS id FROM runs WHERE kind = 'kernel_variant'),
c AS (
  SELECT k.id, k.seq, k.status, k.note, json_extract(k.params, '\$.variant') AS variant,
         json_extract(k.params, '\$.role') AS role, json_extract(k.params, '\$.shape') AS shape,
         json_extract(k.params, '\$.m') AS m, json_extract(k.params, '\$.group') AS grp,
         json_extract(k.params, '\$.active_experts') AS experts,
         t.median AS us, g.median AS gbps, s.median AS share, rf.median AS read_floor,
         lf.median AS launch_floor, sf.median AS skeleton_floor, stf.median AS stream_floor,
         rr.median AS routed_read_floor
  FROM cases k JOIN run ON k.run_id = run.id
  LEFT JOIN metrics t ON t.case_id = k.id AND t.name = 'time_us'
  LEFT JOIN metrics g ON g.case_id = k.id AND g.name = 'gbps'
  LEFT JOIN metrics s ON s.case_id = k.id AND s.name = 'copy_share'
  LEFT JOIN metrics rf ON rf.case_id = k.id AND rf.name = 'read_floor_us'
  LEFT JOIN metrics lf ON lf.case_id = k.id AND lf.name = 'launch_floor_us'
  LEFT JOIN metrics sf ON sf.case_id = k.id AND sf.name = 'skeleton_floor_us'
  LEFT JOIN metrics stf ON stf.case_id = k.id AND stf.name = 'stream_floor_us'
  LEFT JOIN metrics rr ON rr.case_id = k.id AND rr.name = 'routed_read_floor_us'
  WHERE json_extract(k.params, '\$.variant') IS NOT NULL)"

q "every case (x_bf16: speedup over cuBLAS bf16 on unquantized weights, same shape and M)" "$CASES
SELECT c.variant, c.shape, c.m AS M, coalesce(c.grp, '-') AS G, round(c.us, 2) AS us, round(c.gbps) AS GBps,
       round(100 * c.share, 1) AS pct_copy, round(b.us / c.us, 2) AS x_bf16,
       CASE WHEN c.status = 'ok' THEN '' ELSE c.status || ': ' || substr(coalesce(c.note, ''), 1, 60) END AS note
FROM c LEFT JOIN c b ON b.role = 'bf16' AND b.shape = c.shape AND b.m = c.m
ORDER BY c.shape, c.grp DESC, c.m, c.seq;"

q "grouped_moe vs the issue's targets (<= 18 us and >= 5x per-expert cuBLAS bf16 at batch 1; >= 70% of copy)" "$CASES
SELECT c.variant, c.m AS batch, c.grp AS G, round(c.experts, 1) AS experts, round(c.us, 2) AS us,
       round(b.us, 2) AS cublas_per_expert_us, round(b.us / c.us, 2) AS speedup,
       round(100 * c.share, 1) AS pct_copy,
       CASE WHEN c.m != 1 THEN '' WHEN c.us <= 18 AND b.us / c.us >= 5 THEN 'yes' ELSE 'NO' END AS time_target,
       CASE WHEN c.share >= 0.70 THEN 'yes' ELSE 'NO' END AS bw_target,
       round(c.share * c.us / 0.70, 2) AS us_at_70pct
FROM c LEFT JOIN c b ON b.variant = 'cublas_bf16_per_expert' AND b.m = c.m
WHERE c.variant LIKE 'grouped_moe%' AND c.status = 'ok'
ORDER BY c.grp DESC, c.m, c.variant;"

q "grouped_moe against its floors: a bare read of its expert bytes in one launch (read), the same launch with routing and barrier only (launch), and with routing, barrier and every load in the kernel's order but no arithmetic (skeleton)" "$CASES
SELECT c.variant, c.m AS batch, c.grp AS G, round(c.us, 2) AS us, round(c.read_floor, 2) AS read_floor_us,
       round(c.launch_floor, 2) AS launch_floor_us, round(c.skeleton_floor, 2) AS skeleton_floor_us,
       round(c.us - c.skeleton_floor, 2) AS above_skeleton_us,
       round(c.share * c.us / 0.70, 2) AS us_at_70pct,
       round(100 * c.share * c.us / c.skeleton_floor, 1) AS skeleton_pct_copy
FROM c WHERE c.variant LIKE 'grouped_moe%' AND c.status = 'ok'
ORDER BY c.grp DESC, c.m, c.variant;"

q "the skeleton with its barrier moved: between gate_up's and down's loads as in the kernel (skeleton), after every load (stream: down's weights all in flight before the barrier), left out (routed read: no kernel reading these bytes in this order after its routing does better); pct: share of the copy ceiling each reaches" "$CASES
SELECT c.variant, c.m AS batch, c.grp AS G, round(c.us_at_70, 2) AS us_at_70pct,
       round(c.skeleton_floor, 2) AS skeleton_us, round(100 * c.share * c.us / c.skeleton_floor, 1) AS skeleton_pct,
       round(c.stream_floor, 2) AS stream_us, round(100 * c.share * c.us / c.stream_floor, 1) AS stream_pct,
       round(c.routed_read_floor, 2) AS routed_read_us,
       round(100 * c.share * c.us / c.routed_read_floor, 1) AS routed_read_pct,
       round(c.read_floor, 2) AS read_us, round(100 * c.share * c.us / c.read_floor, 1) AS read_pct
FROM (SELECT *, share * us / 0.70 AS us_at_70 FROM c) c WHERE c.variant LIKE 'grouped_moe%' AND c.status = 'ok'
ORDER BY c.grp DESC, c.m, c.variant;"

q "single-expert GEMMs: best INT4 variant vs cuBLAS bf16 (Marlin reports ~3.9x at batch <= 16), and the floor: its INT4 bytes read bare in one launch" "$CASES,
best AS (SELECT *, row_number() OVER (PARTITION BY shape, m, grp ORDER BY us) AS rk
         FROM c WHERE role = 'candidate' AND status = 'ok' AND shape != 'moe_layer')
SELECT x.shape, x.m AS M, x.grp AS G, x.variant AS best, round(x.us, 2) AS us, round(b.us, 2) AS bf16_us,
       round(b.us / x.us, 2) AS speedup, round(100 * x.share, 1) AS pct_copy,
       round(d.us / x.us, 2) AS x_dequant_cublas, round(x.read_floor, 2) AS read_floor_us
FROM best x LEFT JOIN c b ON b.role = 'bf16' AND b.shape = x.shape AND b.m = x.m
LEFT JOIN c d ON d.role = 'dequant' AND d.shape = x.shape AND d.m = x.m AND d.grp = x.grp
WHERE x.rk = 1 ORDER BY x.shape, x.grp DESC, x.m;"

echo
echo "== queries/kernel_variants.sql"
"$XP" --db "$db" query "$XP_SRC/queries/kernel_variants.sql"
