-- xp schema 2: torch.profiler traces (importers/torch_trace). One run is the ranks of one job,
-- imported together; each rank's trace is reduced to the tables below while it streams by.
-- Times are integer nanoseconds; instants are nanoseconds since the Unix epoch.

-- Kernel categories: the rule set in force, its categories and rules. Names are resolved to
-- categories through trace_names.category, which `xp reclassify` rewrites from the rules, so
-- a rule change re-answers every imported trace without importing it again.
CREATE TABLE trace_rule_set (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  source     TEXT NOT NULL,           -- 'built-in' or the file given to xp reclassify --rules
  sha256     TEXT NOT NULL,           -- of text
  text       TEXT NOT NULL,           -- the rules file as applied (categories.tsv format)
  applied_at TEXT NOT NULL
) STRICT;

CREATE TABLE trace_categories (
  category TEXT PRIMARY KEY,
  grp      TEXT NOT NULL CHECK (grp IN ('communication', 'compute', 'memory', 'other'))
) STRICT, WITHOUT ROWID;

CREATE TABLE trace_rules (
  seq      INTEGER PRIMARY KEY,       -- rules are tried in this order; the first match wins
  category TEXT NOT NULL,
  how      TEXT NOT NULL CHECK (how IN ('prefix', 'contains', 'icontains', 'regex')),
  pattern  TEXT NOT NULL,
  line     INTEGER                    -- in trace_rule_set.text
) STRICT;

-- Every distinct GPU activity name ever imported, once. The id is the first eight bytes of the
-- name's SHA-256 (as a signed integer), so the same name has the same id in every database and
-- databases merge without renumbering.
CREATE TABLE trace_names (
  id       INTEGER PRIMARY KEY,
  name     TEXT NOT NULL UNIQUE,
  kind     TEXT NOT NULL CHECK (kind IN ('kernel', 'memcpy', 'memset')),
  category TEXT NOT NULL,             -- from the rules; 'other' when none matched
  rule_seq INTEGER                    -- trace_rules.seq of the rule that matched, NULL if none
) STRICT;

-- One row per import (per run).
CREATE TABLE trace_imports (
  run_id          INTEGER NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
  ranks           INTEGER NOT NULL,   -- ranks imported
  world_size      INTEGER,            -- ranks in the job, from the traces (NULL: unknown)
  single_rank     INTEGER NOT NULL CHECK (single_rank IN (0, 1)), -- waiting is mixed into collectives
  step_annotation TEXT NOT NULL,      -- 'ProfilerStep#N' or the annotation asked for
  coll_matched    INTEGER NOT NULL,   -- collective kernels split into wait and transfer
  coll_unmatched  INTEGER NOT NULL,   -- collective kernels with no complete set of peers
  match_groups    INTEGER NOT NULL,   -- collectives matched across all their ranks
  match_method    TEXT NOT NULL,
  events_kept     INTEGER NOT NULL    -- rows in trace_events (--events)
) STRICT;

-- One row per rank: the trace's own metadata and whole-trace figures.
CREATE TABLE trace_ranks (
  run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank             INTEGER NOT NULL,
  rank_source      TEXT NOT NULL CHECK (rank_source IN ('trace', 'option', 'default')),
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

-- Per rank and distinct name: count, total, min, max. coll is the collective named by the
-- kernel's args ("Collective name"), '' if none: since NCCL 2.19 a kernel's name does not
-- say which collective it ran, its args do.
CREATE TABLE trace_kernels (
  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank     INTEGER NOT NULL,
  name_id  INTEGER NOT NULL,          -- trace_names.id
  coll     TEXT NOT NULL,
  count    INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  min_ns   INTEGER NOT NULL,
  max_ns   INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank, name_id, coll)
) STRICT;

-- Steps: ProfilerStep#N, or the annotation given with --step-annotation (decode_step).
-- A kernel belongs to the step its launching operator ran in (External id link), else to the
-- step whose CPU window contains its start.
CREATE TABLE trace_steps (
  run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank         INTEGER NOT NULL,
  step         INTEGER NOT NULL,      -- 0, 1, ... in time order
  number       INTEGER NOT NULL,      -- N of ProfilerStep#N, else equal to step
  start_ns     INTEGER NOT NULL,      -- the annotation on the CPU
  wall_ns      INTEGER NOT NULL,
  gpu_start_ns INTEGER,               -- first kernel of the step starts
  gpu_end_ns   INTEGER,               -- last one ends
  kernels      INTEGER NOT NULL,
  kernel_ns    INTEGER NOT NULL,      -- sum of the step's GPU activity durations
  busy_ns      INTEGER NOT NULL,      -- union of their intervals
  PRIMARY KEY (run_id, rank, step)
) STRICT;

CREATE TABLE trace_step_kernels (
  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank     INTEGER NOT NULL,
  step     INTEGER NOT NULL,
  name_id  INTEGER NOT NULL,
  coll     TEXT NOT NULL,
  count    INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank, step, name_id, coll)
) STRICT;

-- Every collective kernel, with its split into waiting and transferring when all its peers
-- were imported and matched (see importers/torch_trace/tt_match.c for how).
CREATE TABLE trace_collectives (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank        INTEGER NOT NULL,
  seq         INTEGER NOT NULL,       -- order on this rank
  name_id     INTEGER NOT NULL,
  collective  TEXT NOT NULL,          -- allreduce, allgather, ... ('communication': other)
  source      TEXT NOT NULL CHECK (source IN ('args', 'name')), -- where collective/dtype came from
  dtype       TEXT,
  in_nelems   INTEGER,
  out_nelems  INTEGER,
  in_bytes    INTEGER,                -- message bytes (input)
  out_bytes   INTEGER,
  group_size  INTEGER,
  pg_name     TEXT,                   -- process group, NULL if unknown
  pg_desc     TEXT,
  pg_ranks    TEXT,
  seq_arg     INTEGER,                -- the collective's "Seq" in its group, if recorded
  stream      INTEGER,
  device      INTEGER,
  step        INTEGER,                -- NULL: outside every step
  start_ns    INTEGER NOT NULL,
  dur_ns      INTEGER NOT NULL,
  match_group INTEGER,                -- same value on every rank's kernel of one collective
  wait_ns     INTEGER,                -- until the last rank arrived (NULL: unmatched)
  transfer_ns INTEGER,                -- after it (NULL: unmatched)
  PRIMARY KEY (run_id, rank, seq)
) STRICT;

-- Kernels by the operator that launched them and the operator's input shapes and dtypes
-- (recorded with record_shapes=True): join to micro-benchmarks of the same shape.
CREATE TABLE trace_shapes (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank        INTEGER NOT NULL,
  name_id     INTEGER NOT NULL,
  op          TEXT NOT NULL,          -- aten::mm, record_param_comms, ...
  input_dims  TEXT NOT NULL,          -- JSON, compact ("[[8,7168],[7168,512]]"); '' if not recorded
  input_types TEXT NOT NULL,          -- JSON, compact; '' if not recorded
  count       INTEGER NOT NULL,
  total_ns    INTEGER NOT NULL,
  min_ns      INTEGER NOT NULL,
  max_ns      INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank, name_id, op, input_dims, input_types)
) STRICT;

-- Every event, with --events only (off by default: a big trace has millions).
CREATE TABLE trace_events (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank   INTEGER NOT NULL,
  seq    INTEGER NOT NULL,            -- position in traceEvents
  ph     TEXT,
  cat    TEXT,
  name   TEXT,
  ts_ns  INTEGER,                     -- as written: relative to trace_ranks.base_time_ns if set
  dur_ns INTEGER,
  pid    ANY,
  tid    ANY,
  args   TEXT CHECK (args IS NULL OR json_valid(args)),
  PRIMARY KEY (run_id, rank, seq)
) STRICT;

-- Kernels with their category resolved now. A kernel whose args name a collective takes that
-- collective as its category when its name's category is a communication one.
CREATE VIEW trace_kernel_stats AS
SELECT k.run_id, k.rank, k.name_id, n.name, n.kind, k.coll,
       CASE WHEN c.grp = 'communication' AND k.coll <> '' THEN k.coll ELSE n.category END AS category,
       k.count, k.total_ns, k.min_ns, k.max_ns
FROM trace_kernels k JOIN trace_names n ON n.id = k.name_id
LEFT JOIN trace_categories c ON c.category = n.category;

-- Per rank and category: time, and share of the rank's summed GPU activity time.
CREATE VIEW trace_category_totals AS
SELECT s.run_id, s.rank, s.category, coalesce(g.grp, 'other') AS grp, sum(s.count) AS count,
       sum(s.total_ns) AS total_ns,
       CAST(sum(s.total_ns) AS REAL) / nullif(r.kernel_ns, 0) AS share
FROM trace_kernel_stats s JOIN trace_ranks r ON r.run_id = s.run_id AND r.rank = s.rank
LEFT JOIN trace_categories g ON g.category = s.category
GROUP BY s.run_id, s.rank, s.category;

-- Per step and category.
CREATE VIEW trace_step_categories AS
SELECT k.run_id, k.rank, k.step,
       CASE WHEN c.grp = 'communication' AND k.coll <> '' THEN k.coll ELSE n.category END AS category,
       sum(k.count) AS count, sum(k.total_ns) AS total_ns
FROM trace_step_kernels k JOIN trace_names n ON n.id = k.name_id
LEFT JOIN trace_categories c ON c.category = n.category
GROUP BY 1, 2, 3, 4;

-- Per step and collective: recorded time, and its split where matched.
CREATE VIEW trace_step_collectives AS
SELECT run_id, rank, step, collective, count(*) AS kernels,
       count(match_group) AS matched, sum(dur_ns) AS dur_ns,
       sum(CASE WHEN match_group IS NOT NULL THEN dur_ns END) AS matched_dur_ns,
       sum(wait_ns) AS wait_ns, sum(transfer_ns) AS transfer_ns
FROM trace_collectives GROUP BY run_id, rank, step, collective;
