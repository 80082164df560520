-- xp schema 31: each step's communication, and how much of it nothing else overlapped.
-- The summed time of a step's all-reduces says what they cost only where the GPU waited for
-- them; where compute ran beside them (two-batch overlap, an all-gather on a stream of its own)
-- removing them saves less. Per rank and step: comm_ns is the time the step's communication
-- kernels covered (the union of their intervals: the kernels whose category is in the
-- communication group at import time, as trace_collectives counts them), exposed_ns the part of
-- it when no other GPU activity of the rank ran (importers/torch_trace/tt_overlap.c). A step
-- without communication has no row; a run imported before this schema has none at all (its
-- trace is not kept, and none is made up): queries tell them apart by run_meta xp.schema.
CREATE TABLE IF NOT EXISTS trace_step_comm (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank       INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  comm_ns    INTEGER NOT NULL,
  exposed_ns INTEGER NOT NULL CHECK (exposed_ns BETWEEN 0 AND comm_ns),
  PRIMARY KEY (run_id, rank, step)
) STRICT;
