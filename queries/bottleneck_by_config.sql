-- Where does decode-step GPU time go, per configuration?
--
-- For each (model, GPU, interconnect, TP, batch, and the rest of the declared configuration:
-- engine, dtype, quantization, EP, PP, in `config`) of imported torch.profiler traces: each
-- kernel category's share of step GPU time in the latest run, and across every run of that
-- configuration (how many runs, min, median, max). A job imported twice, or some of its ranks
-- imported alone as well, counts once (schema view trace_superseded); "latest" is when the
-- trace was recorded. A job imported with nothing declared (no --set model= tp= batch= ...)
-- is a configuration of its own, config "undeclared: <its first rank's file> · <ranks> · <GPU>
-- · run <uuid>": unrelated jobs that ran on one GPU are never averaged together (schema view
-- run_configuration, as in xp report).
--
-- Step GPU time is the summed duration of the GPU activities launched inside the steps the
-- import used (ProfilerStep#N, or the --step-annotation, e.g. decode_step), over all imported
-- ranks; shares of one run add up to 100%. A trace imported without step marks (no
-- ProfilerStep#N: vLLM's and SGLang's profilers do not step, unless imported with
-- --step-annotation 'execute_context_*' or 'step[*') counts its whole GPU window as one step:
-- window_runs says how many of a row's runs did, whose shares include whatever else the
-- window held.
-- Categories are resolved now, through the rules in force (xp reclassify), not the ones of
-- import time.
--
-- AllReduce is given twice: as recorded ("allreduce"), and as transfer only ("allreduce
-- (transfer only)"): the AllReduce kernels matched across the ranks of the job count only
-- their time after the last rank arrived, and the step time loses their waiting. AllReduce
-- kernels without a complete set of peers cannot be split and are left out of both
-- (matched_pct: the share of multi-rank runs' AllReduce time that could be split). Single-rank imports cannot be split at all:
-- they have no transfer-only figure (runs counts the runs that have one), and
-- single_rank_runs says how many of them the recorded figures include.
--
--   xp query queries/bottleneck_by_config.sql [--format csv|json]
-- if no rows: no imported torch.profiler trace yet: xp import torch-trace RANK0.json.gz RANK1.json.gz --set model=M --set tp=N --set batch=B (experiments/run_main.sh imports a sample)

WITH
run AS MATERIALIZED (  -- each job once, with its step time (schema view trace_step_totals) and its
                       -- configuration (view run_configuration, as in xp report); materialized
                       -- so that each of the view's per-run sums is taken once
  -- when, spelled as the runs' own times and view run_measured spell it (ISO 8601, 'T', UTC 'Z'):
  -- datetime()'s '2026-12-04 23:59:00' beside an import's '2026-12-04T21:10:00.000Z' in one
  -- latest_at column sorted every clock's run of a day first wherever the column was sorted
  SELECT t.run_id, coalesce(strftime('%Y-%m-%dT%H:%M:%SZ', t.clock_ns / 1000000000, 'unixepoch'), r.started_at) AS at,
         -- the same instant as a number, to order by: the spellings differ past the seconds
         coalesce(t.clock_ns / 1e9, (julianday(r.started_at) - 2440587.5) * 86400) AS at_s,
         g.model, g.gpu_name, g.interconnect, g.tp, g.batch, coalesce(g.undeclared, g.config) AS config,
         t.single_rank, t.whole_window, t.step_ns, t.allreduce_ns AS ar_ns,
         t.allreduce_wait_ns AS ar_wait_ns, t.allreduce_matched_ns AS ar_matched_ns
  FROM trace_step_totals t
  JOIN runs r ON r.id = t.run_id
  JOIN run_configuration g ON g.run_id = t.run_id
),
cat AS (  -- each run's step time per category (schema view trace_step_kernel_stats), joined by
          -- run: the per-step view trace_step_categories would sum every run in the database
  SELECT k.run_id, k.category, sum(k.total_ns) AS ns
  FROM run JOIN trace_step_kernel_stats k ON k.run_id = run.run_id GROUP BY k.run_id, k.category
),
config_category AS (  -- every category seen in a configuration, so that absent means 0%; the
                      -- transfer-only row where an AllReduce is and a multi-rank run can split it
  SELECT DISTINCT run.model, run.gpu_name, run.interconnect, run.tp, run.batch, run.config, cat.category
  FROM run JOIN cat ON cat.run_id = run.run_id
  UNION
  SELECT DISTINCT model, gpu_name, interconnect, tp, batch, config, 'allreduce (transfer only)' FROM run
  WHERE single_rank = 0 AND ar_ns > 0
),
share AS (
  SELECT run.*, cc.category,
         CASE WHEN cc.category = 'allreduce (transfer only)'
              THEN CASE WHEN run.single_rank = 1 THEN NULL
                        WHEN run.ar_ns = 0 THEN 0.0
                        WHEN run.ar_matched_ns = 0 THEN NULL
                        ELSE CAST(run.ar_matched_ns - run.ar_wait_ns AS REAL)
                             / (run.step_ns - run.ar_wait_ns - (run.ar_ns - run.ar_matched_ns)) END
              ELSE CAST(coalesce(cat.ns, 0) AS REAL) / run.step_ns END AS share
  FROM run
  JOIN config_category cc ON cc.model IS run.model AND cc.gpu_name IS run.gpu_name
   AND cc.interconnect IS run.interconnect AND cc.tp IS run.tp AND cc.batch IS run.batch
   AND cc.config IS run.config
  LEFT JOIN cat ON cat.run_id = run.run_id AND cat.category = cc.category
),
ranked AS (
  SELECT share.*,
         row_number() OVER w_share AS k, count(share) OVER w_all AS n,
         row_number() OVER (PARTITION BY model, gpu_name, interconnect, tp, batch, config, category
                            ORDER BY share IS NULL, at_s DESC, run_id DESC) AS recency
  FROM share
  WINDOW w_all AS (PARTITION BY model, gpu_name, interconnect, tp, batch, config, category),
         w_share AS (PARTITION BY model, gpu_name, interconnect, tp, batch, config, category
                     ORDER BY share IS NULL, share)
)
SELECT model, gpu_name AS gpu, interconnect, tp, batch, config, category,
       round(100 * max(CASE WHEN recency = 1 THEN share END), 1) AS latest_pct,
       max(CASE WHEN recency = 1 THEN at END) AS latest_at,
       count(share) AS runs,
       round(100 * min(share), 1) AS min_pct,
       round(100 * avg(CASE WHEN k IN ((n + 1) / 2, (n + 2) / 2) THEN share END), 1) AS median_pct,
       round(100 * max(share), 1) AS max_pct,
       sum(CASE WHEN share IS NOT NULL THEN single_rank ELSE 0 END) AS single_rank_runs,
       CASE WHEN category LIKE 'allreduce%'
            THEN round(100.0 * sum(CASE WHEN single_rank = 0 THEN ar_matched_ns END)
                       / nullif(sum(CASE WHEN single_rank = 0 THEN ar_ns END), 0), 1) END AS matched_pct,
       sum(CASE WHEN share IS NOT NULL THEN whole_window ELSE 0 END) AS window_runs
FROM ranked
GROUP BY model, gpu_name, interconnect, tp, batch, config, category
HAVING count(share) > 0
ORDER BY model, gpu_name, interconnect, tp, batch, config, median_pct DESC, category;
