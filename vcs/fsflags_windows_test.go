//go:build windows

package vcs_test

import (
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// On NTFS, as git init finds: no executable bit, and names fold case.
// Symlinks depend on the account's rights (developer mode), so they are
// not checked.
func TestProbeFSFlagsOnWindows(t *testing.T) {
	flags, err := vcs.ProbeFSFlags(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !flags.NoFileMode || !flags.IgnoreCase {
		t.Fatalf("probe on NTFS: %+v", flags)
	}
}
