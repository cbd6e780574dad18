package wstest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// outcome is a testing.TB that records whether a helper skipped or
// failed the test, rather than stopping it.
type outcome struct {
	testing.TB
	skipped, failed string
}

func (o *outcome) Helper()                      {}
func (o *outcome) Skip(args ...any)             { o.skipped = fmt.Sprint(args...) }
func (o *outcome) Skipf(f string, args ...any)  { o.skipped = fmt.Sprintf(f, args...) }
func (o *outcome) Fatal(args ...any)            { o.failed = fmt.Sprint(args...) }
func (o *outcome) Fatalf(f string, args ...any) { o.failed = fmt.Sprintf(f, args...) }

// Symlink skips only where a system may make no links (Windows, Wine):
// on a Unix system a link that cannot be made is the test's own error
// (a path taken twice, a directory missing), which a skip would hide.
func TestSymlinkFailsWhereLinksExist(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows may make no links: there a failed link skips")
	}
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken")
	if err := os.WriteFile(taken, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := &outcome{TB: t}
	Symlink(o, "target", taken)
	if o.failed == "" || o.skipped != "" {
		t.Errorf("a link over an existing file: failed %q, skipped %q; want it failed", o.failed, o.skipped)
	}
	o = &outcome{TB: t}
	Symlink(o, "target", filepath.Join(dir, "link"))
	if o.failed != "" || o.skipped != "" {
		t.Errorf("a link made: failed %q, skipped %q", o.failed, o.skipped)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("no link made: %v", err)
	}
}
