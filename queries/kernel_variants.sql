-- The best kernel variant per shape and architecture, with its speedup over the plain paths
-- timed side by side in the same run:
--   x_vs_dequant  dequant_cublas (dequantize to bf16, then cuBLASLt), same group size;
--   x_vs_bf16     cuBLASLt bf16 on the unquantized weights (cublas_bf16; for an MoE layer,
--                 cublas_bf16_per_expert: a gate_up and a down launch per active expert).
-- "Best" is the fastest median among the candidates (params role = 'candidate') that passed
-- the correctness gate; baselines never compete. Equal medians (a timer's resolution) go to
-- the steadier kernel, the lower p90, then to the variant whose name sorts first: the same
-- history always answers the same, whatever order its cases were recorded in. One row per (arch, GPU, family, shape,
-- its sizes, tokens M, group size), from the latest kernel_variant run that measured it: a
-- shape is its name and sizes ("gate_up" is n=512 k=7168 for Kimi-K2.5 at TP=8, n=384 k=5120
-- for GLM-4.5), so one model's run never hides another's shape of the same name. pct_copy is
-- the best variant's bytes (INT4 weights + scales + activations, once) over its time, as a
-- share of the copy ceiling the run used (run_meta kernel_variant.copy_ceiling_gbps).
-- read_floor_us is the floor timed beside an INT4 kernel: its bytes read bare in one launch
-- from the same rotated copies; x_read_floor, how many times that the kernel takes. run is the
-- run's id as xp runs and xp show name it (its UUID's first 8 digits).
--   xp query queries/kernel_variants.sql
-- if no rows: no kernel_variant case passed its check yet: xp run experiments/w4a16_variants.toml on a GPU host
WITH c AS (
  SELECT r.id AS run_id, r.uuid, r.started_at,
         json_extract(k.params, '$.arch') AS arch,
         json_extract(k.params, '$.gpu') AS gpu,
         json_extract(k.params, '$.family') AS family,
         json_extract(k.params, '$.variant') AS variant,
         json_extract(k.params, '$.role') AS role,
         json_extract(k.params, '$.shape') AS shape,
         CASE WHEN json_extract(k.params, '$.type') = 'moe'
              THEN printf('hidden=%d intermediate=%d experts=%d topk=%d', json_extract(k.params, '$.hidden'),
                          json_extract(k.params, '$.intermediate'), json_extract(k.params, '$.experts'),
                          json_extract(k.params, '$.topk'))
              WHEN json_extract(k.params, '$.n') IS NOT NULL
              THEN printf('n=%d k=%d', json_extract(k.params, '$.n'), json_extract(k.params, '$.k')) END AS sizes,
         json_extract(k.params, '$.m') AS m,
         json_extract(k.params, '$.group') AS grp,
         t.median AS us, t.p90 AS us_p90,
         (SELECT g.median FROM metrics g WHERE g.case_id = k.id AND g.name = 'gbps') AS gbps,
         (SELECT s.median FROM metrics s WHERE s.case_id = k.id AND s.name = 'copy_share') AS share,
         (SELECT f.median FROM metrics f WHERE f.case_id = k.id AND f.name = 'read_floor_us') AS read_floor
  FROM runs r
  JOIN cases k ON k.run_id = r.id AND k.status = 'ok'
  JOIN metrics t ON t.case_id = k.id AND t.name = 'time_us'
  WHERE r.kind = 'kernel_variant' AND r.status IN ('ok', 'aborted')
    AND json_extract(k.params, '$.variant') IS NOT NULL   -- not the inline ceiling.* cases
),
best AS (
  SELECT *, row_number() OVER (PARTITION BY run_id, family, shape, m, grp ORDER BY us, us_p90, variant) AS rk
  FROM c WHERE role = 'candidate'
),
latest AS (
  SELECT *, row_number() OVER (PARTITION BY arch, gpu, family, shape, sizes, m, grp
                               ORDER BY started_at DESC, run_id DESC) AS recency
  FROM best WHERE rk = 1
)
SELECT l.arch, l.gpu, l.family, l.shape, l.sizes, l.m AS M, l.grp AS "group", l.variant AS best_variant,
       round(l.us, 2) AS us, round(l.gbps) AS gbps, round(100 * l.share, 1) AS pct_copy,
       round(d.us, 2) AS dequant_cublas_us, round(d.us / l.us, 2) AS x_vs_dequant,
       b.variant AS bf16_baseline, round(b.us, 2) AS bf16_us, round(b.us / l.us, 2) AS x_vs_bf16,
       substr(l.uuid, 1, 8) AS run, round(l.read_floor, 2) AS read_floor_us, round(l.us / l.read_floor, 2) AS x_read_floor
FROM latest l
LEFT JOIN c d ON d.run_id = l.run_id AND d.family = l.family AND d.shape = l.shape AND d.m = l.m
              AND d.grp = l.grp AND d.role = 'dequant'
LEFT JOIN c b ON b.run_id = l.run_id AND b.family = l.family AND b.shape = l.shape AND b.m = l.m
              AND b.role = 'bf16'
WHERE l.recency = 1
ORDER BY l.arch, l.gpu, l.family, l.shape, l.sizes, l.grp DESC, l.m;
