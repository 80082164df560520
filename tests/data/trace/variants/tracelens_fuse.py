#!/usr/bin/env python3
"""Rebuild tracelens_fused.json.gz: sglang_tp0/tp1.json.gz merged into one file as TraceLens'
TraceFuse writes it (TraceFuse([rank0, rank1]).merge_and_save()).

Follows TraceLens/TraceFusion/trace_fuse.py of AMD-AGI/TraceLens at
13bed2cbb7cf86fa5ae37d48ea591c53ca2d1d20:
  - the linking key is "correlation" where the first file's first launch (a cuda_runtime or
    cuda_driver event with "launch" in its name) carries one, else "External id";
  - from the first file, for "id", "pid" and the linking key, the largest integer value M of
    each gives its multiplier 10^(ceil(log10 M) + 1);
  - each file's events but its "Trace" spans and python_function events are kept, in order,
    the files in rank order; each gets args "rank", and each of those fields it has is kept as
    args "<field>_raw" and, where an integer (the linking key always), raised by rank x its
    multiplier: rank 1's GPU pid 1 becomes 100001 (the CPU pid 1808 sets 10^5), its "device"
    arg stays 1;
  - only {"traceEvents": [...]} is written (no distributedInfo, no deviceProperties, no
    baseTimeNanoseconds), json.dump with indent=4, gzipped.
python3 tracelens_fuse.py writes tracelens_fused.json.gz here (tests/cli/trace_merged.sh).
"""
import gzip
import json
import math
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main():
    files = [os.path.join(HERE, f"sglang_tp{r}.json.gz") for r in (0, 1)]
    first = load(files[0])["traceEvents"]
    launch = next(e for e in first if e.get("cat") in ("cuda_runtime", "cuda_driver")
                  and "launch" in e.get("name", "").lower())
    key = "correlation" if "correlation" in launch["args"] else "External id"
    fields = ["id", "pid", key]
    largest = defaultdict(int)
    for e in first:
        for f in fields:
            v = e.get("args", {}).get(f) if f == key else e.get(f)
            if isinstance(v, int):
                largest[f] = max(largest[f], v)
    mult = {f: 10 ** (math.ceil(math.log10(m)) + 1) for f, m in largest.items()}
    merged = []
    for rank, path in enumerate(files):
        for e in load(path)["traceEvents"]:
            if e.get("cat") in ("Trace", "python_function"):
                continue
            e.setdefault("args", {})["rank"] = rank
            for f, m in mult.items():
                if f == key:
                    if f in e["args"]:
                        e["args"][f + "_raw"] = e["args"][f]
                        e["args"][f] += rank * m
                elif f in e:
                    e["args"][f + "_raw"] = e[f]
                    if type(e[f]) == int:
                        e[f] += rank * m
            merged.append(e)
    out = os.path.join(HERE, "tracelens_fused.json.gz")
    with gzip.GzipFile(out, "wb", mtime=0) as raw:
        raw.write(json.dumps({"traceEvents": merged}, indent=4).encode("utf-8"))


if __name__ == "__main__":
    main()
