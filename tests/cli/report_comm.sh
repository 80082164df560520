#!/usr/bin/env bash
# xp report draws each traced job's communication as queries/comm_overlap.sql reads it (schema
# table trace_step_comm): the part of its busy step time that communication kernels ran with
# nothing else beside them (exposed), the part compute overlapped (hidden), and the rest. A job
# imported twice is one bar.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
r0="$data/decode_tp2_bs1_rank0.trace.json.gz" r1="$data/decode_tp2_bs1_rank1.trace.json.gz"
section() { awk -v id="id=\"$1\"" '/<section class="chart-section"/ { s = 0 } index($0, id) { s = 1 } s' "$tmp/r.html" > "$tmp/$1"; }

run import torch-trace "$r0" "$r1" --set model=M --set tp=2 --set batch=1; expect_rc 0
run import torch-trace "$r0" "$r1" --set model=M --set tp=2 --set batch=1; expect_rc 0
run report --out "$tmp/r.html"; expect_rc 0
section comm
has 'data-has-data="1"' "$tmp/comm"
check "a job imported twice: one bar" 1 "$(grep -c 'class="row-label"' "$tmp/comm")"
# the figures are the query's
"$XP" --db "$db" query "$XP_SRC/queries/comm_overlap.sql" --format csv | tail -n +2 > "$tmp/q"
check "the query has the job once" 1 "$(wc -l < "$tmp/q")"
IFS=, read -r run _ _ _ _ _ _ _ _ busy comm exposed comm_pct exposed_pct hidden < "$tmp/q"
has "run $run, $(printf '%.2f' "$busy") ms busy: communication $comm_pct% of it, $exposed_pct% exposed" "$tmp/comm"
has "<title>M · tp=2 · batch=1 · NVIDIA H200: communication, exposed $exposed_pct%</title>" "$tmp/comm"
[ "$comm" != "0.0" ] && [ "$comm" != "0" ] || die "the sample's steps have no communication: the test tests nothing"

# The chart is the query's rows (the report runs queries/comm_overlap.sql as built into xp): a job
# whose traces mark no steps, its whole window one step, is in both, where the report's own SQL
# left it out of the chart while the query listed it.
python3 - "$data/variants/multinode_r0.json.gz" "$data/variants/multinode_r1.json.gz" "$tmp/ww" <<'PY'
import gzip, json, sys
for i, f in enumerate(sys.argv[1:3]):
    t = json.load(gzip.open(f))
    t["traceEvents"] = [e for e in t["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep")]
    json.dump(t, gzip.open(f"{sys.argv[3]}_r{i}.json.gz", "wt"))
PY
db="$tmp/whole.db"
run import torch-trace "$tmp/ww_r0.json.gz" "$tmp/ww_r1.json.gz" --set model=W --set tp=2 --set batch=1; expect_rc 0
check "no step marks" "(whole window)" "$(sql "SELECT step_annotation FROM trace_imports")"
run report --out "$tmp/r.html"; expect_rc 0
section comm
"$XP" --db "$db" query "$XP_SRC/queries/comm_overlap.sql" --format csv | tail -n +2 > "$tmp/q"
IFS=, read -r run _ _ _ _ _ _ _ _ busy comm exposed comm_pct exposed_pct hidden < "$tmp/q"
has 'data-has-data="1"' "$tmp/comm"
has "run $run, $(printf '%.2f' "$busy") ms busy: communication $(printf '%.1f' "$comm_pct")% of it, $(printf '%.1f' "$exposed_pct")% exposed" "$tmp/comm"
finish
