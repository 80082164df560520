#!/usr/bin/env bash
# Files of several GPUs from several nodes (tests/data/trace/variants/README.md, multinode_*):
# each file's devices were numbered by their device, so node 0's and node 1's GPUs were all
# ranks 0 and 1 ("rank 0 again"), and a file whose trace names a rank (distributedInfo) was
# refused, with no option to number them. Now a device's rank is the rank given for its file
# (the first), else its process's rank in the job (distributedInfo.rank times the process's GPUs
# plus the GPU's place, as c10d numbered them; in a merged file, the rank each process's
# record_param_comms name), else the files' order, then the devices'. Every way of writing the
# job gives the figures of its one-file-per-GPU import: ranks, kernels per step, the waiting in
# collectives paired across hosts by Seq within their process groups. A file of one GPU whose trace
# has no distributedInfo takes its rank from its record_param_comms the same way (and the world's
# size from its default group's calls); where they name no rank, or two, it is still refused.
set -u
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"

# per rank: its device, kernels per step (count:ns) and each collective's wait/transfer (ns)
figures() {
  query "SELECT r.rank, r.device, r.kernels,
    (SELECT group_concat(kernels || ':' || kernel_ns, '|') FROM (SELECT * FROM trace_steps s
      WHERE s.run_id = r.run_id AND s.rank = r.rank ORDER BY step)) AS steps,
    (SELECT group_concat(wait_ns || '/' || transfer_ns, ' ') FROM (SELECT * FROM trace_collectives c
      WHERE c.run_id = r.run_id AND c.rank = r.rank ORDER BY start_ns)) AS waits
    FROM trace_ranks r WHERE r.run_id = (SELECT max(id) FROM runs) ORDER BY r.rank"
}
sources() { query "SELECT group_concat(rank_source || ':' || coalesce(world_size, '-'), ' ') FROM
  (SELECT * FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs) ORDER BY rank)"; }
imp() { "$XP" --db "$db" import torch-trace "$@" > /dev/null 2> "$tmp/err"; }

# the job as one file per GPU: the figures every other way must give
imp "$v"/multinode_r{0,1,2,3}.json.gz
check "one file per GPU: exit" 0 $?
want=$(figures)
check "one file per GPU: figures" "0,0,6,3:130000|3:130000,10000/40000 30000/30000 10000/40000 30000/30000
1,1,6,3:111000|3:111000,0/40000 20000/30000 0/40000 20000/30000
2,0,6,3:112000|3:112000,10000/40000 10000/30000 10000/40000 10000/30000
3,1,6,3:93000|3:93000,0/40000 0/30000 0/40000 0/30000" "$want"

# each node's two processes merged into one file (the first process's distributedInfo kept):
# each device has its process's rank, as its record_param_comms name it, whatever the files' order
for order in "n0 n1" "n1 n0"; do
  set -- $order
  imp "$v/multinode_$1.json.gz" "$v/multinode_$2.json.gz"
  check "merged processes, $order: exit" 0 $?
  check "merged processes, $order: figures" "$want" "$(figures)"
  check "merged processes, $order: sources" "comms:4 comms:4 comms:4 comms:4" "$(sources)"
done
check "merged processes: said" "xp: warning: $v/multinode_n0.json.gz: GPU activity on 2 devices, launched by several processes: each device is a rank of its own, with the CPU side of the process that launched its work; each the rank of its process, as that process's record_param_comms name it" "$(sed -n 2p "$tmp/err")"

# one process per node driving both GPUs, distributedInfo rank 0 and 1 of 2: ranks 2 * rank + i
imp "$v/multinode_1p0.json.gz" "$v/multinode_1p1.json.gz"
check "one process per node: exit" 0 $?
check "one process per node: figures" "$want" "$(figures)"
check "one process per node: sources, world of the GPUs" "trace:4 trace:4 trace:4 trace:4" "$(sources)"
check "one process per node: said" "xp: warning: $v/multinode_1p1.json.gz: GPU activity on 2 devices (one process drove several GPUs): each is a rank of its own: ranks 2 to 3 (distributedInfo.rank 1 times 2 devices, then each device's place, as c10d numbered a process's GPUs)" "$(sed -n 2p "$tmp/err")"

# a key given twice in distributedInfo: the last counts, as json.load reads it (it read the first)
zcat "$v/multinode_1p1.json.gz" | sed 's/"rank": 1, "world_size"/"rank": 0, "rank": 1, "world_size"/' > "$tmp/1p1_twice.json"
imp "$v/multinode_1p0.json.gz" "$tmp/1p1_twice.json"
check "distributedInfo rank given twice: exit" 0 $?
check "distributedInfo rank given twice: the last counts" "$want" "$(figures)"

# no rank in the traces: numbered in the order the files were given, then by device
for n in 0 1; do
  zcat "$v/multinode_1p$n.json.gz" | sed 's/"distributedInfo": {[^}]*}, //' > "$tmp/1p$n.json"
  zcat "$v/multinode_n$n.json.gz" | sed 's/"distributedInfo": {[^}]*}, //' | grep -v record_param_comms > "$tmp/n$n.json"
done
imp "$tmp/1p0.json" "$tmp/1p1.json"
check "no rank in the traces: exit" 0 $?
check "no rank in the traces: figures" "$want" "$(figures)"
check "no rank in the traces: sources" "default:- default:- default:- default:-" "$(sources)"
check "no rank in the traces: said" "xp: warning: $tmp/1p1.json: no rank in the trace for 2 of its devices, as neither distributedInfo nor the process's record_param_comms name one (PyTorch's named none while c10d drove several GPUs from one process): numbered in the order the files were given, then by device, with the lowest ranks no other trace names (--ranks gives a file's first): device 0 is rank 2, device 1 is rank 3" "$(sed -n 4p "$tmp/err")"
imp "$tmp/n0.json" "$tmp/n1.json"
check "merged, no rank in the traces: figures" "$want" "$(figures)"
# ... where one process's calls name none: that device alone, with the rank left
zcat "$v/multinode_n1.json.gz" | grep -v '"record_param_comms", "pid": 200' > "$tmp/part_n1.json"
imp "$v/multinode_n0.json.gz" "$tmp/part_n1.json"
check "merged, one process without a rank: figures" "$want" "$(figures)"
check "merged, one process without a rank: sources" "comms:4 comms:4 comms:4 default:4" "$(sources)"
check "merged, one process without a rank: said" "xp: warning: $tmp/part_n1.json: no rank in the trace for one of its devices: numbered in the order the files were given, then by device, with the lowest ranks no other trace names (--ranks gives a file's first): device 1 is rank 3" "$(sed -n 3p "$tmp/err")"
# ... given the other way round, node 1's GPUs are ranks 0 and 1: their group lists 2 and 3, so
# its collectives are not matched (the world's still are); --ranks gives each file's first
imp "$tmp/1p1.json" "$tmp/1p0.json"
check "no rank, files swapped: the node groups unmatched" 8 "$(query "SELECT count(*) FROM trace_collectives
  WHERE run_id = (SELECT max(id) FROM runs) AND wait_ns IS NULL")"
imp "$tmp/1p1.json" "$tmp/1p0.json" --ranks 2,0
check "--ranks, a file's first: exit" 0 $?
check "--ranks, a file's first: figures" "$want" "$(figures)"
check "--ranks, a file's first: sources" "option:- option:- option:- option:-" "$(sources)"
# ... and beside files of one GPU that name theirs: the lowest ranks they leave
imp "$v/multinode_r0.json.gz" "$tmp/1p1.json" "$v/multinode_r1.json.gz"
check "beside ranks the traces name: figures" "$want" "$(figures)"
imp "$tmp/1p0.json" "$tmp/1p1.json" --ranks 0,1
check "--ranks, one per file though a file has two GPUs: exit" 2 $?
check "--ranks, one per file though a file has two GPUs: refused" "xp: $tmp/1p1.json: rank 1 again ($tmp/1p0.json is rank 1 too); a file of several GPUs takes a rank for each, from its first" "$(tail -n 1 "$tmp/err")"

# one file per GPU without distributedInfo (older PyTorch, some launchers, stripped by tools): each
# rank as its record_param_comms name it, the world's size the default group's; a file of one GPU
# without either was refused with several files ("every trace must say its rank")
for n in 0 1 2 3; do
  zcat "$v/multinode_r$n.json.gz" | sed 's/"distributedInfo": {[^}]*}, //' > "$tmp/r$n.json"
done
check "no distributedInfo: stripped" 0 "$(cat "$tmp"/r?.json | grep -c distributedInfo)"
imp "$tmp"/r{3,1,0,2}.json
check "no distributedInfo, one file per GPU: exit" 0 $?
check "no distributedInfo, one file per GPU: figures" "$want" "$(figures)"
check "no distributedInfo, one file per GPU: sources" "comms:4 comms:4 comms:4 comms:4" "$(sources)"
check "no distributedInfo, one file per GPU: said" "xp: warning: $tmp/r1.json: no distributedInfo.rank in the trace: rank 1, as its record_param_comms name it, in a world of 4 (its default process group's size)" "$(sed -n 2p "$tmp/err")"
# ... beside files that have it, and with a rank given: the option's, said where they differ
imp "$v/multinode_r0.json.gz" "$tmp/r1.json" "$v/multinode_r2.json.gz" "$v/multinode_r3.json.gz"
check "no distributedInfo beside files with it: figures" "$want" "$(figures)"
imp "$tmp/r1.json" --rank 5
check "no distributedInfo, --rank: said" "xp: warning: $tmp/r1.json: the trace says rank 1 (its record_param_comms); recorded as rank 5 as asked" "$(head -n 1 "$tmp/err")"
check "no distributedInfo, --rank: source" "option:4" "$(sources)"
# ... merged files too: each device its process's rank, as before, and now the world's size
for n in 0 1; do zcat "$v/multinode_n$n.json.gz" | sed 's/"distributedInfo": {[^}]*}, //' > "$tmp/nd$n.json"; done
imp "$tmp/nd1.json" "$tmp/nd0.json"
check "no distributedInfo, merged: figures" "$want" "$(figures)"
check "no distributedInfo, merged: sources" "comms:4 comms:4 comms:4 comms:4" "$(sources)"
# ... one such file alone was taken for the whole job (world size 2, its two GPUs)
imp "$tmp/nd1.json"
check "no distributedInfo, one merged file alone: sources" "comms:4 comms:4" "$(sources)"
# the world's size is the default group's ("0", described "default_pg" where c10d describes
# groups), not the largest group's: calls on the node's group alone leave it unknown
grep -v 'record_param_comms.*default_pg' "$tmp/r1.json" > "$tmp/node_only.json"
imp "$tmp/node_only.json"
check "no distributedInfo, the node's group alone: rank, no world" "comms:-" "$(sources)"
sed 's/"Process Group Description": "[^"]*", //' "$tmp/r1.json" > "$tmp/no_desc.json"
imp "$tmp/no_desc.json"
check "no distributedInfo, groups not described: the world is group 0" "comms:4" "$(sources)"
check "no distributedInfo, groups not described: rank" 1 "$(query "SELECT rank FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
# ... but where its calls name two ranks (rank 1's world calls say rank 3), or none: still refused
sed '/record_param_comms.*default_pg/s/"Rank": 1}/"Rank": 3}/' "$tmp/r1.json" > "$tmp/two.json"
imp "$tmp/r0.json" "$tmp/two.json" "$tmp/r2.json" "$tmp/r3.json"
check "no distributedInfo, two ranks in its calls: exit" 2 $?
check "no distributedInfo, two ranks in its calls: refused" "xp: $tmp/two.json: the trace has no distributedInfo.rank and its record_param_comms name several ranks (1 to 3), not one; with several files every trace (or its file's name: TensorRT-LLM's NAME-rank-N.json) must say its rank, or --ranks R0,R1,... give them in the files' order" "$(tail -n 1 "$tmp/err")"
grep -v record_param_comms "$tmp/r1.json" > "$tmp/none.json"
imp "$tmp/r0.json" "$tmp/none.json"
check "no distributedInfo, no calls: exit" 2 $?
check "no distributedInfo, no calls: refused" "xp: $tmp/none.json: the trace has no distributedInfo.rank and its record_param_comms name none; with several files every trace (or its file's name: TensorRT-LLM's NAME-rank-N.json) must say its rank, or --ranks R0,R1,... give them in the files' order" "$(tail -n 1 "$tmp/err")"
check "refused: nothing recorded" 0 "$(query "SELECT count(*) FROM trace_ranks WHERE file LIKE '%two.json' OR file LIKE '%none.json'")"
# TensorRT-LLM's PyTorch backend writes rank N's trace to TLLM_TORCH_PROFILE_TRACE's path with
# "-rank-N" before the extension (tensorrt_llm/_torch/pyexecutor/py_executor.py, os.path.splitext:
# trace.json -> trace-rank-0.json, trace.json.gz -> trace.json-rank-1.gz), and its ranks (MPI, its
# own NCCL communicators) write no distributedInfo and no record_param_comms: such files were
# refused ("every trace must say its rank"). Now the name's rank is taken, said, source
# 'file_name'; the figures are those of --ranks giving the same ranks
for n in 0 1; do
  zcat "$v/vllm_r$n.json.gz" | sed -e 's/"distributedInfo":.*"nccl_version":"[^"]*"},//' \
    -e 's/{"ph":"X","cat":"cpu_op","name":"record_param_comms",[^}]*}},//g' > "$tmp/trt$n.json"
done
check "TensorRT-LLM's form: no rank in the trace" 0 "$(cat "$tmp"/trt?.json | grep -c 'distributedInfo\|record_param_comms')"
cp "$tmp/trt0.json" "$tmp/trace-rank-0.json"
gzip -c "$tmp/trt1.json" > "$tmp/trace.json-rank-1.gz"
imp "$tmp/trt1.json" "$tmp/trt0.json" --ranks 1,0
check "TensorRT-LLM's form, --ranks: exit" 0 $?
want_trt=$(figures)
# ranks_from_names LABEL FILE...: the pair imported without --ranks, each rank from its file's name
ranks_from_names() {
  local label=$1
  shift
  imp "$@"
  check "$label: exit" 0 $?
  check "$label: figures" "$want_trt" "$(figures)"
  check "$label: sources" "file_name:- file_name:-" "$(sources)"
}
ranks_from_names "rank from the file's name" "$tmp/trace.json-rank-1.gz" "$tmp/trace-rank-0.json"
check "rank from the file's name: said" "xp: warning: $tmp/trace.json-rank-1.gz: no distributedInfo.rank in the trace and no record_param_comms naming one: rank 1, as the file's name says (TensorRT-LLM's or vLLM's \"-rank-N\")" "$(head -n 1 "$tmp/err")"
cp "$tmp/trt0.json" "$tmp/trtllm-trace-7-rank-3.json"
imp "$tmp/trtllm-trace-7-rank-3.json"
check "rank from the file's name, its /start_profile's name, alone" "3|file_name" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
# a name whose "-rank-N" is not the name's end or before an extension says nothing; a trace that
# names its rank keeps it, the name's said where it differs
cp "$tmp/trt0.json" "$tmp/trace-rank-3x.json"
imp "$tmp/trace-rank-3x.json"
check "no rank in a name of '-rank-3x'" "0|default" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
cp "$v/multinode_r1.json.gz" "$tmp/copied-rank-2.json.gz"
imp "$tmp/copied-rank-2.json.gz"
check "the trace's rank over its name's" "1|trace" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
check "the trace's rank over its name's: said" "xp: warning: $tmp/copied-rank-2.json.gz: the file's name says rank 2 but the trace says rank 1: recorded as rank 1, the trace's" "$(grep "file's name" "$tmp/err")"
# vLLM names each worker's trace "{instance_id}-rank-{rank}.{ns}.pt.trace.json.gz"
# (vllm/v1/worker/gpu_worker.py at 35d5cda, worker_name through tensorboard_trace_handler): read as
# TensorRT-LLM's
gzip -c "$tmp/trt1.json" > "$tmp/9f2c1-rank-1.1764590000123456789.pt.trace.json.gz"
gzip -c "$tmp/trt0.json" > "$tmp/9f2c1-rank-0.1764590000123456001.pt.trace.json.gz"
ranks_from_names "vLLM's worker names" "$tmp"/9f2c1-rank-{1,0}.*.pt.trace.json.gz
# vLLM names a worker by its rank within its data-parallel replica (gpu_worker.py's self.rank), its
# trace's rank dp_rank x TP x PP + that (init_distributed_environment of vllm/distributed/
# parallel_state.py at 35d5cda): a DP 2 job's second replica's "-rank-0" is the trace's rank 1,
# said as that, where the warning said only that the name and trace differ, as of a file renamed
cp "$v/vllm_r1.json.gz" "$tmp/4e1a7-rank-0.1764590000123456002.pt.trace.json.gz"
imp "$tmp/4e1a7-rank-0.1764590000123456002.pt.trace.json.gz"
check "vLLM's DP replica's worker: the trace's rank" "1|trace" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
check "vLLM's DP replica's worker: said" "xp: warning: $tmp/4e1a7-rank-0.1764590000123456002.pt.trace.json.gz: the file's name says rank 0 but the trace says rank 1: recorded as rank 1, the trace's (vLLM names a worker of a data-parallel job by its rank within its replica, the world's being dp_rank x TP x PP + N)" "$(grep "file's name" "$tmp/err")"
# vLLM since 0.17 (vllm-project/vllm#33198, get_worker_rank_suffix of vllm/distributed/utils.py)
# names them "{profile_prefix_}dp{D}_pp{P}_tp{T}_dcp{C}_ep{E}_rank{N}.{ns}.pt.trace.json.gz", N the
# rank within the DP replica D, the world's rank D x the replica's GPUs + N (parallel_state.py's
# init_distributed_environment; a dense model's replicas each a world of their own, D 0): N where D
# is 0. Such files without distributedInfo were refused as naming no rank
gzip -c "$tmp/trt1.json" > "$tmp/dp0_pp0_tp1_dcp0_ep1_rank1.1776848311166683018.pt.trace.json.gz"
gzip -c "$tmp/trt0.json" > "$tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683001.pt.trace.json.gz"
ranks_from_names "vLLM 0.17's worker names" "$tmp"/dp0_pp0_tp{1,0}_*.pt.trace.json.gz
check "vLLM 0.17's worker names: said" "xp: warning: $tmp/dp0_pp0_tp1_dcp0_ep1_rank1.1776848311166683018.pt.trace.json.gz: no distributedInfo.rank in the trace and no record_param_comms naming one: rank 1, as the file's name says (vLLM's \"dp0_ppP_tpT_dcpC_epE_rankN\")" "$(head -n 1 "$tmp/err")"
cp "$tmp/trt1.json" "$tmp/decode_dp0_pp1_tp0_dcp0_ep0_rank2.1776848311166683018.pt.trace.json"
imp "$tmp/decode_dp0_pp1_tp0_dcp0_ep0_rank2.1776848311166683018.pt.trace.json"
check "vLLM 0.17's name with a profile_prefix, alone" "2|file_name" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
# a replica above 0: its world rank needs the replica's size, which the name does not give
gzip -c "$tmp/trt1.json" > "$tmp/dp1_pp0_tp0_dcp0_ep1_rank0.1776848311166683018.pt.trace.json.gz"
imp "$tmp/dp1_pp0_tp0_dcp0_ep1_rank0.1776848311166683018.pt.trace.json.gz" "$tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683001.pt.trace.json.gz"
check "vLLM 0.17's name of replica 1: exit" 2 $?
check "vLLM 0.17's name of replica 1: not read, said" "xp: warning: $tmp/dp1_pp0_tp0_dcp0_ep1_rank0.1776848311166683018.pt.trace.json.gz: no distributedInfo.rank in the trace and no record_param_comms naming one, and the file's name's ranks not read: vLLM's \"dpD_ppP_tpT_dcpC_epE_rankN\" with D above 0, the rank D x its replica's GPUs (TP x PP x PCP) + N (its init_distributed_environment's), and the name gives no replica size" "$(grep "ranks not read" "$tmp/err")"
check "vLLM 0.17's name of replica 1: refused" 1 "$(tail -n 1 "$tmp/err" | grep -c "^xp: $tmp/dp1_pp0_tp0_dcp0_ep1_rank0.1776848311166683018.pt.trace.json.gz: the trace has no distributedInfo.rank")"
# the name of a trace that says its rank (vLLM writes distributedInfo): the trace's, and a name of
# replica 0 that says another rank is said
cp "$v/vllm_r1.json.gz" "$tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683002.pt.trace.json.gz"
imp "$tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683002.pt.trace.json.gz"
check "vLLM 0.17's name, the trace's rank" "1|trace" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
check "vLLM 0.17's name, the trace's rank: said" "xp: warning: $tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683002.pt.trace.json.gz: the file's name says rank 0 but the trace says rank 1: recorded as rank 1, the trace's" "$(grep "file's name" "$tmp/err")"
# SGLang writes each TP worker's trace as "{profile_id}-TP-{tp_rank}{-stage}.trace.json.gz"
# (sglang/srt/managers/scheduler_profiler_mixin.py at 034c23f), newer ones with "-DP-d", "-PP-p",
# "-EP-e" where those sizes are above 1 (sglang/srt/utils/profile_utils.py at 01144484); its world
# is TP x PP, rank tp_size x pp_rank + tp_rank (model_runner.py): the TP rank is the rank where no
# PP rank, or PP 0, is named. Its traces write distributedInfo; one without (the shipped SGLang
# pair stripped as above) was refused for want of a rank, names like these notwithstanding
for n in 0 1; do
  zcat "$v/sglang_tp$n.json.gz" | sed -e 's/"distributedInfo":.*"nccl_version":"[^"]*"},//' \
    -e 's/{"ph":"X","cat":"cpu_op","name":"record_param_comms",[^}]*}},//g' > "$tmp/sgl$n.json"
done
check "SGLang's pair stripped: no rank in the trace" 0 "$(cat "$tmp"/sgl?.json | grep -c 'distributedInfo\|record_param_comms')"
imp "$tmp/sgl1.json" "$tmp/sgl0.json" --ranks 1,0
check "SGLang's pair, --ranks: exit" 0 $?
want_sgl=$(figures)
# NAME1|NAME0|the form said: the old "-TP-N", the stage suffix, DP, EP and PP 0 alongside
for c in "1764590000.5281-TP-1.trace.json.gz|1764590000.5281-TP-0.trace.json.gz|SGLang's \"-TP-N\"" \
         "1764590000.5281-TP-1-decode.trace.json|1764590000.5281-TP-0-decode.trace.json|SGLang's \"-TP-N\"" \
         "run7-1764590000.5281-TP-1-DP-1-EP-1-prefill.trace.json.gz|run7-1764590000.5281-TP-0-DP-0-EP-0-prefill.trace.json.gz|SGLang's \"-TP-N-DP-M\": its TP rank, the rank in its DP replica's world (one world of all with DP attention)" \
         "1764590000.5281-TP-1-PP-0.trace.json.gz|1764590000.5281-TP-0-PP-0.trace.json.gz|SGLang's \"-TP-N\""; do
  IFS='|' read -r one zero form <<< "$c"
  for n in 0 1; do
    f=$one
    [ $n = 0 ] && f=$zero
    case $f in *.gz) gzip -c "$tmp/sgl$n.json" > "$tmp/$f" ;; *) cp "$tmp/sgl$n.json" "$tmp/$f" ;; esac
  done
  imp "$tmp/$one" "$tmp/$zero"
  check "SGLang's $one: exit" 0 $?
  check "SGLang's $one: figures" "$want_sgl" "$(figures)"
  check "SGLang's $one: sources" "file_name:- file_name:-" "$(sources)"
  check "SGLang's $one: said" "xp: warning: $tmp/$one: no distributedInfo.rank in the trace and no record_param_comms naming one: rank 1, as the file's name says ($form)" "$(head -n 1 "$tmp/err")"
done
# a PP rank above 0 needs the TP size the name does not give, and ranks xp does not know after the
# TP rank may change it: neither read as the TP rank ("-TP-1-PP-1" is rank tp_size + 1, not 1)
for c in "1764590000.5281-TP-1-PP-1.trace.json.gz|SGLang's \"-TP-N-PP-P\" with P above 0, the rank tp_size x P + N (its model runner's), and the name gives no TP size" \
         "1764590000.5281-TP-1-CP-1.trace.json.gz|SGLang's \"-TP-N\" followed by ranks xp does not know" \
         "1764590000.5281-TP-1-EP-1-DP-1.trace.json.gz|SGLang's \"-TP-N\" followed by ranks xp does not know"; do
  IFS='|' read -r one form <<< "$c"
  gzip -c "$tmp/sgl1.json" > "$tmp/$one"
  imp "$tmp/$one" "$tmp/1764590000.5281-TP-0.trace.json.gz"
  check "not read: $one: exit" 2 $?
  check "not read: $one: said" "xp: warning: $tmp/$one: no distributedInfo.rank in the trace and no record_param_comms naming one, and the file's name's ranks not read: $form" "$(grep "ranks not read" "$tmp/err")"
  check "not read: $one: refused" 1 "$(tail -n 1 "$tmp/err" | grep -c "^xp: $tmp/$one: the trace has no distributedInfo.rank")"
  imp "$tmp/$one"
  check "not read: $one alone" "0|default" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
done
# two data-parallel replicas' files of one rank, as the names give it: vLLM's "-rank-N" (the rank
# within a replica), vLLM 0.17's dp0 of a dense model's replicas (each a job of its own, its trace's
# rank 0 too) and SGLang's -DP- without DP attention were refused as 'rank 0 again (F is rank 0
# too)', which said neither why nor what to do; now the refusal says it, naming --ranks where the
# replicas may be one job
zcat "$v/vllm_r0.json.gz" | sed 's/"schemaVersion":1/"schemaVersion": 1/' | gzip > "$tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683003.pt.trace.json.gz"
cp "$v/vllm_r0.json.gz" "$tmp/dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683004.pt.trace.json.gz"
cp "$tmp/trt1.json" "$tmp/9f2c1-rank-0.1764590000123456003.pt.trace.json"
cp "$tmp/sgl1.json" "$tmp/1764590000.5281-TP-0-DP-1.trace.json"
cp "$tmp/sgl0.json" "$tmp/1764590000.5281-TP-0-DP-0.trace.json"
for c in "9f2c1-rank-0.1764590000123456001.pt.trace.json.gz|9f2c1-rank-0.1764590000123456003.pt.trace.json|: where these are vLLM's workers, \"-rank-N\" is the rank within a data-parallel replica: import each replica's files as a run of its own, or, where the replicas are one job (a MoE model's), give the world's ranks (replica x its GPUs + N) with --ranks R0,R1,..." \
         "dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683003.pt.trace.json.gz|dp0_pp0_tp0_dcp0_ep0_rank0.1776848311166683004.pt.trace.json.gz|: vLLM names every data-parallel replica of a dense model dp0, each a job of its own: import each replica's files as a run of its own" \
         "1764590000.5281-TP-0-DP-0.trace.json|1764590000.5281-TP-0-DP-1.trace.json|: SGLang's data-parallel replicas without DP attention are each a job of its own: import each replica's files as a run of its own"; do
  IFS='|' read -r first second why <<< "$c"
  imp "$tmp/$first" "$tmp/$second"
  check "two replicas' $second: exit" 2 $?
  check "two replicas' $second: said" "xp: $tmp/$second: rank 0 again ($tmp/$first is rank 0 too)$why" "$(tail -n 1 "$tmp/err")"
done
# one rank's file twice under two profile ids, not two DP ranks: as before
cp "$tmp/sgl1.json" "$tmp/1764590000.9999-TP-0-DP-0.trace.json"
imp "$tmp/1764590000.5281-TP-0-DP-0.trace.json" "$tmp/1764590000.9999-TP-0-DP-0.trace.json"
check "one DP rank's two files: said as before" "xp: $tmp/1764590000.9999-TP-0-DP-0.trace.json: rank 0 again ($tmp/1764590000.5281-TP-0-DP-0.trace.json is rank 0 too)" "$(tail -n 1 "$tmp/err")"
# distributedInfo naming another rank than the calls the process made (a tool that copied rank 1's
# top-level keys onto rank 0's events): distributedInfo's, Kineto's own record, kept, and the two
# said in one line, where it went unsaid; files that agree, and a merged file's processes (whose
# one distributedInfo is one process's), say nothing
imp "$v/multinode_r0_dist1.json.gz"
check "distributedInfo against its calls: exit" 0 $?
check "distributedInfo against its calls: distributedInfo's" "1|trace:4" "$(query "SELECT rank || '|' || rank_source || ':' || world_size FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
check "distributedInfo against its calls: said" "xp: warning: $v/multinode_r0_dist1.json.gz: distributedInfo.rank is 1 but its record_param_comms name rank 0: recorded as rank 1, distributedInfo's (were its top-level keys copied from another rank's trace?)" "$(grep 'distributedInfo.rank is' "$tmp/err")"
imp "$v/multinode_r0_dist1.json.gz" "$v/multinode_r1.json.gz"
check "distributedInfo against its calls, beside the rank it names: exit" 2 $?
check "distributedInfo against its calls, beside the rank it names: said first" 1 "$(grep -c 'distributedInfo.rank is 1 but' "$tmp/err")"
imp "$v"/multinode_r{0,1,2,3}.json.gz
check "distributedInfo agreeing with the calls: nothing said" 0 "$(grep -c 'distributedInfo.rank is' "$tmp/err")"
imp "$v/multinode_n1.json.gz"
check "a merged file's distributedInfo (its first process's): nothing said" 0 "$(grep -c 'distributedInfo.rank is' "$tmp/err")"
# A group of more than 30 ranks: PyTorch cuts its "Process Group Ranks" short
# (tests/data/trace/variants/README.md, bigpg_r45): "[0, 1, ..., 28, ..., 63]", where the member
# after "..." is the last; before, "[0, 1, ..., 29, ...]". No place past the cut was read, so a
# rank there had none (a single file was rank 0). Now the group's "Global rank start" and
# "Global rank stride" (written where its members are start, start + stride, ...) give it, and
# the last place is the member after "...", where they agree with the places shown
ranked() { query "SELECT rank || '|' || rank_source || ':' || coalesce(world_size, '-') FROM trace_ranks
  WHERE run_id = (SELECT max(id) FROM runs)"; }
big="$v/bigpg_r45.json"
imp "$big"
check "cut ranks list, past the 30th place: rank by start and stride" "45|comms:64" "$(ranked)"
nostride() { sed 's/"Global rank start": 0, "Global rank stride": 1, //' "$big"; }
nostride | sed 's/"Rank": 45/"Rank": 63/' > "$tmp/last.json"
imp "$tmp/last.json"
check "cut ranks list, the last place: the member after the cut" "63|comms:64" "$(ranked)"
nostride > "$tmp/past.json"
imp "$tmp/past.json"
check "cut ranks list without start and stride: past the cut, none" "0|default:64" "$(ranked)"
sed 's/28, \.\.\., 63\]/28, 29, ...]/' "$big" > "$tmp/first30.json"
imp "$tmp/first30.json"
check "cut ranks list, its first form: rank by start and stride" "45|comms:64" "$(ranked)"
sed 's/"Global rank stride": 1/"Global rank stride": 2/' "$big" > "$tmp/offstride.json"
imp "$tmp/offstride.json"
check "start and stride that the places shown contradict: none" "0|default:64" "$(ranked)"
# ... a strided subgroup (data parallelism's even ranks of 128): its 46th member is rank 90
sed -e 's/"Global rank stride": 1/"Global rank stride": 2/' -e 's/"default_pg"/"dp"/g' -e 's/"Process Group Name": "0"/"Process Group Name": "3"/g' \
  -e 's/"\[0, 1, [0-9, ]*28, \.\.\., 63\]"/"[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, ..., 126]"/g' \
  "$big" > "$tmp/dp.json"
imp "$tmp/dp.json"
check "cut ranks list of a strided subgroup" "90|comms:-" "$(ranked)"

# One process of several GPUs without distributedInfo: its devices were numbered by the files'
# order, whatever its record_param_comms said. A device now takes the rank that the calls of its
# own collectives name (a kernel carries its call's External id, as Kineto writes them), where one
# process drove several ranks' GPUs (tests/data/trace/variants/twothread_r23.json: two threads,
# ranks 2 and 3 of 4); where one call's kernels ran on both devices (c10d driving several GPUs
# from one process, whose calls named no rank) or the calls name none, nothing tells a device's
# rank: numbered as before, and the warning says why
imp "$v/twothread_r23.json"
check "one process, a rank a thread: exit" 0 $?
check "one process, a rank a thread: ranks" "2,0
3,1" "$(query "SELECT rank, device FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs) ORDER BY rank")"
check "one process, a rank a thread: sources" "comms:4 comms:4" "$(sources)"
check "one process, a rank a thread: said" "xp: warning: $v/twothread_r23.json: no distributedInfo.rank in the trace: device 0 is rank 2, device 1 is rank 3, as the record_param_comms of the device's own collectives name it" "$(sed -n 2p "$tmp/err")"
check "one process, a rank a thread: the node's group matched" 2 "$(query "SELECT count(*) FROM trace_collectives
  WHERE run_id = (SELECT max(id) FROM runs) AND wait_ns IS NOT NULL")"
sed -e '/"pid": 1, "tid": 20/s/"External id": 202/"External id": 102/' -e '/"pid": 1, "tid": 20/s/"External id": 203/"External id": 103/' \
  "$v/twothread_r23.json" > "$tmp/onecall.json"
imp "$tmp/onecall.json"
check "one call's kernels on two devices: numbered" "default:2 default:2" "$(sources)"
check "one call's kernels on two devices: said" "xp: warning: $tmp/onecall.json: no rank in the trace for 2 of its devices, as the record_param_comms of the device's own collectives name another device's rank too: numbered in the order the files were given, then by device, with the lowest ranks no other trace names (--ranks gives a file's first): device 0 is rank 0, device 1 is rank 1" "$(tail -n 1 "$tmp/err")"
# ... and a rank's trace with a stray kernel on another GPU (a context made on cuda:0): one rank on
# its main device, as with distributedInfo, where its calls name the rank; it was split in two
python3 - "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz" "$tmp/stray.json" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
del t["distributedInfo"]
k = next(e for e in t["traceEvents"] if e.get("cat") == "kernel")
s = dict(k, pid=1, args=dict(k["args"], device=1, correlation=99999999))
del s["args"]["External id"]
t["traceEvents"].append(s)
json.dump(t, open(sys.argv[2], "w"))
PY
imp "$tmp/stray.json"
check "no distributedInfo, a stray kernel on another GPU: one rank" "0,0,5312,comms" "$(query "SELECT rank, device, kernels,
  rank_source FROM trace_ranks WHERE run_id = (SELECT max(id) FROM runs)")"
check "no distributedInfo, a stray kernel on another GPU: said" 1 "$(grep -c 'read on device 0, which ran 5312 of 5313 kernels' "$tmp/err")"

# Ranks on two hosts whose clocks are more than 10 s apart were refused as ranks of different jobs,
# with nothing to say otherwise. Nothing in the traces tells such hosts from another job of the same
# program (the same groups, sizes and Seq numbers pair alike; the collectives' ends only give the
# offset, whatever it is), so the refusal stays, and says how the user can tell it:
# --host-skew SECONDS, the most the hosts' clocks may differ (tests/data/trace/variants/hosts_skew_*:
# rank 1's clock 5 s ahead, here 65 s)
python3 - "$v/hosts_skew_r1.json" "$tmp/skew65_r1.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    if "ts" in e:
        e["ts"] += 60e6
json.dump(t, open(sys.argv[2], "w"))
PY
waits() { query "SELECT group_concat(rank || ':' || wait_ns || '/' || transfer_ns, ' ') FROM (SELECT * FROM trace_collectives
  WHERE run_id = (SELECT max(id) FROM runs) ORDER BY rank)"; }
imp "$v/hosts_skew_r0.json" "$tmp/skew65_r1.json"
check "hosts 65 s apart: refused" 2 $?
check "hosts 65 s apart: said" "xp: $tmp/skew65_r1.json: ranks of different jobs, or of hosts whose clocks are more than 10 s apart: its GPU activity on node1 (65.001010 s to 65.001150 s) does not overlap that of $v/hosts_skew_r0.json on node0 (0.000910 s to 0.001050 s) within 10 s (--host-skew SECONDS allows hosts' clocks further apart)" "$(tail -n 1 "$tmp/err")"
imp "$v/hosts_skew_r0.json" "$tmp/skew65_r1.json" --host-skew 120
check "hosts 65 s apart, --host-skew 120: exit" 0 $?
check "hosts 65 s apart, --host-skew 120: the waiting split on one clock" "0:40000/10000 1:0/10000" "$(waits)"
sed 's/"node1"/"node0"/' "$tmp/skew65_r1.json" > "$tmp/samehost_r1.json"
imp "$v/hosts_skew_r0.json" "$tmp/samehost_r1.json" --host-skew 120
check "one host's ranks 65 s apart, --host-skew 120: refused (one clock)" 2 $?

# A rank its record_param_comms name is recorded with source 'comms' (schema 20), where it was
# 'trace' as distributedInfo's is, told apart by the warning alone; one its file's name gives,
# 'file_name' (schema 26). A database of schema 19 (its trace_ranks' CHECK of schema 2, which
# neither passes) or 25 (no 'file_name') is migrated by a writing command: every row, seal and link
# as before, the table, triggers and views of a fresh database's, and a finished run's ranks still
# unchangeable
if command -v sqlite3 > /dev/null; then
  rows() { sqlite3 "$1" "SELECT * FROM trace_ranks ORDER BY run_id, rank" | md5sum; }
  made() { sqlite3 "$1" "SELECT type || ' ' || name || ': ' || sql FROM sqlite_schema WHERE tbl_name = 'trace_ranks'
    OR type = 'view' ORDER BY type, name; PRAGMA user_version"; }
  # VERSION|sources its CHECK lacks (as SQL quotes them)|its CHECK's list|a file of the new source|the source
  for c in "19|''comms'', ''file_name'', |(''trace'', ''option'', ''default'')|$tmp/r1.json|comms" \
           "25|''file_name'', |(''trace'', ''comms'', ''option'', ''default'')|$tmp/trace-rank-0.json|file_name"; do
    IFS='|' read -r n lacks list file source <<< "$c"
    old="$tmp/old$n.db" fresh="$tmp/fresh$n.db"
    for d in "$old" "$fresh"; do
      "$XP" --db "$d" import torch-trace "$v"/multinode_r{0,1,2,3}.json.gz > /dev/null 2>&1
      "$XP" --db "$d" import torch-trace "$v/multinode_1p0.json.gz" "$v/multinode_1p1.json.gz" > /dev/null 2>&1
      "$XP" --db "$d" import torch-trace "$tmp/1p1.json" --rank 2 > /dev/null 2>&1
    done
    sqlite3 "$old" "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA writable_schema = ON;
      UPDATE sqlite_schema SET sql = replace(sql, '$lacks', '') WHERE name = 'trace_ranks';
      PRAGMA writable_schema = OFF; PRAGMA user_version = $n;" > /dev/null
    check "schema $n: its CHECK" 1 "$(sqlite3 "$old" "SELECT count(*) FROM sqlite_schema WHERE name = 'trace_ranks'
      AND sql LIKE '%$list%'")"
    before=$(rows "$old") head=$("$XP" --db "$old" verify 2> /dev/null | grep -o 'head [0-9a-f]*')
    "$XP" --db "$old" verify --seal > "$tmp/out" 2>&1
    check "schema $n migrated: verify" 0 $?
    check "schema $n migrated: every row" "$before" "$(rows "$old")"
    check "schema $n migrated: the chain" "$head" "$(grep -o 'head [0-9a-f]*' "$tmp/out")"
    check "schema $n migrated: table, triggers and views of a fresh database" "$(made "$fresh")" "$(made "$old")"
    sqlite3 "$old" "UPDATE trace_ranks SET rank_source = '$source'" 2> "$tmp/err"
    check "schema $n migrated: finished runs' ranks unchangeable" 1 "$(grep -c 'append-only' "$tmp/err")"
    "$XP" --db "$old" import torch-trace "$file" > /dev/null 2>&1
    check "schema $n migrated: a rank of the new source" "$source" "$(sqlite3 "$old" "SELECT rank_source FROM trace_ranks
      WHERE run_id = (SELECT max(id) FROM runs)")"
    check "schema $n migrated: verify after" 0 "$("$XP" --db "$old" verify > /dev/null 2>&1; echo $?)"
  done
else
  echo "note: the sqlite3 CLI is missing; the migrations to schemas 20 and 26 are not exercised"
fi
finish
