package realhost_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copilotKind tells GitHub Copilot CLI's requests apart: its compaction
// summary (the last message asks for "a detailed summary of the
// conversation so far"), and its main loop (the system prompt is
// Copilot's own).
func copilotKind(r Request) string {
	msgs := chatMessages(r.Body)
	if len(msgs) == 0 {
		return "other"
	}
	if strings.HasPrefix(msgs[len(msgs)-1].Text, "Please create a detailed summary of the conversation so far.") {
		return "summary"
	}
	if msgs[0].Role == "system" && strings.HasPrefix(msgs[0].Text, "You are the GitHub Copilot CLI") {
		return "main"
	}
	return "other"
}

// copilotSession drives Copilot CLI headless (`copilot -p`) in one
// workspace, offline, with its BYOK provider at the fake.
type copilotSession struct {
	t      *testing.T
	w      *Workspace
	in     hostInstall
	fake   *FakeAPI
	script *chatScript
}

// run runs `copilot ARGS... --allow-all-tools` and returns the main-loop
// requests it made, in order.
func (s *copilotSession) run(args ...string) []Request {
	s.t.Helper()
	before := len(s.fake.Requests())
	// The npm package's binary unpacks the CLI into a package cache on
	// first run (235 MB): one shared cache beside the install, not one per
	// test's home.
	pkg := filepath.Join(filepath.Dir(s.in.Bin), "..", "..", "..", "copilot-pkg")
	env := []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + s.fake.URL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=sk-fake", "COPILOT_MODEL=gpt-4.1", "COPILOT_PKG_CACHE_HOME=" + pkg, "COPILOT_AUTO_UPDATE=false"}
	r := s.w.Run(3*time.Minute, env, s.in.Bin, append(args, "--allow-all-tools")...)
	if r.Err != nil {
		s.t.Fatalf("copilot %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	var main []Request
	for i, q := range s.fake.Requests()[before:] {
		kind := s.script.kinds[before+i]
		s.t.Logf("copilot %s: request %d %s: blocks %d card %d nudge %d", strings.Join(args, " "), i, kind,
			CountBlocks(q.Body), Count(q.Body, cardMarker), Count(q.Body, nudgeMarker))
		if kind == "main" {
			main = append(main, q)
		}
	}
	return main
}

// copilotTrust trusts the workspace's folder for future sessions, as
// Copilot's trust prompt does and its docs say to by hand: the folder in
// trustedFolders of ~/.copilot/config.json (docs.github.com copilot-cli
// set-up-copilot-cli/configure-copilot-cli, "Editing trusted
// directories").
func copilotTrust(t *testing.T, w *Workspace) {
	t.Helper()
	dir := filepath.Join(w.Home, ".copilot")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"trustedFolders": []string{w.Dir}})
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCopilotCLI runs GitHub Copilot CLI through the tier's scenario
// (docs/HOSTS.md, "Real hosts"): an untrusted folder, where the
// repository's hooks stay silent; then trusted, a start with a tool call
// whose answer reports 70% of the prompt window; `/compact` in a run of
// its own (Copilot has no event after a compaction); the next turn; a
// further one.
func TestCopilotCLI(t *testing.T) {
	requireTier(t)
	in := installHost(t, "copilot")
	w := NewWorkspace(t, in, "--host", "copilot")
	// The detached checkpoints of the last run may still be writing when
	// the temporary directory goes.
	t.Cleanup(func() { codexWaitJobs(w) })
	writePlan(w)
	w.MustRun("ctxgit", "decide", "pack large batches")
	script := newChatScript(copilotKind,
		chatTurn{Text: "Summary: the user asked to run echo hello; it printed hello.", Prompt: 900},
		// The untrusted run.
		chatTurn{Text: "hello", Prompt: 3000})
	fake := NewFakeAPI(t, script.respond)
	s := &copilotSession{t: t, w: w, in: in, fake: fake, script: script}

	// Untrusted, Copilot skips the repository's hooks, and doctor says
	// why.
	for i, q := range s.run("-p", "say hello") {
		if n := Count(q.Body, cardMarker); n != 0 {
			t.Errorf("untrusted run, request %d: the card %d times; the folder is not trusted", i, n)
		}
	}
	doctor := w.MustRun("ctxgit", "doctor")
	for _, want := range []string{"trusts no folder holding this workspace", "copilot: the hooks in .github/hooks/ctxgit.json have never run in this workspace"} {
		if !strings.Contains(doctor, want) {
			t.Errorf("doctor after an untrusted run lacks %q:\n%s", want, doctor)
		}
	}
	copilotTrust(t, w)

	// Start: the card once in each request (sessionStart's context heads
	// the process's requests), a tool call whose answer reports 44,800 of
	// the 64,000 prompt tokens Copilot allows gpt-4.1 (70%), and the nudge
	// with the tool's result.
	script.push(
		chatTurn{Tool: "bash", Args: map[string]any{"command": "echo hello", "description": "say hello"}, Prompt: 44_800},
		chatTurn{Text: "Done.", Prompt: 45_000})
	start := s.run("-p", "Run echo hello.")
	if len(start) != 2 {
		t.Fatalf("first run: %d main requests, want 2 (the prompt, the tool result)", len(start))
	}
	for i, q := range start {
		if n := Count(q.Body, cardMarker); n != 1 {
			t.Errorf("first run, request %d: the card %d times, want 1", i, n)
		}
		if n := CountBlocks(q.Body); n != 0 {
			t.Errorf("first run, request %d: %d ctxgit blocks, want 0", i, n)
		}
	}
	if n := Count(start[0].Body, nudgeMarker); n != 0 {
		t.Errorf("request 0 holds the nudge %d times, want 0", n)
	}
	if n := Count(start[1].Body, nudgeMarker); n != 1 {
		t.Errorf("the request after the tool call holds the nudge %d times, want 1", n)
	}

	// /compact: a run that fires preCompact alone and sends the summary
	// request; the compaction checkpoint is taken then.
	s.run("--continue", "-p", "/compact")
	compaction := codexCompactionCheckpoint(t, w)

	// The next turn: sessionStart "resume" carries the recovery, once.
	next := s.run("--continue", "-p", "What next?")
	if len(next) == 0 {
		t.Fatal("the turn after /compact made no main request")
	}
	oneRecovery(t, next[0].Body, compaction, "the first request after /compact")

	// A further prompt, a new process: the same recovery once, no card,
	// no nudge.
	for i, q := range s.run("--continue", "-p", "And then?") {
		oneRecovery(t, q.Body, compaction, "a further prompt, request "+string(rune('0'+i)))
		if n := Count(q.Body, nudgeMarker); n != 0 {
			t.Errorf("a further prompt, request %d: the nudge %d times, want 0", i, n)
		}
	}
	noHookFailures(t, w)
}
