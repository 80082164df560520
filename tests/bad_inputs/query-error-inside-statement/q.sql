-- runs per status
SELECT
  status,
  count(*) AS n
FROM runs WHERE stauts IS NOT NULL
GROUP BY status;
