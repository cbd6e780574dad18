package realhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// opencodeKind tells opencode's requests apart by their first system
// message: the compaction's summarization agent's, the main loop's (the
// build agent's), and the title generator's. ctxgit's standing context is
// a system message of its own after the first.
func opencodeKind(r Request) string {
	if msgs := chatMessages(r.Body); len(msgs) > 0 && strings.HasPrefix(msgs[0].Text, "You are a context summarization agent") {
		return "summary"
	}
	return chatKind("You are opencode", "")(r)
}

// opencodeSetup writes opencode's user config: the fake as an
// OpenAI-compatible provider (opencode.ai/docs/providers, "Custom
// provider") with a 20,000-token window, and no sharing or updates.
// opencode installs the provider's npm package at its first start: the
// npm and opencode caches are kept beside the install, shared by runs.
func opencodeSetup(t *testing.T, w *Workspace, in hostInstall, url string) []string {
	t.Helper()
	writeHomeJSON(t, w, ".config/opencode/opencode.json", map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"model":      "fake/fake-model",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-fake"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake", "limit": map[string]any{"context": 20000, "output": 4000}}},
		}},
	})
	cache := filepath.Join(filepath.Dir(in.Bin), "..", "..", "..", "opencode-cache")
	// opencode takes its project directory from PWD, not from the
	// process's working directory: the test's own would be it.
	return []string{"PWD=" + w.Dir, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"XDG_CACHE_HOME=" + filepath.Join(cache, "xdg"), "npm_config_cache=" + filepath.Join(cache, "npm")}
}

// TestOpenCode runs opencode through the tier's scenario (docs/HOSTS.md,
// "Real hosts") with only the plugin `ctxgit init --host opencode` wrote:
// a start whose tool calls' answers climb to 70% of the window and past
// the point where opencode compacts on its own, the next turn after the
// compaction, and a further run in the same session. Once with CI unset
// and once with CI=true (ciModes).
func TestOpenCode(t *testing.T) {
	requireTier(t)
	ciModes(t, testOpenCode)
}

func testOpenCode(t *testing.T, ci []string) {
	in := installHost(t, "opencode")
	w := NewWorkspace(t, in, "--host", "opencode")
	t.Cleanup(func() { codexWaitJobs(w) })
	writePlan(w)
	w.MustRun("ctxgit", "decide", "pack large batches")
	bash := func(n, prompt int) chatTurn {
		return chatTurn{Tool: "bash", Args: map[string]any{"command": fmt.Sprintf("echo step %d", n), "description": "say the step"}, Prompt: prompt}
	}
	script := newChatScript(opencodeKind,
		chatTurn{Text: "Summary: the user asked to echo the steps; four ran.", Prompt: 600},
		// opencode records a step's usage after its tool ran, so each
		// reading reaches the next tool call: 14,000 of 20,000 (70%) is
		// answered to the second call and read at the third.
		bash(1, 4000), bash(2, 14_000), bash(3, 14_500),
		// Past opencode's usable window (context less the output budget):
		// it compacts before the next request.
		bash(4, 19_500),
		chatTurn{Text: "Done.", Prompt: 3000})
	fake := NewFakeAPI(t, script.respond)
	s := &chatSession{t: t, w: w, bin: in.Bin, fake: fake, script: script, env: append(opencodeSetup(t, w, in, fake.URL), ci...),
		argv: func(args []string) []string { return append([]string{"run", "--auto", "--print-logs"}, args...) }}

	main, after := s.run("Run echo for each step.")
	if after < 4 || after >= len(main) {
		t.Fatalf("first run: %d main requests, the compaction's next at %d; want 4 before the compaction and one after", len(main), after)
	}
	for i, q := range main[:after] {
		if n := Count(q.Body, cardMarker); n != 1 {
			t.Errorf("request %d before the compaction: the card %d times, want 1", i, n)
		}
		if n := CountBlocks(q.Body); n != 0 {
			t.Errorf("request %d before the compaction: %d ctxgit blocks, want 0", i, n)
		}
		want := 0
		if i == after-1 {
			want = 1 // after the tool call that read 70%
		}
		if n := Count(q.Body, nudgeMarker); n != want {
			t.Errorf("request %d before the compaction: the nudge %d times, want %d", i, n, want)
		}
	}
	compaction := codexCompactionCheckpoint(t, w)
	oneRecovery(t, main[after].Body, compaction, "the first request after the compaction")
	for i, q := range main[after:] {
		if n := Count(q.Body, nudgeMarker); n != 0 {
			t.Errorf("request %d after the compaction: the nudge %d times, want 0 (the compaction ended its cycle)", after+i, n)
		}
	}

	// A further run in the session: a new process, whose requests hold the
	// same recovery once, and no card.
	further, _ := s.run("--continue", "And then?")
	if len(further) == 0 {
		t.Fatal("the further run made no main request")
	}
	for i, q := range further {
		oneRecovery(t, q.Body, compaction, fmt.Sprintf("the further run, request %d", i))
	}
	noHookFailures(t, w)
}

// TestOpenCodePluginFailsOpen loads ctxgit's plugin in Node (the tier's
// Node 26; opencode runs it in its own Bun) with a program that is
// missing, that fails, that prints what is not ctxgit's answer, and that
// never answers: every hook returns, within the plugin's time bound, and
// changes nothing. A program of ctxgit's name in a relative folder of
// PATH (one a repository could put there) is not run.
func TestOpenCodePluginFailsOpen(t *testing.T) {
	requireTier(t)
	in := installHost(t, "opencode")
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ran := filepath.Join(dir, "ran")
	programs := map[string]string{
		"missing":  filepath.Join(dir, "no-such-program"),
		"failing":  write("failing", "#!/bin/sh\necho '{\"additionalContext\":\"FAILED\"}'\nexit 1\n", 0o755),
		"garbage":  write("garbage", "#!/bin/sh\ncat >/dev/null\necho 'not json'\n", 0o755),
		"hanging":  write("hanging", "#!/bin/sh\nsleep 60\n", 0o755),
		"relative": "ctxgit",
	}
	// A ctxgit in the working directory, found only through a relative
	// PATH entry.
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("work/ctxgit", "#!/bin/sh\ntouch "+ran+"\necho '{\"additionalContext\":\"RAN\"}'\n", 0o755)
	plugin, err := os.ReadFile(filepath.Join(moduleRoot, "host", "config", "opencode", "ctxgit.js"))
	if err != nil {
		t.Fatal(err)
	}
	for name, prog := range programs {
		src := strings.Replace(string(plugin), "__CTXGIT_COMMAND__", fmt.Sprintf("%q", prog), 1)
		// The time bound, shortened for the test.
		src = strings.Replace(src, "const TIMEOUT_MS = 10000;", "const TIMEOUT_MS = 1500;", 1)
		mod := write(name+".mjs", src, 0o644)
		driver := write(name+"-driver.mjs", `import { CtxgitPlugin } from "`+mod+`";
const hooks = await CtxgitPlugin({ directory: "`+filepath.Join(dir, "work")+`", client: { session: { messages: async () => ({ data: [] }) } } });
const out = { system: ["You are opencode"] };
const start = Date.now();
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: { limit: { context: 20000 } } }, out);
await hooks.event({ event: { type: "message.updated", properties: { info: { id: "m1", role: "assistant", sessionID: "ses_1", tokens: { input: 14000, output: 1, cache: { read: 0, write: 0 } } } } } });
const tool = { output: "ok" };
await hooks["tool.execute.after"]({ sessionID: "ses_1", tool: "bash", callID: "c1" }, tool);
await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, { context: [] });
await hooks.event({ event: null });
await hooks["tool.execute.after"](null, null);
console.log(JSON.stringify({ system: out.system, output: tool.output, ms: Date.now() - start }));
`, 0o644)
		r := (&Workspace{Dir: filepath.Join(dir, "work"), t: t, Env: append(os.Environ(), "PATH=.:"+in.NodeDir+":/usr/bin:/bin")}).Run(time.Minute, nil, filepath.Join(in.NodeDir, "node"), driver)
		if r.Err != nil {
			t.Errorf("%s: the plugin did not return quietly: %v\n%s\n%s", name, r.Err, r.Stdout, r.Stderr)
			continue
		}
		var got struct {
			System []string `json:"system"`
			Output string   `json:"output"`
			Ms     int      `json:"ms"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &got); err != nil {
			t.Errorf("%s: %v\n%s", name, err, r.Stdout)
			continue
		}
		if len(got.System) != 1 || got.Output != "ok" {
			t.Errorf("%s: the hooks changed the request: system %q, tool output %q", name, got.System, got.Output)
		}
		// Three calls spawn the program; each is bounded by the timeout.
		if got.Ms > 3*2500 {
			t.Errorf("%s: the hooks took %d ms, past three calls' bound", name, got.Ms)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the plugin ran a ctxgit found through a relative PATH entry")
	}
}
