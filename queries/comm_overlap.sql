-- How much of each traced job's communication did compute hide?
--
-- One row per imported torch.profiler job (newest trace first, by its own clock where it has an
-- absolute one, else by its import, as xp report dates traces; a job imported twice counts
-- once, schema view trace_superseded), over every imported rank and the import's steps:
--   busy_ms       GPU time the steps kept the GPUs busy (the union of their activities);
--   comm_ms       time communication kernels ran (all-reduce, all-gather, ... of the
--                 communication group; the union, so two collectives at once count once);
--   exposed_ms    the part of comm_ms no other GPU activity of the rank overlapped: what the
--                 steps would lose if communication were free (schema table trace_step_comm);
--   comm_pct, exposed_pct  of busy_ms; hidden_pct  of comm_ms, the part compute overlapped;
--   compute_exposed_ms, compute_exposed_pct  as exposed_ms and exposed_pct, counting only compute
--                 kernels as hiding communication (a copy or fill beside it hides none), as HTA's
--                 comm_comp_overlap does: its figure is 100 - 100 * compute_exposed_ms / comm_ms
--                 (schema table trace_step_comm_compute). Empty for a job imported by an xp
--                 before schema 33 (not made up).
-- A TP decode step on one stream hides nothing (hidden_pct 0): there the collectives' share
-- (queries/allreduce_share.sql) is what removing them saves. Where hidden_pct is high (two-batch
-- overlap, DeepEP, an all-gather on its own stream), that share overstates it: exposed_pct is
-- the figure to weigh against a GEMM's. Which kernels communicate is decided at import, as for
-- trace_collectives. Jobs imported by an xp before schema 31 are left out (their traces are
-- not kept: import them again to see them here).
--   xp query queries/comm_overlap.sql
-- if no rows: no torch.profiler trace imported by this xp yet: xp import torch-trace RANK0.json.gz ... --set model=M --set tp=N --set batch=B
WITH job AS (
  SELECT r.id AS run_id, r.uuid, g.model, g.gpu_name, g.interconnect, g.tp, g.batch, coalesce(g.undeclared, g.config) AS config,
         i.ranks,
         coalesce((SELECT CASE WHEN min(gpu_start_ns) > 946684800000000000 THEN min(gpu_start_ns) / 1e9 END
                   FROM trace_ranks t WHERE t.run_id = r.id), (julianday(r.started_at) - 2440587.5) * 86400) AS at
  FROM runs r
  JOIN trace_imports i ON i.run_id = r.id
  JOIN run_configuration g ON g.run_id = r.id
  WHERE r.status = 'ok'
    AND r.id NOT IN (SELECT run_id FROM trace_superseded)
    AND EXISTS (SELECT 1 FROM run_meta m WHERE m.run_id = r.id AND m.key = 'xp.schema' AND m.source = 'detected'
                AND CAST(m.value AS INTEGER) >= 31)
),
busy AS (
  SELECT s.run_id, count(*) AS steps, sum(s.busy_ns) AS busy_ns
  FROM trace_steps s JOIN job USING (run_id) GROUP BY s.run_id
),
comm AS (
  SELECT c.run_id, sum(c.comm_ns) AS comm_ns, sum(c.exposed_ns) AS exposed_ns,
         sum(x.compute_exposed_ns) AS compute_exposed_ns
  FROM trace_step_comm c JOIN job USING (run_id)
  LEFT JOIN trace_step_comm_compute x USING (run_id, rank, step)
  GROUP BY c.run_id
)
SELECT substr(job.uuid, 1, 8) AS run, job.model, job.gpu_name, job.interconnect, job.tp, job.batch, job.config,
       job.ranks, busy.steps,
       round(busy.busy_ns / 1e6, 3) AS busy_ms,
       round(coalesce(comm.comm_ns, 0) / 1e6, 3) AS comm_ms,
       round(coalesce(comm.exposed_ns, 0) / 1e6, 3) AS exposed_ms,
       round(100.0 * coalesce(comm.comm_ns, 0) / busy.busy_ns, 1) AS comm_pct,
       round(100.0 * coalesce(comm.exposed_ns, 0) / busy.busy_ns, 1) AS exposed_pct,
       round(100.0 * (comm.comm_ns - comm.exposed_ns) / comm.comm_ns, 1) AS hidden_pct,
       round(CASE WHEN comm.run_id IS NULL THEN 0 ELSE comm.compute_exposed_ns END / 1e6, 3) AS compute_exposed_ms,
       round(100.0 * CASE WHEN comm.run_id IS NULL THEN 0 ELSE comm.compute_exposed_ns END / busy.busy_ns, 1)
         AS compute_exposed_pct
FROM job
JOIN busy ON busy.run_id = job.run_id
LEFT JOIN comm ON comm.run_id = job.run_id
WHERE busy.busy_ns > 0
ORDER BY job.at DESC, job.run_id DESC;
