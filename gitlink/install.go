// Package gitlink links the user's own commits to the checkpoints that
// made them: a prepare-commit-msg hook that adds a `Ctxgit-Checkpoint:`
// trailer (SPEC §7.6), and `ctxgit why`, which follows a line's commit to
// its checkpoint (docs/cli.md#why).
package gitlink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/gitcmd"
	"github.com/ctxgit/ctxgit/spec"
)

// HookName is the git hook ctxgit installs.
const HookName = "prepare-commit-msg"

// chainedSuffix names the hook that was there before ctxgit's: ctxgit's
// hook runs it first, and --uninstall puts it back.
const chainedSuffix = ".ctxgit-chained"

// hookMarker is the line that says a hook file is ctxgit's.
const hookMarker = "# ctxgit prepare-commit-msg hook"

// HookScript is the hook file ctxgit writes; command is how it runs ctxgit
// (`ctxgit` when on PATH, else the binary's quoted path).
func HookScript(command string) string {
	return "#!/bin/sh\n" + hookMarker + " (ctxgit init --git-hooks; removed by\n" +
		"# ctxgit init --git-hooks --uninstall). It adds a Ctxgit-Checkpoint trailer\n" +
		"# when a ctxgit session is active here, and never fails a commit.\n" +
		chainScript +
		command + " git-hook " + HookName + " \"$@\" </dev/null || true\n" +
		"exit 0\n"
}

// chainScript runs the hook ctxgit's replaced, first, keeping its exit
// status. A shell script runs under the name git gave ctxgit's hook ($0
// is the hook's own path again, as before ctxgit came), so a hook that
// finds its files from $0 keeps finding them: husky's `h` looks up the
// user's hook by basename "$0", pre-commit's passes dirname "$0" as its
// --hook-dir. Any other program runs by its path. CTXGIT_CHAINED_HOOK
// stops a chained hook that runs $0 again from looping.
const chainScript = "chained=\"$0" + chainedSuffix + "\"\n" +
	"if [ -x \"$chained\" ] && [ -z \"${CTXGIT_CHAINED_HOOK:-}\" ]; then\n" +
	"  CTXGIT_CHAINED_HOOK=1; export CTXGIT_CHAINED_HOOK\n" +
	"  IFS= read -r first <\"$chained\" || :\n" +
	"  case \"$first\" in\n" +
	"  '#!/bin/sh'|'#!/usr/bin/env sh') sh -c '. \"$0" + chainedSuffix + "\"' \"$0\" \"$@\" || exit $? ;;\n" +
	"  '#!/bin/bash'|'#!/usr/bin/env bash') bash -c '. \"$0" + chainedSuffix + "\"' \"$0\" \"$@\" || exit $? ;;\n" +
	"  *) \"$chained\" \"$@\" || exit $? ;;\n" +
	"  esac\n" +
	"fi\n"

// InstallResult says what Install or Uninstall did.
type InstallResult struct {
	// Path is the hook file.
	Path string `json:"path"`
	// Action: "installed", "updated", "unchanged", "chained" (installed
	// with the existing hook run first), "removed", "restored" (the
	// chained hook put back), "absent".
	Action string `json:"action"`
	// Chained is the earlier hook ctxgit's runs first, if any.
	Chained string `json:"chained,omitempty"`
	// Manager names the hook manager whose own hook file holds ctxgit's
	// block ("husky"), when one owns the hooks directory.
	Manager string `json:"manager,omitempty"`
}

// HooksDir is the directory git runs hooks from for the work tree at dir:
// core.hooksPath when set, else the git directory's hooks (a linked
// worktree shares its repository's). It asks the user's git, which knows
// every rule for it.
func HooksDir(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	p := strings.TrimSpace(out)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), nil
}

// Install writes ctxgit's prepare-commit-msg hook into the hooks directory
// of the work tree at dir. A hook of someone else's there is kept, renamed
// beside it, and run first; ctxgit's own is rewritten only when it changed.
func Install(ctx context.Context, dir, command string) (InstallResult, error) {
	hooks, err := HooksDir(ctx, dir)
	if err != nil {
		return InstallResult{}, err
	}
	if user := huskyHook(hooks); user != "" {
		// An earlier ctxgit chained husky's own hook: put it back first.
		if _, err := uninstallIn(hooks); err != nil {
			return InstallResult{}, err
		}
		return installBlock(user, command)
	}
	path := filepath.Join(hooks, HookName)
	script := []byte(HookScript(command))
	res := InstallResult{Path: path, Action: "installed"}
	if _, err := os.Lstat(path + chainedSuffix); err == nil {
		res.Chained = path + chainedSuffix
	}
	old, err := readHookFollowing(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return res, err
	case bytes.Equal(old, script):
		res.Action = "unchanged"
		return res, nil
	case isOurs(old):
		res.Action = "updated"
	default:
		if res.Chained != "" && sameFile(res.Chained, old) {
			// A manager rewrote its hook over ctxgit's (lefthook's sync
			// moves ctxgit's to .old): the chained copy is that same hook.
			res.Action = "chained"
			if err := removeOursAside(path); err != nil {
				return res, err
			}
			break
		}
		if res.Chained != "" {
			return res, spec.Usage("%s is not ctxgit's and %s already exists: move one of them away, then run init --git-hooks again", path, res.Chained)
		}
		// The user's hook stays where git runs it until ctxgit's takes
		// its place: first a second name for it, then ctxgit's renamed
		// over the first. A failure or a kill at any point leaves a
		// prepare-commit-msg that is the user's or ctxgit's chaining it.
		if err := keepAside(path, path+chainedSuffix, old); err != nil {
			return res, fmt.Errorf("keeping your hook as %s: %w (your hook is unchanged)", path+chainedSuffix, err)
		}
		if err := atomicfile.Write(path, script, 0o755); err != nil {
			os.Remove(path + chainedSuffix)
			return res, fmt.Errorf("writing ctxgit's hook: %w (your hook %s is unchanged)", err, path)
		}
		res.Action, res.Chained = "chained", path+chainedSuffix
		return res, nil
	}
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		return res, err
	}
	if err := atomicfile.Write(path, script, 0o755); err != nil {
		return res, err
	}
	return res, nil
}

// keepAside gives the hook at path, whose content is data, the second
// name aside: a hard link, so it is the same file with its mode and
// owner; a copy with the same mode where links are not to be had.
func keepAside(path, aside string, data []byte) error {
	if err := os.Link(path, aside); err == nil {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return atomicfile.Write(aside, data, fi.Mode().Perm())
}

// Uninstall removes ctxgit's hook and puts back the one it chained. A
// hook that is not ctxgit's is left alone ("absent": none of ctxgit's).
func Uninstall(ctx context.Context, dir string) (InstallResult, error) {
	hooks, err := HooksDir(ctx, dir)
	if err != nil {
		return InstallResult{}, err
	}
	res, err := uninstallIn(hooks)
	if user := huskyHook(hooks); user != "" && err == nil {
		block, err := uninstallBlock(user)
		if err != nil || block.Action != "absent" || res.Action == "absent" {
			return block, err
		}
	}
	return res, err
}

// uninstallIn removes ctxgit's hook file from the hooks directory hooks.
func uninstallIn(hooks string) (InstallResult, error) {
	path := filepath.Join(hooks, HookName)
	res := InstallResult{Path: path, Action: "absent"}
	if err := removeOursAside(path); err != nil {
		return res, err
	}
	old, err := readHookFollowing(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return res, nil
	case err != nil:
		return res, err
	case !isOurs(old):
		return res, nil // someone else's: nothing of ctxgit's to remove
	}
	if _, err := os.Lstat(path + chainedSuffix); err == nil {
		res.Action, res.Chained = "restored", path+chainedSuffix
		return res, atomicfile.Rename(path+chainedSuffix, path)
	}
	res.Action = "removed"
	return res, os.Remove(path)
}

// oldSuffix is where lefthook moves a hook it finds in its way when it
// installs its own.
const oldSuffix = ".old"

// removeOursAside removes ctxgit's hook from where lefthook moved it
// (path.old): lefthook never runs it, and `lefthook uninstall` would put
// that stale copy back.
func removeOursAside(path string) error {
	data, err := readHookFollowing(path + oldSuffix)
	if err != nil || !isOurs(data) {
		return nil
	}
	return os.Remove(path + oldSuffix)
}

// sameFile reports whether the file at path holds data.
func sameFile(path string, data []byte) bool {
	got, err := readHookFollowing(path)
	return err == nil && bytes.Equal(got, data)
}

func isOurs(script []byte) bool { return bytes.Contains(script, []byte(hookMarker)) }

// git runs the user's git in dir; without one, hooks and trailers are
// not for this machine.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcmd.Output(ctx, dir, args...)
	if errors.Is(err, gitcmd.ErrNoGit) {
		return "", spec.Unsupported("git hooks need git on PATH")
	}
	return out, err
}

// ShellWord is program as one word of the hook's sh script. Git runs hooks
// with sh on every system (Git for Windows with its bundled one), which
// takes forward slashes on Windows too.
func ShellWord(program string) string {
	p := strings.ReplaceAll(program, `\`, "/")
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:") == "" && p[0] != '-' {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
