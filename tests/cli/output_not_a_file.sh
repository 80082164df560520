#!/usr/bin/env bash
# xp export --out and xp report --out write a regular file beside the target and rename it over
# it, so that a failure never leaves half a file. A target that is not a regular file is written
# through instead: renamed over, a FIFO (or, run as root, /dev/null: it became a regular file
# holding the report) was replaced by a file and its reader never got the data, and
# /proc/self/fd/1 (/dev/stdout) was refused. A symbolic link's target is the file replaced:
# renamed over, the link became a file with its target left as it was; a link to a name where
# nothing is yet, too, where the file is made.
# (No /dev path here: an xp without the fix, run as root, would replace it.)
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
"$XP" --db "$db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "a database to export" 0 $?
# The same output, the time it was made aside
same() { cmp <(sed -E 's/[0-9-]{10}T[0-9:.]{12}Z//g' "$1") <(sed -E 's/[0-9-]{10}T[0-9:.]{12}Z//g' "$2") 2>&1 | sed 's/^.* differ/differ/'; }
"$XP" --db "$db" export --out "$tmp/want.json" 2> /dev/null
"$XP" --db "$db" report --out "$tmp/want.html" > /dev/null

for cmd in export report; do
  want="$tmp/want.$([ $cmd = export ] && echo json || echo html)"
  # a FIFO: its reader gets the output, the FIFO stays one
  mkfifo "$tmp/fifo"
  timeout 10 cat "$tmp/fifo" > "$tmp/got" &
  reader=$!
  timeout 10 "$XP" --db "$db" $cmd --out "$tmp/fifo" > /dev/null 2>&1
  check "$cmd --out FIFO: exit" 0 $?
  wait $reader
  check "$cmd --out FIFO: the reader got it" "" "$(same "$want" "$tmp/got")"
  check "$cmd --out FIFO: still a FIFO" "yes" "$([ -p "$tmp/fifo" ] && echo yes)"
  rm -f "$tmp/fifo" "$tmp/got"
  # a symbolic link (relative, from another folder): its target gets the output, the link
  # stays one, and the target is replaced whole as a plain --out is, not written in place (a
  # reader holding the old file, here a hard link, keeps it; a failure would leave it whole)
  echo old > "$tmp/target"
  ln "$tmp/target" "$tmp/reader"
  mkdir -p "$tmp/sub" && ln -s ../target "$tmp/sub/link"
  "$XP" --db "$db" $cmd --out "$tmp/sub/link" > /dev/null 2>&1
  check "$cmd --out LINK: exit" 0 $?
  check "$cmd --out LINK: the target got it" "" "$(same "$want" "$tmp/target")"
  check "$cmd --out LINK: still a link" "yes" "$([ -L "$tmp/sub/link" ] && echo yes)"
  check "$cmd --out LINK: the target replaced whole, not written in place" "old" "$(cat "$tmp/reader")"
  check "$cmd --out LINK: no file left beside it" "link" "$(ls "$tmp/sub")"
  rm -rf "$tmp/sub" "$tmp/target" "$tmp/reader"
  # a link to a file not made yet: made there, through the link, which stays one (renamed over,
  # the link became a file and nothing was written where it leads)
  mkdir -p "$tmp/sub" "$tmp/dest" && ln -s ../dest/new "$tmp/sub/link"
  "$XP" --db "$db" $cmd --out "$tmp/sub/link" > /dev/null 2>&1
  check "$cmd --out DANGLING LINK: exit" 0 $?
  check "$cmd --out DANGLING LINK: made where it leads" "" "$(same "$want" "$tmp/dest/new")"
  check "$cmd --out DANGLING LINK: still a link" "yes" "$([ -L "$tmp/sub/link" ] && echo yes)"
  check "$cmd --out DANGLING LINK: nothing else in either folder" "link new" "$(ls "$tmp/sub") $(ls "$tmp/dest")"
  # ... into a folder that is not there: one line naming it
  ln -s ../gone/new "$tmp/sub/to_gone"
  one_line "$cmd --out LINK into a missing folder" 2 \
    "sub/to_gone: cannot [a-z]* in $tmp/sub/../gone (where the link leads): No such file or directory$" \
    "$XP" --db "$db" $cmd --out "$tmp/sub/to_gone"
  check "$cmd --out LINK into a missing folder: the link kept" "yes" "$([ -L "$tmp/sub/to_gone" ] && echo yes)"
  rm -rf "$tmp/sub" "$tmp/dest"
done

# xp's own standard output by a path (as /dev/stdout and /dev/fd/1 are, through a link)
"$XP" --db "$db" export --out /proc/self/fd/1 2> "$tmp/err" > "$tmp/got"
check "export --out /proc/self/fd/1: exit" 0 $?
check "export --out /proc/self/fd/1: the output" "" "$(same "$tmp/want.json" "$tmp/got")"
# the page to standard output by a name: the page alone there, whole (the note "wrote ..." went
# to standard output too, over the page's start in a file the shell opened, after it in a pipe)
"$XP" --db "$db" report --out /proc/self/fd/1 2> "$tmp/err" > "$tmp/got"
check "report --out /proc/self/fd/1 > FILE: the page whole" "" "$(same "$tmp/want.html" "$tmp/got")"
check "report --out /proc/self/fd/1: the note on stderr" 1 "$(grep -c '^xp: wrote /proc/self/fd/1: ' "$tmp/err")"
"$XP" --db "$db" report --out /proc/self/fd/1 2> /dev/null | cat > "$tmp/got"
check "report --out /proc/self/fd/1 | cat: the page alone" "" "$(same "$tmp/want.html" "$tmp/got")"
# appended to (a shell's >>): what was there stays, the output after it
echo first > "$tmp/got"
"$XP" --db "$db" export --out /proc/self/fd/1 2> "$tmp/err" >> "$tmp/got"
check "export --out /proc/self/fd/1 >> FILE: what was there kept" "first" "$(head -1 "$tmp/got")"
finish
