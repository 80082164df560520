#!/usr/bin/env bash
# xp compare of a vLLM run (vllm bench serve --save-result) and an SGLang run
# (sglang.bench_serving --output-file) of one workload: the two clients record different
# settings, so the cases pair on the settings both record and on the prompt tokens a request
# sent; what one side alone records is named, a case with no partner says why.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/vllm_bench"
sg="$data/sglang_c1_c4_c8.jsonl"
# the vLLM fixture sends 128-token prompts, the SGLang one 512: the vLLM file with 512-token
# prompts is the same load as SGLang's concurrency=8 line
sed -e 's/"total_input_tokens": 1920/"total_input_tokens": 7680/' -e 's/"input_lens": \[[0-9, ]*\]/"input_lens": []/' \
  "$data/serve_c8_detailed.json" > "$tmp/vllm512.json"
imp() { # imp DB FILE [ARGS]: import, the new run's id prefix on stdout
  local d=$1
  shift
  "$XP" --db "$d" import vllm-bench "$@" > /dev/null 2> "$tmp/imperr" || { echo "FAIL: import $*: $(cat "$tmp/imperr")" >&2; fail=1; }
  db="$d" sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1"
}
cmp() { # cmp DB A B [ARGS]: xp compare into $tmp/cmp
  local d=$1
  shift
  "$XP" --db "$d" compare "$@" > "$tmp/cmp" 2> "$tmp/cmperr"
  check "compare $*: exit" 0 $?
}
has() { grep -qE -- "$1" "$tmp/cmp" || { echo "FAIL: $2: no line [$1] in:"; sed -n '/^verdicts/,$p' "$tmp/cmp"; fail=1; }; }

# vLLM against SGLang at concurrency 8: one case, medians on both sides, the per-request TTFTs
# (15 a side) judged; the settings the params column shows are those both record
d1="$tmp/one.db"
va=$(imp "$d1" "$tmp/vllm512.json")
sb=$(imp "$d1" "$sg" --set model=Qwen/Qwen3-0.6B)
cmp "$d1" "$va" "$sb"
has '^concurrency=8 +\{"max_concurrency":8,"request_rate":"inf"\} +ttft_ms +ms +27\.32 +30\.923 .* 15/15 +same \(noise\)$' "vLLM and SGLang TTFTs paired"
has '^concurrency=8 +\{"max_concurrency":8,"request_rate":"inf"\} +mean_ttft_ms +ms +31\.8385 +32\.5453 .* 1/1 ' "vLLM's and SGLang's mean TTFT paired"
has '^  concurrency=8: A burstiness=1, num_prompts=16; B dataset_name="random", random_input_len=512, random_output_len=8, random_range_ratio=0$' \
  "the settings one side alone records, named"
has '^  concurrency=1 only in B: A has no case concurrency=1$' "a concurrency only SGLang ran"
"$XP" --db "$d1" compare "$va" "$sb" --format json > "$tmp/json"
python3 - "$tmp/json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
c8 = [c for c in d["cases"] if c["case"] == "concurrency=8"]
assert len(c8) == 1 and c8[0]["params_a"]["num_prompts"] == 16 and c8[0]["params_b"]["random_input_len"] == 512, c8
assert {"key": "num_prompts", "a": 16, "b": None} in c8[0]["unchecked"], c8
assert [c["unpaired"] for c in d["cases"] if c["case"] == "concurrency=4"] == ["A has no case concurrency=4"], d["cases"]
PY

# another load: 128-token prompts against 512 (neither client records the lengths both ways),
# not paired, and said why on both sides
d2="$tmp/two.db"
va=$(imp "$d2" "$data/serve_c8_detailed.json")
sb=$(imp "$d2" "$sg" --set model=Qwen/Qwen3-0.6B)
cmp "$d2" "$va" "$sb"
has '^concurrency=8 .* ttft_ms +ms +27\.32 +- .* 15/0 +only in A$' "a different load: not paired"
has "^  concurrency=8 only in A: B's concurrency=8 is another workload: prompt tokens a request: A 128, B 512$" \
  "why the vLLM case is unpaired"
has "^  concurrency=8 only in B: A's concurrency=8 is another workload: prompt tokens a request: A 128, B 512$" \
  "why the SGLang case is unpaired"
# and the same of two vLLM runs, whose params agree (vLLM records no dataset)
v2=$(imp "$d2" "$tmp/vllm512.json")
cmp "$d2" "$va" "$v2"
has "^  concurrency=8 only in A: B's concurrency=8 is another workload: prompt tokens a request: A 128, B 512$" \
  "two vLLM runs of other prompt lengths"

# a setting both record must agree: vLLM's --metadata writes strings (the importer keeps a
# number's as the number), SGLang numbers
d3="$tmp/three.db"
sed 's/"num_prompts": 16,/"num_prompts": 16, "random_input_len": "1024",/' "$tmp/vllm512.json" > "$tmp/meta1024.json"
sed 's/"num_prompts": 16,/"num_prompts": 16, "random_input_len": "512",/' "$tmp/vllm512.json" > "$tmp/meta512.json"
v1024=$(imp "$d3" "$tmp/meta1024.json")
v512=$(imp "$d3" "$tmp/meta512.json")
sb=$(imp "$d3" "$sg" --set model=Qwen/Qwen3-0.6B)
cmp "$d3" "$v1024" "$sb"
has "^  concurrency=8 only in A: B's concurrency=8 is another workload: random_input_len: A 1024, B 512$" "a setting both record, differing"
cmp "$d3" "$v512" "$sb"
has '^concurrency=8 +\{"max_concurrency":8,"random_input_len":512,.* +ttft_ms .* 15/15 ' "\"512\" and 512 are one setting"
check "--metadata random_input_len=512 kept as a number" 512 \
  "$(db="$d3" sql "SELECT json_extract(params, '$.random_input_len') || typeof(json_extract(params, '$.random_input_len')) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$v512%'" | sed 's/integer$//')"
has '^  concurrency=8: A burstiness=1, num_prompts=16; B dataset_name="random", random_output_len=8, random_range_ratio=0$' \
  "a setting both record is compared, not named"

# two SGLang cases that differ only where vLLM records nothing: no guess, both said
sed -n 3p "$sg" | sed 's/"random_output_len": 8/"random_output_len": 16/' > "$tmp/sg_twice.jsonl"
sed -n 3p "$sg" >> "$tmp/sg_twice.jsonl"
d4="$tmp/four.db"
va=$(imp "$d4" "$tmp/vllm512.json")
sb=$(imp "$d4" "$tmp/sg_twice.jsonl" --set model=Qwen/Qwen3-0.6B)
cmp "$d4" "$va" "$sb"
has '^  concurrency=8 only in A: 2 cases of B match it on the settings both record$' "ambiguous: A's side"
check "ambiguous: both of B's cases say why" 2 \
  "$(grep -c "^  concurrency=8 only in B: A's concurrency=8 matches 2 cases of B on the settings both record$" "$tmp/cmp")"
# not one workload though every setting both record agrees: vLLM's structured-output benchmark
# (its prompts ask for JSON, the server constrains the decoding; correct_rate(%) names it) against
# a plain result of the same load, and a timed_trace replay (requests at the trace's timestamps,
# request_rate "inf" as written) against a run at rate inf
d5="$tmp/five.db"
fmt="$data/formats"
python3 - "$fmt/vllm_structured_output.json" "$tmp/plain_c4.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("outputs", "correct_rate(%)", "ttft_description", "tpot_description"):
    del d[k]
json.dump(d, open(sys.argv[2], "w"), indent=4)
PY
so=$(imp "$d5" "$fmt/vllm_structured_output.json")
pl=$(imp "$d5" "$tmp/plain_c4.json")
cmp "$d5" "$so" "$pl"
has '^  structured_output,concurrency=4 only in A: B has no case structured_output,concurrency=4$' "structured output: not a plain case"
has '^  concurrency=4 only in B: A has no case concurrency=4$' "a plain case: not a structured-output one"
sed 's/"num_prompts": 16,/"num_prompts": 16, "dataset_name": "timed_trace",/' "$tmp/vllm512.json" > "$tmp/trace.json"
sed 's/"num_prompts": 16,/"num_prompts": 16, "dataset_name": "timed_trace", "self_timed": "false",/' "$tmp/vllm512.json" > "$tmp/trace_rate.json"
tr=$(imp "$d5" "$tmp/trace.json")
tn=$(imp "$d5" "$tmp/trace_rate.json")
va=$(imp "$d5" "$tmp/vllm512.json")
cmp "$d5" "$tr" "$va"
has '^  concurrency=8,rate=trace only in A: B has no case concurrency=8,rate=trace$' "a trace replayed at its timestamps: not rate inf"
cmp "$d5" "$tn" "$va"
has '^concurrency=8 .* ttft_ms .* 15/15 ' "--no-self-timed: the rate applied, the same case"
# the replay without --metadata: request_rate "inf" and no max_concurrency, as a run at rate inf
# writes them, but at most 4 of its 15 requests in flight at once (max_concurrent_requests), where
# a run at rate inf has every one in flight before any ends: a replay (said), not rate inf
sed -e 's/"max_concurrency": 8,/"max_concurrency": null,/' -e 's/"max_concurrent_requests": 8,/"max_concurrent_requests": 15,/' \
  "$tmp/vllm512.json" > "$tmp/inf.json"
sed 's/"max_concurrent_requests": 15,/"max_concurrent_requests": 4,/' "$tmp/inf.json" > "$tmp/replay.json"
"$XP" --db "$d5" import vllm-bench "$tmp/replay.json" > /dev/null 2> "$tmp/replayerr"
grep -q "^xp: warning: .*replay.json:1: request_rate inf and no max_concurrency, yet at most 4 of its 15 requests were in flight at once (max_concurrent_requests): not sent at once, so a vllm bench serve --dataset-name timed_trace replay" "$tmp/replayerr" ||
  { echo "FAIL: the replay inferred, said: [$(cat "$tmp/replayerr")]"; fail=1; }
rp=$(db="$d5" sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
in=$(imp "$d5" "$tmp/inf.json")
cmp "$d5" "$rp" "$in"
has '^  rate=trace only in A: B has no case rate=trace$' "a replay without metadata: not rate inf"
has '^  rate=inf only in B: A has no case rate=inf$' "every request at once: rate inf"
# a replay of a busy trace: 12 of its 15 requests in flight at once, more than half, yet not all
# of them as at rate inf: a replay too, not a burst of all 15
sed 's/"max_concurrent_requests": 15,/"max_concurrent_requests": 12,/' "$tmp/inf.json" > "$tmp/busy.json"
"$XP" --db "$d5" import vllm-bench "$tmp/busy.json" > /dev/null 2> "$tmp/busyerr"
grep -q "^xp: warning: .*busy.json:1: request_rate inf and no max_concurrency, yet at most 12 of its 15 requests were in flight" "$tmp/busyerr" ||
  { echo "FAIL: the busy replay inferred, said: [$(cat "$tmp/busyerr")]"; fail=1; }
bz=$(db="$d5" sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1")
cmp "$d5" "$bz" "$in"
has '^  rate=trace only in A: B has no case rate=trace$' "a busy replay (12 of 15 at once): not rate inf"
finish
