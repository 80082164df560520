#!/usr/bin/env bash
# xp run of an importer's spec (kind = "nccl_tests", files = [...]) records what xp import
# records: an import (origin 'imported'), the reading host's facts under import.*, and the same
# nccl-tests log read both ways counted once by allreduce_burst.sql; files named relative to the
# spec's folder, as torch_trace's and vllm_bench's are.
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

# a spec beside its log, run from another folder: the log is read from the spec's folder (it was
# read from the current one: "xp: log.txt: cannot read: No such file or directory")
mkdir "$tmp/specs"
cp "$log" "$tmp/specs/log.txt"
printf 'kind = "nccl_tests"\nfiles = ["log.txt"]\n' > "$tmp/specs/relative.toml"
(cd / && "$XP" --db "$db" run --dry-run "$tmp/specs/relative.toml" > "$tmp/out" 2> "$tmp/err")
check "its dry run, from /" 0 $?
grep -q "^$tmp/specs/log.txt: nccl-tests text, allreduce" "$tmp/out" || { echo "FAIL: dry run: $(cat "$tmp/out" "$tmp/err")"; fail=1; }
(cd / && "$XP" --db "$db" run "$tmp/specs/relative.toml" > /dev/null 2> "$tmp/err")
check "xp run of a spec naming its log relative to itself, from /" 0 $?
check "its cases (8 sizes, in and out of place)" 16 "$(sql "SELECT count(*) FROM cases WHERE run_id = (SELECT max(id) FROM runs)")"
# a file given with --set is the shell's path, from the working folder: it was read under the
# spec's ("xp: specs/specs/log.txt: cannot read: No such file or directory")
(cd "$tmp" && "$XP" --db "$db" run --dry-run specs/relative.toml --set files=specs/log.txt > "$tmp/out" 2> "$tmp/err")
check "--set files, relative to the working folder" 0 $?
grep -q "^specs/log.txt: nccl-tests text, allreduce" "$tmp/out" || { echo "FAIL: --set files: $(cat "$tmp/out" "$tmp/err")"; fail=1; }
finish
