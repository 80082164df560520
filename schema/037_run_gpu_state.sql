-- run_gpu_state: each measured run's GPUs' state while it ran, one row per run and device it
-- drove, as harness/gpu_watch.c records it in run_meta (gpu_state.<device>.<figure>, source
-- 'detected'). queries/gpu_state.sql lists it and xp report counts and names the runs whose GPU
-- was slowed from it, so that the page and the query read the figures one way (the report
-- carried a copy of the query's pivot of its own).
-- Views alone: a read-only xp makes it as a TEMP view over an older database (db.c temp_views);
-- dropped first, as 029 does, so that a database whose version was set back (the migration tests
-- of cli.trace_dtype, trace_ranks, trace_category_queries) migrates again.
DROP VIEW IF EXISTS run_gpu_state;
CREATE VIEW run_gpu_state AS
WITH state AS (
  SELECT run_id,
         CAST(substr(key, 11, instr(substr(key, 11), '.') - 1) AS INTEGER) AS device,
         substr(substr(key, 11), instr(substr(key, 11), '.') + 1) AS what,
         value
  FROM run_meta
  WHERE key GLOB 'gpu_state.[0-9]*.*' AND source = 'detected'
),
per_device AS (
  SELECT run_id, device,
         max(CASE what WHEN 'samples' THEN CAST(value AS INTEGER) END) AS samples,
         max(CASE what WHEN 'samples_run' THEN CAST(value AS INTEGER) END) AS samples_run,
         max(CASE what WHEN 'scope' THEN value END) AS scope,
         max(CASE what WHEN 'sm_clock_mhz_min' THEN CAST(value AS INTEGER) END) AS sm_min,
         max(CASE what WHEN 'sm_clock_mhz_median' THEN CAST(value AS INTEGER) END) AS sm_median,
         max(CASE what WHEN 'sm_clock_mhz_max' THEN CAST(value AS INTEGER) END) AS sm_max,
         max(CASE what WHEN 'mem_clock_mhz_min' THEN CAST(value AS INTEGER) END) AS mem_min,
         max(CASE what WHEN 'temperature_c_max' THEN CAST(value AS INTEGER) END) AS temp_max,
         max(CASE what WHEN 'power_w_max' THEN CAST(value AS INTEGER) END) AS power_max,
         max(CASE what WHEN 'power_limit_w' THEN CAST(value AS INTEGER) END) AS power_limit,
         max(CASE what WHEN 'power_limit_default_w' THEN CAST(value AS INTEGER) END) AS power_default,
         max(CASE what WHEN 'slowdown_share' THEN CAST(value AS REAL) END) AS slowdown_share,
         max(CASE what WHEN 'power_cap_share' THEN CAST(value AS REAL) END) AS power_cap_share,
         max(CASE what WHEN 'clock_events' THEN value END) AS clock_events
  FROM state
  GROUP BY run_id, device
)
-- slowed: not at full speed, clocks held down by heat, a power brake or a hardware slowdown in
-- some readings, or a power limit set below the board's default (an admin's nvidia-smi -pl)
SELECT *, coalesce(slowdown_share > 0 OR power_limit < power_default, 0) AS slowed
FROM per_device;
