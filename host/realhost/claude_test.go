package realhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// claudeRun is one `claude` invocation's requests: those the fake received
// while it ran.
type claudeRun struct {
	name     string
	requests []Request
	result   Result
}

// main is the run's main-loop requests, in order.
func (r claudeRun) main() []Request {
	var out []Request
	for _, q := range r.requests {
		if claudeKind(q) == "main" {
			out = append(out, q)
		}
	}
	return out
}

// claudeSession drives Claude Code headless in one workspace.
type claudeSession struct {
	t    *testing.T
	w    *Workspace
	fake *claudeFake
	bin  string
	runs []claudeRun
}

func (s *claudeSession) run(args ...string) claudeRun {
	s.t.Helper()
	before := len(s.fake.api.Requests())
	res := s.w.Run(2*time.Minute, []string{
		"ANTHROPIC_BASE_URL=" + s.fake.api.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake-key",
		"CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000",
	}, s.bin, append(args, "--model", "claude-sonnet-4-5", "--output-format", "text")...)
	run := claudeRun{name: strings.Join(args, " "), requests: s.fake.api.Requests()[before:], result: res}
	if res.Err != nil {
		s.t.Fatalf("claude %s: %v\nstdout:\n%s\nstderr:\n%s", run.name, res.Err, res.Stdout, res.Stderr)
	}
	s.runs = append(s.runs, run)
	if dir := os.Getenv("CTXGIT_REALHOST_DUMP"); dir != "" {
		for i, q := range run.requests {
			name := fmt.Sprintf("%02d-%02d-%s.json", len(s.runs), i, claudeKind(q))
			os.WriteFile(filepath.Join(dir, name), q.Body, 0o644)
		}
	}
	for i, q := range run.requests {
		s.t.Logf("run %d (%s) request %d %s %s: blocks %d card %d nudge %d", len(s.runs), run.name, i, q.Path,
			claudeKind(q), CountBlocks(q.Body), Count(q.Body, cardMarker), Count(q.Body, nudgeMarker))
	}
	return run
}

// checkpointsOf lists the workspace's checkpoints, newest first, as
// `ctxgit log --json` prints them.
func (s *claudeSession) checkpoints() []struct {
	ID      string `json:"checkpoint_id"`
	Trigger string `json:"trigger"`
} {
	s.t.Helper()
	out := s.w.MustRun("ctxgit", "log", "--json")
	var cps []struct {
		ID      string `json:"checkpoint_id"`
		Trigger string `json:"trigger"`
	}
	if err := json.Unmarshal([]byte(out), &cps); err != nil {
		s.t.Fatalf("ctxgit log --json: %v\n%s", err, out)
	}
	return cps
}

// claudePath puts ctxgit and the host's node first on this process's PATH:
// Workspace.Run looks a bare command name up there (exec.Command resolves it
// before the command's own environment applies), so `ctxgit` would not be
// found otherwise. A general helper the lead may fold into the harness.
func claudePath(t *testing.T, in hostInstall) {
	t.Setenv("PATH", filepath.Dir(ctxgitBinary(t))+string(os.PathListSeparator)+in.NodeDir+
		string(os.PathListSeparator)+os.Getenv("PATH"))
}

var blockCheckpoint = regexp.MustCompile(`Checkpoint (cp_\d+) · session`)

func TestClaudeCode(t *testing.T) {
	requireTier(t)
	in := installHost(t, "claude-code")
	claudePath(t, in)
	w := NewWorkspace(t, in, "--host", "claude-code")
	s := &claudeSession{t: t, w: w, fake: newClaudeFake(t, w.Dir), bin: in.Bin}

	// Start: a tool call whose answer reports 70% of the window in use.
	s.fake.setUsed(140_000)
	s.run("-p", "Please "+claudeToolWord+" and summarise it.")
	s.run("-c", "-p", "Now "+claudeToolWord+" again.")
	s.run("-c", "-p", "/compact")
	s.run("-c", "-p", "What next?")
	s.fake.setUsed(190_000)
	s.run("-c", "-p", "Go on.")
	s.fake.setUsed(20_000)
	s.run("-c", "-p", "And then?")
	s.run("-c", "-p", "Anything new?")
	t.Log(s.w.MustRun("ctxgit", "log"))
}
