#!/usr/bin/env python3
"""An independent split of collective kernels into waiting and transfer, to check xp's.

  comms_crosscheck.py DB RANK0.json.gz RANK1.json.gz ...

Reads the raw traces (python3's standard library alone: gzip, json) and xp's database of their
import (xp import torch-trace RANK0 RANK1 --db DB, the newest run), and prints each difference
between the two, one a line; exit 1 if any, 0 if none.

The method is TraceLens's (AMD-AGI/TraceLens NcclAnalyser build_df_long and
build_df_nccl_implicit_sync_cat), not xp's: a rank's collective kernels are numbered in start
order within their process group ("Process Group Name"), and the n-th of every rank is one
collective; its skew is the latest start less each rank's own ("rank_r_wait_time"), and its
latency the shortest kernel ("comm_latency"). Two departures, each a case TraceLens gets wrong
on real traces:
  - TraceLens numbers from the first kernel each rank recorded, so a rank whose profiler window
    began earlier, or that lacks one collective (its window cut, an event lost), pairs every
    later all-reduce with the wrong one of the other rank's. Here the ranks' lists are walked
    together: their heads are one collective where they overlap one another in time and agree
    on the message size, else the head that ends first has no peer and is passed over.
  - A kernel's transfer here is its end less the last start (capped at its duration), xp's; the
    shortest kernel (TraceLens) is the same figure when the members end together, as NCCL's
    kernels do, and both are printed where they differ by more than 1%.
Per rank and step, the all-reduces' time, matched time and waiting are compared with
trace_step_collectives; over the run, with trace_step_totals. Shares are those of
queries/bottleneck_by_config.sql: a kernel's step is the ProfilerStep#N
around its launch (the cuda_runtime/cuda_driver call of its correlation id) on the CPU; step
time is the summed GPU activity durations in the steps; AllReduce transfer-only is
(matched - waiting) / (step time - waiting - unmatched AllReduce).
"""
import decimal
import gzip
import json
import sqlite3
import sys

D = decimal.Decimal


def ns(us):
    """Trace microseconds (as written) to integer nanoseconds, exactly as xp rounds them."""
    return int((D(str(us)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=str)  # exact: converted where used (ns)


GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}


def is_collective(ev):
    n = ev.get("name", "")
    return ev.get("cat") in ("kernel", "Kernel") and (
        n.startswith("nccl") or n.startswith("rccl") or "Collective name" in ev.get("args", {}))


def read_rank(path):
    t = load(path)
    evs = t["traceEvents"]
    rank = (t.get("distributedInfo") or {}).get("rank")
    launch = {}  # correlation -> CPU ts of its launch
    steps = []
    for e in evs:
        c, a = e.get("cat"), e.get("args") or {}
        if c in ("cuda_runtime", "cuda_driver", "Runtime") and "correlation" in a:
            launch[a["correlation"]] = ns(e["ts"])
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#") and c == "user_annotation":
            steps.append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    steps.sort()

    def step_of(ev):
        ts = launch.get((ev.get("args") or {}).get("correlation"))
        if ts is None:
            return None
        for i, (s, e) in enumerate(steps):
            if s <= ts < e:
                return i
        return None

    gpu, colls = [], []
    for e in evs:
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS:
            continue
        g = {"start": ns(e["ts"]), "dur": ns(e["dur"]), "step": step_of(e), "name": e["name"]}
        gpu.append(g)
        if is_collective(e):
            a = e.get("args") or {}
            g.update(pg=a.get("Process Group Name"), coll=a.get("Collective name"),
                     members=json.loads(a["Process Group Ranks"]) if "Process Group Ranks" in a else None,
                     nelems=a.get("In msg nelems"), wait=None, transfer=None, latency=None)
            colls.append(g)
    colls.sort(key=lambda k: k["start"])
    return {"file": path, "rank": rank, "gpu": gpu, "colls": colls, "nsteps": len(steps)}


def overlaps(a, b):
    return a["start"] <= b["start"] + b["dur"] and b["start"] <= a["start"] + a["dur"]


def match(ranks):
    """Number each group's kernels from the first that every rank has, TraceLens-like."""
    groups = sorted({k["pg"] for r in ranks for k in r["colls"] if k["pg"] is not None})
    bad = []
    for pg in groups:
        members = [[k for k in r["colls"] if k["pg"] == pg] for r in ranks]
        listed = next(k["members"] for m in members for k in m)
        imported = {r["rank"] for r in ranks}
        if any(not m for m in members) or len(ranks) < 2 or (listed is not None and not set(listed) <= imported):
            continue  # a member not imported: no collective of the group is complete
        # a walk down every rank's list at once: the heads are one collective where they overlap
        # one another and agree on the message, else the head that ends first has no peer here
        # (a collective one rank's window holds and another's does not, at either end or in a gap)
        at = [0] * len(members)
        while all(i < len(m) for i, m in zip(at, members)):
            ks = [m[i] for m, i in zip(members, at)]
            if all(overlaps(x, y) for x in ks for y in ks) and len({k["nelems"] for k in ks}) == 1:
                last = max(k["start"] for k in ks)
                latency = min(k["dur"] for k in ks)
                for k in ks:
                    k["wait"] = min(max(last - k["start"], 0), k["dur"])
                    k["transfer"] = k["dur"] - k["wait"]
                    k["latency"] = latency
                at = [i + 1 for i in at]
            else:
                x = min(range(len(ks)), key=lambda x: ks[x]["start"] + ks[x]["dur"])
                bad.append((pg, x, ks[x]["start"]))
                at[x] += 1
    return bad


def shares(ranks):
    step_ns = sum(g["dur"] for r in ranks for g in r["gpu"] if g["step"] is not None)
    ar = [k for r in ranks for k in r["colls"] if k["step"] is not None and k["coll"] == "allreduce"]
    ar_ns = sum(k["dur"] for k in ar)
    matched = sum(k["dur"] for k in ar if k["wait"] is not None)
    wait = sum(k["wait"] for k in ar if k["wait"] is not None)
    transfer = (matched - wait) / (step_ns - wait - (ar_ns - matched)) if matched else None
    return step_ns, ar_ns, matched, wait, transfer


def main():
    db, files = sys.argv[1], sys.argv[2:]
    ranks = [read_rank(f) for f in files]
    bad = match(ranks)
    for pg, x, start in bad:
        print("note: group %s: %s's kernel at %d has no peer on every rank" % (pg, files[x], start))
    diffs = []
    con = sqlite3.connect(db)
    run = con.execute("SELECT max(run_id) FROM trace_ranks").fetchone()[0]
    for r in ranks:
        rows = con.execute("SELECT start_ns, dur_ns, wait_ns, transfer_ns FROM trace_collectives "
                           "WHERE run_id = ? AND rank = ? ORDER BY start_ns", (run, r["rank"])).fetchall()
        if len(rows) != len(r["colls"]):
            diffs.append("rank %s: xp has %d collective kernels, the trace %d" % (r["rank"], len(rows), len(r["colls"])))
            continue
        off = rows[0][0] - r["colls"][0]["start"] if rows else 0  # xp's clock: the trace's plus its base
        for (s, d, w, t), k in zip(rows, r["colls"]):
            if s - off != k["start"] or d != k["dur"] or w != k["wait"] or t != k["transfer"]:
                diffs.append("rank %s kernel at %d: xp %s/%s, here %s/%s (wait/transfer ns)"
                             % (r["rank"], k["start"], w, t, k["wait"], k["transfer"]))
            elif k["wait"] is not None and abs(k["transfer"] - k["latency"]) > 0.01 * max(k["latency"], 1) + 1000:
                print("note: rank %s kernel at %d: transfer %d ns, TraceLens's latency (shortest member) %d ns"
                      % (r["rank"], k["start"], k["transfer"], k["latency"]))
    # per rank and step: the all-reduces' time, matched time and waiting (trace_step_collectives)
    for r in ranks:
        mine = {}
        for k in r["colls"]:
            if k["step"] is None or k["coll"] != "allreduce":
                continue
            v = mine.setdefault(k["step"], [0, 0, 0])
            v[0] += k["dur"]
            if k["wait"] is not None:
                v[1] += k["dur"]
                v[2] += k["wait"]
        xp = {s: [d, m or 0, w or 0] for s, d, m, w in con.execute(
            "SELECT step, dur_ns, matched_dur_ns, wait_ns FROM trace_step_collectives WHERE run_id = ? AND rank = ? "
            "AND collective = 'allreduce' AND step IS NOT NULL", (run, r["rank"]))}
        if mine != xp:
            diffs.append("rank %s per step (all-reduce, matched, waiting ns): xp %s, here %s" % (r["rank"], xp, mine))
    st = con.execute("SELECT step_ns, allreduce_ns, allreduce_matched_ns, allreduce_wait_ns FROM trace_step_totals "
                     "WHERE run_id = ?", (run,)).fetchone()
    mine = shares(ranks)
    if st is None or tuple(st) != mine[:4]:
        diffs.append("step totals (step, allreduce, matched, waiting ns): xp %s, here %s" % (st, mine[:4]))
    else:
        print("step time %d ns, allreduce %.1f%% as recorded, %.1f%% transfer only; %d of %d kernels matched"
              % (mine[0], 100.0 * mine[1] / mine[0], 100.0 * (mine[4] or 0),
                 sum(k["wait"] is not None for r in ranks for k in r["colls"]),
                 sum(len(r["colls"]) for r in ranks)))
    for d in diffs:
        print("DIFF: " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
