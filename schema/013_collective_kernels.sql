-- xp schema 13: every collective kernel under its category now, one row each. trace_collectives
-- keeps the collective in force at import (its args', else its name's category's then); the
-- queries that need a kernel's own columns (its message size, its waiting) read it there, so
-- after a reclassify they counted as an all-reduce a kernel that the step totals, the step
-- collectives and xp show no longer did. trace_collective_kernels takes the category from
-- trace_kernel_stats' rule (schema 2), as trace_step_collectives did (schema 12): a kernel
-- whose category is not a communication one now is no collective. trace_step_collectives is
-- its sum per step, so the two cannot disagree.
DROP VIEW IF EXISTS trace_collective_kernels;
CREATE VIEW trace_collective_kernels AS
SELECT c.run_id, c.rank, c.seq, c.name_id, s.category AS collective, c.source, c.dtype,
       c.in_nelems, c.out_nelems, c.in_bytes, c.out_bytes, c.group_size, c.pg_name, c.pg_desc,
       c.pg_ranks, c.seq_arg, c.stream, c.device, c.step, c.start_ns, c.dur_ns, c.match_group,
       c.wait_ns, c.transfer_ns
FROM trace_collectives c
JOIN trace_kernel_stats s ON s.run_id = c.run_id AND s.rank = c.rank AND s.name_id = c.name_id
 AND s.coll = CASE c.source WHEN 'args' THEN c.collective ELSE '' END
JOIN trace_categories g ON g.category = s.category AND g.grp = 'communication';

DROP VIEW trace_step_collectives;
CREATE VIEW trace_step_collectives AS
SELECT run_id, rank, step, collective, count(*) AS kernels,
       count(match_group) AS matched, sum(dur_ns) AS dur_ns,
       sum(CASE WHEN match_group IS NOT NULL THEN dur_ns END) AS matched_dur_ns,
       sum(wait_ns) AS wait_ns, sum(transfer_ns) AS transfer_ns
FROM trace_collective_kernels GROUP BY run_id, rank, step, collective;
