-- GEMM roofline of the latest ok gemm run of each GPU: per GEMM, M and cache mode, cuBLASLt's
-- default and best-of-N times (medians, microseconds), the best one's achieved bandwidth and
-- compute as shares of the ceilings the run was judged against (run_meta gemm.ceilings),
-- and the bound: memory, compute, or latency when under half of both ceilings.
-- GB/s counts weight, activations and output once each. Each row names its GPU, as view
-- run_configuration spells it, and its run: an H200's and an RTX PRO 6000's GEMMs, measured
-- against ceilings 2-3x apart, are each their GPU's latest run, never one read as the other's.
--   xp query queries/gemm_roofline.sql
-- if no rows: no ok gemm run yet: xp run experiments/gemm_kimi_k25_tp8.toml on a GPU host
WITH run AS (
  SELECT id, uuid, gpu FROM (
    SELECT r.id, r.uuid, g.gpu_name AS gpu,
           row_number() OVER (PARTITION BY g.gpu_name ORDER BY r.started_at DESC, r.id DESC) AS recency
    FROM runs r JOIN run_configuration g ON g.run_id = r.id
    WHERE r.kind = 'gemm' AND r.status = 'ok')
  WHERE recency = 1
),
g AS (
  SELECT c.id, c.seq, c.name, c.status, c.note, c.params, run.gpu, run.uuid FROM cases c JOIN run ON c.run_id = run.id
  WHERE json_extract(c.params, '$.n') IS NOT NULL   -- not the inline ceilings.* cases
)
SELECT g.gpu, substr(g.uuid, 1, 8) AS run, g.name AS gemm,
       json_extract(g.params, '$.batch') AS batch,
       json_extract(g.params, '$.m') AS m,
       json_extract(g.params, '$.n') AS n,
       json_extract(g.params, '$.k') AS k,
       json_extract(g.params, '$.bmm') AS bmm,
       json_extract(g.params, '$.dtype') AS dtype,
       json_extract(g.params, '$.cache') AS cache,
       round(d.median, 2) AS default_us,
       round(b.median, 2) AS best_us,
       round(d.median / b.median, 2) AS best_speedup,
       round(gb.median, 0) AS gbps,
       round(100 * bs.median, 1) AS pct_copy,
       round(tf.median, 1) AS tflops,
       round(100 * cs.median, 1) AS pct_peak,
       coalesce(json_extract(g.params, '$.bound_best'), g.status) AS bound,
       json_extract(g.params, '$.best_index') AS best_idx,
       coalesce(json_extract(g.params, '$.algo_best'), g.note) AS algo_best
FROM g
LEFT JOIN metrics d ON d.case_id = g.id AND d.name = 'time_us'
LEFT JOIN metrics b ON b.case_id = g.id AND b.name = 'time_best_us'
LEFT JOIN metrics gb ON gb.case_id = g.id AND gb.name = 'gbps_best'
LEFT JOIN metrics bs ON bs.case_id = g.id AND bs.name = 'bw_share_best'
LEFT JOIN metrics tf ON tf.case_id = g.id AND tf.name = 'tflops_best'
LEFT JOIN metrics cs ON cs.case_id = g.id AND cs.name = 'compute_share_best'
ORDER BY g.gpu, g.seq;
