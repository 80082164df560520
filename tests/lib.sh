# Shared by the shell tests: `. "$XP_SRC/tests/lib.sh"` gives a temporary folder ($tmp, removed
# on exit), a database path ($db), check/query helpers and a GPU guard. Tests end with
# `finish`, which exits 1 if any check failed.
: "${XP:?XP must name the xp binary}" "${XP_SRC:?XP_SRC must name the source tree}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/x.db"
fail=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: expected [$2], got [$3]"
    fail=1
  fi
}
query() { # query SQL: CSV rows without the header, from $db
  printf '%s\n' "$1" > "$tmp/q.sql"
  "$XP" --db "$db" query "$tmp/q.sql" --format csv | tail -n +2
}
need_gpus() { # need_gpus N: skip (77) unless N GPUs are visible
  local n
  n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
  if [ "$n" -lt "$1" ]; then
    echo "skipped: needs $1 GPU(s), nvidia-smi -L finds $n"
    exit 77
  fi
}
finish() {
  [ "$fail" = 0 ] && echo "ok"
  exit "$fail"
}
