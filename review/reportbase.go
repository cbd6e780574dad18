package review

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// What a report without --base covers (docs/cli.md#report): the branch
// HEAD is on against the repository's default branch, as its pull
// request would, or, where there is no such branch, the session.
const (
	ScopeBranch  = "branch"  // --base, or a branch other than the default one
	ScopeSession = "session" // the session alone
)

// defaultBranchNames are the names tried, in order, after origin/HEAD
// and git's init.defaultBranch, as git and gh name a default branch.
var defaultBranchNames = []string{"main", "master", "trunk"}

// DefaultBranch is the repository's default branch as git and gh find
// it: the branch origin/HEAD names, else init.defaultBranch, main, master
// or trunk, whichever exists first (a local branch before origin's).
// name is the branch's name ("master"); ref is what to count from:
// origin's branch where origin/HEAD names it (the pull request's
// target), else the branch found. Both are "" when none is found or the
// workspace is not in git.
func DefaultBranch(w *workspace.Workspace, store vcs.Store) (name, ref string) {
	if w.Repo == nil || store == nil {
		return "", ""
	}
	if target := originHead(w); target != "" {
		if _, err := store.ReadRef("refs/remotes/origin/" + target); err == nil {
			return target, "origin/" + target
		}
	}
	names := defaultBranchNames
	if n := vcs.GitConfig(w.Repo.CommonDir, "init.defaultBranch"); n != "" && vcs.CheckRefName("refs/heads/"+n) == nil {
		names = append([]string{n}, names...)
	}
	for _, prefix := range []string{"refs/heads/", "refs/remotes/origin/"} {
		for _, n := range names {
			if _, err := store.ReadRef(prefix + n); err == nil {
				if prefix == "refs/heads/" {
					return n, n
				}
				return n, "origin/" + n
			}
		}
	}
	return "", ""
}

// originHead is the branch refs/remotes/origin/HEAD points at ("master"
// for "ref: refs/remotes/origin/master"), as `git clone` and `git remote
// set-head` write it; "" when there is none.
func originHead(w *workspace.Workspace) string {
	data, err := regfile.ReadFile(filepath.Join(w.Repo.CommonDir, "refs", "remotes", "origin", "HEAD"), 4096)
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/remotes/origin/")
	if !ok || vcs.CheckRefName("refs/heads/"+target) != nil {
		return ""
	}
	return target
}

// reportScope decides what a report without --base covers: the base to
// count the branch from, or "" and why the report is of the session
// alone (docs/cli.md#report).
func reportScope(w *workspace.Workspace) (base, why string) {
	if w.Repo == nil {
		return "", "the workspace is not in a git repository"
	}
	store, err := w.ReadStore()
	if err != nil || store == nil {
		return "", "the workspace has no checkpoint store"
	}
	branch := vcs.HeadBranch(w.Repo.GitDir)
	if branch == "" {
		return "", "HEAD is detached"
	}
	if head, err := vcs.ReadHEAD(w.Repo.GitDir); err != nil || head.IsZero() {
		return "", "branch " + branch + " has no commit yet"
	}
	name, ref := DefaultBranch(w, store)
	switch {
	case name == "":
		return "", "the repository has no default branch (origin/HEAD, main, master or trunk)"
	case name == branch:
		return "", "HEAD is on the default branch, " + name
	}
	if _, _, err := mergeBaseWith(w, ref); err != nil {
		return "", "branch " + branch + " has no history in common with " + ref
	}
	return ref, ""
}

// unknownBaseIn is unknownBase naming the repository's default branch
// first: `--base main` in a repository whose default branch is master
// names master, a remote-tracking one too (a clone with no local
// branch of that name).
func unknownBaseIn(w *workspace.Workspace, store vcs.Store, ref string) error {
	name, def := DefaultBranch(w, store)
	if def == "" {
		return unknownBase(store, ref)
	}
	var others []string
	if refs, err := store.ListRefs("refs/heads/"); err == nil {
		for _, r := range refs {
			if b := strings.TrimPrefix(r.Name, "refs/heads/"); b != def && b != name {
				others = append(others, b)
			}
		}
	}
	hint := "default branch: " + def
	if len(others) > 0 {
		const shown = 5
		more := ""
		if len(others) > shown {
			more = fmt.Sprintf(" and %d more", len(others)-shown)
			others = others[:shown]
		}
		hint += "; other branches: " + strings.Join(others, ", ") + more
	}
	return spec.NotFound("--base %s: no such branch, remote branch, tag or commit in the repository (%s)", ref, hint)
}
