"""Writes cugraph_comms_r{0,1}.json (python3 cugraph_comms.py RANK > cugraph_comms_rRANK.json): one
rank of two replaying a CUDA graph that holds an NCCL all-reduce, its trace post-processed by PyTorch
2.12's python -m torch.cuda._annotate_cuda_graph_trace (pytorch/pytorch
torch/cuda/_annotate_cuda_graph_trace.py at 128ac23a1dde854a6d0cd4cc59d0fa87ce4cc4a1; its passes as
cugraph_annotated.py applies them) with the annotations the tutorial "CUDA Graph Kernel Annotations
and Profiling" (pytorch/tutorials, PyTorch 2.12+) records for a graphed collective: its
annotate_collective() wraps dist.all_reduce in mark_kernels({"name": "all_reduce", "In msg nelems":
numel, "Out msg nelems": numel, "Group size": len(ranks), "dtype": str(dtype) without "torch.",
"Process Group Name", "Process Group Description", "Process Group Ranks": ranks, "stream":
get_stream_for_pg(...)}), get_stream_for_pg numbering lanes from 60 (torch/cuda/_graph_annotations.py).
The post-processing writes each value with str(), so the counts are strings ("1048576"), the ranks
"[0, 1]" and the dtype "float32" (an eager trace's "Float"); no "Collective name", "Seq" or "Rank"
(record_param_comms runs once, at capture). README.md says what it holds."""
import sys

from cugraph_annotated import dump, post_process

RANK = int(sys.argv[1])
P = 4100 + RANK  # the process; its GPU's events are under pid RANK (the device)
GRAPH_ID, EXEC = 2, 5
NELEMS = 4 * 256 * 1024  # the tutorial's build_comm_block: x @ W of (4, 256, 1024) fp32
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
GEMM = "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel"
ANN = {
    EXEC << 32 | 1: [{"name": "proj", "stream": 61}],
    EXEC << 32 | 2: [{"name": "all_reduce", "In msg nelems": NELEMS, "Out msg nelems": NELEMS, "Group size": 2,
                      "dtype": "float32", "Process Group Name": "0", "Process Group Description": "default_pg",
                      "Process Group Ranks": [0, 1], "stream": 60}],
}

ev = []


def x(cat, name, pid, tid, ts, dur, args):
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": dict(args)})


def flow(ph, corr, pid, tid, ts):
    """Kineto's "ac2g" link of a launch ("s") and its activity ("f"): output_json.cpp handleLink."""
    e = {"ph": ph, "id": corr, "pid": pid, "tid": tid, "ts": ts, "cat": "ac2g", "name": "ac2g"}
    if ph == "f":
        e["bp"] = "e"
    ev.append(e)


def graph_kernel(name, ts, dur, corr, node, launch_ts):
    """A graph node's kernel as Kineto writes it: on the stream the graph was launched into (7), its
    launch's correlation, the graph's and node's ids (CuptiActivity.cpp getGraphNodeMetadata)."""
    x("kernel", name, RANK, 7, ts, dur, [
        ("queued", 0), ("device", RANK), ("context", 1), ("stream", 7), ("correlation", corr),
        ("registers per thread", 96), ("shared memory", 49152), ("blocks per SM", 1.0), ("warps per SM", 4.0),
        ("grid", [64, 1, 1]), ("block", [128, 1, 1]), ("est. achieved occupancy %", 6),
        ("graph id", GRAPH_ID), ("graph node id", EXEC << 32 | node)])
    flow("s", corr, P, P, launch_ts)
    flow("f", corr, RANK, 7, ts)


# Rank 1 gets to each step 10 us after rank 0, and to the all-reduce 15 us after it; both end the
# all-reduce together, when the last one's data has arrived.
for k in (1, 2):
    t = 1000.0 * k + 10 * RANK
    x("user_annotation", "ProfilerStep#%d" % k, P, P, t, 1000, [("External id", 10 * k)])
    x("cuda_runtime", "cudaGraphLaunch", P, P, t + 50, 12, [("External id", 10 * k), ("cbid", 311),
                                                           ("correlation", 100 * k + 1)])
    graph_kernel(GEMM, t + 100, 40 + 5 * RANK, 100 * k + 1, 1, t + 50)
    graph_kernel(AR, t + 145 + 5 * RANK, 55 - 15 * RANK, 100 * k + 1, 2, t + 50)
    x("gpu_user_annotation", "ProfilerStep#%d" % k, RANK, 7, t + 100, 100 - 10 * RANK, [("External id", 10 * k)])
ev.append({"ph": "M", "name": "process_name", "pid": RANK, "tid": 0, "args": {"name": "GPU %d" % RANK}})
ev.append({"ph": "M", "name": "thread_name", "pid": RANK, "tid": 7, "args": {"name": "stream 7"}})
ev.append({"ph": "X", "cat": "Trace", "ts": 900.0, "dur": 2200.0, "pid": "Spans", "tid": "PyTorch Profiler",
           "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
trace = {"schemaVersion": 1, "deviceProperties": [{"id": RANK, "name": "NVIDIA H200", "totalGlobalMem": 150754820096}],
         "distributedInfo": {"backend": "nccl", "rank": RANK, "world_size": 2, "pg_count": 1,
                             "nccl_version": "2.27.5"},
         "traceEvents": ev, "traceName": "cugraph_comms_r%d.json" % RANK, "displayTimeUnit": "ms",
         "baseTimeNanoseconds": 1790000000000000000}

post_process(trace, ANN)
print(dump(trace))
