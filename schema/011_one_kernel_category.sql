-- xp schema 11: one rule gives a kernel its category, in one place. A kernel whose name's
-- category is a communication one takes the collective its args name ("Collective name"), else
-- its name's category: that rule is trace_kernel_stats' (schema 2). trace_step_categories
-- repeated it, and xp show's heaviest kernels read the name's category alone, so after a
-- reclassify (or for NCCL's generic kernels) one kernel could count as "communication" in one
-- section and "allgather" in another. The per-step view now takes each kernel's category from
-- trace_kernel_stats (every step kernel has its rank's row there, same name and collective).
DROP VIEW trace_step_categories;
CREATE VIEW trace_step_categories AS
SELECT k.run_id, k.rank, k.step, s.category, sum(k.count) AS count, sum(k.total_ns) AS total_ns
FROM trace_step_kernels k
JOIN trace_kernel_stats s ON s.run_id = k.run_id AND s.rank = k.rank AND s.name_id = k.name_id AND s.coll = k.coll
GROUP BY 1, 2, 3, 4;
