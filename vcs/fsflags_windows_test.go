//go:build windows

package vcs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// On NTFS, as git init finds: no executable bit, and names fold case.
// Symlinks depend on the account's rights (developer mode): the probe
// says what making one here really does, a link that is there afterwards
// (under Wine 8 os.Symlink reports success and makes nothing).
func TestProbeFSFlagsOnWindows(t *testing.T) {
	flags, err := vcs.ProbeFSFlags(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !flags.NoFileMode || !flags.IgnoreCase {
		t.Fatalf("probe on NTFS: %+v", flags)
	}
	link := filepath.Join(t.TempDir(), "link")
	made := false
	if os.Symlink("target", link) == nil {
		fi, err := os.Lstat(link)
		made = err == nil && fi.Mode()&os.ModeSymlink != 0
	}
	if flags.NoSymlinks == made {
		t.Fatalf("probe: NoSymlinks %v, but a symlink made here is there: %v", flags.NoSymlinks, made)
	}
	// Where nothing can be probed, Git for Windows' defaults.
	if got := vcs.SystemFSFlags(); got != (vcs.FSFlags{IgnoreCase: true, NoFileMode: true, NoSymlinks: true}) {
		t.Fatalf("SystemFSFlags() = %+v", got)
	}
}
