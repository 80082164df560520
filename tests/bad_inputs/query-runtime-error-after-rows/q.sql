-- the first run's row reads, the second's JSON is malformed
SELECT count(*) AS runs FROM runs;
SELECT uuid, json_extract(CASE WHEN id = (SELECT max(id) FROM runs) THEN '{' ELSE '{}' END, '$') AS j
FROM runs ORDER BY id;
