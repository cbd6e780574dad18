package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// resolveBase finds the commit `report --base REF` names, as the user's
// git resolves a revision (docs/cli.md#report): full and short ids,
// names (git's order: refs/NAME, tags, branches, remote-tracking
// branches), `~N`, `^N`, `^{commit}`, `@{u}`. Through git itself when it
// is installed (git rev-parse), else evaluated here over the store. A
// name no ref has falls back, as `git checkout main` does, to that
// branch on a remote (origin's first, else the only remote that has it).
func resolveBase(w *workspace.Workspace, store vcs.Store, ref string) (vcs.Hash, error) {
	id, err := resolveBaseRef(w, store, ref)
	var unknown *unknownBaseError
	if errors.As(err, &unknown) {
		// Name what there is, the default branch first.
		return vcs.ZeroHash, unknownBaseIn(w, store, unknown.ref)
	}
	return id, err
}

func resolveBaseRef(w *workspace.Workspace, store vcs.Store, ref string) (vcs.Hash, error) {
	if err := spec.CheckArg("--base", ref); err != nil {
		return vcs.ZeroHash, err
	}
	id, err := vcs.RevParseCommit(context.Background(), w.Repo.WorkTree, ref)
	switch {
	case err == nil:
		return id, nil
	case errors.Is(err, vcs.ErrNoGitBinary):
		return resolveRevision(w, store, ref)
	case errors.Is(err, vcs.ErrRevisionAmbiguous):
		return vcs.ZeroHash, ambiguousBase(ref)
	case errors.Is(err, vcs.ErrRevisionUnknown):
		name, rest := splitRevision(ref)
		if alt := remoteBranch(store, name); alt != "" {
			if id, err := vcs.RevParseCommit(context.Background(), w.Repo.WorkTree, alt+rest); err == nil {
				return id, nil
			}
		}
		return vcs.ZeroHash, unknownBase(store, ref)
	default:
		return vcs.ZeroHash, fmt.Errorf("--base %s: git rev-parse: %w", ref, err)
	}
}

// unknownBase is the error for a REF that names no commit, with the
// branches there are (resolveBase names the default branch first).
func unknownBase(store vcs.Store, ref string) error {
	return &unknownBaseError{ref: ref, err: spec.NotFound("--base %s: no such branch, remote branch, tag or commit in the repository%s", ref, branchesHint(store))}
}

type unknownBaseError struct {
	ref string
	err error
}

func (e *unknownBaseError) Error() string { return e.err.Error() }
func (e *unknownBaseError) Unwrap() error { return e.err }

// branchesHint names the branches there are, for an error about one that
// is not: " (branches: main, feature/x, … and 3 more)", "" when it has none.
func branchesHint(store vcs.Store) string {
	refs, err := store.ListRefs("refs/heads/")
	if err != nil || len(refs) == 0 {
		return ""
	}
	const shown = 5
	names := make([]string, 0, shown)
	for i, r := range refs {
		if i == shown {
			break
		}
		names = append(names, strings.TrimPrefix(r.Name, "refs/heads/"))
	}
	more := ""
	if len(refs) > shown {
		more = fmt.Sprintf(" and %d more", len(refs)-shown)
	}
	return " (branches: " + strings.Join(names, ", ") + more + ")"
}

func ambiguousBase(ref string) error {
	return spec.Usage("--base %s: the short commit id is ambiguous; give more of it", ref)
}

// splitRevision cuts a revision into its name and its suffixes (`~`,
// `^`): a ref name holds neither (git check-ref-format).
func splitRevision(rev string) (name, suffixes string) {
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		return rev[:i], rev[i:]
	}
	return rev, ""
}

// resolveRevision evaluates a revision over the store, for a machine
// without git: NAME, NAME@{u}, then each `~N`, `^N`, `^{commit}` and `^{}`.
func resolveRevision(w *workspace.Workspace, store vcs.Store, rev string) (vcs.Hash, error) {
	name, suffixes := splitRevision(rev)
	id, err := resolveRevisionName(w, store, rev, name)
	if err != nil {
		return vcs.ZeroHash, err
	}
	for suffixes != "" {
		if id, err = peelCommit(store, rev, id); err != nil {
			return vcs.ZeroHash, err
		}
		op := suffixes[0]
		suffixes = suffixes[1:]
		if op == '^' && strings.HasPrefix(suffixes, "{") {
			peel, after, ok := strings.Cut(suffixes[1:], "}")
			if !ok || (peel != "commit" && peel != "") {
				return vcs.ZeroHash, unknownBase(store, rev)
			}
			suffixes = after
			continue
		}
		digits := len(suffixes) - len(strings.TrimLeft(suffixes, "0123456789"))
		n := 1
		if digits > 0 {
			if n, err = strconv.Atoi(suffixes[:digits]); err != nil {
				return vcs.ZeroHash, unknownBase(store, rev)
			}
			suffixes = suffixes[digits:]
		}
		if op == '^' {
			if n == 0 {
				continue // X^0 is X, a commit
			}
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return vcs.ZeroHash, err
			}
			if n > len(c.Parents) {
				return vcs.ZeroHash, unknownBase(store, rev)
			}
			id = c.Parents[n-1]
			continue
		}
		for range n {
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return vcs.ZeroHash, err
			}
			if len(c.Parents) == 0 {
				return vcs.ZeroHash, unknownBase(store, rev)
			}
			id = c.Parents[0]
		}
	}
	return peelCommit(store, rev, id)
}

// resolveRevisionName finds what the name part of a revision names:
// HEAD or @, NAME@{u} (the branch's upstream), a full id, a ref in git's
// order, a short id, else the branch on a remote.
func resolveRevisionName(w *workspace.Workspace, store vcs.Store, rev, name string) (vcs.Hash, error) {
	if branch, ok := upstreamOf(name); ok {
		if branch == "" || branch == "HEAD" {
			branch = vcs.HeadBranch(w.Repo.GitDir)
		}
		up := upstreamRef(w, branch)
		if up == "" {
			return vcs.ZeroHash, spec.NotFound("--base %s: branch %q has no upstream configured", rev, branch)
		}
		name = up
	}
	if strings.Contains(name, "@{") {
		return vcs.ZeroHash, spec.Usage("--base %s: without git installed, ctxgit resolves names, commit ids, ~N, ^N and @{u}, not other @{...} forms", rev)
	}
	if name == "HEAD" || name == "@" {
		id, err := vcs.ReadHEAD(w.Repo.GitDir)
		if err != nil || id.IsZero() {
			return vcs.ZeroHash, spec.NotFound("--base %s: the repository's HEAD has no commit", rev)
		}
		return id, nil
	}
	if id, err := vcs.ParseHash(name); err == nil {
		if ok, _ := store.HasObject(id); ok {
			return id, nil
		}
	}
	candidates := []string{"refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"}
	if strings.HasPrefix(name, "refs/") {
		candidates = append([]string{name}, candidates...)
	}
	for _, ref := range candidates {
		if vcs.CheckRefName(ref) != nil {
			continue
		}
		id, err := store.ReadRef(ref)
		if errors.Is(err, vcs.ErrRefNotFound) {
			continue
		}
		if err != nil {
			return vcs.ZeroHash, err
		}
		return id, nil
	}
	if id, err := expandShortID(store, rev, name); err != nil || !id.IsZero() {
		return id, err
	}
	if alt := remoteBranch(store, name); alt != "" {
		return store.ReadRef("refs/" + alt)
	}
	return vcs.ZeroHash, unknownBase(store, rev)
}

// upstreamOf reports whether name is BRANCH@{u} or BRANCH@{upstream}
// (any case, as git takes it), and the branch ("" for the current one).
func upstreamOf(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, s := range []string{"@{u}", "@{upstream}"} {
		if strings.HasSuffix(lower, s) {
			return name[:len(name)-len(s)], true
		}
	}
	return "", false
}

// upstreamRef is the remote-tracking ref (below refs/) a branch's
// upstream is, from branch.NAME.remote and branch.NAME.merge, with the
// remote's default fetch mapping; "" when none is configured.
func upstreamRef(w *workspace.Workspace, branch string) string {
	if branch == "" {
		return ""
	}
	remote := vcs.GitConfig(w.Repo.CommonDir, "branch."+branch+".remote")
	merge := vcs.GitConfig(w.Repo.CommonDir, "branch."+branch+".merge")
	short, ok := strings.CutPrefix(merge, "refs/heads/")
	if remote == "" || !ok {
		return ""
	}
	if remote == "." {
		return "refs/heads/" + short
	}
	return "refs/remotes/" + remote + "/" + short
}

// expandShortID expands a short commit id of at least 4 hex digits, as git
// does where a commit is wanted: the one commit (or tag of one) it
// starts; zero when none does.
func expandShortID(store vcs.Store, rev, name string) (vcs.Hash, error) {
	finder, ok := store.(vcs.PrefixFinder)
	if !ok || len(name) < 4 || len(name) >= 40 || strings.Trim(strings.ToLower(name), "0123456789abcdef") != "" {
		return vcs.ZeroHash, nil
	}
	ids, err := finder.ObjectsWithPrefix(name, 64)
	if err != nil {
		return vcs.ZeroHash, err
	}
	var commits []vcs.Hash
	for _, id := range ids {
		if c, err := peelCommit(store, rev, id); err == nil {
			commits = append(commits, c)
		}
	}
	switch len(commits) {
	case 0:
		return vcs.ZeroHash, nil
	case 1:
		return commits[0], nil
	}
	return vcs.ZeroHash, ambiguousBase(rev)
}

// remoteBranch is, for a name no ref has, the remote-tracking branch of
// that name below refs/ ("remotes/origin/NAME"): origin's first, else the
// only remote that has one; "" when none, or for anything but a plain
// name.
func remoteBranch(store vcs.Store, name string) string {
	if name == "" || strings.ContainsAny(name, "@:~^") || vcs.CheckRefName("refs/heads/"+name) != nil {
		return ""
	}
	if _, err := store.ReadRef("refs/remotes/origin/" + name); err == nil {
		return "remotes/origin/" + name
	}
	remotes, err := store.ListRefs("refs/remotes/")
	if err != nil {
		return ""
	}
	var hits []string
	for _, r := range remotes {
		if rest := strings.TrimPrefix(r.Name, "refs/remotes/"); strings.HasSuffix(rest, "/"+name) && strings.Count(rest, "/") == strings.Count(name, "/")+1 {
			hits = append(hits, strings.TrimPrefix(r.Name, "refs/"))
		}
	}
	if len(hits) == 1 {
		return hits[0]
	}
	return ""
}

// peelCommit follows annotated tags from id to the commit they name.
func peelCommit(store vcs.Store, rev string, id vcs.Hash) (vcs.Hash, error) {
	for range 8 {
		t, data, err := store.ReadObject(id)
		if err != nil {
			return vcs.ZeroHash, err
		}
		if t == vcs.CommitObject {
			return id, nil
		}
		target, ok := bytes.CutPrefix(data, []byte("object "))
		if t != tagObject || !ok || len(target) < 40 {
			break
		}
		if id, err = vcs.ParseHash(string(target[:40])); err != nil {
			break
		}
	}
	// As git rev-parse REF^{commit} fails on a tree or blob: nothing
	// this REF names is a commit.
	return vcs.ZeroHash, unknownBase(store, rev)
}
