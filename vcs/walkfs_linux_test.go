package vcs

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Issue 13 item 1: /proc's files report size 0 and some never end; the
// walk refuses a directory on a pseudo file system rather than read it.
func TestOpenDirRefusesPseudoFileSystems(t *testing.T) {
	for _, dir := range []string{"/proc/self", "/sys/kernel"} {
		if _, err := os.Stat(dir); err != nil {
			continue // not mounted here
		}
		d, err := openDir(dir, true)
		if err == nil {
			d.f.Close()
			t.Fatalf("%s: opened; want refused as a pseudo file system", dir)
		}
		var pe *pseudoFSError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v; want a pseudo file system error", dir, err)
		}
	}
}

// A snapshot rooted in /proc fails with the reason, rather than reading
// its endless files.
func TestSnapshotOfProcFails(t *testing.T) {
	_, err := Snapshot(NewMemStore(), SnapshotOptions{Root: "/proc/self"})
	if err == nil || !strings.Contains(err.Error(), "proc pseudo file system") {
		t.Fatalf("err = %v; want the proc file system refused", err)
	}
}
