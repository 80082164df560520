SELECT
  kind,
  status
  count(*) AS n
FROM runs
GROUP BY kind, status;
