//go:build darwin

package vcs_test

import (
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// On APFS, as git init finds: an executable bit and symlinks. Case
// folding depends on how the volume was formatted, so it is not checked.
func TestProbeFSFlagsOnMacOS(t *testing.T) {
	flags, err := vcs.ProbeFSFlags(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if flags.NoFileMode || flags.NoSymlinks {
		t.Fatalf("probe on APFS: %+v", flags)
	}
}
