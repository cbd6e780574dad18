package gitlink

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/workspace"
)

// Doctor is the `git-hook` check of `ctxgit doctor` (docs/cli.md#doctor):
// where ctxgit's prepare-commit-msg hook is installed, whether a hook
// manager has since replaced it, and whether the user's own hook was
// left stranded under its chained name with nothing in its place (an
// install older ctxgit did not finish), which fix moves back. A
// workspace with no git repository, or where the hook was never
// installed, has no finding.
func Doctor(ctx context.Context, w *workspace.Workspace, fix bool) []workspace.Finding {
	if w.Repo == nil {
		return nil
	}
	hooks, err := HooksDir(ctx, w.Repo.WorkTree)
	if err != nil {
		return []workspace.Finding{{Check: "git-hook", Level: workspace.FindingWarning,
			Message: "cannot tell where git runs hooks from: " + safetext.Line(err.Error())}}
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(w.Repo.WorkTree, p); err == nil && filepath.IsLocal(r) {
			return r
		}
		return p
	}
	path := filepath.Join(hooks, HookName)
	script, _ := readHook(path)
	if user := huskyHook(hooks); user != "" {
		if isOurs(script) {
			return []workspace.Finding{{Check: "git-hook", Level: workspace.FindingWarning,
				Message: fmt.Sprintf("%s is an older install in husky's own directory, which every npm install rewrites", rel(path)),
				Fix:     "ctxgit init --git-hooks moves it into .husky/prepare-commit-msg"}}
		}
		data, _ := readHook(user)
		if _, _, _, ok, _ := findBlock(data); ok {
			return []workspace.Finding{{Check: "git-hook", Level: workspace.FindingOK,
				Message: fmt.Sprintf("ctxgit's block in %s (husky v9 runs it from %s)", rel(user), rel(hooks))}}
		}
		return nil
	}
	_, chainedErr := os.Lstat(path + chainedSuffix)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) && chainedErr == nil {
		f := workspace.Finding{Check: "git-hook", Level: workspace.FindingWarning,
			Message: fmt.Sprintf("%s is your hook, stranded: git runs no %s here", rel(path+chainedSuffix), HookName),
			Fix:     "--fix moves it back to " + rel(path)}
		if fix {
			if err := restoreStranded(path); err != nil {
				f.Fix = "moving it back failed: " + safetext.Line(err.Error())
			} else {
				f.Fixed, f.Fix = true, "moved back to "+rel(path)
			}
		}
		return []workspace.Finding{f}
	}
	switch {
	case isOurs(script) && chainedErr == nil:
		return []workspace.Finding{{Check: "git-hook", Level: workspace.FindingOK,
			Message: fmt.Sprintf("%s (runs %s first)", rel(path), rel(path+chainedSuffix))}}
	case isOurs(script):
		return []workspace.Finding{{Check: "git-hook", Level: workspace.FindingOK, Message: rel(path)}}
	case chainedErr == nil:
		return []workspace.Finding{{Check: "git-hook", Level: workspace.FindingWarning,
			Message: fmt.Sprintf("%s is no longer ctxgit's (a hook manager rewrote it: lefthook does when its config changes): commits get no Ctxgit-Checkpoint trailer", rel(path)),
			Fix:     "ctxgit init --git-hooks chains the new hook again"}}
	}
	return nil
}

// restoreStranded moves the chained hook back to path, which must still
// be free: a hook written there since is not overwritten (a link fails
// on an existing name; a rename, where links are not to be had, is
// tried only while the name is free).
func restoreStranded(path string) error {
	err := os.Link(path+chainedSuffix, path)
	if err == nil {
		return os.Remove(path + chainedSuffix)
	}
	if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
		return err
	}
	return os.Rename(path+chainedSuffix, path)
}

// Installed reports whether ctxgit's prepare-commit-msg hook is in place
// and runs (doctor's check finds it ok), so advice does not offer to
// install it again.
func Installed(ctx context.Context, w *workspace.Workspace) bool {
	for _, f := range Doctor(ctx, w, false) {
		if f.Level == workspace.FindingOK {
			return true
		}
	}
	return false
}
