package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/templates"
)

// InitResult lists what init created and what it found already there.
type InitResult struct {
	Created  []string
	Existing []string
	// Store describes where checkpoints go.
	Store string
}

// Init creates .ctxgit/ with its config, .gitignore and empty logs, and
// the store for a workspace outside git. It never overwrites a file.
func (w *Workspace) Init() (*InitResult, error) {
	res := &InitResult{}
	// A repository ctxgit refuses is refused before anything is written.
	if w.Repo != nil {
		if _, err := w.openStore(); err != nil {
			return nil, err
		}
	}
	// info/exclude lists .ctxgit/local/ before it exists, so `git status`
	// never shows it, even if init stops halfway (SPEC §3.2); an existing
	// .ctxgit/local/ gets its lines below, under the lock.
	if err := w.prepareLocal(); err != nil {
		return nil, err
	}
	files := []struct{ tmpl, rel string }{
		{"init/config.yaml", spec.ConfigPath},
		{"init/gitignore", spec.DirName + "/.gitignore"},
		{"init/decisions.md", w.Config.Paths.Decisions},
	}
	// The failure-recovery skill's log, when it is the one in use, stays
	// in use: a new empty canonical log would hide it (SPEC §5.1).
	if w.StateFileExists(w.Config.Paths.FailureLogFallback) {
		if !w.StateFileExists(w.Config.Paths.FailureLog) {
			res.Existing = append(res.Existing, w.Config.Paths.FailureLogFallback)
		}
	} else {
		files = append(files, struct{ tmpl, rel string }{"init/failure-log.md", w.Config.Paths.FailureLog})
	}
	for _, f := range files {
		created, err := w.createFromTemplate(f.tmpl, f.rel)
		if err != nil {
			return nil, err
		}
		if created {
			res.Created = append(res.Created, f.rel)
		} else {
			res.Existing = append(res.Existing, f.rel)
		}
	}
	w.Initialized = true
	if w.Repo == nil {
		if _, err := w.Store(); err != nil {
			return nil, err
		}
		res.Store = "private store " + spec.PrivateStoreDir
		return res, nil
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if _, err := w.Store(); err != nil {
		return nil, err
	}
	if err := w.ensureInfoExclude(); err != nil {
		return nil, err
	}
	res.Store = "repository " + w.Repo.CommonDir + " (refs under " + spec.SessionRefsPrefix(w.Namespace) + ")"
	return res, nil
}

// createFromTemplate writes a template to rel unless something is there
// (a link included: nothing is created through one); O_EXCL makes "never
// overwrite" hold even against a concurrent writer. The directories on the
// way are the file rule's (files.go): a link there leads within the
// workspace, or nothing is written.
func (w *Workspace) createFromTemplate(tmpl, rel string) (bool, error) {
	data, err := templates.Init.ReadFile(tmpl)
	if err != nil {
		return false, err
	}
	if w.StateFileExists(rel) {
		return false, nil
	}
	real, err := w.resolveState(rel, "written")
	if err != nil {
		return false, err
	}
	if err := regfile.Dirs(w.Root, real, true); err != nil {
		return false, refused(rel, whySpecial, "%s: not written", relErr(w.Root, err))
	}
	path := w.Path(real)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, &spec.FileError{Path: rel, Err: unwrapPathError(err)}
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, &spec.FileError{Path: rel, Err: unwrapPathError(err)}
	}
	return true, nil
}

// ensureInfoExclude keeps the files ctxgit writes itself — at the
// workspace root and machine-local ones under .ctxgit/ — out of
// `git status` by listing them in the repository's info/exclude, which is
// local to the machine and never committed (SPEC §3.2). So a checkpoint
// taken without init changes nothing git shows. It adds only missing
// lines and keeps everything else in the file.
func (w *Workspace) ensureInfoExclude() error {
	path := filepath.Join(w.Repo.CommonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	prefix := "/"
	if rel, err := filepath.Rel(w.Repo.WorkTree, w.Root); err == nil && rel != "." {
		prefix += escapeGlob(filepath.ToSlash(rel)) + "/"
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, name := range []string{spec.ContextCheckpoint, spec.ContextRecovered, spec.RecoveryFile,
		spec.LocalDir + "/", spec.PrivateStoreDir + "/", spec.CheckpointYAMLPath,
		// What a killed write leaves beside its target, anywhere in the
		// workspace, must not be committed by a `git add -A` before
		// doctor --fix or the next restore removes it.
		"**/" + atomicfile.TempPrefix + "*"} {
		if !have[prefix+name] {
			missing = append(missing, prefix+name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	out := string(data)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	out += "# ctxgit: files it writes itself\n" + strings.Join(missing, "\n") + "\n"
	return WriteFileAtomic(path, []byte(out), 0o644)
}

// PrepareLocal makes the machine-local directory .ctxgit/local/ of the
// workspace at root when it is missing, for writers that have no open
// Workspace (hooks, the hook log). See (*Workspace).prepareLocal.
func PrepareLocal(root string) error {
	if localExists(root) {
		return nil // two lstats: the path every hook write takes
	}
	if err := CheckOwnDirs(root); err != nil {
		return err
	}
	w := &Workspace{Root: root}
	if err := w.findRepo(); err != nil {
		return err
	}
	return w.prepareLocal()
}

// prepareLocal makes .ctxgit/local/ when it is missing. In a git
// repository it first lists ctxgit's own paths in info/exclude, so the
// first thing any command or hook writes there — a lock, a marker, a log
// line — leaves nothing in `git status` of a repository that never ran
// init (SPEC §3.2).
func (w *Workspace) prepareLocal() error {
	if localExists(w.Root) {
		return nil
	}
	if err := CheckOwnDirs(w.Root); err != nil {
		return err
	}
	if w.Repo != nil {
		if err := w.ensureInfoExclude(); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(w.Path(spec.LocalDir), 0o755); err != nil {
		return &spec.FileError{Path: spec.LocalDir, Err: unwrapPathError(err)}
	}
	return nil
}

func localExists(root string) bool {
	// Lstat both: a symlink at either is not ctxgit's directory, and
	// the caller then refuses it (CheckOwnDirs).
	for _, d := range []string{spec.DirName, spec.LocalDir} {
		if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d))); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// escapeGlob makes a path match itself literally as a gitignore pattern.
func escapeGlob(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`\[]*?`, r) || (i == 0 && (r == '!' || r == '#')) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
