#!/usr/bin/env bash
# Every whole-process benchmark of docs/PERFORMANCE.md in one run, each
# against its anchor: the hook no-op paths against `sh -c 'test -f'` and the
# transcript gauge against the no-op; recover, status and log against
# history length and git log; snapshots of 10,000 and 100,000 files against
# git's plumbing, with peak memory, loose objects and growth. It takes about
# a quarter of an hour on 2 cores; each script can be run alone (see its
# header).
#
#   scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")"
./bench-hooks.sh
echo
./bench-history.sh
SIZES=${SIZES:-"10000:500 100000:5000"} RUNS=${RUNS:-3} ./bench-snapshot.sh
