#!/usr/bin/env bash
# A JSONL file appended to for months (sglang.bench_serving --output-file, vllm bench serve
# --append-result) holds thousands of results. Each result's line was counted from the file's
# start, in time quadratic in the file: 6000 lines took a minute to refuse. The lines are real
# sglang.bench_serving output (tests/data/vllm_bench/sglang_c1_c4_c8.jsonl), repeated with other
# durations, so that each is a result of its own; the last one's duration a string, refused
# naming its line once the 5999 before it are read.
set -u
. "$XP_SRC/tests/lib.sh"
python3 - "$XP_SRC/tests/data/vllm_bench/sglang_c1_c4_c8.jsonl" "$tmp/long.jsonl" <<'PY'
import json, sys
src = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as out:
    for i in range(6000):
        d = json.loads(src[i % 3])
        d["duration"] = round(d["duration"] * (1 + i / 1e5), 6)
        if i == 5999:
            d["duration"] = str(d["duration"])
        out.write(json.dumps(d) + "\n")
PY
start=$SECONDS
one_line "the cut line named" 2 "long.jsonl:6000: duration: expected a number" timeout 60 "$XP" --db "$db" import vllm-bench "$tmp/long.jsonl" --set model=M
took=$((SECONDS - start))
check "read in a few seconds, not a minute" 1 "$([ "$took" -lt 20 ] && echo 1 || echo "0 ($took s)")"
finish
