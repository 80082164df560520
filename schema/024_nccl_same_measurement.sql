-- xp schema 24: an nccl-tests run is known again by its rows, as a trace job is by its traces
-- (schema 10). The text log and the -J JSON of one run, imported by two `xp import` calls (each
-- file as it arrives), were two runs: queries/allreduce_burst.sql showed each case twice,
-- queries/regressions.sql and xp audit took one for a newer run of the other. Given in one
-- import they already count once (importers/nccl_tests: "the same results as F.json").
--
-- trace_superseded keeps its name (every reader of the history leaves its runs out: the queries,
-- xp compare, xp audit, xp report) and now also lists an ok imported nccl_burst run whose every
-- case another ok imported nccl_burst run holds, with as many cases, the same name and params
-- (less the file a row came from) and the same time within what the text prints: nccl-tests
-- prints a time with 2, 1 or 0 decimals by its size, so they agree within half the last digit
-- (0.0051 us, or 0.05% of the time), as the importer matches a text with its -J file. Where both
-- state the options line (ranks, iterations, graph mode) and host, they must be the same; two
-- runs of one precision must share a results file (the same log imported again with its
-- topology, with a corrected --set). The run kept is the precise one (a -J JSON or reporter
-- file: six decimals), else the later import. Both
-- records stay: the superseded one's NCCL INFO facts (transports) still answer
-- allreduce_burst.sql.
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
         (SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'nccl_tests.host' LIMIT 1) AS host
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
   -- two files of one precision agree within the slack by chance (two -J files of a short sweep
   -- by hundredths of a microsecond): those are one measurement only where they share a file
   AND (nb.precise <> na.precise OR EXISTS (
         SELECT 1 FROM artifacts x JOIN artifacts y ON y.sha256 = x.sha256 AND y.run_id = nb.id
         WHERE x.run_id = na.id AND x.name LIKE 'nccl-tests/%' AND y.name LIKE 'nccl-tests/%'
           AND x.media_type <> 'application/xml'))
  JOIN nt_times ta ON ta.run_id = na.id
  JOIN nt_times tb ON tb.run_id = nb.id AND tb.name = ta.name AND tb.params = ta.params
   AND (ta.t IS tb.t OR abs(ta.t - tb.t) <= max(0.0051, 5e-4 * abs(tb.t)))
  GROUP BY na.id, nb.id
  HAVING count(*) = na.ncases)
  GROUP BY run_id);
