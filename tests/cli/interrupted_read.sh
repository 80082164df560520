#!/usr/bin/env bash
# SIGINT or SIGTERM while xp waits for its input (a spec or query file that is a FIFO, as
# <(...) gives, whose writer has not come) ends it with exit 130, interrupted, as README's exit
# codes say: it exited 2, bad input ("cannot read: Interrupted system call").
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
"$XP" --db "$db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "a database" 0 $?
mkfifo "$tmp/spec.toml" "$tmp/q.sql"
interrupt() { # SIGNAL ARGS...: xp ARGS, signalled once it waits for its input; its exit status
  local sig=$1
  shift
  "$XP" --db "$db" "$@" > /dev/null 2> "$tmp/err" &
  local pid=$!
  sleep 0.5
  kill -"$sig" "$pid"
  wait "$pid"
}
interrupt TERM run "$tmp/spec.toml" --dry-run
check "run: SIGTERM while reading the spec" 130 $?
check "run: one line on stderr" 1 "$(wc -l < "$tmp/err")"
interrupt INT query "$tmp/q.sql"
check "query: SIGINT while reading the query" 130 $?
check "query: one line on stderr" 1 "$(wc -l < "$tmp/err")"
finish
