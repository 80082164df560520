#!/usr/bin/env bash
# xp merge of a database from which a decision's evidence run was removed by hand (sqlite3, its
# append-only triggers dropped): the decision cannot come with its evidence, so nothing is merged,
# exit 5, one line naming OTHER, the decision and the run. It failed on SQLite's foreign key
# ("xp: THIS.db: copying a decision's evidence: FOREIGN KEY constraint failed", exit 3), which
# blamed this database and said nothing of which decision or run. A run this database holds
# itself is evidence enough: that decision merges.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3
a="$tmp/a.db" b="$tmp/b.db"
dump() { sqlite3 "$1" .dump | sha256sum | cut -d' ' -f1; }
db=$a
e=$(record cases=1 gpu=H200)
record cases=1 gpu=H200 > /dev/null
cp "$a" "$tmp/before.db" # the run, not yet the decision
run decide "Keep TP=8" --because "fastest" --evidence "${e:0:8}"; expect_rc 0
d=$(sed -n 's/^decision \([0-9a-f-]*\) recorded.*/\1/p' "$tmp/out")
sqlite3 "$a" "DROP TRIGGER xp_append_only_runs_delete; PRAGMA foreign_keys = OFF; DELETE FROM runs WHERE uuid = '$e'"

db=$b
record cases=1 gpu=A100 > /dev/null
before=$(dump "$b")
run merge "$a"; expect_rc 5
[ "$(wc -l < "$tmp/err")" = 1 ] || die "one line expected: $(cat "$tmp/err")"
has "xp: $a: decision $d: its evidence run $e is not there (removed since the decision: xp --db $a verify); nothing merged" "$tmp/err"
[ "$(dump "$b")" = "$before" ] || die "a refused merge changed the database"

# the run is here (copied before it was removed there): the decision comes, with its evidence
db="$tmp/before.db"
run merge "$a"; expect_rc 0; has "0 runs merged, 1 already here"; has "1 decision merged"
run audit; expect_rc 0; has "  run ${e:0:8}  hist_probe  ok"; has "seal unchanged"
echo "ok: a decision whose evidence run is gone from OTHER is refused, naming both"
