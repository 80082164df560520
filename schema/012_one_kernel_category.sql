-- xp schema 12: one rule gives a kernel its category, in one place. A kernel whose name's
-- category is a communication one takes the collective its args name ("Collective name"), else
-- its name's category: that rule is trace_kernel_stats' (schema 2). trace_step_categories
-- repeated it, and xp show's heaviest kernels read the name's category alone, so after a
-- reclassify (or for NCCL's generic kernels) one kernel could count as "communication" in one
-- section and "allgather" in another. The per-step views now take each kernel's category from
-- trace_kernel_stats (every step kernel and every collective kernel has its rank's row there,
-- same name and the collective its args named, '' for none).
DROP VIEW trace_step_categories;
CREATE VIEW trace_step_categories AS
SELECT k.run_id, k.rank, k.step, s.category, sum(k.count) AS count, sum(k.total_ns) AS total_ns
FROM trace_step_kernels k
JOIN trace_kernel_stats s ON s.run_id = k.run_id AND s.rank = k.rank AND s.name_id = k.name_id AND s.coll = k.coll
GROUP BY 1, 2, 3, 4;

-- A collective kernel's collective as recorded is the one in force at import (its args', else
-- its name's category's then): here it is its category now, and a kernel whose name the rules
-- no longer call communication is no collective.
DROP VIEW trace_step_collectives;
CREATE VIEW trace_step_collectives AS
SELECT c.run_id, c.rank, c.step, s.category AS collective, count(*) AS kernels,
       count(c.match_group) AS matched, sum(c.dur_ns) AS dur_ns,
       sum(CASE WHEN c.match_group IS NOT NULL THEN c.dur_ns END) AS matched_dur_ns,
       sum(c.wait_ns) AS wait_ns, sum(c.transfer_ns) AS transfer_ns
FROM trace_collectives c
JOIN trace_kernel_stats s ON s.run_id = c.run_id AND s.rank = c.rank AND s.name_id = c.name_id
 AND s.coll = CASE c.source WHEN 'args' THEN c.collective ELSE '' END
JOIN trace_categories g ON g.category = s.category AND g.grp = 'communication'
GROUP BY 1, 2, 3, 4;
