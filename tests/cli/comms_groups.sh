#!/usr/bin/env bash
# Collectives matched across ranks where the job ran several groups: built from the shipped TP=2
# pair, its collective args taken away (as CUDA graphs' replays, vLLM's pynccl and custom
# all-reduce write them: no "Process Group Name"), and a second TP=2 pair made of it (ranks 2
# and 3 of a world of 4, its clock 2.5 ms later): two tensor-parallel groups (TP=2 x PP=2, or
# DP=2), whose all-reduces xp can only pool, as no kernel names its group.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
python3 - "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" "$tmp" <<'PY'
import copy, gzip, json, sys
ARGS = ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype", "In split size",
        "Out split size", "Process Group Name", "Process Group Description", "Process Group Ranks", "Seq")
for i, f in enumerate(sys.argv[1:3]):
    t = json.load(gzip.open(f))
    t["distributedInfo"]["world_size"] = 4
    for e in t["traceEvents"]:
        if e.get("cat") == "kernel":
            for k in ARGS:
                e.get("args", {}).pop(k, None)
        if e.get("name") == "record_param_comms":  # no c10d call: pynccl's
            e["name"] = "pynccl_all_reduce"
    json.dump(t, open("%s/u_r%d.json" % (sys.argv[3], i), "w"))
    t2 = copy.deepcopy(t)
    t2["distributedInfo"]["rank"] = i + 2
    for e in t2["traceEvents"]:
        if "ts" in e and e.get("ph") != "M":
            e["ts"] += 2500
    json.dump(t2, open("%s/u_r%d.json" % (sys.argv[3], i + 2), "w"))
PY
apart() { # matched sets of which two kernels do not overlap: no collective's
  sql "SELECT count(*) FROM (SELECT match_group FROM trace_collectives WHERE match_group IS NOT NULL
       GROUP BY match_group HAVING max(start_ns) > min(start_ns + dur_ns))"
}
"$XP" --db "$db" import torch-trace "$tmp/u_r0.json" "$tmp/u_r1.json" > /dev/null 2>&1
check "one TP pair, no group named: exit" 0 $?
check "one TP pair, no group named: every all-reduce of rank 0 matched" "256 of 256" \
  "$(sql "SELECT count(match_group) || ' of ' || count(*) FROM trace_collectives WHERE rank = 0")"
rm -f "$db"
"$XP" --db "$db" import torch-trace "$tmp"/u_r[0-3].json > /dev/null 2>&1
check "two TP pairs pooled: exit" 0 $?
check "two TP pairs pooled: no matched set holds kernels apart in time" 0 "$(apart)"
check "two TP pairs pooled: most left unmatched" 1 \
  "$(sql "SELECT count(match_group) < count(*) / 10 FROM trace_collectives")"
# Two hosts whose clocks are 3 ms apart, which the traces do not name (Kineto writes no host):
# rank 1's events 3 ms later. Paired by time overlap, its all-reduces were paired with the wrong
# ones of rank 0's; now their ends say the clocks differ: without Seq none is split, with it
# (every kernel of the group numbered, as c10d's args give) they pair by number and the ends set
# the clock, as for hosts the traces name.
python3 - "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" "$tmp" <<'PY'
import gzip, json, sys
for i, f in enumerate(sys.argv[1:3]):
    t = json.load(gzip.open(f))
    ks = sorted((e for e in t["traceEvents"] if e.get("cat") == "kernel"
                 and (e.get("args") or {}).get("Process Group Name") == "0"), key=lambda e: e["ts"])
    for e in t["traceEvents"]:
        if i == 1 and "ts" in e and e.get("ph") != "M":
            e["ts"] += 3000
    json.dump(t, open("%s/c_r%d.json" % (sys.argv[3], i), "w"))
    for n, e in enumerate(ks):
        e["args"]["Seq"] = n + 1
    json.dump(t, open("%s/cseq_r%d.json" % (sys.argv[3], i), "w"))
PY
rm -f "$db"
"$XP" --db "$db" import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" > /dev/null 2>&1
truth=$(sql "SELECT sum(wait_ns) FROM trace_collectives WHERE rank = 0")
rm -f "$db"
"$XP" --db "$db" import torch-trace "$tmp/c_r0.json" "$tmp/c_r1.json" > "$tmp/out" 2>&1
check "clocks 3 ms apart, no Seq: exit" 0 $?
check "clocks 3 ms apart, no Seq: nothing split" 0 "$(sql "SELECT count(match_group) FROM trace_collectives")"
check "clocks 3 ms apart, no Seq: said" 1 "$(grep -c 'do not end together (292.3 us apart, the median)' "$tmp/out")"
rm -f "$db"
"$XP" --db "$db" import torch-trace "$tmp/cseq_r0.json" "$tmp/cseq_r1.json" > /dev/null 2>&1
check "clocks 3 ms apart, Seq: exit" 0 $?
check "clocks 3 ms apart, Seq: every all-reduce of rank 0 split" "256 of 256" \
  "$(sql "SELECT count(match_group) || ' of ' || count(*) FROM trace_collectives WHERE rank = 0")"
check "clocks 3 ms apart, Seq: rank 0's waiting within 0.01% of one clock's" 1 \
  "$(sql "SELECT abs(sum(wait_ns) - $truth) < $truth / 10000 FROM trace_collectives WHERE rank = 0")"
finish
