#!/usr/bin/env bash
# queries/decode_gap_analysis.sql: a decode step predicted from gemm and nccl_burst runs beside
# the step measured in traces. The gemm and nccl_burst runs come from tests/unit/test_report
# --keep (recorded through the recorder as the runners record them); the traces and an
# nccl-tests log are the real fixtures. The expected all-reduce time is interpolated here, in
# awk, from the nccl_burst medians read back from the database.
set -u
. "$XP_SRC/tests/lib.sh"
if [ ! -x "${XP_BUILD:-}/tests/test_report" ]; then
  echo "skipped: ${XP_BUILD:-}/tests/test_report is not built"
  exit 77
fi
q="$XP_SRC/queries/decode_gap_analysis.sql"
near() { # near DESCRIPTION EXPECTED ACTUAL TOLERANCE
  if ! awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; then
    echo "FAIL: $1: expected [$2] within $4, got [$3]"
    fail=1
  fi
}
gap() { # gap MODEL TP BATCH: the query's rows as CSV without the header
  "$XP" --db "$db" query "$q" --param model="$1" --param tp="$2" --param batch="$3" \
    --param interconnect=any --format csv | tail -n +2
}
field() { # field COMPONENT COLUMN < CSV (columns: 2 predicted, 3 measured, 4 gap)
  awk -F, -v c="$1" -v k="$2" '$1 == c { print $k }'
}

"$XP_BUILD/tests/test_report" --keep "$tmp" > /dev/null || { echo "FAIL: test_report --keep"; exit 1; }

# Batch 64: o_proj (45 us x 61 launches); all-reduces from o_proj: 64 x 7168 x 2 bytes, 122 a
# step, on the CUDA-graph nccl_burst series (preferred), between its 256 KiB and 1 MiB points.
gap Kimi-K2.5 2 64 > "$tmp/b64"
near "gemm predicted" 2745 "$(field gemm 2 < "$tmp/b64")" 0.05
printf 'SELECT json_extract(c.params, "$.bytes"), m.median FROM cases c JOIN runs r ON r.id = c.run_id
  JOIN metrics m ON m.case_id = c.id AND m.name = "time_us"
  WHERE r.kind = "nccl_burst" AND json_extract(c.params, "$.mode") = "graph" ORDER BY 1;\n' > "$tmp/curve.sql"
"$XP" --db "$db" query "$tmp/curve.sql" --format csv | tail -n +2 > "$tmp/curve"
expected_ar=$(awk -F, -v b=917504 '$1 <= b { lb = $1; lt = $2 } $1 >= b && !hb { hb = $1; ht = $2 }
  END { printf "%.1f", 122 * (lt + (ht - lt) * (b - lb) / (hb - lb)) }' "$tmp/curve")
near "allreduce predicted (interpolated)" "$expected_ar" "$(field allreduce 2 < "$tmp/b64")" 0.1
near "decode step predicted" "$(awk -v a="$expected_ar" 'BEGIN { printf "%.1f", 2745 + a }')" \
  "$(field 'decode step' 2 < "$tmp/b64")" 0.15
grep -q '^allreduce,.*sizes from o_proj (2 per layer, assumed): 917504 B x122.0' "$tmp/b64" ||
  { echo "FAIL: allreduce basis: $(grep ^allreduce "$tmp/b64")"; fail=1; }
check "no trace: measured step" "" "$(field 'decode step' 3 < "$tmp/b64")"
grep -q '^decode step,.*no trace with marked steps' "$tmp/b64" || { echo "FAIL: decode step basis"; fail=1; }

# Batch 1: a GEMM of the step failed its check, so the GEMM and step predictions are withheld.
gap Kimi-K2.5 2 1 > "$tmp/b1"
check "failed GEMM: no gemm prediction" "" "$(field gemm 2 < "$tmp/b1")"
check "failed GEMM: no step prediction" "" "$(field 'decode step' 2 < "$tmp/b1")"
grep -q '^gemm,.*incomplete: 1 GEMM(s) failed' "$tmp/b1" || { echo "FAIL: gemm basis: $(grep ^gemm "$tmp/b1")"; fail=1; }

# Nothing of a configuration: every number NULL, every basis says what to run.
gap no-such-model 2 1 > "$tmp/none"
check "unknown configuration: numbers" ",," "$(cut -d, -f2-4 "$tmp/none" | sort -u)"
check "unknown configuration: rows" 6 "$(wc -l < "$tmp/none")"

# A gemm run of some GEMMs only (only = [...], or a shapes list under the model's label) is no
# decode step: it predicts none and says so, where its GEMMs were summed as the whole step's.
if command -v sqlite3 > /dev/null; then
  # the recorder's gemm run made a subset in place: past the append-only guard, in this copy only
  sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_update"
  sqlite3 "$db" "UPDATE runs SET spec_json = json_set(spec_json, '\$.only', json('[\"o_proj\"]')) WHERE kind = 'gemm'"
  gap Kimi-K2.5 2 64 > "$tmp/sub"
  check "subset: no gemm prediction" "" "$(field gemm 2 < "$tmp/sub")"
  check "subset: no step prediction" "" "$(field 'decode step' 2 < "$tmp/sub")"
  grep -qF 'a subset of the step (only [""o_proj""]), no prediction: xp run a gemm spec of the whole model' "$tmp/sub" ||
    { echo "FAIL: subset basis: $(grep ^gemm "$tmp/sub")"; fail=1; }
  sqlite3 "$db" "UPDATE runs SET spec_json = json_set(json_remove(spec_json, '\$.only'), '\$.shapes', json('[]')) WHERE kind = 'gemm'"
  gap Kimi-K2.5 2 64 > "$tmp/sub"
  check "shapes list: no gemm prediction" "" "$(field gemm 2 < "$tmp/sub")"
  grep -qF 'a subset of the step (the shapes its spec lists)' "$tmp/sub" || { echo "FAIL: shapes basis"; fail=1; }
  "$XP" --db "$db" query "$XP_SRC/queries/gemm_decode_step.sql" --param model=Kimi-K2.5 --param tp=2 \
    --param batch=64 --format csv > "$tmp/step"
  grep -qF 'a subset: the shapes its spec lists, not derived from the model' "$tmp/step" ||
    { echo "FAIL: gemm_decode_step total of a shapes list: $(tail -1 "$tmp/step")"; fail=1; }
else
  echo "note: no sqlite3 CLI; a subset gemm run is not exercised"
fi

# Real traces of a 16-layer, hidden-4096 model at TP=2, batch 1: 32 all-reduces of 8192 B a
# step; the measured components add up to the measured step.
fx="${XP_SHARED:-}/fixtures"
if [ -d "$fx/torch" ]; then
  "$XP" --db "$db" import torch-trace "$fx/torch/decode_tp2_bs1_rank0.trace.json.gz" \
    "$fx/torch/decode_tp2_bs1_rank1.trace.json.gz" --set model=moe-16L --set tp=2 --set batch=1 > /dev/null 2>&1 ||
    { echo "FAIL: torch-trace import"; fail=1; }
  gap moe-16L 2 1 > "$tmp/trace"
  grep -q '^allreduce,.*sizes from the traces: 8192 B x32.0' "$tmp/trace" ||
    { echo "FAIL: trace all-reduce sizes: $(grep ^allreduce "$tmp/trace")"; fail=1; }
  ar=$(field allreduce 2 < "$tmp/trace")
  awk -v a="$ar" 'BEGIN { exit !(a > 0) }' || { echo "FAIL: no all-reduce prediction from the traces"; fail=1; }
  sum=$(awk -F, '$1 != "decode step" { s += $3 } END { printf "%.1f", s }' "$tmp/trace")
  near "measured components add up to the step" "$(field 'decode step' 3 < "$tmp/trace")" "$sum" 0.5
  check "gemm of moe-16L not benchmarked" "" "$(field gemm 2 < "$tmp/trace")"
else
  echo "note: $fx missing; the trace side is not exercised"
fi
finish
