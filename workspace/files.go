package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs/ignore"
)

// The file rule (SPEC §3.4), in one place: every file ctxgit reads or
// writes in a workspace goes through these calls. A workspace is anyone's
// files, so what a repository commits (links, FIFOs, devices) must not make
// ctxgit read, write or hang outside it.
//
//   - State files (the configured paths, ctxgit's outputs at the root) are
//     found through symbolic links only while each stays in the workspace
//     and the file it leads to is not in .git, not under .ctxgit/local/ and
//     not secret-named; it must be a regular file, opened without blocking
//     and read only within a size bound.
//   - Files under .ctxgit/local/ are reached through no link at all: every
//     directory on the way is a directory, and the file itself is opened
//     without following a link.
//
// The checks are Lstats before the open (see internal/regfile): per state
// file one per path component, per local file one per directory on its
// way from the root (docs/design.md, "State files and the workspace
// root": the file rule).

// secretMatcher matches the secret patterns a state file may never be:
// the defaults of SPEC §9.3 whatever the config says, and the config's own.
func (w *Workspace) secretMatcher() *ignore.Matcher {
	if w.secrets == nil {
		pats := append(append([]string(nil), spec.DefaultSecretExcludes...), w.Config.Snapshot.SecretExcludes...)
		w.secrets = ignore.New(ignore.ParsePatterns([]byte(strings.Join(pats, "\n")), "", "secrets"))
	}
	return w.secrets
}

// secretPattern is the secret pattern rel (slash-separated) or a directory
// above it matches, or "".
func secretPattern(m *ignore.Matcher, rel string) string {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if m.Match(p, i < len(parts)-1) {
			// Explain is "source:line:pattern".
			return strings.SplitN(m.Explain(p, i < len(parts)-1), ":", 3)[2]
		}
	}
	return ""
}

// ErrRefused matches every error of the file rule (a link out, a special
// file, a secret, a place ctxgit keeps no state file), for callers that
// say so differently from a missing or unreadable file.
var ErrRefused = errors.New("refused by the file rule")

// The short reasons of a refusal (Refusal).
const (
	whyOutside = "outside the workspace"
	whyLinked  = "a symbolic link"
	whySpecial = "not a regular file"
	whyPlace   = "in .git or " + spec.LocalDir
	whySecret  = "a secret"
)

// ruleError is a refusal: a *spec.FileError naming the file and why (exit
// 3), with the reason in short.
type ruleError struct {
	error
	why string
}

func (e ruleError) Is(target error) bool { return target == ErrRefused }
func (e ruleError) Unwrap() error        { return e.error }

// refused is a file the rule refuses: one line naming it and why.
func refused(rel, why, format string, args ...any) error {
	return ruleError{&spec.FileError{Path: rel, Err: spec.Invalid(format, args...)}, why}
}

// Refusal is the short reason the file rule refused a file ("outside the
// workspace", "not a regular file", …), for a listing that says it
// beside the file's name; ok is false for any other error.
func Refusal(err error) (why string, ok bool) {
	var re ruleError
	if errors.As(err, &re) {
		return re.why, true
	}
	return "", false
}

// resolveState is where the state file rel leads (slash-separated, under
// the root), or the error refusing it; verb ("read", "written") ends the
// message.
func (w *Workspace) resolveState(rel, verb string) (string, error) {
	return resolveIn(w.Root, w.secretMatcher(), rel, verb)
}

// defaultSecrets matches the default secret patterns (SPEC §9.3).
var defaultSecrets = sync.OnceValue(func() *ignore.Matcher {
	return ignore.New(ignore.ParsePatterns([]byte(strings.Join(spec.DefaultSecretExcludes, "\n")), "", "secrets"))
})

// ResolveFile is the absolute path the workspace file rel (slash-separated)
// leads to under the file rule, links followed only while they stay in
// the workspace at root and not into .git, .ctxgit/local/ or a file
// matching a default secret pattern; else the refusal (ErrRefused), whose
// message ends "not " + verb. For the files a workspace holds that are
// not its state (a host's settings file in the workspace).
func ResolveFile(root, rel, verb string) (string, error) {
	real, err := resolveIn(root, defaultSecrets(), rel, verb)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(real)), nil
}

func resolveIn(root string, secrets *ignore.Matcher, rel, verb string) (string, error) {
	real, err := regfile.Resolve(root, rel)
	var le *regfile.LinkError
	switch {
	case errors.As(err, &le) && errors.Is(err, regfile.ErrOutside):
		if le.Link == rel {
			return "", refused(rel, whyOutside, "is a symbolic link to %s, outside the workspace: not %s", le.Target, verb)
		}
		return "", refused(rel, whyOutside, "%s is a symbolic link to %s, outside the workspace: not %s", le.Link, le.Target, verb)
	case errors.Is(err, regfile.ErrSymlink), errors.Is(err, regfile.ErrNotDir):
		return "", refused(rel, whySpecial, "%s: not %s", relErr(root, err), verb)
	case err != nil:
		return "", &spec.FileError{Path: rel, Err: unwrapPathError(err)}
	}
	where := rel
	if real != rel {
		where = "leads to " + real + " and"
	}
	if spec.CheckRelPath(real) != nil {
		return "", refused(rel, whyPlace, "%s through a symbolic link, inside .git or %s: not %s", strings.TrimSuffix(where, " and"), spec.LocalDir, verb)
	}
	if pat := secretPattern(secrets, real); pat != "" {
		return "", refused(rel, fmt.Sprintf("%s (%q)", whySecret, pat), "%s matches the secret pattern %q: not %s", where, pat, verb)
	}
	return real, nil
}

// relErr is a path error's message with the workspace root dropped.
func relErr(root string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if r, rerr := filepath.Rel(root, pe.Path); rerr == nil {
			return fmt.Sprintf("%s is %v", filepath.ToSlash(r), pe.Err)
		}
	}
	return err.Error()
}

// describe names what a non-regular file is, for a refusal.
func describe(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "not a regular file"
	}
	switch t := fi.Mode().Type(); {
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeDevice != 0, t&fs.ModeCharDevice != 0:
		return "a device"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// OpenStateFile opens the state file rel under the file rule, to be read
// only to the size it had when opened. A missing file is an error
// matching fs.ErrNotExist; a refused one (ErrRefused) is a
// *spec.FileError naming rel and saying why.
func (w *Workspace) OpenStateFile(rel string) (*regfile.File, error) {
	real, err := w.resolveState(rel, "read")
	if err != nil {
		return nil, err
	}
	path := w.Path(real)
	f, err := regfile.Open(path)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, refused(rel, whySpecial, "is %s, not a regular file: not read", describe(path))
	}
	return nil, &spec.FileError{Path: rel, Err: unwrapPathError(err)}
}

// ReadStateFile reads the state file rel as OpenStateFile opens it, at
// most limit bytes: a larger one is an error (exit 3), never read.
func (w *Workspace) ReadStateFile(rel string, limit int64) ([]byte, error) {
	f, err := w.OpenStateFile(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := f.ReadAll(limit)
	switch {
	case errors.Is(err, regfile.ErrTooLarge):
		return nil, &spec.FileError{Path: rel, Err: tooLarge(limit)}
	case err != nil:
		return nil, &spec.FileError{Path: rel, Err: unwrapPathError(err)}
	}
	return data, nil
}

// tooLarge is a state file over its bound: bad input (exit 3) that
// matches ErrTooLarge.
type tooLarge int64

func (t tooLarge) Error() string        { return fmt.Sprintf("larger than %d MiB, not read", int64(t)>>20) }
func (t tooLarge) Is(target error) bool { return target == spec.ErrInvalid || target == ErrTooLarge }

// ErrTooLarge matches ReadStateFile's error for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// StatStateFile is the state file rel's own stat data (a regular file's,
// where links in the workspace lead), under the rule as ReadStateFile
// reads it.
func (w *Workspace) StatStateFile(rel string) (fs.FileInfo, error) {
	real, err := w.resolveState(rel, "read")
	if err != nil {
		return nil, err
	}
	return os.Lstat(w.Path(real))
}

// StateFileExists reports whether the state file rel is there, whatever
// the rule will say of it: the choice between the failure log and its
// fallback, and init's, go by presence alone, and the refusal is then said
// once, by the reader.
func (w *Workspace) StateFileExists(rel string) bool {
	_, err := os.Lstat(w.Path(rel))
	return err == nil
}

// WriteStateFile replaces a state file a person keeps (plan, logs, task
// state, summaries) atomically, keeping its permissions. Where it is a
// symlink to a file in the workspace (a plan kept in docs/ and linked from
// the root) the target is written and the link stays (SPEC §3.3); every
// place the rule refuses (a link out, .git, a secret) is refused, and so
// is a dangling link.
func (w *Workspace) WriteStateFile(rel string, data []byte) error {
	real, err := w.resolveState(rel, "written")
	if err != nil {
		return err
	}
	path := w.Path(real)
	if real != rel {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return refused(rel, whyLinked, "is a symbolic link to %s, which does not exist: not written", real)
		}
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return refused(rel, whySpecial, "is %s, not a regular file: not written", describe(path))
		}
		perm = fi.Mode().Perm()
	}
	if err := regfile.Dirs(w.Root, real, true); err != nil {
		return refused(rel, whySpecial, "%s: not written", relErr(w.Root, err))
	}
	if err := w.Publish(path, data, perm); err != nil {
		if errors.Is(err, spec.ErrConflict) {
			return err
		}
		return &spec.FileError{Path: rel, Err: unwrapPathError(err)}
	}
	return nil
}

// localRel is path's place under .ctxgit/local/ of the workspace at root,
// slash-separated, checked to be there.
func localRel(root, path string) (string, error) {
	rel, err := filepath.Rel(filepath.Join(root, filepath.FromSlash(spec.LocalDir)), path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is not under %s", path, spec.LocalDir)
	}
	return filepath.ToSlash(rel), nil
}

// localDirs checks (with mkdir, makes) the directories between
// .ctxgit/local/ and path: none may be a link. .ctxgit/ and
// .ctxgit/local/ themselves are CheckOwnDirs's, run by PrepareLocal.
func localDirs(root, path string, mkdir bool) error {
	rel, err := localRel(root, path)
	if err != nil {
		return err
	}
	if mkdir {
		if err := PrepareLocal(root); err != nil {
			return err
		}
	} else if err := regfile.Dirs(root, spec.LocalDir+"/x", false); err != nil {
		return localErr(root, err)
	}
	if err := regfile.Dirs(filepath.Join(root, filepath.FromSlash(spec.LocalDir)), rel, mkdir); err != nil {
		return localErr(root, err)
	}
	return nil
}

// localErr says which directory the rule refused, relative to the root.
func localErr(root string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (errors.Is(err, regfile.ErrSymlink) || errors.Is(err, regfile.ErrNotDir)) {
		rel, _ := filepath.Rel(root, pe.Path)
		what := "is a symbolic link: ctxgit reads and writes nothing through it"
		if errors.Is(err, regfile.ErrNotDir) {
			what = "is not a directory"
		}
		return refused(filepath.ToSlash(rel), whyLinked, "%s", what)
	}
	return err
}

// localFileErr names the local file at path, relative to root, in err.
func localFileErr(root, path string, err error) error {
	rel, _ := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	if errors.Is(err, regfile.ErrNotRegular) {
		return refused(rel, whySpecial, "is %s, not a regular file: ctxgit reads and writes nothing through it", describe(path))
	}
	return &spec.FileError{Path: rel, Err: unwrapPathError(err)}
}

// MaxMarker bounds the read of a marker or record under .ctxgit/local/:
// a line or two of JSON that ctxgit wrote.
const MaxMarker = 64 << 10

// MakeLocalDirs makes the directories between .ctxgit/local/ and path,
// none of them a link, for a writer of its own under .ctxgit/local/ (a
// numbered backup).
func MakeLocalDirs(root, path string) error { return localDirs(root, path, true) }

// ReadLocal reads the file at path under .ctxgit/local/ of the workspace
// at root, at most limit bytes, reached through no link. A missing file is
// an error matching fs.ErrNotExist.
func ReadLocal(root, path string, limit int64) ([]byte, error) {
	return readLocal(root, path, limit, regfile.ReadFile)
}

// ReadLocalTail reads at most the last n bytes of the file at path under
// .ctxgit/local/ (a log that grows), by the rule ReadLocal reads.
func ReadLocalTail(root, path string, n int64) ([]byte, error) {
	return readLocal(root, path, n, regfile.ReadTail)
}

func readLocal(root, path string, n int64, read func(string, int64) ([]byte, error)) ([]byte, error) {
	if err := localDirs(root, path, false); err != nil {
		return nil, err
	}
	data, err := read(path, n)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, localFileErr(root, path, err)
	}
	return data, err
}

// WriteLocal replaces the file at path under .ctxgit/local/ atomically
// (a link in its place is replaced, never followed), making the
// directories on the way, none of them a link.
func WriteLocal(root, path string, data []byte, perm fs.FileMode) error {
	if err := localDirs(root, path, true); err != nil {
		return err
	}
	return atomicfile.Write(path, data, perm)
}

// AppendLocal appends data to the file at path under .ctxgit/local/,
// creating it; a link or special file in its place is refused.
func AppendLocal(root, path string, data []byte) error {
	if err := localDirs(root, path, true); err != nil {
		return err
	}
	f, err := regfile.OpenAppend(path, 0o644)
	if err != nil {
		return localFileErr(root, path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// CreateLocal creates the empty marker at path under .ctxgit/local/ if
// nothing is there; whatever is there (a link, dangling or not, included)
// is left as it is.
func CreateLocal(root, path string) error {
	if err := localDirs(root, path, true); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) // O_EXCL follows no link
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// RemoveLocal removes the file at path under .ctxgit/local/ (a link
// itself, never what it leads to); a missing one is no error.
func RemoveLocal(root, path string) error {
	if err := localDirs(root, path, false); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// LocalExists reports whether a regular file is at path under
// .ctxgit/local/, reached through no link.
func LocalExists(root, path string) bool {
	if localDirs(root, path, false) != nil {
		return false
	}
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// ReadLocalDir lists the directory dir under .ctxgit/local/, reached
// through no link (a missing one lists nothing).
func ReadLocalDir(root, dir string) ([]fs.DirEntry, error) {
	// The directory itself is the last one checked on the way to a file in it.
	if err := localDirs(root, filepath.Join(dir, "x"), false); err != nil {
		return nil, err
	}
	return os.ReadDir(dir)
}
