package ignore

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// gitRepo is a scratch repository driven through the git CLI, isolated from
// the user's and the system's configuration.
type gitRepo struct {
	dir string
	env []string
}

// newGitRepo runs `git init` in a fresh temporary directory, or skips the
// test when git is not installed.
func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	dir := filepath.Join(tmp, "repo")
	for _, d := range []string{home, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Drop inherited GIT_* variables (GIT_DIR and friends would point the
	// commands at some other repository, e.g. when run from a git hook).
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
	)
	r := &gitRepo{dir: dir, env: env}
	r.git(t, nil, "init", "-q")
	return r
}

// git runs a git command in the repository and returns its stdout. Exit
// status 1 is accepted because check-ignore uses it for "nothing ignored".
func (r *gitRepo) git(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && len(out) > 0) {
		t.Fatalf("git %q: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// clean removes everything in the work tree except .git, so one repository
// can be reused for many cases (git init costs more than the check itself).
func (r *gitRepo) clean(t *testing.T) {
	t.Helper()
	ents, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == ".git" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(r.dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(r.dir, ".git", "info", "exclude")); err != nil {
		t.Fatal(err)
	}
}

// writeFile creates the slash-separated path (and its parents) in the work
// tree.
func (r *gitRepo) writeFile(t *testing.T, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mkdir creates the slash-separated directory path in the work tree.
func (r *gitRepo) mkdir(t *testing.T, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(r.dir, filepath.FromSlash(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
}

// untracked returns what `git ls-files --others --exclude-standard` lists,
// sorted, optionally with core.excludesFile set.
func (r *gitRepo) untracked(t *testing.T, excludesFile string) []string {
	t.Helper()
	args := []string{"ls-files", "--others", "--exclude-standard", "-z"}
	if excludesFile != "" {
		args = append([]string{"-c", "core.excludesFile=" + excludesFile}, args...)
	}
	return splitZ(r.git(t, nil, args...))
}

// checkIgnore runs `git check-ignore -v -n` on paths and returns, per path,
// "source:line:pattern" of the deciding pattern or "" (the form Explain
// uses).
func (r *gitRepo) checkIgnore(t *testing.T, excludesFile string, paths []string) map[string]string {
	t.Helper()
	if len(paths) == 0 {
		return nil
	}
	args := []string{"check-ignore", "-v", "-n", "-z", "--stdin"}
	if excludesFile != "" {
		args = append([]string{"-c", "core.excludesFile=" + excludesFile}, args...)
	}
	in := strings.Join(paths, "\x00") + "\x00"
	f := splitZ(r.git(t, []byte(in), args...))
	if len(f)%4 != 0 {
		t.Fatalf("check-ignore: odd output %q", f)
	}
	res := make(map[string]string, len(f)/4)
	for i := 0; i < len(f); i += 4 {
		src, line, pat, p := f[i], f[i+1], f[i+2], f[i+3]
		if src == "" && line == "" && pat == "" {
			res[p] = ""
		} else {
			res[p] = src + ":" + line + ":" + pat
		}
	}
	return res
}

// splitZ splits NUL-terminated records, keeping empty fields (which
// check-ignore -n emits for paths no pattern matches).
func splitZ(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// diff returns the elements only in a and only in b (both sorted on return).
func diff(a, b []string) (onlyA, onlyB []string) {
	sort.Strings(a)
	sort.Strings(b)
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}
