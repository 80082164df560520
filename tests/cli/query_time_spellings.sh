#!/usr/bin/env bash
# Times are stored in two spellings: xp's own '2026-01-01T10:00:00.500Z' and the second-only
# '2026-01-01T10:00:00Z' of a date a result file gives (run_measured) or of an older or merged
# row. As text, '.' sorts before 'Z', so of two runs within one second the one at .500 read as
# the older: the queries that take "the newest" compared the wrong run. They compare as time.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
command -v sqlite3 > /dev/null || exit 77
at() { # at UUID TIME: the run dated TIME, as an older xp's row or one merged in gives it
  sqlite3 "$db" "DROP TRIGGER IF EXISTS xp_append_only_runs_update;
                 UPDATE runs SET started_at = '$2' WHERE uuid = '$1'"
}

# regressions.sql: three older runs of the probe, the newest 25% slower; the run just before it
# is dated to the second, the newest half a second later in xp's spelling.
db="$tmp/regressions.db"
old1=$(record base=10 scale=1.0)
old2=$(record base=10 scale=1.02)
old3=$(record base=10 scale=0.98)
new=$(record base=10 scale=1.25)
at "$old1" 2026-01-01T09:00:00.000Z
at "$old2" 2026-01-01T09:30:00Z
at "$old3" 2026-01-01T10:00:00Z
at "$new" 2026-01-01T10:00:00.500Z
run query "$XP_SRC/queries/regressions.sql" --format csv; expect_rc 0
grep -F 'op,"{""i"":0}",time,us,'"${new:0:8}," "$tmp/out" | grep -qF ",25,worse," ||
  die "the run half a second after one dated to the second is the newest: $(cat "$tmp/out")"

# xp audit: a run of the evidence's configuration is newer than the evidence where measured
# later. The evidence recorded at .mmm of a second; a slower run dated to that second, so
# measured before it (merged from another database): no newer run, nothing contradicted.
db="$tmp/audit.db"
e=$(record model=m tp=2)
run decide "Keep m at TP=2" --because "fast enough" --evidence "${e:0:8}"; expect_rc 0
slower=$(record model=m tp=2 scale=1.3)
at "$slower" "$(sqlite3 "$db" "SELECT substr(started_at, 1, 19) || 'Z' FROM runs WHERE uuid = '$e'")"
run audit; expect_rc 0
has "    no newer ok runs of the same configuration"
hasnt "CONTRADICTED"
echo "ok: two runs within one second, in each spelling, ordered as time"
