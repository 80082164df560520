-- xp schema 14: one definition of a configuration, for xp report and the queries that group
-- runs by it. xp report (harness/report_charts.c) and queries/bottleneck_by_config.sql each
-- wrote it out, and their labels of a run with nothing declared had drifted apart (the report's
-- named the ranks and the GPU, the query's did not).
--
-- run_configuration: a run's configuration, its columns compared with IS (NULL is a value):
-- model, GPU, interconnect, TP, batch and config, the rest of the declared configuration
-- (run_config's label, '' when none). A run with none of model, TP, batch, interconnect or
-- config declared (an import with no --set) is a configuration of its own, since nothing says
-- two such runs ran the same model at the same TP and averaging them would mix two: undeclared
-- is then its label, "undeclared: rank0.json.gz · 2 ranks · NVIDIA H200 · run 1a2b3c4d" (a
-- trace's first rank's file and its ranks, the GPU where known, the run), and NULL otherwise.
-- The GPU (detected, or --set gpu where the results name none) does not make a run declared.
DROP VIEW IF EXISTS run_configuration;
CREATE VIEW run_configuration AS
SELECT r.id AS run_id, r.model, r.gpu_name, r.interconnect, r.tp, r.batch, c.config,
       CASE WHEN c.config = '' AND r.model IS NULL AND r.tp IS NULL AND r.batch IS NULL
                 AND r.interconnect IS NULL
            THEN 'undeclared: '
                 || coalesce((SELECT replace(f.file, rtrim(f.file, replace(f.file, '/', '')), '')
                              FROM trace_ranks f WHERE f.run_id = r.id ORDER BY f.rank LIMIT 1) || ' · ', '')
                 || coalesce((SELECT i.ranks || CASE i.ranks WHEN 1 THEN ' rank' ELSE ' ranks' END
                              FROM trace_imports i WHERE i.run_id = r.id) || ' · ', '')
                 || coalesce(r.gpu_name || ' · ', '') || 'run ' || substr(r.uuid, 1, 8)
       END AS undeclared
FROM runs r JOIN run_config c ON c.run_id = r.id;
