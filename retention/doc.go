// Package retention is what keeps a workspace's history in bounds and
// healthy: `ctxgit prune` (the retention rules of SPEC §18) and `ctxgit
// doctor` (docs/cli.md#doctor). It reaches the workspace core only through
// exported calls (workspace/features.go); prune writes through vcs.Store,
// while doctor and the repack need the concrete *vcs.GitStore for what
// only it offers (ref locks, bad packs, loose-object counts, temporary
// files).
package retention
