package proc

import (
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_EXIT") != "" {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// This process is alive; a child that has exited and been reaped is not;
// ids that no process can have are not.
func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_TEST_EXIT=1")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Fatalf("exited child %d is alive", cmd.Process.Pid)
	}
	for _, pid := range []int{0, -1} {
		if Alive(pid) {
			t.Fatalf("pid %d is alive", pid)
		}
	}
}
