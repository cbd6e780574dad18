package vcs_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 24 item 6: git reads a remote's whole ref advertisement before it
// prints a line, so the cap on git's output (TestLsRemoteOutputCap) never
// stops it on an endless one. On Linux git's memory is bounded
// (RLIMIT_DATA): it runs out of the 256 MiB ls-remote may use, having
// taken far less than the advertisement, and the error names that bound,
// not the output cap or the timeout. No clock is read: under load the
// bound trips later, never elsewhere. The bound is in force from git's
// exec (internal/proc TestRunTiedBoundsFromExec), so the HTTP helper git
// starts at once, which holds the advertisement, has it too: set once
// git ran, it missed the helper under load, which took the whole 1 GiB.
func TestLsRemoteEndlessAdvertisementHitsTheMemoryBound(t *testing.T) {
	t.Parallel() // mostly git's own work, in its own process
	ep, sent := endlessRemote(t, 1<<30)
	gitDir := filepath.Join(t.TempDir(), "store.git")
	_, err := vcs.InitPrivate(gitDir)
	must(t, err)
	_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: gitDir, Timeout: vcs.DefaultRemoteTimeout})
	if err == nil {
		t.Fatal("ls-remote of an endless advertisement succeeded")
	}
	t.Logf("after %d MiB sent: %v", sent.Load()>>20, err)
	if !strings.Contains(err.Error(), "git ls-remote ran out of the 256 MiB ctxgit allows it: the remote's answer is too large (an endless ref advertisement?)") {
		t.Errorf("error %q does not say git hit its memory bound", err)
	}
	// git's helper holds what it received: what was sent bounds it.
	if sent.Load() > 384<<20 {
		t.Errorf("git took %d MiB of the advertisement, want the 256 MiB bound to stop it", sent.Load()>>20)
	}
}
