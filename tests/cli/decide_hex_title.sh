#!/usr/bin/env bash
# xp decide --evidence takes every word up to the next option, so a title written after the runs
# is read as one more run. A title of letters that are not hex ("Use NVLink") was named; one that
# reads as hex ("cafe", "deadbeef", "add-bf16") was taken for a run, and the user who gave a title
# was told "what was decided? give a title". The word that could be either is now named, with
# where the title goes; nothing is recorded.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
r=$(record model=m)
hint="no title given: 'cafe', after --evidence, was read as a run; if it is the title, put it before --evidence, or after --"
one_line "hex title after the runs" 2 "decide: $hint" "$XP" --db "$db" decide --because "y" --evidence "${r:0:8}" cafe
one_line "hex title alone after --evidence" 2 "decide: $hint" "$XP" --db "$db" decide --because "y" --evidence cafe
check "nothing decided" 0 "$(sql "SELECT count(*) FROM decisions")"
# as before: a word that is no run id is named so; a title before --evidence, or after --, is one
one_line "non-hex title after the runs" 2 "decide: --evidence Use: not a run id" \
  "$XP" --db "$db" decide --because "y" --evidence "${r:0:8}" Use
run decide --because "y" --evidence "${r:0:8}" -- cafe; expect_rc 0; has "recorded: cafe"
run decide cafe --because "y" --evidence "${r:0:8}"; expect_rc 0; has "recorded: cafe"
finish
