"""Writes flow_launch.json (python3 flow_launch.py > flow_launch.json): launches linked to their
kernels by Kineto's flows alone, as its JSON writer writes the generic activities of a plugin that
adds no metadata of its own (pytorch/kineto libkineto/src/output_json.cpp at 002d9919,
handleActivity: args only "External id", the linked operator's, and none on a kernel or runtime
call that links none; handleLink: a "s" at the launch's pid, tid and ts and a "f" with "bp": "e" at
the activity's, category and name "ac2g", the id the plugin's flow id; DeepLink-org/deeplink.framework
dipu/torch_dipu/csrc_dipu/profiler/DIPUDeviceActivity.cpp at 9922b38e, processActivities: one id as
the launch's and kernel's flow id, a launch CUDA_RUNTIME, a kernel CONCURRENT_KERNEL, no metadata).
README.md says what it holds."""
import json
P, T = 4242, 1
ev = []


def x(cat, name, pid, tid, ts, dur, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = dict(args)
    ev.append(e)


def flow(ph, fid, pid, tid, ts):
    e = {"ph": ph, "id": fid, "pid": pid, "tid": tid, "ts": ts, "cat": "ac2g", "name": "ac2g"}
    if ph == "f":
        e["bp"] = "e"
    ev.append(e)


for k in (1, 2, 3):
    t = 1000.0 * k
    x("user_annotation", "ProfilerStep#%d" % k, P, T, t, 1000.0, [("External id", 10 * k)])
    x("cpu_op", "aten::mm", P, T, t + 100, 200, [("External id", 10 * k + 1), ("Input Dims", [[8, 64], [64, 64]])])
for k in (1, 2, 3):
    t, c = 1000.0 * k, 100 * k
    g = t + 1000  # the device a step behind
    x("cuda_runtime", "launchKernel", P, T, t + 150, 20, [("External id", 10 * k + 1)])
    flow("s", c + 10, P, T, t + 150)
    x("cuda_runtime", "launchKernel", P, T, t + 400, 20)  # outside any operator: no args
    flow("s", c + 11, P, T, t + 400)
    x("kernel", "gemm_kernel", 0, 7, g + 100, 50, [("External id", 10 * k + 1)])
    flow("f", c + 10, 0, 7, g + 100)
    x("kernel", "fill_kernel", 0, 8, g + 200, 30)
    flow("f", c + 11, 0, 8, g + 200)
ev.append({"ph": "X", "cat": "Trace", "ts": 500.0, "dur": 4400.0, "pid": "Spans", "tid": "PyTorch Profiler",
           "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
text = ",\n  ".join(json.dumps(e) for e in ev)
print('{\n  "schemaVersion": 1,\n  "deviceProperties": [],\n  "traceEvents": [\n  ' + text +
      '\n],\n  "traceName": "flow_launch.json",\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1790000000000000000\n}')
