#!/usr/bin/env python3
"""Rebuild sglang_merged.json.gz: sglang_tp0/tp1.json.gz merged into one file as SGLang's profile
merger writes it (--merge-profiles, /start_profile with "merge_profiles": true).

Follows python/sglang/srt/utils/profile_merger.py (ProfileMerger.merge_chrome_traces) of
sgl-project/sglang at 38736e5585712f9c107ad03a477641849025a59f (the same at 1a4eb3f9a926d1a936ac351edf80c0bb9d308e09):
  - each rank's file, named as the scheduler names it ("<profile_id>-TP-<tp>[-DP-<dp>][-PP-<pp>]
    [-EP-<ep>].trace.json.gz", the DP/PP/EP parts only where that size is over 1), is read in the
    order of its (DP, EP, PP, TP) ranks;
  - every event's "pid" becomes the string "<label> <pid>", the label "[TP00]" (the ranks its file
    names, in the order TP, DP, PP, EP, each two digits or more, joined by "-": "[TP01-DP00-PP01]");
    the GPU's pid (its device) and the CPU process's alike; "tid" is kept;
  - a "process_sort_index" event of a pid below 1000 gets sort_index DP * 1e8 + EP * 1e6 +
    PP * 1e4 + TP * 100 + pid (Kineto writes them for its pseudo-processes; the samples have none);
  - the events are concatenated, not sorted; of the top-level keys the first file's are kept
    (distributedInfo: rank 0's), but deviceProperties, which are every file's, concatenated.
python3 sglang_merge.py writes sglang_merged.json.gz here, the files named as a TP 2 run's;
python3 sglang_merge.py OUT NAME0 NAME1 [FILE0 FILE1] writes OUT, the two files (sglang_tp0/tp1
unless given) named as ranks NAME0 and NAME1 ("TP-0-PP-0", "TP-0-PP-1": a run of TP 1 and PP 2)
name theirs (tests/cli/trace_merged.sh).
"""
import gzip
import json
import os
import re
import shutil
import sys
import tempfile

KINDS = ("tp", "dp", "pp", "ep")


def ranks_of(name):
    return {k: int(m.group(1)) for k in KINDS if (m := re.search(k.upper() + r"-(\d+)", name))}


def label_of(ranks):
    parts = [f"{k.upper()}{ranks[k]:02d}" for k in KINDS if k in ranks]
    return "[" + "-".join(parts) + "]" if parts else "[Unknown]"


def sort_key(name):
    ranks = ranks_of(name)
    return tuple(ranks.get(k, 0) for k in ("dp", "ep", "pp", "tp"))


def relabel(events, ranks):
    label = label_of(ranks)
    for e in events:
        if e.get("name") == "process_sort_index":
            try:
                pid = int(e.get("pid"))
            except (TypeError, ValueError):
                pid = None
            if pid is not None and pid < 1000:
                e["args"]["sort_index"] = (ranks.get("dp", 0) * 100000000 + ranks.get("ep", 0) * 1000000 +
                                           ranks.get("pp", 0) * 10000 + ranks.get("tp", 0) * 100 + pid)
        e["pid"] = f"{label} {e['pid']}"
    return events


def merge(paths):
    merged = {"traceEvents": []}
    props = []
    for path in sorted(paths, key=lambda p: sort_key(os.path.basename(p))):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            trace = json.load(f)
        out = {k: v for k, v in trace.items() if k != "traceEvents"}
        out["traceEvents"] = relabel(trace.get("traceEvents", []), ranks_of(os.path.basename(path)))
        merged["traceEvents"].extend(out["traceEvents"])
        props.extend(out.pop("deviceProperties", []))
        for k, v in out.items():
            if k != "traceEvents" and k not in merged:
                merged[k] = v
    if props:
        merged["deviceProperties"] = props
    return merged


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    out = argv[1] if len(argv) > 1 else os.path.join(here, "sglang_merged.json.gz")
    names = argv[2:4] if len(argv) > 3 else ["TP-0", "TP-1"]  # the scheduler's names, a TP 2 run's
    files = argv[4:6] if len(argv) > 5 else [os.path.join(here, f"sglang_tp{i}.json.gz") for i in (0, 1)]
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, src in zip(names, files):
            p = os.path.join(d, f"1790857026.5-{name}.trace.json.gz")
            shutil.copy(src, p)
            paths.append(p)
        merged = merge(paths)
    with open(out, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:  # mtime 0: the same bytes each run
            f.write(json.dumps(merged).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv)
