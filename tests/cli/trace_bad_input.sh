#!/usr/bin/env bash
# Bad traces: each gives one line on stderr naming the file (and the line, event and byte offset or
# number where that applies; progress lines of big files aside), exit status 2, a run
# recorded as failed with that message, and no trace rows for it.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
r0="$data/decode_tp2_bs1_rank0.trace.json.gz"
r1="$data/decode_tp2_bs1_rank1.trace.json.gz"

# expect_bad DESCRIPTION PATTERN FILE...: exit 2, one stderr line matching PATTERN (grep -E)
expect_bad() {
  local what=$1 pattern=$2
  shift 2
  "$XP" --db "$db" import torch-trace "$@" > "$tmp/out" 2> "$tmp/all"
  local rc=$?
  # Progress lines (files over a few MB read for more than a moment) are not the error.
  grep -v '^xp: reading ' "$tmp/all" > "$tmp/err"
  if [ $rc -ne 2 ]; then echo "FAIL: $what: exit $rc, expected 2"; fail=1; fi
  if [ "$(wc -l < "$tmp/err")" -ne 1 ]; then echo "FAIL: $what: stderr is not one line:"; cat "$tmp/err"; fail=1; fi
  if ! grep -Eq "$pattern" "$tmp/err"; then echo "FAIL: $what: stderr does not match [$pattern]:"; cat "$tmp/err"; fail=1; fi
  local run
  run=$(query "SELECT status || '|' || (error IS NOT NULL) || '|' ||
    ((SELECT count(*) FROM trace_ranks t WHERE t.run_id = runs.id) + (SELECT count(*) FROM trace_kernels t WHERE t.run_id = runs.id)
    + (SELECT count(*) FROM trace_imports t WHERE t.run_id = runs.id)) AS x FROM runs ORDER BY id DESC LIMIT 1")
  if [ "$run" != "failed|1|0" ]; then echo "FAIL: $what: last run [$run], expected failed with no trace rows"; fail=1; fi
}

# every GPU activity written "ts": 0 and "dur": 0 (PyTorch 2.12, pytorch/pytorch#188481) in a trace
# whose other times are far from 0: no timed GPU activity, refused as a trace with none is (before:
# ok, a window from 0 and no GPU time)
sed -E '/"cat": "(kernel|gpu_memcpy)"/s/"ts": [0-9.]+, "dur": [0-9.]+/"ts": 0.000, "dur": 0.000/' \
  "$data/variants/untimed_half.json" > "$tmp/untimed_gpu.json"
expect_bad "no timed GPU activity" "^xp: $tmp/untimed_gpu.json: no timed GPU kernels in the trace \\(23 events\\): its 6 GPU activities are written with \"ts\": 0 and \"dur\": 0, no time \\(PyTorch 2.12's export_chrome_trace, pytorch/pytorch#188481\\)$" \
  "$tmp/untimed_gpu.json"

head -c 700000 "$r0" > "$tmp/truncated.json.gz"
expect_bad "truncated gzip" "^xp: $tmp/truncated.json.gz: truncated gzip stream: it ends at compressed byte 700000, after [0-9]+ bytes of JSON$" \
  "$tmp/truncated.json.gz"

cp "$r0" "$tmp/corrupt.json.gz"
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$tmp/corrupt.json.gz" bs=1 seek=400000 conv=notrunc 2>/dev/null
expect_bad "corrupt gzip" "^xp: $tmp/corrupt.json.gz: (corrupt gzip data at compressed byte [0-9]+|truncated gzip)" "$tmp/corrupt.json.gz"

gzip -dc "$r0" | sed '0,/"External id": 60,/s//"External id": 60,,/' | gzip > "$tmp/invalid.json.gz"
expect_bad "invalid JSON" "^xp: $tmp/invalid.json.gz:[0-9]+: event [0-9]+ \\(byte [0-9]+\\): expected a key string$" "$tmp/invalid.json.gz"

gzip -dc "$r0" | head -c 5000000 | gzip > "$tmp/cut.json.gz"
expect_bad "truncated JSON" "^xp: $tmp/cut.json.gz:[0-9]+: event [0-9]+ \\(byte 5000000\\): the document ends early, inside event [0-9]+$" "$tmp/cut.json.gz"

# two traces in one file (files concatenated; a profiler stopped while it wrote, then another
# trace written on): refused where the second starts, its events never read as the first's, the
# first never taken as whole. Before: 'unexpected data after the end of the document', 'expected a
# key string' (its '{' where a key was due), and, the first cut between two events, the whole
# second trace read as one event of the first: 'the document ends early, after 9 events' at the end
two="$data/variants/twogpu_seq.json"
second="a second trace starts here, %s \\(files concatenated, or a trace written on after another\\): xp reads one trace a file$"
cat "$two" "$two" > "$tmp/twice.json"
expect_bad "two traces, whole" "^xp: $tmp/twice.json:16: event 13 \\(byte $(wc -c < "$two")\\): $(printf "$second" "after the first's end")" "$tmp/twice.json"
cat "$two" "$two" | gzip > "$tmp/twice.json.gz"
expect_bad "two traces, gzip" "^xp: $tmp/twice.json.gz:16: event 13 \\(byte $(wc -c < "$two")\\): $(printf "$second" "after the first's end")" "$tmp/twice.json.gz"
{ head -n 9 "$two"; cat "$two"; } > "$tmp/cut_between.json"
expect_bad "a trace cut between events, another after it" "^xp: $tmp/cut_between.json:10: event 8 \\(byte $(head -n 9 "$two" | wc -c)\\): $(printf "$second" "the first cut off before it")" "$tmp/cut_between.json"
# cut between an event's '}' and its ',' (Kineto writes "},\n  {"): before, 'expected ',' or ']'
# between events'
cut=$(($(grep -b -o '}},' "$two" | head -n 1 | cut -d: -f1) + 2))
{ head -c $cut "$two"; cat "$two"; } > "$tmp/cut_brace.json"
expect_bad "a trace cut before an event's ',', another after it" "^xp: $tmp/cut_brace.json:[0-9]+: event 1 \\(byte $cut\\): $(printf "$second" "the first cut off before it")" "$tmp/cut_brace.json"
{ head -c 1500 "$two"; cat "$two"; } > "$tmp/cut_inside.json"
expect_bad "a trace cut inside an event, another after it" "^xp: $tmp/cut_inside.json:11: event 9 \\(byte 1500\\): $(printf "$second" "inside the first's last event, cut off")" "$tmp/cut_inside.json"
{ head -c 1480 "$two"; cat "$two"; } > "$tmp/cut_string.json"
expect_bad "a trace cut inside a string, another after it" "^xp: $tmp/cut_string.json:11: event 9 \\(byte 1480\\): $(printf "$second" "inside the first's last event, cut off")" "$tmp/cut_string.json"
# cut after an event's "args": , a whole trace written on reads as that value; one larger than an
# event may be (16 MiB: the shipped rank 0's, 17.5 MB) was 'event 4 is longer than 16 MiB'
{ head -c 761 "$two"; gzip -dc "$r0"; } > "$tmp/cut_value.json"
expect_bad "a trace cut before an event's value, a large one after it" "^xp: $tmp/cut_value.json:7: event 4 \\(byte 764\\): $(printf "$second" "inside the first's last event, cut off")" "$tmp/cut_value.json"
printf 'garbage\n' | cat "$two" - > "$tmp/junk_after.json"
expect_bad "junk after the document" "^xp: $tmp/junk_after.json:16: event 13 \\(byte $(wc -c < "$two")\\): unexpected data after the end of the document$" "$tmp/junk_after.json"

# every rank exporting to one path at once (TensorRT-LLM's PyTorch backend did, TLLM_TORCH_PROFILE_TRACE:
# tensorrt_llm/_torch/pyexecutor/py_executor.py now appends '-rank-N', "Without this, TP/PP/DP > 1
# runs have every rank calling torch_profiler.export_chrome_trace() on the same path concurrently,
# producing interleaved output"): each truncates the file and writes it from the start, and the
# last to write an 8 KiB block (libstdc++'s ofstream buffer, through which Kineto writes) keeps
# it; made here with dd from two ranks' traces. Refused where the first writer's text breaks,
# saying that another process's events follow (before: 'expected a key string', or, a shorter
# trace written over a longer, 'unexpected data after the end of the document', as for junk; a
# byte gone wrong in one process's trace, "invalid JSON" above, is still said as it was)
spliced="and another process's events follow: written over by it \\(several ranks exporting to one path at once\\?\\): give each rank its own file$"
gzip -dc "$data/variants/vllm_r0.json.gz" > "$tmp/one_path.json"
gzip -dc "$data/variants/vllm_r1.json.gz" > "$tmp/other_rank.json"
for k in 1 3 5 7 9 11; do
  dd if="$tmp/other_rank.json" of="$tmp/one_path.json" bs=8192 skip=$k seek=$k count=1 conv=notrunc 2>/dev/null
done
expect_bad "two ranks' traces written into one path, block by block" "^xp: $tmp/one_path.json:[0-9]+: event [0-9]+ \\(byte (819[2-9]|8[2-9][0-9][0-9])\\): [^,]+, $spliced" "$tmp/one_path.json"
cp "$tmp/other_rank.json" "$tmp/one_path_short.json"
gzip -dc "$data/variants/multinode_r0.json.gz" | dd of="$tmp/one_path_short.json" conv=notrunc 2>/dev/null
expect_bad "a shorter rank's trace written over a longer one" "^xp: $tmp/one_path_short.json:[0-9]+: event [0-9]+ \\(byte $(gzip -dc "$data/variants/multinode_r0.json.gz" | wc -c)\\): unexpected data after the end of the document, $spliced" "$tmp/one_path_short.json"
# ... into one .json.gz path (torch's export_chrome_trace gzips into the path it is given, and
# TensorRT-LLM gave every rank the same TLLM_TORCH_PROFILE_TRACE before it named each rank's file):
# one rank's deflate stream, a block of another's written over it at the same place, stops
# inflating there, which no reader can tell from damage, but the error said only 'corrupt gzip
# data', or, where the wrong bytes inflated for a while before the inflater noticed, blamed the
# JSON alone ('expected a key string'). Both now say what may have written over it
gz_over="damaged, or written over by another process's trace \\(several ranks exporting to one \\.gz path at once\\?\\): give each rank its own file$"
gzip -dc "$r0" | gzip -n > "$tmp/rank0_n.json.gz"
for k in 1 2; do
  gzip -dc "$r1" | gzip -n > "$tmp/one_path$k.json.gz"
  dd if="$tmp/rank0_n.json.gz" of="$tmp/one_path$k.json.gz" bs=32768 skip=$k seek=$k count=1 conv=notrunc 2>/dev/null
done
expect_bad "two ranks' traces written into one .gz path, the inflater stopping" "^xp: $tmp/one_path1.json.gz: corrupt gzip data at compressed byte [0-9]+ \\(after [0-9]+ bytes of JSON\\): [a-z ]+: $gz_over" "$tmp/one_path1.json.gz"
expect_bad "two ranks' traces written into one .gz path, the JSON breaking first" "^xp: $tmp/one_path2.json.gz:[0-9]+: event [0-9]+ \\(byte [0-9]+\\): [^,]+, in a \\.gz whose data stop inflating further on \\(data gone wrong may inflate to wrong bytes for a while first\\): corrupt gzip data at compressed byte [0-9]+ \\(after [0-9]+ bytes of JSON\\): [a-z ]+: $gz_over" "$tmp/one_path2.json.gz"
# ... the shorter stream the last to write every block of its own: whole, and read as the file's
# trace, but the longer one's end after it was said as zero padding would be ('padding or junk')
# (read into a database of its own: every run in $db is a refused one, checked below)
gzip -dc "$r1" | gzip -n > "$tmp/one_path_whole.json.gz"
dd if="$tmp/rank0_n.json.gz" of="$tmp/one_path_whole.json.gz" conv=notrunc 2>/dev/null
"$XP" --db "$tmp/whole.db" import torch-trace "$tmp/one_path_whole.json.gz" > "$tmp/out" 2> "$tmp/err"
check "a shorter rank's .gz written whole over a longer one: read" 0 $?
check "a shorter rank's .gz written whole over a longer one: said" "xp: warning: $tmp/one_path_whole.json.gz: $(($(wc -c < "$tmp/one_path_whole.json.gz") - $(wc -c < "$tmp/rank0_n.json.gz"))) bytes after the end of the gzip stream ignored, as gzip -d ignores them: not zeros: junk, or the end of a longer trace that another process wrote into this path at once, this one written over its start (several ranks exporting to one .gz path?)" "$(grep 'after the end of the gzip stream' "$tmp/err")"

printf '{"hello": [1, 2, 3]}\n' > "$tmp/hello.json"
expect_bad "a JSON file that is not a trace" "^xp: $tmp/hello.json: not a torch.profiler trace: no \"traceEvents\" array$" "$tmp/hello.json"

printf 'time,value\n1,2\n' > "$tmp/data.csv"
expect_bad "not JSON at all" "^xp: $tmp/data.csv:[0-9]+: event 0 \\(byte 0\\): not JSON" "$tmp/data.csv"

: > "$tmp/empty.json"
expect_bad "empty file" "^xp: $tmp/empty.json:[0-9]+: event 0 \\(byte 0\\): empty: no JSON document$" "$tmp/empty.json"

printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1.5, "dur": 2}]}' > "$tmp/cpu.json"
expect_bad "no kernels" "^xp: $tmp/cpu.json: no GPU kernels in the trace \\(1 events\\)" "$tmp/cpu.json"

printf '{"traceEvents": [\n{"ph": "X", "cat": "kernel", "name": "k", "ts": 1.5, "dur": 2},\n{"ph": "X", "cat": "kernel", "name": "nvjet_x", "ts": 9}]}' > "$tmp/nodur.json"
expect_bad "kernel without dur" "^xp: $tmp/nodur.json:3: event 1 \\(byte 82\\): kernel event \"nvjet_x\" has no valid \"dur\" \\(a number within \\+-4e15 us\\)$" "$tmp/nodur.json"

printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2}]}' > "$tmp/noname.json"
expect_bad "kernel without name" "^xp: $tmp/noname.json:[0-9]+: event 0 \\(byte 17\\): kernel event without a \"name\" string$" "$tmp/noname.json"

{ printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "'; head -c 20000000 /dev/zero | tr '\0' 'a'; printf '", "ts": 1, "dur": 2}]}'; } > "$tmp/huge.json"
expect_bad "huge string" "^xp: $tmp/huge.json:[0-9]+: event 0 \\(byte 17\\): event 0 is longer than 16 MiB: not a profiler trace event$" "$tmp/huge.json"

# GPU activities written as "B"/"E" halves that pair with nothing (an "E" before any "B" on its
# stream, a "B" the profile cut off): no kernel, and the error says why
printf '%s\n' '{"traceEvents": [' \
  '{"ph": "E", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1},' \
  '{"ph": "B", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 3}]}' > "$tmp/gpu_be.json"
expect_bad "GPU activities as unpaired B/E" "^xp: $tmp/gpu_be.json: no GPU kernels in the trace \\(2 events\\) but 2 \"B\"/\"E\" events left out unpaired" "$tmp/gpu_be.json"
# an instant event of a kernel's category, alone: not read, and the error says so
printf '%s\n' '{"traceEvents": [' \
  '{"ph": "i", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "s": "t"}]}' > "$tmp/gpu_i.json"
expect_bad "GPU instant events" "^xp: $tmp/gpu_i.json: no GPU kernels in the trace \\(1 events\\) but 1 GPU events that are not complete .*only complete events and \"B\"/\"E\" pairs are$" "$tmp/gpu_i.json"

# other compressions than gzip, named by their magic bytes whatever the file's name
printf '\x28\xb5\x2f\xfd\x04\x58\x00\x00' > "$tmp/zstd.json.gz"
expect_bad "zstd" "^xp: $tmp/zstd.json.gz:1: event 0 \\(byte 0\\): not JSON: zstd-compressed \\(decompress it first" "$tmp/zstd.json.gz"
printf 'BZh91AY&SY\x00\x00' > "$tmp/trace.json.bz2"
expect_bad "bzip2" "^xp: $tmp/trace.json.bz2:1: event 0 \\(byte 0\\): not JSON: bzip2-compressed" "$tmp/trace.json.bz2"
# the legacy autograd profiler's trace (use_kineto=False): said so, not "recorded with CUDA activities?"
printf '%s\n' '[{"name": "aten::mm", "ph": "X", "ts": 100.0, "dur": 20.0, "tid": 1, "pid": "CPU functions", "args": {}},' \
  '{"name": "aten::mm", "ph": "X", "ts": 130.0, "dur": 15.0, "tid": 0, "pid": "CUDA functions", "args": {}}]' > "$tmp/legacy.json"
expect_bad "legacy autograd profiler" "^xp: $tmp/legacy.json: no GPU kernels in the trace \\(2 events\\): it is the legacy autograd profiler's" "$tmp/legacy.json"
# torch_npu's trace_view.json (Ascend/pytorch torch_npu/profiler/analysis/prof_common_func/
# _trace_event_manager.py at 734edcde: its CPU events and process names; the NPU's tasks as CANN's
# msprof writes them, no category, "Task Type" args): said so, not "recorded with CUDA activities?"
printf '%s\n' '[{"ph": "M", "name": "process_name", "pid": 2287318, "tid": 0, "args": {"name": "Python"}},' \
  '{"ph": "M", "name": "process_name", "pid": 2287318402, "tid": 0, "args": {"name": "Ascend Hardware"}},' \
  '{"ph": "X", "name": "aten::mm", "pid": 2287318, "tid": 2287318, "ts": "1701000000000100.000", "dur": 200.0, "cat": "cpu_op", "args": {"Sequence number": -1}},' \
  '{"ph": "X", "name": "aclnnMm_MatMulCommon_MatMulV2", "pid": 2287318402, "tid": 2, "ts": "1701000000000400.000", "dur": 50.0, "args": {"Model Id": 4294967295, "Task Type": "AI_CORE", "Stream Id": 2, "Task Id": 11}}]' > "$tmp/npu.json"
expect_bad "torch_npu trace" "^xp: $tmp/npu.json: no GPU kernels in the trace \\(4 events\\): it is torch_npu's trace_view.json \\(Ascend NPU\\)" "$tmp/npu.json"
# rocmProfileData's chrome trace, as SGLang's RPD profiler (activities ["RPD"]) writes it with
# rpd2tracing (sglang python/sglang/srt/utils/rpd_utils.py, from rocmProfileData
# tools/rpd2tracing.py at 92d13a0): its leading {}, GPU and thread names, a kernel (an op: no
# category, its kind in "desc"), the HIP call that launched it and their api_op flow: said so,
# not "recorded with CUDA activities?"
printf '%s\n' '{"traceEvents": [ {}' \
  ',{"name": "process_name", "ph": "M", "pid":"0","args":{"name":"GPU0"}}' \
  ',{"name":"thread_name","ph":"M","pid":"1808","tid":"1808","args":{"name":"Hip 1808"}}' \
  ',{"pid":"0","tid":"1","name":"Cijk_Alik_Bljk_BBS_BH_MT64x16x64","ts":"5131127468517.653","dur":"30.5","ph":"X","args":{"desc":"KernelExecution"}}' \
  ',{"pid":"1808","tid":"1808","name":"hipExtModuleLaunchKernel","ts":"5131127468500.0","dur":"6.0","ph":"X","args":{"desc":"stream=0x1"}}' \
  ',{"pid":"1808","tid":"1808","cat":"api_op","name":"api_op","ts":"5131127468504.0","id":"1","ph":"s"}' \
  ',{"pid":"0","tid":"1","cat":"api_op","name":"api_op","ts":"5131127468517.653","id":"1","ph":"f", "bp":"e"}' \
  ']}' > "$tmp/rpd-1717000000.5-TP-0.trace.json"
expect_bad "rocmProfileData trace" "^xp: $tmp/rpd-1717000000.5-TP-0.trace.json: no GPU kernels in the trace \\(7 events\\): it is rocmProfileData's \\(rpd2tracing's, as SGLang's RPD profiler writes it\\), whose GPU ops \\(\"desc\": \"KernelExecution\", no category\\) xp does not read: record with torch.profiler$" \
  "$tmp/rpd-1717000000.5-TP-0.trace.json"
# a name with an unescaped '"' (Kineto before pytorch/pytorch#146900, with_stack): the likely cause named
printf '%s\n' '{"traceEvents": [' \
  '{"ph": "X", "cat": "python_function", "name": "<eval_with_key>.5 {"device": "cpu"}(12): forward", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}' > "$tmp/quote.json"
expect_bad "unescaped quote" "^xp: $tmp/quote.json:2: event 0 \\(byte 85\\): expected ',' or '}': a string with an unescaped '\"' in it\\? \\(Kineto before pytorch/pytorch#146900" "$tmp/quote.json"

# the same file twice, by one name or two, or a copy of it: said so, before any is read and
# before a run begins (not "rank 0 again"), as nccl-tests and vllm-bench say it
runs_before=$(sql "SELECT count(*) FROM runs")
# one path twice is said as such: "a.json: given twice: the same contents as a.json" named one
# file as if it were two
one_line "the same file twice" 2 "$r0: given twice (one rank's trace would count twice)$" \
  "$XP" --db "$db" import torch-trace "$r0" "$r0"
one_line "the same file twice among others" 2 "$r0: given twice (one rank's trace would count twice)$" \
  "$XP" --db "$db" import torch-trace "$r0" "$r1" "$r0"
# a link is the file it links to (xp import stores each file's real path): one file twice
ln -s "$r0" "$tmp/r0_again.json.gz"
one_line "the same file by another name" 2 "$r0: given twice (one rank's trace would count twice)$" \
  "$XP" --db "$db" import torch-trace "$r0" "$r1" "$tmp/r0_again.json.gz"
ln "$r0" "$tmp/r0_hard.json.gz" 2>/dev/null || cp "$r0" "$tmp/r0_hard.json.gz"
one_line "a hard link" 2 "r0_hard.json.gz: given twice: the same contents as $r0 (one rank's trace would count twice)$" \
  "$XP" --db "$db" import torch-trace "$r0" "$tmp/r0_hard.json.gz"
cp "$r0" "$tmp/r0_copy.json.gz"
one_line "a copy" 2 "r0_copy.json.gz: given twice: the same contents as $r0 (one rank's trace would count twice)$" \
  "$XP" --db "$db" import torch-trace "$r0" "$tmp/r0_copy.json.gz"
check "the same file twice: no run recorded" "$runs_before" "$(sql "SELECT count(*) FROM runs")"

gzip -dc "$r1" | sed 's/"baseTimeNanoseconds": 1790857026000000000/"baseTimeNanoseconds": 1790850000000000000/' | gzip > "$tmp/later.json.gz"
expect_bad "ranks of different jobs (time)" "^xp: $tmp/later.json.gz: ranks of different jobs: its GPU activity .* does not overlap that of $r0" "$r0" "$tmp/later.json.gz"

gzip -dc "$r1" | sed 's/"world_size": 2/"world_size": 4/' | gzip > "$tmp/world4.json.gz"
expect_bad "ranks of different jobs (world size)" "^xp: $tmp/world4.json.gz: ranks of different jobs: world size 4, but $r0 has world size 2$" "$r0" "$tmp/world4.json.gz"

"$XP" --db "$db" import torch-trace "$tmp/nonexistent.json" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: missing file: exit $rc"; fail=1; }
grep -q 'nonexistent.json: cannot read: No such file or directory' "$tmp/err" || { echo "FAIL: missing file message"; cat "$tmp/err"; fail=1; }

check_runs=$(query "SELECT count(*) FROM runs WHERE status = 'ok'")
[ "$check_runs" = 0 ] || { echo "FAIL: an ok run among bad inputs"; fail=1; }
# A declared TP larger than the job the traces come from (distributedInfo.world_size = 2).
expect_bad "tp above the world size" "decode_tp2_bs1_rank0.trace.json.gz: tp=8 is declared, but the trace's job has 2 ranks" \
  "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" --set tp=8

finish
