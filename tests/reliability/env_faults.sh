#!/bin/bash
# Environment faults: a database path in a missing folder, a read-only database, a full disk,
# and a database held by another process for longer than the busy timeout. Each must give one
# clear line and exit 3, and leave the database whole (PRAGMA integrity_check, no partial run);
# once the fault is gone, recording works again.
# A full disk and a read-only file system need a small tmpfs and a read-only bind mount: made
# in a private mount namespace (unshare -rm, no privileges needed where user namespaces are
# allowed); where they are not, those cases say they were skipped.
# Usage: env_faults.sh   Prints one line per fault; exit 1 if any misbehaved.
set -u
. "$(dirname "$0")/lib.sh"
SRC=${XP_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RESULT=$SRC/tests/data/vllm_bench/serve_c8_detailed.json
failures=0

# Record one run into $1 through the real xp where this build has an importer that needs no
# GPU, else through the recorder driver (the same xp_db_open and recorder).
if "$XP" help kinds 2>/dev/null | grep -q 'xp import vllm-bench' && [ -r "$RESULT" ]; then
  write_one() { "$XP" --db "$1" import vllm-bench "$RESULT"; }
  WRITER="xp import vllm-bench"
else
  write_one() { "$PROBE" record "$1" 1 2 10; }
  WRITER="the recorder driver"
fi

report() { # NAME OK(0/1) DETAILS
  if [ "$2" = 0 ]; then echo "env fault $1: ok: $3"; else echo "env fault $1: FAIL: $3"; failures=$((failures + 1)); fi
}

# Exactly one stderr line, starting "xp: ", matching $2; exit code $3 == $4.
one_line() { # ERRFILE REGEX RC WANT
  [ "$3" = "$4" ] && [ "$(wc -l < "$1")" -eq 1 ] && head -1 "$1" | grep -q -E "^xp: .*$2"
}

# ---- a database path in a folder that does not exist ----
DB=$WORK/missing/xp.db
write_one "$DB" >/dev/null 2>"$WORK/missing.err"; rc=$?
if one_line "$WORK/missing.err" "its folder does not exist" $rc 3 && [ ! -e "$WORK/missing" ]; then
  report missing-folder 0 "exit 3, '$(cat "$WORK/missing.err")', nothing created"
else
  report missing-folder 1 "exit $rc: $(head -3 "$WORK/missing.err")"
fi

# ---- the database locked by another process for longer than the busy timeout ----
DB=$WORK/locked.db
"$PROBE" record "$DB" 2 2 10 >/dev/null 2>&1
"$PROBE" hold "$DB" 45 > "$WORK/hold.out" 2>&1 &
holder=$!
for _ in $(seq 1 100); do grep -q held "$WORK/hold.out" && break; sleep 0.1; done
t0=$(date +%s)
"$XP" --db "$DB" runs >/dev/null 2>"$WORK/reader.err"; reader=$?
t1=$(date +%s)
write_one "$DB" >/dev/null 2>"$WORK/locked.err"; rc=$?
t2=$(date +%s)
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
check=$("$PROBE" check "$DB" 2>&1); crc=$?
write_one "$DB" >/dev/null 2>"$WORK/after.err"; arc=$?
if one_line "$WORK/locked.err" "database is locked" $rc 3 && [ $reader = 0 ] && [ $((t1 - t0)) -le 2 ] &&
   [ $((t2 - t1)) -ge 29 ] && [ $((t2 - t1)) -le 40 ] && [ $crc = 0 ] && [ $arc = 0 ]; then
  report locked 0 "readers unaffected ($((t1 - t0)) s); writer gave up after $((t2 - t1)) s with exit 3, '$(cat "$WORK/locked.err")'; database whole ($check); writing works once released"
else
  report locked 1 "reader exit $reader in $((t1 - t0)) s; writer exit $rc after $((t2 - t1)) s: $(head -3 "$WORK/locked.err"); check: $check; after release: exit $arc $(head -1 "$WORK/after.err")"
fi

# ---- read-only database, and a full disk: private mounts ----
if ! unshare -rm true 2>/dev/null; then
  echo "env fault read-only: skipped: no private mount namespace here (unshare -rm refused)"
  echo "env fault disk-full: skipped: no private mount namespace here (unshare -rm refused)"
else
  mkdir -p "$WORK/ro" "$WORK/full"
  "$PROBE" record "$WORK/ro/xp.db" 2 2 10 >/dev/null 2>&1
  sha=$(sha256sum < "$WORK/ro/xp.db")
  # beside it, a database whose writer died with results still in its -wal, its -shm lost (a
  # copy of the two files): unreadable there, said so, not "its folder must be writable"
  cp "$WORK/ro/xp.db" "$WORK/ro/pending.db"
  cat > "$WORK/pending.py" <<'EOF'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256, pid, host)"
          " VALUES ('dead0000-0000-4000-8000-000000000001', 'nccl_burst', 'running',"
          " '2026-01-01T00:00:00Z', '{}', 'x', 0, 'h')")
c.commit()
os._exit(0)  # killed, as it were: no checkpoint, the -wal left
EOF
  python3 "$WORK/pending.py" "$WORK/ro/pending.db" && rm -f "$WORK/ro/pending.db-shm"
  export -f write_one one_line
  export XP PROBE RESULT WORK
  unshare -rm bash -c '
    mount --bind "$WORK/ro" "$WORK/ro" && mount -o remount,bind,ro "$WORK/ro" "$WORK/ro" || exit 9
    write_one "$WORK/ro/xp.db" >/dev/null 2>"$WORK/ro.err"; echo $? > "$WORK/ro.rc"
    "$XP" --db "$WORK/ro/xp.db" runs --format csv > "$WORK/ro.list" 2>"$WORK/ro.readerr"; echo $? > "$WORK/ro.readrc"
    "$XP" --db "$WORK/ro/xp.db" reclassify --dry-run > "$WORK/ro.dry" 2>&1; echo $? > "$WORK/ro.dryrc"
    # a path "$ROOT/xp.db" with ROOT=/ begins "//": read as a URI, "invalid uri authority"
    "$XP" --db "/$WORK/ro/xp.db" runs --format csv > /dev/null 2>"$WORK/ro.slasherr"; echo $? > "$WORK/ro.slashrc"
    "$XP" --db "$WORK/ro/pending.db" runs > /dev/null 2>"$WORK/ro.pendingerr"; echo $? > "$WORK/ro.pendingrc"
  '
  rc=$(cat "$WORK/ro.rc" 2>/dev/null || echo 9)
  listed=$(tail -n +2 "$WORK/ro.list" 2>/dev/null | wc -l)
  if [ "$rc" = 9 ]; then
    echo "env fault read-only: skipped: a read-only bind mount is refused here"
  elif one_line "$WORK/ro.err" "read-only" "$rc" 3 && [ "$(cat "$WORK/ro.readrc")" = 0 ] && [ "$listed" = 2 ] &&
     [ "$(cat "$WORK/ro.dryrc")" = 0 ] && grep -q "would change category" "$WORK/ro.dry" &&
     [ "$(cat "$WORK/ro.slashrc")" = 0 ] && [ "$sha" = "$(sha256sum < "$WORK/ro/xp.db")" ] &&
     one_line "$WORK/ro.pendingerr" "read-only file system, and SQLite reads the results still in its -wal file only with a -shm file" \
       "$(cat "$WORK/ro.pendingrc")" 3; then
    report read-only 0 "writer exit 3, '$(cat "$WORK/ro.err")'; readers still list its $listed runs; a dry run answers; file unchanged"
  else
    report read-only 1 "writer exit $rc: $(head -2 "$WORK/ro.err"); reader exit $(cat "$WORK/ro.readrc"): $(head -2 "$WORK/ro.readerr"); dry run exit $(cat "$WORK/ro.dryrc"): $(head -2 "$WORK/ro.dry"); a path of a leading // exit $(cat "$WORK/ro.slashrc"): $(head -2 "$WORK/ro.slasherr"); pending -wal exit $(cat "$WORK/ro.pendingrc"): $(head -2 "$WORK/ro.pendingerr")"
  fi

  # A 2 MiB disk: a database with runs, then filled up to leave ~400 KiB, then runs too big to
  # fit; then filled completely; then emptied again.
  unshare -rm bash -c '
    mount -t tmpfs -o size=2m tmpfs "$WORK/full" || exit 9
    DB=$WORK/full/xp.db
    "$PROBE" record "$DB" 3 2 10 >/dev/null 2>&1
    "$PROBE" record "$WORK/full/second.db" 1 2 10 >/dev/null 2>&1 # closed cleanly: no -wal left
    # measured, not a fixed count: the databases grow with the schema (a page a table), and
    # a count that left 72 KiB left too little to record the runs as failed once they grew
    dd if=/dev/zero of="$WORK/full/filler" bs=4k count=$(( ($(df -k --output=avail "$WORK/full" | tail -1) - 400) / 4 )) 2>/dev/null
    "$PROBE" record "$DB" 3 50 1000 > "$WORK/full.out" 2>"$WORK/full.err"; echo $? > "$WORK/full.rc"
    "$PROBE" check "$DB" > "$WORK/full.check" 2>&1; echo $? >> "$WORK/full.check"
    dd if=/dev/zero of="$WORK/full/filler2" bs=4k 2>/dev/null
    # (not xp.db: its -wal file, grown by the runs that failed, has room to reuse)
    write_one "$WORK/full/second.db" >/dev/null 2>"$WORK/full2.err"; echo $? > "$WORK/full2.rc"
    rm -f "$WORK/full/filler" "$WORK/full/filler2"
    "$PROBE" check "$DB" > "$WORK/full2.check" 2>&1; echo $? >> "$WORK/full2.check"
    write_one "$DB" >/dev/null 2>"$WORK/full3.err"; echo $? > "$WORK/full3.rc"
    "$PROBE" check "$DB" > "$WORK/full3.check" 2>&1; echo $? >> "$WORK/full3.check"
  '
  rc=$(cat "$WORK/full.rc" 2>/dev/null || echo 9)
  nerr=$(wc -l < "$WORK/full.err" 2>/dev/null || echo 0); nfull=$(grep -c 'disk full' "$WORK/full.err" 2>/dev/null)
  ok=1
  [ "$rc" = 3 ] && [ "$nerr" -ge 1 ] && [ "$nerr" = "$nfull" ] || ok=0
  # A run whose results did not fit is kept as failed, without data; one that could not even
  # record its row is not there at all. None is left running.
  grep -q -E "failed=[1-9][0-9]* aborted=0 incomplete=0 running=0 violations=0" "$WORK/full.check" || ok=0
  [ "$(tail -1 "$WORK/full.check")" = 0 ] && [ "$(tail -1 "$WORK/full2.check")" = 0 ] && [ "$(tail -1 "$WORK/full3.check")" = 0 ] || ok=0
  one_line "$WORK/full2.err" "disk full" "$(cat "$WORK/full2.rc")" 3 || ok=0
  [ "$(cat "$WORK/full3.rc")" = 0 ] || ok=0
  if [ "$rc" = 9 ]; then
    echo "env fault disk-full: skipped: mounting a small tmpfs is refused here"
  elif [ $ok = 1 ]; then
    report disk-full 0 "runs that no longer fit: exit 3, $nerr lines all saying '$(head -1 "$WORK/full.err" | sed 's/.*: \([^:]*: [^:]*\)$/\1/')' (runs begun are kept as failed, without data: $(head -1 "$WORK/full.check")); a full disk at the start: exit 3, one line; database whole throughout; writing works once space is back"
  else
    report disk-full 1 "exit $rc, stderr: $(head -3 "$WORK/full.err"); check: $(head -1 "$WORK/full.check"); full at start: exit $(cat "$WORK/full2.rc") $(head -2 "$WORK/full2.err"); after: $(cat "$WORK/full3.rc") $(head -1 "$WORK/full3.check")"
  fi
fi
echo "env faults: written with $WRITER; $failures failed"
[ $failures -eq 0 ]
