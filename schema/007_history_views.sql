-- xp schema 7: what the queries over history count once, and when a run was measured.

-- trace_superseded: a trace run all of whose ranks are in another ok import of the same traces
-- (same rank, same first GPU activity, same number of events): the same job imported again
-- (other category rules, another step annotation, a corrected label) or some of its ranks
-- imported on their own. Counting both would count one job twice: it counts once, through the
-- import with the most ranks, and of equals the latest. by_run_id is a run that supersedes it.
CREATE VIEW trace_superseded AS
WITH first_rank AS (
  SELECT r.run_id, r.rank, r.gpu_start_ns, r.events, i.ranks
  FROM trace_ranks r JOIN trace_imports i ON i.run_id = r.run_id
  WHERE r.rank = (SELECT min(x.rank) FROM trace_ranks x WHERE x.run_id = r.run_id)
)
SELECT a.run_id, min(b.run_id) AS by_run_id
FROM first_rank a
JOIN trace_ranks br ON br.rank = a.rank AND br.gpu_start_ns IS a.gpu_start_ns AND br.events = a.events
                   AND br.run_id <> a.run_id
JOIN trace_imports b ON b.run_id = br.run_id
JOIN runs rb ON rb.id = b.run_id AND rb.status = 'ok'
WHERE (b.ranks > a.ranks OR (b.ranks = a.ranks AND b.run_id > a.run_id))
  AND NOT EXISTS (SELECT 1 FROM trace_ranks ra WHERE ra.run_id = a.run_id AND NOT EXISTS (
        SELECT 1 FROM trace_ranks rb2 WHERE rb2.run_id = b.run_id AND rb2.rank = ra.rank
          AND rb2.gpu_start_ns IS ra.gpu_start_ns AND rb2.events = ra.events))
GROUP BY a.run_id;

-- run_measured: when a run's measurement was made, as far as the run tells, as ISO 8601 UTC:
-- a trace's first GPU activity (its clock is the epoch's), a vLLM result's own date (the last
-- of several), an
-- nccl-tests -J file's start time; else when xp recorded it (for an import, the import's
-- time). Queries that take "the latest" or "the newest" order by it, so that importing old
-- results late does not make them new.
CREATE VIEW run_measured AS
SELECT r.id AS run_id,
       coalesce(
         (SELECT strftime('%Y-%m-%dT%H:%M:%SZ', min(t.gpu_start_ns) / 1000000000, 'unixepoch')
          FROM trace_ranks t WHERE t.run_id = r.id HAVING min(t.gpu_start_ns) > 946684800000000000),
         -- a vLLM result's date, "20250611-101500"; several results' joined by commas: the last
         (SELECT substr(d, 1, 4) || '-' || substr(d, 5, 2) || '-' || substr(d, 7, 2) || 'T' ||
                 substr(d, 10, 2) || ':' || substr(d, 12, 2) || ':' || substr(d, 14, 2) || 'Z'
          FROM (SELECT substr(m.value, length(m.value) - 14) AS d FROM run_meta m
                WHERE m.run_id = r.id AND m.key = 'date' AND m.source = 'trace')
          WHERE d GLOB '[12][0-9][0-9][0-9][01][0-9][0-3][0-9]-[0-2][0-9][0-5][0-9][0-5][0-9]'),
         (SELECT replace(substr(m.value, 1, 19), ' ', 'T') || 'Z'
          FROM run_meta m WHERE m.run_id = r.id AND m.key = 'nccl_tests.start_time'
            AND m.value GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]*'),
         r.started_at) AS measured_at
FROM runs r;

-- run_config: the declared configuration beyond model, GPU, interconnect, TP and batch, as one
-- label ("engine=vllm dtype=fp8 ep=8", '' when none): queries that group by configuration
-- group by it too, so that an fp8 vLLM run and a bf16 torch run are never one row.
CREATE VIEW run_config AS
SELECT id AS run_id,
       trim(coalesce('engine=' || engine || ' ', '') || coalesce('dtype=' || dtype || ' ', '')
            || coalesce('quantization=' || quantization || ' ', '') || coalesce('ep=' || ep || ' ', '')
            || coalesce('pp=' || pp, '')) AS config
FROM runs;
