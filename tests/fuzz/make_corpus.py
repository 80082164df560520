#!/usr/bin/env python3
"""Builds the fuzz seed corpora in tests/fuzz/corpus/ from the real fixtures in ../shared/fixtures
(torch.profiler and HTA traces, nccl-tests output) and the repository's experiment specs.
Run once by hand (python3 tests/fuzz/make_corpus.py); its output is committed. Seeds are real
documents cut small: the first events of each kind from a real trace, with the trace's own
metadata, so that the fuzzers start from the shapes that real files have.
"""
import glob, gzip, json, os, shutil, sys

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("XP_SHARED", os.path.join(SRC, "..", "shared"))
OUT = os.path.join(SRC, "tests", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def cut_trace(path, per_cat=3, step=True):
    """Metadata plus the first events of each (ph, cat), and one nccl kernel if any."""
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    seen, keep = {}, []
    for e in events:
        k = (e.get("ph"), e.get("cat"))
        nccl = "nccl" in str(e.get("name", "")).lower() and e.get("cat") in ("kernel", "Kernel")
        if seen.get(k, 0) < per_cat or (nccl and seen.get("nccl", 0) < 2):
            keep.append(e)
            seen[k] = seen.get(k, 0) + 1
            if nccl:
                seen["nccl"] = seen.get("nccl", 0) + 1
    if isinstance(doc, dict):
        small = {k: v for k, v in doc.items() if k != "traceEvents"}
        small["traceEvents"] = keep
        return small
    return keep


def traces():
    torch = sorted(glob.glob(os.path.join(SHARED, "fixtures", "torch", "decode_*.trace.json.gz")))
    hta = sorted(glob.glob(os.path.join(SHARED, "fixtures", "hta", "*.json.gz")))
    docs = []
    for p in torch[:2] + hta:
        base = os.path.basename(p).replace(".trace.json.gz", "").replace(".json.gz", "")
        base = base.replace("tests__data__", "").split("__")[-1]
        docs.append((base, cut_trace(p)))
    return docs


def old_format(doc):
    """The older Kineto spelling: 'Kernel' category, integer epoch microseconds, no base time."""
    d = json.loads(json.dumps(doc))
    base = d.pop("baseTimeNanoseconds", 0) // 1000
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel":
            e["cat"] = "Kernel"
        if isinstance(e.get("ts"), float):
            e["ts"] = int(e["ts"]) + base
        if isinstance(e.get("dur"), float):
            e["dur"] = int(e["dur"])
    return d


def main():
    if not os.path.isdir(SHARED):
        sys.exit("make_corpus: %s not found" % SHARED)
    for t in ("trace_events", "torch_trace", "nccl_tests", "vllm_bench", "spec"):
        shutil.rmtree(os.path.join(OUT, t), ignore_errors=True)
    for name, doc in traces():
        text = json.dumps(doc, indent=1)
        put("trace_events", name + ".json", text)
        put("torch_trace", name + ".json", text)
        if isinstance(doc, dict) and "baseTimeNanoseconds" in doc:
            put("torch_trace", name + ".old.json", json.dumps(old_format(doc)))
            put("trace_events", name + ".bare.json", json.dumps(doc["traceEvents"][:12]))
    first = traces()[0][1]
    put("torch_trace", "small.json.gz", gzip.compress(json.dumps(first).encode(), mtime=0))
    for p in sorted(glob.glob(os.path.join(SHARED, "fixtures", "nccl-tests", "nccltests_*"))):
        put("nccl_tests", os.path.basename(p), open(p, "rb").read())
    for p in sorted(glob.glob(os.path.join(SRC, "tests", "data", "nccl", "variants", "rccl_results*"))):
        put("nccl_tests", os.path.basename(p), open(p, "rb").read())  # rccl-tests' -x file: CSV, JSON
    vb = os.path.join(SRC, "tests", "data", "vllm_bench")
    for p in sorted(glob.glob(os.path.join(vb, "*.json*")) + glob.glob(os.path.join(vb, "formats", "*.json*"))):
        put("vllm_bench", os.path.basename(p), open(p, "rb").read()[:60000])
    for p in sorted(glob.glob(os.path.join(SRC, "experiments", "**", "*.toml"), recursive=True)):
        put("spec", os.path.relpath(p, SRC).replace("/", "_"), open(p, "rb").read())
    for name, text in HAND_SPECS.items():
        put("spec", name, text)


# Specs written for the fuzzer: every declared key, both formats, nesting, arrays of tables.
HAND_SPECS = {
    "declared.toml": """kind = "torch_trace"
name = "decode breakdown"
description = "what share of a decode step is AllReduce"
model = "Kimi-K2.5"
engine = "vllm"
tp = 8
ep = 1
pp = 1
batch = 16
dtype = "bf16"
quantization = "int4"
interconnect = "pcie"
gpus_declared = 8
notes = "fuzz seed"
tags = ["decode", "tp8"]
files = ["rank0.trace.json.gz", "rank1.trace.json.gz"]
""",
    "declared.json": json.dumps({"kind": "torch_trace", "model": "Llama-3.1-70B", "tp": 2,
                                 "batch": 1, "interconnect": "nvlink", "tags": ["a", "b"],
                                 "files": ["a.json"]}, indent=2),
    "nested.toml": """kind = "gemm"
model = "DeepSeek-V3"
[timing]
warmup = 10
iters = 100
[[shapes]]
m = 1
n = 7168
k = 256
[[shapes]]
m = 256
n = 7168
k = 2048
""",
    "sizes.toml": """kind = "nccl_burst"
sizes = [14336, "1M", "256MiB", "4K"]
ops = ["allreduce"]
burst = 122
""",
    "strings.toml": """kind = "torch_trace"
model = "escapes \\ \" \u00e9 \t"
notes = '''multi
line'''
files = ['literal\\path.json']
""",
}


if __name__ == "__main__":
    main()
