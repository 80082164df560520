-- xp schema 18: one GPU, one name in a configuration. The recorder files a declared GPU
-- (--set gpu=h200) under the name this database's runs already give it ("NVIDIA H200"), but
-- only where such a run exists: a trace imported with --set gpu=h200 before any run detected
-- the H200 keeps "h200", and the gemm and nccl runs that later detect "NVIDIA H200" made a
-- configuration of their own, so decode_gap_analysis found no GEMMs of the traces' GPU.
-- Recorded names are history and are not rewritten; the configuration reads them through
-- this spelling instead.
--
-- gpu_spelling: each GPU name the runs record (runs.gpu_name), the name its configuration
-- uses: of the names that fold alike, one a run detected (the driver's or a trace's
-- deviceProperties' spelling) before one only declared, then the fullest (with its vendor
-- word: "NVIDIA H200" before "H200", whichever database a merge brought first), then the first
-- recorded. The fold is
-- recorder.c's fold_gpu: lower case, single spaces, without a leading "nvidia " or "amd "
-- ("NVIDIA H200" and "h200" fold alike, "H200 NVL" does not).
DROP VIEW IF EXISTS gpu_spelling;
CREATE VIEW gpu_spelling AS
WITH lowered(name, l) AS (
  SELECT DISTINCT gpu_name, trim(replace(replace(replace(replace(lower(gpu_name), '  ', ' '), '  ', ' '),
                                                   '  ', ' '), '  ', ' '))
  FROM runs WHERE gpu_name IS NOT NULL),
folded(name, fold, detected, first_run) AS (
  SELECT name,
         CASE WHEN l LIKE 'nvidia %' THEN substr(l, 8) WHEN l LIKE 'amd %' THEN substr(l, 5) ELSE l END,
         EXISTS (SELECT 1 FROM run_meta m WHERE m.key = 'gpu_name' AND m.source <> 'declared' AND m.value = name),
         (SELECT min(id) FROM runs WHERE gpu_name = name)
  FROM lowered)
SELECT a.name,
       (SELECT b.name FROM folded b WHERE b.fold = a.fold
        ORDER BY b.detected DESC, length(b.name) DESC, b.first_run, b.name LIMIT 1) AS spelled
FROM folded a;

-- run_configuration as in schema 16, its GPU as gpu_spelling spells it.
DROP VIEW IF EXISTS run_configuration;
CREATE VIEW run_configuration AS
SELECT r.id AS run_id, r.model, coalesce(s.spelled, r.gpu_name) AS gpu_name, r.interconnect, r.tp, r.batch, c.config,
       CASE WHEN c.config = '' AND r.model IS NULL AND r.tp IS NULL AND r.batch IS NULL
                 AND r.interconnect IS NULL AND EXISTS (SELECT 1 FROM trace_imports i WHERE i.run_id = r.id)
            THEN 'undeclared: '
                 || coalesce((SELECT replace(f.file, rtrim(f.file, replace(f.file, '/', '')), '')
                              FROM trace_ranks f WHERE f.run_id = r.id ORDER BY f.rank LIMIT 1) || ' · ', '')
                 || coalesce((SELECT i.ranks || CASE i.ranks WHEN 1 THEN ' rank' ELSE ' ranks' END
                              FROM trace_imports i WHERE i.run_id = r.id) || ' · ', '')
                 || coalesce(coalesce(s.spelled, r.gpu_name) || ' · ', '') || 'run ' || substr(r.uuid, 1, 8)
       END AS undeclared
FROM runs r JOIN run_config c ON c.run_id = r.id LEFT JOIN gpu_spelling s ON s.name = r.gpu_name;
