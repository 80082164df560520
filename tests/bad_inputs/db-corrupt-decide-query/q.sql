-- how many samples each metric has
SELECT metric, count(*) AS n FROM samples GROUP BY metric;
