package realhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// agentShellCommand runs `ctxgit status` twice in a pseudo-terminal
// (script(1), so that only a variable can tell an agent's shell from a
// person's terminal), once in the shell as opencode gave it and once
// without CTXGIT_AGENT_SHELL, then prints the variable.
const agentShellCommand = `printf 'agent:\n'; script -qec 'ctxgit status' /dev/null; ` +
	`printf 'person:\n'; env -u CTXGIT_AGENT_SHELL script -qec 'ctxgit status' /dev/null; ` +
	`printf 'var=%s\n' "${CTXGIT_AGENT_SHELL-unset}"`

// TestOpenCodeAgentShell has the model run agentShellCommand through
// opencode's bash tool and reads the tool result the model gets back:
// ctxgit's plugin marks the agent's shell (shell.env), so `ctxgit status`
// in a pseudo-terminal there prints the token form, and the same command
// without the variable prints the words a person gets (docs/HOSTS.md,
// "opencode").
func TestOpenCodeAgentShell(t *testing.T) {
	requireTier(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatal("the test needs script(1) (util-linux) to give ctxgit a pseudo-terminal")
	}
	in := installHost(t, "opencode")
	w := NewWorkspace(t, in, "--host", "opencode")
	t.Cleanup(func() { codexWaitJobs(w) })
	script := newChatScript(opencodeKind, chatTurn{Text: "Summary.", Prompt: 600},
		chatTurn{Tool: "bash", Args: map[string]any{"command": agentShellCommand, "description": "check the status"}, Prompt: 3000},
		chatTurn{Text: "Done.", Prompt: 3100})
	fake := NewFakeAPI(t, script.respond)
	s := &chatSession{t: t, w: w, bin: in.Bin, fake: fake, script: script, env: opencodeSetup(t, w, in, fake.URL),
		argv: func(args []string) []string { return append([]string{"run", "--auto", "--print-logs"}, args...) }}
	main, _ := s.run("Check the status.")
	if len(main) < 2 {
		t.Fatalf("%d main requests, want 2 (the prompt, the tool result)", len(main))
	}
	var result string
	for _, m := range chatMessages(main[1].Body) {
		if m.Role == "tool" {
			result = strings.ReplaceAll(m.Text, "\r", "")
		}
	}
	agent, rest, ok1 := strings.Cut(result, "person:\n")
	person, variable, ok2 := strings.Cut(rest, "var=")
	if !strings.HasPrefix(agent, "agent:\n") || !ok1 || !ok2 {
		t.Fatalf("the tool result the model got is not the command's output:\n%s", result)
	}
	token := regexp.MustCompile(`(?m)^STATUS:[A-Z_]+$`)
	if !token.MatchString(agent) || strings.Contains(agent, "Runtime contract") {
		t.Errorf("ctxgit status in opencode's agent shell, in a pseudo-terminal: want the token form, got:\n%s", agent)
	}
	if token.MatchString(person) || !strings.Contains(person, "Runtime contract") {
		t.Errorf("ctxgit status in a pseudo-terminal without CTXGIT_AGENT_SHELL: want the words, got:\n%s", person)
	}
	if got := strings.TrimSpace(variable); got != "opencode" {
		t.Errorf("CTXGIT_AGENT_SHELL in the agent's shell is %q, want opencode", got)
	}
	noHookFailures(t, w)
}

// TestOpenCodePluginShellEnv loads ctxgit's plugin in Node and calls its
// shell.env hook as opencode 1.18.33 does: for an agent's command (with
// the call's sessionID and callID) it adds CTXGIT_AGENT_SHELL=opencode
// and keeps what is there; for a person's terminal (only a cwd) it adds
// nothing; and with inputs and outputs of any other shape, or an env it
// cannot write, it returns quietly (opencode does not catch a hook's
// rejection).
func TestOpenCodePluginShellEnv(t *testing.T) {
	requireTier(t)
	in := installHost(t, "opencode")
	dir := t.TempDir()
	plugin, err := os.ReadFile(filepath.Join(moduleRoot, "host", "config", "opencode", "ctxgit.js"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(plugin), "__CTXGIT_COMMAND__", fmt.Sprintf("%q", filepath.Join(dir, "no-such-program")), 1)
	mod := filepath.Join(dir, "plugin.mjs")
	driver := filepath.Join(dir, "driver.mjs")
	if err := os.WriteFile(mod, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(driver, []byte(`import { CtxgitPlugin } from "`+mod+`";
const hooks = await CtxgitPlugin({ directory: "`+dir+`", client: {} });
const shellEnv = hooks["shell.env"];
const agent = { env: { KEEP: "1" } };
await shellEnv({ cwd: "`+dir+`", sessionID: "ses_1", callID: "call_1" }, agent);
const terminal = { env: {} };
await shellEnv({ cwd: "`+dir+`" }, terminal);
const call = { cwd: "`+dir+`", sessionID: "ses_1", callID: "call_2" };
const odd = [[undefined, undefined], [null, null], [call, null], [call, {}], [call, { env: null }], [call, { env: "x" }],
  [call, { env: Object.freeze({}) }], [call, { get env() { throw new Error("boom"); } }],
  [{ sessionID: 1, callID: 2 }, { env: {} }], [{ get callID() { throw new Error("boom"); } }, { env: {} }]];
for (const [input, output] of odd) {
  await shellEnv(input, output);
}
console.log(JSON.stringify({ agent: agent.env, terminal: terminal.env, numbers: odd[8][1].env }));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := (&Workspace{Dir: dir, t: t, Env: append(os.Environ(), "PATH="+in.NodeDir+":/usr/bin:/bin")}).Run(time.Minute, nil, filepath.Join(in.NodeDir, "node"), driver)
	if r.Err != nil {
		t.Fatalf("the shell.env hook did not return quietly: %v\n%s\n%s", r.Err, r.Stdout, r.Stderr)
	}
	var got struct{ Agent, Terminal, Numbers map[string]string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if len(got.Agent) != 2 || got.Agent["CTXGIT_AGENT_SHELL"] != "opencode" || got.Agent["KEEP"] != "1" {
		t.Errorf("an agent's command: env %v, want KEEP=1 and CTXGIT_AGENT_SHELL=opencode", got.Agent)
	}
	if len(got.Terminal) != 0 {
		t.Errorf("a person's terminal: env %v, want nothing added", got.Terminal)
	}
	if len(got.Numbers) != 0 {
		t.Errorf("ids that are not strings: env %v, want nothing added", got.Numbers)
	}
}
