#!/usr/bin/env bash
# An option given last without its value names the command and its help, as every other option
# error does: `xp runs --limit` said "xp: --limit needs a value" alone, which of a script's many
# xp lines had failed left to guess. --db, xp's own option, points at `xp help`. Nothing is
# created or recorded.
set -u
. "$XP_SRC/tests/lib.sh"
spec="$XP_SRC/experiments/allreduce_burst.toml"
printf 'SELECT 1;\n' > "$tmp/q.sql"
novalue() { # novalue CMD ARGS... OPTION: one line, exit 2, "CMD: OPTION needs a value (see `xp CMD --help`)"
  local cmd=$1 opt=${!#}
  one_line "xp $*" 2 "$cmd: $opt needs a value (see \`xp $cmd --help\`)$" "$XP" --db "$db" "$@"
}
novalue run "$spec" --set
novalue import nccl-tests log.txt --set
novalue import torch-trace t.json --step-annotation
novalue query "$tmp/q.sql" --param
novalue query "$tmp/q.sql" --format
for opt in --kind --status --limit --where --format; do novalue runs "$opt"; done
novalue show 3f2a --format
novalue reclassify --rules
for opt in --a --b --format; do novalue compare "$opt"; done
for opt in --because --query --supersedes --param; do novalue decide "a title" "$opt"; done
for opt in --format --out --kind --status --run --where; do novalue export "$opt"; done
novalue report --out
one_line "xp --db" 2 "--db needs a value (see \`xp help\`)$" "$XP" --db
[ ! -e "$db" ] || { echo "FAIL: $db was created"; fail=1; }
finish
