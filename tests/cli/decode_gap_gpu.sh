#!/usr/bin/env bash
# queries/decode_gap_analysis.sql predicts a configuration's decode step from the gemm runs and
# nccl_burst series of its own GPU where there are some, whatever was measured later elsewhere,
# and says in the basis which GPU each prediction came from. A gemm run of another GPU predicts
# none of its GEMMs (a GEMM's time is that GPU's bandwidth and compute); another GPU's all-reduce
# series still predicts (its time is mostly the interconnect's and NCCL's), said in the basis.
# The runs: tests/unit/test_report --keep twice, the second database's gemm and nccl_burst runs
# made an RTX PRO 6000's at twice the times (past the append-only guard, in this copy only),
# the first's merged into it: two GPUs' runs, the RTX's the newer.
set -u
. "$XP_SRC/tests/lib.sh"
need_test_report
q="$XP_SRC/queries/decode_gap_analysis.sql"
h200="NVIDIA H200" pro="NVIDIA RTX PRO 6000 Blackwell Server Edition" b200="NVIDIA B200"
mkdir -p "$tmp/h" "$tmp/p"
"$XP_BUILD/tests/test_report" --keep "$tmp/h" > /dev/null || { echo "FAIL: test_report --keep"; exit 1; }
"$XP_BUILD/tests/test_report" --keep "$tmp/p" > /dev/null || { echo "FAIL: test_report --keep"; exit 1; }
sqlite3 "$tmp/p/x.db" "DROP TRIGGER xp_append_only_runs_update; DROP TRIGGER xp_append_only_metrics_update;
  UPDATE runs SET gpu_name = '$pro' WHERE kind IN ('gemm', 'nccl_burst');
  UPDATE metrics SET median = 2 * median
  WHERE case_id IN (SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.kind IN ('gemm', 'nccl_burst'))"
"$XP" --db "$tmp/p/x.db" merge "$tmp/h/x.db" > /dev/null || { echo "FAIL: merge"; exit 1; }
two="$tmp/p/x.db"
check "the RTX PRO 6000's gemm run is the newer" "$pro" \
  "$(sqlite3 "$two" "SELECT gpu_name FROM runs WHERE kind = 'gemm' ORDER BY started_at DESC LIMIT 1")"

# The sample trace (2x H200) as H200's, RTX PRO 6000's and B200's: each recorded two hours
# after the last (another job), deviceProperties naming the GPU.
imp() { # imp DB HOURS GPU: the sample's two ranks, HOURS later, on GPU, as Kimi-K2.5 TP 2 batch 64
  sample_job "$2" 1 "$tmp/r" "$3"
  "$XP" --db "$1" import torch-trace "$tmp/r-r0.json.gz" "$tmp/r-r1.json.gz" --set model=Kimi-K2.5 --set tp=2 \
    --set batch=64 > /dev/null || { echo "FAIL: import $3"; fail=1; }
}
gap() { # gap DB: the query's rows as CSV without the header
  "$XP" --db "$1" query "$q" --param model=Kimi-K2.5 --param tp=2 --param batch=64 --param interconnect=any \
    --format csv | tail -n +2
}
field() { # field COMPONENT GPU COLUMN < CSV (2 predicted, 6 basis: no quoted commas before it)
  awk -F, -v c="$1" -v g="$2" -v k="$3" '$1 == c && $(NF - 2) == g { print $k }'
}
imp "$two" 0 "$h200"; imp "$two" 2 "$pro"; imp "$two" 4 "$b200"
gap "$two" > "$tmp/all"
check "rows: six for each GPU" 18 "$(wc -l < "$tmp/all")"
# the H200's alone: its own runs and its trace, nothing of another GPU in the database
imp "$tmp/h/x.db" 0 "$h200"
gap "$tmp/h/x.db" > "$tmp/alone"
uuid() { sqlite3 "$two" "SELECT substr(uuid, 1, 8) FROM runs WHERE kind = 'gemm' AND gpu_name = '$1'"; }

# H200: its own gemm run and series, not the RTX PRO 6000's newer ones at twice the time.
check "H200: gemm predicted from its own run" 2745 "$(field gemm "$h200" 2 < "$tmp/all" | cut -d. -f1)"
check "H200: as its runs alone predict" "$(field allreduce "$h200" 2 < "$tmp/alone")" \
  "$(field allreduce "$h200" 2 < "$tmp/all")"
check "H200: decode step as alone" "$(field 'decode step' "$h200" 2 < "$tmp/alone")" \
  "$(field 'decode step' "$h200" 2 < "$tmp/all")"
grep -q "^gemm,.*gemm run $(uuid "$h200") on $h200: .*,$h200,," "$tmp/all" ||
  { echo "FAIL: H200 gemm basis: $(grep ^gemm "$tmp/all")"; fail=1; }
grep -q "^allreduce,.*nccl_burst run [0-9a-f]* on $h200, graph .*,$h200,," "$tmp/all" ||
  { echo "FAIL: H200 allreduce basis: $(grep ^allreduce "$tmp/all")"; fail=1; }
grep -q "another GPU.*,$h200,," "$tmp/all" && { echo "FAIL: H200 said another GPU's"; fail=1; }

# RTX PRO 6000: its own, at twice the H200's times.
check "RTX PRO 6000: gemm predicted from its own run" 5490 "$(field gemm "$pro" 2 < "$tmp/all" | cut -d. -f1)"
awk -v a="$(field allreduce "$h200" 2 < "$tmp/all")" -v b="$(field allreduce "$pro" 2 < "$tmp/all")" \
  'BEGIN { d = b - 2 * a; exit !(a > 0 && d < 0.2 && d > -0.2) }' ||
  { echo "FAIL: RTX PRO 6000 all-reduce from its series: $(grep ^allreduce "$tmp/all")"; fail=1; }
grep -q "^gemm,.*gemm run $(uuid "$pro") on $pro: .*,$pro,," "$tmp/all" ||
  { echo "FAIL: RTX PRO 6000 gemm basis: $(grep ^gemm "$tmp/all")"; fail=1; }

# B200: no run of its own. Another GPU's GEMMs predict none of its step and the basis says
# whose they were; another GPU's all-reduce series predicts, and says so.
check "B200: no gemm prediction" "" "$(field gemm "$b200" 2 < "$tmp/all")"
check "B200: no step prediction" "" "$(field 'decode step' "$b200" 2 < "$tmp/all")"
grep -q "^gemm,.*gemm run [0-9a-f]* on NVIDIA [^,]*: .*; another GPU's: the traces ran on $b200, no prediction: .*,$b200,," \
  "$tmp/all" || { echo "FAIL: B200 gemm basis: $(grep ^gemm "$tmp/all")"; fail=1; }
awk -v a="$(field allreduce "$b200" 2 < "$tmp/all")" 'BEGIN { exit !(a > 0) }' ||
  { echo "FAIL: B200: no all-reduce prediction"; fail=1; }
grep -q "^allreduce,.*nccl_burst run [0-9a-f]* on NVIDIA .*; another GPU's: the traces ran on $b200 .*,$b200,," \
  "$tmp/all" || { echo "FAIL: B200 allreduce basis: $(grep ^allreduce "$tmp/all")"; fail=1; }
finish
