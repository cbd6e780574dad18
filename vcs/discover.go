package vcs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoRepository means no git repository encloses a directory.
var ErrNoRepository = errors.New("not in a git repository")

// ErrUnsupportedRepo marks a repository this version cannot write into.
var ErrUnsupportedRepo = errors.New("unsupported repository")

// RepoInfo locates a repository's parts.
type RepoInfo struct {
	// WorkTree is the top level of the working tree ("" for a bare store).
	WorkTree string
	// GitDir is the per-worktree git directory (HEAD, index).
	GitDir string
	// CommonDir holds what worktrees share: objects, refs, config,
	// info/exclude. It equals GitDir except in a linked worktree.
	CommonDir string
}

// Discover finds the repository enclosing dir, as git does: the nearest
// ancestor holding a `.git` directory or a `.git` file ("gitdir: …", as in
// linked worktrees and submodules). GIT_DIR is not consulted.
func Discover(dir string) (*RepoInfo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := dir; ; {
		if info, err := repoAt(d); err == nil {
			return info, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%s: %w", dir, ErrNoRepository)
		}
		d = parent
	}
}

// repoAt returns the repository whose worktree top is dir, or an error
// matching os.ErrNotExist when dir has no `.git`.
func repoAt(dir string) (*RepoInfo, error) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return nil, os.ErrNotExist
	}
	gitDir := dotgit
	if !fi.IsDir() {
		data, err := os.ReadFile(dotgit)
		if err != nil {
			return nil, err
		}
		line := strings.TrimSpace(string(data))
		target, ok := strings.CutPrefix(line, "gitdir:")
		if !ok {
			return nil, fmt.Errorf("%s: not a gitdir file", dotgit)
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		gitDir = filepath.Clean(target)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		// A `.git` without HEAD is not a repository (git ignores it too).
		return nil, os.ErrNotExist
	}
	common, err := commonDir(gitDir)
	if err != nil {
		return nil, err
	}
	return &RepoInfo{WorkTree: dir, GitDir: gitDir, CommonDir: common}, nil
}

// commonDir follows a linked worktree's `commondir` file.
func commonDir(gitDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", err
	}
	c := strings.TrimSpace(string(data))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c), nil
}

// checkFormat refuses repositories whose objects or refs this version
// cannot write without corrupting them.
func checkFormat(commonDir string) error {
	cfgPath := filepath.Join(commonDir, "config")
	cfg, err := readGitConfig(cfgPath)
	if err != nil {
		return err
	}
	if v := cfg.get("core.repositoryformatversion"); v != "" && v != "0" && v != "1" {
		return fmt.Errorf("%s: repository format version %s: %w", cfgPath, v, ErrUnsupportedRepo)
	}
	if f := strings.ToLower(cfg.get("extensions.objectformat")); f != "" && f != "sha1" {
		return fmt.Errorf("%s: %s object ids are not supported (ctxgit stores SHA-1 repositories only): %w", cfgPath, f, ErrUnsupportedRepo)
	}
	if r := strings.ToLower(cfg.get("extensions.refstorage")); r != "" && r != "files" {
		return fmt.Errorf("%s: %s ref storage is not supported (ctxgit needs the files backend): %w", cfgPath, r, ErrUnsupportedRepo)
	}
	return nil
}

// ExcludesFile returns the path of the user's global ignore file as git
// finds it: core.excludesFile from the repository config, then the global
// configs (configFiles), else $XDG_CONFIG_HOME/git/ignore (or
// ~/.config/git/ignore). It returns "" when there is none to read.
func ExcludesFile(commonDir string) string {
	home := gitHome()
	if v := lookupConfig(commonDir, "core.excludesfile"); v != "" {
		if rest, ok := strings.CutPrefix(v, "~/"); ok && home != "" {
			v = filepath.Join(home, rest)
		}
		return v
	}
	if xdg := xdgConfigHome(home); xdg != "" {
		return filepath.Join(xdg, "git", "ignore")
	}
	return ""
}

// IsGitDir reports whether dir is itself a git directory, as git's
// is_git_directory has it: a HEAD file and objects/ and refs/ directories.
// A bare repository is one; so is a working tree's .git.
func IsGitDir(dir string) bool {
	for _, n := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || !fi.IsDir() {
			return false
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// HeadBranch is the branch a git directory's HEAD names ("main" for
// "ref: refs/heads/main"), or "" when HEAD is detached or unreadable.
func HeadBranch(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil || len(data) > 4096 {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if !ok {
		return ""
	}
	branch, _ := strings.CutPrefix(ref, "refs/heads/")
	return branch
}
