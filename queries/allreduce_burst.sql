-- What does a burst of collectives cost, by message size, mode, GPU count and the transport NCCL
-- really used?
--
--   xp query queries/allreduce_burst.sql [--format csv]
-- if no rows: no ok nccl_burst runs yet: xp run experiments/allreduce_burst.toml on a GPU host, or xp import nccl-tests LOG
--
-- One row per (collective, dtype, bytes, mode, placement, burst, GPUs, GPU model, interconnect,
-- transport, origin) over nccl_burst runs that finished ok, measured by xp or imported from
-- nccl-tests; cases with wrong results are left out. gpu is the model as view run_configuration
-- spells it ("NVIDIA H200" and "H200" are one): two GPUs' bursts are never averaged, where a
-- log that shows no interconnect ('?') or P2P disabled (SHM on both) would have mixed them. Figures are the mean over runs of each run's median:
--   burst_us      one burst of `burst` collectives back to back (rank mean); best_burst_us
--                 the lowest run's median
--   time_us       burst_us / burst: nccl-tests' per-collective time
--   busbw_GBps    nccl-tests' bus bandwidth at that time (empty where the file printed none:
--                 "nan" or "inf", a time of 0; the case's note says so)
--   spread_p90_us the 90th percentile of slowest-minus-fastest rank within a burst (the
--                 largest of the runs': never averaged away)
-- runs counts them; last_run is the day the latest was measured (view run_measured).
-- interconnect is what NCCL showed (xp's own runs' detection, or an imported log with its
-- topology dump); where it did not show it, the declared one with " (declared)" after it, and '?' where neither says; transport lists
-- NCCL's transports (P2P/..., SHM/..., NET/..., in that order whatever the log's). With P2P disabled on NVLink hardware both say
-- shm/SHM. The decode-step question: 122 x 14336 B bf16 all-reduces, graph mode, burst_us.
-- The same nccl-tests files imported again (xp rerun, a corrected --set, a script run twice)
-- are one measurement: only the latest import of them counts. So are a run's text log and its
-- -J JSON imported apart (schema view trace_superseded): the JSON's figures count, and the
-- log's NCCL lines still name the interconnect and transport.

WITH files AS (  -- an imported run's nccl-tests files, by content
  SELECT r.id, (SELECT group_concat(sha256, ',') FROM (SELECT sha256 FROM artifacts a
                 WHERE a.run_id = r.id AND a.name LIKE 'nccl-tests/%' ORDER BY sha256)) AS shas
  FROM runs r WHERE r.kind = 'nccl_burst' AND r.origin = 'imported' AND r.status = 'ok'
),
reimported AS (
  SELECT a.id FROM files a JOIN files b ON b.shas = a.shas AND b.id > a.id
),
kin(head, member, other) AS (  -- a run, then the imports of the same measurement it stands for
  SELECT id, id, 0 FROM runs WHERE kind = 'nccl_burst'
  UNION ALL SELECT by_run_id, run_id, 1 FROM trace_superseded
),
c AS (
  SELECT r.id AS run_id, (SELECT measured_at FROM run_measured WHERE run_id = r.id) AS started_at, r.origin,
         -- what NCCL showed: 'detected' by xp's own runs, 'trace' where an imported log (and its
         -- topology dump) showed it; a declared one only where neither did
         coalesce((SELECT m.value FROM kin k JOIN run_meta m ON m.run_id = k.member WHERE k.head = r.id
                   AND m.key = 'interconnect' AND m.source IN ('detected', 'trace')
                   ORDER BY k.other, m.source LIMIT 1),
                  (SELECT value || ' (declared)' FROM run_meta WHERE run_id = r.id AND key = 'interconnect'
                   AND source = 'declared'), r.interconnect, '?') AS interconnect,
         coalesce((SELECT m.value FROM kin k JOIN run_meta m ON m.run_id = k.member WHERE k.head = r.id
                   AND m.key = 'nccl.transports' ORDER BY k.other, m.source LIMIT 1), '?') AS transport,
         json_extract(c.params, '$.collective') AS collective,
         json_extract(c.params, '$.dtype') AS dtype,
         json_extract(c.params, '$.bytes') AS bytes,
         json_extract(c.params, '$.mode') AS mode,
         json_extract(c.params, '$.placement') AS placement,
         json_extract(c.params, '$.burst') AS burst,
         coalesce(json_extract(c.params, '$.ranks'), r.gpu_count) AS gpus, g.gpu_name AS gpu,
         c.id AS case_id
  FROM runs r JOIN cases c ON c.run_id = r.id JOIN run_configuration g ON g.run_id = r.id
  WHERE r.kind = 'nccl_burst' AND r.status = 'ok' AND c.status = 'ok'
    AND r.id NOT IN (SELECT id FROM reimported) AND r.id NOT IN (SELECT run_id FROM trace_superseded)
),
m AS (
  SELECT c.*,
         (SELECT median FROM metrics WHERE case_id = c.case_id AND name = 'burst_us') AS burst_us,
         (SELECT median FROM metrics WHERE case_id = c.case_id AND name = 'time_us') AS time_us,
         (SELECT median FROM metrics WHERE case_id = c.case_id AND name = 'busbw_GBps') AS busbw,
         (SELECT p90 FROM metrics WHERE case_id = c.case_id AND name = 'rank_spread_us') AS spread_p90
  FROM c
)
SELECT collective, dtype, bytes, mode, placement, burst, gpus, gpu, interconnect, transport, origin,
       count(*) AS runs,
       round(avg(burst_us), 2) AS burst_us,
       round(min(burst_us), 2) AS best_burst_us,
       round(avg(time_us), 3) AS time_us,
       round(avg(busbw), 2) AS busbw_GBps,
       round(max(spread_p90), 2) AS spread_p90_us,
       substr(max(started_at), 1, 10) AS last_run
FROM m
GROUP BY collective, dtype, bytes, mode, placement, burst, gpus, gpu, interconnect, transport, origin
ORDER BY collective, dtype, bytes, burst DESC, mode, placement, gpus, gpu, interconnect, origin;
