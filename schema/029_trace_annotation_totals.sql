-- xp schema 29: trace_annotations (schema 28) per rank and name, steps and outside alike, what
-- torch.profiler's key_averages gives as each range's device time; step_ns, the part inside the
-- steps. A migration of its own, views alone, so that a database of schema 28 opened read-only
-- reads it too (harness/db.c temp_views makes such migrations' views for the connection).
DROP VIEW IF EXISTS trace_annotation_totals;
CREATE VIEW trace_annotation_totals AS
SELECT run_id, rank, name, sum(count) AS count, sum(total_ns) AS total_ns,
       sum(CASE WHEN step IS NOT NULL THEN total_ns ELSE 0 END) AS step_ns
FROM trace_annotations GROUP BY run_id, rank, name;
