#!/usr/bin/env bash
# One definition of a configuration (schema view run_configuration) in xp audit and the
# queries that had their own: audit compares a decision's evidence with newer runs of its
# configuration as the view has it (engine, dtype, quantization, ep, pp told apart; a trace
# imported with nothing declared a configuration of its own; each job once), regressions.sql
# keys its series on the view, and decode_gap_analysis.sql counts the trace runs the figures
# count (view trace_step_totals: none without GPU time in its steps).
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
job() { sample_job "$1" "$2" "$tmp/$3"; } # job HOURS SCALE NAME: as NAME-r0/NAME-r1
tr="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank"
uuid() { sed -n 's/^run \([0-9a-f-]*\) ok$/\1/p' "$tmp/out"; }
imp() { run import torch-trace "$@"; expect_rc 0; uuid; }
decide() { # decide EVIDENCE: a decision resting on that run; prints its uuid
  run decide "on ${1:0:8}" --because "its step" --evidence "${1:0:8}"; expect_rc 0
  sed -n 's/^decision \([0-9a-f-]*\) recorded.*/\1/p' "$tmp/out"
}
job 0 1 a; job 2 3 b; job 4 1 c; job 6 3 d; job 8 3 e; job 10 3 f

# Two jobs imported with nothing declared, the second's kernels three times as long, on the same GPU: unrelated
# workloads. The second is not newer evidence about the first.
a=$(imp "$tmp/a-r0.json.gz" "$tmp/a-r1.json.gz")
imp "$tmp/b-r0.json.gz" "$tmp/b-r1.json.gz" > /dev/null
da=$(decide "$a")
run audit "$da"; expect_rc 0
has "    no newer ok runs of the same configuration: imported with nothing declared, this trace is a configuration of its own (undeclared: a-r0.json.gz · 2 ranks · "
hasnt "CONTRADICTED"

# Declared: another engine, another dtype are other configurations; the same one, slower,
# contradicts, and a job imported twice (rank 0 alone, then both ranks) counts once.
decl="--set model=M --set tp=2 --set batch=1 --set interconnect=nvlink"
c=$(imp "$tmp/c-r0.json.gz" "$tmp/c-r1.json.gz" $decl --set engine=vllm --set dtype=bf16)
imp "$tmp/d-r0.json.gz" "$tmp/d-r1.json.gz" $decl --set engine=sglang --set dtype=bf16 > /dev/null
imp "$tmp/e-r0.json.gz" "$tmp/e-r1.json.gz" $decl --set engine=vllm --set dtype=fp8 > /dev/null
dc=$(decide "$c")
run audit "$dc"; expect_rc 0
has "  run ${c:0:8}  torch_trace  ok"
has "    no newer ok runs of the same configuration"
hasnt "imported with nothing declared"
imp "$tmp/f-r0.json.gz" $decl --set engine=vllm --set dtype=bf16 > /dev/null
imp "$tmp/f-r0.json.gz" "$tmp/f-r1.json.gz" $decl --set engine=vllm --set dtype=bf16 > /dev/null
run audit "$dc"; expect_rc 1
grep -qE "CONTRADICTED: run ${c:0:8} step GPU time: median [0-9.e+]+ us then; [0-9.e+]+ us in 1 newer run \(" "$tmp/out" ||
  die "the slower job of the same configuration, once, contradicts: $(cat "$tmp/out")"

# Other kinds too: a probe run declared engine=x is not contradicted by a slower engine=y;
# a slower engine=x is.
p=$(record model=m tp=2 engine=x)
dp=$(decide "$p")
record model=m tp=2 engine=y scale=1.3 > /dev/null
run audit "$dp"; expect_rc 0; has "    no newer ok runs of the same configuration"
record model=m tp=2 engine=x scale=1.3 > /dev/null
run audit "$dp"; expect_rc 1; has "time: median 100.1 us then; 130.1 us in 1 newer run"

# regressions.sql: the same series (probe runs with nothing declared: their cases name what
# ran, so they are one series; an undeclared label is a trace's alone), engines apart
db="$tmp/reg.db"
for s in 1.0 1.02 0.98; do record scale=$s > /dev/null; record engine=x scale=$s > /dev/null; done
record engine=y scale=2 > /dev/null                 # alone: no older run of its configuration
n=$(record scale=1.25)
run query "$XP_SRC/queries/regressions.sql" --format csv; expect_rc 0
[ "$(grep -c ",${n:0:8}," "$tmp/out")" = 4 ] && [ "$(wc -l < "$tmp/out")" = 5 ] ||
  die "regressions: the newest undeclared probe run against its 3 older ones, nothing else: $(cat "$tmp/out")"
# each row names its configuration (config, as bottleneck_by_config.sql's), where engine x's
# regression and the undeclared one's printed the same kind, model, GPU, case and metric
x=$(record engine=x scale=1.25)
run query "$XP_SRC/queries/regressions.sql" --format csv; expect_rc 0
head -1 "$tmp/out" | grep -q ',batch,config,case_name,' || die "regressions: no config column: $(head -1 "$tmp/out")"
[ "$(grep ",${x:0:8}," "$tmp/out" | grep -c ',engine=x,')" = 4 ] &&
  [ "$(grep ",${n:0:8}," "$tmp/out" | grep -c ',,,,,,,')" = 4 ] ||
  die "regressions: engine x's rows and the undeclared run's apart by config: $(cat "$tmp/out")"

# decode_gap_analysis.sql: a trace with marked steps but no GPU time in them is not a run of
# the measured figures (view trace_step_totals), as in xp report
db="$tmp/gap.db"
python3 - "${tr}0.trace.json.gz" "$tmp/idle.json.gz" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
first = min(e["ts"] for e in t["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#"))
gpu = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "ac2g")
k = dict(next(e for e in t["traceEvents"] if e.get("cat") == "kernel"))
k.update(ts=first - 50000, dur=10, args={"device": 0, "stream": 7, "correlation": 987654321})
t["traceEvents"] = [e for e in t["traceEvents"] if e.get("cat") not in gpu] + [k]  # one kernel, before the steps
json.dump(t, gzip.open(sys.argv[2], "wt"))
PY
imp "${tr}0.trace.json.gz" "${tr}1.trace.json.gz" $decl > /dev/null
imp "$tmp/idle.json.gz" $decl > /dev/null
[ "$(query "SELECT count(*), sum(kernel_ns) FROM trace_steps JOIN runs r ON r.id = run_id WHERE r.uuid = '$(uuid)'")" = "8,0" ] ||
  die "the idle trace: 8 steps without GPU time"
run query "$XP_SRC/queries/decode_gap_analysis.sql" --param model=M --param tp=2 --param batch=1 --param interconnect=any --format csv
expect_rc 0
has '"1 trace run(s), 16 steps x ranks"'
echo "ok: one configuration in audit and the queries"
