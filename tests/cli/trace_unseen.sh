#!/usr/bin/env bash
# Traces of shapes the shipped samples lack, cut from the samples' own events
# (tests/data/trace/variants/README.md says how):
#   - one process that drove two GPUs (single-process tensor or pipeline parallelism), its
#     kernels under pids 0 and 1 of one file: a rank is one GPU to xp, so each device becomes a
#     rank of its own rather than add the two devices' times up as one GPU's; the trace names no
#     rank: numbered by device (tests/cli/trace_ranks.sh has several such files), and a rank
#     given for the file is the first device's, where it was refused;
#   - CUDA graph replays launched through the driver API (cuGraphLaunch, a cuda_driver event):
#     the kernels carry only the launch's correlation, and run well after the step's CPU window
#     on a rank that waits for its peer; the launch's CPU time puts each in its step;
#   - every "ts" and "dur" written as a string ("5131127428461.376"), as some exporters write
#     times: read as the numbers, where each GPU event was refused;
#   - a rank whose trace holds peer copies ("Memcpy PtoP") that CUPTI filed under the peer GPU:
#     the process drove one GPU (its kernels ran on one), so the copies stay the rank's, where
#     the trace was refused as one process driving two GPUs;
#   - the same beside a process that drove two GPUs (twogpu_peer): the copies' GPU is no rank
#     of its own (it was a third rank of copies only, here refused as another job's for the
#     short window of its copies; otherwise the world was three ranks), and which of
#     the two GPUs made them the trace does not say: left out, and said;
#   - one GPU, all its launches one process's (pid 100, on two threads), beside operators and a
#     ProfilerStep#0 of two other processes (a data loader, a tokenizer profiled beside the
#     worker) under the worker's External ids: the rank is the worker's alone, said, where it
#     counted their operators, took its step from 900 us and linked the gemm to aten::to;
#   - two files of one rank profiled at different times (a schedule with repeat writes a file
#     per cycle): refused with a line that says so, where it only said 'rank 0 again'.
#   - one process whose "pid" the trace writes as 100 on some events and "100" on others: one
#     process, wherever pids are compared (the launching process, the CPU side a read keeps,
#     the owner of a device in a merged file), where the quoted one was another process.
set -u
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"

"$XP" --db "$db" import torch-trace "$v/twogpu_oneproc.json.gz" > /dev/null 2> "$tmp/err"
check "two GPUs in one trace: exit" 0 $?
check "two GPUs in one trace: warned" "xp: warning: $v/twogpu_oneproc.json.gz: GPU activity on 2 devices (one process drove several GPUs): each is a rank of its own
xp: warning: $v/twogpu_oneproc.json.gz: no distributedInfo.rank in the trace: device 1 is rank 1, as the record_param_comms of the device's own collectives name it
xp: warning: $v/twogpu_oneproc.json.gz: no rank in the trace for one of its devices, as the file has no distributedInfo and no record_param_comms of the device's own collectives names one: numbered in the order the files were given, then by device, with the lowest ranks no other trace names (--ranks gives a file's first): device 0 is rank 0" "$(cat "$tmp/err")"
# the file's GPU events: 12 kernels on pid 0 summing to 16.608 us, 12 on pid 1 to 46071.727 us
check "two GPUs in one trace: a rank per device" "0,0,2,12,16608
1,1,2,12,46071727" "$(query "SELECT rank, device, world_size, kernels, kernel_ns FROM trace_ranks ORDER BY rank")"
check "two GPUs in one trace: device 0's steps" "0,6,8223
1,6,8385" "$(query "SELECT step, kernels, kernel_ns FROM trace_steps WHERE rank = 0 ORDER BY step")"
"$XP" --db "$tmp/r.db" import torch-trace "$v/twogpu_oneproc.json.gz" --rank 3 > /dev/null 2>&1
check "two GPUs in one trace, a rank given: exit" 0 $?
check "two GPUs in one trace, a rank given: the first device's" "3,0,option
4,1,option" "$(db="$tmp/r.db" query "SELECT rank, device, rank_source FROM trace_ranks ORDER BY rank")"

db="$tmp/graph.db" # a database of its own: the queries below read every run
"$XP" --db "$db" import torch-trace "$v/cugraph_r1.json.gz" > /dev/null 2> "$tmp/err"
check "cuGraphLaunch: exit" 0 $?
# 400 kernels replayed in each of the two steps, every one in its step
check "cuGraphLaunch: kernels per step" "0,400
1,400" "$(query "SELECT step, kernels FROM trace_steps ORDER BY step")"
check "cuGraphLaunch: every kernel's time in a step" "$(query "SELECT kernel_ns FROM trace_ranks")" \
  "$(query "SELECT sum(kernel_ns) FROM trace_steps")"
check "cuGraphLaunch: every all-reduce in a step" "38|0" \
  "$(query "SELECT count(*) || '|' || count(*) FILTER (WHERE step IS NULL) FROM trace_collectives")"

db="$tmp/tsstr.db"
"$XP" --db "$db" import torch-trace "$v/tsstr.json.gz" > /dev/null 2> "$tmp/err"
check "times as strings: exit" 0 $?
# the same figures as twogpu_oneproc's device 0, whose events these are with the times quoted
check "times as strings: rank" "0,12,16608" "$(query "SELECT device, kernels, kernel_ns FROM trace_ranks")"
check "times as strings: steps" "2,6,8223
3,6,8385" "$(query "SELECT number, kernels, kernel_ns FROM trace_steps ORDER BY step")"

db="$tmp/peer.db"
"$XP" --db "$db" import torch-trace "$v/peercopy_r0.json.gz" > "$tmp/out" 2> "$tmp/err"
check "peer copies on another GPU: exit" 0 $?
# the rank's line counts its copies apart from its kernels (it said "15 kernels")
check "peer copies on another GPU: summary" "rank 0  peercopy_r0.json.gz: 12 kernels, 3 copies, 2 steps" \
  "$(grep -o '^rank 0  peercopy_r0.json.gz: [^G]*steps' "$tmp/out")"
check "peer copies on another GPU: warned" "xp: warning: $v/peercopy_r0.json.gz: 3 copies on another GPU (device 1) that ran no kernel (peer copies): counted as the rank's, on device 0" "$(cat "$tmp/err")"
# 12 kernels on device 0 (16608 ns) and three 3.104 us copies, each launched in a step's operator
check "peer copies on another GPU: one rank, its kernels' device" "0,0,12,3,25920" \
  "$(query "SELECT rank, device, kernels, memcpys, kernel_ns FROM trace_ranks")"
check "peer copies on another GPU: steps" "2,8,14431
3,7,11489" "$(query "SELECT number, kernels, kernel_ns FROM trace_steps ORDER BY step")"

db="$tmp/twopeer.db"
"$XP" --db "$db" import torch-trace "$v/twogpu_peer.json.gz" > /dev/null 2> "$tmp/err"
check "peer copies beside two GPUs: exit" 0 $?
check "peer copies beside two GPUs: the two GPUs' ranks only" "0,0,2,12,0,16608
1,1,2,12,0,46071727" "$(query "SELECT rank, device, world_size, kernels, memcpys, kernel_ns FROM trace_ranks ORDER BY rank")"
check "peer copies beside two GPUs: the copies left out, said" "xp: warning: $v/twogpu_peer.json.gz: 2 copies on GPUs that ran no kernel (peer copies) left out: the trace does not say which of the process's GPUs made them" "$(sed -n 2p "$tmp/err")"

# cycle2_r0 is peercopy_r0's rank 0 without its copies, 2 s later: another cycle of the rank
"$XP" --db "$tmp/cycles.db" import torch-trace "$v/peercopy_r0.json.gz" "$v/cycle2_r0.json.gz" > /dev/null 2> "$tmp/err"
check "one rank's two cycles: exit" 2 $?
check "one rank's two cycles: refused" "xp: $v/cycle2_r0.json.gz: rank 0 again, profiled at another time ($v/peercopy_r0.json.gz is rank 0 too, and their GPU activity does not overlap): a profiler schedule writes each cycle to a file of its own; import each cycle's files as a run of its own" "$(sed -n 2p "$tmp/err")"
check "one rank's two cycles: one line after the copies' warning" 2 "$(wc -l < "$tmp/err")"
# the same two as SGLang's --profile-by-stage names a rank's stages (python/sglang/srt/utils/
# profile_utils.py at 0114448, _ProfilerTorch.stop: "{profile_id}-TP-{tp}{-stage}.trace.json.gz"):
# said as stages, not as a schedule's cycles
cp "$v/peercopy_r0.json.gz" "$tmp/1717000000.5-TP-0-prefill.trace.json.gz"
cp "$v/cycle2_r0.json.gz" "$tmp/1717000000.5-TP-0-decode.trace.json.gz"
"$XP" --db "$tmp/stages.db" import torch-trace "$tmp/1717000000.5-TP-0-prefill.trace.json.gz" \
  "$tmp/1717000000.5-TP-0-decode.trace.json.gz" > /dev/null 2> "$tmp/err"
check "one rank's two SGLang stages: exit" 2 $?
check "one rank's two SGLang stages: refused" "xp: $tmp/1717000000.5-TP-0-decode.trace.json.gz: rank 0 again, profiled at another time ($tmp/1717000000.5-TP-0-prefill.trace.json.gz is rank 0 too, and their GPU activity does not overlap): SGLang's --profile-by-stage writes each stage to a file of its own (-prefill, -decode); import each stage's files as a run of its own" "$(sed -n 2p "$tmp/err")"

# A named rank (distributedInfo.rank 0) with one stray kernel on another GPU (a context made
# on cuda:3 before set_device): read on its main device, the stray left out and said; the
# rank's figures are the sample's own. Activity spread over devices under one rank is a rank
# per device, from the one named (above, and tests/cli/trace_ranks.sh).
sample="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
stray='{"ph": "X", "cat": "kernel", "name": "stray_probe_kernel", "pid": 3, "tid": 7, "ts": 5131127428570.0, "dur": 2.0, "args": {"device": 3, "stream": 7, "correlation": 999999999}},'
zcat "$sample" | sed "0,/\"traceEvents\": \[/s//\"traceEvents\": [ $stray/" | gzip > "$tmp/stray_r0.json.gz"
db="$tmp/stray.db"
"$XP" --db "$db" import torch-trace "$tmp/stray_r0.json.gz" > /dev/null 2> "$tmp/err"
check "stray kernel on another GPU: exit" 0 $?
check "stray kernel on another GPU: said" "xp: warning: $tmp/stray_r0.json.gz: GPU activity on 2 devices under one rank: read on device 0, which ran 5312 of 5313 kernels; 1 activity on the other devices left out (1 kernel)" "$(cat "$tmp/err")"
"$XP" --db "$tmp/plain.db" import torch-trace "$sample" > /dev/null 2>&1
check "stray kernel on another GPU: the rank's own figures" \
  "$(db="$tmp/plain.db" query "SELECT rank, device, kernels, kernel_ns FROM trace_ranks")" \
  "$(query "SELECT rank, device, kernels, kernel_ns FROM trace_ranks")"
check "stray kernel on another GPU: not counted" 0 "$(query "SELECT count(*) FROM trace_kernel_stats s
  JOIN trace_names n ON n.id = s.name_id WHERE n.name = 'stray_probe_kernel'")"
# ... and with --events, where it was refused as a file of several GPUs though it is one rank:
# the same rank and figures, and its events those of the rank's device, the stray left out of
# them as of the figures (the sample's own events, every one)
db="$tmp/stray_events.db"
"$XP" --db "$db" import torch-trace "$tmp/stray_r0.json.gz" --events > /dev/null 2> "$tmp/err"
check "stray kernel, --events: exit" 0 $?
check "stray kernel, --events: said" "xp: warning: $tmp/stray_r0.json.gz: GPU activity on 2 devices under one rank: read on device 0, which ran 5312 of 5313 kernels; 1 activity on the other devices left out (1 kernel), of the events kept too" "$(cat "$tmp/err")"
check "stray kernel, --events: the figures without it" \
  "$(db="$tmp/stray.db" query "SELECT rank, device, kernels, kernel_ns FROM trace_ranks")" \
  "$(query "SELECT rank, device, kernels, kernel_ns FROM trace_ranks")"
"$XP" --db "$tmp/plain_events.db" import torch-trace "$sample" --events > /dev/null 2>&1
# (times are epoch ns: their plain sum overflows, and an empty answer on both sides would pass)
ev_sql="SELECT rank, count(*), min(ts_ns), max(ts_ns), sum(ts_ns % 1000000007), (SELECT events_kept FROM trace_imports) FROM trace_events GROUP BY rank"
want=$(db="$tmp/plain_events.db" query "$ev_sql")
[ -n "$want" ] || die "stray kernel, --events: the sample's events: no answer"
check "stray kernel, --events: the sample's events, under its rank" "$want" "$(query "$ev_sql")"
check "stray kernel, --events: the stray not kept" 0 "$(query "SELECT count(*) FROM trace_events WHERE name = 'stray_probe_kernel'")"
# One GPU launched by pid 100; pids 300 and 400 wrote operators and a ProfilerStep#0 from 900 us,
# their External ids the worker's (tests/data/trace/variants/README.md, loader_proc.json)
db="$tmp/loader.db"
"$XP" --db "$db" import torch-trace "$v/loader_proc.json" > /dev/null 2> "$tmp/err"
check "a loader process beside the worker: exit" 0 $?
check "a loader process beside the worker: said" "xp: warning: $v/loader_proc.json: operators and annotations of 2 processes that made no GPU launch (a data loader's, profiled beside the GPU worker?) left out: the rank's CPU side is that of pid 100, which made every launch" "$(cat "$tmp/err")"
check "a loader process beside the worker: the worker's operators" "2,2,2" \
  "$(query "SELECT cpu_ops, kernels, linked_kernels FROM trace_ranks")"
check "a loader process beside the worker: the worker's step" "0,1000000,1000000,2" \
  "$(query "SELECT number, start_ns, wall_ns, kernels FROM trace_steps")"
check "a loader process beside the worker: each kernel its operator's" "add_kernel,aten::add,1
gemm_kernel,aten::mm,1" "$(query "SELECT n.name, s.op, s.count FROM trace_shapes s
  JOIN trace_names n ON n.id = s.name_id ORDER BY n.name")"
# ... with --events: the same figures, and the others' events left out of them as of the figures
db="$tmp/loader_events.db"
"$XP" --db "$db" import torch-trace "$v/loader_proc.json" --events > /dev/null 2> "$tmp/err"
check "a loader process, --events: exit" 0 $?
check "a loader process, --events: said" "xp: warning: $v/loader_proc.json: operators and annotations of 2 processes that made no GPU launch (a data loader's, profiled beside the GPU worker?) left out, of the events kept too: the rank's CPU side is that of pid 100, which made every launch" "$(cat "$tmp/err")"
check "a loader process, --events: the figures without it" \
  "$(db="$tmp/loader.db" query "SELECT rank, cpu_ops, linked_kernels, steps FROM trace_ranks")" \
  "$(query "SELECT rank, cpu_ops, linked_kernels, steps FROM trace_ranks")"
# 13 events: the worker's 5, the device's 3, the "Spans" window; none of pids 300 and 400
check "a loader process, --events: the worker's events, once" "0,9,0" \
  "$(query "SELECT rank, count(*), count(*) FILTER (WHERE pid IN (300, 400)) FROM trace_events GROUP BY rank")"

# One process, its pid written 100 and "100" (tests/data/trace/variants/README.md, pid_str.json):
# its step, both operators and the warm-up kernel launched before the trace, nothing said
db="$tmp/pidstr.db"
"$XP" --db "$db" import torch-trace "$v/pid_str.json" > "$tmp/out" 2> "$tmp/err"
check "a pid as 100 and \"100\": exit" 0 $?
check "a pid as 100 and \"100\": nothing said" "" "$(cat "$tmp/err")"
check "a pid as 100 and \"100\": its operators and step" "2,2|0,1000000,2" \
  "$(query "SELECT cpu_ops, linked_kernels FROM trace_ranks")|$(query "SELECT number, start_ns, kernels FROM trace_steps")"
check "a pid as 100 and \"100\": the warm-up kernel launched before the trace" 1 \
  "$(grep -c '^  1 launched before the profiler began recording' "$tmp/out")"
# ... its first launch's pid "100" too: one process made every launch, whose ids number the kernels'
sed '0,/"cudaLaunchKernel", "pid": 100/s//"cudaLaunchKernel", "pid": "100"/' "$v/pid_str.json" > "$tmp/pid_str_launch.json"
"$XP" --db "$tmp/pidstr_launch.db" import torch-trace "$tmp/pid_str_launch.json" > "$tmp/out" 2> "$tmp/err"
check "a launch's pid \"100\": exit and nothing said" "0|" "$?|$(cat "$tmp/err")"
check "a launch's pid \"100\": the warm-up kernel launched before the trace" 1 \
  "$(grep -c '^  1 launched before the profiler began recording' "$tmp/out")"
# Two processes merged into one file (order_procs.json), pid 100's launches written "100": each
# device its own process's operators and steps, as with 100 throughout
figures_sql="SELECT group_concat(rank || ':' || device || ':' || cpu_ops || ':' || linked_kernels, ' ') FROM trace_ranks;
  SELECT group_concat(rank || ':' || step || ':' || kernels, ' ') FROM (SELECT * FROM trace_steps ORDER BY rank, step)"
"$XP" --db "$tmp/procs.db" import torch-trace "$v/order_procs.json" > /dev/null 2>&1
want=$(db="$tmp/procs.db" query "$figures_sql")
[ -n "$want" ] || die "order_procs.json: no figures"
sed '/cuda_runtime/s/"pid": 100,/"pid": "100",/' "$v/order_procs.json" > "$tmp/procs_q.json"
"$XP" --db "$tmp/procs_q.db" import torch-trace "$tmp/procs_q.json" > /dev/null 2>&1
check "two processes, one's launches' pid quoted: each device its own process's" "$want" \
  "$(db="$tmp/procs_q.db" query "$figures_sql")"
finish
