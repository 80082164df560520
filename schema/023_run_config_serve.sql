-- xp schema 23: a serving run's server settings are part of its configuration. The importer of
-- vllm bench sweep results (importers/vllm_bench/vb_sweep.c) records a sweep point's server
-- overrides (--serve-params: max_num_seqs, gpu_memory_utilization, ...) as run metadata
-- serve.KEY, not as settings of the case, so that xp compare pairs the two points' cases (one
-- workload) and lists the setting as their difference. But run_config's label (schema 21) left
-- them out, so the max_num_seqs 4 and 8 points of one sweep were one configuration: xp audit
-- took the second for a newer run of the first, and queries/regressions.sql called it a change
-- of the same series ("+104% better").
--
-- The parallel sizes among them (tensor_parallel_size, ...) are already the label's or the
-- run's tp, pp, dp and ep, which the importer takes from them: left out, and so is
-- enable_expert_parallel where ep says what it made (without a TP, vLLM's EP size is unknown
-- and the switch alone tells the runs apart).
--
-- run_config as in schema 21, with each other serve.KEY=VALUE last, in key order (an ordered subquery:
-- the order SQLite's group_concat keeps; 3.40 has no ORDER BY inside an aggregate), a key
-- recorded from the results before a declared one, as dp.
DROP VIEW IF EXISTS run_config;
CREATE VIEW run_config AS
SELECT id AS run_id,
       trim(coalesce('engine=' || engine || ' ', '') || coalesce('dtype=' || dtype || ' ', '')
            || coalesce('quantization=' || quantization || ' ', '') || coalesce('ep=' || ep || ' ', '')
            || coalesce('pp=' || pp || ' ', '')
            || coalesce('dp=' || (SELECT m.value FROM run_meta m WHERE m.run_id = runs.id AND m.key = 'dp'
                                  ORDER BY m.source = 'declared' LIMIT 1) || ' ', '')
            || coalesce((SELECT group_concat(s.key || '=' || s.value, ' ')
                         FROM (SELECT m.key, (SELECT v.value FROM run_meta v
                                              WHERE v.run_id = m.run_id AND v.key = m.key
                                              ORDER BY v.source = 'declared' LIMIT 1) AS value
                               FROM run_meta m WHERE m.run_id = runs.id AND m.key LIKE 'serve.%'
                                 AND m.key NOT IN ('serve.tensor_parallel_size', 'serve.pipeline_parallel_size',
                                                   'serve.data_parallel_size', 'serve.expert_parallel_size')
                                 AND NOT (m.key = 'serve.enable_expert_parallel' AND runs.ep IS NOT NULL)
                               GROUP BY m.key ORDER BY m.key) s), '')) AS config
FROM runs;
