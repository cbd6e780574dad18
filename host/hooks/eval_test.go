package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

// evalCase is one transcript replayed through a compaction, and what the
// recovery block must then carry (docs/HOSTS.md, "Transcripts"): the
// user's latest instruction, the last failing tool call, the files the
// session edited; and what it must not: a pseudo-prompt (a wrapper, a
// command echo, an expansion), a refused or failed write, ctxgit's files.
type evalCase struct {
	fixture, host string
	// cwd is the session directory the fixture names; the replay puts the
	// workspace there.
	cwd         string
	compact     string // the event before a compaction
	deliver     string // the event that injects the pending recovery
	instruction string
	failure     string
	edited      []string
	absent      []string
}

var evalCases = []evalCase{
	{
		fixture: "codex-ide.jsonl", host: "codex", cwd: "/home/dev/web", compact: "pre-compact", deliver: "user-prompt-submit",
		instruction: "yes commit the work, push the pr and then create a new branch for the docs",
		failure:     "exec_command: npm test — exit 1, no output",
		edited:      []string{"src/app.ts", "src/config.ts"},
		absent:      []string{"Context from my IDE", "Open tabs", "My request for Codex", "Files mentioned", "codex-clipboard", "src/missing.ts", "rg -n"},
	},
	{
		fixture: "claude-code-commands.jsonl", host: "claude-code", cwd: "/home/dev/app", compact: "pre-compact", deliver: "user-prompt-submit",
		instruction: "/orchestrator split the billing service into two workers",
		failure:     "Bash: go vet ./billing/... — exit 1: billing/worker.go:12:2: undefined: splitQueue",
		edited:      []string{"CLAUDE.md", "billing/worker.go"},
		absent:      []string{"command-name", "command-message", "You are the orchestrator", "Please analyze this codebase", "/clear", "billing.conf", "LegacyQueue"},
	},
	{
		fixture: "gemini-failures.json", host: "gemini", cwd: "/home/dev/svc", compact: "pre-compress", deliver: "before-agent",
		instruction: "Run the tests.",
		failure:     "run_shell_command: go test ./... — --- FAIL: TestHealth (0.00s)",
		edited:      []string{"health.go"},
		absent:      []string{"readonly/gen.go", "line 1"},
	},
	{
		fixture: "codex-rollout.jsonl", host: "codex", cwd: "/home/dev/proj", compact: "pre-compact", deliver: "user-prompt-submit",
		instruction: "Make the cap configurable through Config.",
		failure:     "shell: go build ./... — exit 2: queue/config.go:9:2: undefined: BackoffCap",
		edited:      []string{"queue/retry.go", "queue/retry_test.go", "queue/wait_test.go", "queue/backoff.go"},
		absent:      []string{"environment_context", "user_instructions"},
	},
	{
		fixture: "claude-code-queued.jsonl", host: "claude-code", cwd: "/home/dev/app", compact: "pre-compact", deliver: "user-prompt-submit",
		instruction: "Also handle a UTF-8 BOM at the start of the file.",
		failure:     "Bash: go test ./importer/ — exit 1: --- FAIL: TestImportLarge (0.31s)",
		edited:      []string{"importer/bom.go"},
		absent:      []string{"task-notification", "command-name", "local-command", "Rewrite the importer in Rust", "importer/csv.go"},
	},
	{
		fixture: "codex-agents-md.jsonl", host: "codex", cwd: "/home/dev/api", compact: "pre-compact", deliver: "user-prompt-submit",
		instruction: "Add a /healthz endpoint to the server.",
		failure:     "shell: go test ./server/... — exit 1: --- FAIL: TestHealth (0.00s)",
		edited:      []string{"server/health.go"},
		absent:      []string{"AGENTS.md instructions", "INSTRUCTIONS", "environment_context"},
	},
	{
		fixture: "openclaw-session.jsonl", host: "openclaw", cwd: "/home/dev/site", compact: "compact-before", deliver: "bootstrap",
		instruction: "Gut. Mach dasselbe für die anderen Bilder.",
		failure:     "Could not find the exact text in",
		edited:      []string{"scripts/convert.sh"},
		absent:      []string{"- M src/index.html"},
	},
}

// TestRecoveryEval replays each fixture through the hooks of its host
// (the pre-compaction checkpoint, then the injection after it) and scores
// the block. Every check of a committed fixture must hold; the score is
// logged so a run on more sessions can be compared with it.
func TestRecoveryEval(t *testing.T) {
	passed, total := 0, 0
	for _, tc := range evalCases {
		t.Run(tc.fixture, func(t *testing.T) {
			block := replay(t, tc)
			check := func(ok bool, what string) {
				total++
				if ok {
					passed++
					return
				}
				t.Errorf("%s\nblock:\n%s", what, block)
			}
			check(strings.Contains(block, "The user's latest instruction:\n> "+tc.instruction+"\n"), "latest instruction "+tc.instruction)
			check(strings.Contains(block, "## Last failing tool call\n> ") && strings.Contains(block, tc.failure), "failing call "+tc.failure)
			for _, f := range tc.edited {
				check(strings.Contains(block, "\n- M "+f+"\n") || strings.Contains(block, "\n- A "+f+"\n"), "edited file "+f)
			}
			for _, a := range tc.absent {
				check(!strings.Contains(block, a), "absent "+a)
			}
			check(!strings.Contains(block, " .ctxgit/") && !strings.Contains(block, ".active-plan.md"), "no ctxgit file among the changed files")
		})
	}
	t.Logf("recovery eval: %d of %d checks (%.1f%%)", passed, total, 100*float64(passed)/float64(max(total, 1)))
}

// replay copies a fixture into a fresh workspace at its session directory
// and returns the recovery block the host gets after a compaction.
func replay(t *testing.T, tc evalCase) string {
	t.Helper()
	dir := initialised(t)
	data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", tc.fixture))
	if err != nil {
		t.Fatal(err)
	}
	// The session directory becomes the workspace, written as JSON
	// needs it where it stands (on Windows its backslashes escaped, twice
	// inside Codex's function-call arguments).
	var b strings.Builder
	text := string(data)
	for {
		i := strings.Index(text, tc.cwd)
		if i < 0 {
			break
		}
		b.WriteString(text[:i])
		b.WriteString(wstest.JSONEscapeAt(string(data), len(data)-len(text)+i, dir))
		text = text[i+len(tc.cwd):]
	}
	b.WriteString(text)
	data = []byte(b.String())
	tr := filepath.Join(t.TempDir(), tc.fixture)
	if err := os.WriteFile(tr, data, 0o644); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]string{"session_id": "eval", "transcript_path": tr, "cwd": dir, "prompt": "go on"})
	// A compaction that happened: Gemini's PreCompress is only a
	// candidate unless /compress asked for it.
	compact, _ := json.Marshal(map[string]string{"session_id": "eval", "transcript_path": tr, "cwd": dir, "trigger": "manual"})
	run(t, dir, tc.host, tc.compact, string(compact))
	out := run(t, dir, tc.host, tc.deliver, string(payload))
	if tc.host == "openclaw" {
		return out
	}
	return contextText(t, out)
}

// contextText is the text a hook's JSON output hands the model.
func contextText(t *testing.T, out string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("hook output is not JSON: %v\n%s", err, out)
	}
	var texts []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if strings.Contains(x, "# Post-Compaction Recovery") {
				texts = append(texts, x)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return strings.Join(texts, "\n")
}
