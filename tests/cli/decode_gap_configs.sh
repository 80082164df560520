#!/usr/bin/env bash
# queries/decode_gap_analysis.sql keeps configurations apart as the view run_configuration has
# them (queries/bottleneck_by_config.sql, xp report): traces of one model, TP and batch declared
# with another engine or dtype are not averaged into one decode step. Each configuration's rows
# are the figures of its traces alone, and two jobs of one configuration still average. A gemm
# run of another dtype than a configuration's traces predicts none of its step.
set -u
. "$XP_SRC/tests/lib.sh"
q="$XP_SRC/queries/decode_gap_analysis.sql"
job() { sample_job "$1" "$2" "$tmp/$3"; } # job HOURS SCALE NAME: as NAME-r0/NAME-r1
imp() { # imp DB NAME SET...: import NAME's ranks into DB, declared model M, TP 2, batch 1 and SET
  local d=$1 n=$2
  shift 2
  "$XP" --db "$d" import torch-trace "$tmp/$n-r0.json.gz" "$tmp/$n-r1.json.gz" --set model=M --set tp=2 \
    --set batch=1 --set interconnect=nvlink "$@" > /dev/null || { echo "FAIL: import $n $*"; fail=1; }
}
gap() { # gap DB [INTERCONNECT]: the query's rows as CSV without the header
  "$XP" --db "$1" query "$q" --param model=M --param tp=2 --param batch=1 --param interconnect="${2:-any}" \
    --format csv | tail -n +2
}
measured() { # measured CONFIG < CSV: "component=measured_us" of that configuration's rows
  awk -F, -v c="$1" '$NF == c { printf "%s=%s ", $1, $3 }'
}
job 0 1 a; job 2 3 b; job 4 3 c; job 6 1 d

vllm="engine=vllm dtype=bf16" sglang="engine=sglang dtype=bf16" fp8="engine=vllm dtype=fp8"
# Each configuration alone, in a database of its own: what its rows must show beside the others.
imp "$tmp/vllm.db" a --set engine=vllm --set dtype=bf16
imp "$tmp/vllm.db" d --set engine=vllm --set dtype=bf16
imp "$tmp/sglang.db" b --set engine=sglang --set dtype=bf16
imp "$tmp/fp8.db" c --set engine=vllm --set dtype=fp8
imp "$db" a --set engine=vllm --set dtype=bf16
imp "$db" b --set engine=sglang --set dtype=bf16
imp "$db" c --set engine=vllm --set dtype=fp8
imp "$db" d --set engine=vllm --set dtype=bf16
gap "$db" > "$tmp/all"
check "rows: six a configuration" 18 "$(wc -l < "$tmp/all")"
check "configurations, in order" "$(printf '%s\n' "$sglang" "$vllm" "$fp8")" "$(awk -F, '{ print $NF }' "$tmp/all" | uniq)"
for c in vllm sglang fp8; do
  alone=$(gap "$tmp/$c.db" | measured "${!c}")
  [[ "$alone" == *"decode step="[0-9]* ]] || { echo "FAIL: $c alone: no measured step [$alone]"; fail=1; }
  check "$c: its traces alone" "$alone" "$(measured "${!c}" < "$tmp/all")"
  check "$c: interconnect" nvlink "$(awk -F, -v c="${!c}" '$NF == c { print $(NF - 1) }' "$tmp/all" | sort -u)"
done
grep -q '^decode step,.*"2 trace run(s), 32 steps x ranks".*,engine=vllm dtype=bf16$' "$tmp/all" ||
  { echo "FAIL: the two vllm bf16 jobs average: $(grep '^decode step' "$tmp/all")"; fail=1; }
# three times the kernel time: the slower configurations are not pulled towards the faster
awk -F, -v v="$vllm" -v s="$sglang" '$1 == "gemm" && $NF == v { a = $3 } $1 == "gemm" && $NF == s { b = $3 }
  END { exit !(a > 0 && b > 2.5 * a) }' "$tmp/all" || { echo "FAIL: sglang's gemm time is its own: $(grep ^gemm "$tmp/all")"; fail=1; }
# :interconnect still selects: none on pcie, one set of rows saying so
gap "$db" pcie > "$tmp/pcie"
check "interconnect pcie: rows" 6 "$(wc -l < "$tmp/pcie")"
grep -q '^decode step,.*no trace with marked steps for this configuration' "$tmp/pcie" ||
  { echo "FAIL: pcie: $(grep '^decode step' "$tmp/pcie")"; fail=1; }
# The gemm run predicts a configuration's GEMMs only in its dtype: an fp8 engine's step is not
# predicted from bf16 GEMMs (test_report --keep: a Kimi-K2.5 gemm run at TP 2, batch 64).
if [ -x "${XP_BUILD:-}/tests/test_report" ] && command -v sqlite3 > /dev/null; then
  mkdir -p "$tmp/k"
  "$XP_BUILD/tests/test_report" --keep "$tmp/k" > /dev/null || { echo "FAIL: test_report --keep"; fail=1; }
  k="$tmp/k/x.db"
  sqlite3 "$k" "DROP TRIGGER xp_append_only_runs_update; UPDATE runs SET dtype = 'bf16' WHERE kind = 'gemm'"
  for j in a:bf16 c:fp8; do
    "$XP" --db "$k" import torch-trace "$tmp/${j%:*}-r0.json.gz" "$tmp/${j%:*}-r1.json.gz" --set model=Kimi-K2.5 \
      --set tp=2 --set batch=64 --set dtype="${j#*:}" > /dev/null || { echo "FAIL: import $j"; fail=1; }
  done
  "$XP" --db "$k" query "$q" --param model=Kimi-K2.5 --param tp=2 --param batch=64 --param interconnect=any \
    --format csv | tail -n +2 > "$tmp/kg"
  pred() { awk -F, -v c="$1" -v d="$2" '$1 == c && $NF == d { print $2 }' "$tmp/kg"; }
  check "bf16: gemm predicted" 2745 "$(pred gemm dtype=bf16 | cut -d. -f1)"
  check "fp8: no gemm prediction" "" "$(pred gemm dtype=fp8)"
  check "fp8: no step prediction" "" "$(pred 'decode step' dtype=fp8)"
  grep -q '^gemm,.*measured in bf16, the traces ran fp8, no prediction.*,dtype=fp8$' "$tmp/kg" ||
    { echo "FAIL: fp8 gemm basis: $(grep '^gemm' "$tmp/kg")"; fail=1; }
  grep -q '^gemm,.*measured in .*,dtype=bf16$' "$tmp/kg" && { echo "FAIL: bf16 gemm basis: $(grep '^gemm' "$tmp/kg")"; fail=1; }
  # An fp8 gemm run beside it, older: the fp8 configuration is predicted from that one, the
  # bf16 from the bf16 run (a second test_report --keep merged in, its gemm run made fp8 here)
  mkdir -p "$tmp/k8"
  "$XP_BUILD/tests/test_report" --keep "$tmp/k8" > /dev/null || { echo "FAIL: test_report --keep"; fail=1; }
  "$XP" --db "$k" merge "$tmp/k8/x.db" > /dev/null || { echo "FAIL: merge"; fail=1; }
  sqlite3 "$k" "UPDATE runs SET dtype = 'fp8', started_at = '2000-01-01T00:00:00.000Z' WHERE kind = 'gemm' AND dtype IS NULL"
  "$XP" --db "$k" query "$q" --param model=Kimi-K2.5 --param tp=2 --param batch=64 --param interconnect=any \
    --format csv | tail -n +2 > "$tmp/kg"
  run8=$(sqlite3 "$k" "SELECT substr(uuid, 1, 8) FROM runs WHERE kind = 'gemm' AND dtype = 'fp8'")
  check "fp8 run: fp8 gemm predicted" 2745 "$(pred gemm dtype=fp8 | cut -d. -f1)"
  check "fp8 run: bf16 gemm predicted" 2745 "$(pred gemm dtype=bf16 | cut -d. -f1)"
  grep -q "^gemm,.*gemm run $run8 .*,dtype=fp8\$" "$tmp/kg" || { echo "FAIL: fp8 from the fp8 run: $(grep '^gemm' "$tmp/kg")"; fail=1; }
  grep -q "^gemm,.*gemm run $run8 .*,dtype=bf16\$" "$tmp/kg" && { echo "FAIL: bf16 from the fp8 run: $(grep '^gemm' "$tmp/kg")"; fail=1; }
else
  echo "note: no test_report or sqlite3 CLI; the gemm side is not exercised"
fi
finish
