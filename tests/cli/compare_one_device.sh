#!/usr/bin/env bash
# xp compare's GPU fact of a one-device run (gemm, ceilings, kernel_variant): it records every
# visible GPU and no count, and used one. The same GEMMs measured on a host of 2 GPUs and on one
# of 8 read "gpus: A 2 x NVIDIA H200; B 8 x NVIDIA H200", a difference of the run where the host
# differs (gpus_visible says that); xp runs, show and export gave the run 1 GPU (xp_run_gpus).
set -euo pipefail
: "${XP:?}"
. "$XP_SRC/tests/lib.sh"
need_sqlite3

cp "$XP_SRC/experiments/results/xp.db" "$db"
# the gemm run f508b363 again, as measured on a host of 8 GPUs (its cases and samples, 8 GPUs)
sqlite3 "$db" <<'SQL'
INSERT INTO runs (uuid, kind, origin, status, started_at, finished_at, host, spec_json, spec_sha256, spec_path,
  model, tp, batch, dtype, gpu_name, gpu_count, xp_version, xp_commit)
  SELECT 'f508b363-0000-4000-8000-0000000000b8', kind, origin, 'running', started_at, finished_at, host, spec_json,
  spec_sha256, spec_path, model, tp, batch, dtype, gpu_name, gpu_count, xp_version, xp_commit
  FROM runs WHERE uuid LIKE 'f508b363%' AND uuid NOT LIKE '%b8';
INSERT INTO run_meta (run_id, key, value, source) SELECT (SELECT max(id) FROM runs), key,
  CASE key WHEN 'gpus_visible' THEN '8' ELSE value END, source FROM run_meta WHERE run_id = 7;
WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 7)
INSERT INTO run_gpus (run_id, idx, name, uuid) SELECT (SELECT max(id) FROM runs), i, 'NVIDIA H200', 'GPU-' || i FROM d;
INSERT INTO cases (run_id, seq, name, params, status) SELECT (SELECT max(id) FROM runs), seq, name, params, status
  FROM cases WHERE run_id = 7;
INSERT INTO metrics (case_id, name, unit, n, median, mean, p10, p90, min, max, stddev)
  SELECT c2.id, m.name, m.unit, m.n, m.median, m.mean, m.p10, m.p90, m.min, m.max, m.stddev
  FROM metrics m JOIN cases c ON c.id = m.case_id AND c.run_id = 7
  JOIN cases c2 ON c2.run_id = (SELECT max(id) FROM runs) AND c2.seq = c.seq;
UPDATE runs SET status = 'ok' WHERE id = (SELECT max(id) FROM runs);
SQL

run compare f508b363-0000-4000-8000-0000000000b8 f508b363-ce67; expect_rc 0
sed -n '/^unfair/,$p' "$tmp/out" > "$tmp/unfair"
check "the GEMMs' one GPU on both sides, the hosts' GPUs apart" \
  "unfair: 1 difference between A and B|  gpus_visible: A 8; B 2" "$(paste -sd'|' "$tmp/unfair")"
run compare f508b363-0000-4000-8000-0000000000b8 f508b363-ce67 --format json; expect_rc 0
hasnt '"gpus"'
finish
