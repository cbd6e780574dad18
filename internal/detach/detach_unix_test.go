//go:build unix

package detach

import (
	"golang.org/x/sys/unix"
	"strconv"
	"testing"
)

func childInfo() string {
	sid, _ := unix.Getsid(0)
	return strconv.Itoa(sid)
}

// On Unix the child leads a session of its own: a hangup or a signal to
// the hook's process group does not reach it.
func TestChildHasItsOwnSession(t *testing.T) {
	mine, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	got := startChild(t)
	if got == strconv.Itoa(mine) || got == "" {
		t.Fatalf("child session %q, parent's %d: not detached", got, mine)
	}
}
