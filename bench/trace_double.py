#!/usr/bin/env python3
"""A torch.profiler trace twice as long, for trace_bench.sh: IN's events, then each again after
the last one ended, as a second run of the same steps would write them.

  trace_double.py IN.json[.gz] OUT.json.gz   prints "EVENTS SHIFT_US" on stdout

Any layout: Kineto's (one key a line, "ts": 1.5), json.dump's (one line, "ts":1.5) or any
other, since the events are found by a JSON decoder, not by lines. Each copy is IN's own text with
its times, ids and step numbers moved, so nothing in it repeats a first-half event:
  - "ts" by the trace's whole span plus a second (integer and fraction moved apart: no digit is
    lost to a double's precision);
  - "External id", "correlation" and a flow's "id" past the largest in IN;
  - ProfilerStep#N past the largest N.
A trace that already holds copies of its own events (a trace merged with a copy of itself) keeps
them as copies, each half alike, and no more: without the moves, the half would copy them again.
"""
import gzip
import json
import re
import sys

EVENTS = re.compile(r'"traceEvents"\s*:\s*\[')
TS = re.compile(r'("ts"\s*:\s*)(-?\d+)((?:\.\d+)?)')
IDS = re.compile(r'("(?:External id|correlation)"\s*:\s*)(\d+)')
FLOW_ID = re.compile(r'("id"\s*:\s*)(\d+)')
STEP = re.compile(r'(ProfilerStep#)(\d+)')
FLOW_PHASES = ("s", "f", "t")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read()


class Extent:
    """What the copy's moves must clear: IN's first and last time, largest id and step."""

    def __init__(self):
        self.lo = self.hi = None
        self.top_id = self.top_step = 0

    def add(self, ev):
        if not isinstance(ev, dict):
            return
        ts = number(ev.get("ts"))
        if ts is not None:
            end = ts + (number(ev.get("dur")) or 0)
            self.lo = ts if self.lo is None else min(self.lo, ts)
            self.hi = end if self.hi is None else max(self.hi, end)
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        for v in (args.get("External id"), args.get("correlation"), ev.get("id")):
            if isinstance(v, int) and v > self.top_id:
                self.top_id = v
        s = STEP.search(str(ev.get("name", "")))
        if s:
            self.top_step = max(self.top_step, int(s.group(2)))

    def shift_us(self):
        """The trace's span plus a second."""
        return int(self.hi - self.lo) + 1_000_000 if self.lo is not None else 1_000_000


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def scan(text):
    """The end of the events array's body, each event's (start, end, is_flow) in text, and
    their Extent. Events are decoded one at a time, never held together."""
    m = EVENTS.search(text)
    if not m:
        sys.exit(f"trace_double: no \"traceEvents\" array in {sys.argv[1]}")
    dec, ws = json.JSONDecoder(), re.compile(r"[\s,]*")
    i, spans, ext = m.end(), [], Extent()
    while True:
        i = ws.match(text, i).end()
        if text[i] == "]":
            return i, spans, ext
        ev, j = dec.raw_decode(text, i)
        spans.append((i, j, isinstance(ev, dict) and ev.get("ph") in FLOW_PHASES))
        ext.add(ev)
        i = j


def moved(text, is_flow, shift, id_off, step_off):
    text = TS.sub(lambda m: m.group(1) + str(int(m.group(2)) + shift) + m.group(3), text)
    text = IDS.sub(lambda m: m.group(1) + str(int(m.group(2)) + id_off), text)
    if is_flow:
        text = FLOW_ID.sub(lambda m: m.group(1) + str(int(m.group(2)) + id_off), text, count=1)
    return STEP.sub(lambda m: m.group(1) + str(int(m.group(2)) + step_off), text)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: trace_double.py IN.json[.gz] OUT.json.gz")
    text = read(sys.argv[1])
    close, spans, ext = scan(text)
    shift, id_off, step_off = ext.shift_us(), ext.top_id + 1, ext.top_step + 1
    with gzip.open(sys.argv[2], "wt", encoding="utf-8", compresslevel=1) as out:
        out.write(text[:close].rstrip())
        for i, j, is_flow in spans:
            out.write(",\n")
            out.write(moved(text[i:j], is_flow, shift, id_off, step_off))
        out.write(text[close:])
    print(2 * len(spans), shift)

if __name__ == "__main__":
    main()
