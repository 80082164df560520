-- xp schema 26: a rank taken from the trace file's name has a source of its own, 'file_name'.
-- TensorRT-LLM's PyTorch backend writes each rank's torch.profiler trace to the path its
-- TLLM_TORCH_PROFILE_TRACE gives with "-rank-N" put before the extension (py_executor.py:
-- f"{base}-rank-{global_rank}{ext}", so "trace.json" gives "trace-rank-3.json" and
-- "trace.json.gz" gives "trace.json-rank-3.gz"; its /start_profile, trtllm-trace-ID-rank-N.json),
-- and its ranks, which talk through MPI and its own NCCL communicators, write no distributedInfo
-- and no record_param_comms: the name is the only place their rank is written. No row stored
-- before came from a name (such a trace was refused with several files, or rank 0 'default'
-- alone), so none is rewritten.
--
-- As schema 20, the CHECK of the table is widened the way SQLite documents for a change ALTER
-- TABLE cannot make (lang_altertable.html, "Making Other Kinds Of Table Schema Changes"): a new
-- table of the new definition, every row copied into it, the old one dropped and the new one
-- renamed with legacy_alter_table on (which leaves the views that read trace_ranks as they are),
-- then its append-only guards made again. The rows' columns, values and order of columns are
-- those sealed, so every seal and link of the chain still holds.
PRAGMA legacy_alter_table = ON;
CREATE TABLE trace_ranks_026 (
  run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank             INTEGER NOT NULL,
  rank_source      TEXT NOT NULL CHECK (rank_source IN ('trace', 'comms', 'file_name', 'option', 'default')),
  file             TEXT NOT NULL,
  json_bytes       INTEGER NOT NULL,
  events           INTEGER NOT NULL,
  kernels          INTEGER NOT NULL,
  memcpys          INTEGER NOT NULL,
  memsets          INTEGER NOT NULL,
  cpu_ops          INTEGER NOT NULL,
  linked_kernels   INTEGER NOT NULL,  -- GPU activities linked to their launching operator
  device           INTEGER,           -- the GPU this rank's activities ran on
  world_size       INTEGER,
  schema_version   INTEGER,
  base_time_ns     INTEGER,           -- baseTimeNanoseconds (NULL: timestamps were absolute)
  device_name      TEXT,
  cuda_runtime     INTEGER,
  cuda_driver      INTEGER,
  cupti            INTEGER,
  nccl_version     TEXT,
  backend          TEXT,
  metadata         TEXT NOT NULL CHECK (json_valid(metadata)), -- every top-level key but traceEvents
  gpu_start_ns     INTEGER,           -- first GPU activity starts
  gpu_end_ns       INTEGER,           -- last one ends
  busy_ns          INTEGER NOT NULL,  -- union of GPU activity intervals over all streams
  idle_ns          INTEGER NOT NULL,  -- (gpu_end - gpu_start) - busy
  kernel_ns        INTEGER NOT NULL,  -- sum of durations (overlap counted twice)
  profiler_start_ns INTEGER,          -- the profiler's own span, if recorded
  profiler_end_ns  INTEGER,
  steps            INTEGER NOT NULL,
  coll_kernels     INTEGER NOT NULL,
  coll_matched     INTEGER NOT NULL,
  coll_unmatched   INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank)
) STRICT;
INSERT INTO trace_ranks_026 SELECT * FROM trace_ranks;
DROP TABLE trace_ranks;
ALTER TABLE trace_ranks_026 RENAME TO trace_ranks;
PRAGMA legacy_alter_table = OFF;
-- The append-only guards went with the old table: made again here, word for word as harness/chain.c
-- (xp_history_guard) makes them at a seal, so that a finished run's ranks stay as sealed. Where no
-- run was sealed yet they come before the first seal, which would have made these very triggers.
CREATE TRIGGER "xp_append_only_trace_ranks_insert" BEFORE INSERT ON "trace_ranks" WHEN (SELECT status FROM runs WHERE id = NEW."run_id") <> 'running' BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER "xp_append_only_trace_ranks_update" BEFORE UPDATE ON "trace_ranks" WHEN (SELECT status FROM runs WHERE id = OLD."run_id") <> 'running' OR (SELECT status FROM runs WHERE id = NEW."run_id") <> 'running' BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER "xp_append_only_trace_ranks_delete" BEFORE DELETE ON "trace_ranks" WHEN (SELECT status FROM runs WHERE id = OLD."run_id") <> 'running' BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
