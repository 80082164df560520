-- The GPUs' state while each measured run ran, newest first: SM clock (lowest, median, highest
-- NVML read, every 50 ms by default) against the peak CUDA reports, the lowest memory clock,
-- the hottest and most power drawn, the power limit the driver enforced and the board's
-- default (an admin's nvidia-smi -pl below it slows the GPU), and the share of readings whose
-- clocks heat, a power brake or a hardware slowdown held down (slowdown_share; a power cap, a
-- loaded GPU's normal limit, is power_cap_share). A run whose GPU slowed down measured a slower GPU than its neighbours:
-- look here before reading its times as a regression. One row per run and device it drove
-- (run_meta gpu_state.<device>.*, harness/gpu_watch.c); sampler says how, or why nothing was
-- read (no NVML, XP_GPU_WATCH_MS=0). The figures are those of the readings taken while xp timed
-- (scope 'timed': samples of samples_run), else, for a run none was read in, of the whole run
-- ('run'; runs recorded before xp told them apart: empty). run is the run's id as xp runs and
-- xp show name it.
--   xp query queries/gpu_state.sql
-- if no rows: no measured GPU run recorded its GPUs' state yet (xp run ... on a GPU host)
SELECT substr(r.uuid, 1, 8) AS run, r.kind, r.started_at AS started, g.name AS gpu, d.device,
       d.scope, d.samples, d.samples_run, d.sm_min, d.sm_median, d.sm_max, g.clock_mhz AS sm_peak,
       round(100.0 * d.sm_median / nullif(g.clock_mhz, 0), 1) AS pct_peak,
       d.mem_min, d.temp_max, d.power_max, d.power_limit, d.power_default, d.slowdown_share, d.power_cap_share, d.clock_events
FROM run_gpu_state d  -- the schema view that xp report reads too
JOIN runs r ON r.id = d.run_id
LEFT JOIN run_gpus g ON g.run_id = d.run_id AND g.idx = d.device
ORDER BY r.started_at DESC, r.id DESC, d.device;
