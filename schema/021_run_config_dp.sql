-- xp schema 21: data parallelism is part of a run's configuration. A serving benchmark or a
-- declaration (--set dp=N) names DP beside TP, PP and EP, but runs has no column for it and
-- run_config's label (schema 7) left it out, so a DP 2 and a DP 4 run of one model at one TP
-- were one configuration: the queries and xp report averaged them together.
--
-- run_config as in schema 7, with dp=N last: the run's metadata "dp", its detected value (what
-- the results name) before a declared one, as the runs columns take them.
DROP VIEW IF EXISTS run_config;
CREATE VIEW run_config AS
SELECT id AS run_id,
       trim(coalesce('engine=' || engine || ' ', '') || coalesce('dtype=' || dtype || ' ', '')
            || coalesce('quantization=' || quantization || ' ', '') || coalesce('ep=' || ep || ' ', '')
            || coalesce('pp=' || pp || ' ', '')
            || coalesce('dp=' || (SELECT m.value FROM run_meta m WHERE m.run_id = runs.id AND m.key = 'dp'
                                  ORDER BY m.source = 'declared' LIMIT 1), '')) AS config
FROM runs;
