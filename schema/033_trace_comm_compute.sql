-- xp schema 33: each step's communication also says how much of it no compute kernel hid.
-- Schema 31's trace_step_comm.exposed_ns counts any other GPU activity of the rank as hiding
-- communication, a copy or fill too (the GPU was busy then). HTA's comm_comp_overlap, the figure
-- users set it beside, counts only compute kernels (hta/analyzers/communication_analysis.py): on
-- HTA's own test trace nccl_data.json.gz 39.191 ms exposed against HTA's 39.559 ms of 46.876.
-- Both are kept: per trace_step_comm row, compute_exposed_ns is the part of its comm_ns when no
-- compute kernel of the rank ran (a kernel outside the communication group; copies and fills
-- hide none), so never less than its exposed_ns (importers/torch_trace/tt_overlap.c). A table of
-- its own, not a column of trace_step_comm: a step stored before this schema has no row (its
-- trace is not kept, and the figure is not made up), and no sealed row changes.
CREATE TABLE IF NOT EXISTS trace_step_comm_compute (
  run_id             INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank               INTEGER NOT NULL,
  step               INTEGER NOT NULL,
  compute_exposed_ns INTEGER NOT NULL CHECK (compute_exposed_ns >= 0),
  PRIMARY KEY (run_id, rank, step)
) STRICT;
