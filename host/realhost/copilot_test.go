package realhost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copilotKind tells GitHub Copilot CLI's requests apart: its compaction
// summary (the last message asks for "a detailed summary of the
// conversation so far"), and its main loop (the system prompt is
// Copilot's own).
var copilotKind = chatKind("You are the GitHub Copilot CLI", "Please create a detailed summary of the conversation so far.")

// TestCopilotCLI runs GitHub Copilot CLI through the tier's scenario
// (docs/HOSTS.md, "Real hosts"): an untrusted folder, where the
// repository's hooks stay silent; then trusted, a start with a tool call
// whose answer reports 70% of the prompt window; `/compact` in a run of
// its own (Copilot has no event after a compaction); the next turn; a
// further one. Once with CI unset and once with CI=true (ciModes).
func TestCopilotCLI(t *testing.T) {
	requireTier(t)
	ciModes(t, testCopilotCLI)
}

func testCopilotCLI(t *testing.T, ci []string) {
	in := installHost(t, "copilot")
	w := NewWorkspace(t, in, "--host", "copilot")
	// The detached checkpoints of the last run may still be writing when
	// the temporary directory goes.
	t.Cleanup(func() { codexWaitJobs(w) })
	t.Cleanup(func() { logCopilotRecord(t, w) })
	writePlan(w)
	w.MustRun("ctxgit", "decide", "pack large batches")
	script := newChatScript(copilotKind,
		chatTurn{Text: "Summary: the user asked to run echo hello; it printed hello.", Prompt: 900},
		// The untrusted run.
		chatTurn{Text: "hello", Prompt: 3000})
	fake := NewFakeAPI(t, script.respond)
	// The npm package's binary unpacks the CLI into a package cache on
	// first run (235 MB): one shared cache beside the install, not one per
	// test's home.
	pkg := filepath.Join(filepath.Dir(in.Bin), "..", "..", "..", "copilot-pkg")
	s := &chatSession{t: t, w: w, bin: in.Bin, fake: fake, script: script,
		env: append([]string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + fake.URL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=sk-fake", "COPILOT_MODEL=gpt-4.1", "COPILOT_PKG_CACHE_HOME=" + pkg, "COPILOT_AUTO_UPDATE=false"}, ci...),
		argv: func(args []string) []string { return append(args, "--allow-all-tools") }}

	// Untrusted, Copilot skips the repository's hooks, and doctor says
	// why.
	s.untrusted([]string{"-p", "say hello"}, "trusts no folder holding this workspace",
		"copilot: the hooks in .github/hooks/ctxgit.json have never run in this workspace")
	// Trusted for future sessions, as Copilot's trust prompt records it and
	// its docs say to by hand: the folder in trustedFolders of
	// ~/.copilot/config.json (docs.github.com copilot-cli
	// set-up-copilot-cli/configure-copilot-cli, "Editing trusted
	// directories").
	writeHomeJSON(t, w, ".copilot/config.json", map[string]any{"trustedFolders": []string{w.Dir}})

	// The start's answers: a tool call reporting 44,800 of the 64,000
	// prompt tokens Copilot allows gpt-4.1 (70%), then text.
	script.push(
		chatTurn{Tool: "bash", Args: map[string]any{"command": "echo hello", "description": "say hello"}, Prompt: 44_800},
		chatTurn{Text: "Done.", Prompt: 45_000})
	// sessionStart's context heads the process's requests, so the card is
	// in both of the first run's. /compact is a run that fires preCompact
	// alone; the next run's sessionStart "resume" carries the recovery.
	s.scenario([]string{"-p", "Run echo hello."}, []string{"--continue", "-p", "/compact"},
		[]string{"--continue", "-p", "What next?"}, []string{"--continue", "-p", "And then?"})
}

// logCopilotRecord logs, when the test failed, what Copilot recorded of
// its sessions that tells when each hook ran (the usage records, the
// tool calls, the hooks with their output), ctxgit's hook state and the
// end of Copilot's process logs.
func logCopilotRecord(t *testing.T, w *Workspace) {
	if !t.Failed() {
		return
	}
	files, _ := filepath.Glob(filepath.Join(w.Home, ".copilot", "session-state", "*", "events.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var b strings.Builder
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"type":"session.usage_record"`) || strings.Contains(line, `"type":"hook.`) ||
				strings.Contains(line, `"type":"tool.execution_`) {
				b.WriteString(line[:min(len(line), 600)] + "\n")
			}
		}
		t.Logf("%s:\n%s", f, b.String())
	}
	for _, pat := range []string{filepath.Join(w.Dir, ".ctxgit", "local", "*", "*.json"), filepath.Join(w.Home, ".cache", "ctxgit", "*"), filepath.Join(w.Home, ".copilot", "logs", "*")} {
		more, _ := filepath.Glob(pat)
		for _, f := range more {
			if data, err := os.ReadFile(f); err == nil {
				t.Logf("%s:\n%s", f, data[max(0, len(data)-20000):])
			}
		}
	}
}
