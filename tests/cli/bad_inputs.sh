#!/bin/bash
# The bad-input catalogue (tests/bad_inputs/*/): every case must give exactly one line on
# stderr, starting with "xp: " and matching the case's pattern, the documented exit code, and
# leave the database as the case says (by default byte for byte as it was).
# A case is a folder with a `case` file (see tests/bad_inputs/README.md) and its input files.
# Usage: bad_inputs.sh [CASE...]   Prints one line per case and a summary; exit 1 on a failure.
set -u
: "${XP:?XP must name the xp binary}"
SRC=${XP_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
XP_BUILD=${XP_BUILD:-$(dirname "$XP")}
PROBE=$XP_BUILD/tests/test_reliability
CATALOGUE=$SRC/tests/bad_inputs
[ -x "$PROBE" ] || { echo "bad_inputs: $PROBE is not built" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/xp-bad.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# What this build has: "kind NAME" and "importer NAME" lines.
"$XP" help kinds 2>/dev/null | awk '{print "kind " $1} /xp import/ {sub(/.*xp import /, ""); sub(/[)].*/, ""); print "importer " $1}' > "$WORK/have"
# "tool NAME": a program the case's setup.sh runs (sqlite3, absent on a bare GPU host).
has() {
  case $1 in
  "tool "*) command -v "${1#tool }" > /dev/null ;;
  *) grep -qx "$1" "$WORK/have" ;;
  esac
}

# One field of a case file: "key: value" (the first such line).
field() { sed -n "s/^$2: //p" "$1/case" | head -1; }
# The first requirement of a case (its "requires:" lines) that this machine lacks, if any.
missing_need() {
  local need
  while IFS= read -r need; do
    has "$need" || { printf '%s\n' "$need"; return; }
  done < <(sed -n 's/^requires: //p' "$1/case")
}

# Runs, newest first, as "status<TAB>error" lines, read through xp itself.
printf 'SELECT status, coalesce(error, %s) FROM runs ORDER BY id DESC;\n' "''" > "$WORK/runs.sql"
runs_of() { [ -f "$1" ] && "$XP" --db "$1" query "$WORK/runs.sql" --format csv 2>/dev/null | tail -n +2; }

pass=0; fail=0; skip=0; skipped_for=""
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=($(cd "$CATALOGUE" && ls -d */ | tr -d /))
for name in "${cases[@]}"; do
  dir=$CATALOGUE/$name
  need=$(missing_need "$dir")
  if [ -n "$need" ]; then
    skip=$((skip + 1)); skipped_for="$skipped_for
${need#tool }"
    echo "skip $name: this machine has no ${need#tool }"
    continue
  fi
  scratch=$WORK/$name
  mkdir -p "$scratch"
  cp -r "$dir"/. "$scratch"/
  DB=$scratch/xp.db
  if [ "$(field "$dir" start)" != "no database" ]; then
    "$PROBE" record "$DB" 2 1 5 >/dev/null 2>&1 || { echo "FAIL $name: cannot make the starting database"; fail=$((fail + 1)); continue; }
  fi
  if [ -f "$scratch/setup.sh" ]; then
    (cd "$scratch" && XP=$XP DB=$DB PROBE=$PROBE bash setup.sh) > "$scratch/.setup.log" 2>&1
    src=$?
    if [ $src -eq 77 ]; then # the case does not apply here (say, a GPU case on a GPU host)
      skip=$((skip + 1)); echo "skip $name: $(tail -1 "$scratch/.setup.log")"; continue
    elif [ $src -eq 127 ]; then # a test tool missing (sqlite3 on a bare GPU host): not run, not passed
      skip=$((skip + 1)); echo "skip $name: $(tail -1 "$scratch/.setup.log") (cmake/install-deps.sh --test)"; continue
    elif [ $src -ne 0 ]; then
      echo "FAIL $name: setup.sh failed: $(tail -1 "$scratch/.setup.log")"; fail=$((fail + 1)); continue
    fi
  fi
  before_sha=$( [ -f "$DB" ] && sha256sum < "$DB")
  before_runs=$(runs_of "$DB" | wc -l)
  args=$(field "$dir" args)
  (cd "$scratch" && eval "\"\$XP\" $args") > "$scratch/.stdout" 2> "$scratch/.stderr" < /dev/null
  rc=$?
  want_rc=$(field "$dir" exit)
  want_err=$(field "$dir" stderr)
  want_db=$(field "$dir" db)
  # Progress lines of a big file read off a terminal ("xp: reading F: 25%") are not the error;
  # how many appear depends on the machine's speed (a slow sanitizer build prints some).
  grep -Ev '^xp: reading .*: [0-9]+%$' "$scratch/.stderr" > "$scratch/.errors"
  lines=$(wc -l < "$scratch/.errors")
  line=$(head -1 "$scratch/.errors")
  why=""
  if [ "$rc" != "$want_rc" ]; then why="exit $rc, expected $want_rc"
  elif [ "$lines" -ne 1 ]; then why="$lines lines on stderr, expected exactly one"
  elif [ "${line#xp: }" = "$line" ]; then why="stderr does not start with 'xp: '"
  elif ! printf '%s\n' "$line" | grep -q -E -- "$want_err"; then why="stderr does not match /$want_err/"
  elif [ "$(field "$dir" stdout)" = empty ] && [ -s "$scratch/.stdout" ]; then
    why="stdout is not empty: $(head -c 200 "$scratch/.stdout" | tr '\n' ' ')"
  fi
  if [ -z "$why" ]; then
    case ${want_db:-unchanged} in
    unchanged)
      after_sha=$( [ -f "$DB" ] && sha256sum < "$DB")
      [ "$before_sha" = "$after_sha" ] || why="the database changed" ;;
    absent)
      [ ! -e "$DB" ] || why="a database was created" ;;
    failed-run)
      # One new run, failed, holding the same text the user saw.
      after_runs=$(runs_of "$DB" | wc -l)
      newest=$(runs_of "$DB" | head -1)
      if [ $((after_runs - before_runs)) -ne 1 ]; then why="$((after_runs - before_runs)) new runs, expected one failed run"
      elif [ "${newest%%,*}" != failed ]; then why="the new run is '${newest%%,*}', expected failed"
      elif ! printf '%s\n' "$newest" | tr -d '"' | grep -q -F -- "$(printf '%s' "${line#xp: }" | tr -d '"' | cut -c1-60)"; then
        why="the failed run's error differs from what was printed: $newest"
      fi ;;
    any) ;;
    *) why="unknown db expectation '$want_db'" ;;
    esac
  fi
  if [ -z "$why" ]; then
    pass=$((pass + 1))
    echo "ok   $name: exit $rc: $line"
  else
    fail=$((fail + 1))
    echo "FAIL $name: $why"
    sed 's/^/       stderr: /' "$scratch/.stderr" | head -5
  fi
done
total=$((pass + fail + skip))
missing=$(printf '%s\n' "$skipped_for" | sed '/^$/d' | sort -u | paste -sd, - | sed 's/,/, /g')
echo "bad inputs: $total cases: $pass passed, $fail failed, $skip skipped${missing:+ (this machine has no $missing)}"
[ "$fail" -eq 0 ]
