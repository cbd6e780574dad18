// Package workspace is an agent workspace as a whole: finding its root,
// its config, reading every state file into one model, taking checkpoints
// into the store, rendering recovery, and the workspace lock.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/ignore"
)

// Env is what a workspace takes from the outside world, injected so tests
// are deterministic.
type Env struct {
	Now    func() time.Time
	Getenv func(string) string
	Cwd    string
}

// DefaultEnv reads the real clock and environment. CTXGIT_NOW (RFC 3339) fixes
// the clock, for tests and reproducible scripts (docs/cli.md#environment). A
// bad CTXGIT_NOW is an error returned with an Env on the real clock, so a hook
// can still find where to log it.
func DefaultEnv() (Env, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	env := Env{Now: time.Now, Getenv: os.Getenv, Cwd: cwd}
	if v := os.Getenv("CTXGIT_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return env, spec.Usage("CTXGIT_NOW=%q: want an RFC 3339 time such as 2026-11-22T10:00:00Z", v)
		}
		env.Now = func() time.Time { return t }
	}
	return env, nil
}

// Workspace is an opened workspace.
type Workspace struct {
	Root   string // absolute
	Config spec.Config
	Env    Env
	// Repo is the enclosing git repository, or nil when the workspace
	// keeps a private store in .ctxgit/store.git.
	Repo *vcs.RepoInfo
	// Namespace is the ref namespace: "" when Root is the repository's
	// top level, else Root's sanitized path inside it (SPEC §7).
	Namespace string
	// Initialized reports whether .ctxgit/ exists.
	Initialized bool
	// Trust is what the config asks for beyond the defaults' protection
	// (SPEC §11.1); unaccepted, Config holds the defaults there.
	Trust ConfigTrust
	// CommittedStore is true when the repository tracks a
	// .ctxgit/store.git (or its index does not read, which leaves that
	// open): ctxgit ignores the store and keeps its checkpoints in the
	// repository, and doctor says so.
	CommittedStore bool

	store *vcs.GitStore
	// held is the workspace lock while this process holds it: writes
	// that publish state check it is still theirs first (SPEC §13).
	held *Lock
	// badSessions are the broken session refs listings skipped (badref.go).
	badSessions map[string]BadSession
	lostNotes   []string
	// secrets is secretMatcher's, made on first use.
	secrets *ignore.Matcher
	// sessionKeys are the sessions' keys ShortSession tells apart, listed
	// on its first call: a command names sessions several times, and a
	// listing reads every session's head. A session another process
	// starts meanwhile can only make a short id one it would have been.
	sessionKeys []string
	// refusals are the state files ReadState refused, said once each
	// (StoreNotices).
	refusals []string
}

// FindRoot applies SPEC §2: an explicit root (--root, then CTXGIT_ROOT),
// else the nearest directory up from cwd holding .ctxgit/, else the git
// top level. Outside all of these there is no workspace: an error
// matching spec.ErrNotFound, or spec.ErrUnsupported for a directory
// inside a bare repository. Only init and ensure make a
// workspace there (FindRootToCreate).
//
// Paths are resolved through symlinks first, so a workspace reached by a
// link finds the repository git would find.
func FindRoot(env Env, explicit string) (string, error) {
	return findRoot(env, explicit, false)
}

// FindRootToCreate is FindRoot for the commands that make a workspace
// where there is none (init, ensure): outside a working tree and a
// workspace, the current directory, unless it is the home directory or
// the filesystem root, which hold far more than one project and the
// user's secrets (SPEC §2 rule 4).
func FindRootToCreate(env Env, explicit string) (string, error) {
	return findRoot(env, explicit, true)
}

func findRoot(env Env, explicit string, create bool) (string, error) {
	if explicit == "" {
		explicit = env.Getenv("CTXGIT_ROOT")
	}
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		if err != nil || !fi.IsDir() {
			return "", spec.Usage("workspace root %s is not a directory", explicit)
		}
		return filepath.EvalSymlinks(abs)
	}
	cwd, err := filepath.EvalSymlinks(env.Cwd)
	if err != nil {
		return "", err
	}
	// The search for .ctxgit/ stops at the repository's top level: a
	// .ctxgit/ above it (say in $HOME) must not capture every repository.
	top := ""
	if info, err := vcs.Discover(cwd); err == nil {
		top = info.WorkTree
	}
	for d := cwd; ; {
		if isWorkspaceMarker(filepath.Join(d, spec.DirName)) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if d == top || parent == d {
			break
		}
		d = parent
	}
	if top != "" {
		return top, nil
	}
	if bare := enclosingGitDir(cwd); bare != "" {
		return "", spec.Unsupported("%s is a bare repository or a git directory: it has no working tree to checkpoint", bare)
	}
	if !create {
		return "", spec.NotFound("%s is not a workspace: outside any git working tree, with no .ctxgit/ (`ctxgit init` there makes it one)", cwd)
	}
	if cwd == filepath.Dir(cwd) || sameDir(cwd, homeDir(env)) {
		return "", spec.NotFound("%s is the filesystem root or the home directory: not made a workspace (use a project directory, or --root)", cwd)
	}
	return cwd, nil
}

// enclosingGitDir is dir or its nearest ancestor that is itself a git
// directory (HEAD, objects/ and refs/, as git recognises one), or "".
func enclosingGitDir(dir string) string {
	for d := dir; ; {
		if vcs.IsGitDir(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// homeDir is the user's home directory as the environment names it.
func homeDir(env Env) string {
	for _, v := range []string{"HOME", "USERPROFILE"} {
		if h := env.Getenv(v); h != "" {
			return h
		}
	}
	return ""
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	if b == "" {
		return false
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// isWorkspaceMarker reports whether dir is a .ctxgit/ that marks a
// workspace: one holding anything besides the machine-local directory (a
// lock taken by a read in a parent directory must not capture it).
func isWorkspaceMarker(dir string) bool {
	// The config is nearly always there: one stat instead of reading the
	// directory, on the path every hook call takes.
	if fi, err := os.Stat(filepath.Join(dir, filepath.Base(spec.ConfigPath))); err == nil && fi.Mode().IsRegular() {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != "local" {
			return true
		}
	}
	return false
}

// maxConfigFile bounds the config read; a real one is a few hundred bytes.
const maxConfigFile = 1 << 20

// Open opens the workspace at root (see FindRoot) and reads its config.
func Open(env Env, root string) (*Workspace, error) {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	w := &Workspace{Root: root, Env: env, Config: spec.DefaultConfig()}
	if err := CheckOwnDirs(root); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(w.Path(spec.DirName)); err == nil && fi.IsDir() {
		w.Initialized = true
	}
	// Read only as a regular file of bounded size: a FIFO or a huge file
	// in its place must not hang or exhaust a hook (issue 13).
	data, err := regfile.ReadFile(w.Path(spec.ConfigPath), maxConfigFile)
	switch {
	case err == nil:
		if w.Config, err = spec.ParseConfig(spec.ConfigPath, data); err != nil {
			return nil, err
		}
		if err := w.checkConfigPaths(data); err != nil {
			return nil, err
		}
	case errors.Is(err, regfile.ErrNotRegular):
		// The file rule (SPEC §3.4): a link or a FIFO is not read.
		return nil, refused(spec.ConfigPath, whySpecial, "is %s, not a regular file: not read", describe(w.Path(spec.ConfigPath)))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, &spec.FileError{Path: spec.ConfigPath, Err: unwrapPathError(err)}
	}
	if err := w.findRepo(); err != nil {
		return nil, err
	}
	w.Trust = trustConfig(&w.Config, w.Repo)
	return w, nil
}

// findRepo sets Repo and Namespace from the repository enclosing the root,
// unless the workspace keeps a private store of its own: one the
// repository tracks is a clone's (SPEC §3.4), never used.
func (w *Workspace) findRepo() error {
	info, err := vcs.Discover(w.Root)
	if err != nil {
		return nil
	}
	if privateStoreExists(w.Root) {
		if ownStore(info, w.Root) {
			return nil
		}
		w.CommittedStore = true
	}
	w.Repo = info
	rel, err := filepath.Rel(info.WorkTree, w.Root)
	if err != nil {
		return err
	}
	worktree := ""
	if info.GitDir != info.CommonDir {
		// A linked worktree keeps its own chains: agents working in
		// parallel worktrees must not interleave their checkpoints.
		worktree = filepath.Base(info.GitDir)
	}
	w.Namespace = spec.WorkspaceNamespace(worktree, filepath.ToSlash(rel))
	return nil
}

// privateStoreExists: a workspace that started outside git keeps its
// private store even if a repository is later created around it, so its
// history does not vanish. (A link in its place is refused as the
// workspace opens: CheckOwnDirs.)
func privateStoreExists(root string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(spec.PrivateStoreDir), "HEAD"))
	return err == nil
}

// ownStore: the private store a repository's workspace keeps is its
// own when the repository's index does not hold it.
func ownStore(info *vcs.RepoInfo, root string) bool {
	tracked, err := storeTracked(info, root)
	return err == nil && !tracked
}

// storeTracked tells whether the repository around a workspace tracks
// anything of its private store, or a submodule in its place: a
// store that came with a clone. Its config would choose the programs
// git runs for ctxgit (core.sshCommand, an ext:: remote, hooks) and the
// remotes a push sends the user's sessions to, and its alternates would
// read objects outside the workspace. A store ctxgit made is ignored
// (.ctxgit/.gitignore), so no index holds it. The index is read only for
// a workspace that has both a repository and a private store. Names are
// compared in any case: on macOS and Windows a committed
// .CTXGIT/store.git is checked out where ctxgit finds .ctxgit/store.git.
func storeTracked(info *vcs.RepoInfo, root string) (bool, error) {
	rel, err := filepath.Rel(info.WorkTree, root)
	if err != nil {
		return false, err
	}
	base := filepath.ToSlash(filepath.Join(rel, filepath.FromSlash(spec.DirName)))
	store := filepath.ToSlash(filepath.Join(rel, filepath.FromSlash(spec.PrivateStoreDir)))
	paths, err := vcs.IndexPaths(filepath.Join(info.GitDir, "index"))
	if err != nil {
		return false, err
	}
	for _, p := range paths {
		if hasPrefixFold(p, store) && (len(p) == len(store) || p[len(store)] == '/') ||
			len(p) == len(base) && strings.EqualFold(p, base) {
			return true, nil
		}
	}
	return false, nil
}

// hasPrefixFold is strings.HasPrefix in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Path joins a slash-separated workspace-relative path onto the root.
func (w *Workspace) Path(rel string) string {
	return filepath.Join(w.Root, filepath.FromSlash(rel))
}

// LocalPath is a path in the machine-local directory.
func (w *Workspace) LocalPath(name string) string {
	return filepath.Join(w.Path(spec.LocalDir), name)
}

// Now is the workspace clock in UTC, to the second.
func (w *Workspace) Now() time.Time { return w.Env.Now().UTC().Truncate(time.Second) }

// Store opens the checkpoint store for writing: the enclosing
// repository's object database, or the private store, created (with the
// .ctxgit/.gitignore that keeps it out of any repository made around it
// later) on first use.
//
// It is the concrete store because the core is where ctxgit's store is
// chosen and opened, and the checkpoint keys its stat cache by the
// store's directory; feature packages get an interface instead
// (ReadStore, DiskStore, FetchStore).
func (w *Workspace) Store() (*vcs.GitStore, error) {
	if w.store != nil {
		return w.store, nil
	}
	if w.Repo == nil && !privateStoreExists(w.Root) {
		if err := os.MkdirAll(w.Path(spec.DirName), 0o755); err != nil {
			return nil, &spec.FileError{Path: spec.DirName, Err: unwrapPathError(err)}
		}
		// The .gitignore keeps machine-local files out of the user's
		// commits even for a checkpoint taken without init.
		if _, err := w.createFromTemplate("init/gitignore", spec.DirName+"/.gitignore"); err != nil {
			return nil, err
		}
	}
	return w.openStore()
}

// storeIfAny opens the store for reading; it is nil, and nothing is
// created, when a workspace outside git has no private store yet.
func (w *Workspace) storeIfAny() (*vcs.GitStore, error) {
	if w.store == nil && w.Repo == nil && !privateStoreExists(w.Root) {
		return nil, nil
	}
	return w.openStore()
}

func (w *Workspace) openStore() (*vcs.GitStore, error) {
	if w.store != nil {
		return w.store, nil
	}
	var err error
	if w.Repo != nil {
		w.store, err = vcs.OpenGit(w.Repo.CommonDir)
	} else {
		w.store, err = vcs.InitPrivate(w.Path(spec.PrivateStoreDir))
	}
	if errors.Is(err, vcs.ErrUnsupportedRepo) {
		return nil, spec.Unsupported("%s", w.Rel(strings.TrimSuffix(err.Error(), ": "+vcs.ErrUnsupportedRepo.Error())))
	}
	if err != nil {
		return nil, fmt.Errorf("opening the checkpoint store: %w", err)
	}
	return w.store, nil
}

func (w *Workspace) Rel(msg string) string {
	return strings.ReplaceAll(msg, w.Root+string(filepath.Separator), "")
}

// GitDirForUser is the --git-dir a person passes to git to browse history.
func (w *Workspace) GitDirForUser() string {
	if w.Repo != nil {
		return w.Repo.CommonDir
	}
	return w.Path(spec.PrivateStoreDir)
}

// SessionRef is the ref of a session's chain in this workspace.
func (w *Workspace) SessionRef(key string) string { return spec.SessionRef(w.Namespace, key) }
