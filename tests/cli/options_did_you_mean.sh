#!/usr/bin/env bash
# A mistyped option names the one meant, in every command and before the command, as a
# mistyped command, spec key or import format does: "unknown option --dryrun" was all it said.
# A word near no option is refused as before; nothing is created or recorded either way.
set -u
. "$XP_SRC/tests/lib.sh"
meant() { # meant CMD-AND-WORDS... -- EXPECTED-TAIL: one line, exit 2, ending "did you mean X? (see ...)"
  local args=() tail
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  tail=$2
  one_line "xp ${args[*]}" 2 "$tail" "$XP" --db "$db" "${args[@]}"
}
meant run spec.toml --dryrun -- "run: unknown option --dryrun: did you mean --dry-run? (see \`xp run --help\`)$"
meant rerun 3f2a --dry_run -- "rerun: unknown option --dry_run: did you mean --dry-run?"
meant runs --formt=csv -- "runs: unknown option --formt=csv: did you mean --format?"
meant runs --wehre tp=2 -- "runs: unknown option --wehre: did you mean --where?"
meant show 3f2a --fromat json -- "show: unknown option --fromat: did you mean --format?"
meant export --no-sample -- "export: unknown option --no-sample: did you mean --no-samples?"
meant query q.sql --parm tp=2 -- "query: unknown option --parm: did you mean --param?"
meant compare a b --fromat json -- "compare: unknown option --fromat: did you mean --format?"
meant decide "a title" --becuse why -- "decide: unknown option --becuse: did you mean --because?"
meant verify --seel -- "verify: unknown option --seel: did you mean --seal?"
meant report --ot x.html -- "report: unknown option --ot: did you mean --out?"
meant reclassify --rule r.toml -- "reclassify: unknown option --rule: did you mean --rules?"
meant merge other.db --dryrun -- "merge: unknown option --dryrun: did you mean --dry-run?"
# an import's options are its kind's keys and the declared ones, dashed, with --set and --dry-run
meant import nccl-tests log.txt --colective all_reduce -- \
  "import: --colective: unknown option for nccl-tests: did you mean --collective? (see \`xp import --help\`)$"
meant import torch-trace t.json --step-anotation x -- "import: --step-anotation: unknown option for torch-trace: did you mean --step-annotation?"
meant import vllm-bench r.json --dryrun -- "import: --dryrun: unknown option for vllm-bench: did you mean --dry-run?"
meant import vllm-bench r.json --mdoel x -- "import: --mdoel: unknown option for vllm-bench: did you mean --model?"
one_line "xp --dbb" 2 "unknown option --dbb: did you mean --db? (see \`xp help\`)$" "$XP" --dbb "$db" runs
# near none: as before, without a guess
one_line "run --frob" 2 "run: unknown option --frob (see \`xp run --help\`)$" "$XP" --db "$db" run spec.toml --frob
one_line "import --frob" 2 "import: --frob: unknown option for vllm-bench (see \`xp import --help\`)$" \
  "$XP" --db "$db" import vllm-bench r.json --frob
# A format shortened to one of its words (xp import vllm, xp import NCCL) names the format: too far
# in edits for the near-name measure, it was "unknown format 'vllm'" and the list alone.
for short in vllm:vllm-bench VLLM:vllm-bench nccl:nccl-tests trace:torch-trace; do
  one_line "import ${short%%:*}" 2 "import: unknown format '${short%%:*}': did you mean '${short#*:}'?" \
    "$XP" --db "$db" import "${short%%:*}" r.json
done
# xp version takes no option: --json was "unexpected argument --json", where every other command
# says unknown option (and the one meant, for --hlep)
one_line "version --json" 2 "version: unknown option --json (see \`xp version --help\`)$" "$XP" --db "$db" version --json
one_line "version --hlep" 2 "version: unknown option --hlep: did you mean --help? (see \`xp version --help\`)$" "$XP" --db "$db" version --hlep
one_line "version extra" 2 "version: unexpected argument extra (see \`xp version --help\`)$" "$XP" --db "$db" version extra
one_line "import x: no format named" 2 "import: unknown format 'x' (formats: " "$XP" --db "$db" import x r.json
check "nothing created" no "$([ -e "$db" ] && echo yes || echo no)"
finish
