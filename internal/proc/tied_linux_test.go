package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PROC_TEST_REPORT: the test binary as a child prints its process id,
// process group and parent-death signal, then exits 7 (or, with
// PROC_TEST_REPORT=kill, dies of SIGKILL).
func init() {
	how := os.Getenv("PROC_TEST_REPORT")
	if how == "" {
		return
	}
	var sig int32
	unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0, 0, 0)
	fmt.Println(os.Getpid(), syscall.Getpgrp(), sig)
	if how == "kill" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	os.Exit(7)
}

// TestRunTiedBoundsFromExec: the memory bound is in force from the
// child's first instruction, so a process the child starts at once (git
// its HTTP helper) has it too, and the child itself cannot raise it. Set
// with prlimit once the child ran, it missed a grandchild started first
// (TestLsRemoteEndlessAdvertisementHitsTheMemoryBound failed under load).
// The child here reads its limit and starts a reader of its own limit
// before doing anything else.
func TestRunTiedBoundsFromExec(t *testing.T) {
	const memory = 200 << 20
	cmd := exec.Command("/bin/sh", "-c", `cat /proc/$$/limits; cat /proc/self/limits; (ulimit -d unlimited) 2>/dev/null && echo raised; true`)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := RunTied(cmd, syscall.SIGKILL, memory); err != nil {
		t.Fatal(err)
	}
	lines := regexp.MustCompile(`(?m)^Max data size +(\S+) +(\S+) +bytes`).FindAllStringSubmatch(out.String(), -1)
	if len(lines) != 2 {
		t.Fatalf("want the limits of the child and its child, got:\n%s", out.String())
	}
	for i, who := range []string{"the child", "its child"} {
		if lines[i][1] != "209715200" || lines[i][2] != "209715200" {
			t.Errorf("%s's data limit is %s (soft), %s (hard); want 209715200 from exec on", who, lines[i][1], lines[i][2])
		}
	}
	if bytes.Contains(out.Bytes(), []byte("raised")) {
		t.Error("the child raised its bound")
	}
}

// A process bound as tightly already passes its bound on as it is: no
// shell is put in front of the child, and the limit stays the tighter one.
func TestRunTiedInheritsATighterBound(t *testing.T) {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/true")
	boundFromExec(cmd, cur.Cur)
	if cmd.Path != "/bin/true" || len(cmd.Args) != 1 {
		t.Fatalf("a bound this process has already: the command became %s %q", cmd.Path, cmd.Args)
	}
	cmd = exec.Command("/bin/echo", "a b", "$HOME", `"`)
	boundFromExec(cmd, 1<<20)
	var out bytes.Buffer
	cmd.Stdout = &out
	if cur.Cur <= 1<<20 {
		t.Skip("this process is bound to 1 MiB already")
	}
	if err := RunTied(cmd, syscall.SIGKILL, 0); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "a b $HOME \"\n" {
		t.Fatalf("the arguments through the shell: %q, want them as given", got)
	}
}

// The shell that sets the bound execs the program in its own place: the
// program has the process id cmd.Process has, the process group and the
// parent-death signal asked for, and its exit status or the signal it
// died of is what RunTied returns.
func TestRunTiedThroughTheShellKeepsTheChild(t *testing.T) {
	const memory = 1 << 30
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err != nil || cur.Cur <= memory {
		t.Skip("this process is bound to 1 GiB already: no shell is put in front")
	}
	for _, how := range []string{"exit", "kill"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PROC_TEST_REPORT="+how)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out bytes.Buffer
		cmd.Stdout = &out
		err := RunTied(cmd, syscall.SIGTERM, memory)
		if cmd.Path != shell {
			t.Fatalf("the child ran as %s, not through %s", cmd.Path, shell)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: %v", how, err)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		switch {
		case how == "exit" && ws.ExitStatus() != 7:
			t.Errorf("exit status %v, want 7", ws)
		case how == "kill" && (!ws.Signaled() || ws.Signal() != syscall.SIGKILL):
			t.Errorf("status %v, want killed by SIGKILL", ws)
		}
		f := strings.Fields(out.String())
		want := []string{strconv.Itoa(cmd.Process.Pid), strconv.Itoa(cmd.Process.Pid), strconv.Itoa(int(syscall.SIGTERM))}
		if strings.Join(f, " ") != strings.Join(want, " ") {
			t.Errorf("the child says pid, process group, death signal %q; want %q", f, want)
		}
	}
}
