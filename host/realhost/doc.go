// Package realhost holds the real-host test tier: the agent hosts as
// installed from the npm registry (scripts/realhost/install.sh), run headless
// against a scripted fake of their model API on 127.0.0.1, with ctxgit's
// hooks installed by `ctxgit init --host`. The assertions read what the fake
// received: what reached the model, in which request, how many times.
//
// The tier runs only with CTXGIT_REALHOST=1 (.ci/run sets it; CONTRIBUTING.md,
// "Test tiers"): it installs the hosts and runs them for minutes, which
// `go test ./...` must not.
package realhost
