"""Writes xpu_metrics.json (python3 xpu_metrics.py > xpu_metrics.json): xpu_launch.json as Kineto's XPU
plugin writes it with its scope profiler on (pytorch/kineto libkineto/src/plugin/xpupti/
XpuptiActivityHandlersV2.cpp handleScopeRecord): after the activities, for each kernel a copy named
"metrics: NAME" of category "kernel", 1 ns wider on each side, on the kernel's device and queue, its
args "kernel_id", "queue" and the metrics' values, no correlation; and two "xpu_scope_profiler"
counters. README.md says what it holds."""
import json, re
src = open("xpu_launch.json").read()
lines = src.split("\n")
out, extra = [], []
for line in lines:
    out.append(line)
    m = re.match(r'  \{"ph": "X", "cat": "kernel", "name": "([^"]+)", "pid": 0, "tid": (\d+), "ts": ([0-9.]+), "dur": ([0-9.]+),.*"kernel_id": (\d+)', line)
    if not m:
        continue
    name, tid, ts, dur, kid = m.group(1), m.group(2), float(m.group(3)), float(m.group(4)), m.group(5)
    vals = '"GpuTime [ns]": %d, "XVE_ACTIVE [%%]": 71.5' % int(dur * 1000)
    extra.append('  {"ph": "X", "cat": "kernel", "name": "metrics: %s", "pid": 0, "tid": %s, "ts": %.3f, "dur": %.3f, '
                 '"args": {"kernel_id": %s, "queue": "0x000055d08b8fc138", %s}}' % (name, tid, ts - 0.001, dur + 0.002, kid, vals))
    extra.append('  {"ph": "X", "cat": "xpu_scope_profiler", "name": "xpu", "pid": 0, "tid": %s, "ts": %.3f, "dur": %.3f, '
                 '"args": {%s}}' % (tid, ts - 0.001, dur + 0.002, vals))
    extra.append('  {"ph": "X", "cat": "xpu_scope_profiler", "name": "xpu", "pid": 0, "tid": %s, "ts": %.3f, "dur": 0.000, '
                 '"args": {"GpuTime [ns]": 0, "XVE_ACTIVE [%%]": 0}}' % (tid, ts + dur + 0.001))
i = next(k for k, l in enumerate(out) if '"cat": "Trace"' in l)
out[i:i] = [e + "," for e in extra]
print("\n".join(out).replace('"traceName": "xpu_launch.json"', '"traceName": "xpu_metrics.json"'), end="")
