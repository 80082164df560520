-- xp schema 32: a trace rank is known again by what it holds, not by two numbers of it. Schema 10
-- took a rank for another's copy where its first GPU activity started at the same instant and it
-- had as many events: two traces of one job as two engines' profiler hooks write it (vLLM's and
-- SGLang's, tests/data/trace/variants vllm_r0 and sglang_tp0: other kernel and step names, the
-- same times) agree on both, and SGLang's rank 0 imported alone was hidden from every query as a
-- copy of the vLLM job. The trace files' bytes are not kept (nor their SHA-256), and would not do:
-- the same trace gzipped or not, or merged into one file with its peers (SGLang's merger), reads
-- the same. So a rank is another's copy where it reads the same: the same GPU span, events,
-- activities, busy and summed kernel time, and the same kernels (trace_kernels: each name with
-- its collective, count and total time). Its label may differ (a re-import with --ranks
-- corrected is the same job). Otherwise as schema 25.
DROP VIEW trace_superseded;
CREATE VIEW trace_superseded AS
WITH twin AS (  -- rank a_rank of run a_run reads the same as some rank of run b_run
  SELECT ra.run_id AS a_run, ra.rank AS a_rank, rb.run_id AS b_run
  FROM trace_ranks ra JOIN trace_ranks rb ON rb.run_id <> ra.run_id
   AND rb.gpu_start_ns IS ra.gpu_start_ns AND rb.gpu_end_ns IS ra.gpu_end_ns AND rb.events = ra.events
   AND rb.kernels = ra.kernels AND rb.memcpys = ra.memcpys AND rb.memsets = ra.memsets
   AND rb.busy_ns = ra.busy_ns AND rb.kernel_ns = ra.kernel_ns
  WHERE (SELECT count(*) FROM trace_kernels k WHERE k.run_id = ra.run_id AND k.rank = ra.rank)
      = (SELECT count(*) FROM trace_kernels k WHERE k.run_id = rb.run_id AND k.rank = rb.rank)
    AND NOT EXISTS (SELECT 1 FROM trace_kernels ka WHERE ka.run_id = ra.run_id AND ka.rank = ra.rank
      AND NOT EXISTS (SELECT 1 FROM trace_kernels kb WHERE kb.run_id = rb.run_id AND kb.rank = rb.rank
        AND kb.name_id = ka.name_id AND kb.coll = ka.coll AND kb.count = ka.count AND kb.total_ns = ka.total_ns))
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
FROM trace_imports a
JOIN trace_imports b ON b.run_id IN (SELECT t.b_run FROM twin t WHERE t.a_run = a.run_id)
JOIN runs rb ON rb.id = b.run_id AND rb.status = 'ok'
-- an import that marked no steps (a misspelt --step-annotation) answers no query: it must not
-- hide the import that does
WHERE EXISTS (SELECT 1 FROM trace_steps s WHERE s.run_id = b.run_id)
  AND (b.ranks > a.ranks OR (b.ranks = a.ranks AND b.run_id > a.run_id))
  AND NOT EXISTS (SELECT 1 FROM trace_ranks ra WHERE ra.run_id = a.run_id AND NOT EXISTS (
        SELECT 1 FROM twin t WHERE t.a_run = ra.run_id AND t.a_rank = ra.rank AND t.b_run = b.run_id))
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
