package mcpserver

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestStatusChildDiesWithServer: the ctxgit the status tool runs dies
// with the server, even when the server is killed outright (issue 32,
// defect 7): here a stand-in that never ends, started by a real server
// process, which the test then kills with SIGKILL. Linux, where the
// kernel's parent-death signal ties them (docs/design.md, "The MCP
// server").
func TestStatusChildDiesWithServer(t *testing.T) {
	t.Parallel()
	dir, _ := newWorkspace(t)
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "child.pid")
	fake := filepath.Join(tmp, "ctxgit")
	script := "#!/bin/sh\necho $$ >\"$CHILD_PID_FILE.tmp\" && mv \"$CHILD_PID_FILE.tmp\" \"$CHILD_PID_FILE\"\nexec sleep 600\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	server := exec.Command(os.Args[0])
	server.Env = append(os.Environ(), "CTXGIT_TEST_MCP_ROOT="+dir, "CTXGIT_TEST_MCP_CTXGIT="+fake, "CHILD_PID_FILE="+pidFile)
	stdin, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	server.Stdout, server.Stderr = io.Discard, io.Discard
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			server.Process.Kill()
			server.Wait()
		}
	}()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}
`)
	pid := 0
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(string(bytes.TrimSpace(data)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the status tool did not start its ctxgit within 30 s")
		}
	}
	t.Cleanup(func() {
		if running(pid) {
			syscall.Kill(pid, syscall.SIGKILL) // the stand-in this test started
		}
	})
	server.Process.Kill()
	server.Wait()
	killed = true
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the status tool's child %d still runs 10 s after its server was killed", pid)
		}
	}
}

// running reports whether pid is a process that has not exited: a
// zombie (exited, not yet reaped by whoever inherited it) has.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
