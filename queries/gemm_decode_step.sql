-- GEMM time of one decode step of :model at decode batch :batch and tensor parallel size :tp,
-- on one GPU: per GEMM the median time times its launches per step (count), from the latest
-- ok gemm run of that model and TP that measured this batch with cold weights (read from HBM,
-- as in decode). The last row is the step's total; it says "incomplete" when a GEMM of the
-- step failed (its check, or cuBLASLt had no plan) or was skipped (not measured at its dtype:
-- FP4 in a checkpoint run, fp8_block off Hopper; the case's note says why), each counted
-- apart, and "a subset" when the run measured only some GEMMs (only = [...], or
-- a shapes list labelled with the model). The run is the latest of any GPU: the total names
-- the GPU it ran on, as view run_configuration spells it (an H200's and an RTX PRO 6000's steps
-- are 2-3x apart; decode_gap_analysis.sql picks the traces' GPU's).
-- Columns *_default use cuBLASLt's heuristic choice, *_best the fastest of its top N.
--   xp query queries/gemm_decode_step.sql --param model=Kimi-K2.5 --param tp=8 --param batch=16
-- :model in any case (kimi-k2.5), as the gemm spec takes it against its model file.
WITH run AS (
  SELECT r.id, r.uuid, r.dtype, r.tp, (SELECT g.gpu_name FROM run_configuration g WHERE g.run_id = r.id) AS gpu,
         coalesce('only ' || json_extract(r.spec_json, '$.only'),
                  CASE WHEN json_extract(r.spec_json, '$.shapes') IS NOT NULL
                       THEN 'the shapes its spec lists, not derived from the model' END) AS only_gemms FROM runs r
  WHERE r.kind = 'gemm' AND r.status = 'ok' AND lower(r.model) = lower(:model) AND r.tp = :tp
    AND EXISTS (SELECT 1 FROM cases c WHERE c.run_id = r.id
                AND json_extract(c.params, '$.batch') = :batch
                AND json_extract(c.params, '$.cache') = 'cold')
  ORDER BY only_gemms IS NULL DESC, r.started_at DESC, r.id DESC LIMIT 1  -- the whole step first
),
step AS (
  SELECT c.seq, c.name AS gemm, c.status,
         json_extract(c.params, '$.m') AS m, json_extract(c.params, '$.n') AS n,
         json_extract(c.params, '$.k') AS k, json_extract(c.params, '$.bmm') AS bmm,
         json_extract(c.params, '$.count') AS count,
         d.median AS default_us, b.median AS best_us
  FROM cases c JOIN run ON c.run_id = run.id
  LEFT JOIN metrics d ON d.case_id = c.id AND d.name = 'time_us'
  LEFT JOIN metrics b ON b.case_id = c.id AND b.name = 'time_best_us'
  WHERE json_extract(c.params, '$.batch') = :batch AND json_extract(c.params, '$.cache') = 'cold'
)
SELECT gemm, m, n, k, bmm, count, default_us, best_us, step_default_us, step_best_us, pct_of_step
FROM (
  SELECT seq AS ord, gemm, m, n, k, bmm, count,
         round(default_us, 2) AS default_us, round(best_us, 2) AS best_us,
         round(default_us * count, 1) AS step_default_us, round(best_us * count, 1) AS step_best_us,
         round(100.0 * best_us * count / sum(best_us * count) OVER (), 1) AS pct_of_step
  FROM step
  UNION ALL
  SELECT 1e18, 'decode step total' ||
           coalesce((SELECT ' (' || coalesce(r.dtype, '?') || ', tp=' || coalesce(r.tp, '?') ||
                            coalesce(', ' || r.gpu, '') || ', run ' || substr(r.uuid, 1, 8) || ')' FROM run r),
                    ' (no gemm run of this model at this tp measured this batch cold)') ||
           CASE WHEN sum(best_us IS NULL) > 0
                THEN ' incomplete: ' ||
                     CASE WHEN sum(best_us IS NULL AND status IS NOT 'skipped') > 0
                          THEN sum(best_us IS NULL AND status IS NOT 'skipped') || ' GEMM(s) failed' ||
                               CASE WHEN sum(status = 'skipped') > 0 THEN ', ' ELSE '' END
                          ELSE '' END ||
                     CASE WHEN sum(status = 'skipped') > 0
                          THEN sum(status = 'skipped') || ' GEMM(s) skipped (not measured at their dtype)'
                          ELSE '' END
                ELSE '' END ||
           coalesce((SELECT ' a subset: ' || r.only_gemms FROM run r WHERE r.only_gemms IS NOT NULL), ''),
         NULL, NULL, NULL, NULL, sum(count), NULL, NULL,
         round(sum(default_us * count), 1), round(sum(best_us * count), 1),
         CASE WHEN count(*) > 0 THEN 100.0 END
  FROM step
)
ORDER BY ord;
