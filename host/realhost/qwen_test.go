package realhost_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// qwenKind tells Qwen Code's requests apart: its compression summary (the
// last message asks for the <state_snapshot>), its main loop (the system
// prompt is Qwen Code's own), and side requests (the memory-extraction
// subagent, which runs after a turn with a system prompt of its own).
func qwenKind(r Request) string {
	msgs := chatMessages(r.Body)
	if len(msgs) == 0 {
		return "other"
	}
	if strings.Contains(msgs[len(msgs)-1].Text, "summarizes a conversation when its context window is about to overflow") {
		return "summary"
	}
	if msgs[0].Role == "system" && strings.HasPrefix(msgs[0].Text, "You are Qwen Code") {
		return "main"
	}
	return "other"
}

// qwenSession drives Qwen Code headless (`qwen -p`) in one workspace.
type qwenSession struct {
	t      *testing.T
	w      *Workspace
	in     hostInstall
	fake   *FakeAPI
	script *chatScript
}

// run runs `qwen ARGS... --yolo` and returns the main-loop requests it
// made, in order.
func (s *qwenSession) run(args ...string) []Request {
	s.t.Helper()
	before := len(s.fake.Requests())
	env := []string{"OPENAI_BASE_URL=" + s.fake.URL + "/v1", "OPENAI_API_KEY=sk-fake", "OPENAI_MODEL=fake-model",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
	r := s.w.Run(3*time.Minute, env, s.in.Bin, append(args, "--yolo")...)
	if r.Err != nil {
		s.t.Fatalf("qwen %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	var main []Request
	for i, q := range s.fake.Requests()[before:] {
		kind := s.script.kinds[before+i]
		s.t.Logf("qwen %s: request %d %s: blocks %d card %d nudge %d", strings.Join(args, " "), i, kind,
			CountBlocks(q.Body), Count(q.Body, cardMarker), Count(q.Body, nudgeMarker))
		if kind == "main" {
			main = append(main, q)
		}
	}
	return main
}

// qwenSettings writes Qwen Code's user settings: the OpenAI-compatible
// provider (its documented headless setup, docs/users/configuration/auth)
// and folder trust turned on, so the project's .qwen/settings.json counts
// only once the folder is trusted.
func qwenSettings(t *testing.T, w *Workspace) {
	t.Helper()
	dir := filepath.Join(w.Home, ".qwen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": true}}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// qwenTrust trusts the workspace's folder as Qwen Code's trust dialog
// does: a TRUST_FOLDER entry in ~/.qwen/trustedFolders.json
// (packages/cli/src/config/trustedFolders.ts).
func qwenTrust(t *testing.T, w *Workspace) {
	t.Helper()
	data, _ := json.Marshal(map[string]string{w.Dir: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(w.Home, ".qwen", "trustedFolders.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQwenCode runs Qwen Code through the tier's scenario (docs/HOSTS.md,
// "Real hosts"): an untrusted folder, where the project's hooks stay
// silent; then trusted, a start with a tool call whose answer reports 70%
// of the window; `/compress`; the next turn; and a further resume.
func TestQwenCode(t *testing.T) {
	requireTier(t)
	in := installHost(t, "qwen-code")
	w := NewWorkspace(t, in, "--host", "qwen-code")
	// The detached checkpoints of the last run may still be writing when
	// the temporary directory goes.
	t.Cleanup(func() { codexWaitJobs(w) })
	writePlan(w)
	w.MustRun("ctxgit", "decide", "pack large batches")
	qwenSettings(t, w)
	script := newChatScript(qwenKind,
		chatTurn{Text: "<state_snapshot>\n<overall_goal>pack the batches</overall_goal>\n</state_snapshot>", Prompt: 800},
		// The untrusted run.
		chatTurn{Text: "hello", Prompt: 3000})
	fake := NewFakeAPI(t, script.respond)
	s := &qwenSession{t: t, w: w, in: in, fake: fake, script: script}

	// Untrusted, the project's settings (its hooks) are not read.
	for i, q := range s.run("-p", "say hello") {
		if n := Count(q.Body, cardMarker); n != 0 {
			t.Errorf("untrusted run, request %d: the card %d times; the folder is not trusted", i, n)
		}
	}
	if doctor := w.MustRun("ctxgit", "doctor"); !strings.Contains(doctor, "qwen-code: the hooks in .qwen/settings.json have never run in this workspace") {
		t.Errorf("doctor after an untrusted run:\n%s", doctor)
	}
	qwenTrust(t, w)

	// Start: the card once in each request of the run, a tool call whose
	// answer reports 70% of the 200,000-token window Qwen gives an unknown
	// model, and the nudge with the tool's result.
	script.push(
		chatTurn{Tool: "run_shell_command", Args: map[string]any{"command": "echo hello", "description": "say hello"}, Prompt: 140_000},
		chatTurn{Text: "Done.", Prompt: 141_000})
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

	// /compress: PreCompact, the summary request, PostCompact and
	// SessionStart "compact", whose context no request of that run carries.
	s.run("-c", "-p", "/compress")
	compaction := codexCompactionCheckpoint(t, w)

	// The next turn: exactly one block, the compaction's recovery, once.
	next := s.run("-c", "-p", "What next?")
	if len(next) == 0 {
		t.Fatal("the turn after /compress made no main request")
	}
	oneRecovery(t, next[0].Body, compaction, "the first request after /compress")

	// A further prompt in the session: the recovery still once (the new
	// process's system prompt holds it again), no card, no nudge, no block
	// beside it.
	further := s.run("-c", "-p", "And then?")
	for i, q := range further {
		oneRecovery(t, q.Body, compaction, "a further prompt, request "+string(rune('0'+i)))
		if n := Count(q.Body, nudgeMarker); n != 0 {
			t.Errorf("a further prompt, request %d: the nudge %d times, want 0 (the compaction ended its cycle)", i, n)
		}
	}
	noHookFailures(t, w)
}
