package detach

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The child process of these tests: it waits, then writes what it is to
// the file named by DETACH_TEST_OUT.
func TestMain(m *testing.M) {
	if out := os.Getenv("DETACH_TEST_OUT"); out != "" {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(out+".tmp", []byte(childInfo()), 0o644)
		os.Rename(out+".tmp", out)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild starts this test binary as a detached child and waits for
// what it writes.
func startChild(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "child")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := Start(exe, nil, t.TempDir(), append(os.Environ(), "DETACH_TEST_OUT="+out)); err != nil {
		t.Fatal(err)
	}
	// Start does not wait for the child, which sleeps 300 ms first.
	if d := time.Since(began); d > 250*time.Millisecond {
		t.Errorf("Start took %v: it waited for the child", d)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(out); err == nil {
			return string(data)
		}
	}
	t.Fatal("the detached child never wrote its file")
	return ""
}

func TestStartDoesNotWait(t *testing.T) {
	if got := startChild(t); got == "" {
		t.Fatal("child wrote nothing")
	}
}

func TestStartRefusesNoProgram(t *testing.T) {
	if err := Start("", nil, "", nil); err == nil {
		t.Fatal("no error for an empty program")
	}
}
