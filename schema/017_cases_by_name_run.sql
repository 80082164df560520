-- xp schema 17: cases looked up by name within given runs. xp compare (xp_metric_samples)
-- asks, for each case of one side, for the case of that name in the other side's runs. With
-- only cases_by_name and UNIQUE (run_id, seq), SQLite, which keeps no statistics here, took
-- the run's index and tested every case of the run for each lookup: quadratic in the cases of
-- a run (two imports of a 3,000-size nccl-tests sweep: 2 minutes). This index answers
-- (name, run_id) at once, whether a run has many cases or a name many runs.
CREATE INDEX IF NOT EXISTS cases_by_name_run ON cases (name, run_id);
