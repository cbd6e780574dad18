package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

// symlink makes a link or skips where links cannot be made.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	wstest.Symlink(t, target, link)
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// A directory link anywhere on the way is refused, naming it; missing
// directories are fine, and made with mkdir.
func TestDirs(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	mkdirs(t, filepath.Join(root, "a", "b"))
	symlink(t, outside, filepath.Join(root, "a", "out"))
	if err := os.WriteFile(filepath.Join(root, "a", "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel  string
		want error
		at   string
	}{
		{"a/b/x", nil, ""},
		{"a/missing/deeper/x", nil, ""},
		{"a/out/x", ErrSymlink, "a/out"},
		{"a/out", nil, ""}, // the file itself is the opener's to check
		{"a/file/x", ErrNotDir, "a/file"},
	} {
		err := Dirs(root, c.rel, false)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Dirs(%s) = %v, want %v", c.rel, err, c.want)
			continue
		}
		var pe *os.PathError
		if c.want != nil && (!errors.As(err, &pe) || pe.Path != filepath.Join(root, filepath.FromSlash(c.at))) {
			t.Errorf("Dirs(%s) = %v, want it to name %s", c.rel, err, c.at)
		}
	}
	if err := Dirs(root, "a/new/newer/x", true); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "a", "new", "newer")); err != nil || !fi.IsDir() {
		t.Fatalf("mkdir: %v", err)
	}
	if err := Dirs(root, "a/out/made/x", true); !errors.Is(err, ErrSymlink) {
		t.Fatalf("mkdir through a link: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("made %d entries outside the root", len(entries))
	}
}

// Links are followed while they stay under the root, whatever their form;
// one that leaves it, absolutely or by climbing, is refused naming it.
func TestResolve(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	mkdirs(t, filepath.Join(root, "docs", "deep"), filepath.Join(root, ".git"))
	symlink(t, "docs/plan.md", filepath.Join(root, "plan.md"))
	symlink(t, "docs", filepath.Join(root, "d"))
	symlink(t, filepath.Join(root, "docs", "deep"), filepath.Join(root, "abs"))
	symlink(t, "../../x", filepath.Join(root, "docs", "deep", "up"))
	symlink(t, "../../..", filepath.Join(root, "docs", "deep", "out"))
	symlink(t, outside, filepath.Join(root, "o"))
	symlink(t, ".git", filepath.Join(root, "g"))
	symlink(t, "loop", filepath.Join(root, "loop"))
	for _, c := range []struct{ rel, want string }{
		{"plan.md", "docs/plan.md"},
		{"d/deep/f", "docs/deep/f"},
		{"abs/f", "docs/deep/f"},
		{"docs/deep/up", "x"},
		{"d/../plan.md", "docs/plan.md"}, // .. is taken where the link led, as the kernel takes it
		{"g/config", ".git/config"},
		{"missing/dir/f", "missing/dir/f"},
	} {
		got, err := Resolve(root, c.rel)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", c.rel, got, err, c.want)
		}
	}
	for _, c := range []struct{ rel, link string }{
		{"o/f", "o"},
		{"docs/deep/out/f", "docs/deep/out"},
		{"d/deep/out/f", "docs/deep/out"},
		{"../f", "../f"},
	} {
		_, err := Resolve(root, c.rel)
		var le *LinkError
		if !errors.Is(err, ErrOutside) || !errors.As(err, &le) || le.Link != c.link {
			t.Errorf("Resolve(%s) = %v, want ErrOutside naming %s", c.rel, err, c.link)
		}
	}
	if _, err := Resolve(root, "loop"); err == nil {
		t.Error("a link loop resolved")
	}
}

// OpenAppend creates and appends to a regular file, and refuses a link in
// its place, dangling or not, creating nothing where it leads (issue 32:
// a committed .ctxgit/local/ctxgit.log -> ~/.bashrc).
func TestOpenAppendNoFollow(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, "log")
	for i := 0; i < 2; i++ {
		f, err := OpenAppend(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("line\n")
		f.Close()
	}
	if data, _ := os.ReadFile(p); string(data) != "line\nline\n" {
		t.Fatalf("appended %q", data)
	}
	bashrc := filepath.Join(outside, ".bashrc")
	os.WriteFile(bashrc, []byte("# mine\n"), 0o644)
	symlink(t, bashrc, filepath.Join(dir, "linked"))
	symlink(t, filepath.Join(outside, "nologin"), filepath.Join(dir, "dangling"))
	for _, name := range []string{"linked", "dangling"} {
		if f, err := OpenAppend(filepath.Join(dir, name), 0o644); !errors.Is(err, ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenAppend(%s) = %v, want ErrNotRegular", name, err)
		}
	}
	if data, _ := os.ReadFile(bashrc); string(data) != "# mine\n" {
		t.Errorf("the link's target became %q", data)
	}
	if _, err := os.Lstat(filepath.Join(outside, "nologin")); err == nil {
		t.Error("the dangling link's target was created")
	}
	// The host's env file may be a link: followed, to a regular file.
	f, err := OpenAppendFollowing(filepath.Join(dir, "linked"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
