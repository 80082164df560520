#!/usr/bin/env python3
"""Writes the vllm-bench fixtures in this folder (see PROVENANCE.md).

The request timings are synthetic (seeded), but every key, its type, its unit and every
summary statistic are produced the way vLLM's own code produces them, so that the summaries in
each file agree with its per-request lists exactly as they would in a real result file:
  - vllm/benchmarks/serve.py @ 009e6d4: calculate_metrics(), benchmark() result dict,
    process_one_metric(), main_async() setup keys and the --save-detailed filter,
    --append-result (objects separated by a newline in one file).
  - benchmarks/benchmark_serving.py @ 0049e29: the legacy result dict, including the
    "request_goodput:" key spelling, and its save path (per-request lists always kept).
Percentiles use linear interpolation between closest ranks (numpy.percentile's default);
std is the population standard deviation (numpy.std's default).
"""
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def percentile(values, p):
    v = sorted(values)
    if not v:
        return 0.0
    pos = (len(v) - 1) * p / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def mean(v):
    return sum(v) / len(v) if v else 0.0


def std(v):
    if not v:
        return 0.0
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / len(v))


def simulate(seed, n, concurrency, in_len, out_len, fail_idx=()):
    """Per-request outputs as RequestFuncOutput would hold them (seconds)."""
    rng = random.Random(seed)
    outs = []
    slots = [0.0] * concurrency
    for i in range(n):
        s = min(range(concurrency), key=lambda k: slots[k])
        start = 100.0 + slots[s]
        if i in fail_idx:
            outs.append(dict(success=False, ttft=0.0, itl=[], latency=0.0, start=start,
                             prompt_len=in_len, out=0, text="",
                             error="Bad Request: prompt is too long"))
            slots[s] += 0.01
            continue
        ttft = round(0.020 + 0.004 * concurrency * rng.random(), 6)
        itl = [round(0.009 + 0.0006 * concurrency * rng.random(), 6) for _ in range(out_len - 1)]
        latency = ttft + sum(itl)
        outs.append(dict(success=True, ttft=ttft, itl=itl, latency=latency, start=start,
                         prompt_len=in_len, out=out_len, text=" tok" * out_len, error=""))
        slots[s] += latency
    dur = max(o["start"] + o["latency"] for o in outs) - 100.0
    return outs, round(dur, 6)


def metrics(outs, dur, percentiles, goodput=None):
    ok = [o for o in outs if o["success"]]
    ttfts = [o["ttft"] for o in ok]
    tpots = [(o["latency"] - o["ttft"]) / (o["out"] - 1) for o in ok if o["out"] > 1]
    all_tpots = [(o["latency"] - o["ttft"]) / (o["out"] - 1) if o["out"] > 1 else 0.0 for o in ok]
    itls = [x for o in ok for x in o["itl"]]
    e2els = [o["latency"] for o in ok]
    total_in = sum(o["prompt_len"] for o in ok)
    total_out = sum(o["out"] for o in outs)
    good = 0
    if goodput:
        for t, tp, e in zip(ttfts, all_tpots, e2els):
            vals = {"ttft": t, "tpot": tp, "e2el": e}
            if all(goodput[k] / 1000 >= vals[k] for k in goodput):
                good += 1
    m = dict(completed=len(ok), failed=len(outs) - len(ok), total_input=total_in,
             total_output=total_out, request_throughput=len(ok) / dur,
             request_goodput=good / dur, output_throughput=total_out / dur,
             total_token_throughput=(total_in + total_out) / dur)
    for name, vals in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        m[name] = dict(mean=mean(vals) * 1000, median=percentile(vals, 50) * 1000,
                       std=std(vals) * 1000,
                       pct=[(p, percentile(vals, p) * 1000) for p in percentiles])
    return m


def pword(p):
    return str(int(p)) if int(p) == p else str(p)


def add_percentiles(result, m, names):
    for name in names:
        result[f"mean_{name}_ms"] = m[name]["mean"]
        result[f"median_{name}_ms"] = m[name]["median"]
        result[f"std_{name}_ms"] = m[name]["std"]
        for p, v in m[name]["pct"]:
            result[f"p{pword(p)}_{name}_ms"] = v


def current(outs, dur, *, model, date, concurrency, rate, percentiles, detailed,
            goodput=None, metadata=None):
    """vllm bench serve --save-result (serve.py @ 009e6d4)."""
    m = metrics(outs, dur, percentiles, goodput)
    r = {"date": date, "endpoint_type": "openai", "backend": "openai", "label": None,
         "model_id": model, "tokenizer_id": model, "num_prompts": len(outs)}
    r.update(metadata or {})
    r["request_rate"] = rate if rate != math.inf else "inf"
    r["burstiness"] = 1.0
    r["max_concurrency"] = concurrency
    ok = [o for o in outs if o["success"]]
    toks = {}
    t0 = min(o["start"] for o in ok)
    for o in ok:
        t = o["start"] + o["ttft"]
        times = [t]
        for x in o["itl"]:
            t += x
            times.append(t)
        for t in times:
            toks[int(t - t0)] = toks.get(int(t - t0), 0) + 1
    ev = sorted([(o["start"], 1) for o in ok] + [(o["start"] + o["latency"], -1) for o in ok])
    cur = peak = 0
    for _, d in ev:
        cur += d
        peak = max(peak, cur)
    r.update({
        "duration": dur, "completed": m["completed"], "failed": m["failed"],
        "total_input_tokens": m["total_input"], "total_output_tokens": m["total_output"],
        "request_throughput": m["request_throughput"],
        "request_goodput": m["request_goodput"] if goodput else None,
        "output_throughput": m["output_throughput"],
        "total_token_throughput": m["total_token_throughput"],
        "input_lens": [o["prompt_len"] for o in outs],
        "output_lens": [o["out"] for o in outs],
        "ttfts": [o["ttft"] for o in outs],
        "itls": [o["itl"] for o in outs],
        "latencies": [o["latency"] for o in outs],
        "start_times": [o["start"] for o in outs],
        "queue_times": [0.0 for o in outs],
        "generated_texts": [o["text"] for o in outs],
        "errors": [o["error"] for o in outs],
        "max_output_tokens_per_s": float(max(toks.values())),
        "max_concurrent_requests": peak,
        "rtfx": 0.0,
    })
    add_percentiles(r, m, ["ttft", "tpot", "itl"])
    if not detailed:
        for f in ("input_lens", "output_lens", "start_times", "ttfts", "itls",
                  "generated_texts", "errors"):
            del r[f]
    return r


def legacy(outs, dur, *, model, date, rate, percentiles, metadata=None):
    """benchmarks/benchmark_serving.py --save-result (@ 0049e29)."""
    m = metrics(outs, dur, percentiles)
    r = {"date": date, "backend": "vllm", "model_id": model, "tokenizer_id": model,
         "num_prompts": len(outs)}
    r.update(metadata or {})
    r["request_rate"] = rate if rate != math.inf else "inf"
    r["burstiness"] = 1.0
    r["max_concurrency"] = None
    r.update({
        "duration": dur, "completed": m["completed"],
        "total_input_tokens": m["total_input"], "total_output_tokens": m["total_output"],
        "request_throughput": m["request_throughput"],
        "request_goodput:": None,
        "output_throughput": m["output_throughput"],
        "total_token_throughput": m["total_token_throughput"],
        "input_lens": [o["prompt_len"] for o in outs],
        "output_lens": [o["out"] for o in outs],
        "ttfts": [o["ttft"] for o in outs],
        "itls": [o["itl"] for o in outs],
        "generated_texts": [o["text"] for o in outs],
        "errors": [o["error"] for o in outs],
    })
    add_percentiles(r, m, ["ttft", "tpot", "itl"])
    return r


def sglang(outs, dur, *, concurrency, rate, in_len, out_len, details):
    """One line of python -m sglang.bench_serving --output-file (SGLang @ 0033168: benchmark()'s
    result dict and calculate_metrics(); --output-details adds the per-request lists)."""
    ok = [o for o in outs if o["success"]]
    output_lens = [o["out"] if o["success"] else 0 for o in outs]
    retok = [len(o["text"].split()) if o["success"] else 0 for o in outs]
    ttfts = [o["ttft"] for o in ok]
    tpots = [(o["latency"] - o["ttft"]) / (o["out"] - 1) for o in ok if o["out"] > 1]
    itls = [x for o in ok for x in o["itl"]]
    e2e = [o["latency"] for o in ok]
    total_in = sum(o["prompt_len"] for o in ok)
    r = {"backend": "sglang", "dataset_name": "random", "request_rate": rate,
         "max_concurrency": concurrency, "sharegpt_output_len": None,
         "random_input_len": in_len, "random_output_len": out_len, "random_range_ratio": 0.0,
         "duration": dur, "completed": len(ok), "total_input_tokens": total_in,
         "total_output_tokens": sum(output_lens), "total_output_tokens_retokenized": sum(retok),
         "request_throughput": len(ok) / dur, "input_throughput": total_in / dur,
         "output_throughput": sum(output_lens) / dur}
    for name, v, ps in (("e2e_latency", e2e, (99,)), ("ttft", ttfts, (99,)),
                        ("tpot", tpots, (99,)), ("itl", itls, (95, 99))):
        r[f"mean_{name}_ms"] = mean(v) * 1000
        r[f"median_{name}_ms"] = percentile(v, 50) * 1000
        r[f"std_{name}_ms"] = std(v) * 1000
        for p in ps:
            r[f"p{p}_{name}_ms"] = percentile(v, p) * 1000
    r["concurrency"] = sum(e2e) / dur
    r["accept_length"] = None  # no speculative decoding on the server
    if details:
        r.update({"input_lens": [o["prompt_len"] for o in outs], "output_lens": output_lens,
                  "ttfts": [o["ttft"] for o in outs], "itls": [o["itl"] for o in outs],
                  "generated_texts": [o["text"] for o in outs],
                  "errors": [o["error"] for o in outs]})
    return r


def write(name, objs):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for i, o in enumerate(objs):
            if i:
                f.write("\n")
            json.dump(o, f)


MODEL = "Qwen/Qwen3-0.6B"
outs, dur = simulate(1, 16, 8, 128, 8, fail_idx=(5,))
write("serve_c8_detailed.json",
      [current(outs, dur, model=MODEL, date="20250611-101500", concurrency=8, rate=math.inf,
               percentiles=[99], detailed=True)])
outs, dur = simulate(2, 24, 16, 128, 8)
write("serve_c16_goodput.json",
      [current(outs, dur, model=MODEL, date="20250611-102000", concurrency=16, rate=math.inf,
               percentiles=[50, 90, 99, 99.9], detailed=False, goodput={"ttft": 60, "tpot": 15},
               metadata={"tp": "2"})])
objs = []
for c, seed in ((1, 3), (2, 4)):
    o, d = simulate(seed, 6, c, 64, 6)
    objs.append(current(o, d, model=MODEL, date=f"20250611-11{c:02d}00", concurrency=c,
                        rate=math.inf, percentiles=[99], detailed=True))
write("serve_append_c1_c2.json", objs)
outs, dur = simulate(5, 12, 4, 256, 10)
write("legacy_rate4.json",
      [legacy(outs, dur, model="meta-llama/Llama-3.1-8B-Instruct", date="20250301-093000",
              rate=4.0, percentiles=[99])])
# SGLang appends a line per benchmark (JSONL), each ending in a newline; no model in it.
with open(os.path.join(HERE, "sglang_c1_c4_c8.jsonl"), "w", encoding="utf-8") as f:
    for c, seed, n, fails in ((1, 11, 6, ()), (4, 12, 12, ()), (8, 13, 16, (3,))):
        o, d = simulate(seed, n, c, 512, 8, fail_idx=fails)
        f.write(json.dumps(sglang(o, d, concurrency=c, rate=math.inf, in_len=512, out_len=8,
                                  details=c == 8)) + "\n")
