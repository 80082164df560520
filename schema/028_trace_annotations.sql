-- xp schema 28: the GPU time of each annotation (record_function range) of a trace, per step.
-- Kineto draws a record_function range on the GPU timeline too ("gpu_user_annotation": from its
-- first GPU activity's start to its last one's end), which is how a vLLM or SGLang user sees
-- the GPU time of a layer, an attention or an MoE block, and what torch.profiler's key_averages
-- gives as the range's device time. The importer dropped them; a run imported before this
-- schema has no rows (its trace is not kept), and none is made up.
--
-- One row per rank, step and name: step is trace_steps.step, NULL for a range outside every
-- step. written_ns sums the durations as the trace writes them; Kineto's writer widens each
-- range by widen_ns (2 ns since 2023: 1 before its first activity, 1 past its last; 1 before
-- that), told from the trace itself (importers/torch_trace/tt_annot.c), 0 where it shows none.
-- total_ns is written_ns less the widening: the profiler's own figure. Ranges nest (an
-- attention inside a decode step), so totals of different names overlap and do not add up.
CREATE TABLE IF NOT EXISTS trace_annotations (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank       INTEGER NOT NULL,
  step       INTEGER,
  name       TEXT NOT NULL,
  count      INTEGER NOT NULL,
  written_ns INTEGER NOT NULL,
  widen_ns   INTEGER NOT NULL,
  total_ns   INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS trace_annotations_run ON trace_annotations (run_id, rank, step);
