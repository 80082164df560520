#!/usr/bin/env python3
"""A rank's communication time, and the part of it exposed, as HTA computes them, from the raw trace.

HTA's CommunicationAnalysis.get_comm_comp_overlap (hta/analyzers/communication_analysis.py) takes
every event with a stream (not -1) as a GPU kernel, sorts each into a kernel type by its name
(hta/utils/utils.py get_kernel_type, patterns of hta/common/types.py at f4d0062), merges the
COMMUNICATION kernels and the COMPUTATION kernels apart and measures the time both ran. Printed:
the communication's union, the part no other activity overlapped (xp's exposed_ns), and the part no
computation overlapped (HTA's: communication less its overlap), in ms to three decimals, as xp's
import summary writes them. Standard library only, so that it runs wherever the tests do.
"""
import gzip
import json
import re
import sys

COMMUNICATION = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTATION = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
    r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
    r"|(^collective_subgraph_execution)")


def kernel_type(name):
    if COMMUNICATION.match(name):
        return "COMMUNICATION"
    if MEMORY.match(name):
        return "MEMORY"
    return "OTHER" if NOT_COMPUTATION.match(name) else "COMPUTATION"


def merged(spans):
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def common(a, b):
    t = i = j = 0
    while i < len(a) and j < len(b):
        t += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def main(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    comm, other, compute = [], [], []
    for e in events:
        stream = (e.get("args") or {}).get("stream", -1)
        if e.get("ph") != "X" or not isinstance(stream, int) or stream == -1:
            continue
        start = round(float(e["ts"]) * 1000)
        span = (start, start + round(float(e.get("dur", 0)) * 1000))
        kind = kernel_type(e["name"])
        (comm if kind == "COMMUNICATION" else other).append(span)
        if kind == "COMPUTATION":
            compute.append(span)
    comm = merged(comm)
    total = sum(e - s for s, e in comm)
    exposed = total - common(comm, merged(other))
    compute_exposed = total - common(comm, merged(compute))
    print("%.3f %.3f %.3f" % (total / 1e6, exposed / 1e6, compute_exposed / 1e6))


if __name__ == "__main__":
    main(sys.argv[1])
