-- Decode step of one configuration: what the micro-benchmarks predict beside what the traces
-- measured, component by component, and the gap. All times are microseconds per decode step
-- on one GPU.
--   xp query queries/decode_gap_analysis.sql --param model=Kimi-K2.5 --param tp=8 \
--       --param batch=16 --param interconnect=any      (or nvlink, pcie, ... as recorded)
--
-- Predicted (micro-benchmarks):
--   gemm       the latest ok gemm run of :model at :tp with cold-weight cases at :batch: each
--              GEMM's median time (cuBLASLt's default algorithm, as an engine gets it) times
--              its launches per step; the best-of-N total is in the basis. NULL when a GEMM
--              of the step failed its check, or when the run measured some GEMMs only (only =
--              [...], or a shapes list labelled with the model): a run of the whole step is
--              preferred to a newer one of a subset.
--   allreduce  per all-reduce message size, the all-reduces per step times the time of one
--              all-reduce of that size (time_us: a burst's time / its length), interpolated
--              linearly between the two nearest measured sizes of one nccl_burst series with
--              :tp ranks (and :interconnect): the one spanning most of the sizes, then CUDA-graph
--              mode, out-of-place, bf16 and the latest measured run preferred (with :interconnect any,
--              one on the traces' interconnect before any other). Sizes and counts come from the
--              traces; without a trace, from the gemm
--              run's o_proj (batch x hidden x 2 bytes, two all-reduces per layer: after
--              attention and after the MLP, as tensor-parallel decoder layers do). NULL when a
--              size lies outside the measured range.
--   decode step  gemm + allreduce: the step if nothing else ran and the GPU never waited.
-- Measured (torch_trace runs of :model, :tp, :batch and :interconnect; averages over every
-- marked step of every rank; traces imported without step marks, or with no GPU time in their
-- steps, are left out, and a job imported twice, or its ranks alone as well, counts once:
-- schema view trace_step_totals, as in xp report):
--   gemm = kernels of categories gemm and moe; allreduce = its kernels, waiting for the other
--   ranks included (the basis says how much of it was waiting, where ranks were matched);
--   other kernels; overlap between streams (negative: time counted twice); idle GPU; the
--   step = first kernel start to last kernel end. The measured column adds up to the step.
--   Categories are the ones in force now (xp reclassify), for the time, the waiting and the
--   message sizes alike.
-- A side without runs is NULL; the basis says what to run.
WITH
traces AS (  -- the trace runs the figures count (schema view trace_step_totals: each job once,
            -- with step time) of the configuration (view run_configuration), less those
            -- without marked steps: a window is not a step
  SELECT t.run_id AS id, g.interconnect, t.single_rank
  FROM trace_step_totals t JOIN run_configuration g ON g.run_id = t.run_id
  WHERE g.model = :model AND g.tp = :tp AND g.batch = :batch
    AND (:interconnect IN ('', 'any') OR g.interconnect = :interconnect) AND NOT t.whole_window
),
steps AS (
  SELECT s.run_id, s.rank, s.step, s.gpu_end_ns - s.gpu_start_ns AS span_ns, s.busy_ns, s.kernel_ns, t.single_rank
  FROM trace_steps s JOIN traces t ON t.id = s.run_id
  WHERE s.gpu_start_ns IS NOT NULL
),
measured AS (
  SELECT count(*) AS nsteps, (SELECT count(*) FROM traces) AS nruns,
         avg(span_ns) / 1e3 AS span_us, avg(busy_ns) / 1e3 AS busy_us, avg(kernel_ns) / 1e3 AS kernel_us,
         (SELECT sum(c.total_ns) FROM trace_step_categories c JOIN steps s USING (run_id, rank, step)
          WHERE c.category IN ('gemm', 'moe')) / 1e3 / nullif(count(*), 0) AS gemm_us,
         coalesce((SELECT sum(c.total_ns) FROM trace_step_categories c JOIN steps s USING (run_id, rank, step)
          WHERE c.category = 'allreduce'), 0) / 1e3 / nullif(count(*), 0) AS ar_us,
         -- waiting is known for multi-rank runs only: averaged over their steps alone, beside
         -- their own all-reduce time (over all steps, single-rank ones too, it could exceed it)
         (SELECT sum(k.wait_ns) FROM trace_step_collectives k JOIN steps s USING (run_id, rank, step)
          WHERE k.collective = 'allreduce' AND s.single_rank = 0) / 1e3
           / nullif(sum(single_rank = 0), 0) AS ar_wait_us,
         coalesce((SELECT sum(c.total_ns) FROM trace_step_categories c JOIN steps s USING (run_id, rank, step)
          WHERE c.category = 'allreduce' AND s.single_rank = 0), 0) / 1e3
           / nullif(sum(single_rank = 0), 0) AS ar_multi_us,
         sum(single_rank = 1) AS single_rank_steps
  FROM steps
),
gemm_run AS (  -- a run of the whole step first: one of some GEMMs (only = [...], or a shapes
              -- list under the model's label) predicts no step, and is named in the basis
  SELECT r.id, substr(r.uuid, 1, 8) AS run,
         CASE WHEN json_extract(r.spec_json, '$.only') IS NOT NULL
              THEN 'only ' || json_extract(r.spec_json, '$.only')
              WHEN json_extract(r.spec_json, '$.shapes') IS NOT NULL THEN 'the shapes its spec lists' END AS subset
  FROM runs r
  WHERE r.kind = 'gemm' AND r.status = 'ok' AND r.model = :model AND r.tp = :tp
    AND EXISTS (SELECT 1 FROM cases c WHERE c.run_id = r.id
                AND json_extract(c.params, '$.batch') = :batch AND json_extract(c.params, '$.cache') = 'cold')
  ORDER BY subset IS NULL DESC, r.started_at DESC, r.id DESC LIMIT 1
),
gemm_cases AS (
  SELECT c.name, c.status, json_extract(c.params, '$.count') AS count,
         json_extract(c.params, '$.m') AS m, json_extract(c.params, '$.n') AS n,
         d.median AS default_us, b.median AS best_us
  FROM cases c JOIN gemm_run g ON c.run_id = g.id
  LEFT JOIN metrics d ON d.case_id = c.id AND d.name = 'time_us'
  LEFT JOIN metrics b ON b.case_id = c.id AND b.name = 'time_best_us'
  WHERE json_extract(c.params, '$.batch') = :batch AND json_extract(c.params, '$.cache') = 'cold'
),
gemm AS (
  SELECT (SELECT run FROM gemm_run) AS run, (SELECT subset FROM gemm_run) AS subset,
         count(*) AS shapes, sum(count) AS launches,
         sum(status <> 'ok' OR default_us IS NULL) AS failed,
         CASE WHEN sum(status <> 'ok' OR default_us IS NULL) = 0 AND (SELECT subset FROM gemm_run) IS NULL
              THEN sum(default_us * count) END AS default_us,
         CASE WHEN sum(status <> 'ok' OR best_us IS NULL) = 0 AND (SELECT subset FROM gemm_run) IS NULL
              THEN sum(best_us * count) END AS best_us
  FROM gemm_cases
),
-- All-reduces per step by message size: from the traces (the kernels that are all-reduces
-- now, as in measured), else from the gemm run's o_proj.
ar_sizes AS (
  SELECT k.in_bytes AS bytes, count(*) * 1.0 / (SELECT nsteps FROM measured) AS per_step, 'traces' AS origin
  FROM trace_collective_kernels k JOIN steps s USING (run_id, rank, step)
  WHERE k.collective = 'allreduce' AND k.in_bytes > 0
  GROUP BY k.in_bytes
  UNION ALL
  SELECT m * n * 2, 2.0 * count, 'o_proj' FROM gemm_cases
  WHERE name = 'o_proj' AND NOT EXISTS (SELECT 1 FROM steps)
),
nccl_points AS (
  SELECT r.id AS run_id, substr(r.uuid, 1, 8) AS run, (SELECT measured_at FROM run_measured WHERE run_id = r.id) AS measured_at,
         r.interconnect IS (SELECT interconnect FROM traces GROUP BY interconnect ORDER BY count(*) DESC LIMIT 1)
           AS same_interconnect,
         json_extract(c.params, '$.mode') AS mode, json_extract(c.params, '$.placement') AS placement,
         json_extract(c.params, '$.dtype') AS dtype, json_extract(c.params, '$.burst') AS burst,
         json_extract(c.params, '$.bytes') AS bytes, m.median AS time_us
  FROM runs r JOIN cases c ON c.run_id = r.id
  JOIN metrics m ON m.case_id = c.id AND m.name = 'time_us'
  WHERE r.kind = 'nccl_burst' AND r.status = 'ok' AND c.status = 'ok'
    AND json_extract(c.params, '$.collective') = 'allreduce'
    AND coalesce(json_extract(c.params, '$.ranks'), r.gpu_count) = :tp
    AND (:interconnect IN ('', 'any') OR r.interconnect = :interconnect)
),
-- One series of measurements (run, mode, placement, dtype, burst): with :interconnect any, one
-- on the traces' interconnect first; then the one whose sizes span the most of the step's
-- message sizes, then by preference, the latest measured (not imported) last.
series AS (
  SELECT run_id, run, mode, placement, dtype, burst, same_interconnect,
         (SELECT count(*) FROM ar_sizes a WHERE a.bytes BETWEEN min(p.bytes) AND max(p.bytes)) AS covers
  FROM nccl_points p
  GROUP BY run_id, mode, placement, dtype, burst
  ORDER BY same_interconnect DESC, covers DESC, mode = 'graph' DESC, placement = 'out_of_place' DESC,
           dtype = 'bf16' DESC, measured_at DESC, run_id DESC, burst DESC
  LIMIT 1
),
curve AS (
  SELECT p.bytes, p.time_us FROM nccl_points p JOIN series s
  ON p.run_id = s.run_id AND p.mode IS s.mode AND p.placement IS s.placement
     AND p.dtype IS s.dtype AND p.burst IS s.burst
),
ar_pred AS (
  SELECT a.bytes, a.per_step, a.origin,
         (SELECT bytes FROM curve WHERE bytes <= a.bytes ORDER BY bytes DESC LIMIT 1) AS lo_b,
         (SELECT time_us FROM curve WHERE bytes <= a.bytes ORDER BY bytes DESC LIMIT 1) AS lo_t,
         (SELECT bytes FROM curve WHERE bytes >= a.bytes ORDER BY bytes LIMIT 1) AS hi_b,
         (SELECT time_us FROM curve WHERE bytes >= a.bytes ORDER BY bytes LIMIT 1) AS hi_t
  FROM ar_sizes a
),
ar AS (
  SELECT count(*) AS sizes, sum(lo_b IS NULL OR hi_b IS NULL) AS outside,
         sum(per_step) AS per_step, min(origin) AS origin,
         group_concat(bytes || ' B x' || round(per_step, 1), ', ') AS mix,
         CASE WHEN count(*) > 0 AND sum(lo_b IS NULL OR hi_b IS NULL) = 0 THEN
           sum(per_step * CASE WHEN hi_b = lo_b THEN lo_t
                               ELSE lo_t + (hi_t - lo_t) * (bytes - lo_b) * 1.0 / (hi_b - lo_b) END)
         END AS us
  FROM ar_pred
),
basis AS (
  SELECT
    CASE WHEN g.run IS NULL THEN 'no gemm run of this model at this tp with batch ' || :batch || ' (xp run a gemm spec)'
         ELSE 'gemm run ' || g.run || ': ' || g.shapes || ' GEMMs, ' || g.launches || ' launches per step, cuBLASLt default'
              || CASE WHEN g.best_us IS NOT NULL THEN ' (best of its candidates: ' || round(g.best_us, 1) || ' us)' ELSE '' END
              || CASE WHEN g.failed > 0 THEN '; incomplete: ' || g.failed || ' GEMM(s) failed' ELSE '' END
              || CASE WHEN g.subset IS NOT NULL THEN '; a subset of the step (' || g.subset || '), no prediction: '
                      || 'xp run a gemm spec of the whole model' ELSE '' END
    END AS gemm,
    CASE WHEN a.sizes = 0 THEN 'no all-reduce sizes: no trace of this configuration and no o_proj in a gemm run'
         WHEN (SELECT count(*) FROM series) = 0 THEN 'no nccl_burst allreduce run with ' || :tp || ' ranks (xp run experiments/allreduce_burst.toml)'
         ELSE (SELECT 'nccl_burst run ' || run || ' ' || coalesce(mode, '') || ' ' || coalesce(placement, '')
                      || ' burst ' || coalesce(burst, '?') FROM series)
              || '; sizes from ' || CASE a.origin WHEN 'traces' THEN 'the traces' ELSE 'o_proj (2 per layer, assumed)' END
              || ': ' || a.mix
              || CASE WHEN a.outside > 0 THEN '; ' || a.outside || ' size(s) outside the measured range' ELSE '' END
    END
    || CASE WHEN (SELECT count(*) FROM series) > 0 AND NOT (SELECT same_interconnect FROM series)
            THEN '; measured on another interconnect than the traces' ELSE '' END
    || CASE WHEN m.ar_wait_us IS NOT NULL AND m.single_rank_steps = 0 THEN '; measured includes ' || round(m.ar_wait_us, 1) || ' us waiting for other ranks'
            WHEN m.ar_wait_us IS NOT NULL THEN '; in multi-rank runs ' || round(m.ar_multi_us, 1) || ' us a step, of which ' || round(m.ar_wait_us, 1) || ' us waiting for other ranks'
            ELSE '' END
    || CASE WHEN m.single_rank_steps > 0 THEN '; ' || m.single_rank_steps || ' steps of single-rank traces, whose waiting for peers is in their all-reduce time' ELSE '' END
    AS allreduce,
    CASE WHEN m.nsteps = 0 THEN 'no trace with marked steps for this configuration (xp import torch-trace ... --set model=... tp=... batch=...)'
         ELSE m.nruns || ' trace run(s), ' || m.nsteps || ' steps x ranks' END AS traces
  FROM gemm g, ar a, measured m
),
rows AS (
  SELECT 1 AS ord, 'gemm' AS component, g.default_us AS predicted_us, m.gemm_us AS measured_us, b.gemm AS basis
  FROM gemm g, measured m, basis b
  UNION ALL
  SELECT 2, 'allreduce', a.us, CASE WHEN m.nsteps > 0 THEN m.ar_us END, b.allreduce FROM ar a, measured m, basis b
  UNION ALL
  SELECT 3, 'other kernels', NULL, m.kernel_us - coalesce(m.gemm_us, 0) - coalesce(m.ar_us, 0),
         'not micro-benchmarked (attention, norms, activations, routing, copies)' FROM measured m
  UNION ALL
  SELECT 4, 'overlap between streams', NULL, m.busy_us - m.kernel_us,
         'kernels running at the same time are counted once in the step' FROM measured m
  UNION ALL
  SELECT 5, 'idle GPU', NULL, m.span_us - m.busy_us, 'gaps between kernels: launch latency, host work, waiting' FROM measured m
  UNION ALL
  SELECT 6, 'decode step', g.default_us + a.us, m.span_us, b.traces FROM gemm g, ar a, measured m, basis b
)
SELECT component, round(predicted_us, 1) AS predicted_us, round(measured_us, 1) AS measured_us,
       round(measured_us - predicted_us, 1) AS gap_us,
       round(100.0 * (measured_us - predicted_us) / measured_us, 1) AS gap_pct, basis
FROM rows ORDER BY ord;
