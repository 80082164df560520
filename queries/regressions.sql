-- Regressions: for every configuration, case and metric, the newest ok run against the median
-- of the older ok runs of the same configuration. Lists the changes beyond 10%, worst first,
-- that are beyond noise too: where each side has 5 samples or more (the newest run's raw samples
-- against the older runs', a run without raw samples counting its median), the Mann-Whitney
-- test xp compare and xp audit judge with says p < 0.05 (normal approximation with tie and
-- continuity correction, as scipy.stats.mannwhitneyu's asymptotic method). A median 12% up
-- among samples that spread +-40% in every run was listed 'worse'. `noise` says which: "p <
-- 0.05, 10 vs 30 samples", or "not judged (5 a side needed), 1 vs 3 samples" (a derived value,
-- an nccl-tests log's row: listed on the 10% alone).
--
-- Configuration = schema view run_configuration's, as xp report and xp audit have it: model,
-- GPU, interconnect, tp, batch and the rest declared or named (engine, dtype, quantization, ep,
-- pp, dp, a serving result's server settings serve.KEY: serve.kv_cache_dtype, ...), a trace
-- imported with nothing declared being one of its own; within the kind, the GPU count and the
-- concurrency. `config` names the rest (as bottleneck_by_config.sql's: "engine=sglang
-- serve.kv_cache_dtype=fp8", "undeclared: FILE · ..."): two configurations of one model, TP and
-- batch are two series whose rows differ there alone. A case is its name and params, less the
-- file and position an imported result came from (a vLLM result saved under a new name is the
-- same series), and less what a
-- run found rather than was asked: a kernel_variant run's random seed (fresh per run), a gemm
-- run's chosen algorithms, their indices, bound, candidates and check error, NCCL's algorithm,
-- protocol and channels (in a log only with NCCL_DEBUG_SUBSYS=TUNING or rccl-tests -A 1). Each
-- of them made every run a series of its own, never compared: a GEMM 50% slower whose best
-- algorithm or bound changed with it was no regression.
-- "Newest" is when the run was measured (schema view run_measured: a vLLM result's own date,
-- an nccl-tests -J start time), not when it was imported. Medians of older runs are the median
-- of their per-run medians. `verdict` follows the unit: times (s, ms, us, ns) are
-- better lower, rates (GB/s, TFLOP/s, tok/s, ...) better higher; other units say 'changed'.
-- A trace job imported again (view trace_superseded) counts once, and so do the same result
-- files imported again (nccl-tests logs, vLLM results: the same contents, under any name, by
-- xp rerun, a corrected --set or a script run twice): their latest import, dated by the first
-- (a log that names no date is measured by the time it was first imported, not re-imported).
-- Use: xp query queries/regressions.sql [--format csv|json]
-- if no rows: nothing moved beyond 10% and beyond noise (a case needs an ok run and at least one older ok run of its configuration)
WITH settings(threshold) AS (SELECT 0.10),
files AS (  -- an imported run's result files, by content (trace imports keep none)
  SELECT r.id, (SELECT group_concat(sha256, ',') FROM (SELECT sha256 FROM artifacts a
                 WHERE a.run_id = r.id ORDER BY sha256)) AS shas
  FROM runs r WHERE r.origin = 'imported' AND r.status = 'ok'
),
reimported AS (  -- every import of the same files but the latest, and when they were first measured
  SELECT a.id, (SELECT t.measured_at FROM files o JOIN run_measured t ON t.run_id = o.id
                WHERE o.shas = a.shas ORDER BY julianday(t.measured_at) LIMIT 1) AS first_measured,
         EXISTS (SELECT 1 FROM files b WHERE b.shas = a.shas AND b.id > a.id) AS superseded
  FROM files a WHERE a.shas IS NOT NULL
),
measured AS (
  SELECT t.run_id, coalesce(i.first_measured, t.measured_at) AS measured_at
  FROM run_measured t LEFT JOIN reimported i ON i.id = t.run_id
),
cases_keyed AS (
  SELECT c.*, json_remove(c.params, '$.file', '$.result', '$.seed', '$.algo', '$.proto', '$.channels',
                         '$.algo_default', '$.algo_best', '$.default_index', '$.best_index', '$.bound',
                         '$.bound_best', '$.candidates', '$.candidates_wrong', '$.candidates_refused',
                         '$.refused', '$.check_max_err_rms') AS key_params FROM cases c
),
points AS (
  SELECT json_array(r.kind, g.model, g.gpu_name, g.interconnect, g.tp, g.batch, g.config, g.undeclared,
                    r.gpu_count, r.concurrency, c.name, c.key_params, m.name) AS series,
         r.kind, g.model, g.gpu_name, g.interconnect, g.tp, g.batch,
         coalesce(g.undeclared, g.config) AS config, c.name AS case_name,
         c.key_params AS params, m.name AS metric, m.unit, m.median AS value, r.uuid, t.measured_at, c.id AS case_id,
         row_number() OVER (PARTITION BY r.kind, g.model, g.gpu_name, g.interconnect, g.tp, g.batch,
                            g.config, g.undeclared, r.gpu_count, r.concurrency, c.name, c.key_params, m.name
                            ORDER BY julianday(t.measured_at) DESC, r.id DESC) AS newness
  FROM runs r
  JOIN run_configuration g ON g.run_id = r.id
  JOIN measured t ON t.run_id = r.id
  JOIN cases_keyed c ON c.run_id = r.id
  JOIN metrics m ON m.case_id = c.id
  WHERE r.status = 'ok' AND c.status = 'ok' AND m.median IS NOT NULL
    AND r.id NOT IN (SELECT run_id FROM trace_superseded)  -- a job imported twice counts once
    AND r.id NOT IN (SELECT id FROM reimported WHERE superseded)  -- files imported twice alike
),
older AS (
  SELECT series, value,
         row_number() OVER (PARTITION BY series ORDER BY value) AS rank,
         count(*) OVER (PARTITION BY series) AS runs
  FROM points WHERE newness > 1
),
older_median AS (
  SELECT series, avg(value) AS median, max(runs) AS runs
  FROM older WHERE rank IN ((runs + 1) / 2, (runs + 2) / 2)
  GROUP BY series
),
compared AS (
  SELECT p.series, p.kind, p.model, p.gpu_name, p.interconnect, p.tp, p.batch, p.config, p.case_name, p.params,
         p.metric, p.unit, substr(p.uuid, 1, 8) AS newest_run, p.measured_at AS newest_at,
         p.value AS newest, o.median AS older_median, o.runs AS older_runs,
         CASE WHEN o.median <> 0 THEN (p.value - o.median) / abs(o.median) END AS change
  FROM points p JOIN older_median o ON o.series = p.series
  WHERE p.newness = 1
),
moved AS (
  SELECT compared.* FROM compared, settings
  WHERE abs(change) > settings.threshold
    -- and beyond the last printed digit where a side reads as printed to 2 decimals, as
    -- nccl-tests' text prints its times and bandwidths ("%6.2f"): its 0.00 GB/s against the same
    -- sweep's -J 0.000431 is one measurement, not -100%. Values of more digits are what was
    -- measured: a flat 0.01 floor hid a busbw of 0.001 GB/s 20% lower and a 0.004 s TTFT 25% up.
    AND NOT ((abs(newest * 100 - round(newest * 100)) < 1e-6 OR abs(older_median * 100 - round(older_median * 100)) < 1e-6)
             AND abs(newest - older_median) <= 0.005 + 1e-9)
),
sampled AS (  -- a moved series' samples: a run's raw ones where kept, else its median (a derived value)
  SELECT p.series, p.newness = 1 AS newest, coalesce(s.value, p.value) AS value
  FROM points p JOIN moved USING (series)
  LEFT JOIN samples s ON s.case_id = p.case_id AND s.metric = p.metric
),
ranked AS (  -- each sample's rank, ties given their average, and how many share its value
  SELECT series, newest,
         rank() OVER (PARTITION BY series ORDER BY value) + (count(*) OVER (PARTITION BY series, value) - 1) / 2.0 AS rank,
         count(*) OVER (PARTITION BY series, value) AS ties
  FROM sampled
),
rank_sums AS (
  SELECT series, sum(newest) AS n1, count(*) - sum(newest) AS n2,
         sum(CASE WHEN newest THEN rank ELSE 0 END) AS r1, sum(ties * ties - 1.0) AS tie_term  -- t^3 - t a tie
  FROM ranked GROUP BY series
),
noise AS (  -- |U - mean| less the continuity correction, and U's variance with tie correction
  SELECT series, n1, n2, n1 >= 5 AND n2 >= 5 AS judged,
         abs(r1 - n1 * (n1 + 1) / 2.0 - n1 * n2 / 2.0) - 0.5 AS distance,
         n1 * n2 / 12.0 * ((n1 + n2 + 1) - tie_term / ((n1 + n2) * (n1 + n2 - 1.0))) AS variance
  FROM rank_sums
)
SELECT kind, model, gpu_name, interconnect, tp, batch, config, case_name, params, metric, unit,
       newest_run, newest_at, newest, older_median, older_runs,
       round(100 * change, 1) AS change_pct,
       CASE xp_metric_direction(metric, unit)  -- xp's one list (harness/unit_better.c), as xp compare and xp audit judge
         WHEN 'lower' THEN CASE WHEN change > 0 THEN 'worse' ELSE 'better' END
         WHEN 'higher' THEN CASE WHEN change < 0 THEN 'worse' ELSE 'better' END
         ELSE 'changed'
       END AS verdict,
       CASE WHEN judged THEN 'p < 0.05, ' ELSE 'not judged (5 a side needed), ' END
         || n1 || ' vs ' || n2 || ' samples' AS noise
FROM moved JOIN noise USING (series)
-- beyond noise: p < 0.05 is z > 1.959963984540054, squared here (SQLite may lack sqrt)
WHERE NOT judged OR (variance > 0 AND distance > 0 AND distance * distance > 3.841458820694124 * variance)
ORDER BY verdict = 'worse' DESC, abs(change) DESC, kind, case_name, params, metric;
