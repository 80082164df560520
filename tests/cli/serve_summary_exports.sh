#!/usr/bin/env bash
# xp import vllm-bench on NVIDIA genai-perf's and AIPerf's profile exports (each metric a summary,
# the load in input_config; importers/vllm_bench/vb_summary.c, tests/data/vllm_bench/formats/
# PROVENANCE.md): read as the vllm bench serve result of the same measurement, under vLLM's names
# and units, the load its case, so that xp compare pairs them with vLLM's and SGLang's cases of
# the same workload and with no other; an export that lacks what a case needs is refused in one
# line naming the key.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/vllm_bench"
fmt="$data/formats"
metrics() { # metrics DB RUN CASE PATTERN: "metric=median[unit]" of the run's case whose name is LIKE PATTERN, sorted
  db="$1" query "SELECT group_concat(metric || '=' || printf('%.10g', median) || '[' || unit || ']', ' ')
    FROM (SELECT m.* FROM run_metrics m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$2%' AND m.case_name = '$3'
          AND m.metric LIKE '$4' ORDER BY m.metric)"
}
params() { # params DB RUN: the run's one case, "name params"
  db="$1" sql "SELECT c.name || ' ' || c.params FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$2%'" |
    sed 's/""/"/g; s/^"//; s/"$//'
}
cmp() { # cmp DB A B: xp compare into $tmp/cmp
  "$XP" --db "$1" compare "$2" "$3" > "$tmp/cmp" 2> "$tmp/cmperr"
  check "compare $2 $3: exit" 0 $?
}
has() { grep -qE -- "$1" "$tmp/cmp" || { echo "FAIL: $2: no line [$1] in:"; cat "$tmp/cmp"; fail=1; }; }

# genai-perf's argparse input_config (2024): concurrency 4, its model; inter_token_latency is a
# request's (latency - TTFT) / (tokens - 1), vLLM's TPOT; avg the mean, p50 the median, in ms
d="$tmp/g.db"
g=$(import_vllm "$d" "$fmt/genai_perf_profile_export.json")
check "genai-perf: the load its case, the lengths asked for its settings" \
  'concurrency=4 {"file":"genai_perf_profile_export.json","max_concurrency":4,"random_input_len":550,"random_output_len":64}' \
  "$(params "$d" "$g")"
check "genai-perf: the throughputs under vLLM's names" "output_throughput=660.2[tok/s] request_throughput=10.4[req/s]" \
  "$(metrics "$d" "$g" concurrency=4 '%throughput')"
check "genai-perf: inter_token_latency is TPOT, no ITL" \
  "max_tpot_ms=6.3[ms] mean_tpot_ms=5.4[ms] median_tpot_ms=5.3[ms] min_tpot_ms=5[ms] p99_tpot_ms=6.1[ms] std_tpot_ms=0.3[ms]" \
  "$(metrics "$d" "$g" concurrency=4 '%tpot%')$(metrics "$d" "$g" concurrency=4 '%itl%')"
check "genai-perf: the TTFT's statistics" "max_ttft_ms=61[ms] mean_ttft_ms=41.3[ms] median_ttft_ms=39.9[ms] min_ttft_ms=30.1[ms] p99_ttft_ms=60.2[ms] std_ttft_ms=6.2[ms]" \
  "$(metrics "$d" "$g" concurrency=4 '%ttft%')"
check "genai-perf: the model, the client's endpoint" "Qwen/Qwen3-8B|chat" \
  "$(db="$d" sql "SELECT r.model || '|' || m.value FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = 'endpoint_type'")"
# written before genai-perf counted its requests (request_count, perf_analyzer PR 231): no count,
# no duration to derive one from; the case says so rather than looking like one that has it
check "genai-perf before request_count: the case says its requests were not counted" \
  "|ok|requests not counted: a genai-perf export from before its request_count (Dec. 2024) writes no count and no duration to derive one from" \
  "$(db="$d" sql "SELECT coalesce((SELECT group_concat(metric) FROM run_metrics m WHERE m.run_id = c.run_id AND m.metric IN ('completed', 'num_prompts')), '') || '|' || c.status || '|' || c.note FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$g%'")"

# genai-perf's ConfigCommand input_config (2025), Triton's TensorRT-LLM backend, 4 requests a
# second spaced evenly (perf_analyzer's constant distribution: vLLM's burstiness inf); its 12
# requests of 256-token prompts counted (request_count), so the prompt tokens they sent are known
c=$(import_vllm "$d" "$fmt/genai_perf_config_rate4.json")
check "genai-perf config: a constant rate" \
  'rate=4 {"burstiness":"inf","file":"genai_perf_config_rate4.json","random_input_len":256,"random_output_len":10,"request_rate":4}' \
  "$(params "$d" "$c")"
check "genai-perf config: the requests, the prompt tokens" "completed=12[requests] total_input_tokens=3072[tokens]" \
  "$(metrics "$d" "$c" rate=4 '%' | tr ' ' '\n' | grep -E '^(completed|total_input)' | paste -sd' ')"
check "genai-perf config: the engine (Triton's backend), the tokenizer" "tensorrt-llm|meta-llama/Llama-3.1-8B-Instruct" \
  "$(db="$d" sql "SELECT r.engine || '|' || m.value FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = 'tokenizer_id' WHERE r.uuid LIKE '$c%'")"
# evenly spaced arrivals are another load than vLLM's Poisson ones at the same rate
v=$(import_vllm "$d" "$data/legacy_rate4.json")
cmp "$d" "$c" "$v"
has "^  rate=4 only in A: B's rate=4 is another workload: burstiness: A \"inf\", B 1$" "constant against Poisson arrivals"
# a genai-perf config file's multi-turn stimuli (ConfigPerfAnalyzer's choices, genai_perf/config/
# input/config_perf_analyzer.py 2025): sessions started at a rate, or so many at once, refused as
# what they are (before: session_request_rate 'missing key "input_config.concurrency" (or
# request_rate): the export names no concurrency or request rate', though it names its load)
sed 's/"request_rate": 4.0/"session_request_rate": 4.0/' "$fmt/genai_perf_config_rate4.json" > "$tmp/session_rate.json"
one_line "genai-perf config: sessions started at a rate" 2 \
  'session_rate.json:1: input_config.perf_analyzer.stimulus.session_request_rate: a multi-turn benchmark (sessions started at 4 a second, each sending its turns in turn), a load no serving case of xp names; not read' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/session_rate.json"
sed 's/"request_rate": 4.0/"session_concurrency": 4/' "$fmt/genai_perf_config_rate4.json" > "$tmp/sessions.json"
one_line "genai-perf config: sessions at once" 2 \
  'sessions.json:1: input_config.perf_analyzer.stimulus.session_concurrency: a multi-turn benchmark (4 sessions at once)' \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/sessions.json"
# genai-perf --fixed-schedule (_convert_args_to_stimulus of genai_perf/config/input/create_config.py:
# the stimulus {"fixed_schedule": None}): its payload file's timestamps replayed, rate=trace as
# AIPerf's fixed schedule (before: refused, 'the export names no concurrency or request rate')
python3 - "$fmt/genai_perf_config_rate4.json" "$tmp/fixed_schedule.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["input_config"]["perf_analyzer"]["stimulus"] = {"fixed_schedule": None}
d["input_config"]["input"]["file"] = "payload.jsonl"
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
f=$(import_vllm "$d" "$tmp/fixed_schedule.json")
check "genai-perf --fixed-schedule: a trace replay" \
  'rate=trace {"file":"fixed_schedule.json","random_output_len":10,"request_rate":"trace"}' "$(params "$d" "$f")"

# AIPerf's export (JsonExportData, 2025): the summaries at the top, the request count those that
# succeeded, its errors failed, the duration in s, start_time the date; serve_c8_detailed.json's
# load, with which it pairs
d="$tmp/a.db"
a=$(import_vllm "$d" "$fmt/aiperf_profile_export.json")
check "AIPerf: the load and its settings" \
  'concurrency=8 {"file":"aiperf_profile_export.json","max_concurrency":8,"num_prompts":16,"random_input_len":128,"random_output_len":8}' \
  "$(params "$d" "$a")"
check "AIPerf: counts, duration and totals" \
  "completed=15[requests] duration=0.245[s] failed=1[requests] total_input_tokens=1920[tokens] total_output_tokens=120[tokens]" \
  "$(metrics "$d" "$a" concurrency=8 '%' | tr ' ' '\n' | grep -E '^(completed|duration|failed|total_)' | paste -sd' ')"
# the duration in the unit its summary states (MetricResult.unit; AIPerf writes its display unit,
# sec, of BenchmarkDurationMetric's own ns): 245000000 ns is 0.245 s (before: 245000000 s, the
# number taken for seconds whatever its unit), a unit of no time refused
python3 - "$fmt/aiperf_profile_export.json" "$tmp/durns.json" "$tmp/durtok.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmark_duration"] = {"unit": "ns", "avg": 245000000}
json.dump(d, open(sys.argv[2], "w"), indent=2)
d["benchmark_duration"] = {"unit": "tokens", "avg": 0.245}
json.dump(d, open(sys.argv[3], "w"), indent=2)
PY
n=$(import_vllm "$tmp/durns.db" "$tmp/durns.json")
check "AIPerf: a duration in ns, in s" "duration=0.245[s]" "$(metrics "$tmp/durns.db" "$n" concurrency=8 'duration')"
one_line "AIPerf: a duration in no unit of time" 2 \
  'durtok.json:1: benchmark_duration.unit: expected a unit of time (sec, ms, us, ns), found "tokens"' \
  "$XP" --db "$tmp/durtok.db" import vllm-bench "$tmp/durtok.json"
check "AIPerf: start_time is the date" "2025-06-11T10:15:00Z" \
  "$(db="$d" sql "SELECT measured_at FROM run_measured m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$a%'")"
check "AIPerf: the GPU its telemetry saw serving (not how many: DCGM reports its node's)" "NVIDIA H200|" \
  "$(db="$d" sql "SELECT gpu_name || '|' || coalesce(gpu_count, '') FROM runs WHERE uuid LIKE '$a%'")"
python3 - "$fmt/aiperf_profile_export.json" "$tmp/twogpus.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["telemetry_data"]["endpoints"]["localhost:9400"]["gpus"]["gpu_1"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
t=$(import_vllm "$d" "$tmp/twogpus.json")
check "AIPerf: GPUs of two kinds, no GPU recorded" "" "$(db="$d" sql "SELECT gpu_name FROM runs WHERE uuid LIKE '$t%'")"
# --gpu-telemetry's energy over the profiling phase (total_gpu_energy J, total_gpu_power W: AIPerf's
# power_efficiency_metrics.py; later per vendor, nvidia_...), each a summary of one in its unit:
# recorded in J and W
python3 - "$fmt/aiperf_profile_export.json" "$tmp/energy.json" "$tmp/vendor.json" "$tmp/kwh.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["total_gpu_energy"] = {"unit": "J", "avg": 201.6}
d["total_gpu_power"] = {"unit": "W", "avg": 822.0}
json.dump(d, open(sys.argv[2], "w"), indent=2)
del d["total_gpu_energy"], d["total_gpu_power"]
d["nvidia_total_gpu_energy"] = {"unit": "mJ", "avg": 201600.0}
d["nvidia_total_gpu_power"] = {"unit": "mW", "avg": 822000.0}
json.dump(d, open(sys.argv[3], "w"), indent=2)
d["nvidia_total_gpu_energy"] = {"unit": "kWh", "avg": 0.000056}
json.dump(d, open(sys.argv[4], "w"), indent=2)
PY
e=$(import_vllm "$d" "$tmp/energy.json")
check "AIPerf: the GPU energy and power its telemetry measured, in J and W" "total_gpu_energy=201.6[J] total_gpu_power=822[W]" \
  "$(metrics "$d" "$e" concurrency=8 '%gpu%')"
e=$(import_vllm "$d" "$tmp/vendor.json")
check "AIPerf: NVIDIA's GPU energy and power, mJ and mW in J and W" \
  "nvidia_total_gpu_energy=201.6[J] nvidia_total_gpu_power=822[W]" "$(metrics "$d" "$e" concurrency=8 '%gpu%')"
one_line "AIPerf: a GPU energy in a unit not AIPerf's" 2 'kwh.json:1: nvidia_total_gpu_energy.unit: expected a unit of energy (J, mJ, MJ)' \
  "$XP" --db "$tmp/kwh.db" import vllm-bench "$tmp/kwh.json"
check "AIPerf: a GPU energy in a unit not AIPerf's: nothing recorded" "no" "$([ -e "$tmp/kwh.db" ] && echo yes || echo no)"
# what AIPerf's EnergyEfficiencyAnalyzer makes of that energy (energy_efficiency_analyzer.py,
# ai-dynamo/aiperf 347f0c7: 201.6 J over this export's 0.245 s, 120 output and 1920 input tokens, 15
# requests, concurrency 8), each in the unit tag it writes (metric_enums.py 03240ef "tokens/J",
# "joules/user"; its energy summary's "mJ/token", "J/req", "req/s/W", "tps/W"): recorded in that
# unit, xp's spelling; an energy a token in J, which AIPerf never writes, refused
python3 - "$fmt/aiperf_profile_export.json" "$tmp/ratios.json" "$tmp/jtok.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for tag, unit, avg in [("total_gpu_energy", "J", 201.6), ("average_gpu_power", "W", 822.857),
                       ("output_tokens_per_joule", "tokens/J", 0.595238), ("energy_per_output_token", "mJ/token", 1680.0),
                       ("nvidia_energy_per_total_token", "mJ/token", 98.8235), ("energy_per_request", "J/req", 13.44),
                       ("energy_per_user", "joules/user", 25.2), ("performance_per_watt", "req/s/W", 0.074375),
                       ("amd_output_tps_per_watt", "tps/W", 0.595)]:
    d[tag] = {"tag": tag, "unit": unit, "avg": avg}
json.dump(d, open(sys.argv[2], "w"), indent=2)
d["energy_per_output_token"] = {"unit": "J/token", "avg": 1.68}
json.dump(d, open(sys.argv[3], "w"), indent=2)
PY
e=$(import_vllm "$d" "$tmp/ratios.json")
check "AIPerf: its energy ratios, each in the unit it states" \
  "amd_output_tps_per_watt=0.595[tok/s/W] energy_per_output_token=1680[mJ/tok] energy_per_request=13.44[J/req] energy_per_user=25.2[J/user] nvidia_energy_per_total_token=98.8235[mJ/tok] output_tokens_per_joule=0.595238[tok/J] performance_per_watt=0.074375[req/s/W]" \
  "$(metrics "$d" "$e" concurrency=8 '%_per_%')"
check "AIPerf: its mean GPU power over the phase, beside the energy" "average_gpu_power=822.857[W] total_gpu_energy=201.6[J]" \
  "$(metrics "$d" "$e" concurrency=8 '%gpu%')"
one_line "AIPerf: an energy a token in a unit AIPerf does not write" 2 \
  'jtok.json:1: energy_per_output_token.unit: expected a unit of energy per token (mJ/token)' \
  "$XP" --db "$tmp/jtok.db" import vllm-bench "$tmp/jtok.json"
check "AIPerf: an energy a token in J: nothing recorded" "no" "$([ -e "$tmp/jtok.db" ] && echo yes || echo no)"
# --goodput's SLO targets (AIPerf's input.goodput, InputConfig.goodput of input_config.py
# 01def00; genai-perf's args.goodput, _check_goodput_args of genai_perf/parser.py: an object of
# metric and ms): a setting of the case, in vLLM's --goodput names, so that goodputs counted
# against other targets are not paired as one workload; a goodput of no targets' form refused
python3 - "$fmt/aiperf_profile_export.json" "$tmp/slo.json" "$tmp/slo2.json" "$tmp/slostr.json" \
  "$fmt/genai_perf_profile_export.json" "$tmp/gslo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["goodput"] = {"tag": "goodput", "unit": "requests/sec", "avg": 40.8}
d["input_config"]["input"]["goodput"] = {"time_to_first_token": 100.0, "inter_token_latency": 10.0}
json.dump(d, open(sys.argv[2], "w"), indent=2)
d["input_config"]["input"]["goodput"] = {"time_to_first_token": 50.0, "inter_token_latency": 10.0}
json.dump(d, open(sys.argv[3], "w"), indent=2)
d["input_config"]["input"]["goodput"] = "time_to_first_token:100"
json.dump(d, open(sys.argv[4], "w"), indent=2)
g = json.load(open(sys.argv[5]))
g["input_config"]["goodput"] = {"request_latency": 300}
json.dump(g, open(sys.argv[6], "w"), indent=2)
PY
s1=$(import_vllm "$d" "$tmp/slo.json")
s2=$(import_vllm "$d" "$tmp/slo2.json")
check "AIPerf: the goodput's SLO targets a setting of its case" \
  'concurrency=8 {"file":"slo.json","goodput":"[\"tpot:10\",\"ttft:100\"]","max_concurrency":8,"num_prompts":16,"random_input_len":128,"random_output_len":8}' \
  "$(params "$d" "$s1")"
check "AIPerf: its goodput recorded beside them" "request_goodput=40.8[req/s]" "$(metrics "$d" "$s1" concurrency=8 '%goodput%')"
cmp "$d" "$s1" "$s2"
has "^  concurrency=8 only in A: B's concurrency=8 is another workload: goodput: A .*tpot:10.*ttft:100.*, B .*tpot:10.*ttft:50" \
  "goodputs of other SLO targets: not one workload"
g2=$(import_vllm "$d" "$tmp/gslo.json")
check "genai-perf: its --goodput targets, request_latency as vLLM's e2el" '"goodput":"[\"e2el:300\"]"' \
  "$(params "$d" "$g2" | grep -o '"goodput":"[^]]*]"')"
one_line "AIPerf: goodput targets of no form it writes" 2 \
  'slostr.json:1: input_config.input.goodput: expected the goodput'"'"'s targets ({"metric": ms, ...}), found a string' \
  "$XP" --db "$tmp/slostr.db" import vllm-bench "$tmp/slostr.json"
v=$(import_vllm "$d" "$data/serve_c8_detailed.json")
cmp "$d" "$a" "$v"
has '^concurrency=8 +\{"max_concurrency":8,"num_prompts":16\} +mean_tpot_ms +ms +11\.8 +11\.5418 ' "AIPerf's and vLLM's concurrency=8 paired"
has '^  concurrency=8: A random_input_len=128, random_output_len=8; B burstiness=1, request_rate="inf"$' \
  "the settings one side alone records, named"
# AIPerf's first exports: the summaries under "records"; Poisson arrivals (request_rate_mode
# poisson) are vLLM's burstiness 1, and pair with its rate=4
r=$(import_vllm "$d" "$fmt/aiperf_records_profile_export.json")
v=$(import_vllm "$d" "$data/legacy_rate4.json")
cmp "$d" "$r" "$v"
has '^rate=4 +\{"burstiness":1,"num_prompts":12,"request_rat.* +median_ttft_ms +ms +18\.2 ' "AIPerf's records and vLLM's rate=4 paired"
# a rate's arrivals AIPerf did not write: left at its default, which input_config leaves out
# (exclude_unset), poisson in every version (LoadGeneratorDefaults of aiperf/common/config/
# config_defaults.py); renamed arrival_pattern, with arrival_smoothness, in later versions
python3 - "$fmt/aiperf_records_profile_export.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
load = d["input_config"]["loadgen"]
del load["request_rate_mode"]
json.dump(d, open(f"{sys.argv[2]}/default_mode.json", "w"), indent=2)
load["arrival_pattern"] = "constant"
json.dump(d, open(f"{sys.argv[2]}/constant.json", "w"), indent=2)
load["arrival_pattern"], load["arrival_smoothness"] = "gamma", 0.5
json.dump(d, open(f"{sys.argv[2]}/gamma_pattern.json", "w"), indent=2)
del load["arrival_smoothness"] # --arrival-pattern gamma alone: AIPerf's smoothness 1 (Poisson's)
json.dump(d, open(f"{sys.argv[2]}/gamma_default.json", "w"), indent=2)
PY
for f in default_mode:1 constant:'"inf"' gamma_pattern:0.5 gamma_default:1; do
  x=$(import_vllm "$d" "$tmp/${f%%:*}.json")
  check "AIPerf: ${f%%:*}'s arrivals" "rate=4 {\"burstiness\":${f#*:}" \
    "$(params "$d" "$x" | grep -o '^rate=4 {"burstiness":[^,]*')"
done

# AIPerf's configuration v2.0 (2026): the model in models.items, the load the "profiling" phase's
# (its warmup apart), the lengths the dataset's prompts; read as the same load as its predecessor's
w=$(import_vllm "$d" "$fmt/aiperf_v2_profile_export.json")
check "AIPerf v2: the profiling phase's load, the dataset's lengths" \
  'concurrency=8 {"file":"aiperf_v2_profile_export.json","max_concurrency":8,"num_prompts":16,"random_input_len":128,"random_output_len":8}' \
  "$(params "$d" "$w")"
python3 - "$fmt/aiperf_v2_profile_export.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["input_config"]["phases"][1] = {"name": "profiling", "type": "gamma", "rate": 4.0, "smoothness": 2.0, "requests": 16}
json.dump(d, open(f"{sys.argv[2]}/gamma.json", "w"), indent=2)
d["input_config"]["phases"][1] = {"name": "profiling", "type": "gamma", "rate": 4.0, "requests": 16}
json.dump(d, open(f"{sys.argv[2]}/gamma_v2_default.json", "w"), indent=2)
d["input_config"]["phases"][1] = {"name": "profiling", "type": "user_centric", "rate": 4.0, "requests": 16}
json.dump(d, open(f"{sys.argv[2]}/users.json", "w"), indent=2)
d["input_config"]["phases"][1] = {"name": "profiling", "type": "fixed_schedule"}
d["input_config"]["datasets"][0] = {"name": "default", "type": "mooncake_trace", "path": "trace.jsonl"}
json.dump(d, open(f"{sys.argv[2]}/schedule_v2.json", "w"), indent=2)
d = json.load(open(sys.argv[1]))
d["input_config"]["phases"][1]["prefill_concurrency"] = 2
json.dump(d, open(f"{sys.argv[2]}/prefill_v2.json", "w"), indent=2)
# --goodput in v2: the slos section, {metric tag: value} (convert_cli_to_aiperf of
# src/aiperf/config/flags/converter.py, ai-dynamo/aiperf 0205ea1), and the goodput it counted
d = json.load(open(sys.argv[1]))
d["goodput"] = {"tag": "goodput", "unit": "requests/sec", "avg": 40.8}
d["input_config"]["slos"] = {"time_to_first_token": 100.0, "inter_token_latency": 10.0}
json.dump(d, open(f"{sys.argv[2]}/slos_v2.json", "w"), indent=2)
d["input_config"]["slos"] = "time_to_first_token:100"
json.dump(d, open(f"{sys.argv[2]}/slos_v2_str.json", "w"), indent=2)
PY
y=$(import_vllm "$d" "$tmp/gamma.json")
check "AIPerf v2: a gamma phase's smoothness is vLLM's burstiness" \
  'rate=4 {"burstiness":2,"file":"gamma.json","num_prompts":16,"random_input_len":128,"random_output_len":8,"request_rate":4}' \
  "$(params "$d" "$y")"
y=$(import_vllm "$d" "$tmp/gamma_v2_default.json")
check "AIPerf v2: a gamma phase without its smoothness runs at 1" 'rate=4 {"burstiness":1,' \
  "$(params "$d" "$y" | grep -o '^rate=4 {"burstiness":[^,]*,')"
one_line "AIPerf v2: a load xp's cases do not name" 2 \
  'users.json:1: input_config.phases\[profiling\].type "user_centric": a load no serving case of xp names' \
  "$XP" --db "$tmp/bad2.db" import vllm-bench "$tmp/users.json"
# its predecessor, v1's UserConfig: --user-centric-rate 4 --num-users 16 (loadgen.user_centric_rate,
# num_users; a --concurrency beside them only caps it) refused alike (before: read as the case
# concurrency=8, a closed loop of 8 where the users' sessions went at a rate)
python3 - "$fmt/aiperf_profile_export.json" "$tmp/users_v1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["input_config"]["loadgen"] = {"concurrency": 8, "user_centric_rate": 4.0, "num_users": 16, "request_count": 16}
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
one_line "AIPerf: a user-centric rate xp's cases do not name" 2 \
  'users_v1.json:1: input_config.loadgen.user_centric_rate: a rate shared among users.* multi-turn sessions .AIPerf.s user-centric mode., a load no serving case of xp names; not read' \
  "$XP" --db "$tmp/bad2.db" import vllm-bench "$tmp/users_v1.json"

# AIPerf's fixed schedule, a trace replayed at its timestamps (validate_timing_mode of
# src/aiperf/common/config/user_config.py, ai-dynamo/aiperf 08c788f): --fixed-schedule wins over a
# rate given beside it (a concurrency caps it); a trace dataset (mooncake_trace) with no load is
# replayed so (any other run without one is given concurrency 1, written then); v2's fixed_schedule
# phase. Each is rate=trace, as SGLang's and vLLM's trace replays, its dataset type the dataset_name
python3 - "$fmt/aiperf_profile_export.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cfg = d["input_config"]
cfg["input"] = {"file": "trace.jsonl", "custom_dataset_type": "mooncake_trace", "fixed_schedule": True}
cfg["loadgen"] = {"concurrency": 8, "request_rate": 4.0, "request_count": 16}
json.dump(d, open(f"{sys.argv[2]}/fixed.json", "w"), indent=2)
del cfg["input"]["fixed_schedule"]
cfg["loadgen"] = {"request_count": 16}
json.dump(d, open(f"{sys.argv[2]}/auto_trace.json", "w"), indent=2)
cfg["input"]["disable_auto_fixed_schedule"] = True
json.dump(d, open(f"{sys.argv[2]}/no_fixed.json", "w"), indent=2)
PY
y=$(import_vllm "$d" "$tmp/fixed.json")
check "AIPerf --fixed-schedule: a trace replay under a concurrency cap, its rate not applied" \
  'concurrency=8,rate=trace {"dataset_name":"mooncake_trace","file":"fixed.json","max_concurrency":8,"num_prompts":16,"request_rate":"trace"}' \
  "$(params "$d" "$y")"
y=$(import_vllm "$d" "$tmp/auto_trace.json")
check "AIPerf: a trace dataset without a load, replayed at its timestamps" \
  'rate=trace {"dataset_name":"mooncake_trace","file":"auto_trace.json","num_prompts":16,"request_rate":"trace"}' \
  "$(params "$d" "$y")"
one_line "AIPerf: a trace dataset with --no-fixed-schedule and no load" 2 \
  'no_fixed.json:1: missing key "input_config.loadgen.concurrency"' \
  "$XP" --db "$tmp/bad2.db" import vllm-bench "$tmp/no_fixed.json"
# AIPerf's --prefill-concurrency (v2: the phase's prefill_concurrency) holds back the requests
# waiting for their first token beside the concurrency: another load, a setting of the case
y=$(import_vllm "$d" "$tmp/prefill_v2.json")
check "AIPerf v2: the phase's prefill concurrency a setting of its case" \
  'concurrency=8 {"file":"prefill_v2.json","max_concurrency":8,"num_prompts":16,"prefill_concurrency":2,"random_input_len":128,"random_output_len":8}' \
  "$(params "$d" "$y")"
y=$(import_vllm "$d" "$tmp/schedule_v2.json")
check "AIPerf v2: a fixed_schedule phase is a trace replay" \
  'rate=trace {"dataset_name":"mooncake_trace","file":"schedule_v2.json","request_rate":"trace"}' \
  "$(params "$d" "$y")"
y=$(import_vllm "$d" "$tmp/slos_v2.json")
check "AIPerf v2: the goodput's SLO targets (its slos) a setting of its case" \
  'concurrency=8 {"file":"slos_v2.json","goodput":"[\"tpot:10\",\"ttft:100\"]","max_concurrency":8,"num_prompts":16,"random_input_len":128,"random_output_len":8}' \
  "$(params "$d" "$y")"
one_line "AIPerf v2: slos of no form it writes" 2 \
  'slos_v2_str.json:1: input_config.slos: expected the goodput'"'"'s targets' \
  "$XP" --db "$tmp/bad2.db" import vllm-bench "$tmp/slos_v2_str.json"

# genai-perf without --streaming: its "time to first token" is the whole answer's, no TTFT or
# TPOT recorded, the latency is
sed 's/"streaming": true/"streaming": false/' "$fmt/genai_perf_config_rate4.json" > "$tmp/unstreamed.json"
u=$(import_vllm "$d" "$tmp/unstreamed.json")
check "unstreamed: no TTFT, TPOT or time to the second token" "" "$(metrics "$d" "$u" rate=4 '%t_ms')"
check "unstreamed: the latency kept" "mean_e2el_ms=95.2[ms]" "$(metrics "$d" "$u" rate=4 'mean_e2el_ms')"

# what a case needs, missing: refused in one line naming the key, nothing recorded
bad="$tmp/bad.db"
one_line "AIPerf without input_config" 2 \
  'aiperf_0.7_profile_export.json:1: missing key "input_config" (the model and the load are named only there)$' \
  "$XP" --db "$bad" import vllm-bench "$fmt/aiperf_0.7_profile_export.json"
python3 - "$fmt/aiperf_profile_export.json" "$tmp" <<'PY'
import json, sys
base, tmp = json.load(open(sys.argv[1])), sys.argv[2]
def write(name, f):
    d = json.loads(json.dumps(base))
    f(d)
    json.dump(d, open(f"{tmp}/{name}.json", "w"), indent=2)
write("noload", lambda d: d["input_config"]["loadgen"].pop("concurrency"))
write("nomodel", lambda d: d["input_config"]["endpoint"].pop("model_names"))
write("twomodels", lambda d: d["input_config"]["endpoint"].update(model_names=["a", "b"]))
write("cancelled", lambda d: d.update(was_cancelled=True))
write("noout", lambda d: d.pop("output_token_throughput"))
write("strthr", lambda d: d["request_throughput"].update(avg="61.2"))
write("seconds", lambda d: d["time_to_first_token"].update(unit="tokens"))
PY
one_line "no load" 2 'noload.json:1: missing key "input_config.loadgen.concurrency" (or loadgen.request_rate)' \
  "$XP" --db "$bad" import vllm-bench "$tmp/noload.json"
one_line "no model" 2 'nomodel.json:1: missing key "input_config.model" (model_names, endpoint.model_names, models.items)' \
  "$XP" --db "$bad" import vllm-bench "$tmp/nomodel.json"
one_line "two models" 2 'twomodels.json:1: input_config.endpoint.model_names: 2 models; one run is one model' \
  "$XP" --db "$bad" import vllm-bench "$tmp/twomodels.json"
one_line "cancelled" 2 'cancelled.json:1: was_cancelled: true: the benchmark was stopped before its end' \
  "$XP" --db "$bad" import vllm-bench "$tmp/cancelled.json"
one_line "no output tokens" 2 'noout.json:1: missing key "output_token_throughput": no output tokens counted' \
  "$XP" --db "$bad" import vllm-bench "$tmp/noout.json"
one_line "a throughput as a string" 2 'strthr.json:1: request_throughput.avg: expected a number, found a string$' \
  "$XP" --db "$bad" import vllm-bench "$tmp/strthr.json"
one_line "a latency in no unit of time" 2 'seconds.json:1: time_to_first_token.unit: expected a unit of time' \
  "$XP" --db "$bad" import vllm-bench "$tmp/seconds.json"
printf 'Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nTime To First Token (ms),41.30,30.10,61.00,60.20,0,0,0,39.90,0\n' > "$tmp/profile_export_genai_perf.csv"
one_line "the CSV export" 2 'profile_export_genai_perf.csv:1: a genai-perf or AIPerf CSV export: it names no model and no load' \
  "$XP" --db "$bad" import vllm-bench "$tmp/profile_export_genai_perf.csv"
# the per-request files written beside the summaries name no model (nor, AIPerf's, the load):
# refused naming the file to give instead, where they were "missing key model_id"
cat > "$tmp/profile_export.json" <<'JSON'
{
  "experiments": [
    {
      "experiment": {"mode": "concurrency", "value": 4},
      "requests": [{"timestamp": 1, "sequence_id": 1, "response_timestamps": [2, 3]}],
      "window_boundaries": [1, 5, 6]
    }
  ],
  "version": "1.2.3"
}
JSON
one_line "perf_analyzer's profile export" 2 \
  "profile_export.json:1: perf_analyzer's profile export (genai-perf's profile_export.json): per-request timestamps, no model and no token counts; give the profile_export_genai_perf.json" \
  "$XP" --db "$bad" import vllm-bench "$tmp/profile_export.json"
printf '%s\n' '{"metadata": {"session_num": 0, "x_request_id": "7609a2e7", "turn_index": 0, "request_start_ns": 1759813207532900363, "request_end_ns": 1759813207838764604, "benchmark_phase": "profiling"}, "metrics": {"request_latency": {"value": 297.5, "unit": "ms"}}, "error": null}' > "$tmp/profile_export.jsonl"
one_line "AIPerf's per-request records" 2 \
  "profile_export.jsonl:1: an AIPerf per-request record (profile_export.jsonl): no model and no load in it; give the profile_export_aiperf.json" \
  "$XP" --db "$bad" import vllm-bench "$tmp/profile_export.jsonl"
# AIPerf's multi-run aggregate (each metric's mean over the runs, AggregateConfidenceJsonExporter)
# and its summaries per time slice: no run's summary, refused naming the file to give
cat > "$tmp/profile_export_aiperf_aggregate.json" <<'JSON'
{
  "schema_version": "1.0",
  "aiperf_version": "0.9.0",
  "metadata": {"aggregation_type": "confidence", "num_profile_runs": 3, "num_successful_runs": 3, "failed_runs": []},
  "metrics": {"request_throughput": {"mean": 61.2, "std": 0.8, "min": 60.3, "max": 62.0, "cv": 0.013, "se": 0.46,
                                     "ci_low": 59.2, "ci_high": 63.2, "t_critical": 4.303, "unit": "requests/sec"}}
}
JSON
one_line "AIPerf's aggregate" 2 \
  "profile_export_aiperf_aggregate.json:1: an AIPerf multi-run aggregate (profile_export_aiperf_aggregate.json): each metric's mean over the runs" \
  "$XP" --db "$bad" import vllm-bench "$tmp/profile_export_aiperf_aggregate.json"
printf '%s\n' '{"timeslices": [{"timeslice_index": 0, "request_throughput": {"unit": "requests/sec", "avg": 60.1}}], "input_config": {}}' \
  > "$tmp/profile_export_aiperf_timeslices.json"
one_line "AIPerf's time slices" 2 \
  "profile_export_aiperf_timeslices.json:1: AIPerf's summaries per time slice (--slice-duration), no summary of the run" \
  "$XP" --db "$bad" import vllm-bench "$tmp/profile_export_aiperf_timeslices.json"
# a raw newline inside a string (genai-perf's model name as the fuzzer wrote it): not JSON, though
# cJSON takes it as written, so the file with CRLF line ends would record another name
printf '{\n  "input_config": {\n    "model": ["meta-llama/Llama-3.1-8B-Instruct \n  "]\n  }\n}\n' > "$tmp/rawnl.json"
one_line "a raw newline inside a string" 2 'rawnl.json:3: control character inside a string$' \
  "$XP" --db "$bad" import vllm-bench "$tmp/rawnl.json"
sed 's/$/\r/' "$tmp/rawnl.json" > "$tmp/rawcrlf.json"
one_line "the same with CRLF line ends" 2 'rawcrlf.json:3: control character inside a string$' \
  "$XP" --db "$bad" import vllm-bench "$tmp/rawcrlf.json"
check "nothing recorded by the refusals" "no" "$([ -e "$bad" ] && echo yes || echo no)"
finish
