#!/usr/bin/env bash
# A database in a folder this user cannot write (a colleague's results): every command is
# refused in one line, exit 3, and nothing changes. A reading command said SQLite's "attempt
# to write a readonly database" (the -shm file SQLite needs to read a WAL database cannot be
# made there); it now says so. An --out in that folder, plainly or through a link, names it.
# Run as root, the commands run as nobody (root writes anywhere).
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"

as_user=()
if [ "$(id -u)" = 0 ]; then
  command -v setpriv > /dev/null && id nobody > /dev/null 2>&1 ||
    { echo "skipped: run as root without setpriv or a nobody user"; exit 77; }
  as_user=(setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups)
  chmod 755 "$tmp"
fi
"${as_user[@]}" test -x "$XP" || { echo "skipped: $XP cannot be run by an unprivileged user here"; exit 77; }

ro="$tmp/ro"
mkdir "$ro"
"$XP" --db "$ro/xp.db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "a database to read" 0 $?
chmod 644 "$ro/xp.db"
echo '<html>an older page</html>' > "$ro/old.html" && chmod 644 "$ro/old.html"
chmod 555 "$ro"
before=$(sha256sum "$ro/xp.db")

for c in runs verify audit "report --out -" "export --out -" "reclassify --dry-run"; do
  one_line "xp $c" 3 "xp.db: .*its folder is not writable, and SQLite reads a WAL database only with its -shm file" \
    "${as_user[@]}" "$XP" --db "$ro/xp.db" $c
done
one_line "xp import" 3 "xp.db: cannot record into this database: its folder is not writable" \
  "${as_user[@]}" "$XP" --db "$ro/xp.db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
check "the database is unchanged" "$before" "$(sha256sum "$ro/xp.db")"
check "no file was made beside it" "old.html xp.db" "$(echo $(ls "$ro"))"

# --out into that folder, plainly or through a symbolic link (to a file there or not yet):
# one line naming the folder it cannot write in, where a link's said only the link's name
w="$tmp/w"
mkdir "$w" && chmod 777 "$w"
cp "$ro/xp.db" "$w/xp.db" && chmod 666 "$w/xp.db"
ln -s "$ro/old.html" "$w/to_file"
ln -s "$ro/xp.db" "$w/to_db"
ln -s "$ro/new.html" "$w/to_new"
for c in report export; do
  verb=$([ $c = report ] && echo create || echo write)
  one_line "xp $c --out in the folder" 2 "$ro/page: cannot $verb in $ro: Permission denied$" \
    "${as_user[@]}" "$XP" --db "$w/xp.db" $c --out "$ro/page"
  one_line "xp $c --out a link to a file there" 2 "$w/to_file: cannot $verb in $ro (where the link leads): Permission denied$" \
    "${as_user[@]}" "$XP" --db "$w/xp.db" $c --out "$w/to_file"
  one_line "xp $c --out a link to the database there" 2 "$w/to_db: is an SQLite database (an xp history?): --out never writes over one; nothing written$" \
    "${as_user[@]}" "$XP" --db "$w/xp.db" $c --out "$w/to_db"
  one_line "xp $c --out a link to a new file there" 2 "$w/to_new: cannot $verb in $ro (where the link leads): Permission denied$" \
    "${as_user[@]}" "$XP" --db "$w/xp.db" $c --out "$w/to_new"
done
check "the links stay links" "yes yes yes" "$([ -L "$w/to_file" ] && echo yes) $([ -L "$w/to_new" ] && echo yes) $([ -L "$w/to_db" ] && echo yes)"
check "nothing made in the folder" "old.html xp.db" "$(echo $(ls "$ro"))"

# A dry run writes nothing, so a database this user cannot write still answers it (a copy in
# memory): 'xp reclassify --dry-run' on a colleague's read-only file said 'cannot record into
# this database: the file is not writable', exit 3. Recording is refused as before.
cp "$ro/xp.db" "$w/theirs.db" && chmod 444 "$w/theirs.db"
cp "$ro/xp.db" "$w/other.db" && chmod 644 "$w/other.db"
theirs=$(sha256sum < "$w/theirs.db")
"${as_user[@]}" "$XP" --db "$w/theirs.db" merge "$w/other.db" --dry-run > "$tmp/out" 2> "$tmp/err"
check "merge --dry-run of a read-only file: exit" 0 $?
grep -q "^dry run (nothing written): from .*other.db: 0 runs merged, 1 already here" "$tmp/out" ||
  { echo "FAIL: merge --dry-run of a read-only file: [$(cat "$tmp/out" "$tmp/err")]"; fail=1; }
"${as_user[@]}" "$XP" --db "$w/theirs.db" reclassify --dry-run > "$tmp/out" 2> "$tmp/err"
check "reclassify --dry-run of a read-only file: exit" 0 $?
grep -q "would change category" "$tmp/out" ||
  { echo "FAIL: reclassify --dry-run of a read-only file: [$(cat "$tmp/out" "$tmp/err")]"; fail=1; }
# Its copy is a temporary file (SQLite's, in $SQLITE_TMPDIR, removed when it closes), not
# memory: a dry run of a 205 MB colleague's file took 227 MB, and under a 16 MB data limit one of
# 24 MB said 'copying the database for a dry run: out of memory', exit 3.
if xp_sanitized; then
  echo "note: the 16 MB data limit check skipped: AddressSanitizer's allocator needs more than that"
elif command -v sqlite3 > /dev/null; then
  cp "$ro/xp.db" "$w/big.db" && chmod 644 "$w/big.db"
  sqlite3 "$w/big.db" "CREATE TABLE filler (x BLOB); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL
    SELECT i + 1 FROM c WHERE i < 24000) INSERT INTO filler SELECT randomblob(1000) FROM c" && chmod 444 "$w/big.db"
  mkdir "$tmp/scratch" && chmod 777 "$tmp/scratch"
  (ulimit -d 16384 && SQLITE_TMPDIR="$tmp/scratch" "${as_user[@]}" "$XP" --db "$w/big.db" reclassify --dry-run) > "$tmp/out" 2> "$tmp/err"
  check "reclassify --dry-run of a 24 MB read-only file in 16 MB: exit" "0 " "$? $(cat "$tmp/err")"
  check "its copy is gone" "" "$(ls -A "$tmp/scratch")"
fi
one_line "merge into a read-only file" 3 "theirs.db: cannot record into this database: the file is not writable" \
  "${as_user[@]}" "$XP" --db "$w/theirs.db" merge "$w/other.db"
check "the read-only file is unchanged" "$theirs" "$(sha256sum < "$w/theirs.db")"
chmod 755 "$ro"
finish
