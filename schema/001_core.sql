-- xp schema 1: runs, their metadata, GPUs, cases with metrics and raw samples, artifacts.
-- Every run kind records through these tables; kinds with richer data (traces) add their own
-- tables in later migrations, keyed by run_id. STRICT tables: a wrong type is an error, not
-- a silently coerced value.

CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  uuid          TEXT NOT NULL UNIQUE,          -- globally unique: databases can be merged
  kind          TEXT NOT NULL,
  origin        TEXT NOT NULL DEFAULT 'measured' CHECK (origin IN ('measured', 'imported')),
  status        TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'aborted')),
  error         TEXT,
  started_at    TEXT NOT NULL,                 -- ISO 8601 UTC
  finished_at   TEXT,
  pid           INTEGER,                       -- of the recording process, to spot dead runs
  host          TEXT,
  boot_id       TEXT,                          -- a pid is only meaningful within one boot
  spec_json     TEXT NOT NULL CHECK (json_valid(spec_json)),  -- canonical: sorted keys
  spec_sha256   TEXT NOT NULL,
  spec_path     TEXT,
  parent_uuid   TEXT,                          -- xp rerun: the run this one repeats
  -- Flattened keys that queries group by. Detected values win over declared ones; both are
  -- kept in run_meta.
  model         TEXT,
  engine        TEXT,
  tp            INTEGER,
  ep            INTEGER,
  pp            INTEGER,
  batch         INTEGER,
  concurrency   INTEGER,
  dtype         TEXT,
  quantization  TEXT,
  interconnect  TEXT,
  gpu_name      TEXT,
  gpu_count     INTEGER,
  xp_version    TEXT,
  xp_commit     TEXT,
  -- Integrity chain (xp verify): hash of the run's content, and of it with the previous link.
  content_sha256 TEXT,
  chain_sha256   TEXT
) STRICT;
CREATE INDEX runs_by_config ON runs (kind, model, gpu_name, interconnect, tp, batch);
CREATE INDEX runs_by_time ON runs (started_at);

CREATE TABLE run_meta (
  run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  key     TEXT NOT NULL,
  source  TEXT NOT NULL CHECK (source IN ('declared', 'detected', 'env', 'trace')),
  value   TEXT,
  PRIMARY KEY (run_id, key, source)
) STRICT, WITHOUT ROWID;
CREATE INDEX run_meta_by_key ON run_meta (key, value);

CREATE TABLE run_gpus (
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  idx           INTEGER NOT NULL,
  name          TEXT,
  uuid          TEXT,
  pci_bus_id    TEXT,
  cc            TEXT,
  sm_count      INTEGER,
  mem_bytes     INTEGER,
  clock_mhz     INTEGER,
  mem_clock_mhz INTEGER,
  pcie_gen      INTEGER,
  pcie_width    INTEGER,
  PRIMARY KEY (run_id, idx)
) STRICT;

-- A case is one measured configuration of a run: a message size in one mode, a GEMM shape,
-- a kernel variant on a shape. params holds its scalars as canonical JSON.
CREATE TABLE cases (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  name    TEXT NOT NULL,
  params  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
  status  TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failed', 'skipped')),
  note    TEXT,
  UNIQUE (run_id, seq)
) STRICT;
CREATE INDEX cases_by_name ON cases (name);

CREATE TABLE metrics (
  case_id INTEGER NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
  name    TEXT NOT NULL,
  unit    TEXT NOT NULL,
  n       INTEGER NOT NULL,
  median  REAL,
  mean    REAL,
  p10     REAL,
  p90     REAL,
  min     REAL,
  max     REAL,
  stddev  REAL,
  PRIMARY KEY (case_id, name)
) STRICT;

-- Raw samples, one row each, so that comparisons (Mann-Whitney) and re-analysis stay possible.
CREATE TABLE samples (
  case_id INTEGER NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
  metric  TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  value   REAL NOT NULL,
  PRIMARY KEY (case_id, metric, seq)
) STRICT, WITHOUT ROWID;

-- Files kept with a run (NCCL topology dump, NCCL's INFO log), zlib-compressed.
CREATE TABLE artifacts (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  media_type TEXT NOT NULL,
  encoding   TEXT NOT NULL CHECK (encoding IN ('zlib', 'identity')),
  size       INTEGER NOT NULL,                  -- uncompressed bytes
  sha256     TEXT NOT NULL,                     -- of the uncompressed bytes
  data       BLOB NOT NULL,
  PRIMARY KEY (run_id, name)
) STRICT;

-- One row per metric with its case and run facts: what most queries start from.
CREATE VIEW run_metrics AS
SELECT r.id AS run_id, r.uuid, r.kind, r.status, r.started_at, r.model, r.tp, r.batch,
       r.interconnect, r.gpu_name, r.gpu_count, c.id AS case_id, c.name AS case_name,
       c.params, c.status AS case_status, m.name AS metric, m.unit, m.n, m.median, m.p10,
       m.p90, m.min, m.max, m.mean
FROM runs r JOIN cases c ON c.run_id = r.id JOIN metrics m ON m.case_id = c.id;
