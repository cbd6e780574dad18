package workspace

import (
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// The vcs names the command layer needs, given here so that cmd/ctxgit
// imports workspace and the feature packages, never vcs
// (ARCHITECTURE.md; TestDependencyRule in workspace/imports_test.go holds it).

// Hash is a git object id, as results name commits.
type Hash = vcs.Hash

// Progress counts a snapshot's work while it runs, for a progress line:
// the command hands one in CheckpointOptions.Progress and reads it from
// another goroutine.
type Progress = vcs.Progress

// vcsExitRules give vcs's sentinels their exit codes: vcs and spec do
// not import each other, and workspace sees both.
var vcsExitRules = []spec.ExitRule{
	// A damaged ref or object file is bad input, named, whatever else a
	// caller wrapped it in.
	{Err: vcs.ErrCorrupt, Code: spec.ExitInvalid},
	{Err: vcs.ErrRefConflict, Code: spec.ExitConflict},
	{Err: vcs.ErrUnsupportedRepo, Code: spec.ExitUnsupported},
	{Err: vcs.ErrUnsupportedRemote, Code: spec.ExitUnsupported},
	{Err: vcs.ErrNoGit, Code: spec.ExitUnsupported},
}

// ExitCode is the exit status for err by the sentinel it wraps: spec's
// error kinds and vcs's sentinels in one mapping.
func ExitCode(err error) int { return spec.ExitCode(err, vcsExitRules...) }

// RunGitAttached runs git for `ctxgit git`: in its own process group
// where the terminal allows, dying with ctxgit and stopped when ctx is
// done, with the caller's stdin and stdout and no other bound.
var RunGitAttached = vcs.RunGitAttached
