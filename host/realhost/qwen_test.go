package realhost_test

import (
	"testing"
)

// qwenKind tells Qwen Code's requests apart: its compression summary (the
// last message asks for the <state_snapshot>), its main loop (the system
// prompt is Qwen Code's own), and side requests (the memory-extraction
// subagent, which runs after a turn with a system prompt of its own).
var qwenKind = chatKind("You are Qwen Code", "You are the component that summarizes a conversation when its context window is about to overflow")

// TestQwenCode runs Qwen Code through the tier's scenario (docs/HOSTS.md,
// "Real hosts"): an untrusted folder, where the project's hooks stay
// silent; then trusted, a start with a tool call whose answer reports 70%
// of the window; `/compress`; the next turn; and a further resume.
// Once with CI unset and once with CI=true (ciModes).
func TestQwenCode(t *testing.T) {
	requireTier(t)
	ciModes(t, testQwenCode)
}

func testQwenCode(t *testing.T, ci []string) {
	in := installHost(t, "qwen-code")
	w := NewWorkspace(t, in, "--host", "qwen-code")
	// The detached checkpoints of the last run may still be writing when
	// the temporary directory goes.
	t.Cleanup(func() { codexWaitJobs(w) })
	writePlan(w)
	w.MustRun("ctxgit", "decide", "pack large batches")
	// Qwen Code's user settings: the OpenAI-compatible provider (its
	// documented headless setup) and folder trust turned on, so the
	// project's .qwen/settings.json counts only once the folder is trusted.
	writeHomeJSON(t, w, ".qwen/settings.json", map[string]any{"security": map[string]any{
		"auth": map[string]any{"selectedType": "openai"}, "folderTrust": map[string]any{"enabled": true}}})
	script := newChatScript(qwenKind,
		chatTurn{Text: "<state_snapshot>\n<overall_goal>pack the batches</overall_goal>\n</state_snapshot>", Prompt: 800},
		// The untrusted run.
		chatTurn{Text: "hello", Prompt: 3000})
	fake := NewFakeAPI(t, script.respond)
	s := &chatSession{t: t, w: w, bin: in.Bin, fake: fake, script: script,
		env: append([]string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-fake", "OPENAI_MODEL=fake-model",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}, ci...),
		argv: func(args []string) []string { return append(args, "--yolo") }}

	// Untrusted, the project's settings (its hooks) are not read.
	s.untrusted([]string{"-p", "say hello"}, "qwen-code: the hooks in .qwen/settings.json have never run in this workspace")
	// Trusted as Qwen Code's trust dialog records it: TRUST_FOLDER in
	// ~/.qwen/trustedFolders.json (packages/cli/src/config/trustedFolders.ts).
	writeHomeJSON(t, w, ".qwen/trustedFolders.json", map[string]string{w.Dir: "TRUST_FOLDER"})

	// The start's answers: a tool call reporting 70% of the 200,000-token
	// window Qwen gives a model it does not know, then text.
	script.push(
		chatTurn{Tool: "run_shell_command", Args: map[string]any{"command": "echo hello", "description": "say hello"}, Prompt: 140_000},
		chatTurn{Text: "Done.", Prompt: 141_000})
	// SessionStart's context is the process's system prompt, so the card
	// is in both of the first run's requests. /compress fires PreCompact,
	// PostCompact and SessionStart "compact", whose context no request of
	// that run carries; the next run's SessionStart "resume" does.
	s.scenario([]string{"-p", "Run echo hello."}, []string{"-c", "-p", "/compress"},
		[]string{"-c", "-p", "What next?"}, []string{"-c", "-p", "And then?"})
}
