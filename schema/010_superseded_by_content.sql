-- xp schema 10: a trace is known again by its content, whatever rank it was labelled with. A
-- job imported with --ranks 0,1 and again with the ranks corrected to 1,0 was two jobs to
-- trace_superseded (schema 7), which asked the same rank to hold the same trace: it counted
-- twice. A rank's trace is now matched by its first GPU activity and its number of events, and
-- only an import with steps supersedes another.
DROP VIEW trace_superseded;
CREATE VIEW trace_superseded AS
WITH first_rank AS (
  SELECT r.run_id, r.gpu_start_ns, r.events, i.ranks
  FROM trace_ranks r JOIN trace_imports i ON i.run_id = r.run_id
  WHERE r.rank = (SELECT min(x.rank) FROM trace_ranks x WHERE x.run_id = r.run_id)
)
SELECT a.run_id, min(b.run_id) AS by_run_id
FROM first_rank a
JOIN trace_ranks br ON br.gpu_start_ns IS a.gpu_start_ns AND br.events = a.events AND br.run_id <> a.run_id
JOIN trace_imports b ON b.run_id = br.run_id
JOIN runs rb ON rb.id = b.run_id AND rb.status = 'ok'
-- an import that marked no steps (a misspelt --step-annotation) answers no query: it must not
-- hide the import that does
WHERE EXISTS (SELECT 1 FROM trace_steps s WHERE s.run_id = b.run_id)
  AND (b.ranks > a.ranks OR (b.ranks = a.ranks AND b.run_id > a.run_id))
  AND NOT EXISTS (SELECT 1 FROM trace_ranks ra WHERE ra.run_id = a.run_id AND NOT EXISTS (
        SELECT 1 FROM trace_ranks rb2 WHERE rb2.run_id = b.run_id
          AND rb2.gpu_start_ns IS ra.gpu_start_ns AND rb2.events = ra.events))
GROUP BY a.run_id;
