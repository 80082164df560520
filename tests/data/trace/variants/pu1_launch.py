"""Writes pu1_launch.json (python3 pu1_launch.py > pu1_launch.json): a MUSA GPU's trace as Moore
Threads' Kineto writes it (MooreThreads/kineto MuptiActivity.cpp at 71794197, output_json.cpp at
01bbf385); with "musa", musa_launch.json: the same as its Kineto of 3cc16294 named the categories
(musa_runtime, musa_driver); with "mlu", mlu_launch.json: a Cambricon MLU's as kineto_mlu of
Cambricon/torch_mlu 63e70928 writes it (mlu_runtime, mlu_memcpy; CnpapiActivity.tpp at 4ef769f3).
README.md says what they hold."""
import json, sys
MODE = sys.argv[1] if len(sys.argv) > 1 else "pu1"
RT, DRV, COPY = {"pu1": ("privateuse1_runtime", "privateuse1_driver", "gpu_memcpy"),
                 "musa": ("musa_runtime", "musa_driver", "gpu_memcpy"),
                 "mlu": ("mlu_runtime", "mlu_runtime", "mlu_memcpy")}[MODE]
MLU = MODE == "mlu"
ev = []
P, T = 3131, 3131
def x(cat, name, pid, tid, ts, dur, args):
    ev.append('{"ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s, "ts": %.3f, "dur": %.3f, "args": {%s}}'
              % (cat, name, pid, tid, ts, dur, ", ".join('"%s": %s' % (k, json.dumps(v)) for k, v in args)))
def kern(name, ts, dur, stream, corr, ext):
    if MLU:
        return x("kernel", name, 0, stream, ts, dur, [("External id", ext), ("queued", 0), ("device", 0),
                 ("context", 1), ("stream", stream), ("correlation", corr), ("kernel type", "BLOCK"),
                 ("dimx", 4), ("dimy", 1), ("dimz", 1), ("tasktopo", 0), ("tasktopo_node", 0)])
    x("kernel", name, 0, stream, ts, dur, [("External id", ext), ("queued", 0), ("device", 0), ("context", 1),
      ("stream", stream), ("correlation", corr), ("registers per thread", 32), ("shared memory", 0),
      ("blocks per SM", 0.5), ("warps per SM", 2.0), ("grid", [64, 1, 1]), ("block", [128, 1, 1]),
      ("est. achieved occupancy %", 25)])
def copy(ts, dur, stream, corr):
    x(COPY, "Memcpy HtoD" if MLU else "Memcpy HtoD (Pinned -> Device)", 0, stream, ts, dur, [("External id", corr), ("device", 0),
      ("context", 1), ("stream", stream), ("correlation", corr), ("bytes", 4096), ("memory bandwidth (GB/s)", 0.1)])
for k in (1, 2, 3):
    t = 1000.0 * k
    x("user_annotation", "ProfilerStep#%d" % k, P, T, t, 1000, [("External id", 10 * k)])
    x("cpu_op", "aten::mm", P, T, t + 100, 200, [("External id", 10 * k + 1), ("Input Dims", [[8, 64], [64, 64]])])
for k in (1, 2, 3):
    t = 1000.0 * k
    c = 100 * k
    launch, drv, cpy = ("cnInvokeKernel", "cnInvokeKernel", "cnMemcpyAsync") if MLU else \
        ("musaLaunchKernel", "muLaunchKernel", "musaMemcpyAsync")
    x(RT, launch, P, T, t + 150, 20, [("External id", 10 * k + 1), ("cbid", 211), ("correlation", c + 10)])
    x(RT, launch, P, T, t + 400, 20, [("External id", c + 11), ("cbid", 211), ("correlation", c + 11)])
    x(DRV, drv, P, T, t + 450, 10, [("External id", c + 12), ("cbid", 307), ("correlation", c + 12)])
    x(RT, cpy, P, T, t + 500, 20, [("External id", c + 13), ("cbid", 41), ("correlation", c + 13)])
    if k == 1:
        kern("warmup_kernel", 1010, 5, 8, 5, 5)
    g = t + 1000
    kern("gemm_kernel", g + 100, 50, 7, c + 10, 10 * k + 1)
    kern("fill_kernel", g + 200, 30, 8, c + 11, c + 11)
    kern("triton_poi_fused_add_0", g + 250, 10, 8, c + 12, c + 12)
    copy(g + 300, 40, 9, c + 13)
ev.append('{"ph": "X", "cat": "Trace", "ts": 500.000, "dur": 4400.000, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}}')
print('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "%s", "totalGlobalMem": 51539607552}],\n  "traceEvents": [\n  ' % ("MLU370-X8" if MLU else "MTT S4000") + ",\n  ".join(ev) + '\n],\n  "traceName": "%s_launch.json",' % MODE + '\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1790000000000000000\n}')
