#!/usr/bin/env bash
# xp report's table of runs counts each status as xp runs shows it: a run whose process died
# (its row still 'running', its pid gone on this boot) is incomplete, as xp runs says, where the
# page lumped it with failed and aborted runs under "not ok (failed, aborted, running)".
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
run import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"; expect_rc 0
# rows as xp's recorder leaves them, on this host and boot: a failed run, a run whose process
# is gone (no pid is that high) and one whose process is alive (this shell)
add() { # add UUID STATUS PID
  sqlite3 "$db" "INSERT INTO runs (uuid, kind, origin, status, started_at, pid, host, boot_id, spec_json, spec_sha256)
    SELECT '$1', 'serve_bench', 'imported', '$2', '2026-12-04T15:00:00.000Z', $3, host, boot_id, '{}', 'x'
    FROM runs LIMIT 1"
}
add 11111111-0000-4000-8000-000000000001 failed 1
add 11111111-0000-4000-8000-000000000002 running 2147483000
add 11111111-0000-4000-8000-000000000003 running $$
check "xp runs: incomplete" 1 "$("$XP" --db "$db" runs --format csv | grep -c ',incomplete,')"
run report --out "$tmp/r.html"; expect_rc 0
has "<th>ok</th><th>failed</th><th>aborted</th><th>incomplete (its process died)</th><th>running</th>" "$tmp/r.html"
has '<td>serve_bench</td><td>imported</td><td class="n">1</td><td class="n">1</td><td class="n">0</td><td class="n">1</td><td class="n">1</td>' "$tmp/r.html"
finish
