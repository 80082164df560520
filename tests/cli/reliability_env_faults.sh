#!/bin/bash
# CI: a missing folder, a read-only database, a full disk, a database locked past the busy
# timeout (about 30 s of this test's time): one clear line, exit 3, nothing corrupted.
exec bash "${XP_SRC:-$(dirname "$0")/../..}/tests/reliability/env_faults.sh"
