#!/usr/bin/env bash
# xp query: a query file's "-- if no rows: TEXT" line is said on stderr (exit 0) when every
# result set it printed was empty, so "(no rows)" tells a new user what to record; never when
# a row came back, never from a file without the line, and CSV/JSON output stays data only.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
run import torch-trace "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"; expect_rc 0
# a shipped query with nothing to answer: the hint, exit 0, the header alone on stdout
run query "$XP_SRC/queries/allreduce_burst.sql" --format csv; expect_rc 0
has "allreduce_burst.sql: no rows: no ok nccl_burst runs yet: xp run experiments/allreduce_burst.toml" "$tmp/err"
[ "$(wc -l < "$tmp/out")" = 1 ] || die "csv: the header alone, got: $(cat "$tmp/out")"
run query "$XP_SRC/queries/kernel_variants.sql" --format json; expect_rc 0
has "no rows: no kernel_variant case passed its check yet" "$tmp/err"
[ "$(tr -d ' \n' < "$tmp/out")" = "[]" ] || die "json: an empty array, got: $(cat "$tmp/out")"
# rows came back: no hint
printf '%s\n' "-- if no rows: NOTHING HERE" "SELECT count(*) AS n FROM runs;" > "$tmp/some.sql"
run query "$tmp/some.sql"; expect_rc 0
hasnt "no rows" "$tmp/err"
# two result sets, one with rows: no hint; both empty: the hint once
printf '%s\n' "  -- if no rows:   both empty  " "SELECT 1 WHERE 0;" "SELECT id FROM runs;" > "$tmp/two.sql"
run query "$tmp/two.sql"; expect_rc 0
hasnt "no rows:" "$tmp/err"
printf '%s\n' "  -- if no rows:   both empty  " "SELECT 1 WHERE 0;" "SELECT id FROM runs WHERE 0;" > "$tmp/two.sql"
run query "$tmp/two.sql"; expect_rc 0
[ "$(grep -c 'no rows: both empty' "$tmp/err")" = 1 ] || die "the hint once: $(cat "$tmp/err")"
# no such line: "(no rows)" alone, nothing on stderr
printf '%s\n' "SELECT id FROM runs WHERE 0;" > "$tmp/bare.sql"
run query "$tmp/bare.sql"; expect_rc 0
has "(no rows)"
[ ! -s "$tmp/err" ] || die "nothing on stderr: $(cat "$tmp/err")"
# the main job's query (experiments/run_main.sh) on a database without a trace: what to import
"$XP" --db "$tmp/nccl.db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null
"$XP" --db "$tmp/nccl.db" query "$XP_SRC/queries/bottleneck_by_config.sql" > "$tmp/out" 2> "$tmp/err" || die "bottleneck_by_config: exit $?"
has "(no rows)"
has "bottleneck_by_config.sql: no rows: no imported torch.profiler trace yet: xp import torch-trace" "$tmp/err"
echo "ok: query no-rows hints"
