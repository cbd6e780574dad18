package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/cli.md#demo: without --dir the demo makes a new temporary
// directory, never the current one; --dir takes a new or empty directory
// and refuses one that holds something.
func TestDemoDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	a, err := demoDir("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := demoDir("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{a, b} {
		if filepath.Dir(d) != tmp || !strings.HasPrefix(filepath.Base(d), "ctxgit-demo-") {
			t.Errorf("demo directory %s: want a new ctxgit-demo-* in %s", d, tmp)
		}
		if d == cwd {
			t.Errorf("the demo would run in the current directory")
		}
	}
	if a == b {
		t.Errorf("two demos share the directory %s", a)
	}

	fresh := filepath.Join(tmp, "new", "demo")
	if got, err := demoDir(fresh); err != nil || got != fresh {
		t.Errorf("demoDir(%s) = %s, %v; want it created", fresh, got, err)
	}
	if _, err := demoDir(a); err != nil {
		t.Errorf("an empty directory is refused: %v", err)
	}
	if err := os.WriteFile(filepath.Join(a, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := demoDir(a); err == nil || exitCode(err) != 2 {
		t.Errorf("a directory that holds a file: err %v (exit %d), want exit 2", err, exitCode(err))
	}
}

// The commands the demo prints are the ones it runs: quoted as a shell
// needs them.
func TestShellWords(t *testing.T) {
	got := shellWords([]string{"decide", "Keep v1", "--why", "it's safe", "plain-word_1.0", ""})
	want := `decide 'Keep v1' --why 'it'\''s safe' plain-word_1.0 ''`
	if got != want {
		t.Errorf("shellWords = %s, want %s", got, want)
	}
}
