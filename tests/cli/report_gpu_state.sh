#!/usr/bin/env bash
# xp report's "GPU slowed" count and its list of slowed runs read the GPU state as
# queries/gpu_state.sql does, through one schema view (run_gpu_state), where the report carried
# its own copy of the query's pivot: on a history of mixed kinds (an import, measured runs with
# and without GPU state, one slowed by heat, one by a power limit, one at full speed, a device
# figure recorded as 'declared' and not detected) the page names exactly the runs whose rows
# gpu_state.sql shows slowed, in the words and order it always had.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
command -v sqlite3 > /dev/null || { echo "skipped: no sqlite3"; exit 77; }
run import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"; expect_rc 0
add() { # add UUID KIND STARTED: a measured run, running until done finishes it (the recorder's way)
  sqlite3 "$db" "INSERT INTO runs (uuid, kind, origin, status, started_at, pid, host, boot_id, spec_json, spec_sha256)
    SELECT '$1', '$2', 'measured', 'running', '$3', 1, host, boot_id, '{}', 'x' FROM runs LIMIT 1"
}
done_all() { sqlite3 "$db" "UPDATE runs SET status = 'ok', finished_at = started_at WHERE status = 'running'"; }
meta() { # meta UUID DEVICE FIGURE VALUE [SOURCE]
  sqlite3 "$db" "INSERT INTO run_meta (run_id, key, source, value)
    SELECT id, 'gpu_state.$2.$3', '${5:-detected}', '$4' FROM runs WHERE uuid = '$1'"
}
add aaaa0001-0000-4000-8000-000000000001 gemm 2026-12-04T10:00:00.000Z
meta aaaa0001-0000-4000-8000-000000000001 0 slowdown_share 0.125
meta aaaa0001-0000-4000-8000-000000000001 0 clock_events hw_slowdown
meta aaaa0001-0000-4000-8000-000000000001 0 power_limit_w 700
meta aaaa0001-0000-4000-8000-000000000001 0 power_limit_default_w 700
meta aaaa0001-0000-4000-8000-000000000001 1 slowdown_share 0.000
meta aaaa0001-0000-4000-8000-000000000001 1 power_limit_w 500
meta aaaa0001-0000-4000-8000-000000000001 1 power_limit_default_w 700
add aaaa0002-0000-4000-8000-000000000002 gemm 2026-12-04T11:00:00.000Z
meta aaaa0002-0000-4000-8000-000000000002 0 slowdown_share 0.000
meta aaaa0002-0000-4000-8000-000000000002 0 power_limit_w 700
meta aaaa0002-0000-4000-8000-000000000002 0 power_limit_default_w 700
add aaaa0003-0000-4000-8000-000000000003 nccl_burst 2026-12-04T12:00:00.000Z
meta aaaa0003-0000-4000-8000-000000000003 2 slowdown_share 0.5 declared
meta aaaa0003-0000-4000-8000-000000000003 3 power_limit_w 400
meta aaaa0003-0000-4000-8000-000000000003 3 power_limit_default_w 450
add aaaa0004-0000-4000-8000-000000000004 nccl_burst 2026-12-04T09:00:00.000Z
done_all
run report --out "$tmp/r.html"; expect_rc 0
# the slowed runs as gpu_state.sql rows show them: run, slowdown_share, power_limit, power_default
"$XP" --db "$db" query "$XP_SRC/queries/gpu_state.sql" --format csv | tail -n +2 |
  awk -F, '$19 > 0 || ($17 != "" && $17 < $18) { print $1 }' | uniq > "$tmp/slow.q"
grep -o '<table class="runs slowed">.*</table>' "$tmp/r.html" | grep -o '<tr><td>[0-9a-f]*</td>' |
  sed 's/<tr><td>//; s/<.td>//' > "$tmp/slow.page"
check "the page's slowed runs are the query's" "$(cat "$tmp/slow.q")" "$(cat "$tmp/slow.page")"
check "newest first" "aaaa0003 aaaa0001" "$(tr '\n' ' ' < "$tmp/slow.page" | sed 's/ $//')"
# the page as it was before the view: its words and figures
has '<tr><td>aaaa0003</td><td>nccl_burst</td><td>2026-12-04T12:00:00.000Z</td><td>GPU 3: power limit 400 W, below its default 450 W</td></tr>' "$tmp/r.html"
has '<tr><td>aaaa0001</td><td>gemm</td><td>2026-12-04T10:00:00.000Z</td><td>GPU 0: clocks held down in 12.5% of readings (hw_slowdown); GPU 1: power limit 500 W, below its default 700 W</td></tr>' "$tmp/r.html"
has '<td>gemm</td><td>measured</td><td class="n">2</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">1</td>' "$tmp/r.html"
has '<td>nccl_burst</td><td>measured</td><td class="n">2</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">1</td>' "$tmp/r.html"
finish
