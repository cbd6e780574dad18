package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ctxgit/ctxgit/workspace"
)

// openPTY opens a pseudo-terminal pair: what a user's terminal looks like
// to ctxgit.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}

// On a terminal, a command running past the delay shows a progress line,
// rewritten in place and cleared at the end; with --json it does not.
func TestProgressOnATerminal(t *testing.T) {
	t.Parallel() // it sleeps past the progress delay
	master, slave := openPTY(t)
	defer master.Close()
	defer slave.Close()
	if !isTerminal(slave) {
		t.Fatal("a pseudo-terminal is not taken for a terminal")
	}
	p := new(workspace.Progress)
	p.Scanned.Store(42)
	a := &app{stderr: slave}
	stop := a.startProgress(p, true)
	time.Sleep(progressDelay + 300*time.Millisecond)
	stop()
	stop = a.startProgress(p, false)
	time.Sleep(progressDelay + 300*time.Millisecond)
	stop()
	// Drain what the terminal received without blocking: a pty's master
	// does not take read deadlines.
	fd := int(master.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	var got string
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			break
		}
		got += string(buf[:n])
	}
	if strings.Count(got, "ctxgit: scanning the workspace: 42 entries") < 1 || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Fatalf("terminal got %q", got)
	}
	if strings.Count(got, "\r\x1b[Kctxgit:") > 3 {
		t.Fatalf("more progress lines than one run prints: %q", got)
	}
}
