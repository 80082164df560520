#!/usr/bin/env bash
# Every unit xp records has a direction in the one list (harness/unit_better.c) that xp compare,
# xp audit and queries/regressions.sql judge by (SQL xp_metric_direction): "lower", "higher" or
# "either" (a share, a count: no better way). The query and the C side kept a list each, and a
# vLLM summary's "sec" was 'worse' in xp compare and 'changed' in regressions.sql. A unit an
# importer or runner records that the list lacks fails here: imports of every fixture, and the
# metrics the GPU runners name in their source (they cannot run here), each judged as stated here.
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
# the runners' metrics, as their source names them: every string literal of each xp_run_value/
# xp_run_metric call's metric and unit arguments (a ternary's paired in order: ceilings' is_copy ?
# "gbps" : "tflops", is_copy ? "GB/s" : "TFLOP/s", which a grep for '"METRIC", "UNIT"' missed), a
# table's rows {"name", "UNIT", value} (gemm's, recorded through .name and .unit); a metric named
# at run time ("burst_us.rank%d", a floor's name) is "*", judged by its unit. An argument read
# neither way fails, so that no metric is missed silently. Each metric must be in the list below,
# with the direction xp judges it by: a runner's new metric, or a unit like "ratio" that a speedup
# (higher) and a share (either) both use, is judged as its author says, not as a unit falls.
cat > "$tmp/metrics.pl" <<'PERL'
# "METRIC UNIT" for each xp_run_value/xp_run_metric call in the sources on stdin (metric third,
# unit fourth argument), TABLE where both are read from a table's fields (.name, .unit), else
# "UNREAD: <argument>", which the check fails on.
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
  next if @args < 4;  # not a call of the two
  my ($m, $u) = @args[2, 3];
  if ($m =~ /\.name\s*$/ && $u =~ /\.unit\s*$/) { print "TABLE\n"; next }
  my @units = $u =~ /"([^"]*)"/g;
  if (!@units) { $u =~ s/\s+/ /g; print "UNREAD: $u\n"; next }
  my @names = $m =~ /"([^"]*)"/g;
  @names = ("*") x @units if !@names;  # named at run time
  if (@names != @units) { $m =~ s/\s+/ /g; print "UNREAD: $m\n"; next }
  print "$names[$_] $units[$_]\n" for 0 .. $#units;
}
while ($src =~ /\{"([a-z_0-9]+)", "([^"]+)", [a-z]/g) { print "$1 $2\n" }
PERL
metrics=$(cat "$XP_SRC"/harness/runners/*.c | perl "$tmp/metrics.pl" | grep -v '^TABLE$' | sort -u)
check "runner metric arguments unread" "" "$(printf '%s\n' "$metrics" | grep '^UNREAD' | tr '\n' ' ')"
printf '%s\n' "$metrics" | grep -qxF 'tflops TFLOP/s' || die "ceilings' tflops, a ternary's, not found: $metrics"
printf '%s\n' "$metrics" | grep -qxF 'best_speedup ratio' || die "gemm's table rows not found: $metrics"
# METRIC UNIT DIRECTION: every metric a runner records ("*": named at run time, by its unit)
sort > "$tmp/stated" <<'LIST'
* us lower
algbw_GBps GB/s higher
best_speedup ratio higher
burst_us us lower
busbw_GBps GB/s higher
bw_share ratio either
bw_share_best ratio either
compute_share ratio either
compute_share_best ratio either
copy_share ratio either
gbps GB/s higher
gbps_best GB/s higher
max_err ratio lower
rank_spread_us us lower
tflops TFLOP/s higher
tflops_best TFLOP/s higher
time_best_us us lower
time_us us lower
verify_min_count count either
wrong count lower
LIST
check "runner metrics without a stated direction (add them to the list)" "" \
  "$(printf '%s\n' "$metrics" | while read -r m u; do grep -qF -- "$m $u " "$tmp/stated" || printf '%s ' "$m($u)"; done)"
check "stated metrics no runner records (take them out of the list)" "" \
  "$(while read -r m u d; do printf '%s\n' "$metrics" | grep -qxF -- "$m $u" || printf '%s ' "$m($u)"; done < "$tmp/stated")"
while read -r m u d; do
  [ "$m" = "*" ] && got=$(sql "SELECT xp_metric_direction(NULL, '$u')") || got=$(sql "SELECT xp_metric_direction('$m', '$u')")
  check "direction of the runners' $m ($u)" "$d" "$got"
done < "$tmp/stated"
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
