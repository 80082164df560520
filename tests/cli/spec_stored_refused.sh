#!/usr/bin/env bash
# xp rerun of a run whose stored spec this xp refuses for any reason (a key an older xp accepted
# and this one does not know, a value out of this xp's range, a key this xp requires): the stored
# spec cannot be edited and rerun takes no --set, so its one line says how to record the run
# anew, as a refused dtype's does (spec_stored_dtype.sh). Only the dtype's said it. A refusal
# of the environment (exit 4: a device this machine lacks) is not the spec's: no such advice.
set -u
. "$XP_SRC/tests/lib.sh"
trace="$XP_SRC/tests/data/trace"
anew="; a stored spec cannot be edited: record the run anew (xp run SPEC, or xp import FORMAT FILES)$"
for i in 1 2 3; do
  "$XP" --db "$db" import torch-trace "$trace/decode_tp2_bs1_rank0.trace.json.gz" \
    "$trace/decode_tp2_bs1_rank1.trace.json.gz" --set model=Kimi-K2.5 --set tp=2 > /dev/null 2>&1
  check "xp import $i" 0 $?
done
# as an older xp might have stored them
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_update;
  UPDATE runs SET spec_json = json_set(spec_json, '$.step_marker', 'ProfilerStep') WHERE id = 1;
  UPDATE runs SET spec_json = json_set(spec_json, '$.tp', 0) WHERE id = 2;
  UPDATE runs SET spec_json = json_remove(spec_json, '$.files') WHERE id = 3"
run=$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 1")
one_line "rerun of a stored key this xp does not know" 2 \
  "run $run (stored spec):1: step_marker: unknown key$anew" "$XP" --db "$db" rerun "$run"
one_line "its dry run" 2 "run $run (stored spec):1: step_marker: unknown key$anew" \
  "$XP" --db "$db" rerun --dry-run "$run"
run=$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")
one_line "rerun of a stored value out of range" 2 "run $run (stored spec):1: tp: 0 is out of range .*$anew" \
  "$XP" --db "$db" rerun "$run"
run=$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 3")
one_line "rerun of a stored spec without a required key" 2 \
  "run $run (stored spec):1: files: required key is missing$anew" "$XP" --db "$db" rerun "$run"
check "nothing recorded" 3 "$(sql "SELECT count(*) FROM runs")"
# a spec given on the command line is edited, not recorded anew: no such advice
printf 'kind = "torch_trace"\nfiles = ["%s"]\nstep_marker = "x"\n' "$trace/decode_tp2_bs1_rank0.trace.json.gz" > "$tmp/t.toml"
"$XP" --db "$db" run "$tmp/t.toml" > /dev/null 2> "$tmp/err"
check "xp run of an unknown key: exit" 2 $?
check "xp run of an unknown key: no advice" 0 "$(grep -c 'record the run anew' "$tmp/err")"
finish
