package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

// TestMCPOverStdio runs the built binary as `ctxgit mcp`, a real stdio
// subprocess, and drives it with the SDK's client: initialize, list the
// tools, decide, read the decision back through log and show after a
// checkpoint, a bad argument as a tool error, and the end of input as a
// clean exit (docs/cli.md#mcp).
func TestMCPOverStdio(t *testing.T) {
	t.Parallel() // the build takes seconds: beside the scripts
	// ctxgit and, beside it as an install puts it, the ctxgit-mcp that
	// `ctxgit mcp` hands over to.
	bin := t.TempDir()
	exe := filepath.Join(bin, "ctxgit")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go, to build ctxgit: %v", err)
	}
	build := exec.Command(goCmd, "build", "-o", bin+string(filepath.Separator), ".", "../ctxgit-mcp")
	// Not the directory or environment (HOME, so the build cache) of a
	// ctxgit run inside this process beside it.
	build.Dir, build.Env = pkgDir, testEnviron()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	var env []string
	for _, e := range testEnviron() {
		if !strings.HasPrefix(e, "CTXGIT_") {
			env = append(env, e)
		}
	}
	env = append(env, "CTXGIT_NOW=2026-11-22T10:00:00Z")
	init := exec.Command(exe, "init")
	init.Dir, init.Env = dir, env
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("ctxgit init: %v\n%s", err, out)
	}

	cmd := exec.Command(exe, "mcp")
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		// On Unix ctxgit mcp replaces itself with ctxgit-mcp: the process
		// the host started is the server (docs/design.md, "The MCP server").
		if got, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid)); err != nil || filepath.Base(got) != "ctxgit-mcp" {
			t.Errorf("the process ctxgit mcp started as runs %q (%v), want ctxgit-mcp", got, err)
		}
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "ctxgit" {
		t.Errorf("server name %q", got)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "tool `decide` {text, why}") {
		t.Errorf("instructions:\n%s", cs.InitializeResult().Instructions)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 14 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	call := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	structured := func(res *mcp.CallToolResult) map[string]any {
		t.Helper()
		var m map[string]any
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("structured content %s: %v", data, err)
		}
		return m
	}
	res := call("decide", map[string]any{"text": "Ship the MCP server", "why": "hosts without hooks"})
	if res.IsError || res.Content[0].(*mcp.TextContent).Text != "d_001 recorded in .ctxgit/decisions.md\n" {
		t.Fatalf("decide: %+v", res.Content[0])
	}
	if log, _ := os.ReadFile(filepath.Join(dir, ".ctxgit", "decisions.md")); !strings.Contains(string(log), "— Ship the MCP server — why: hosts without hooks") {
		t.Errorf("decisions.md:\n%s", log)
	}
	if res := call("checkpoint", map[string]any{"message": "decided"}); res.IsError {
		t.Fatalf("checkpoint: %+v", res.Content[0])
	}
	entries := structured(call("log", nil))["checkpoints"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["checkpoint_id"] != "cp_001" {
		t.Errorf("log: %v", entries)
	}
	shown := structured(call("show", map[string]any{"checkpoint": "cp_001"}))
	decisions := shown["checkpoint"].(map[string]any)["decisions"].([]any)
	if len(decisions) != 1 || decisions[0].(map[string]any)["what"] != "Ship the MCP server" {
		t.Errorf("show's decisions: %v", decisions)
	}
	// The read tools write nothing, anywhere in the workspace.
	before := wstest.TreeFiles(t, dir)
	for _, name := range []string{"status", "plan", "recover", "log", "show", "diff", "report"} {
		if res := call(name, nil); res.IsError && name != "plan" {
			t.Errorf("%s: %+v", name, res.Content[0])
		}
	}
	if after := wstest.TreeFiles(t, dir); !reflect.DeepEqual(before, after) {
		t.Error("a read tool changed the workspace")
	}
	bad := call("fail", map[string]any{"text": "x", "type": "Nonsense"})
	if !bad.IsError || !strings.HasPrefix(bad.Content[0].(*mcp.TextContent).Text, `ctxgit: type "Nonsense": want one of `) {
		t.Errorf("bad type: %+v", bad.Content[0])
	}

	// Closing stdin is the end: the server exits 0 on its own, well
	// before the transport would terminate it.
	start := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the server took %v to exit after EOF", took)
	}
	if !cmd.ProcessState.Success() {
		t.Errorf("exit: %v; stderr:\n%s", cmd.ProcessState, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
