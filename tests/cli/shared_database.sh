#!/usr/bin/env bash
# A database two users share: a colleague's reading (xp runs) makes the -wal and -shm files
# SQLite needs beside it, as that colleague, with the database's mode (644), and leaves them (a
# reader cannot checkpoint). The owner's next import was refused saying "attempt to write a
# readonly database (the database or its folder is not writable)", though both were; it now
# names the file, whose it is, and what to do. Needs root, to be two users (setpriv).
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"

[ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1 && id daemon > /dev/null 2>&1 ||
  { echo "skipped: needs root, setpriv and the users nobody and daemon"; exit 77; }
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$(id -gn "$u")" --clear-groups "$@"; }
as nobody test -x "$XP" && as daemon test -x "$XP" || { echo "skipped: $XP cannot be run by other users here"; exit 77; }

chmod 755 "$tmp"
shared="$tmp/shared"
mkdir "$shared" && chmod 777 "$shared"
nccl="$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
as daemon "$XP" --db "$shared/xp.db" import nccl-tests "$nccl" > /dev/null 2>&1
check "the owner's first import" 0 $?
chmod 644 "$shared/xp.db"
rm -f "$shared/xp.db-wal" "$shared/xp.db-shm"
as nobody "$XP" --db "$shared/xp.db" runs > /dev/null 2> "$tmp/err"
check "a colleague reads it" "0 " "$? $(cat "$tmp/err")"
check "... leaving files of theirs" "nobody nobody" "$(stat -c %U "$shared/xp.db-wal" "$shared/xp.db-shm" | xargs)"
before=$(sha256sum < "$shared/xp.db")
one_line "the owner's import" 3 \
  "xp.db: cannot record into this database: its -wal file is nobody's and not writable by you .*remove its -wal and -shm files (the -wal is empty: nothing is lost)$" \
  as daemon "$XP" --db "$shared/xp.db" import nccl-tests "$nccl"
check "the database is unchanged" "$before" "$(sha256sum < "$shared/xp.db")"
# where the -shm alone is theirs (an index SQLite rebuilds from the -wal): remove that one
rm -f "$shared/xp.db-wal"
one_line "the owner's import, a colleague's -shm alone" 3 \
  "its -shm file is nobody's and not writable by you .*remove its -shm file (an index SQLite rebuilds: nothing is lost)$" \
  as daemon "$XP" --db "$shared/xp.db" import nccl-tests "$nccl"
# the owner still reads it, and records once those files are gone
as daemon "$XP" --db "$shared/xp.db" runs > /dev/null 2>&1
check "the owner reads it" 0 $?
rm -f "$shared/xp.db-wal" "$shared/xp.db-shm"
as daemon "$XP" --db "$shared/xp.db" import nccl-tests "$nccl" > /dev/null 2>&1
check "the owner records once they are removed" 0 $?
finish
