#!/usr/bin/env bash
# Every unit xp records has a direction in the one list (harness/unit_better.c) that xp compare,
# xp audit and queries/regressions.sql judge by (SQL xp_metric_direction): "lower", "higher" or
# "either" (a share, a count: no better way). The query and the C side kept a list each, and a
# vLLM summary's "sec" was 'worse' in xp compare and 'changed' in regressions.sql. A unit an
# importer or runner records that the list lacks fails here: imports of every fixture, and the
# units the GPU runners name in their source (they cannot run here).
set -uo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
d="$XP_SRC/tests/data"
for f in "$d"/vllm_bench/formats/* "$d"/vllm_bench/variants/* "$d"/vllm_bench/*.json*; do
  case $f in *.py | *.md | *.digest | *.gz) continue ;; esac
  "$XP" --db "$db" import vllm-bench "$f" > /dev/null 2>&1
done
for f in "$d"/nccl/*.txt "$d"/nccl/*.json "$d"/nccl/variants/*; do
  "$XP" --db "$db" import nccl-tests "$f" > /dev/null 2>&1
done
"$XP" --db "$db" import torch-trace "$d/trace/decode_tp2_bs1_rank0.trace.json.gz" > /dev/null 2>&1
record model=m > /dev/null
check "fixtures imported of each kind" "hist_probe nccl_burst serve_bench torch_trace" \
  "$(sql "SELECT group_concat(kind, ' ') FROM (SELECT DISTINCT kind FROM runs WHERE status = 'ok' ORDER BY kind)")"
[ "$(sql "SELECT count(DISTINCT unit) FROM metrics")" -ge 10 ] || die "too few units recorded: $(query "SELECT DISTINCT unit FROM metrics")"
check "recorded units without a direction" "" "$(query "SELECT DISTINCT unit FROM metrics WHERE xp_metric_direction(name, unit) IS NULL")"
# the runners' units, as their source names them: every string literal of each xp_run_value/
# xp_run_metric call's unit argument (both of a ternary's: ceilings' is_copy ? "GB/s" : "TFLOP/s",
# which a grep for '"METRIC", "UNIT"' missed), a table's field (.unit) by gemm's table rows
# {"name", "UNIT", value}; an argument read neither way fails, so that no unit is missed silently
cat > "$tmp/units.pl" <<'PERL'
# Every unit argument of xp_run_value/xp_run_metric in the sources on stdin: the string literals of
# the call's fourth argument (both of a ternary's), "TABLE" where it is read from a table's field
# (a .unit), else "UNREAD: <argument>", which the check fails on.
undef $/;
my $src = <STDIN>;
$src =~ s{/\*.*?\*/}{}gs;
while ($src =~ /\bxp_run_(?:value|metric)\s*\(/g) {
  my ($pos, $depth, $arg, @args) = (pos($src), 1, "");
  while ($depth > 0 && $pos < length $src) {
    my $c = substr($src, $pos++, 1);
    if ($c eq '"') { my $end = index($src, '"', $pos); $arg .= '"' . substr($src, $pos, $end - $pos + 1); $pos = $end + 1; next; }
    $depth++ if $c eq '(';
    $depth-- if $c eq ')';
    if (($c eq ',' && $depth == 1) || $depth == 0) { push @args, $arg; $arg = ""; next; }
    $arg .= $c;
  }
  next if @args < 4;  # not a call of the two (each takes the unit fourth)
  my $u = $args[3];
  my @lits = $u =~ /"([^"]*)"/g;
  if (@lits) { print "$_\n" for @lits }
  elsif ($u =~ /\.unit\s*$/) { print "TABLE\n" }
  else { $u =~ s/\s+/ /g; print "UNREAD: $u\n" }
}
PERL
units=$(cat "$XP_SRC"/harness/runners/*.c | perl "$tmp/units.pl" | grep -v '^TABLE$'
        grep -rhoE '\{"[a-z_0-9]+", "[^"]+", [a-z]' "$XP_SRC"/harness/runners | sed -E 's/^\{"[^"]+", "([^"]+)".*/\1/')
check "runner unit arguments unread" "" "$(printf '%s\n' "$units" | grep '^UNREAD' | tr '\n' ' ')"
printf '%s\n' "$units" | grep -qxF 'TFLOP/s' || die "ceilings' TFLOP/s, a ternary's unit, not found: $units"
[ -n "$units" ] || die "no unit found in harness/runners"
for u in $(printf '%s\n' "$units" | sort -u); do
  [ -n "$(sql "SELECT xp_metric_direction(NULL, '$u')")" ] || { echo "FAIL: runner unit '$u' has no direction"; fail=1; }
done
# the one list, both ways: a time, a rate, a summary's "sec", a share
check "directions" "lower,higher,lower,either," \
  "$(sql "SELECT xp_metric_direction('t', 'ms'), xp_metric_direction('t', 'tok/s'), xp_metric_direction('t', 'sec'), xp_metric_direction('t', '%'), xp_metric_direction('t', 'furlongs')")"
# a unit shared by metrics going opposite ways: a speedup, a share and an error all in "ratio";
# an nccl-tests error bound and its count of wrong elements (what the fixtures record, judged)
check "directions by metric" "higher,either,lower" \
  "$(sql "SELECT xp_metric_direction('best_speedup', 'ratio'), xp_metric_direction('bw_share', 'ratio'), xp_metric_direction('max_err', 'ratio')")"
check "nccl-tests error metrics" "max_error abs lower|wrong count lower" \
  "$(sql "SELECT group_concat(m, '|') FROM (SELECT DISTINCT name || ' ' || unit || ' ' || xp_metric_direction(name, unit) AS m FROM metrics WHERE name IN ('max_error', 'wrong') ORDER BY m)")"
echo "ok: every recorded unit has a direction"
finish
