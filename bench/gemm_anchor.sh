#!/usr/bin/env bash
# GEMM proof on a GPU host, side by side with ../shared/anchors.md:
#   1. the device's ceilings (copy kernel GB/s, bf16/fp8 matmul peaks);
#   2. every shape of the anchors' "cuBLAS from C" table, cold and hot: anchor vs xp (ratio,
#      within 10%?), achieved GB/s and its share of the measured copy ceiling;
#   3. the torch.mm-loop table's shapes: launch-bound Python loop vs xp's kernel time;
#   4. Kimi-K2.5 at TP=8 (experiments/gemm_kimi_k25_tp8.toml): default vs best-of-N and
#      share of the copy ceiling per GEMM and batch, and the decode-step GEMM time at
#      batch 1 and 16 (queries/gemm_decode_step.sql).
# Usage: XP=build/xp XP_SRC=. bash bench/gemm_anchor.sh   (prints "skipped" without a GPU)
set -u
XP=${XP:-xp}
XP_SRC=${XP_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gemm_anchor: skipped: no GPU"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/bench.db"
q() { # q NAME SQL [--param ...]: print a titled table
  local name=$1 sql=$2
  shift 2
  printf '%s\n' "$sql" > "$tmp/$name.sql"
  echo
  echo "== $name"
  "$XP" --db "$db" query "$tmp/$name.sql" "$@"
}
run() { # run SPEC: record it, show only its errors and the time it took
  local t0=$SECONDS
  if ! "$XP" --db "$db" run "$1" > "$tmp/run.out" 2> "$tmp/run.err"; then
    cat "$tmp/run.out" "$tmp/run.err"
    echo "gemm_anchor: xp run $1 failed"
    exit 1
  fi
  echo "ran $(basename "$1") in $((SECONDS - t0)) s"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
cat > "$tmp/anchor_shapes.toml" <<'TOML'
kind = "gemm"
name = "anchor_shapes"
description = "the cuBLAS-from-C anchor shapes of ../shared/anchors.md"
dtype = "bf16"
m = [1, 16, 256]
cache = "both"
shapes = [{name = "moe_gate_up", n = 512, k = 7168},
          {name = "moe_down", n = 7168, k = 256},
          {name = "dense_gate_up", n = 4608, k = 7168},
          {name = "dense_down", n = 7168, k = 2304},
          {name = "o_proj", n = 7168, k = 1024}]
TOML
cat > "$tmp/torch_shapes.toml" <<'TOML'
kind = "gemm"
name = "torch_shapes"
description = "the torch.mm-loop shapes of ../shared/anchors.md"
dtype = "bf16"
m = [1, 8, 32, 128, 256]
cache = "cold"
top_n = 1
shapes = [{name = "a", n = 1024, k = 7168}, {name = "b", n = 7168, k = 256},
          {name = "c", n = 4096, k = 7168}, {name = "d", n = 7168, k = 2048}]
TOML
run "$XP_SRC/experiments/ceilings.toml"
run "$tmp/anchor_shapes.toml"
run "$tmp/torch_shapes.toml"
run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml"

q ceilings "SELECT c.name AS ceiling, round(m.median, 1) AS median, m.unit, round(m.p10, 1) AS p10,
       round(m.p90, 1) AS p90, coalesce(json_extract(c.params, '\$.algo'), '') AS how
FROM cases c JOIN metrics m ON m.case_id = c.id
WHERE c.run_id = (SELECT max(id) FROM runs WHERE kind = 'ceilings' AND status = 'ok')
  AND m.name IN ('gbps', 'tflops') ORDER BY c.seq;"

# xp's *_us are the medians of cuBLASLt's heuristic default; best = fastest of its top 8.
X_CASES="SELECT json_extract(c.params, '\$.n') AS n, json_extract(c.params, '\$.k') AS k,
         json_extract(c.params, '\$.m') AS m, json_extract(c.params, '\$.cache') AS cache,
         d.median AS us, b.median AS best_us, g.median AS gbps, s.median AS share
  FROM cases c JOIN metrics d ON d.case_id = c.id AND d.name = 'time_us'
  JOIN metrics b ON b.case_id = c.id AND b.name = 'time_best_us'
  JOIN metrics g ON g.case_id = c.id AND g.name = 'gbps'
  JOIN metrics s ON s.case_id = c.id AND s.name = 'bw_share'
  WHERE c.run_id = (SELECT max(id) FROM runs WHERE kind = 'gemm' AND status = 'ok'
                    AND json_extract(spec_json, '\$.name') = :spec)"

q anchors_vs_xp "WITH a(shape, n, k, m, cold_us, hot_us, cold_gbps) AS (VALUES
  ('512x7168', 512, 7168, 1, 6.84, 5.78, 1076), ('512x7168', 512, 7168, 16, 7.03, 5.96, 1079),
  ('512x7168', 512, 7168, 256, 9.15, 8.52, 1233), ('7168x256', 7168, 256, 1, 3.37, 2.76, 1094),
  ('7168x256', 7168, 256, 256, 4.48, 4.10, 1667), ('4608x7168', 4608, 7168, 1, 20.42, 20.02, 3237),
  ('4608x7168', 4608, 7168, 256, 26.79, 26.59, 2691), ('7168x2304', 7168, 2304, 1, 11.19, 9.06, 2953),
  ('7168x1024', 7168, 1024, 1, 5.99, 5.00, 2454)),
x AS ($X_CASES)
SELECT a.shape, a.m AS M, a.cold_us AS anc_cold, round(c.us, 2) AS xp_cold,
       round(c.us / a.cold_us, 2) AS ratio, round(c.best_us, 2) AS xp_best,
       a.hot_us AS anc_hot, round(h.us, 2) AS xp_hot, round(h.us / a.hot_us, 2) AS ratio_hot,
       round(h.best_us, 2) AS xp_hot_best, a.cold_gbps AS anc_GBps, round(c.gbps) AS xp_GBps,
       round(100 * c.share, 1) AS pct_copy,
       CASE WHEN abs(c.us / a.cold_us - 1) <= 0.10 AND abs(h.us / a.hot_us - 1) <= 0.10
            THEN 'yes' ELSE 'NO' END AS within_10pct
FROM a LEFT JOIN x c ON c.n = a.n AND c.k = a.k AND c.m = a.m AND c.cache = 'cold'
       LEFT JOIN x h ON h.n = a.n AND h.k = a.k AND h.m = a.m AND h.cache = 'hot';" --param spec=anchor_shapes

q torch_mm_loop_vs_xp "WITH t(shape, n, k, m, torch_us) AS (VALUES
  ('1024x7168', 1024, 7168, 1, 19.3), ('1024x7168', 1024, 7168, 8, 19.4), ('1024x7168', 1024, 7168, 32, 20.1),
  ('1024x7168', 1024, 7168, 128, 20.0), ('1024x7168', 1024, 7168, 256, 20.0),
  ('7168x256', 7168, 256, 1, 16.1), ('7168x256', 7168, 256, 8, 15.8), ('7168x256', 7168, 256, 32, 15.8),
  ('7168x256', 7168, 256, 128, 15.9), ('7168x256', 7168, 256, 256, 15.6),
  ('4096x7168', 4096, 7168, 1, 20.5), ('4096x7168', 4096, 7168, 8, 20.3), ('4096x7168', 4096, 7168, 32, 20.5),
  ('4096x7168', 4096, 7168, 128, 22.3), ('4096x7168', 4096, 7168, 256, 25.6),
  ('7168x2048', 7168, 2048, 1, 16.2), ('7168x2048', 7168, 2048, 8, 15.7), ('7168x2048', 7168, 2048, 32, 15.6),
  ('7168x2048', 7168, 2048, 128, 15.8), ('7168x2048', 7168, 2048, 256, 16.0)),
x AS ($X_CASES)
SELECT t.shape, t.m AS M, t.torch_us AS torch_mm_loop_us, round(x.us, 2) AS xp_cold_us,
       round(t.torch_us / x.us, 1) AS torch_over_xp, round(x.gbps) AS xp_GBps,
       round(100 * x.share, 1) AS pct_copy
FROM t LEFT JOIN x ON x.n = t.n AND x.k = t.k AND x.m = t.m AND x.cache = 'cold';" --param spec=torch_shapes

KIMI_PIVOT="SELECT c.name AS gemm, json_extract(c.params, '\$.n') || 'x' || json_extract(c.params, '\$.k') AS NxK,
  %s FROM cases c JOIN metrics d ON d.case_id = c.id AND d.name = 'time_us'
  JOIN metrics b ON b.case_id = c.id AND b.name = 'time_best_us'
  JOIN metrics s ON s.case_id = c.id AND s.name = 'bw_share_best'
  WHERE c.run_id = (SELECT max(id) FROM runs WHERE kind = 'gemm' AND status = 'ok' AND model = 'Kimi-K2.5')
    AND json_extract(c.params, '\$.cache') = :cache
  GROUP BY c.name ORDER BY min(c.seq);"
cols() { # cols EXPR: one column per decode batch
  local out="" b
  for b in 1 8 16 32 64 128 256; do
    out="$out${out:+, }round(max(CASE WHEN json_extract(c.params, '\$.batch') = $b THEN $1 END), 2) AS b$b"
  done
  printf '%s' "$out"
}
q kimi_best_us_cold "$(printf "$KIMI_PIVOT" "$(cols b.median)")" --param cache=cold
q kimi_default_over_best_cold "$(printf "$KIMI_PIVOT" "$(cols 'd.median / b.median')")" --param cache=cold
q kimi_pct_copy_best_cold "$(printf "$KIMI_PIVOT" "$(cols '100 * s.median')")" --param cache=cold
q kimi_best_us_hot "$(printf "$KIMI_PIVOT" "$(cols b.median)")" --param cache=hot
for b in 1 16; do
  echo
  echo "== Kimi-K2.5 TP=8 decode-step GEMM time, batch $b (cold)"
  "$XP" --db "$db" query "$XP_SRC/queries/gemm_decode_step.sql" --param model=Kimi-K2.5 --param tp=8 --param batch=$b
done
