#!/bin/bash
# CI: kill -9 at random moments, fewer times than the full figures (bench/reliability.sh runs
# 100 of each): while the recorder creates the database and records runs (40 trials), and while
# `xp import torch-trace` imports the big fixture (10 trials; skipped without the fixture).
# After every kill the database passes integrity_check, no run that is not ok holds results,
# and the killed run shows as incomplete.
set -u
dir=${XP_SRC:-$(dirname "$0")/../..}/tests/reliability
bash "$dir/crash_trials.sh" record "${XP_CRASH_TRIALS:-40}" || exit 1
bash "$dir/crash_trials.sh" import "${XP_IMPORT_CRASH_TRIALS:-10}"
rc=$?
[ $rc -eq 77 ] && exit 0 # said why; the recorder trials above still count
exit $rc
