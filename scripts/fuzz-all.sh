#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME each (default 2s): a
# duration, or a count of executions such as 1000x. CI runs each briefly,
# by count: with Go 1.26 a duration can fail a target with "context
# deadline exceeded" and no failing input as it ends (go.dev/issue/75804,
# fixed in Go 1.27). For a long session: FUZZTIME=10m scripts/fuzz-all.sh
# Inputs that fail are written to the package's testdata/fuzz/ by go test:
# commit them as regression seeds once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "== $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/ctxgit-fuzz.$$ 2>&1 || { cat /tmp/ctxgit-fuzz.$$; rm -f /tmp/ctxgit-fuzz.$$; exit 1; }
  done
done
rm -f /tmp/ctxgit-fuzz.$$
