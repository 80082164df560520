-- xp schema 30: the trace figures of the runs a question selects cost those runs alone.
-- trace_step_totals (schema 15) joined each run to trace_step_categories and
-- trace_step_collectives, views that GROUP BY: SQLite cannot push a join's run_id into an
-- aggregate view, so it summed every step of every trace run in the database before the query
-- chose its few, and xp query and xp report took longer with each import (0.6 s for one
-- configuration at 100 jobs: bench/trace_query_bench.sh). Here each run's sums are subqueries
-- on that run's rows (the primary keys start with run_id), and the queries read the per-kernel
-- view below joined to the runs they chose. Same rows, same figures.
--
-- trace_step_kernel_stats: each step kernel row with its category now, by trace_kernel_stats'
-- rule (schema 12), not summed, so that a query can join it by run_id; trace_step_categories is
-- its sum per step and category, so the two cannot disagree.
DROP VIEW IF EXISTS trace_step_kernel_stats;
CREATE VIEW trace_step_kernel_stats AS
SELECT k.run_id, k.rank, k.step, k.name_id, k.coll, s.category, k.count, k.total_ns
FROM trace_step_kernels k
JOIN trace_kernel_stats s ON s.run_id = k.run_id AND s.rank = k.rank AND s.name_id = k.name_id AND s.coll = k.coll;

DROP VIEW trace_step_categories;
CREATE VIEW trace_step_categories AS
SELECT run_id, rank, step, category, sum(count) AS count, sum(total_ns) AS total_ns
FROM trace_step_kernel_stats GROUP BY 1, 2, 3, 4;

-- trace_collective_kernels as in schema 22, the kernels first: a run's few kernel names whose
-- category is a communication one now, then their collectives (CROSS JOIN keeps that order),
-- where each collective of the run looked its kernel's category up, 2.5 times the time.
DROP VIEW IF EXISTS trace_collective_kernels;
CREATE VIEW trace_collective_kernels AS
SELECT c.run_id, c.rank, c.seq, c.name_id, s.category AS collective, c.source,
       coalesce((SELECT d.dtype FROM trace_dtype_spelling d WHERE d.spelling = lower(c.dtype)), c.dtype) AS dtype,
       c.in_nelems, c.out_nelems, c.in_bytes, c.out_bytes, c.group_size, c.pg_name, c.pg_desc,
       c.pg_ranks, c.seq_arg, c.stream, c.device, c.step, c.start_ns, c.dur_ns, c.match_group,
       c.wait_ns, c.transfer_ns
FROM trace_kernel_stats s
JOIN trace_categories g ON g.category = s.category AND g.grp = 'communication'
CROSS JOIN trace_collectives c ON c.run_id = s.run_id AND c.rank = s.rank AND c.name_id = s.name_id
 AND s.coll = CASE c.source WHEN 'args' THEN c.collective ELSE '' END;

-- trace_step_totals as in schema 15, each sum taken over its run's rows alone.
DROP VIEW IF EXISTS trace_step_totals;
CREATE VIEW trace_step_totals AS
SELECT r.id AS run_id, i.ranks, i.single_rank, i.step_annotation = '(whole window)' AS whole_window,
       (SELECT sum(kernel_ns) FROM trace_steps s WHERE s.run_id = r.id) AS step_ns,
       (SELECT CASE WHEN min(gpu_start_ns) > 946684800000000000 THEN min(gpu_start_ns) END
        FROM trace_ranks t WHERE t.run_id = r.id) AS clock_ns,
       coalesce((SELECT sum(total_ns) FROM trace_step_kernel_stats k
                 WHERE k.run_id = r.id AND k.category = 'allreduce'), 0) AS allreduce_ns,
       coalesce((SELECT sum(wait_ns) FROM trace_collective_kernels c
                 WHERE c.run_id = r.id AND c.collective = 'allreduce' AND c.step IS NOT NULL), 0) AS allreduce_wait_ns,
       coalesce((SELECT sum(dur_ns) FROM trace_collective_kernels c
                 WHERE c.run_id = r.id AND c.collective = 'allreduce' AND c.step IS NOT NULL
                   AND c.match_group IS NOT NULL), 0) AS allreduce_matched_ns
FROM runs r
JOIN trace_imports i ON i.run_id = r.id
WHERE r.status = 'ok' AND (SELECT sum(kernel_ns) FROM trace_steps s WHERE s.run_id = r.id) > 0
  AND r.id NOT IN (SELECT run_id FROM trace_superseded);
