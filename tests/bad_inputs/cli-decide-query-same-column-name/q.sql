-- each run's GPUs: the run's uuid and the GPU's, both columns named "uuid"
SELECT r.uuid, g.uuid, r.kind
FROM runs r LEFT JOIN run_gpus g ON g.run_id = r.id;
