-- xp schema 16: undeclared is a trace's. Schema 14 labelled every run with nothing declared
-- as a configuration of its own; xp report and the trace queries read it of traces alone, but
-- queries/regressions.sql and xp audit, which group every kind of run, could not use the view
-- as it stood: an nccl-tests sweep, a serving benchmark or a micro-benchmark names its
-- workload in its cases (collective, bytes and ranks; dataset and rates; shapes) and in its
-- spec, so two such runs with nothing declared on one GPU are one series. A trace has neither
-- cases nor a spec that says what ran: two undeclared trace jobs may be any two workloads.
--
-- run_configuration as in schema 14, less undeclared for runs that are not trace imports
-- (table trace_imports): NULL for them, as for a declared run.
DROP VIEW IF EXISTS run_configuration;
CREATE VIEW run_configuration AS
SELECT r.id AS run_id, r.model, r.gpu_name, r.interconnect, r.tp, r.batch, c.config,
       CASE WHEN c.config = '' AND r.model IS NULL AND r.tp IS NULL AND r.batch IS NULL
                 AND r.interconnect IS NULL AND EXISTS (SELECT 1 FROM trace_imports i WHERE i.run_id = r.id)
            THEN 'undeclared: '
                 || coalesce((SELECT replace(f.file, rtrim(f.file, replace(f.file, '/', '')), '')
                              FROM trace_ranks f WHERE f.run_id = r.id ORDER BY f.rank LIMIT 1) || ' · ', '')
                 || coalesce((SELECT i.ranks || CASE i.ranks WHEN 1 THEN ' rank' ELSE ' ranks' END
                              FROM trace_imports i WHERE i.run_id = r.id) || ' · ', '')
                 || coalesce(r.gpu_name || ' · ', '') || 'run ' || substr(r.uuid, 1, 8)
       END AS undeclared
FROM runs r JOIN run_config c ON c.run_id = r.id;
