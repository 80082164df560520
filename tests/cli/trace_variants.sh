#!/usr/bin/env bash
# The trace importer on what real traces hold beyond the shipped samples (tests/data/trace/
# variants/README.md): repeated Seq numbers and uneven all-to-alls pair across ranks, NaN and
# inf where no field xp reads holds them, External ids past 2^30, times past int64's reach,
# kernel names of the serving stacks.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"
q() { printf '%s\n' "$1" > "$tmp/q.sql"; "$XP" --db "$db" query "$tmp/q.sql" --format csv | tail -n +2; }

# a Seq number used twice in one group (collectives and point-to-point), and all_to_allv
run import torch-trace "$v/seqdup_r0.json.gz" "$v/seqdup_r1.json.gz"; expect_rc 0
has "collectives: 40 matched, 0 unmatched"
# show --format json carries the trace's own sections, as the table does
u=$(q "SELECT substr(uuid, 1, 8) FROM runs LIMIT 1")
run show "$u" --format json; expect_rc 0
has '"trace: steps (per rank)":'; has '"trace: collectives in steps":'
db="$tmp/a2a.db"
run import torch-trace "$v/a2av_r0.json.gz" "$v/a2av_r1.json.gz"; expect_rc 0
has "collectives: 40 matched, 0 unmatched"

# inf in an argument xp does not read: imported, with a warning that says so
db="$tmp/inf.db"
run import torch-trace "$v/kineto105_inf.json"; expect_rc 0
has "1 NaN or infinite value" "$tmp/err"
[ "$(q "SELECT linked_kernels FROM trace_ranks")" = 2 ] || die "kernel and memcpy linked to their operator"
# ... and where xp reads it, one line and exit 2
sed 's/"dur": 5,/"dur": nan,/' "$v/kineto105_inf.json" > "$tmp/nan_dur.json"
run import torch-trace "$tmp/nan_dur.json"; expect_rc 2
has "kernel event \"void foo_kernel()\" has no valid \"dur\"" "$tmp/err"

# a step annotated by a "B"/"E" pair (other writers than Kineto): paired, a step as its "X" is; a
# kernel whose "B" has no name and whose "E" names it: paired (a named "E" closes a "B" of its
# name or of none), named by its "E"; a "B" the profile cut off and an "E" with nothing open on its
# thread: left out, one line says so
db="$tmp/be.db"
printf '%s\n' '{"traceEvents": [' \
  '{"ph": "B", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 1000},' \
  '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1020, "dur": 30, "args": {"stream": 7}},' \
  '{"ph": "B", "cat": "kernel", "pid": 0, "tid": 9, "ts": 1030, "args": {"stream": 9}},' \
  '{"ph": "E", "cat": "kernel", "name": "named_at_end", "pid": 0, "tid": 9, "ts": 1042.5},' \
  '{"ph": "E", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 1100},' \
  '{"ph": "E", "pid": 10, "tid": 11, "ts": 1150},' \
  '{"ph": "B", "cat": "kernel", "name": "cut_kernel", "pid": 0, "tid": 7, "ts": 1160, "args": {"stream": 7}}]}' > "$tmp/step_be.json"
run import torch-trace "$tmp/step_be.json"; expect_rc 0
[ "$(cat "$tmp/err")" = "xp: warning: $tmp/step_be.json: 2 \"B\"/\"E\" events left out unpaired: 1 \"B\" with no \"E\" (a profile cut off?), 1 \"E\" with no \"B\" open on its thread" ] ||
  die "one line for the unpaired: $(cat "$tmp/err")"
[ "$(q "SELECT number || ':' || start_ns || ':' || wall_ns || ':' || kernels FROM trace_steps")" = "1:1000000:100000:2" ] ||
  die "the B/E step with its kernels: $(q "SELECT * FROM trace_steps")"
[ "$(q "SELECT group_concat(name || ':' || total_ns, ' ') FROM (SELECT * FROM trace_kernel_stats ORDER BY name)")" = "k:30000 named_at_end:12500" ] ||
  die "the kernel named by its E, the cut-off kernel left out: $(q "SELECT * FROM trace_kernel_stats")"

# a key both halves of a pair name is the "E"'s, as Chrome's viewer merges them (the end's args
# over the begin's), now that a key written twice counts by its last value
db="$tmp/be_args.db"
printf '%s\n' '{"traceEvents": [' \
  '{"ph": "B", "cat": "kernel", "name": "k", "pid": 0, "tid": 9, "ts": 1030, "args": {"stream": 9, "Collective name": "allgather"}},' \
  '{"ph": "E", "cat": "kernel", "pid": 0, "tid": 9, "ts": 1042.5, "args": {"Collective name": "allreduce"}}]}' > "$tmp/be_args.json"
run import torch-trace "$tmp/be_args.json"; expect_rc 0
[ "$(q "SELECT name || ':' || coll FROM trace_kernel_stats")" = "k:allreduce" ] ||
  die "a key both halves name, the E's: $(q "SELECT * FROM trace_kernel_stats")"

# be_steps.json writes steps, annotations, operators, launches, kernels and a copy as "B"/"E"
# pairs; be_steps_x.json the same events as "X": the same figures in every table, by each step rule.
# be_steps_str the pairs with each "E"'s pid and tid written as strings ("pid": "7"): one thread
# still, as a GPU activity's device and stream are read (and Perfetto reads them)
sed '/"ph": "E"/s/"pid": \([0-9]*\), "tid": \([0-9]*\)/"pid": "\1", "tid": "\2"/' "$v/be_steps.json" > "$tmp/be_steps_str.json"
[ "$(grep -c '"pid": "' "$tmp/be_steps_str.json")" = 18 ] || die "every E's pid a string: $(grep -c '"pid": "' "$tmp/be_steps_str.json")"
cp "$v/be_steps.json" "$v/be_steps_x.json" "$tmp/"
for by in "" decode_step 'overlap_*'; do
  for f in be_steps be_steps_x be_steps_str; do
    db="$tmp/$f${by:+_s}.db"; rm -f "$db"
    "$XP" --db "$db" import torch-trace "$tmp/$f.json" ${by:+--step-annotation "$by"} > /dev/null 2> "$tmp/err" ||
      die "$f.json by ${by:-ProfilerStep#N}: $(cat "$tmp/err")"
    [ ! -s "$tmp/err" ] || die "$f.json: no warning expected: $(cat "$tmp/err")"
    q "SELECT rank, kernels, memcpys, cpu_ops, linked_kernels, gpu_start_ns, gpu_end_ns, busy_ns, kernel_ns FROM trace_ranks;
       SELECT step, number, start_ns, wall_ns, gpu_start_ns, gpu_end_ns, kernels, kernel_ns, busy_ns FROM trace_steps ORDER BY step;
       SELECT name, count, total_ns, min_ns, max_ns FROM trace_kernel_stats ORDER BY name;
       SELECT * FROM trace_step_kernels ORDER BY 1, 2, 3, 4;
       SELECT * FROM trace_shapes ORDER BY 1, 2, 3, 4, 5" > "$tmp/$f.figures"
  done
  [ "$(wc -l < "$tmp/be_steps.figures")" -gt 10 ] || die "figures read: $(cat "$tmp/be_steps.figures")"
  for f in be_steps be_steps_str; do
    cmp -s "$tmp/$f.figures" "$tmp/be_steps_x.figures" ||
      die "$f (B/E) and X by ${by:-ProfilerStep#N}: $(diff "$tmp/$f.figures" "$tmp/be_steps_x.figures")"
  done
done
[ "$(q "SELECT group_concat(kernels || ':' || kernel_ns, '|') FROM trace_steps")" = "0:0|2:27500" ] ||
  die "overlap_a (1000-1200 us) and overlap_b (1100-1300), each to its own named E, aten::mm at 1200 in b: $(q "SELECT * FROM trace_steps")"

# an External id past 2^30 still links its kernels
db="$tmp/ext.db"
run import torch-trace "$v/bigext.json"; expect_rc 0
[ "$(q "SELECT linked_kernels FROM trace_ranks")" = 2 ] || die "External ids past 2^30 link"

# times whose sums would overflow int64: refused, nothing recorded as ok
db="$tmp/ovf.db"
run import torch-trace "$v/ovf_tsdur.json"; expect_rc 2
has "has no numeric \"ts\" within +-4e15 us" "$tmp/err"
run import torch-trace "$v/ovf_shift2.json"; expect_rc 2
has "baseTimeNanoseconds 9200000000000000000 is past the year 2096" "$tmp/err"
# each duration within the limit, but together past what a rank's sums may hold (1e16 ns)
run import torch-trace "$v/ovf_sum.json"; expect_rc 2
has 'ovf_sum.json:10: event 8 (byte 1256)' "$tmp/err"
has 'kernel event "nvjet_tst_64x8_64x16_4x1_v_bz_TNT" makes the GPU activities last more than 1e16 ns (116 days) together' "$tmp/err"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 0 ] || die "a refused trace was recorded ok"
# ... and so are GPU annotations' (stored as a negative total: their sum overflowed)
run import torch-trace "$v/ovf_annot_sum.json"; expect_rc 2
has 'ovf_annot_sum.json:5: event 3 (byte ' "$tmp/err"
has 'gpu_user_annotation event "attn" makes the GPU annotations last more than 1e16 ns (116 days) together' "$tmp/err"
[ "$(wc -l < "$tmp/err")" = 1 ] || die "more than one line for annotations past the limit"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 0 ] || die "a refused trace was recorded ok"

# --events keeps bad input bad input (a file given twice), not a database error
db="$tmp/ev.db"
run import torch-trace "$v/seqdup_r0.json.gz" "$v/seqdup_r0.json.gz" --events; expect_rc 2
has "seqdup_r0.json.gz: given twice (one rank's trace would count twice)" "$tmp/err"
# another file of the same rank (the trace compressed again: other bytes): read, then refused
gzip -dc "$v/seqdup_r0.json.gz" | gzip -1 > "$tmp/r0_copy.json.gz"
run import torch-trace "$v/seqdup_r0.json.gz" "$tmp/r0_copy.json.gz" --events; expect_rc 2
has "rank 0 again" "$tmp/err"
run import torch-trace "$v/seqdup_r0.json.gz" "$v/seqdup_r1.json.gz" --events; expect_rc 0
[ "$(q "SELECT group_concat(rank || ':' || n, ' ') FROM (SELECT rank, count(*) AS n FROM trace_events GROUP BY rank ORDER BY rank)")" = "0:20 1:20" ] ||
  die "events keep their ranks"
# ... under the file's one rank: a file of several GPUs (a rank each) is refused with one line and
# nothing kept, whichever read finds its devices: the first (twogpu_oneproc), a second where the
# order of events decided (merged_apart's and multinode_n0's processes share External ids), the
# read of "B"/"E" pairs (be_steps with step 1's kernels on device 1). Read again, such a file was
# split and its events all labelled with its first device's rank, the next file's with its second's
sed '/"pid": 0, "tid": 7, "ts": 17000000000012/{s/"pid": 0/"pid": 1/;s/"device": 0/"device": 1/}' "$v/be_steps.json" > "$tmp/be_twogpu.json"
db="$tmp/be_twogpu.db"
run import torch-trace "$tmp/be_twogpu.json"; expect_rc 0 # without --events: two ranks
[ "$(q "SELECT group_concat(device || ':' || kernels, ' ') FROM (SELECT * FROM trace_ranks ORDER BY device)")" = "0:3 1:2" ] ||
  die "be_twogpu.json is two devices' ranks: $(q "SELECT * FROM trace_ranks")"
for f in "$v/twogpu_oneproc.json.gz" "$v/merged_apart.json" "$tmp/be_twogpu.json" "$v/multinode_n0.json.gz $v/multinode_n1.json.gz"; do
  db="$tmp/ev_split.db"; rm -f "$db"
  run import torch-trace $f --events; expect_rc 2
  [ "$(wc -l < "$tmp/err")" = 1 ] || die "$f: one line: $(cat "$tmp/err")"
  case $f in *merged*|*multinode_n*) who="the file's processes" ;; *) who="one process" ;; esac
  has "xp: ${f%% *}: GPU activity on devices 0 and 1: $who drove several GPUs, and xp counts one GPU per rank, but --events keeps a file's events under one rank" "$tmp/err"
  [ "$(q "SELECT (SELECT count(*) FROM trace_events) || '|' || (SELECT count(*) FROM runs WHERE status = 'ok')")" = "0|0" ] ||
    die "$f: nothing kept: $(q "SELECT rank, count(*) FROM trace_events GROUP BY rank")"
done

# ... read with one process's CPU side (be_loader: a loader process beside the worker, as "B"/"E"
# pairs): an "E" that names no category is left out with its "B", another process's, as the
# figures leave the pair out; one of the worker's, or of its device's kernel, kept. Each "E" of the
# loader's was kept before
db="$tmp/be_loader.db"
run import torch-trace "$v/be_loader.json" --events; expect_rc 0
has "left out, of the events kept too: the rank's CPU side is that of pid 100" "$tmp/err"
[ "$(q "SELECT group_concat(pid || ph || ':' || n, ' ') FROM (SELECT pid, ph, count(*) AS n FROM trace_events GROUP BY pid, ph ORDER BY pid, ph)")" = \
  "0B:1 0E:1 100B:2 100E:2 100X:1" ] || die "be_loader.json --events: $(q "SELECT pid, ph, name, seq FROM trace_events")"
[ "$(q "SELECT events_kept || '|' || group_concat(seq, ' ') FROM (SELECT seq, (SELECT events_kept FROM trace_imports) AS events_kept FROM trace_events ORDER BY seq)")" = \
  "7|0 1 2 3 4 5 6" ] || die "be_loader.json --events: each kept once, by its place: $(q "SELECT seq FROM trace_events")"
# ... where that read is read again (aten::addmm under aten::mm's External id: every operator's
# time kept): each kept once still, where the read again kept the halves a second time (refused)
sed '/"name": "aten::mm"/a {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 100, "ts": 1105, "dur": 40, "args": {"External id": 1}},' \
  "$v/be_loader.json" > "$tmp/be_loader_ext.json"
db="$tmp/be_loader_ext.db"
run import torch-trace "$tmp/be_loader_ext.json" --events; expect_rc 0
[ "$(q "SELECT events_kept || '|' || group_concat(seq, ' ') FROM (SELECT seq, (SELECT events_kept FROM trace_imports) AS events_kept FROM trace_events ORDER BY seq)")" = \
  "8|0 1 2 3 4 5 6 7" ] || die "be_loader_ext.json --events: each kept once: $(q "SELECT seq FROM trace_events")"

# steps written as async spans ("b"/"e", paired per category, id and process): the same steps as
# the trace written with "X" (tests/unit/test_trace_order.c compares every figure); before, each
# half was a step annotation that is not complete, left out, and the whole window one step
db="$tmp/async.db"
run import torch-trace "$v/async_steps.json"; expect_rc 0
[ "$(q "SELECT group_concat(number || ':' || start_ns || '+' || wall_ns || ':' || kernels, ' ') FROM (SELECT * FROM trace_steps ORDER BY step)")" = \
  "0:1700000000000000000+1000000:1 1:1700000000001000000+1000000:2" ] || die "async steps: $(q "SELECT * FROM trace_steps")"
! grep -q "not complete" "$tmp/err" || die "async steps: $(cat "$tmp/err")"
# ... ProfilerStep#1's "e" gone: its "b" is left out, said, and step 0 stays
grep -v '"ph": "e", "cat": "user_annotation", "id": 2' "$v/async_steps.json" > "$tmp/async_open.json"
db="$tmp/async_open.db"
run import torch-trace "$tmp/async_open.json"; expect_rc 0
has "1 step annotation event not complete (\"ph\" other than \"X\", \"B\" and \"E\": an instant, an async \"b\" or \"e\" with no pair) left out" "$tmp/err"
[ "$(q "SELECT group_concat(number || ':' || kernels, ' ') FROM trace_steps")" = "0:1" ] || die "async step 0 alone: $(q "SELECT * FROM trace_steps")"

# the same job imported again with its ranks relabelled (--ranks) is the same job: it counts once
db="$tmp/relabel.db"
run import torch-trace "$v/seqdup_r0.json.gz" "$v/seqdup_r1.json.gz"; expect_rc 0
run import torch-trace "$v/seqdup_r0.json.gz" "$v/seqdup_r1.json.gz" --ranks 1,0; expect_rc 0
[ "$(q "SELECT run_id || '>' || by_run_id FROM trace_superseded")" = "1>2" ] || die "a relabelled re-import supersedes"
# ... but an import that marked no steps (a misspelt --step-annotation) supersedes nothing: it
# answers no query, and the job vanished from every one
run import torch-trace "$v/seqdup_r0.json.gz" "$v/seqdup_r1.json.gz" --step-annotation nosuch; expect_rc 0
[ "$(q "SELECT group_concat(run_id || '>' || by_run_id, ' ') FROM trace_superseded")" = "1>2" ] ||
  die "an import without steps supersedes nothing: $(q "SELECT * FROM trace_superseded")"
# ... while another trace that starts at the same instant with as many events is another job:
# SGLang's hook's rank 0 of the pair (other kernel and step names, the same times) imported alone
# is no copy of vLLM's (schema 32; schema 10 matched on those two numbers and hid it)
db="$tmp/twin.db"
run import torch-trace "$v/vllm_r0.json.gz" "$v/vllm_r1.json.gz" --step-annotation 'execute_context_*'; expect_rc 0
run import torch-trace "$v/sglang_tp0.json.gz" --step-annotation 'step[*'; expect_rc 0
[ "$(q "SELECT count(*) FROM trace_ranks a JOIN trace_ranks b ON b.run_id = 1 AND b.rank = 0
        AND b.gpu_start_ns = a.gpu_start_ns AND b.events = a.events WHERE a.run_id = 2")" = 1 ] ||
  die "the variants no longer agree on the first GPU start and event count: the test tests nothing"
[ "$(q "SELECT count(*) FROM trace_superseded")" = 0 ] ||
  die "another engine's trace is no copy: $(q "SELECT * FROM trace_superseded")"
# ... and SGLang's pair imported after it does count it once, its rank 0 the same
run import torch-trace "$v/sglang_tp0.json.gz" "$v/sglang_tp1.json.gz" --step-annotation 'step[*'; expect_rc 0
[ "$(q "SELECT group_concat(run_id || '>' || by_run_id, ' ') FROM trace_superseded")" = "2>3" ] ||
  die "a rank imported alone and with its job counts once: $(q "SELECT * FROM trace_superseded")"

# kernel names of the serving stacks
db="$tmp/names.db"
run import torch-trace "$v/names.json.gz"; expect_rc 0
cat_of() { q "SELECT category FROM trace_names WHERE name LIKE '$1' LIMIT 1"; }
[ "$(cat_of '_fwd_kernel')" = attention ] || die "SGLang's Triton attention: $(cat_of '_fwd_kernel')"
[ "$(cat_of '_decode_att_m_fwd_kernel')" = attention ] || die "SGLang decode attention"
[ "$(cat_of '%deep_ep::layout::get_dispatch_layout%')" = moe ] || die "DeepEP's layout is local MoE work"
[ "$(cat_of '%deep_ep::intranode::dispatch%')" = alltoall ] || die "DeepEP's dispatch"
[ "$(cat_of '%TopKTopPSamplingFromProbKernel%')" = sampling ] || die "FlashInfer sampling (cub:: in its arguments)"
[ "$(cat_of '%rotary_embedding_kernel%')" = elementwise ] || die "rotary embedding"
[ "$(cat_of '%cunn_SoftMaxForward<%')" = elementwise ] || die "softmax"
[ "$(cat_of '%RowwiseMomentsCUDAKernel%')" = norm ] || die "RowwiseMoments (layer and group norm)"
[ "$(q "SELECT count(*) FROM trace_names WHERE category = 'other'")" -le 4 ] ||
  die "names left in other: $(q "SELECT name FROM trace_names WHERE category = 'other'")"
# ends written seconds late (ROCm, AMD-AGI/TraceLens#669): a kernel and a copy that outlast the
# next activity on their stream end where it starts, said in one line; the figures count that
db="$tmp/overrun.db"
run import torch-trace "$v/overrun_rocm.json"; expect_rc 0
has "2 GPU activities outlast the next one on their stream" "$tmp/err"
has "4749.000 ms left out in all (the most, 3149.000 ms, of Memcpy DtoH (Device -> Host))" "$tmp/err"
[ "$(q "SELECT total_ns FROM trace_kernel_stats WHERE name = 'attn_fwd.kd'")" = 658460039 ] ||
  die "attention kernels: $(q "SELECT total_ns FROM trace_kernel_stats WHERE name = 'attn_fwd.kd'")"
[ "$(q "SELECT kernel_ns || ' ' || busy_ns FROM trace_ranks")" = "659720039 658459824" ] ||
  die "rank's kernel and busy time: $(q "SELECT kernel_ns, busy_ns FROM trace_ranks")"
# its HIP runtime's version, as a CUDA trace's cuda_runtime_version is kept
[ "$(q "SELECT value FROM run_meta WHERE key = 'trace.hip_runtime_version' AND source = 'trace'")" = 70125424 ] ||
  die "HIP runtime version: $(q "SELECT key, value FROM run_meta WHERE key LIKE 'trace.%'")"
# a GPU whose deviceProperties name is empty (Kineto writes hipGetDeviceProperties' name, which
# ROCm leaves empty on some GPUs): no GPU name, where the run was filed under a GPU named ''
db="$tmp/noname.db"
sed 's/"name": "AMD Instinct MI300X"/"name": ""/g' "$v/overrun_rocm.json" > "$tmp/noname.json"
run import torch-trace "$tmp/noname.json"; expect_rc 0
[ "$(q "SELECT quote(gpu_name) || ' ' || quote(device_name) FROM runs, trace_ranks")" = "NULL NULL" ] ||
  die "empty device name: $(q "SELECT quote(gpu_name), quote(device_name) FROM runs, trace_ranks")"
# ranks on two hosts whose clocks are 5 s apart: one job, and the waiting split on one clock
db="$tmp/hosts.db"
run import torch-trace "$v/hosts_skew_r0.json" "$v/hosts_skew_r1.json"; expect_rc 0
has "each host's clock set to the reference rank's"
[ "$(q "SELECT group_concat(rank || ':' || wait_ns || '/' || transfer_ns, ' ') FROM (SELECT * FROM trace_collectives ORDER BY rank)")" = \
  "0:40000/10000 1:0/10000" ] || die "cross-host split: $(q "SELECT rank, wait_ns, transfer_ns FROM trace_collectives")"
# a CUDA graph's all-reduce on two ranks as PyTorch 2.12's torch.cuda._annotate_cuda_graph_trace
# leaves it, annotated as the CUDA graph annotations tutorial's annotate_collective() does
# (cugraph_comms.py): no "Collective name", "Seq" or "Rank"; the counts and group size written as
# strings ("1048576"), the dtype as torch spells it ("float32", not "Float"), on the lane 60 the
# annotation names. Named by the kernel, 4 MiB each, in its launch's step, matched by process group
# and time (no test had quoted counts or "float32")
db="$tmp/cugraph_comms.db"
run import torch-trace "$v/cugraph_comms_r0.json" "$v/cugraph_comms_r1.json"; expect_rc 0
has "collectives: 4 matched, 0 unmatched"
[ "$(q "SELECT group_concat(rank || ':' || step || ':' || collective || ':' || dtype || ':' || in_bytes || ':' || out_bytes || ':' || group_size || ':' || stream || ':' || wait_ns, ' ') FROM (SELECT * FROM trace_collective_kernels ORDER BY rank, seq)")" = \
  "0:0:allreduce:float32:4194304:4194304:2:60:15000 0:1:allreduce:float32:4194304:4194304:2:60:15000 1:0:allreduce:float32:4194304:4194304:2:60:0 1:1:allreduce:float32:4194304:4194304:2:60:0" ] ||
  die "graphed collectives: $(q "SELECT * FROM trace_collective_kernels")"
# ... and each rank's all-reduce sized by the dtype as eager traces spell it ("Float8_e4m3fn", the
# float8 all-gathers of FSDP2), as torch does ("complex64", which the tutorial's str(dtype) writes,
# and "float4_e2m1fn_x2": a byte an element), and, without a "dtype", as an older NCCL kernel name
# does ("..._Sum_int8_t"). Before: no bytes for any of them (a name with "_" matched none).
# Each is stored under torch's name, str(dtype) without "torch.": eager c10d's "Float" is the
# graphed trace's "float32", one type in a GROUP BY dtype (before: stored as written, "Float",
# "Float8_e4m3fn", "int8_t")
for d in Float8_e4m3fn:1048576:float8_e4m3fn complex64:8388608:complex64 float4_e2m1fn_x2:1048576:float4_e2m1fn_x2 \
         name:1048576:int8 Float:4194304:float32; do
  IFS=: read -r spelt bytes stored <<< "$d"
  db="$tmp/cugraph_$spelt.db"
  for r in 0 1; do
    if [ "$spelt" = name ]; then
      sed 's/"dtype": "float32", //; s/ncclDevKernel_AllReduce_Sum_f32_RING_LL([^"]*)/ncclKernel_AllReduce_RING_LL_Sum_int8_t(ncclWorkElem)/' \
        "$v/cugraph_comms_r$r.json" > "$tmp/dt_r$r.json"
    else
      sed "s/\"dtype\": \"float32\"/\"dtype\": \"$spelt\"/" "$v/cugraph_comms_r$r.json" > "$tmp/dt_r$r.json"
    fi
  done
  run import torch-trace "$tmp/dt_r0.json" "$tmp/dt_r1.json"; expect_rc 0
  [ "$(q "SELECT group_concat(DISTINCT in_bytes || '/' || out_bytes) FROM trace_collectives")" = "$bytes/$bytes" ] ||
    die "$spelt: bytes: $(q "SELECT dtype, in_nelems, in_bytes FROM trace_collectives")"
  [ "$(q "SELECT group_concat(DISTINCT dtype) FROM trace_collectives")" = "$stored" ] ||
    die "$spelt: stored as: $(q "SELECT DISTINCT dtype FROM trace_collectives")"
done
# ... so eager "Float" and graphed "float32" runs in one database are one dtype
run import torch-trace "$v/cugraph_comms_r0.json" "$v/cugraph_comms_r1.json"; expect_rc 0
[ "$(q "SELECT group_concat(dtype || ':' || n, ' ') FROM (SELECT dtype, count(*) AS n FROM trace_collectives GROUP BY dtype)")" = "float32:8" ] ||
  die "eager Float and graphed float32: one dtype: $(q "SELECT dtype, count(*) FROM trace_collectives GROUP BY dtype")"
# PyTorch 2.12's export_chrome_trace writes "ts": 0 and "dur": 0 for most events of a trace's
# second half (pytorch/pytorch#188481): where the trace's other times are far from 0 they are left
# out, every side's, said in one line and kept in the run's metadata; the figures are the timed
# first half's (tests/unit/test_trace_order.c has them in every order). Before: ok and silent,
# 4 kernels, its window and steps stretched back to 0
db="$tmp/untimed.db"
run import torch-trace "$v/untimed_half.json"; expect_rc 0
has "xp: warning: $v/untimed_half.json: 9 CPU events (operators, annotations, launches) and 3 GPU activities written with no time, \"ts\": 0 and \"dur\": 0 where the trace's other times are far from 0 (PyTorch 2.12's export_chrome_trace, pytorch/pytorch#188481), left out: the window, steps and figures are the timed events'" "$tmp/err"
[ "$(grep -c . "$tmp/err")" = 1 ] || die "untimed events: one line: $(cat "$tmp/err")"
[ "$(q "SELECT value FROM run_meta WHERE key = 'trace.untimed_events' AND source = 'trace'")" = 12 ] ||
  die "untimed events in the run's metadata: $(q "SELECT key, value FROM run_meta")"
[ "$(q "SELECT kernels || ' ' || gpu_start_ns || ' ' || gpu_end_ns FROM trace_ranks")" = "2 1700000000000150000 1700000000001470000" ] ||
  die "untimed events: the timed half's figures: $(q "SELECT * FROM trace_ranks")"
[ "$(q "SELECT group_concat(number || ':' || kernels, ' ') FROM (SELECT * FROM trace_steps ORDER BY step)")" = "0:1 1:2" ] ||
  die "untimed events: the timed steps: $(q "SELECT * FROM trace_steps")"
# ... and --events keeps each of them with no time (ts_ns and dur_ns NULL), where they were stored
# as written, at 0: every trace_events window of the run began at 1970
db="$tmp/untimed_ev.db"
run import torch-trace "$v/untimed_half.json" --events; expect_rc 0
[ "$(q "SELECT count(*) || ' ' || sum(ts_ns IS NULL) || ' ' || sum(dur_ns IS NULL) || ' ' || min(ts_ns) FROM trace_events")" = "23 12 12 1700000000000000000" ] ||
  die "untimed events kept with no time: $(q "SELECT count(*), sum(ts_ns IS NULL), sum(ts_ns = 0), min(ts_ns) FROM trace_events")"
[ "$(q "SELECT events_kept FROM trace_imports")" = 23 ] || die "untimed events: every event kept: $(q "SELECT events_kept FROM trace_imports")"
# ... but where the trace's times are near 0 anyway (relative times, from 10 ms), "ts": 0 is a time
sed 's/"ts": 170000000000/"ts": 1/' "$v/untimed_half.json" > "$tmp/untimed_rel.json"
db="$tmp/untimed_rel.db"
run import torch-trace "$tmp/untimed_rel.json"; expect_rc 0
hasnt "no time" "$tmp/err"
[ "$(q "SELECT count(*) FROM run_meta WHERE key = 'trace.untimed_events'")" = 0 ] || die "relative times: no untimed events"
[ "$(q "SELECT kernels FROM trace_ranks")" = 4 ] || die "relative times: every activity kept: $(q "SELECT * FROM trace_ranks")"
# the ProfilerStep#N that profile.step() opens after a loop's last step and stop() closes (a loop
# that ends inside the schedule's active steps, torch/profiler/profiler.py): a step with nothing on
# the GPU, said, and left out of show's means as the queries leave it out (40 us, not 26.7)
db="$tmp/after_loop.db"
run import torch-trace "$v/step_after_loop.json"; expect_rc 0
has "3 steps (1 with no GPU activity)"
u=$(q "SELECT substr(uuid, 1, 8) FROM runs LIMIT 1")
"$XP" --db "$db" show "$u" --format json > "$tmp/show.json" || die "show after_loop"
python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["trace: steps (per rank)"]))' < "$tmp/show.json" > "$tmp/out"
has '"steps": 3, "no_gpu": 1, "first": 2, "last": 4, "kernel_us_mean": 40, "busy_us_mean": 40'
echo "ok: trace variants"
