# What the bench scripts share (sourced): times, medians and ratios in the shell alone (awk, not
# bc, which GPU hosts built from a minimal image lack).
now_ns() { date +%s%N; }
# median: of the numbers on stdin, one a line (the mean of the middle two for an even count)
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# div A B: A / B as a decimal
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a / b }'; }
