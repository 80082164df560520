-- xp schema 25: two text logs of one nccl-tests run that differ only in how they were printed
-- (one behind mpirun --tag-output's "[1,0]<stdout>:" or srun --label's " 0: ", the other
-- without; one with NCCL's INFO lines, one without) are one measurement. Schema 24 took two
-- imports of one precision for one only where they shared a file, and these share none: the
-- sweep counted twice in every reader of the history. The importer now records what it read,
-- less the printing, as run_meta nccl_tests.report_sha256 (the rows as parsed, the device
-- lines' ranks, pids and hosts, a -J file's start time); runs with the same one are one
-- measurement. Another run of the same sweep has other pids (and a -J file another start time),
-- so two runs whose rows agree by chance stay two. And a text whose rows agree with two runs' -J
-- files (a short sweep run twice: six decimals each within the text's two) was credited to the
-- later, whichever run it was, the other's row left without the log's transports: where both
-- name the job's processes (run_meta nccl_tests.processes, "host:pid" each, from device lines
-- with no gap), they must be the same. Otherwise as schema 24.
DROP VIEW trace_superseded;
CREATE VIEW trace_superseded AS
WITH first_rank AS (
  SELECT r.run_id, r.gpu_start_ns, r.events, i.ranks
  FROM trace_ranks r JOIN trace_imports i ON i.run_id = r.run_id
  WHERE r.rank = (SELECT min(x.rank) FROM trace_ranks x WHERE x.run_id = r.run_id)
),
nt_runs AS (  -- imported nccl-tests runs: how many cases, whether a file gave six decimals
  SELECT r.id, (SELECT count(*) FROM cases c WHERE c.run_id = r.id) AS ncases,
         EXISTS (SELECT 1 FROM artifacts a WHERE a.run_id = r.id AND a.name LIKE 'nccl-tests/%'
                 AND a.media_type = 'application/json') AS precise,
         (SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'nccl_tests.options' LIMIT 1) AS options,
         (SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'nccl_tests.host' LIMIT 1) AS host,
         (SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'nccl_tests.report_sha256' LIMIT 1) AS report,
         (SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'nccl_tests.processes' LIMIT 1) AS procs
  FROM runs r WHERE r.kind = 'nccl_burst' AND r.origin = 'imported' AND r.status = 'ok'
),
nt_times AS (
  SELECT c.run_id, c.name, json_remove(c.params, '$.file', '$.result') AS params, m.median AS t
  FROM cases c JOIN nt_runs n ON n.id = c.run_id
  LEFT JOIN metrics m ON m.case_id = c.id AND m.name = 'time_us'
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
GROUP BY a.run_id
UNION ALL
SELECT run_id, by_run_id FROM (  -- by the run that counts: the most precise, the latest of those
  SELECT run_id, by_run_id, max(best) FROM (
  SELECT na.id AS run_id, nb.id AS by_run_id, nb.precise * 1e15 + nb.id AS best
  FROM nt_runs na JOIN nt_runs nb ON nb.id <> na.id AND nb.ncases = na.ncases AND na.ncases > 0
   AND (nb.precise > na.precise OR (nb.precise = na.precise AND nb.id > na.id))
   AND (na.options IS NULL OR nb.options IS NULL OR na.options = nb.options)
   AND (na.host IS NULL OR nb.host IS NULL OR na.host = nb.host)
   AND (na.procs IS NULL OR nb.procs IS NULL OR na.procs = nb.procs)
   -- two files of one precision agree within the slack by chance (two -J files of a short sweep
   -- by hundredths of a microsecond): those are one measurement only where they share a file,
   -- or read the same (one log with a launcher's labels, one without: the same rows and pids)
   AND (nb.precise <> na.precise OR na.report = nb.report OR EXISTS (
         SELECT 1 FROM artifacts x JOIN artifacts y ON y.sha256 = x.sha256 AND y.run_id = nb.id
         WHERE x.run_id = na.id AND x.name LIKE 'nccl-tests/%' AND y.name LIKE 'nccl-tests/%'
           AND x.media_type <> 'application/xml'))
  JOIN nt_times ta ON ta.run_id = na.id
  JOIN nt_times tb ON tb.run_id = nb.id AND tb.name = ta.name AND tb.params = ta.params
   AND (ta.t IS tb.t OR abs(ta.t - tb.t) <= max(0.0051, 5e-4 * abs(tb.t)))
  GROUP BY na.id, nb.id
  HAVING count(*) = na.ncases)
  GROUP BY run_id);
