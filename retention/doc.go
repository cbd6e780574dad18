// Package retention is what keeps a workspace's history in bounds and
// healthy: `ctxgit prune` (the retention rules of SPEC §14) and `ctxgit
// doctor` (docs/cli.md#doctor). It reaches the workspace core only through
// exported calls (workspace/features.go); prune writes through vcs.Store,
// and doctor reads what only a store on disk offers (ref locks, bad packs,
// loose-object counts, temporary files) through the small interfaces of
// vcs.DiskStore, each check taking only those it uses.
package retention
