// Package review is what a reviewer reads of an agent's work: the
// semantic diff of two checkpoints (plan steps, decisions, failures, open
// items, task state and files with line counts), the diffstat, and the
// report of a session or of a branch, rendered as Markdown or for a
// GitHub pull request (docs/cli.md#diff, docs/cli.md#report).
//
// It reads a workspace's history through workspace's exported API and
// the vcs.Store interface, and writes nothing. Imports point one way:
// review imports workspace, never the reverse (ARCHITECTURE.md,
// TestDependencyRule in workspace/imports_test.go).
package review
