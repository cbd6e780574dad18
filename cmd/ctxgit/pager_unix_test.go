//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pagerFixture is a workspace with one checkpoint and the environment to
// run this test binary as ctxgit in it.
func pagerFixture(t *testing.T) (k *killFixture, dir string) {
	t.Helper()
	exe := ctxgitOnPath(t)
	k = &killFixture{exe: exe}
	home := t.TempDir()
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CTXGIT_") && !strings.HasPrefix(e, "GIT_") && !strings.HasPrefix(e, "PAGER=") &&
			!strings.HasPrefix(e, "NO_COLOR=") && !strings.HasPrefix(e, "LESS=") {
			k.env = append(k.env, e)
		}
	}
	k.env = append(k.env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	dir = filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	k.ctxgit(t, dir, "init")
	k.ctxgit(t, dir, "checkpoint", "-m", "paged")
	return k, dir
}

// docs/cli.md#global-options: Ctrl-C while the pager runs does not leave
// it behind. ctxgit closes the pager's input and waits for it to end
// before it exits, however many signals come; the pager reads the whole
// output. A real child process, so the signal handling is what is
// tested.
func TestPagerEndsBeforeCtxgitOnInterrupt(t *testing.T) {
	k, dir := pagerFixture(t)
	// The pager says it started, waits to be let go, then reads
	// everything and says it ended.
	pager := "touch pager-started; while [ ! -e go-on ]; do sleep 0.05; done; cat > paged.txt; echo ended > pager-ended"
	cmd := exec.Command(k.exe, "log")
	// Files, not pipes: Wait would wait for the pager too, which holds
	// them (and stdout must be a file for a pager to be started on it).
	tmp := t.TempDir()
	out, err := os.Create(filepath.Join(tmp, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errFile, err := os.Create(filepath.Join(tmp, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	stderr := func() string { data, _ := os.ReadFile(errFile.Name()); return string(data) }
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, errFile
	cmd.Env = append(k.env[:len(k.env):len(k.env)], testTerminalEnv+"=1", "CTXGIT_PAGER="+pager)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "pager-started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the pager never started\n%s", stderr())
		}
	}
	// Ctrl-C twice while the pager has the terminal: ctxgit stays.
	for range 2 {
		cmd.Process.Signal(os.Interrupt)
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case err := <-exited:
		t.Fatalf("ctxgit exited (%v) while its pager ran\n%s", err, stderr())
	case <-time.After(200 * time.Millisecond):
	}
	if err := os.WriteFile(filepath.Join(dir, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = <-exited
	if _, statErr := os.Stat(filepath.Join(dir, "pager-ended")); statErr != nil {
		t.Fatalf("ctxgit exited (%v) before its pager ended\n%s", err, stderr())
	}
	if err != nil {
		t.Fatalf("ctxgit log: %v, want exit 0 (the log was written whole)\n%s", err, stderr())
	}
	paged, _ := os.ReadFile(filepath.Join(dir, "paged.txt"))
	if !bytes.Contains(paged, []byte("manual  -  paged")) {
		t.Fatalf("the pager read %q, want the log", paged)
	}
}

// A default pager that is not installed is no error: the output is
// printed as it is, with no warning (less is missing on many systems).
func TestDefaultPagerMissing(t *testing.T) {
	k, dir := pagerFixture(t)
	cmd := exec.Command(k.exe, "log")
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, &stderr
	// PATH without less (ctxgit needs no git to read its history).
	cmd.Env = append(k.env[:len(k.env):len(k.env)], testTerminalEnv+"=1", "NO_COLOR=1", "PATH="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctxgit log: %v\n%s", err, stderr.String())
	}
	out.Close()
	got, _ := os.ReadFile(out.Name())
	// On a terminal the log first names its session, then the entries.
	if !bytes.Contains(got, []byte("\ncp_001  ")) || stderr.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q: want the log and no warning", got, stderr.String())
	}
}
