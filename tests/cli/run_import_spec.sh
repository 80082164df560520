#!/usr/bin/env bash
# xp run of an importer's spec (kind = "nccl_tests", files = [...]) records what xp import
# records: an import (origin 'imported'), the reading host's facts under import.*, and the same
# nccl-tests log read both ways counted once by allreduce_burst.sql.
set -u
. "$XP_SRC/tests/lib.sh"
log="$XP_SRC/tests/data/nccl/nccltests_graph.txt" # nccl-tests 2.19.6 (tests/data/nccl/PROVENANCE.md)
"$XP" --db "$db" import nccl-tests "$log" > /dev/null 2>&1
check "xp import" 0 $?
rows=$("$XP" --db "$db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv | wc -l)
printf 'kind = "nccl_tests"\nfiles = ["%s"]\n' "$log" > "$tmp/import.toml"
"$XP" --db "$db" run "$tmp/import.toml" > /dev/null 2> "$tmp/err"
check "xp run of the importer's spec" 0 $?
check "its origin" imported "$(sql "SELECT origin FROM runs ORDER BY id DESC LIMIT 1")"
check "this host's facts as the reader's" "1|0" "$(sql "SELECT count(*) FILTER (WHERE key = 'import.host.name'),
  count(*) FILTER (WHERE key = 'host.cores') FROM run_meta WHERE run_id = (SELECT max(id) FROM runs)" | tr , '|')"
check "the log counted once" "$rows" "$("$XP" --db "$db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv | wc -l)"
finish
