//go:build unix

package hostconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Unix form runs, through sh as Claude Code and Codex (`sh -c`,
// `$SHELL -lc`) and bash as Gemini CLI (`bash -c`) run it, the program at
// a path with spaces, quotes, a backslash and a dollar sign, with the
// hook's words as its arguments and the payload on stdin.
func TestProgramCommandRunsInPOSIXShells(t *testing.T) {
	for _, dir := range []string{"plain", "with space", "o'brien", `back\slash`, "$HOME x", `"dq"`} {
		prog := filepath.Join(t.TempDir(), dir, "ctxgit")
		if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(prog, []byte("#!/bin/sh\nprintf '%s|' \"$@\"\ncat\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, sh := range [][]string{{"sh", "-c"}, {"bash", "-c"}, {"sh", "-lc"}} {
			if _, err := exec.LookPath(sh[0]); err != nil {
				t.Fatalf("%s: %v", sh[0], err)
			}
			cmd, err := ProgramCommand(ClaudeCode, "linux", prog)
			if err != nil {
				t.Fatal(err)
			}
			line := cmd + " hook claude-code post-tool-use"
			c := exec.Command(sh[0], sh[1], line)
			c.Stdin = strings.NewReader(`{"cwd":"/a b"}`)
			out, err := c.CombinedOutput()
			if want := `hook|claude-code|post-tool-use|{"cwd":"/a b"}`; err != nil || string(out) != want {
				t.Errorf("%s %s %q: %q, %v; want %q", sh[0], sh[1], line, out, err, want)
			}
		}
	}
}
