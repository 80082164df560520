-- Decode step of one configuration: what the micro-benchmarks predict beside what the traces
-- measured, component by component, and the gap. All times are microseconds per decode step
-- on one GPU.
--   xp query queries/decode_gap_analysis.sql --param model=Kimi-K2.5 --param tp=8 \
--       --param batch=16 --param interconnect=any      (or nvlink, pcie, ...: in any case, as
--                                                      allreduce_share.sql takes it; :model too,
--                                                      as a gemm spec takes it against its file)
--
-- The traces of :model, :tp and :batch are told apart by the rest of their configuration, as
-- in queries/bottleneck_by_config.sql (view run_configuration): GPU, interconnect, and the
-- declared engine, dtype, quantization, EP and PP (config: "engine=vllm dtype=fp8"). Each
-- configuration has its six rows, its own measured figures, all-reduce sizes and nccl_burst
-- series, named in the last columns (gpu, interconnect, config); without a trace, one set of
-- rows with those NULL. An fp8 and a bf16 trace, or vLLM's and SGLang's, are never averaged.
--
-- Predicted (micro-benchmarks):
--   gemm       the latest ok gemm run of :model at :tp with cold-weight cases at :batch, one
--              on the configuration's GPU (view run_configuration, runs.gpu_name) preferred to
--              any other, then one of its traces' dtype (for traces declared fp8 or fp8_block, a
--              checkpoint run, each GEMM at the dtype its checkpoint ships, then an fp8_block one,
--              DeepSeek's block scales as engines run its FP8 checkpoints, then fp8; the basis
--              names the dtype where it is not the traces'; where none fits, it says what to run:
--              dtype = "checkpoint" for fp8 traces of a model whose checkpoint is block-scaled fp8,
--              run_meta gemm.checkpoint_dtype of its gemm runs, else the traces' dtype): each
--              GEMM's median time (cuBLASLt's
--              default algorithm, as an engine gets it) times its launches per step; the
--              best-of-N total and the run's GPU are in the basis. NULL when a GEMM of the step
--              failed (its check, or cuBLASLt had no plan) or was skipped (not measured at its
--              dtype: FP4, or fp8_block off Hopper; the basis counts each apart), or when the run
--              measured some GEMMs only (only = [...], or a shapes list labelled with the
--              model): a run of the whole step is preferred to a newer one of a subset; when
--              its dtype is not the one the configuration's traces declare (an fp8 engine's
--              step from bf16 GEMMs); and when it ran on another GPU than the traces (an H200's
--              step from an RTX PRO 6000's GEMMs: a decode GEMM's time is the GPU's memory
--              bandwidth and compute, 2-3x apart between these, so the gap would measure the
--              GPUs, not the engine). A GPU unknown on either side is no difference.
--   allreduce  per all-reduce message size, the all-reduces per step times the time of one
--              all-reduce of that size (time_us: a burst's time / its length), interpolated
--              linearly between the two nearest measured sizes of one nccl_burst series with
--              :tp ranks (and :interconnect): the one spanning most of the sizes, then CUDA-graph
--              mode, out-of-place, bf16 and the latest measured run preferred (with :interconnect any,
--              one on the configuration's interconnect first, then one whose interconnect a side
--              did not record, then another; then one on its GPU, then one of a GPU unknown on
--              either side, then another GPU's). Another GPU's series still predicts, the basis
--              naming its GPU and saying it is another's: an all-reduce's time is mostly the interconnect's
--              and NCCL's, matched first. Sizes and counts come
--              from the configuration's traces; without a trace, from the gemm
--              run's o_proj (batch x hidden x 2 bytes, two all-reduces per layer: after
--              attention and after the MLP, as tensor-parallel decoder layers do). NULL when a
--              size lies outside the measured range.
--   decode step  gemm + allreduce: the step if nothing else ran and the GPU never waited.
-- Measured (torch_trace runs of the configuration; averages over every marked step of every
-- rank; traces imported without step marks, or with no GPU time in their steps, are left out, and a job imported twice, or its ranks alone as well, counts once:
-- schema view trace_step_totals, as in xp report):
--   gemm = kernels of categories gemm and moe; allreduce = its kernels, waiting for the other
--   ranks included (the basis says how much of it was waiting, where ranks were matched);
--   other kernels; overlap between streams (negative: time counted twice); idle GPU; the
--   step = first kernel start to last kernel end. The measured column adds up to the step.
--   Categories are the ones in force now (xp reclassify), for the time, the waiting and the
--   message sizes alike.
-- A side without runs is NULL; the basis says what to run.
-- Each CTE is named in as few places as it can be: SQLite copies a CTE's definition, and the views
-- and CTEs it names, for every place that names it, so a CTE named from four places whose own
-- CTEs are each named from two more costs eight copies of theirs. Preparing this query took
-- 1.1 s and 190 MB when measured read step_cats three times, basis series four times and
-- f measured, ar and gemm again beside basis (bench/trace_query_bench.sh); with configs named
-- nine times (measured, gemm_run, f and the answer each joined it again for its columns, which
-- measured and gemm_fit now carry), 0.49 s and 38 MB on 30 jobs, 0.32 s and 35 MB named six.
WITH
candidates AS MATERIALIZED (  -- the trace runs the figures count (schema view trace_step_totals: each job
                 -- once, with step time) of :model, :tp and :batch (view run_configuration),
                 -- less those without marked steps: a window is not a step
  SELECT t.run_id AS id, g.gpu_name, g.interconnect, g.config, r.dtype, t.single_rank
  FROM trace_step_totals t JOIN run_configuration g ON g.run_id = t.run_id JOIN runs r ON r.id = t.run_id
  WHERE lower(g.model) = lower(:model) AND g.tp = :tp AND g.batch = :batch
    AND (lower(:interconnect) IN ('', 'any') OR lower(g.interconnect) = lower(:interconnect)) AND NOT t.whole_window
),
configs AS MATERIALIZED (  -- one per configuration of the traces, or a single one without any (all NULL);
              -- dtype is config's (the label names it), for the gemm run's basis
  SELECT row_number() OVER (ORDER BY gpu_name, interconnect, config) AS cfg, gpu_name, interconnect, config, dtype
  FROM (SELECT 1) LEFT JOIN (SELECT DISTINCT gpu_name, interconnect, config, dtype FROM candidates)
),
traces AS MATERIALIZED (
  SELECT t.id, c.cfg, t.single_rank FROM candidates t
  JOIN configs c ON c.gpu_name IS t.gpu_name AND c.interconnect IS t.interconnect AND c.config IS t.config
),
steps AS MATERIALIZED (
  SELECT s.run_id, s.rank, s.step, t.cfg, s.gpu_end_ns - s.gpu_start_ns AS span_ns, s.busy_ns, s.kernel_ns, t.single_rank
  FROM trace_steps s JOIN traces t ON t.id = s.run_id
  WHERE s.gpu_start_ns IS NOT NULL
),
-- The category and waiting totals of the configurations' steps, a row per configuration, from
-- the steps' own kernels: the per-step views trace_step_categories and trace_step_collectives
-- GROUP BY, and SQLite sums every run of the database in them before a join picks the steps.
step_cats AS MATERIALIZED (
  SELECT s.cfg,
         sum(CASE WHEN c.category IN ('gemm', 'moe') THEN c.total_ns END) AS gemm_ns,
         sum(CASE WHEN c.category = 'allreduce' THEN c.total_ns END) AS ar_ns,
         sum(CASE WHEN c.category = 'allreduce' AND s.single_rank = 0 THEN c.total_ns END) AS ar_multi_ns
  FROM steps s JOIN trace_step_kernel_stats c USING (run_id, rank, step)
  GROUP BY s.cfg
),
step_waits AS MATERIALIZED (
  SELECT s.cfg, sum(k.wait_ns) AS wait_ns
  FROM steps s JOIN trace_collective_kernels k USING (run_id, rank, step)
  WHERE k.collective = 'allreduce' AND s.single_rank = 0
  GROUP BY s.cfg
),
measured AS MATERIALIZED (  -- step_cats, step_waits and the runs: a row per configuration, with its
                            -- GPU, interconnect, config and dtype for f and the rows
  SELECT g.cfg, g.gpu_name, g.interconnect, g.config, g.dtype, count(s.run_id) AS nsteps, coalesce(max(t.runs), 0) AS nruns,
         avg(span_ns) / 1e3 AS span_us, avg(busy_ns) / 1e3 AS busy_us, avg(kernel_ns) / 1e3 AS kernel_us,
         max(x.gemm_ns) / 1e3 / nullif(count(s.run_id), 0) AS gemm_us,
         coalesce(max(x.ar_ns), 0) / 1e3 / nullif(count(s.run_id), 0) AS ar_us,
         -- waiting is known for multi-rank runs only: averaged over their steps alone, beside
         -- their own all-reduce time (over all steps, single-rank ones too, it could exceed it)
         max(w.wait_ns) / 1e3 / nullif(sum(s.single_rank = 0), 0) AS ar_wait_us,
         coalesce(max(x.ar_multi_ns), 0) / 1e3 / nullif(sum(s.single_rank = 0), 0) AS ar_multi_us,
         sum(s.single_rank = 1) AS single_rank_steps
  FROM configs g LEFT JOIN steps s ON s.cfg = g.cfg LEFT JOIN step_cats x ON x.cfg = g.cfg
  LEFT JOIN step_waits w ON w.cfg = g.cfg
  LEFT JOIN (SELECT cfg, count(*) AS runs FROM traces GROUP BY cfg) t ON t.cfg = g.cfg
  GROUP BY g.cfg
),
gemm_runs AS MATERIALIZED (  -- the ok gemm runs of :model at :tp with cold-weight cases at :batch
  SELECT r.id, substr(r.uuid, 1, 8) AS run, r.dtype, r.gpu_name, r.started_at,
         CASE WHEN json_extract(r.spec_json, '$.only') IS NOT NULL
              THEN 'only ' || json_extract(r.spec_json, '$.only')
              WHEN json_extract(r.spec_json, '$.shapes') IS NOT NULL THEN 'the shapes its spec lists' END AS subset,
         (SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'gemm.checkpoint_dtype') AS ck_dtype
  FROM runs r
  WHERE r.kind = 'gemm' AND r.status = 'ok' AND lower(r.model) = lower(:model) AND r.tp = :tp
    AND EXISTS (SELECT 1 FROM cases c WHERE c.run_id = r.id
                AND json_extract(c.params, '$.batch') = :batch AND json_extract(c.params, '$.cache') = 'cold')
),
gemm_fit AS MATERIALIZED (  -- how well each gemm run's dtype fits each configuration's: 0 another dtype;
               -- fp8 traces (DeepSeek's checkpoints are block-scaled fp8, as vLLM and SGLang run
               -- them) are fitted best by a checkpoint run, then fp8_block, then fp8 itself
  SELECT c.cfg, c.gpu_name AS cfg_gpu, g.*,
         CASE WHEN c.dtype IN ('fp8', 'fp8_block') AND g.dtype = 'checkpoint' THEN 3
              WHEN c.dtype IN ('fp8', 'fp8_block') AND g.dtype = 'fp8_block' THEN 2
              WHEN g.dtype = c.dtype THEN 1 ELSE 0 END AS fit
  FROM configs c, gemm_runs g
),
gemm_run AS MATERIALIZED (  -- one per configuration: a run on its GPU first (where both name theirs: another
               -- GPU's GEMMs predict none of its step, and one of its own then says what to run),
               -- then one of the dtype its traces declare (gemm_fit; likewise), then a run of the whole step (one of some GEMMs, only = [...] or a shapes list
               -- under the model's label, predicts no step, and is named in the basis), the latest
  SELECT * FROM (
    SELECT f.*, row_number() OVER (PARTITION BY f.cfg
                                   ORDER BY (f.gpu_name = f.cfg_gpu) IS 1 DESC, f.fit DESC,
                                            f.subset IS NULL DESC,
                                            f.started_at DESC, f.id DESC) AS pick
    FROM gemm_fit f)
  WHERE pick = 1
),
gemm_cases AS MATERIALIZED (
  SELECT g.cfg, c.name, c.status, json_extract(c.params, '$.count') AS count,
         json_extract(c.params, '$.m') AS m, json_extract(c.params, '$.n') AS n,
         d.median AS default_us, b.median AS best_us
  FROM cases c JOIN gemm_run g ON c.run_id = g.id
  LEFT JOIN metrics d ON d.case_id = c.id AND d.name = 'time_us'
  LEFT JOIN metrics b ON b.case_id = c.id AND b.name = 'time_best_us'
  WHERE json_extract(c.params, '$.batch') = :batch AND json_extract(c.params, '$.cache') = 'cold'
),
gemm AS MATERIALIZED (  -- per configuration; other: its gemm run measured another dtype or GPU than its
           -- traces declare (unknown on either side is no difference), so predicts nothing
  SELECT c.cfg, g.run, g.subset, g.dtype, g.gpu_name,
         -- the model's checkpoint dtype, as its latest gemm run read it from the model file
         (SELECT ck_dtype FROM gemm_runs WHERE ck_dtype IS NOT NULL ORDER BY started_at DESC, id DESC LIMIT 1) AS ck_dtype,
         coalesce(g.fit = 0 AND g.dtype <> c.dtype, 0) AS other_dtype, coalesce(g.gpu_name <> c.gpu_name, 0) AS other_gpu,
         coalesce(g.fit > 1, 0) AS fitted_dtype,
         count(k.name) AS shapes, sum(k.count) AS launches,
         sum(k.status IS NOT 'skipped' AND (k.status <> 'ok' OR k.default_us IS NULL)) AS failed,
         sum(k.status = 'skipped') AS skipped,
         CASE WHEN sum(k.status <> 'ok' OR k.default_us IS NULL) = 0 AND g.subset IS NULL
              THEN sum(k.default_us * k.count) END AS default_us,
         CASE WHEN sum(k.status <> 'ok' OR k.best_us IS NULL) = 0 AND g.subset IS NULL
              THEN sum(k.best_us * k.count) END AS best_us
  FROM configs c LEFT JOIN gemm_run g ON g.cfg = c.cfg LEFT JOIN gemm_cases k ON k.cfg = c.cfg
  GROUP BY c.cfg
),
-- All-reduces per step by message size, per configuration: from its traces (the kernels that
-- are all-reduces now, as in measured), else from the gemm run's o_proj.
ar_sizes AS MATERIALIZED (
  SELECT s.cfg, k.in_bytes AS bytes, count(*) * 1.0 / m.nsteps AS per_step, 'traces' AS origin
  FROM trace_collective_kernels k JOIN steps s USING (run_id, rank, step) JOIN measured m ON m.cfg = s.cfg
  WHERE k.collective = 'allreduce' AND k.in_bytes > 0
  GROUP BY s.cfg, k.in_bytes
  UNION ALL
  SELECT k.cfg, m * n * 2, 2.0 * count, 'o_proj' FROM gemm_cases k
  WHERE name = 'o_proj' AND NOT EXISTS (SELECT 1 FROM steps s WHERE s.cfg = k.cfg)
),
nccl_points AS MATERIALIZED (
  SELECT r.id AS run_id, substr(r.uuid, 1, 8) AS run, (SELECT measured_at FROM run_measured WHERE run_id = r.id) AS measured_at,
         r.interconnect, r.gpu_name,
         json_extract(c.params, '$.mode') AS mode, json_extract(c.params, '$.placement') AS placement,
         json_extract(c.params, '$.dtype') AS dtype, json_extract(c.params, '$.burst') AS burst,
         json_extract(c.params, '$.bytes') AS bytes, m.median AS time_us
  FROM runs r JOIN cases c ON c.run_id = r.id
  JOIN metrics m ON m.case_id = c.id AND m.name = 'time_us'
  WHERE r.kind = 'nccl_burst' AND r.status = 'ok' AND c.status = 'ok'
    AND json_extract(c.params, '$.collective') = 'allreduce'
    AND coalesce(json_extract(c.params, '$.ranks'), r.gpu_count) = :tp
    AND (lower(:interconnect) IN ('', 'any') OR lower(r.interconnect) = lower(:interconnect))
),
-- One series of measurements (run, mode, placement, dtype, burst) per configuration: with
-- :interconnect any, one on the configuration's interconnect first, then one whose interconnect
-- a side did not record (it may be the same) before one on another; then likewise one on its
-- GPU, then one of a GPU unknown on either side, then another GPU's; then the one whose sizes
-- span the most of its message sizes, then by preference, the latest measured (not imported)
-- last. Another GPU's series still predicts, said in the basis: an all-reduce's time is mostly its interconnect's and NCCL's, matched
-- first, where a GEMM's is the GPU's own memory bandwidth and compute.
series_of AS MATERIALIZED (
  SELECT g.cfg, p.run_id, p.run, p.gpu_name, p.interconnect, p.mode, p.placement, p.dtype, p.burst, p.measured_at,
         p.interconnect IS g.interconnect AS same_interconnect,
         coalesce(p.interconnect <> g.interconnect, 0) AS other_interconnect,
         (p.gpu_name = g.gpu_name) IS 1 AS same_gpu, coalesce(p.gpu_name <> g.gpu_name, 0) AS other_gpu,
         (SELECT count(*) FROM ar_sizes a WHERE a.cfg = g.cfg AND a.bytes BETWEEN min(p.bytes) AND max(p.bytes)) AS covers
  FROM configs g, nccl_points p
  GROUP BY g.cfg, p.run_id, p.mode, p.placement, p.dtype, p.burst
),
series AS MATERIALIZED (
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY cfg
                                 ORDER BY same_interconnect DESC, other_interconnect, same_gpu DESC, other_gpu,
                                          covers DESC, mode = 'graph' DESC,
                                          placement = 'out_of_place' DESC, dtype = 'bf16' DESC,
                                          julianday(measured_at) DESC, run_id DESC, burst DESC) AS pick
    FROM series_of)
  WHERE pick = 1
),
curve AS MATERIALIZED (
  SELECT s.cfg, p.bytes, p.time_us FROM nccl_points p JOIN series s
  ON p.run_id = s.run_id AND p.mode IS s.mode AND p.placement IS s.placement
     AND p.dtype IS s.dtype AND p.burst IS s.burst
),
-- Each size between the measured points either side of it (lo, the largest at or below it; hi,
-- the smallest at or above), curve named once: a subquery for each of lo's and hi's bytes and
-- time named it four times, and with it series, series_of and nccl_points were copied four times.
ar_pred AS MATERIALIZED (
  SELECT cfg, bytes, per_step, origin,
         max(CASE WHEN lo = 1 THEN point_b END) AS lo_b, max(CASE WHEN lo = 1 THEN point_t END) AS lo_t,
         max(CASE WHEN hi = 1 THEN point_b END) AS hi_b, max(CASE WHEN hi = 1 THEN point_t END) AS hi_t
  FROM (SELECT a.*, c.bytes AS point_b, c.time_us AS point_t,
               CASE WHEN c.bytes <= a.bytes
                    THEN row_number() OVER (PARTITION BY a.size, c.bytes <= a.bytes ORDER BY c.bytes DESC) END AS lo,
               CASE WHEN c.bytes >= a.bytes
                    THEN row_number() OVER (PARTITION BY a.size, c.bytes >= a.bytes ORDER BY c.bytes) END AS hi
        FROM (SELECT row_number() OVER () AS size, * FROM ar_sizes) a LEFT JOIN curve c ON c.cfg = a.cfg)
  GROUP BY size
),
ar AS MATERIALIZED (  -- every configuration, those without all-reduce sizes too (sizes 0)
  SELECT g.cfg, count(p.bytes) AS sizes, sum(p.bytes IS NOT NULL AND (lo_b IS NULL OR hi_b IS NULL)) AS outside,
         sum(per_step) AS per_step, min(origin) AS origin,
         group_concat(bytes || ' B x' || round(per_step, 1), ', ') AS mix,
         CASE WHEN count(p.bytes) > 0 AND sum(lo_b IS NULL OR hi_b IS NULL) = 0 THEN
           sum(per_step * CASE WHEN hi_b = lo_b THEN lo_t
                               ELSE lo_t + (hi_t - lo_t) * (bytes - lo_b) * 1.0 / (hi_b - lo_b) END)
         END AS us
  FROM configs g LEFT JOIN ar_pred p ON p.cfg = g.cfg
  GROUP BY g.cfg
),
-- Each configuration's measured figures, all-reduce prediction and basis, for its six rows.
-- gemm_pred_us is the gemm run's, unless it measured another dtype or GPU than the traces ran.
f AS MATERIALIZED (
  SELECT m.*, a.us AS ar_pred_us,
    CASE WHEN g.run IS NULL THEN 'no gemm run of this model at this tp with batch ' || :batch || ' (xp run a gemm spec)'
         ELSE 'gemm run ' || g.run || coalesce(' on ' || g.gpu_name, '') || ': ' || g.shapes || ' GEMMs, ' || g.launches || ' launches per step, cuBLASLt default'
              || CASE WHEN g.best_us IS NOT NULL THEN ' (best of its candidates: ' || round(g.best_us, 1) || ' us)' ELSE '' END
              || CASE WHEN g.failed > 0 OR g.skipped > 0 THEN '; incomplete: '
                      || CASE WHEN g.failed > 0 THEN g.failed || ' GEMM(s) failed'
                              || CASE WHEN g.skipped > 0 THEN ', ' ELSE '' END ELSE '' END
                      || CASE WHEN g.skipped > 0 THEN g.skipped || ' GEMM(s) skipped (not measured at their dtype)'
                              ELSE '' END ELSE '' END
              || CASE WHEN g.fitted_dtype THEN '; measured as ' || g.dtype || ' for the traces'' ' || m.dtype ELSE '' END
              || CASE WHEN g.subset IS NOT NULL THEN '; a subset of the step (' || g.subset || '), no prediction: '
                      || 'xp run a gemm spec of the whole model' ELSE '' END
              || CASE WHEN g.other_dtype THEN '; measured in ' || g.dtype || ', the traces ran '
                      || m.dtype || ', no prediction: xp run a gemm spec with dtype = '
                      -- a block-scaled fp8 checkpoint (DeepSeek-V3/V4) is what an fp8 engine runs for it
                      || CASE WHEN m.dtype IN ('fp8', 'fp8_block') AND g.ck_dtype = 'fp8_block'
                              THEN '"checkpoint" (the model''s checkpoint is block-scaled fp8; or "fp8_block")'
                              ELSE '"' || m.dtype || '"' END ELSE '' END
              || CASE WHEN g.other_gpu THEN '; another GPU''s: the traces ran on ' || m.gpu_name
                      || ', no prediction: xp run the gemm spec on ' || m.gpu_name ELSE '' END
    END AS gemm_basis,
    CASE WHEN a.sizes = 0 THEN 'no all-reduce sizes: no trace of this configuration and no o_proj in a gemm run'
         WHEN s.cfg IS NULL THEN 'no nccl_burst allreduce run with ' || :tp || ' ranks (xp run experiments/allreduce_burst.toml)'
         ELSE 'nccl_burst run ' || s.run || coalesce(' on ' || s.gpu_name || ',', '') || ' ' || coalesce(s.mode, '') || ' ' || coalesce(s.placement, '')
              || ' burst ' || coalesce(s.burst, '?')
              || '; sizes from ' || CASE a.origin WHEN 'traces' THEN 'the traces' ELSE 'o_proj (2 per layer, assumed)' END
              || ': ' || a.mix
              || CASE WHEN a.outside > 0 THEN '; ' || a.outside || ' size(s) outside the measured range' ELSE '' END
    END
    -- an interconnect that one side did not record is not known to be another: said as unknown
    || coalesce(CASE WHEN s.cfg IS NULL THEN NULL WHEN s.same_interconnect
                             THEN CASE WHEN s.interconnect IS NULL AND m.nsteps > 0
                                       THEN '; the interconnect is unknown (neither the traces nor the nccl_burst run recorded one)'
                                       ELSE '' END
                             WHEN s.interconnect IS NULL
                             THEN '; the nccl_burst run''s interconnect is unknown (not recorded; the traces ran on '
                                  || m.interconnect || ')'
                             WHEN m.interconnect IS NULL
                             THEN CASE WHEN m.nsteps > 0 THEN '; the traces'' interconnect is unknown (not recorded; measured on '
                                                              || s.interconnect || ')' ELSE '' END
                             ELSE '; measured on another interconnect than the traces' END, '')
    || coalesce(CASE WHEN s.other_gpu THEN '; another GPU''s: the traces ran on ' || m.gpu_name
                                           || ' (xp run experiments/allreduce_burst.toml on it)' END, '')
    || CASE WHEN m.ar_wait_us IS NOT NULL AND m.single_rank_steps = 0 THEN '; measured includes ' || round(m.ar_wait_us, 1) || ' us waiting for other ranks'
            WHEN m.ar_wait_us IS NOT NULL THEN '; in multi-rank runs ' || round(m.ar_multi_us, 1) || ' us a step, of which ' || round(m.ar_wait_us, 1) || ' us waiting for other ranks'
            ELSE '' END
    || CASE WHEN m.single_rank_steps > 0 THEN '; ' || m.single_rank_steps || ' steps of single-rank traces, whose waiting for peers is in their all-reduce time' ELSE '' END
    AS ar_basis,
    CASE WHEN m.nsteps = 0 THEN 'no trace with marked steps for this configuration (xp import torch-trace ... --set model=... tp=... batch=...)'
         ELSE m.nruns || ' trace run(s), ' || m.nsteps || ' steps x ranks' END AS traces_basis,
    CASE WHEN NOT g.other_dtype AND NOT g.other_gpu THEN g.default_us END AS gemm_pred_us
  FROM measured m JOIN gemm g ON g.cfg = m.cfg JOIN ar a ON a.cfg = m.cfg
  LEFT JOIN series s ON s.cfg = m.cfg  -- one (pick 1) or none
),
rows AS (  -- the six rows of each configuration, from one reading of f
  SELECT f.cfg, f.gpu_name, f.interconnect, f.config, o.ord, o.component,
         CASE o.ord WHEN 1 THEN gemm_pred_us WHEN 2 THEN ar_pred_us WHEN 6 THEN gemm_pred_us + ar_pred_us END
           AS predicted_us,
         CASE o.ord WHEN 1 THEN gemm_us WHEN 2 THEN CASE WHEN nsteps > 0 THEN ar_us END
                    WHEN 3 THEN kernel_us - coalesce(gemm_us, 0) - coalesce(ar_us, 0)
                    WHEN 4 THEN busy_us - kernel_us WHEN 5 THEN span_us - busy_us WHEN 6 THEN span_us END
           AS measured_us,
         CASE o.ord WHEN 1 THEN gemm_basis WHEN 2 THEN ar_basis WHEN 6 THEN traces_basis ELSE o.basis END AS basis
  FROM f, (SELECT 1 AS ord, 'gemm' AS component, NULL AS basis
           UNION ALL SELECT 2, 'allreduce', NULL
           UNION ALL SELECT 3, 'other kernels', 'not micro-benchmarked (attention, norms, activations, routing, copies)'
           UNION ALL SELECT 4, 'overlap between streams', 'kernels running at the same time are counted once in the step'
           UNION ALL SELECT 5, 'idle GPU', 'gaps between kernels: launch latency, host work, waiting'
           UNION ALL SELECT 6, 'decode step', NULL) o
)
SELECT r.component, round(r.predicted_us, 1) AS predicted_us, round(r.measured_us, 1) AS measured_us,
       round(r.measured_us - r.predicted_us, 1) AS gap_us,
       round(100.0 * (r.measured_us - r.predicted_us) / r.measured_us, 1) AS gap_pct, r.basis,
       r.gpu_name AS gpu, r.interconnect, r.config
FROM rows r ORDER BY r.cfg, r.ord;
