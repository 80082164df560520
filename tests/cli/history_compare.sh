#!/usr/bin/env bash
# xp compare (issue 7): per-metric change with Mann-Whitney p, no verdict from too few samples,
# every unfair metadata difference, groups selected by metadata, and the bad inputs: runs of
# different kinds, unknown and ambiguous run ids. Runs come from the probe kind in
# tests/unit/history_probe.h (test_history_chain record), so no GPU is needed.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3

run compare --help; expect_rc 0; has "usage: xp compare"

a=$(record cases=2 gpu=H100 driver=550)
a2=$(record cases=2 gpu=H100 driver=550)
b=$(NCCL_ALGO=Ring record cases=2 gpu=H100 driver=560 scale=1.2)
few=$(record cases=2 gpu=H100 driver=550 samples=3)

# 20% slower with 10 samples a side: beyond noise, and worse (a time)
run compare "$a" "$b"; expect_rc 0
grep -E '^op +\{"i":0\} +time +us +100\.1 +120\.12 +\+20\.0% +0\.000[0-9]+ +10/10 +worse$' "$tmp/out" >/dev/null ||
  die "time of case 0 should be 20% worse with p < 0.001: $(cat "$tmp/out")"
grep -E '^op +\{"i":1\} +busbw +GB/s .* 1/1 +too few samples$' "$tmp/out" >/dev/null ||
  die "a single derived value gets no verdict: $(cat "$tmp/out")"
has "unfair: 3 differences between A and B"
has "gpu.driver: A 550; B 560"
has "env.NCCL_ALGO: A (unset); B Ring"
has "spec_sha256: A "

# the same configuration twice: no change beyond noise, nothing unfair
run compare "${a:0:8}" "${a2:0:8}"; expect_rc 0
grep -E '^op +\{"i":0\} +time +us .* 10/10 +same \(noise\)$' "$tmp/out" >/dev/null || die "identical runs: $(cat "$tmp/out")"
has "same GPU, driver, libraries, environment, spec and configuration on both sides"

# 3 samples on one side: no verdict, said so
run compare "$a" "$few"; expect_rc 0
grep -E '^op +\{"i":0\} +time +us .* 10/3 +too few samples$' "$tmp/out" >/dev/null || die "too few: $(cat "$tmp/out")"

# groups by metadata: A pools three runs (10 + 10 + 3 samples), B one; JSON for programs
run compare --a gpu.driver=550 --b gpu.driver=560,gpu_name=H100 --format json; expect_rc 0
grep -Eq '"n_a":[[:space:]]*23' "$tmp/out" || die "group A should pool 23 samples: $(cat "$tmp/out")"
grep -Eq '"n_b":[[:space:]]*10' "$tmp/out" || die "group B should have 10 samples"
has '"verdict":	"worse"'
has "\"$a2\""
# a run against a group
run compare "$b" --b driver=nothing-matches; expect_rc 2; has "no ok runs match" "$tmp/err"
run compare "$b" --b gpu.driver=550; expect_rc 0; has "B: hist_probe group gpu.driver=550: 3 runs"

# uuid=, as every command names a run: its UUID or a prefix, in any case (the 8 digits xp runs
# prints matched nothing, unsaid: "no ok runs match"); an empty value selects none, not all: it is
# refused, as any blank --where value is since ee9f90a (an unset shell variable, not a selection)
up=$(printf '%s' "${b:0:8}" | tr a-f A-F)
run compare --a "uuid=${a:0:8}" --b "uuid=$up"; expect_rc 0; has "A: hist_probe run $a"; has "B: hist_probe run $b"
run runs --where "uuid=${a:0:8}" --format csv; expect_rc 0
[ "$(tail -n +2 "$tmp/out" | cut -d, -f1)" = "${a:0:8}" ] || die "runs --where uuid=PREFIX: $(cat "$tmp/out")"
run runs --where uuid= --format csv; expect_rc 2; [ ! -s "$tmp/out" ] || die "uuid= selects none: $(cat "$tmp/out")"
has "runs: --where uuid=: a blank value" "$tmp/err"

# a case one side alone has: its rows "only in", and why it has no partner
more=$(record cases=3 gpu=H100 driver=550)
run compare "$a" "$more"; expect_rc 0
grep -E '^op +\{"i":2\} +time +us +- .* 0/10 +only in B$' "$tmp/out" >/dev/null || die "case 2 only in B: $(cat "$tmp/out")"
has "  op only in B: none of A's 2 cases op has its settings, {\"i\":2}"

# bad input: another kind, unknown, ambiguous, missing side
sqlite3 "$db" "INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256) VALUES
  ('abcd0000-0000-4000-8000-000000000001', 'other_kind', 'ok', '2026-01-01T00:00:00Z', '{}', 'x'),
  ('abcd0000-0000-4000-8000-000000000002', 'other_kind', 'ok', '2026-01-01T00:00:00Z', '{}', 'x')"
run compare "$a" abcd0000-0000-4000-8000-000000000001; expect_rc 2
has "runs of different kinds cannot be compared: A is hist_probe, B is other_kind" "$tmp/err"
[ ! -s "$tmp/out" ] || die "nothing is printed on a refused comparison"
run compare "$a" abcd; expect_rc 2; has "ambiguous run id prefix" "$tmp/err"
run compare "$a" ffffffff; expect_rc 2; has "ffffffff: no such run" "$tmp/err"
run compare "$a"; expect_rc 2; has "two sides are needed" "$tmp/err"
run compare --a kind=hist_probe --b kind=other_kind; expect_rc 2; has "different kinds" "$tmp/err"
# a job counts once: the same traces imported again (trace_superseded) are not pooled twice
db="$tmp/traces.db"
tr="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
zcat "$tr" | sed 's/"baseTimeNanoseconds": 1790857026000000000/"baseTimeNanoseconds": 1790860626000000000/' | gzip > "$tmp/other_job.json.gz"
for i in 1 2; do run import torch-trace "$tr" --set model=m --set tp=2 --set batch=1; expect_rc 0; done
run import torch-trace "$tmp/other_job.json.gz" --set model=m --set tp=2 --set batch=2; expect_rc 0
newest=$(sqlite3 "$db" "SELECT uuid FROM runs WHERE batch = 1 ORDER BY id DESC LIMIT 1")
run compare --a batch=1 --b batch=2; expect_rc 0
has "A: torch_trace run $newest"
hasnt "share" "$tmp/err"
# a run on both sides is compared with itself: said, where the change read smaller in silence
other=$(sqlite3 "$db" "SELECT substr(uuid, 1, 8) FROM runs WHERE batch = 2")
run compare --a model=m --b batch=2; expect_rc 0
has "xp: warning: A and B share 1 run ($other): each counts on both sides" "$tmp/err"
# a group whose only match is superseded: a sweep's text log declared over NVLink, its -J file
# (the same measurement, which counts) imported apart without it. 'no ok runs match' said the
# run xp runs lists was not there
nt="$XP_SRC/tests/data/nccl/nccltests_sweep"
run import nccl-tests "$nt.txt" --set interconnect=nvlink; expect_rc 0
text=$(sqlite3 "$db" "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
run import nccl-tests "$nt.json"; expect_rc 0
json=$(sqlite3 "$db" "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
run compare --a kind=nccl_burst,interconnect=nvlink --b kind=nccl_burst; expect_rc 2
has "no ok runs match but 1 superseded (run $text is another import of the same job or measurement as run $json" "$tmp/err"
[ "$(wc -l < "$tmp/err")" = 1 ] || die "superseded group: one line expected: $(cat "$tmp/err")"
# the same result files imported again (a script run twice, a corrected --set) count once, the
# latest import (XP_SQL_REIMPORTED, as xp report and xp audit): a group pooled both, every
# sample twice ('2 runs', n 30/15), and noise read as a change
vb="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"
run import vllm-bench "$vb" --set gpu=L40S; expect_rc 0
first=$(sqlite3 "$db" "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
for g in L40S A10; do run import vllm-bench "$vb" --set gpu=$g; expect_rc 0; done
latest=$(sqlite3 "$db" "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
run compare --a kind=serve_bench "$latest"; expect_rc 0
has "A: serve_bench run $latest"
has "xp: warning: A and B share 1 run ($latest)" "$tmp/err"
# a corrected --set: the first two imports' gpu=L40S is superseded by the third's
run compare --a kind=serve_bench,gpu=L40S "$latest"; expect_rc 2
has "no ok runs match but 2 superseded (run $first is another import of the same job or measurement as run $latest" "$tmp/err"
# a run named alone is compared whatever its status, and says so when it is not ok: a failed
# import's side read 'only in B' for every metric, as if it had measured nothing new
printf 'no nccl-tests report here\n' > "$tmp/notalog.txt"
run import nccl-tests "$tmp/notalog.txt"; expect_rc 2
failed=$(sqlite3 "$db" "SELECT substr(uuid, 1, 8) FROM runs WHERE status = 'failed' ORDER BY id DESC LIMIT 1")
[ -n "$failed" ] || die "a failed import is recorded failed"
run compare "$failed" "$json"; expect_rc 0
has "xp: warning: A: run $failed is failed, not ok (" "$tmp/err"
has "): its results are partial or none" "$tmp/err"
run compare "$json" "$text"; expect_rc 0
hasnt "not ok" "$tmp/err"
# ... a run whose recorder died (left 'running' on this host, its process gone) as xp runs names
# it, incomplete: it read "is running, not ok", as if still going
dead=dead0000
sqlite3 "$db" "INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256, pid, host)
  VALUES ('$dead-0000-4000-8000-000000000001', 'nccl_burst', 'running', '2026-01-01T00:00:00Z', '{}', 'x', 0,
          '$(hostname)')"
run compare "$dead" "$json"; expect_rc 0
has "xp: warning: A: run $dead is incomplete, not ok: its results are partial or none" "$tmp/err"
# a metadata value with its own comma, as NCCL_ALGO=Ring,Tree and CUDA_VISIBLE_DEVICES=0,1 are
# given: a group of it, alone and beside another condition, as xp runs --where takes it
db="$tmp/comma.db"
ring=$(NCCL_ALGO=Ring record cases=2 gpu=H100 driver=550)
both=$(NCCL_ALGO=Ring,Tree record cases=2 gpu=H100 driver=550)
run compare --a env.NCCL_ALGO=Ring --b env.NCCL_ALGO=Ring,Tree; expect_rc 0
has "A: hist_probe run $ring"; has "B: hist_probe run $both"
run compare --a env.NCCL_ALGO=Ring,Tree,gpu_name=H100 "${ring:0:8}"; expect_rc 0
has "A: hist_probe run $both"
# an unpaired case names what tells it apart: cases of one name that the other side lacks each
# said "B has no case op", one line per case and all alike; a side of no cases at all (a failed
# run's) is said once, where each of the other's cases said it had no case of its name
db="$tmp/unpaired.db"
ops=$(record cases=2)
summary=$(record cases=0 share=5)
none=$(record cases=0)
run compare "$ops" "$summary"; expect_rc 0
has '  op only in A: B has no case op (this one of A'"'"'s 2: {"i":0})'
has '  op only in A: B has no case op (this one of A'"'"'s 2: {"i":1})'
has '  summary only in B: A has no case summary'
run compare "$ops" "$none" --format json; expect_rc 0
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert [c["unpaired"] for c in d["cases"]] == ["B has no cases at all"] * 2, d["cases"]' "$tmp/out" ||
  die "json: each unpaired case says B has no cases"
run compare "$none" "$ops"; expect_rc 0
has 'unpaired cases: A has no cases at all, so all 2 of B'"'"'s cases are unpaired'
hasnt 'only in B:'
run compare "$summary" "$none"; expect_rc 0
has 'unpaired cases: B has no cases at all, so A'"'"'s one case is unpaired'
echo "ok: compare"
