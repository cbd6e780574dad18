package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// On a real terminal (a pseudo-terminal, no test override) log colours
// and pages; NO_COLOR keeps the pager and drops the colour.
func TestTerminalColoursAndPages(t *testing.T) {
	k, dir := pagerFixture(t)
	for _, tc := range []struct {
		noColor string
		colour  bool
	}{{"", true}, {"1", false}} {
		master, slave := openPTY(t)
		paged := filepath.Join(t.TempDir(), "paged.txt")
		cmd := exec.Command(k.exe, "log")
		var stderr bytes.Buffer
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, slave, &stderr
		cmd.Env = append(k.env[:len(k.env):len(k.env)], "NO_COLOR="+tc.noColor, "CTXGIT_PAGER=cat > '"+paged+"'")
		err := cmd.Run()
		slave.Close()
		master.Close()
		if err != nil {
			t.Fatalf("ctxgit log on a terminal: %v\n%s", err, stderr.String())
		}
		got, err := os.ReadFile(paged)
		if err != nil {
			t.Fatalf("NO_COLOR=%q: the pager did not run on a terminal: %v", tc.noColor, err)
		}
		if has := bytes.Contains(got, []byte("\x1b[33mcp_001\x1b[m")); has != tc.colour {
			t.Fatalf("NO_COLOR=%q: paged %q, colour %v, want %v", tc.noColor, got, has, tc.colour)
		}
		if !bytes.Contains(got, []byte("manual  -  paged")) {
			t.Fatalf("paged %q, want the log", got)
		}
	}
}
