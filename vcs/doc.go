// Package vcs is ctxgit's git store: a narrow, git-shaped Store interface
// (objects and refs) with an implementation of its own over a repository's
// object database (loose objects and packs read and written directly, refs
// under git's lock protocol) and an in-memory one for tests, both held to
// one conformance suite (package vcstest); plus what is built on any Store:
// trees and commits, a workspace snapshot walker with git's ignore rules
// and a stat cache, tree diffs, and transfers: local remotes in process,
// network remotes through the user's git.
//
// It never touches HEAD, the index, branches or worktree files: it only adds
// objects and updates refs under the namespace its caller names.
package vcs
