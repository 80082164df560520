-- xp schema 15: the trace runs that the figures over history count, and their totals, in one
-- place. xp report, queries/bottleneck_by_config.sql and queries/allreduce_share.sql each
-- summed the step time, dated the trace and summed the AllReduce waiting in a CTE of their own.
--
-- trace_step_totals: each ok trace job once (trace_superseded leaves out an import that
-- another holds) that has step GPU time, summed over its steps and ranks: step_ns, the GPU
-- activities' time inside the steps (a trace without step marks counts its whole window as
-- one step: whole_window); allreduce_ns, the AllReduce kernels' part of it under the
-- categories in force now (xp reclassify), waiting for the other ranks included;
-- allreduce_wait_ns and allreduce_matched_ns, the waiting and the time of the AllReduce kernels
-- matched across the job's ranks (a single-rank import matches none). clock_ns is the first
-- GPU activity where the trace has an absolute clock (after 2000-01-01), else NULL: such a
-- trace is dated by its import.
DROP VIEW IF EXISTS trace_step_totals;
CREATE VIEW trace_step_totals AS
SELECT r.id AS run_id, i.ranks, i.single_rank, i.step_annotation = '(whole window)' AS whole_window,
       s.step_ns, t.clock_ns, coalesce(ar.ns, 0) AS allreduce_ns,
       coalesce(w.wait_ns, 0) AS allreduce_wait_ns, coalesce(w.matched_ns, 0) AS allreduce_matched_ns
FROM runs r
JOIN trace_imports i ON i.run_id = r.id
JOIN (SELECT run_id, sum(kernel_ns) AS step_ns FROM trace_steps GROUP BY run_id) s ON s.run_id = r.id
LEFT JOIN (SELECT run_id, CASE WHEN min(gpu_start_ns) > 946684800000000000 THEN min(gpu_start_ns) END AS clock_ns
           FROM trace_ranks GROUP BY run_id) t ON t.run_id = r.id
LEFT JOIN (SELECT run_id, sum(total_ns) AS ns FROM trace_step_categories
           WHERE category = 'allreduce' GROUP BY run_id) ar ON ar.run_id = r.id
LEFT JOIN (SELECT run_id, sum(wait_ns) AS wait_ns, sum(matched_dur_ns) AS matched_ns
           FROM trace_step_collectives WHERE collective = 'allreduce' AND step IS NOT NULL
           GROUP BY run_id) w ON w.run_id = r.id
WHERE r.status = 'ok' AND s.step_ns > 0 AND r.id NOT IN (SELECT run_id FROM trace_superseded);
