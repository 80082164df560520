#!/usr/bin/env bash
# A vLLM result pasted into one file twice (`cat r.json >> all.json` run again) is the same object,
# value for value, which two measurements never are: it imported as two cases alike and counted
# its requests twice. The repeat is left out, said in one warning; results of one file that
# differ (--append-result's separate runs) are each kept.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/vllm_bench"
# vLLM writes no newline after a result: the copies meet on one line, "}{"
cat "$data/serve_c8_detailed.json" "$data/serve_c8_detailed.json" > "$tmp/all.json"
"$XP" --db "$db" import vllm-bench "$tmp/all.json" > /dev/null 2> "$tmp/err"
check "pasted twice: imported" 0 $?
check "pasted twice: one warning" 1 "$(wc -l < "$tmp/err")"
grep -q "^xp: warning: .*all.json:1: result 2 is result 1 (line 1) again, value for value (pasted into the file twice?): counted once$" "$tmp/err" ||
  { echo "FAIL: warning [$(cat "$tmp/err")]"; fail=1; }
check "pasted twice: one case" "concurrency=8" "$(query "SELECT group_concat(name, ' ') FROM cases")"
check "pasted twice: 15 ttft samples, as the file once" 15 \
  "$(query "SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id WHERE s.metric = 'ttft_ms'")"
check "pasted twice: no result index, as the file once" 0 "$(query "SELECT count(*) FROM cases WHERE json_extract(params, '$.result') IS NOT NULL")"

# Two runs appended (--append-result), then the file pasted again, indented by another tool:
# the two runs kept, their repeats left out, said once.
python3 -c 'import json,sys; [print(json.dumps(json.loads(l), indent=2)) for l in open(sys.argv[1])]' \
  "$data/serve_append_c1_c2.json" > "$tmp/indented.json"
cat "$data/serve_append_c1_c2.json" - "$tmp/indented.json" <<< "" > "$tmp/sweep.json"
"$XP" --db "$db" import vllm-bench "$tmp/sweep.json" > /dev/null 2> "$tmp/err"
check "sweep pasted again: imported" 0 $?
check "sweep pasted again: one warning" 1 "$(wc -l < "$tmp/err")"
grep -q "sweep.json:3: result 3 is result 1 (line 1) again, value for value (pasted into the file twice?): counted once (and 1 more repeat)$" "$tmp/err" ||
  { echo "FAIL: warning [$(cat "$tmp/err")]"; fail=1; }
check "sweep pasted again: its two runs" "concurrency=1 concurrency=2" \
  "$(query "SELECT group_concat(c.name, ' ') FROM (SELECT c.name FROM cases c JOIN runs r ON r.id = c.run_id ORDER BY r.id DESC, c.seq LIMIT 2) c")"

# The runs as appended, nothing pasted: both kept, nothing said.
"$XP" --db "$tmp/b.db" import vllm-bench "$data/serve_append_c1_c2.json" > /dev/null 2> "$tmp/err"
check "appended runs: imported, nothing said" "0|" "$?|$(cat "$tmp/err")"
# SGLang's one-batch lines hold no date, but their values are measurements still: a line pasted
# twice is folded as vLLM's, and two runs of one batch appended to one file, 0.1 ms apart (the
# latency's rounding: each throughput, of the unrounded time, moves with it), stay two.
ob="$data/formats/sglang_one_batch_server_2024.jsonl"
cat "$ob" "$ob" > "$tmp/ob.jsonl"
"$XP" --db "$tmp/ob.db" import vllm-bench "$tmp/ob.jsonl" --set model=m > /dev/null 2> "$tmp/err"
check "one batch pasted twice: imported" 0 $?
grep -q "ob.jsonl:3: result 3 is result 1 (line 1) again, value for value (pasted into the file twice?): counted once (and 1 more repeat)$" "$tmp/err" ||
  { echo "FAIL: one batch warning [$(cat "$tmp/err")]"; fail=1; }
check "one batch pasted twice: its two batches" 2 "$(sqlite3 "$tmp/ob.db" "SELECT count(*) FROM cases")"
{ echo '{"run_name": "default", "batch_size": 1, "input_len": 1024, "output_len": 16, "latency": 0.4501, "output_throughput": 35.55, "overall_throughput": 2310.6}'
  head -1 "$ob"; } > "$tmp/ob2.jsonl"
"$XP" --db "$tmp/ob2.db" import vllm-bench "$tmp/ob2.jsonl" --set model=m > /dev/null 2> "$tmp/err"
check "one batch run twice: both kept" 2 "$(sqlite3 "$tmp/ob2.db" "SELECT count(*) FROM cases")"
finish
