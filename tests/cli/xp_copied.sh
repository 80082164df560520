#!/usr/bin/env bash
# build/xp copied elsewhere (cp build/xp ~/bin) has no xp-cuda beside it to hand GPU kinds to.
# It said "this xp was built without CUDA (rebuild with -DXP_CUDA=ON)" of a CUDA build; it
# cannot tell the two apart, and now names both. Exit 4, one line, nothing recorded.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
cp "$XP" "$tmp/xp"
one_line "a GPU kind from a copied xp" 4 "nccl_burst runs need a GPU and xp-cuda beside this xp, and there is none: built without CUDA (.*), or this xp was copied away from its build folder" \
  "$tmp/xp" --db "$db" run "$XP_SRC/experiments/allreduce_burst.toml"
check "nothing recorded" "no" "$([ -e "$db" ] && echo yes || echo no)"
"$tmp/xp" version > "$tmp/out"
grep -q "^no xp-cuda beside this binary: built without CUDA, or copied away from its build folder" "$tmp/out" ||
  { echo "FAIL: xp version of a copied xp: $(tail -1 "$tmp/out")"; fail=1; }
finish
