"""Writes cugraph_annotated.json (python3 cugraph_annotated.py > cugraph_annotated.json): a CUDA
graph's trace as PyTorch 2.12's post-processing leaves it (python -m
torch.cuda._annotate_cuda_graph_trace, pytorch/pytorch torch/cuda/_annotate_cuda_graph_trace.py at
128ac23a1dde854a6d0cd4cc59d0fa87ce4cc4a1). The raw trace is first built as Kineto writes it (a
graph's kernels on the stream it was launched into, each with its launch's correlation and a
nonzero "graph id" / "graph node id": pytorch/kineto libkineto/src/CuptiActivity.cpp,
getGraphNodeMetadata), then the script's passes are applied as its main() runs them, followed, not
copied: annotate_trace (every graphed activity's tid and args "stream" set to its mark_kernels
annotation's "stream", else 7; the annotation's keys added to its args as strings; the "ac2g" flow
ends at its stream and start moved with it; gpu_user_annotation events and flow ends on streams left
without work removed, their thread_name too, "stream N" names added under the GPU's pid),
_move_overlapping_to_stream (a graphed kernel on 7 that starts before the last kept one there ends
goes to 8) and _fix_overlapping_timestamps (per tid, a graphed activity that starts at most 1 us
before the previous one ends starts at that end). README.md says what it holds."""
import json

ev = []
P = 100
GRAPH_ID, EXEC = 3, 9  # the exec graph's id is the upper 32 bits of a node's id


def x(cat, name, pid, tid, ts, dur, args):
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": dict(args)})


def kern(name, ts, dur, stream, corr, ext=None, node=0):
    args = ([("External id", ext)] if ext else []) + [
        ("queued", 0), ("device", 0), ("context", 1), ("stream", stream), ("correlation", corr),
        ("registers per thread", 32), ("shared memory", 0), ("blocks per SM", 0.5), ("warps per SM", 2.0),
        ("grid", [64, 1, 1]), ("block", [128, 1, 1]), ("est. achieved occupancy %", 25),
        ("graph id", GRAPH_ID if node else 0), ("graph node id", EXEC << 32 | node if node else 0)]
    x("kernel", name, 0, stream, ts, dur, args)


# the graph's nodes as the capture annotated them (mark_kernels; get_kernel_annotations' shape)
NODES = [  # node, name, start and length within the replay, annotation
    (1, "qkv_gemm", 0.0, 60.0, {"name": "qkv_proj"}),
    (2, "rope_kernel", 10.0, 20.0, None),  # a branch beside qkv_gemm: both to 7, it to 8
    (3, "attn_softmax", 60.0, 30.0, {"name": "attention", "stream": 62}),
    (4, "attn_pv_gemm", 89.5, 30.0, {"name": "attention", "stream": 62}),  # 0.5 us early: moved
    (5, "mlp_up_gemm", 120.0, 80.0, {"name": "mlp", "stream": 61}),
    (6, "mlp_down_gemm", 200.0, 60.0, {"name": "mlp", "stream": 61}),
]
ANN = {EXEC << 32 | n: [a] for n, _, _, _, a in NODES if a}

for k in (1, 2):
    t = 1000.0 * k
    x("user_annotation", "ProfilerStep#%d" % k, P, P, t, 1000, [("External id", 10 * k)])
    x("cuda_runtime", "cudaGraphLaunch", P, P, t + 50, 10, [("External id", 10 * k + 1), ("cbid", 311),
                                                             ("correlation", 100 * k + 1)])
    # eager work beside the replay (launched into stream 13) on a real stream whose number the
    # script also gives graphed kernels: the default stream 7 in step 1, stream 61 in step 2
    op, kname, stream, at, dur = (("aten::copy_", "elementwise_copy_kernel", 7, 95.0, 300.0) if k == 1 else
                                  ("aten::index_put_", "index_put_kernel", 61, 210.0, 170.0))
    x("cpu_op", op, P, P, t + 70, 30, [("External id", 10 * k + 2), ("Input Dims", [[4096], [4096]])])
    x("cuda_runtime", "cudaLaunchKernel", P, P, t + 75, 10, [("External id", 10 * k + 2), ("cbid", 211),
                                                              ("correlation", 100 * k + 2)])
    kern(kname, t + at, dur, stream, 100 * k + 2, ext=10 * k + 2)
    for n, name, start, length, _ in NODES:
        kern(name, t + 100 + start, length, 13, 100 * k + 1, node=n)
    # CUPTI copies the step's GPU annotation onto each stream the replay ran on
    x("gpu_user_annotation", "ProfilerStep#%d" % k, 0, 13, t + 100, 260, [("External id", 10 * k)])
for tid in (7, 13, 61):
    ev.append({"ph": "M", "name": "thread_name", "pid": 0, "tid": tid, "args": {"name": "stream %d" % tid}})
ev.append({"ph": "X", "cat": "Trace", "ts": 900.0, "dur": 2200.0, "pid": "Spans", "tid": "PyTorch Profiler",
           "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150754820096}],
         "traceEvents": ev, "traceName": "cugraph_annotated.json", "displayTimeUnit": "ms",
         "baseTimeNanoseconds": 1790000000000000000}

WORK = {"kernel", "gpu_memcpy", "gpu_memset"}


def graphed(e):
    return e.get("args", {}).get("graph node id", 0) != 0


def annotate(trace, ann, default_stream=7):
    """annotate_trace: each graphed activity to its annotation's stream, else the default, and the
    "ac2g" flow ends ("f") written at its stream and start with it; ann maps a graph node id to its
    annotations (get_kernel_annotations' shape)."""
    flow_ends = {}
    for e in trace["traceEvents"]:
        if e.get("cat") == "ac2g" and e.get("ph") == "f":
            flow_ends.setdefault((e.get("tid"), e.get("ts")), []).append(e)
    for e in trace["traceEvents"]:
        if not graphed(e):
            continue
        args, stream = e["args"], None
        for a in ann.get(args["graph node id"], []):
            for key, value in a.items():
                args[key] = str(value)
            if "stream" in a:
                stream = int(a["stream"])
        old = (e.get("tid"), e.get("ts"))
        e["tid"] = args["stream"] = default_stream if stream is None else stream
        for f in flow_ends.get(old, ()):
            f["tid"] = e["tid"]
    work = {e.get("tid") for e in trace["traceEvents"] if e.get("cat") in WORK}
    trace["traceEvents"] = [e for e in trace["traceEvents"]
                            if not ((e.get("cat") == "gpu_user_annotation" or
                                     (e.get("cat") == "ac2g" and e.get("ph") == "f")) and e.get("tid") not in work)]
    live = {e.get("tid") for e in trace["traceEvents"] if e.get("ph") != "M"}
    gpu_pid = next((e.get("pid", 0) for e in trace["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name"
                    and str(e.get("args", {}).get("name", "")).startswith("stream ")), 0)
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("ph") != "M" or e.get("tid") in live]
    named = {e.get("tid") for e in trace["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name"}
    for tid in sorted(work - named):
        trace["traceEvents"].append({"ph": "M", "pid": gpu_pid, "tid": tid, "name": "thread_name",
                                     "args": {"name": "stream %d" % tid}})


def move_overlapping(trace, default_stream=7, overlap_stream=8):
    """_move_overlapping_to_stream: graphed kernels on 7 that start before the last kept one ends."""
    on = sorted((e for e in trace["traceEvents"] if e.get("cat") == "kernel" and e.get("tid") == default_stream
                 and graphed(e)), key=lambda e: e["ts"])
    prev_end = 0.0
    for e in on:
        if e["ts"] < prev_end:
            e["tid"] = e["args"]["stream"] = overlap_stream
        else:
            prev_end = e["ts"] + e.get("dur", 0)


def fix_timestamps(trace, most=1.0):
    """_fix_overlapping_timestamps: per tid, a graphed activity up to 1 us early starts at the end."""
    per = {}
    for e in trace["traceEvents"]:
        if e.get("cat") in WORK and graphed(e):
            per.setdefault(e.get("tid"), []).append(e)
    for events in per.values():
        events.sort(key=lambda e: e["ts"])
        prev_end = 0.0
        for e in events:
            if e["ts"] < prev_end and prev_end - e["ts"] <= most:
                e["ts"] = prev_end
            prev_end = e["ts"] + e.get("dur", 0)


def post_process(trace, ann):
    """The script's main(): its three passes in order."""
    annotate(trace, ann)
    move_overlapping(trace)
    fix_timestamps(trace)


def dump(trace):
    """The trace as these scripts print it: one event a line."""
    top = ",\n ".join('"%s": %s' % (k, json.dumps(v)) for k, v in trace.items() if k != "traceEvents")
    return '{%s,\n "traceEvents": [\n %s\n]}' % (top, ",\n ".join(json.dumps(e) for e in trace["traceEvents"]))


if __name__ == "__main__":
    post_process(trace, ANN)
    print(dump(trace))
