#!/usr/bin/env bash
# Sends and recvs of a pipeline's process group of four (PP=4: torchtitan's and Megatron's stages
# share one group), paired rank pair by rank pair from the peer their record_param_comms name (its
# place in the group, "Rank", as c10d gives it; "Dst Rank" on a send and "Src Rank" on a recv where
# PyTorch writes them: torch/csrc/profiler/util.cpp saveNcclMeta), which their kernels share an
# External id with; the kernels' own args name no peer (the shipped PyTorch 2.11 traces' carry no
# "Rank"). c10d numbers a rank's sends and recvs of a group together ("Seq"), whoever the peer, so
# the numbers of one pair's kernels differ; paired by them as a collective of all four, stage 0's
# send to 1, 1's recv from 0, 2's from 1 and 3's from 2 were one collective, 3's recv waiting for a
# send that was never its.
set -u
. "$XP_SRC/tests/lib.sh"
# gen P DIR rank|dst|none|bare: a P-stage pipeline (the peer on the calls as "Rank", as "Src/Dst
# Rank", or not at all; bare: no call, and kernels naming no group, as pynccl's and CUDA graphs' do), forward only, 3 steps of 2 microbatches; each stage
# computes 30 us, then sends to the next (10 us); a recv is posted 5 us into the microbatch and
# ends with its send, so stage r's recv waits 40 r - 15 us and every send and recv transfers 10.
gen() {
  python3 - "$@" <<'PY'
import json, sys
P, out, peer_as = int(sys.argv[1]), sys.argv[2], sys.argv[3]
evs = {r: [] for r in range(P)}
corr, seq = [100] * P, [0] * P
def kernel(r, name, ts, dur, args=None, call=None):
    corr[r] += 1
    a = {"External id": corr[r], "correlation": corr[r], "device": r, "stream": 20 if args else 7}
    if peer_as != "bare":
        a.update(args or {})
    if call:  # c10d's record of the call, around its launch
        call.update({k: v for k, v in args.items() if k != "Seq"})
        call["External id"] = corr[r]
        evs[r].append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1000 + r,
                       "tid": 1000 + r, "ts": ts - 10, "dur": 7, "args": call})
    evs[r].append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1000 + r,
                   "tid": 1000 + r, "ts": ts - 8, "dur": 4, "args": {"External id": corr[r], "correlation": corr[r]}})
    evs[r].append({"ph": "X", "cat": "kernel", "name": name, "pid": r, "tid": a["stream"], "ts": ts, "dur": dur, "args": a})
def p2p(r, kind, peer):  # the kernel's args, and its call's
    seq[r] += 1
    a = {"Collective name": kind, "Process Group Name": "1", "Process Group Description": "pp",
         "Process Group Ranks": str(list(range(P))), "Group size": P, "In msg nelems": 4096,
         "Out msg nelems": 4096, "dtype": "BFloat16", "Seq": seq[r]}
    call = {}
    if peer_as == "rank":
        call["Rank"] = peer
    elif peer_as == "dst":
        call["Rank"] = peer
        call["Dst Rank" if kind == "send" else "Src Rank"] = peer
    return a, call
SR = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
for s in range(3):
    t = 10000 + 1000 * s
    for r in range(P):
        evs[r].append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1000 + r,
                       "tid": 1000 + r, "ts": t - 20, "dur": 1000})
    for mb in range(2):
        t0 = t + 400 * mb
        for r in range(P):
            start = t0 + 40 * r
            if r > 0:
                kernel(r, SR, t0 + 5, start - t0 - 5, *p2p(r, "recv", r - 1))
            kernel(r, "nvjet_tst_64x8_64x16_4x1_v_bz_TNT", start, 30)
            if r < P - 1:
                kernel(r, SR, start + 30, 10, *p2p(r, "send", r + 1))
for r in range(P):
    json.dump({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": P},
               "traceEvents": sorted(evs[r], key=lambda e: e["ts"])}, open("%s/pp%d_r%d.json" % (out, P, r), "w"))
PY
}
mkdir -p "$tmp/rank" "$tmp/dst" "$tmp/none" "$tmp/bare"
gen 4 "$tmp/rank" rank && gen 2 "$tmp/rank" rank && gen 4 "$tmp/dst" dst && gen 4 "$tmp/none" none && gen 4 "$tmp/bare" bare
per_rank() { # rank:kernels:matched:wait_us:transfer_us, every rank
  query "SELECT rank || ':' || count(*) || ':' || count(match_group) || ':' || coalesce(sum(wait_ns) / 1000, 0) || ':' || coalesce(sum(transfer_ns) / 1000, 0) AS x
         FROM trace_collectives GROUP BY rank ORDER BY rank" | tr '\n' ' '
}
for how in rank dst; do
  rm -f "$db"
  "$XP" --db "$db" import torch-trace "$tmp"/$how/pp4_r[0-3].json > /dev/null 2>&1
  check "PP=4, peer as $how: exit" 0 $?
  # 6 microbatches: stage r's recvs wait 6 (40 r - 15) us, each send and recv transfers 10 us
  check "PP=4, peer as $how: every send and recv paired, each waiting for its own peer" \
    "0:6:6:0:60 1:12:12:150:120 2:12:12:390:120 3:6:6:630:60 " "$(per_rank)"
  check "PP=4, peer as $how: each matched set a send and a recv of two ranks" 0 \
    "$(sql "SELECT count(*) FROM (SELECT match_group FROM trace_collectives WHERE match_group IS NOT NULL
            GROUP BY match_group HAVING count(*) != 2 OR count(DISTINCT rank) != 2)")"
done
rm -f "$db"
# calls naming no peer: no pair can be told, none is split (their "Seq" made collectives of four
# of them: 24 matched)
"$XP" --db "$db" import torch-trace "$tmp"/none/pp4_r[0-3].json > /dev/null 2>&1
check "PP=4, no peer: exit" 0 $?
check "PP=4, no peer: none split" 0 "$(sql "SELECT count(match_group) FROM trace_collectives")"
rm -f "$db"
# kernels naming no group are pooled across the imported ranks, but a send/recv is no collective of
# four: stage 0's send, 1's, 2's and 3's recvs, every two overlapping, were one (12 of 36 split)
"$XP" --db "$db" import torch-trace "$tmp"/bare/pp4_r[0-3].json > /dev/null 2>&1
check "PP=4, no args at all: exit" 0 $?
check "PP=4, no args at all: none split" "0 of 36" "$(sql "SELECT count(match_group) || ' of ' || count(*) FROM trace_collectives")"
rm -f "$db"
# a group of two (PP=2): its own numbers pair it, as before
"$XP" --db "$db" import torch-trace "$tmp"/rank/pp2_r[01].json > /dev/null 2>&1
check "PP=2: exit" 0 $?
check "PP=2: every send and recv paired" "0:6:6:0:60 1:6:6:150:60 " "$(per_rank)"
finish
