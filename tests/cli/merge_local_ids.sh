#!/usr/bin/env bash
# A run's local id (runs.id, what a query's r.id or run_id shows) differs in every database:
# xp merge renumbers the runs it copies. Given where a run is expected (xp decide --evidence,
# xp show, xp compare), such digits said only "2: not a run id", or named another run's UUID
# prefix by chance; they now say which run that id is here, and to name runs by UUID. The runs
# are real nccl-tests 2.19.6 logs (tests/data/nccl/PROVENANCE.md).
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
nccl="$XP_SRC/tests/data/nccl"

"$XP" --db "$tmp/a.db" import nccl-tests "$nccl/nccltests_sweep.txt" > /dev/null 2>&1
"$XP" --db "$db" import nccl-tests "$nccl/nccltests_graph.txt" > /dev/null 2>&1
"$XP" --db "$db" merge "$tmp/a.db" > /dev/null 2>&1
swept=$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")
check "a.db's run 1 is run 2 here" "$(db="$tmp/a.db" sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 1")" "$swept"
hint="(runs.id 2 here is run $swept; a run's id is this database's own number, which xp merge renumbers: name runs by UUID)"
one_line "decide --evidence 2" 2 "2: not a run id (a UUID or a prefix of at least 4 hex digits) $hint" \
  "$XP" --db "$db" decide "ring for 8-byte all-reduce" --because "fastest" --evidence 2
check "nothing decided" 0 "$(sql "SELECT count(*) FROM decisions")"
one_line "show 2" 2 "2: not a run id .* $hint" "$XP" --db "$db" show 2
one_line "no such runs.id here: as before" 2 "9: not a run id (a UUID or a prefix of at least 4 hex digits)$" \
  "$XP" --db "$db" show 9

# A decision whose query selects a run by its local id (--param run=1): merged into another
# database, audit compared another run's rows with the recorded ones, all "gone" and "new",
# with nothing to say why. xp decide now warns, and xp audit notes it under the query.
printf "SELECT c.name, m.median FROM cases c JOIN metrics m ON m.case_id = c.id\n  WHERE c.run_id = :run AND m.name = 'time_us' ORDER BY c.seq LIMIT 2;\n" > "$tmp/by_id.sql"
note="--param run=1 names a run by its local id (runs.id 1 is run $swept here): each database numbers its runs itself, and xp merge renumbers those it copies, so in another the query reads another run; select runs by UUID (r.uuid LIKE :run || '%')"
"$XP" --db "$tmp/a.db" decide "ring below 20 us" --because "18.5 us" --query "$tmp/by_id.sql" --param run=1 > /dev/null 2> "$tmp/err"
check "decide: exit, the warning" "0|xp: warning: $note" "$?|$(cat "$tmp/err")"
"$XP" --db "$tmp/b.db" import nccl-tests "$nccl/nccltests_graph.txt" > /dev/null 2>&1
"$XP" --db "$tmp/b.db" merge "$tmp/a.db" > /dev/null 2>&1
"$XP" --db "$tmp/b.db" audit > "$tmp/out" 2>&1
here=$(db="$tmp/b.db" sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 1")
check "audit in the merged database: the note, naming its own run 1" "  note: ${note/$swept/$here}" "$(grep '^  note:' "$tmp/out")"
printf "SELECT c.name FROM runs r JOIN cases c ON c.run_id = r.id WHERE r.uuid LIKE :run || '%%' LIMIT 1;\n" > "$tmp/by_uuid.sql"
"$XP" --db "$tmp/a.db" decide "by UUID" --because "b" --query "$tmp/by_uuid.sql" --param run="$swept" > /dev/null 2> "$tmp/err"
check "a run by UUID prefix: exit, no warning" "0|" "$?|$(cat "$tmp/err")"
finish
