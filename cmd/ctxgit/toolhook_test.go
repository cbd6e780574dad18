package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// init --host runs ctxgit-hook for the tool-call events only when one is
// installed beside the running ctxgit: by name when that one is on PATH
// and ctxgit is run by name, else by its path; with none, ctxgit's hook.
func TestToolHookProgram(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "ctxgit")
	hook := filepath.Join(dir, "ctxgit-hook")
	if runtime.GOOS == "windows" {
		exe += ".exe"
		hook += ".exe"
	}
	executable := func() (string, error) { return exe, nil }
	notOnPath := func(string) (string, error) { return "", errors.New("not found") }
	onPath := func(string) (string, error) { return hook, nil }
	if got := toolHookProgram("ctxgit", executable, onPath); got != "" {
		t.Errorf("no ctxgit-hook beside ctxgit: %q", got)
	}
	if err := os.WriteFile(hook, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := toolHookProgram("ctxgit", executable, onPath); got != "ctxgit-hook" {
		t.Errorf("on PATH: %q", got)
	}
	if got := toolHookProgram("ctxgit", executable, notOnPath); got != hook {
		t.Errorf("not on PATH: %q, want %q", got, hook)
	}
	if got := toolHookProgram(exe, executable, onPath); got != hook {
		t.Errorf("ctxgit by its path: %q, want %q", got, hook)
	}
	if got := toolHookProgram("ctxgit", func() (string, error) { return "", errors.New("no") }, onPath); got != "" {
		t.Errorf("no executable: %q", got)
	}
}
