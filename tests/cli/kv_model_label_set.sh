#!/usr/bin/env bash
# kernel_variant's shapes must be ones the labelled model runs at the declared tp (its file beside
# the spec, models/<model>.toml). Refused, the line names what made them disagree: the --set that
# changed tp or model, else the spec's model line. --set tp=4 on w4a16_variants.toml (Kimi-K2.5's
# TP=8 shapes) blamed the spec's `model = "Kimi-K2.5"` line, which the user had not touched.
set -u
. "$XP_SRC/tests/lib.sh"
spec="$XP_SRC/experiments/w4a16_variants.toml"
shapes='shapes\[0\] (gate_up) is not a shape'
one_line "--set tp=4" 2 "<command line>: --set tp: \"Kimi-K2.5\" labels the run, but $shapes Kimi-K2.5 runs at tp=4 " \
  "$XP" --db "$db" run "$spec" --dry-run --set tp=4
one_line "--set model=GLM-4.5" 2 "<command line>: --set model: \"GLM-4.5\" labels the run, but $shapes GLM-4.5 runs at tp=8 " \
  "$XP" --db "$db" run "$spec" --dry-run --set model=GLM-4.5
one_line "--set model and tp" 2 "<command line>: --set model: \"GLM-4.5\" labels the run, but $shapes GLM-4.5 runs at tp=4 " \
  "$XP" --db "$db" run "$spec" --dry-run --set tp=4 --set model=GLM-4.5
# the spec's own tp: its model line, as before
mkdir "$tmp/exp"
cp -r "$XP_SRC/experiments/models" "$tmp/exp/"
sed 's/^tp = 8$/tp = 4/' "$spec" > "$tmp/exp/kv.toml"
line=$(grep -n '^model = ' "$tmp/exp/kv.toml" | cut -d: -f1)
one_line "the spec's tp = 4" 2 "$tmp/exp/kv.toml:$line: model: \"Kimi-K2.5\" labels the run, but $shapes Kimi-K2.5 runs at tp=4 " \
  "$XP" --db "$db" run "$tmp/exp/kv.toml" --dry-run
"$XP" --db "$db" run "$spec" --dry-run --set tp=8 > /dev/null
check "--set tp=8, the shapes' own" 0 $?
finish
