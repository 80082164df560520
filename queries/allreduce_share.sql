-- What share of a decode step is AllReduce at TP = :tp on :interconnect?
--
--   xp query queries/allreduce_share.sql --param tp=8 --param interconnect=pcie
--
-- One row per (model, GPU, interconnect, batch, and the rest of the declared configuration:
-- engine, dtype, quantization, EP, PP, in `config`) with imported torch.profiler traces of runs
-- declared with that TP and interconnect (xp import torch-trace ... --set tp=8 --set
-- interconnect=pcie; the interconnect compares without regard to case, and `any` takes every
-- interconnect, declared or not, each a row of its own: an H200 job over NVLink and one with
-- P2P over PCIe are never averaged; an undeclared one's interconnect is empty). The answer says
-- how many runs it rests on, from which dates (when the traces were recorded), and whether they
-- are single-rank. A job imported twice, or some of its ranks
-- imported alone as well, counts once (schema view trace_superseded).
--
-- As recorded: AllReduce kernel time over step GPU time (summed GPU activity durations in the
-- import's steps, all imported ranks). Transfer only: the AllReduce kernels matched across the
-- ranks of the job count only their time after the last rank arrived, and the step time loses
-- their waiting; AllReduce kernels without a complete set of peers are left out of both
-- (matched_pct: the share of multi-rank runs' AllReduce time that could be split). Only imports of every rank
-- of the job can measure waiting: a single-rank trace mixes it in, so the transfer-only figure
-- comes from multi-rank runs alone.
-- Traces imported without step marks (no ProfilerStep#N: vLLM's and SGLang's profilers do not
-- step, unless imported with --step-annotation 'execute_context_*' or 'step[*') count their
-- whole GPU window as one step; the answer says how many runs did.
-- Categories are the ones in force now (xp reclassify).

WITH
job AS MATERIALIZED (  -- each job once, with its step time (schema view trace_step_totals) and its
                       -- configuration (view run_configuration, as in xp report); materialized
                       -- so that each of the view's per-run sums is taken once, not once a use
  SELECT t.*, r.started_at, g.model, g.gpu_name, g.interconnect, g.batch, g.config
  FROM trace_step_totals t
  JOIN runs r ON r.id = t.run_id
  JOIN run_configuration g ON g.run_id = t.run_id
  WHERE g.tp = :tp AND (lower(:interconnect) = 'any' OR lower(g.interconnect) = lower(:interconnect))
),
run AS (
  SELECT t.run_id, coalesce(date(t.clock_ns / 1000000000, 'unixepoch'), date(t.started_at)) AS day,
         t.model, t.gpu_name, lower(t.interconnect) AS interconnect, t.batch, t.config,
         t.single_rank, t.ranks, t.whole_window,
         CAST(t.allreduce_ns AS REAL) / t.step_ns AS recorded,
         CASE WHEN t.single_rank = 1 OR t.allreduce_matched_ns = 0 THEN NULL
              ELSE CAST(t.allreduce_matched_ns - t.allreduce_wait_ns AS REAL)
                   / (t.step_ns - t.allreduce_wait_ns - (t.allreduce_ns - t.allreduce_matched_ns)) END AS transfer,
         t.allreduce_ns AS ar_ns, t.allreduce_matched_ns AS matched_ns
  FROM job t
),
ranked AS (
  SELECT run.*,
         row_number() OVER (PARTITION BY model, gpu_name, interconnect, batch, config ORDER BY recorded) AS k,
         count(*) OVER (PARTITION BY model, gpu_name, interconnect, batch, config) AS n,
         row_number() OVER (PARTITION BY model, gpu_name, interconnect, batch, config
                            ORDER BY transfer IS NULL, transfer) AS kt,
         count(transfer) OVER (PARTITION BY model, gpu_name, interconnect, batch, config) AS nt
  FROM run
),
config AS (
  SELECT model, gpu_name, interconnect, batch, config, count(*) AS runs, min(day) AS first_day, max(day) AS last_day,
         sum(single_rank) AS single_rank_runs, count(*) - sum(single_rank) AS multi_rank_runs,
         sum(whole_window) AS window_runs,
         avg(CASE WHEN k IN ((n + 1) / 2, (n + 2) / 2) THEN recorded END) AS recorded_median,
         min(recorded) AS recorded_min, max(recorded) AS recorded_max,
         avg(CASE WHEN kt IN ((nt + 1) / 2, (nt + 2) / 2) THEN transfer END) AS transfer_median,
         count(transfer) AS split_runs,
         min(transfer) AS transfer_min, max(transfer) AS transfer_max,
         100.0 * sum(CASE WHEN single_rank = 0 THEN matched_ns END)
               / nullif(sum(CASE WHEN single_rank = 0 THEN ar_ns END), 0) AS matched_pct
  FROM ranked GROUP BY model, gpu_name, interconnect, batch, config
)
SELECT model, gpu_name AS gpu, interconnect, batch, config, runs, first_day, last_day, single_rank_runs, multi_rank_runs,
       round(100 * recorded_median, 1) AS allreduce_pct,
       round(100 * recorded_min, 1) AS min_pct, round(100 * recorded_max, 1) AS max_pct,
       round(100 * transfer_median, 1) AS transfer_only_pct,
       round(matched_pct, 1) AS matched_pct,
       printf('At TP=%s on %s%s, AllReduce is %.1f%% of decode-step GPU time as recorded (median of %d run%s, %s%s%s)',
              :tp, coalesce(interconnect, 'an undeclared interconnect'),
              CASE WHEN config <> '' THEN ' (' || config || ')' ELSE '' END, 100 * recorded_median, runs, CASE WHEN runs = 1 THEN '' ELSE 's' END,
              first_day, CASE WHEN last_day <> first_day THEN ' to ' || last_day ELSE '' END,
              CASE WHEN runs > 1 THEN printf(', range %.1f%% to %.1f%%', 100 * recorded_min, 100 * recorded_max) ELSE '' END)
       || CASE WHEN split_runs > 0
               THEN printf('; %.1f%% transferring once waiting for the slowest rank is removed (%d multi-rank run%s, %.0f%% of AllReduce time matched across ranks)',
                           100 * transfer_median, split_runs, CASE WHEN split_runs = 1 THEN '' ELSE 's' END, matched_pct)
               ELSE '' END
       || CASE WHEN single_rank_runs > 0
               THEN printf('; %d single-rank run%s: waiting for peers is mixed into %s figure',
                           single_rank_runs, CASE WHEN single_rank_runs = 1 THEN '' ELSE 's' END,
                           CASE WHEN single_rank_runs = 1 THEN 'its' ELSE 'their' END)
               ELSE '' END
       || CASE WHEN window_runs > 0
               THEN printf('; %d run%s without step marks: %s whole profiled window counted as one step',
                           window_runs, CASE WHEN window_runs = 1 THEN '' ELSE 's' END,
                           CASE WHEN window_runs = 1 THEN 'its' ELSE 'their' END)
               ELSE '' END AS answer
FROM config
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL,
       -- the hint is a command that works: interconnect "any" and a TP that is no number are
       -- not values an import takes
       CASE WHEN CAST(CAST(:tp AS INTEGER) AS TEXT) <> CAST(:tp AS TEXT) OR CAST(:tp AS INTEGER) < 1
            THEN printf('TP=%s is not a tensor-parallel size: the answer is for one TP (--param tp=8)', :tp)
            ELSE printf('No imported traces at TP=%s on %s (import with --set tp=%s%s)', :tp,
                        CASE WHEN lower(:interconnect) = 'any' THEN 'any interconnect' ELSE :interconnect END, :tp,
                        CASE WHEN lower(:interconnect) = 'any' THEN ''
                             ELSE ' --set interconnect=' || lower(:interconnect) END) END
WHERE NOT EXISTS (SELECT 1 FROM config)
ORDER BY model, gpu, interconnect, batch, config;
