#!/usr/bin/env bash
# xp import vllm-bench: serving benchmark results become serve_bench runs, one case per result
# object, with vLLM's statistics and the per-request timings; bad files leave nothing behind.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/vllm_bench"

# A concurrency sweep (three files, one of them with two appended results) is one run.
"$XP" --db "$db" import vllm-bench "$data/serve_c8_detailed.json" "$data/serve_c16_goodput.json" \
  "$data/serve_append_c1_c2.json" > "$tmp/out" 2> "$tmp/err"
check "import exit status" 0 $?
grep -q '^concurrency=8 .* 15/16 ' "$tmp/out" || { echo "FAIL: summary lacks the c8 row"; cat "$tmp/out"; fail=1; }
"$XP" --db "$db" import vllm-bench "$data/legacy_rate4.json" > /dev/null 2>&1
check "legacy import exit status" 0 $?

check "runs of kind serve_bench" 2 "$(query "SELECT count(*) FROM runs WHERE kind = 'serve_bench' AND status = 'ok' AND origin = 'imported'")"
check "cases of the sweep" "concurrency=8 concurrency=16 concurrency=1 concurrency=2" \
  "$(query "SELECT group_concat(c.name, ' ') FROM (SELECT c.name FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.model = 'Qwen/Qwen3-0.6B' ORDER BY c.seq) c")"
check "model from the files, as trace metadata" "Qwen/Qwen3-0.6B|trace" \
  "$(query "SELECT m.value || '|' || m.source FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE m.key = 'model' AND r.model = 'Qwen/Qwen3-0.6B'")"
check "no single concurrency for a sweep" "" "$(query "SELECT concurrency FROM runs WHERE model = 'Qwen/Qwen3-0.6B'")"
check "the legacy file's case" "rate=4" "$(query "SELECT c.name FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.model LIKE 'meta-llama/%'")"
check "legacy goodput key (null) not recorded" 0 "$(query "SELECT count(*) FROM run_metrics WHERE model LIKE 'meta-llama/%' AND metric LIKE 'request_goodput%'")"
check "goodput of the --goodput file" "req/s" "$(query "SELECT unit FROM run_metrics WHERE case_name = 'concurrency=16' AND metric = 'request_goodput'")"

# The raw per-request samples summarise to the statistics vLLM wrote in the same file.
check "ttft samples agree with vLLM's median" "1" "$(query "
  SELECT abs(raw.median - rep.median) < 1e-9 * rep.median
  FROM run_metrics raw JOIN run_metrics rep ON rep.case_id = raw.case_id
  WHERE raw.case_name = 'concurrency=8' AND raw.metric = 'ttft_ms' AND rep.metric = 'median_ttft_ms'")"
check "no per-request tpot for the legacy file (no latencies in it)" 0 "$(query "
  SELECT count(*) FROM run_metrics WHERE case_name = 'rate=4' AND metric = 'tpot_ms'")"
check "raw ttft samples kept (15 successful requests)" 15 \
  "$(query "SELECT count(*) FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.name = 'concurrency=8' AND s.metric = 'ttft_ms'")"
check "result files kept as artifacts" 3 "$(query "SELECT count(*) FROM artifacts a JOIN runs r ON r.id = a.run_id WHERE r.model = 'Qwen/Qwen3-0.6B'")"

# One file at one concurrency: the run carries that concurrency.
"$XP" --db "$db" import vllm-bench "$data/serve_c8_detailed.json" --set tp=2 > /dev/null 2>&1
check "single-concurrency run" "8|2" "$(query "SELECT concurrency || '|' || tp FROM runs ORDER BY id DESC LIMIT 1")"

# --metadata names the parallel sizes as it names TP (pp=1 tp=1, seen in use; vLLM's CI passes
# tensor_parallel_size=N): each a string. PP is the run's pp and in its configuration, DP the
# run's metadata "dp"; a size that is no whole number names none
python3 - "$data/serve_c16_goodput.json" "$tmp/par.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
json.dump({**r, "pp": "2", "data_parallel_size": "4", "ep": "auto"}, open(sys.argv[2], "w"), indent=4)
PY
"$XP" --db "$tmp/par.db" import vllm-bench "$tmp/par.json" > /dev/null 2>&1
check "--metadata pp=2 data_parallel_size=4 ep=auto: tp, pp, ep and configuration" "2|2||pp=2 dp=4" \
  "$(db="$tmp/par.db" sql "SELECT r.tp || '|' || r.pp || '|' || coalesce(r.ep, '') || '|' || g.config FROM runs r JOIN run_configuration g ON g.run_id = r.id")"
check "--metadata pp=2 data_parallel_size=4: the sizes as run metadata" "dp=4 pp=2 tp=2" \
  "$(db="$tmp/par.db" query "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM run_meta WHERE key IN ('tp', 'pp', 'dp', 'ep') ORDER BY key)")"
# --metadata KEY=VALUE is vllm bench serve's option (README quotes it): given to xp import it is
# refused saying so and naming xp's --set, where it said only "unknown option"; nothing recorded
before=$(query "SELECT count(*) FROM runs")
one_line "xp import vllm-bench --metadata tp=2" 2 "--metadata: .* vllm bench serve's, .* --set KEY=VALUE" \
  "$XP" --db "$db" import vllm-bench "$data/serve_c8_detailed.json" --metadata tp=2
one_line "xp import vllm-bench --metadata=tp=2" 2 "--metadata=tp=2: .* vllm bench serve's" \
  "$XP" --db "$db" import vllm-bench "$data/serve_c8_detailed.json" --metadata=tp=2
check "--metadata: nothing recorded" "$before" "$(query "SELECT count(*) FROM runs")"

# xp help vllm-bench names what an import records beyond vLLM's statistics (the server's settings
# as serve.*, the replay's case, today's metrics), where it listed only the files it reads: the
# serve.* key SGLang 0.5.8's server_info gives is named there, and so are the others
"$XP" --db "$tmp/h.db" import vllm-bench "$data/formats/sglang_0.5.8_tp4_dp2.jsonl" > /dev/null 2>&1
"$XP" help vllm-bench > "$tmp/help" 2>&1
for word in $(db="$tmp/h.db" query "SELECT key FROM run_meta WHERE key LIKE 'serve.%'") serve.kv_cache_dtype \
  serve.quantization serve.KEY rate=trace spec_decode_position_I_acceptance_rate total_gpu_energy output_tokens_per_joule \
  "--set tp=N"; do
  grep -qF -- "$word" "$tmp/help" || { echo "FAIL: xp help vllm-bench does not name $word"; fail=1; }
done
check "sglang 0.5.8 records serve.dtype" "serve.dtype" "$(db="$tmp/h.db" query "SELECT key FROM run_meta WHERE key LIKE 'serve.%'")"

# --dry-run reads and summarises, records nothing.
before=$(query "SELECT count(*) FROM runs")
"$XP" --db "$db" import vllm-bench "$data/legacy_rate4.json" --dry-run > "$tmp/plan" 2>&1
check "dry-run exit status" 0 $?
grep -q 'would record one serve_bench run' "$tmp/plan" || { echo "FAIL: dry-run output"; cat "$tmp/plan"; fail=1; }

# Bad input: one line naming the file (and line), exit 2, no run recorded.
bad() { # bad NAME CONTENT EXPECTED-STDERR-SUBSTRING
  printf '%s' "$2" > "$tmp/$1"
  "$XP" --db "$db" import vllm-bench "$tmp/$1" > /dev/null 2> "$tmp/err"
  local rc=$?
  check "$1: exit status" 2 "$rc"
  check "$1: one line on stderr" 1 "$(wc -l < "$tmp/err")"
  grep -qF -- "$3" "$tmp/err" || { echo "FAIL: $1: stderr lacks [$3]: $(cat "$tmp/err")"; fail=1; }
}
bad notjson.json 'Successful requests: 12' "notjson.json:1: not valid JSON"
bad nokey.json '{"model_id": "m", "duration": 1.0, "completed": 2, "request_throughput": 2.0, "mean_ttft_ms": 3.0}' \
  'nokey.json:1: missing key "output_throughput"'
bad wrongtype.json '{"model_id": "m",
"duration": 1.0, "completed": 2, "request_throughput": "fast", "output_throughput": 9.0, "mean_ttft_ms": 3.0}' \
  'wrongtype.json:2: request_throughput: expected a number, found a string'
# a key given twice: its last value counts, as json.load reads it; a last value of the wrong type is
# refused (the check read the first, the import the last: a null pointer, found by fuzz_vllm_bench)
bad twice.json '{"model_id": "m", "label": "a",
"label": 7, "duration": 1.0, "completed": 2, "request_throughput": 2.0, "output_throughput": 9.0, "mean_ttft_ms": 3.0}' \
  'twice.json:1: label: expected a string, found a number'
sed 's/"model_id": "Qwen\/Qwen3-0.6B"/"model_id": "other\/model"/' "$data/serve_c8_detailed.json" > "$tmp/other.json"
"$XP" --db "$db" import vllm-bench "$data/serve_c16_goodput.json" "$tmp/other.json" > /dev/null 2> "$tmp/err"
check "two models in one import: exit status" 2 $?
grep -q 'import each model separately' "$tmp/err" || { echo "FAIL: model mismatch message: $(cat "$tmp/err")"; fail=1; }
check "no run recorded by bad input or --dry-run" "$before" "$(query "SELECT count(*) FROM runs")"

# the first of a key given twice, of the wrong type, is not what counts: the last is recorded
sed -e 's/"backend": "openai",/"backend": "openai", "model_id": 1,/' -e 's/"label": null/"label": 7, "label": "second"/' \
  "$data/serve_c8_detailed.json" > "$tmp/twice-ok.json"
"$XP" --db "$tmp/twice.db" import vllm-bench "$tmp/twice-ok.json" > /dev/null 2> "$tmp/err"
check "key given twice, the last right: exit status" 0 $?
check "key given twice: the last value recorded" "second|Qwen/Qwen3-0.6B" \
  "$(db="$tmp/twice.db" query "SELECT (SELECT value FROM run_meta WHERE key = 'label') || '|' || model FROM runs")"

# A backend that names the engine gives the run's engine; "openai" names only the API.
sed 's/"backend": "openai"/"backend": "vllm"/' "$data/serve_c8_detailed.json" > "$tmp/vllm-backend.json"
"$XP" --db "$tmp/engine.db" import vllm-bench "$tmp/vllm-backend.json" > /dev/null 2>&1 || fail=1
check "engine from the backend" "vllm" "$(db="$tmp/engine.db" query "SELECT engine FROM runs")"

# The same benchmark saved under another name, a day earlier, its latencies doubled: the same
# case for compare and regressions (file names aside), older by its own date though imported
# last, so regressions sees the original as the newest, and better.
db2="$tmp/series.db"
sed -e 's/"date": "20250611-101500"/"date": "20250610-101500"/' \
    -e 's/"\(mean\|median\|p99\)_ttft_ms": \([0-9.]*\)/"\1_ttft_ms": 2\2/g' \
    "$data/serve_c8_detailed.json" > "$tmp/vllm-older-name.json"
"$XP" --db "$db2" import vllm-bench "$data/serve_c8_detailed.json" > /dev/null 2>&1 || fail=1
"$XP" --db "$db2" import vllm-bench "$tmp/vllm-older-name.json" > /dev/null 2>&1 || fail=1
ids=$(db="$db2" query "SELECT group_concat(substr(uuid, 1, 8), ' ') FROM (SELECT uuid FROM runs ORDER BY id)")
"$XP" --db "$db2" compare $ids > "$tmp/cmp" 2>&1
grep -q "only in" "$tmp/cmp" && { echo "FAIL: compare across file names: cases unmatched"; head -20 "$tmp/cmp"; fail=1; }
"$XP" --db "$db2" query "$XP_SRC/queries/regressions.sql" --format csv > "$tmp/reg" 2>&1
grep -q "mean_ttft_ms,ms,.*better" "$tmp/reg" || { echo "FAIL: regressions by measured date"; cat "$tmp/reg"; fail=1; }

# --kind takes the importer's name (its runs are recorded as serve_bench); an unknown kind is
# refused rather than listing nothing
n=$("$XP" --db "$db2" runs --kind vllm_bench --format csv | tail -n +2 | wc -l)
check "runs --kind vllm_bench lists the imports" 1 $([ "$n" -ge 1 ] && echo 1 || echo 0)
one_line "an unknown --kind" 2 "--kind nope: no such kind" "$XP" --db "$db2" runs --kind nope

# what real runs or damaged files hold (tests/data/vllm_bench/variants/README.md)
vv="$XP_SRC/tests/data/vllm_bench/variants"
vdb="$tmp/variants.db"
"$XP" --db "$vdb" import vllm-bench "$vv/prefill_out1.json" > /dev/null 2>&1
check "one-token outputs: no TPOT or ITL statistic" 0 \
  "$("$XP" --db "$vdb" query <(echo "SELECT count(*) FROM metrics WHERE name LIKE '%tpot%' OR name LIKE '%itl%';") --format csv 2> /dev/null | tail -1)"
one_line "a negative duration" 2 "duration: expected a number >= 0, found -5" "$XP" --db "$vdb" import vllm-bench "$vv/nonsense.json"
one_line "a latency shorter than its TTFT" 2 "shorter than its time to first token" "$XP" --db "$vdb" import vllm-bench "$vv/ttft_gt_lat.json"
"$XP" --db "$vdb" import vllm-bench "$vv/dates_desc.json" > /dev/null 2>&1
check "several dates: measured at the latest" "2025-09-02T09:00:00Z" \
  "$("$XP" --db "$vdb" query <(echo "SELECT t.measured_at FROM run_measured t JOIN runs r ON r.id = t.run_id ORDER BY r.id DESC LIMIT 1;") --format csv 2> /dev/null | tail -1)"
"$XP" --db "$vdb" import vllm-bench "$vv/dupkey.json" > /dev/null 2>&1
check "a key given twice: its last value" "0.407464" \
  "$("$XP" --db "$vdb" query <(echo "SELECT m.median FROM metrics m JOIN cases c ON c.id = m.case_id WHERE m.name = 'duration' AND c.run_id = (SELECT max(id) FROM runs);") --format csv 2> /dev/null | tail -1)"

# vllm bench serve's optional keys (vllm/benchmarks/serve.py 2025-2026): --percentile-metrics
# with e2el, client_queue_time and e2el_including_client_queue, --metric-percentiles 50,95,99.9,
# --ramp-up-strategy (its keys and rps_change_events), start_times, --probe-request-rate, the
# speculative decoding keys: read, or kept in the stored file, never refused
python3 - "$data/serve_c16_goodput.json" "$tmp/newer.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
def pct(v, p):  # numpy.percentile, linear
    v = sorted(v); k = (len(v) - 1) * p / 100; i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)
def stats(name, v):
    m = sum(v) / len(v)
    out = {f"mean_{name}_ms": m, f"median_{name}_ms": pct(v, 50),
           f"std_{name}_ms": (sum((x - m) ** 2 for x in v) / len(v)) ** 0.5}
    out.update({f"p{p:g}_{name}_ms": pct(v, p) for p in (50, 95, 99.9)})
    return out
lat = [x * 1e3 for x in d["latencies"]]
queue = [0.5 + 0.25 * i for i in range(len(lat))]  # waits for a --max-concurrency slot, ms
d.update({"ramp_up_strategy": "linear", "ramp_up_start_rps": 1, "ramp_up_end_rps": 10,
          "rps_change_events": [{"rps": 1.0, "timestamp": "2025-06-11T10:20:00"}],
          "start_times": [0.001 * i for i in range(len(lat))],
          "probe_completed": 3, "probe_failed": 0, "probe_median_e2el_ms": 40.5, "probe_p99_e2el_ms": 52.0,
          "probe_max_e2el_ms": 55.25, "spec_decode_acceptance_rate": 62.5, "spec_decode_acceptance_length": 2.875,
          "spec_decode_num_drafts": 64, "spec_decode_draft_tokens": 192, "spec_decode_accepted_tokens": 120,
          "spec_decode_per_position_acceptance_rates": [0.8, 0.6, 0.475]})
d.update(stats("e2el", lat))
d.update(stats("client_queue_time", queue))
d.update(stats("e2el_including_client_queue", [a + b for a, b in zip(lat, queue)]))
json.dump(d, open(sys.argv[2], "w"))
PY
"$XP" --db "$tmp/newer.db" import vllm-bench "$tmp/newer.json" > /dev/null 2> "$tmp/err"
check "newer vLLM keys: import exit status" 0 $?
nq() { db="$tmp/newer.db" query "$1"; }
check "newer vLLM keys: the ramp names the case" '"concurrency=16,ramp=linear:1-10"' "$(nq "SELECT name FROM cases")"
check "newer vLLM keys: ramp settings in the case" "linear|1|10" \
  "$(nq "SELECT json_extract(params, '$.ramp_up_strategy') || '|' || json_extract(params, '$.ramp_up_start_rps') || '|' || json_extract(params, '$.ramp_up_end_rps') FROM cases")"
check "newer vLLM keys: statistics of every --percentile-metrics metric, every percentile" \
  "mean_client_queue_time_ms=ms p50_e2el_including_client_queue_ms=ms p95_e2el_ms=ms p99.9_client_queue_time_ms=ms p99.9_e2el_ms=ms" \
  "$(nq "SELECT group_concat(metric || '=' || unit, ' ') FROM (SELECT metric, unit FROM run_metrics WHERE metric IN ('p95_e2el_ms', 'p99.9_e2el_ms', 'p99.9_client_queue_time_ms', 'mean_client_queue_time_ms', 'p50_e2el_including_client_queue_ms') ORDER BY metric)")"
check "newer vLLM keys: probe, goodput and speculative decoding values" \
  "probe_completed=3 probe_max_e2el_ms=55.25 request_goodput=47.32815653449715 spec_decode_acceptance_length=2.875 spec_decode_num_drafts=64" \
  "$(nq "SELECT group_concat(metric || '=' || printf('%.17g', median), ' ') FROM (SELECT metric, median FROM run_metrics WHERE metric IN ('probe_completed', 'probe_max_e2el_ms', 'request_goodput', 'spec_decode_acceptance_length', 'spec_decode_num_drafts') ORDER BY metric)")"
check "newer vLLM keys: lists of events and start times are not metrics" 0 \
  "$(nq "SELECT count(*) FROM run_metrics WHERE metric LIKE 'rps%' OR metric LIKE 'start%' OR metric LIKE '%per_position%'")"
check "newer vLLM keys: per-request latencies, one a request" 24 "$(nq "SELECT n FROM run_metrics WHERE metric = 'e2el_ms'")"
# each draft position's acceptance (of the drafts, a fraction), as vLLM prints it: in %
check "newer vLLM keys: speculative decoding's acceptance at each draft position, in %" \
  "spec_decode_position_0_acceptance_rate=80[%] spec_decode_position_1_acceptance_rate=60[%] spec_decode_position_2_acceptance_rate=47.5[%]" \
  "$(nq "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ') FROM (SELECT * FROM run_metrics WHERE metric LIKE 'spec_decode_position_%' ORDER BY metric)")"
sed 's/"spec_decode_per_position_acceptance_rates": \[0.8, /"spec_decode_per_position_acceptance_rates": [80.0, /' "$tmp/newer.json" > "$tmp/pct.json"
one_line "newer vLLM keys: a position's acceptance above 1" 2 \
  'pct.json:1: spec_decode_per_position_acceptance_rates: item 0: expected a fraction from 0 to 1, found 80' \
  "$XP" --db "$tmp/pct.db" import vllm-bench "$tmp/pct.json"

# SGLang's python -m sglang.bench_serving --output-file: a line per benchmark (JSONL), no model
# in it. Each line a case; the model is declared, never guessed.
sg="$data/sglang_c1_c4_c8.jsonl"
sdb="$tmp/sglang.db"
one_line "SGLang results without --set model" 2 \
  "sglang_c1_c4_c8.jsonl:1: the result names no model (sglang.bench_serving names one only in a server_info); say which with --set model=NAME" \
  "$XP" --db "$sdb" import vllm-bench "$sg"
"$XP" --db "$sdb" import vllm-bench "$sg" --set model=Qwen/Qwen3-8B --dry-run > "$tmp/plan" 2>&1
grep -q 'would record one serve_bench run of Qwen/Qwen3-8B with 3 cases' "$tmp/plan" || { echo "FAIL: SGLang dry-run: $(cat "$tmp/plan")"; fail=1; }
check "no database written by the refusal or --dry-run" "no" "$([ -e "$sdb" ] && echo yes || echo no)"
"$XP" --db "$sdb" import vllm-bench "$sg" --set model=Qwen/Qwen3-8B > "$tmp/out" 2> "$tmp/err"
check "SGLang import exit status" 0 $?
sq() { db="$sdb" query "$1"; }
check "SGLang: a case per line" "concurrency=1 concurrency=4 concurrency=8" \
  "$(sq "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY seq)")"
check "SGLang: model declared, engine from the backend" "Qwen/Qwen3-8B|sglang|declared" \
  "$(sq "SELECT r.model || '|' || r.engine || '|' || m.source FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = 'model'")"
# every number SGLang wrote, under the name xp records for vLLM, equal to the file's value
pairs="duration:duration completed:completed total_input_tokens:total_input_tokens
total_output_tokens:total_output_tokens total_output_tokens_retokenized:total_output_tokens_retokenized
request_throughput:request_throughput input_throughput:input_throughput output_throughput:output_throughput
mean_e2e_latency_ms:mean_e2el_ms median_e2e_latency_ms:median_e2el_ms std_e2e_latency_ms:std_e2el_ms
p99_e2e_latency_ms:p99_e2el_ms mean_ttft_ms:mean_ttft_ms median_ttft_ms:median_ttft_ms std_ttft_ms:std_ttft_ms
p99_ttft_ms:p99_ttft_ms mean_tpot_ms:mean_tpot_ms median_tpot_ms:median_tpot_ms std_tpot_ms:std_tpot_ms
p99_tpot_ms:p99_tpot_ms mean_itl_ms:mean_itl_ms median_itl_ms:median_itl_ms std_itl_ms:std_itl_ms
p95_itl_ms:p95_itl_ms p99_itl_ms:p99_itl_ms concurrency:concurrency"
line=0
for c in 1 4 8; do
  line=$((line + 1))
  for p in $pairs; do
    key=${p%%:*} metric=${p#*:}
    want=$(sed -n "${line}p" "$sg" | grep -o "\"$key\": [-0-9.e+]*" | sed 's/.*: //')
    got=$(sq "SELECT printf('%.17g', median) FROM run_metrics WHERE case_name = 'concurrency=$c' AND metric = '$metric' AND n = 1")
    awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d * d <= 1e-24 * b * b) }' ||
      { echo "FAIL: SGLang line $line: $key [$want] recorded as $metric [$got]"; fail=1; }
  done
done
check "SGLang line 1: nothing recorded beyond its numbers" 26 \
  "$(sq "SELECT count(*) FROM run_metrics WHERE case_name = 'concurrency=1'")"
check "SGLang --output-details: per-request TTFTs of the 15 successes" "15" \
  "$(sq "SELECT n FROM run_metrics WHERE case_name = 'concurrency=8' AND metric = 'ttft_ms'")"
# SGLang writes no failed count; --output-details' errors list tells each request's fate: the failed
# request counted, as vLLM's failed is; the lines without the lists count none
check "SGLang --output-details: its failed request counted, none where no list tells" "concurrency=8=1" \
  "$(sq "SELECT group_concat(case_name || '=' || printf('%g', median)) FROM run_metrics WHERE metric = 'failed'")"
check "SGLang: the infinite rate kept as a setting" "inf" \
  "$(sq "SELECT json_extract(params, '$.request_rate') FROM cases WHERE name = 'concurrency=4'")"

# later versions' keys (tag, server_info, total_throughput, request_rate "trace"), a speculative
# decoding server's accept_length, and blank lines between results
sed -n 1p "$sg" | sed -e 's/"request_rate": Infinity/"request_rate": "trace"/' -e 's/"max_concurrency": 1/"max_concurrency": null/' \
  -e 's/"accept_length": null/"accept_length": 3.25, "max_output_tokens_per_s": 160.0/' \
  -e 's/^{/{"tag": "eagle", "server_info": {"tp_size": 2, "model_path": "m"}, "total_throughput": 5969.25, /' > "$tmp/later.jsonl"
printf '\n\n' >> "$tmp/later.jsonl"
sed -n 2p "$sg" >> "$tmp/later.jsonl"
"$XP" --db "$tmp/later.db" import vllm-bench "$tmp/later.jsonl" --set model=m > /dev/null 2> "$tmp/err"
check "later SGLang keys and blank lines: exit status" 0 $?
check "later SGLang keys: cases" "rate=trace concurrency=4" \
  "$(db="$tmp/later.db" query "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY seq)")"
check "later SGLang keys: vLLM's names" "max_output_tokens_per_s=160.0 spec_decode_acceptance_length=3.25 total_token_throughput=5969.25" \
  "$(db="$tmp/later.db" query "SELECT group_concat(metric || '=' || median, ' ') FROM (SELECT metric, median FROM run_metrics WHERE case_name = 'rate=trace' AND metric IN ('spec_decode_acceptance_length', 'total_token_throughput', 'max_output_tokens_per_s') ORDER BY metric)")"
check "later SGLang keys: the tag is the label" "eagle" \
  "$(db="$tmp/later.db" query "SELECT value FROM run_meta WHERE key = 'label'")"

# later versions write the server's /get_server_info: its model_path and tokenizer_path name the
# model, so no --set model is needed (a disaggregated server's under "decode"); a server_info of
# null (a vLLM server answers none) names nothing, and the model must still be declared
sed -e 's/^{/{"server_info": {"tp_size": 2, "model_path": "Qwen\/Qwen3-8B", "tokenizer_path": "Qwen\/Qwen3-8B-tok"}, /' "$sg" > "$tmp/info.jsonl"
"$XP" --db "$tmp/info.db" import vllm-bench "$tmp/info.jsonl" > /dev/null 2> "$tmp/err"
check "SGLang's server_info: import without --set model" 0 $?
check "SGLang's server_info: model, tokenizer and TP" "model=Qwen/Qwen3-8B|trace tokenizer_id=Qwen/Qwen3-8B-tok|trace tp=2|trace" \
  "$(db="$tmp/info.db" query "SELECT group_concat(key || '=' || value || '|' || source, ' ') FROM (SELECT * FROM run_meta WHERE key IN ('model', 'tokenizer_id', 'tp') ORDER BY key)")"
check "SGLang's server_info: the run's TP" 2 "$(db="$tmp/info.db" query "SELECT tp FROM runs")"
sed -e '1s/^{/{"server_info": {"prefill": [{"model_path": "p"}], "decode": [{"model_path": "Qwen\/Qwen3-8B"}]}, /' "$sg" |
  sed -n 1p > "$tmp/pd.jsonl"
"$XP" --db "$tmp/pd.db" import vllm-bench "$tmp/pd.jsonl" > /dev/null 2>&1
check "SGLang's disaggregated server_info: the decode server's model" "Qwen/Qwen3-8B" "$(db="$tmp/pd.db" query "SELECT model FROM runs")"
sed -e '1s/^{/{"server_info": null, /' "$sg" > "$tmp/noinfo.jsonl"
one_line "SGLang with a null server_info, without --set model" 2 \
  "noinfo.jsonl:1: the result names no model (sglang.bench_serving names one only in a server_info); say which with --set model=NAME" \
  "$XP" --db "$tmp/noinfo.db" import vllm-bench "$tmp/noinfo.jsonl"

# SGLang's backends name the engine and the API (sglang-oai-chat); "trt" is TensorRT-LLM
for be in sglang-oai-chat:sglang vllm-chat:vllm trt:tensorrt-llm; do
  sed "s/\"backend\": \"sglang\"/\"backend\": \"${be%%:*}\"/" "$sg" > "$tmp/be.jsonl"
  rm -f "$tmp/be.db"
  "$XP" --db "$tmp/be.db" import vllm-bench "$tmp/be.jsonl" --set model=m > /dev/null 2>&1 || fail=1
  check "engine of backend ${be%%:*}" "${be#*:}" "$(db="$tmp/be.db" query "SELECT engine FROM runs")"
done

# bad lines: one line naming the line at fault, exit 2, nothing recorded
before=$(sq "SELECT count(*) FROM runs")
{ sed -n 1p "$sg"; echo; sed -n 2p "$sg" | sed 's/"duration": [0-9.]*/"duration": -0.3/'; } > "$tmp/neg.jsonl"
one_line "SGLang: a negative duration on line 3" 2 "neg.jsonl:3: duration: expected a number >= 0, found -0.3" \
  "$XP" --db "$sdb" import vllm-bench "$tmp/neg.jsonl" --set model=m
{ sed -n 1p "$sg"; sed -n 2p "$sg" | cut -c 1-300; sed -n 3p "$sg"; } > "$tmp/cut.jsonl"
one_line "SGLang: a line cut short" 2 "cut.jsonl:2: not valid JSON: the result that starts here is cut short" \
  "$XP" --db "$sdb" import vllm-bench "$tmp/cut.jsonl" --set model=m
sed '2s/"mean_e2e_latency_ms": [0-9.]*/"mean_e2e_latency_ms": 10.5/' "$sg" > "$tmp/lat.jsonl"
one_line "SGLang: a mean latency below the mean TTFT" 2 "lat.jsonl:2: mean_e2e_latency_ms: 10.5 ms, shorter than mean_ttft_ms" \
  "$XP" --db "$sdb" import vllm-bench "$tmp/lat.jsonl" --set model=m
sed '3s/"dataset_name": "random"/"dataset_name": "r\xffndom"/' "$sg" > "$tmp/utf8.jsonl"
one_line "SGLang: a line not UTF-8" 2 "utf8.jsonl:3: not UTF-8 text" \
  "$XP" --db "$sdb" import vllm-bench "$tmp/utf8.jsonl" --set model=m
sed '2s/"completed": 12, //' "$sg" > "$tmp/nocompleted.jsonl"
one_line "SGLang: a line without completed" 2 "nocompleted.jsonl:2: missing key \"completed\" (not an sglang.bench_serving --output-file line?)" \
  "$XP" --db "$sdb" import vllm-bench "$tmp/nocompleted.jsonl" --set model=m
one_line "SGLang results declared one model, a vLLM file naming another" 2 \
  "serve_c8_detailed.json:1: model_id \"Qwen/Qwen3-0.6B\" differs from --set model=m, the model of .*sglang_c1_c4_c8.jsonl; import each model separately" \
  "$XP" --db "$sdb" import vllm-bench "$sg" "$data/serve_c8_detailed.json" --set model=m
check "no run recorded by bad SGLang lines" "$before" "$(sq "SELECT count(*) FROM runs")"

# vLLM and SGLang at the same concurrency: one metric name for one measurement, so one query
# reads both runs. (xp compare pairs such cases by workload: tests/cli/compare_serve_engines.sh.)
"$XP" --db "$sdb" import vllm-bench "$data/serve_c8_detailed.json" > /dev/null 2>&1 || fail=1
check "one query over vLLM's and SGLang's runs" \
  "mean_ttft_ms=2 median_tpot_ms=2 output_throughput=2 p99_itl_ms=2 request_throughput=2 ttft_ms=2" \
  "$(sq "SELECT group_concat(metric || '=' || k, ' ') FROM (SELECT metric, count(DISTINCT run_id) AS k FROM run_metrics
         WHERE case_name = 'concurrency=8' AND metric IN ('mean_ttft_ms', 'median_tpot_ms', 'output_throughput',
         'p99_itl_ms', 'request_throughput', 'ttft_ms') GROUP BY metric ORDER BY metric)")"

# the vLLM fixtures record what they recorded before SGLang's format was read
: > "$tmp/digest"
for f in serve_c8_detailed.json serve_c16_goodput.json serve_append_c1_c2.json legacy_rate4.json \
  variants/prefill_out1.json variants/dates_desc.json variants/dupkey.json; do
  rm -f "$tmp/d.db"
  "$XP" --db "$tmp/d.db" import vllm-bench "$data/$f" > /dev/null 2>&1 || echo "$f: import failed" >> "$tmp/digest"
  db="$tmp/d.db" query "SELECT '$f', r.model, r.engine, r.concurrency, r.tp, c.seq, c.name, c.params, c.status, m.name,
    m.unit, m.n, printf('%.17g %.17g %.17g %.17g %.17g %.17g', m.median, m.p10, m.p90, m.min, m.max, m.mean)
    FROM runs r JOIN cases c ON c.run_id = r.id JOIN metrics m ON m.case_id = c.id ORDER BY c.seq, m.name" >> "$tmp/digest"
  db="$tmp/d.db" query "SELECT '$f', key, value FROM run_meta WHERE source = 'trace' ORDER BY key" >> "$tmp/digest"
done
diff "$data/vllm_fixtures.digest" "$tmp/digest" > "$tmp/ddiff" ||
  { echo "FAIL: the vLLM fixtures record otherwise than before:"; head -20 "$tmp/ddiff"; fail=1; }

# A file given through a pipe (<(ssh host cat results.json)) reads once: the import reads each
# file once and keeps those bytes. Before, execute read the pipe again and found it empty
# ("empty file: no result object"), and the artifact was read a last time besides.
rm -f "$tmp/p.db"
"$XP" --db "$tmp/p.db" import vllm-bench <(cat "$data/serve_c8_detailed.json") > /dev/null 2> "$tmp/err"
rc=$?
check "through a pipe: exit, its file kept whole" "0|$(sha256sum < "$data/serve_c8_detailed.json" | cut -c1-64)" \
  "$rc|$(db="$tmp/p.db" sql "SELECT sha256 FROM artifacts WHERE name LIKE 'vllm-bench/0-%'" 2>&1)"

finish
