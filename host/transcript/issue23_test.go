package transcript

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// docs/HOSTS.md, "Transcripts", "Codex: the IDE wrapper": a prompt from the
// IDE extension keeps only the request; patches run through the shell are
// edits, a failed one is not; rg's exit 1 is no match; an empty failed
// output says so.
func TestCodexIDEPromptsPatchesAndExits(t *testing.T) {
	s, err := ReadFile(fixture(t, filepath.Join("testdata", "codex-ide.jsonl")), Codex, ReadOptions{Root: osPath("/home/dev/web")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Turns != 2 || s.Thread.LatestPrompt != "yes commit the work, push the pr and then create a new branch for the docs" {
		t.Errorf("Turns %d, LatestPrompt %q", s.Turns, s.Thread.LatestPrompt)
	}
	want := []spec.Exchange{
		ex("user", "Can you present the plan now?"),
		ex("assistant", "The plan: move the port to src/config.ts."),
		ex("user", "yes commit the work, push the pr and then create a new branch for the docs"),
	}
	if !reflect.DeepEqual(s.Thread.KeyExchanges, want) {
		t.Errorf("KeyExchanges = %q\nwant %q", s.Thread.KeyExchanges, want)
	}
	if got := []string{"src/app.ts", "src/config.ts"}; !reflect.DeepEqual(s.FilesModified, got) {
		t.Errorf("FilesModified = %q, want %q (the failed patch of src/missing.ts is no edit)", s.FilesModified, got)
	}
	wantF := []ToolFailure{
		{Tool: "shell", Summary: "Failed to find expected lines in src/missing.ts", Line: 9, Target: "apply_patch <<'PATCH'", ExitCode: ptr(1),
			Error: "Failed to find expected lines in src/missing.ts", Time: "2026-03-10T08:00:07Z"},
		{Tool: "exec_command", Summary: "exit 1, no output", Line: 13, Target: "npm test", ExitCode: ptr(1), Error: "no output", Time: "2026-03-10T08:00:11Z"},
	}
	if wantF = osFailures(wantF); !reflect.DeepEqual(s.ToolFailures, wantF) {
		t.Errorf("ToolFailures = %+v\nwant %+v", s.ToolFailures, wantF)
	}
}

func TestIDERequest(t *testing.T) {
	for in, want := range map[string]string{
		"# Context from my IDE setup:\n\n## Open tabs:\n- a.go: a.go\n\n## My request for Codex:\nfix it\n":                        "fix it",
		"# Context from my IDE setup:\n\n## Selection:\n## My request for Codex: quoted\n\n## My request for Codex:\nthe real one": "the real one",
		"# Files mentioned by the user:\n\n## My request for Codex:\n":                                                             "",
		"fix the ## My request for Codex: parser":                                                                                  "fix the ## My request for Codex: parser",
		"## My request for Codex:\nno wrapper heading":                                                                             "## My request for Codex:\nno wrapper heading",
		"# Title\n## My request for Codex:s\nnot the marker":                                                                       "# Title\n## My request for Codex:s\nnot the marker",
	} {
		if got := ideRequest(in); got != want {
			t.Errorf("ideRequest(%q) = %q, want %q", in, got, want)
		}
	}
}

// docs/HOSTS.md, "Transcripts", "Claude Code: slash commands": a custom
// command is the user's instruction as "/name args", /init too; /clear
// stays the host's; an isMeta expansion is no second prompt. A Write
// refused for permission is no edit; grep's exit 1 is no failure.
func TestClaudeSlashCommandsAndRefusedWrites(t *testing.T) {
	s, err := ReadFile(fixture(t, filepath.Join("testdata", "claude-code-commands.jsonl")), ClaudeCode, ReadOptions{Root: osPath("/home/dev/app")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Turns != 2 || s.HostMessages != 4 {
		t.Errorf("Turns, HostMessages = %d, %d; want 2 (/init, /orchestrator), 4 (/clear, its output, two expansions)", s.Turns, s.HostMessages)
	}
	if s.Thread.LatestPrompt != "/orchestrator split the billing service into two workers" || s.Thread.Summary != "/init ... /orchestrator split the billing service into two workers" {
		t.Errorf("Thread = %+v", s.Thread)
	}
	if want := []string{"CLAUDE.md", "billing/worker.go"}; !reflect.DeepEqual(s.FilesModified, want) {
		t.Errorf("FilesModified = %q, want %q (the refused Write of /etc/billing.conf is no edit)", s.FilesModified, want)
	}
	if len(s.ToolFailures) != 2 {
		t.Fatalf("ToolFailures = %+v; want the refused Write and go vet (grep's no match is none)", s.ToolFailures)
	}
	last := s.ToolFailures[1]
	want := ToolFailure{Tool: "Bash", Summary: "# example.com/app/billing billing/worker.go:12:2: undefined: splitQueue", Line: 16, Target: "go vet ./billing/...",
		ExitCode: ptr(1), Error: "billing/worker.go:12:2: undefined: splitQueue", Time: "2026-03-12T09:00:16Z"}
	if !reflect.DeepEqual(last, want) {
		t.Errorf("last failure = %+v\nwant %+v", last, want)
	}
}

func TestSlashCommand(t *testing.T) {
	for in, want := range map[string]string{
		"<command-name>/orchestrator</command-name>\n<command-args>go</command-args>":               "/orchestrator go",
		"<command-message>quack is running…</command-message>\n<command-name>/quack</command-name>": "/quack",
		"<command-name>/git:commit</command-name><command-args></command-args>":                     "/git:commit",
		"<command-name>/model</command-name><command-args>opus</command-args>":                      "",
		"<command-name>/Clear</command-name>":                                                       "",
		"<command-message>no name</command-message>":                                                "",
	} {
		got, ok := slashCommand(in)
		if got != want || ok != (want != "") {
			t.Errorf("slashCommand(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// docs/HOSTS.md, "Transcripts": a failure in Gemini CLI's one-document
// session is placed by a JSON pointer, not "line 1"; a write_file with
// status error is no edit.
func TestGeminiDocumentFailures(t *testing.T) {
	s, err := ReadFile(fixture(t, filepath.Join("testdata", "gemini-failures.json")), Gemini, ReadOptions{Root: osPath("/home/dev/svc")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"health.go"}; !reflect.DeepEqual(s.FilesModified, want) {
		t.Errorf("FilesModified = %q, want %q", s.FilesModified, want)
	}
	want := []ToolFailure{
		{Tool: "write_file", Summary: "Error writing to file: EACCES: permission denied, open '/home/dev/svc/readonly/gen.go'", At: "/messages/1/toolCalls/1",
			Target: "/home/dev/svc/readonly/gen.go", Error: "Error writing to file: EACCES: permission denied, open '/home/dev/svc/readonly/gen.go'", Time: "2026-03-14T10:00:07Z"},
		{Tool: "run_shell_command", Summary: "ok example.com/svc/store --- FAIL: TestHealth (0.00s) health_test.go:9: status 404, want 200 FAIL", At: "/messages/3/toolCalls/0",
			Target: "go test ./...", Error: "--- FAIL: TestHealth (0.00s)", Time: "2026-03-14T10:00:14Z"},
	}
	if want = osFailures(want); !reflect.DeepEqual(s.ToolFailures, want) {
		t.Errorf("ToolFailures = %+v\nwant %+v", s.ToolFailures, want)
	}
}

func TestIsSearch(t *testing.T) {
	for in, want := range map[string]bool{
		"rg -n foo":                  true,
		"cd x && grep -rn foo .":     true,
		"git grep -n foo":            true,
		"git -C sub grep foo":        true,
		"LC_ALL=C grep foo f":        true,
		"rg foo | head":              false,
		"go test ./...":              false,
		"git status":                 false,
		"grep foo f; go build ./...": false,
		"/usr/bin/grep -q x f":       true,
	} {
		if got := isSearch(in); got != want {
			t.Errorf("isSearch(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFailureLine(t *testing.T) {
	for in, want := range map[string]string{
		"ok  \tpkg/a\n--- FAIL: TestX (0.01s)\n":                "--- FAIL: TestX (0.01s)",
		"\n\n====\nsomething odd\n":                             "something odd",
		"<tool_use_error>File does not exist.</tool_use_error>": "File does not exist.",
		"":        "",
		"\n---\n": "",
	} {
		if got := failureLine(in); got != want {
			t.Errorf("failureLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// SPEC §8.3: each modified file carries the time of its newest
// successful write, so a checkpoint can keep only the edits since the
// previous one; a write with no result yet has no time.
func TestFilesModifiedAt(t *testing.T) {
	line := func(uuid, parent, ts, typ, content string) string {
		return `{"parentUuid":` + parent + `,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","type":"` + typ +
			`","uuid":"` + uuid + `","timestamp":"` + ts + `","message":{"role":"` + map[string]string{"user": "user", "assistant": "assistant"}[typ] + `","content":` + content + "}}\n"
	}
	edit := func(id, path string) string {
		return `[{"type":"tool_use","id":"` + id + `","name":"Edit","input":{"file_path":"` + path + `","old_string":"a","new_string":"b"}}]`
	}
	result := func(id string, isErr bool) string {
		e := "false"
		if isErr {
			e = "true"
		}
		return `[{"tool_use_id":"` + id + `","type":"tool_result","content":"done","is_error":` + e + `}]`
	}
	data := line("u1", "null", "2026-03-01T10:00:00.000Z", "user", `"edit things"`) +
		line("a1", `"u1"`, "2026-03-01T10:00:01.000Z", "assistant", edit("t1", "/w/a.go")) +
		line("r1", `"a1"`, "2026-03-01T10:00:02.250Z", "user", result("t1", false)) +
		line("a2", `"r1"`, "2026-03-01T10:00:03.000Z", "assistant", edit("t2", "/w/b.go")) +
		line("r2", `"a2"`, "2026-03-01T10:00:04.000Z", "user", result("t2", false)) +
		line("a3", `"r2"`, "2026-03-01T10:05:00.000Z", "assistant", edit("t3", "/w/a.go")) +
		line("r3", `"a3"`, "2026-03-01T10:05:01.500Z", "user", result("t3", false)) +
		line("a4", `"r3"`, "2026-03-01T10:06:00.000Z", "assistant", edit("t4", "/w/b.go")) +
		line("r4", `"a4"`, "2026-03-01T10:06:01.000Z", "user", result("t4", true)) +
		line("a5", `"r4"`, "2026-03-01T10:07:00.000Z", "assistant", edit("t5", "/w/c.go"))
	s, err := Read(strings.NewReader(osText(data)), ClaudeCode, ReadOptions{Root: osPath("/w")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "b.go", "c.go"}; !reflect.DeepEqual(s.FilesModified, want) {
		t.Fatalf("FilesModified = %q, want %q", s.FilesModified, want)
	}
	// a.go: its second write; b.go: its first (the second failed); c.go:
	// still waiting for its result.
	if want := []string{"2026-03-01T10:05:01.5Z", "2026-03-01T10:00:04Z", ""}; !reflect.DeepEqual(s.FilesModifiedAt, want) {
		t.Errorf("FilesModifiedAt = %q, want %q", s.FilesModifiedAt, want)
	}
}

// docs/HOSTS.md, "Transcripts": the message in which Codex sends a
// project's AGENTS.md ("# AGENTS.md instructions for DIR" and an
// <INSTRUCTIONS> block, as a real Codex 0.77 rollout writes it) is
// injected context, not a prompt, also in a rollout read from its items.
func TestCodexAgentsInstructionsAreNoPrompt(t *testing.T) {
	s, err := ReadFile(fixture(t, filepath.Join("testdata", "codex-agents-md.jsonl")), Codex, ReadOptions{Root: osPath("/home/dev/api")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Turns != 1 || s.Thread.LatestPrompt != "Add a /healthz endpoint to the server." {
		t.Errorf("Turns %d, LatestPrompt %q", s.Turns, s.Thread.LatestPrompt)
	}
	if want := []spec.Exchange{ex("user", "Add a /healthz endpoint to the server."), ex("assistant", "The test fails: the route is not registered yet.")}; !reflect.DeepEqual(s.Thread.KeyExchanges, want) {
		t.Errorf("KeyExchanges = %q\nwant %q", s.Thread.KeyExchanges, want)
	}
	for text, want := range map[string]bool{
		"# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>": true,
		"# AGENTS.md instructions for /p\n<INSTRUCTIONS>x</INSTRUCTIONS>\n":     true,
		"# AGENTS.md instructions for /p":                                       false,
		"# AGENTS.md instructions for /p\n\nplease fix the build":               false,
		"Read # AGENTS.md instructions for /p\n<x>y</x>":                        false,
	} {
		if got := agentsInstructions(strings.TrimSpace(text)); got != want {
			t.Errorf("agentsInstructions(%q) = %v, want %v", text, got, want)
		}
	}
}
