package wstest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// What a test may take for granted differs by system; these say what
// each system offers, so a test means the same thing on every one
// (CONTRIBUTING.md, "The Windows tier under Wine").

// NeedGit returns the git program, or skips the test when none is on
// PATH: a test that compares ctxgit with git, or builds its fixture with
// git, has nothing to stand on without it (the Windows tier runs the test
// binaries under Wine, where no Windows git is installed).
func NeedGit(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("needs git, which is not on PATH:", err)
	}
	return p
}

// Symlink makes newname a symbolic link to oldname, or skips the test
// where the system may make none: Windows without the privilege to
// create links, and Wine 8, whose CreateSymbolicLinkW is a stub that
// reports success and makes nothing. Elsewhere a link not made fails the
// test: it is the test's own error (a name taken, a folder missing).
func Symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	err := os.Symlink(oldname, newname)
	if err == nil {
		fi, lerr := os.Lstat(newname)
		if lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return
		}
		err = fmt.Errorf("os.Symlink succeeded and made no link (%v)", lerr)
	}
	if runtime.GOOS == "windows" {
		t.Skip("no symbolic links here:", err)
	} else {
		t.Fatal(err)
	}
}

// Perm is the permission bits a file created or chmod-ed with perm shows
// on this system. Windows keeps only a read-only attribute, which Go
// reports as 0o444 and otherwise 0o666 (directories 0o555 and 0o777),
// set when perm has no owner write bit.
func Perm(perm fs.FileMode, dir bool) fs.FileMode {
	if runtime.GOOS != "windows" {
		return perm.Perm()
	}
	mode := fs.FileMode(0o666)
	if dir {
		mode = 0o777
	}
	if perm&0o200 == 0 {
		mode &^= 0o222
	}
	return mode
}

// ModesExist reports whether the system keeps Unix permission bits
// (every one ctxgit runs on but Windows).
func ModesExist() bool { return runtime.GOOS != "windows" }

// ExitedPID returns the process id of a process that has run and exited:
// this test binary, started to run no test.
func ExitedPID(t testing.TB) int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$", "-test.count=1")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// JSONEscapeAt is s as it must be written at byte pos of the JSON text
// text (one JSON value a line) to read back as s: escaped once inside a
// string, twice inside a string of a string that holds JSON itself (as
// Codex's function-call arguments do), not at all outside strings. A test
// that puts a real path (on Windows, one with backslashes) into a
// recorded transcript writes it with this.
func JSONEscapeAt(text string, pos int, s string) string {
	for range jsonLevel(text, pos) {
		b, _ := json.Marshal(s)
		s = string(b[1 : len(b)-1])
	}
	return s
}

// jsonLevel is how many JSON strings pos is inside of: 0, 1, or 2 where
// the string it is in starts with { or [ and an odd number of escaped
// quotes come before pos in it.
func jsonLevel(text string, pos int) int {
	lineStart := strings.LastIndexByte(text[:pos], '\n') + 1
	in, from := false, 0
	for i := lineStart; i < pos; i++ {
		switch {
		case in && text[i] == '\\':
			i++
		case text[i] == '"':
			in, from = !in, i+1
		}
	}
	if !in {
		return 0
	}
	content := text[from:pos]
	if (strings.HasPrefix(content, "{") || strings.HasPrefix(content, "[")) && strings.Count(content, `\"`)%2 == 1 {
		return 2
	}
	return 1
}
