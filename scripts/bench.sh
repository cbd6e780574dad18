#!/usr/bin/env bash
# Every whole-process benchmark of docs/PERFORMANCE.md in one run, each
# against its anchor: the hook no-op paths against `sh -c 'test -f'` and the
# transcript gauge against the no-op; recover, status and log against
# history length and git log; snapshots of 10,000 and 100,000 files and
# of the real trees (terraform, oci-go-sdk, a 511,000-object history pack,
# from the Go module proxy) against git's plumbing, with peak memory, loose
# objects and growth, and a 600 MiB file's peak memory; then checkpoints
# of terraform x40 (184,880 files) against git's plumbing and git status
# (scripts/bench-scale.sh; COPIES=200 for 924,400 files is its long tier,
# run by hand). It takes about an hour on 2 cores, most of it the real
# trees; REAL= and BIGFILE_MB=0 leave them out (about a quarter of an
# hour). Each script can be run alone (see its header).
#
#   scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")"
./bench-hooks.sh
echo
./bench-start.sh
echo
./bench-session-hooks.sh
echo
./bench-history.sh
SIZES=${SIZES:-"10000:500 100000:5000"} RUNS=${RUNS:-3} ./bench-snapshot.sh
./bench-scale.sh
