-- xp schema 19: one rule for which GPU names are one GPU. Schema 18's gpu_spelling folded the
-- names in SQL while the recorder folded a declared name again in C; the two agreed only by
-- being written alike. The fold is now this view alone: gpu_spelling groups by it, and the
-- recorder asks it (and gpu_spelling) which name a declared GPU already goes by.
--
-- gpu_fold: each GPU name the runs record, folded for comparison: lower case, single spaces,
-- no space at either end, without a leading "nvidia " or "amd " ("NVIDIA H200" and " h200"
-- fold alike, "H200 NVL" does not). Runs of spaces up to 32 long are made single; no real
-- spelling has more.
DROP VIEW IF EXISTS gpu_fold;
CREATE VIEW gpu_fold AS
WITH lowered(name, l) AS (
  SELECT DISTINCT gpu_name, trim(replace(replace(replace(replace(replace(lower(gpu_name), '  ', ' '), '  ', ' '),
                                                           '  ', ' '), '  ', ' '), '  ', ' '))
  FROM runs WHERE gpu_name IS NOT NULL)
SELECT name,
       CASE WHEN l LIKE 'nvidia %' THEN substr(l, 8) WHEN l LIKE 'amd %' THEN substr(l, 5) ELSE l END AS fold
FROM lowered;

-- gpu_spelling as in schema 18, on gpu_fold: of the names that fold alike, one a run detected
-- (the driver's or a trace's deviceProperties' spelling) before one only declared, then the
-- fullest, then the first recorded.
DROP VIEW IF EXISTS gpu_spelling;
CREATE VIEW gpu_spelling AS
WITH folded(name, fold, detected, first_run) AS (
  SELECT name, fold,
         EXISTS (SELECT 1 FROM run_meta m WHERE m.key = 'gpu_name' AND m.source <> 'declared' AND m.value = name),
         (SELECT min(id) FROM runs WHERE gpu_name = name)
  FROM gpu_fold)
SELECT a.name,
       (SELECT b.name FROM folded b WHERE b.fold = a.fold
        ORDER BY b.detected DESC, length(b.name) DESC, b.first_run, b.name LIMIT 1) AS spelled
FROM folded a;
