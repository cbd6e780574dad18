package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// Issue 22: every command the agent is told (the onboarding card, the
// flush nudge, the recovery block's footer) works exactly as written in a
// workspace set up by `ctxgit init --host HOST` and nothing else, and
// what it saves is in the block the host's hooks deliver after the next
// compaction. The commands are read from the hooks' own answers, so a
// change of wording is tested as the agent would read it.
func TestTaughtCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, h := range taughtHosts {
		if err := os.WriteFile(filepath.Join(dir, h.name+".txtar"), []byte(h.script()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testscript.Run(t, scriptParams(dir))
}

// taughtHost is how one host's hooks start a session, answer a tool call
// and deliver a compaction, with the payloads its docs show (the same as
// the hooks_*_cycle scripts).
type taughtHost struct {
	name, session string
	hook          string   // the name `ctxgit hook` takes, when not name
	start         []string // stdin file and event of the session start
	tool          []string // the after-tool event; none: the host gets no nudge
	compact       [][]string
	files         map[string]string
}

func (h taughtHost) script() string {
	var b strings.Builder
	hookName := h.name
	if h.hook != "" {
		hookName = h.hook
	}
	hook := func(ev []string) {
		fmt.Fprintf(&b, "stdin ../%s\nctxgit hook %s %s\n", ev[0], hookName, ev[1])
	}
	compact := func() {
		for _, ev := range h.compact {
			hook(ev)
		}
		b.WriteString("stdout '# Post-Compaction Recovery'\nshown\n")
	}
	b.WriteString("gitinit repo\ncd repo\nctxgit init --host " + h.name + "\n! exists .active-plan.md\n")
	b.WriteString("\n# The card, on the session's first start.\n")
	hook(h.start)
	b.WriteString("taught card\n")
	compact()
	b.WriteString("\n# The block's footer.\ntaught footer\n")
	if h.tool != nil {
		b.WriteString("\n# The flush nudge, on the first tool call past the threshold.\n")
		fmt.Fprintf(&b, "mkdir .ctxgit/local/nudge\ncp ../marker.json .ctxgit/local/nudge/%s.json\n", h.session)
		hook(h.tool)
		b.WriteString("taught nudge\n")
		compact()
	}
	b.WriteString("\n! exists .ctxgit/local/ctxgit.log\n")
	b.WriteString("-- marker.json --\n{\"timestamp\":\"2026-11-22T10:00:00Z\",\"used_pct\":70,\"flushed\":false}\n")
	for name, content := range h.files {
		fmt.Fprintf(&b, "-- %s --\n%s\n", name, content)
	}
	return b.String()
}

var taughtHosts = []taughtHost{
	{name: "claude-code", session: "sess-1",
		start:   []string{"start.json", "session-start"},
		tool:    []string{"tool.json", "post-tool-use"},
		compact: [][]string{{"precompact.json", "pre-compact"}, {"start-compact.json", "session-start"}},
		files: map[string]string{
			"start.json":         `{"session_id":"sess-1","transcript_path":"../transcript.jsonl","cwd":".","hook_event_name":"SessionStart","source":"startup"}`,
			"tool.json":          `{"session_id":"sess-1","transcript_path":"../transcript.jsonl","cwd":".","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok"},"tool_use_id":"toolu_9"}`,
			"precompact.json":    `{"session_id":"sess-1","transcript_path":"../transcript.jsonl","cwd":".","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`,
			"start-compact.json": `{"session_id":"sess-1","transcript_path":"../transcript.jsonl","cwd":".","hook_event_name":"SessionStart","source":"compact"}`,
			"transcript.jsonl":   `{"type":"user","sessionId":"sess-1","uuid":"u1","message":{"role":"user","content":"ship the ledger migration"}}`,
		}},
	{name: "codex", session: "019a-codex-1",
		start:   []string{"start.json", "session-start"},
		tool:    []string{"tool.json", "post-tool-use"},
		compact: [][]string{{"precompact.json", "pre-compact"}, {"start-compact.json", "session-start"}},
		files: map[string]string{
			"start.json":         `{"session_id":"019a-codex-1","transcript_path":"../rollout.jsonl","cwd":".","hook_event_name":"SessionStart","model":"gpt-5-codex","source":"startup"}`,
			"tool.json":          `{"session_id":"019a-codex-1","turn_id":"t2","transcript_path":"../rollout.jsonl","cwd":".","hook_event_name":"PostToolUse","model":"gpt-5-codex","tool_name":"Bash","tool_input":{"command":"go vet ./..."},"tool_response":"ok","tool_use_id":"call_2"}`,
			"precompact.json":    `{"session_id":"019a-codex-1","turn_id":"t3","transcript_path":"../rollout.jsonl","cwd":".","hook_event_name":"PreCompact","model":"gpt-5-codex","trigger":"auto"}`,
			"start-compact.json": `{"session_id":"019a-codex-1","transcript_path":"../rollout.jsonl","cwd":".","hook_event_name":"SessionStart","model":"gpt-5-codex","source":"compact"}`,
			"rollout.jsonl":      `{"timestamp":"2026-11-22T09:59:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"pack the batches","kind":"plain"}}`,
		}},
	{name: "cursor", session: "conv-7",
		start:   []string{"start.json", "session-start"},
		tool:    []string{"tool.json", "post-tool-use"},
		compact: [][]string{{"precompact.json", "pre-compact"}, {"tool.json", "post-tool-use"}},
		files: map[string]string{
			"start.json":      `{"conversation_id":"conv-7","generation_id":"gen-1","hook_event_name":"sessionStart","workspace_roots":["."],"session_id":"conv-7"}`,
			"tool.json":       `{"conversation_id":"conv-7","generation_id":"gen-2","hook_event_name":"postToolUse","workspace_roots":["."],"tool_name":"Shell","tool_input":{"command":"go test ./..."},"tool_output":"ok","cwd":"."}`,
			"precompact.json": `{"conversation_id":"conv-7","generation_id":"gen-3","hook_event_name":"preCompact","workspace_roots":["."],"trigger":"auto","context_usage_percent":81,"context_tokens":162000,"context_window_size":200000}`,
		}},
	{name: "gemini-cli", hook: "gemini", session: "gem-1",
		start: []string{"start.json", "session-start"},
		tool:  []string{"tool.json", "after-tool"},
		// A real compression: /compress (trigger manual); an automatic
		// PreCompress is only a candidate. Its recovery goes out after the
		// next prompt (docs/HOSTS.md, "Gemini CLI").
		compact: [][]string{{"precompress.json", "pre-compress"}, {"prompt.json", "before-agent"}},
		files: map[string]string{
			"prompt.json":      `{"session_id":"gem-1","cwd":".","hook_event_name":"BeforeAgent","timestamp":"2026-11-22T10:00:00Z","prompt":"go on"}`,
			"start.json":       `{"session_id":"gem-1","cwd":".","hook_event_name":"SessionStart","timestamp":"2026-11-22T10:00:00Z","source":"startup"}`,
			"tool.json":        `{"session_id":"gem-1","cwd":".","hook_event_name":"AfterTool","timestamp":"2026-11-22T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"go test ./..."},"tool_response":{"llmContent":"ok","returnDisplay":"ok"}}`,
			"precompress.json": `{"session_id":"gem-1","cwd":".","hook_event_name":"PreCompress","timestamp":"2026-11-22T10:00:00Z","trigger":"manual"}`,
		}},
	{name: "openclaw", session: "agent-main",
		start:   []string{"bootstrap.json", "bootstrap"},
		compact: [][]string{{"compact-before.json", "compact-before"}, {"compact-after.json", "compact-after"}, {"bootstrap.json", "bootstrap"}},
		files: map[string]string{
			"bootstrap.json":      `{"type":"agent","action":"bootstrap","sessionKey":"agent-main","context":{"bootstrapFiles":["AGENTS.md"]}}`,
			"compact-before.json": `{"type":"session","action":"compact:before","sessionKey":"agent-main","context":{"sessionId":"5f0c7a8e","messageCount":120,"tokenCount":150000}}`,
			"compact-after.json":  `{"type":"session","action":"compact:after","sessionKey":"agent-main","context":{"sessionId":"5f0c7a8e","compactedCount":90}}`,
		}},
}

// taughtCommandRE finds a command in text an agent reads: in backticks
// (the card, the footer) or in parentheses (the nudge).
var taughtCommandRE = regexp.MustCompile("`(ctxgit [^`]+)`|\\((ctxgit [^)]+)\\)")

// The part of a hook's answer each source is.
var taughtParts = map[string]*regexp.Regexp{
	"card":   regexp.MustCompile(`(?s)# ctxgit keeps this workspace's working state.*?restored after a compaction\.`),
	"nudge":  regexp.MustCompile(`Context is \d+% full;[^\n]*`),
	"footer": regexp.MustCompile(`Full checkpoint: [^\n]*`),
}

// taught SOURCE runs every command the last hook answer's SOURCE part
// (card, nudge or footer) names, each as written: a placeholder "…"
// becomes plain text naming the command, N becomes 1. Each must exit 0;
// the texts filled in are remembered for shown.
func cmdTaught(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || taughtParts[args[0]] == nil {
		ts.Fatalf("usage: taught card|nudge|footer")
	}
	source := args[0]
	text := taughtPart(ts, source)
	cmds := taughtCommandRE.FindAllStringSubmatch(text, -1)
	if len(cmds) == 0 {
		ts.Fatalf("taught %s: no command in %q", source, text)
	}
	pending := ts.Getenv("TAUGHT_PENDING")
	gone := ts.Getenv("TAUGHT_GONE")
	lastFailure := ""
	for i, m := range cmds {
		cmd := m[1] + m[2]
		n := 0
		filled := regexp.MustCompile(`"…"`).ReplaceAllStringFunc(cmd, func(string) string {
			n++
			phrase := fmt.Sprintf("%s says %d.%d", source, i+1, n)
			pending += phrase + "\n"
			if strings.HasPrefix(cmd, "ctxgit fail ") {
				lastFailure = phrase
			}
			return `"` + phrase + `"`
		})
		if cmd == "ctxgit fail --resolved" && lastFailure != "" {
			// Resolving the failure just logged takes it out of the
			// block: shown checks that it is gone, not there.
			pending = strings.Replace(pending, lastFailure+"\n", "", 1)
			gone += lastFailure + "\n"
		}
		filled = regexp.MustCompile(`\bN\b`).ReplaceAllString(filled, "1")
		argv := splitQuoted(ts, filled)
		ts.Logf("taught %s: %s", source, filled)
		if err := ts.Exec(argv[0], argv[1:]...); err != nil {
			ts.Fatalf("taught %s: `%s` as written: %v\n%s", source, cmd, err, ts.ReadFile("stderr"))
		}
	}
	ts.Setenv("TAUGHT_PENDING", pending)
	ts.Setenv("TAUGHT_GONE", gone)
}

// shown fails unless every text taught filled in since the last shown is
// in the last hook answer: what the commands saved reached the block; and
// a failure the taught commands resolved is not.
func cmdShown(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: shown")
	}
	block := hookText(ts)
	for _, phrase := range strings.Split(strings.TrimSpace(ts.Getenv("TAUGHT_PENDING")), "\n") {
		if phrase != "" && !strings.Contains(block, phrase) {
			ts.Fatalf("shown: %q is not in the block after the compaction:\n%s", phrase, block)
		}
	}
	for _, phrase := range strings.Split(strings.TrimSpace(ts.Getenv("TAUGHT_GONE")), "\n") {
		if phrase != "" && strings.Contains(block, phrase) {
			ts.Fatalf("shown: %q was resolved as taught, but the block after the compaction still shows it:\n%s", phrase, block)
		}
	}
	ts.Setenv("TAUGHT_PENDING", "")
	ts.Setenv("TAUGHT_GONE", "")
}

// taughtPart is the SOURCE part of the last hook answer.
func taughtPart(ts *testscript.TestScript, source string) string {
	text := taughtParts[source].FindString(hookText(ts))
	if text == "" {
		ts.Fatalf("taught %s: not in the hook's answer:\n%s", source, ts.ReadFile("stdout"))
	}
	return text
}

// hookText is the last command's stdout as the agent reads it: the text
// of a JSON answer's strings, or the plain text (OpenClaw).
func hookText(ts *testscript.TestScript) string {
	out := ts.ReadFile("stdout")
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		return out
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return b.String()
}

// splitQuoted splits a command line as a shell would split this simple
// kind: words, and double-quoted strings holding no quote.
func splitQuoted(ts *testscript.TestScript, s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]*)"|(\S+)`).FindAllStringSubmatch(s, -1) {
		if m[2] != "" {
			out = append(out, m[2])
		} else {
			out = append(out, m[1])
		}
	}
	if len(out) == 0 || out[0] != "ctxgit" {
		ts.Fatalf("not a ctxgit command: %q", s)
	}
	return out
}
