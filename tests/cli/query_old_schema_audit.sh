#!/usr/bin/env bash
# xp audit on a database an xp before schema 34 made, holding decisions: it has no table
# decision_evidence_sides (every decision then was one list of evidence). The audit reads the
# evidence as one list, as that xp did, judges the newer runs and checks the decision's digest,
# and leaves the file at its schema; xp verify --seal migrates it, and the audit says the same.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
command -v sqlite3 > /dev/null || exit 77
e=$(record model=m tp=2)
run decide "Keep m at TP=2" --because "fast enough" --evidence "${e:0:8}"; expect_rc 0
slower=$(record model=m tp=2 scale=1.3)
# schema 33: what migrations 034 on added taken away, the version set back
sqlite3 "$db" "DROP TABLE decision_evidence_sides; DROP VIEW run_gpu_state; PRAGMA user_version = 33;"
audit_contradicted() { # the audit's answer on the decision: the newer slower run contradicts it
  run audit; expect_rc 1
  has "  run ${e:0:8}  hist_probe  ok  model=m tp=2  started "
  has "seal unchanged"
  has "    each newer run judged alone: ${slower:0:8} +30.0%"
  has "verdict: CONTRADICTED by newer runs"
  check "one line on stderr" 1 "$(wc -l < "$tmp/err")"
  has "1 decision contradicted by newer runs" "$tmp/err"
}
audit_contradicted
cp "$tmp/out" "$tmp/old_audit"
check "a reading command leaves the schema" 33 "$(sqlite3 "$db" 'PRAGMA user_version')"
run verify --seal; expect_rc 0
[ "$(sqlite3 "$db" 'PRAGMA user_version')" -gt 33 ] || die "xp verify --seal migrates"
audit_contradicted
cmp -s "$tmp/old_audit" "$tmp/out" || die "the same audit once migrated: $(diff "$tmp/old_audit" "$tmp/out")"
echo "ok: xp audit on a schema-33 database with a decision"
