package realhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Gemini CLI, run headless (`gemini -p`, `-r latest` to resume) against
// fakeGemini, with ctxgit's hooks from `ctxgit init --host gemini-cli`
// (docs/HOSTS.md, "Gemini CLI" and "Real hosts").

// geminiSession is a workspace with Gemini CLI set up to run headless.
type geminiSession struct {
	w   *Workspace
	f   *fakeGemini
	bin string
	env []string
	t   *testing.T
}

func newGeminiSession(t *testing.T) *geminiSession {
	t.Helper()
	in := installHost(t, "gemini-cli")
	w := NewWorkspace(t, in, "--host", "gemini-cli")
	f := newFakeGemini(t)
	// API-key auth chosen in the user's settings, so nothing asks; no
	// usage statistics, telemetry or update checks (geminicli.com/docs/
	// get-started/configuration).
	settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "privacy": {"usageStatisticsEnabled": false},
 "telemetry": {"enabled": false},
 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}}
`
	if err := os.MkdirAll(filepath.Join(w.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return &geminiSession{w: w, f: f, bin: in.Bin, t: t, env: []string{
		"GOOGLE_GEMINI_BASE_URL=" + f.URL,
		"GEMINI_API_KEY=fake-key",
		// The workspace is trusted, so its hooks run (packages/cli/src/
		// config/trustedFolders.ts).
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_TELEMETRY_ENABLED=false",
	}}
}

// run runs one headless prompt (args before -p), and returns the chat
// requests it sent.
func (g *geminiSession) run(prompt string, args ...string) []Request {
	g.t.Helper()
	before := len(g.f.geminiChatRequests())
	all := append([]string{"-m", "gemini-2.5-flash", "--approval-mode", "yolo"}, args...)
	all = append(all, "-p", prompt)
	start := time.Now()
	r := g.w.Run(3*time.Minute, g.env, g.bin, all...)
	if r.Err != nil {
		g.t.Fatalf("gemini %v: %v\nstdout:\n%s\nstderr:\n%s", all, r.Err, r.Stdout, r.Stderr)
	}
	reqs := g.f.geminiChatRequests()[before:]
	if dir := os.Getenv("CTXGIT_REALHOST_DUMP"); dir != "" {
		// For a person reading what reached the model.
		for i, r := range reqs {
			name := fmt.Sprintf("gemini-%03d.json", before+i)
			if err := os.WriteFile(filepath.Join(dir, name), r.Body, 0o644); err != nil {
				g.t.Fatal(err)
			}
		}
	}
	g.t.Logf("gemini -p %q %v: %d chat requests in %s", prompt, args, len(reqs), time.Since(start).Round(time.Second))
	return reqs
}

// compactions counts the compaction checkpoints `ctxgit log` lists.
func (g *geminiSession) compactions() int {
	return len(regexp.MustCompile(`(?m)^cp_\d+ .* compaction `).FindAllString(g.w.MustRun("ctxgit", "log"), -1))
}

const recoveryMarker = "# Post-Compaction Recovery"

// geminiLastTurn is the JSON of a Gemini request's last content: the turn
// being sent.
func geminiLastTurn(t *testing.T, body []byte) []byte {
	t.Helper()
	var req struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Contents) == 0 {
		t.Fatalf("a request with no contents: %v", err)
	}
	return req.Contents[len(req.Contents)-1]
}

func TestGeminiCLI(t *testing.T) {
	requireTier(t)
	g := newGeminiSession(t)
	f := g.f

	// Start, and over twenty requests (tool calls) with no compression:
	// the card reaches the model once, in the first request, and no
	// recovery text ever; no compaction checkpoint, though Gemini fires
	// PreCompress before every request.
	f.geminiCalls(21)
	reqs := g.run("Run the steps.")
	if len(reqs) < 21 {
		t.Fatalf("%d chat requests, want over 20", len(reqs))
	}
	for i, r := range reqs {
		if n := Count(r.Body, cardMarker); n != 1 {
			t.Errorf("request %d holds the card %d times, want once", i, n)
		}
		if n := CountBlocks(r.Body); n != 0 {
			t.Errorf("request %d holds %d ctxgit blocks with no compression", i, n)
		}
		if n := Count(r.Body, nudgeMarker); n != 0 {
			t.Errorf("request %d holds the nudge at 1,000 tokens", i)
		}
	}
	if n := g.compactions(); n != 0 {
		t.Fatalf("%d compaction checkpoints with no compression:\n%s", n, g.w.MustRun("ctxgit", "log"))
	}

	// Usage past the nudge threshold (400,000 of the 524,288 Gemini fills
	// before it compresses): the nudge reaches the model once, in the
	// request after the tool call that read it.
	f.geminiSetUsage(400_000)
	f.geminiCalls(3)
	reqs = g.run("Go on.", "-r", "latest")
	first := -1
	for i, r := range reqs {
		n := Count(r.Body, nudgeMarker)
		if n > 1 {
			t.Errorf("request %d holds the nudge %d times", i, n)
		}
		if n == 1 && first < 0 {
			first = i
		}
		if first >= 0 && n != 1 {
			t.Errorf("request %d lost the nudge request %d carried", i, first)
		}
	}
	if first != 1 {
		t.Errorf("the nudge first reached the model in request %d of the run, want 1 (after the first tool call)", first)
	}
	if n := g.compactions(); n != 0 {
		t.Fatalf("%d compaction checkpoints before any compression", n)
	}

	// Automatic compression: the first answer reports 600,000 tokens, past
	// half the window; Gemini compresses before the next request, the
	// answers after it report 40,000. The recovery reaches the model once,
	// from the compaction's checkpoint, in the request after the next tool
	// call, and it is the only ctxgit block there.
	f.geminiSetUsage(600_000)
	f.geminiAfterCompress(40_000)
	f.geminiCalls(3)
	reqs = g.run("Continue.", "-r", "latest")
	if f.geminiCompressions() == 0 {
		t.Fatal("Gemini did not compress at 600,000 prompt tokens")
	}
	if n := g.compactions(); n != 1 {
		t.Fatalf("%d compaction checkpoints after one compression:\n%s", n, g.w.MustRun("ctxgit", "log"))
	}
	compaction := regexp.MustCompile(`(?m)^(cp_\d+) .* compaction `).FindStringSubmatch(g.w.MustRun("ctxgit", "log"))[1]
	delivered := -1
	for i, r := range reqs {
		n := Count(r.Body, recoveryMarker)
		if n > 1 {
			t.Errorf("request %d holds the recovery %d times", i, n)
		}
		if n == 1 && delivered < 0 {
			delivered = i
			if b := CountBlocks(r.Body); b != 1 {
				t.Errorf("the request after the compression holds %d ctxgit blocks, want 1", b)
			}
			if ids := blockCheckpoints(r.Body); len(ids) != 1 || ids[0] != compaction {
				t.Errorf("the recovery is from %q, want the compaction's checkpoint %s exactly", ids, compaction)
			}
		}
	}
	if delivered < 0 {
		t.Fatalf("the recovery never reached the model after the compression (%d requests)", len(reqs))
	}

	// A resume with nothing changed adds no block: the new prompt (the
	// request's last turn, where SessionStart and BeforeAgent put their
	// text) holds none. (Gemini's resume repeats a tool result it replays,
	// the recovery with it: docs/HOSTS.md, "Gemini CLI".)
	f.geminiCalls(0)
	reqs = g.run("What next?", "-r", "latest")
	if len(reqs) == 0 {
		t.Fatal("no request on the resume")
	}
	if n := CountBlocks(geminiLastTurn(t, reqs[0].Body)); n != 0 {
		t.Errorf("the resume's prompt holds %d ctxgit blocks, want none", n)
	}
	if n := g.compactions(); n != 1 {
		t.Errorf("%d compaction checkpoints after a resume, want still 1", n)
	}

	t.Log(g.w.MustRun("ctxgit", "log"))
}

// TestGeminiCLICompress: Gemini CLI with the hooks and the MCP server both
// installed. The session's first request holds the card once (the
// hooks') and the server's instructions without it. Then headless
// `gemini -r latest -p "/compress"`, whose turn calls a tool: Gemini
// compresses the chat while "/compress" goes to the model as a prompt; one
// compaction checkpoint. Then two `gemini -r latest -p` turns, each
// calling a tool: every request of both holds exactly one recovery block,
// the compaction checkpoint's (docs/HOSTS.md, "Gemini CLI": it goes out
// after the next prompt, once the recording shows the compression, where
// neither the compressed chat nor a resume's rebuilt history loses or
// repeats it).
func TestGeminiCLICompress(t *testing.T) {
	requireTier(t)
	g := newGeminiSession(t)
	g.w.MustRun("ctxgit", "init", "--host", "gemini-cli", "--mcp")
	f := g.f
	f.geminiCalls(2)
	reqs := g.run("Run the steps.")
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	if n := Count(reqs[0].Body, cardMarker); n != 1 {
		t.Errorf("first request: the card %d times, want 1 (hooks and MCP both installed)", n)
	}
	if n := Count(reqs[0].Body, mcpToolsMarker); n != 1 {
		t.Errorf("first request: the MCP server's instructions %d times, want 1 (is the server loaded?)", n)
	}

	f.geminiSetUsage(50_000)
	f.geminiAfterCompress(20_000)
	f.geminiCalls(1)
	g.run("/compress", "-r", "latest")
	if f.geminiCompressions() == 0 {
		t.Fatal("gemini -r latest -p /compress: Gemini asked for no summary: no compression")
	}
	if n := g.compactions(); n != 1 {
		t.Fatalf("/compress: %d compaction checkpoints, want 1:\n%s", n, g.w.MustRun("ctxgit", "log"))
	}
	manual := regexp.MustCompile(`(?m)^(cp_\d+) .* compaction `).FindStringSubmatch(g.w.MustRun("ctxgit", "log"))[1]
	for i, prompt := range []string{"And now?", "Then?"} {
		f.geminiCalls(1)
		reqs := g.run(prompt, "-r", "latest")
		if len(reqs) < 2 {
			t.Fatalf("turn %d after /compress: %d requests, want the prompt and the tool result", i+1, len(reqs))
		}
		for j, r := range reqs {
			if n, b := Count(r.Body, recoveryMarker), CountBlocks(r.Body); n != 1 || b != 1 {
				t.Errorf("turn %d after /compress, request %d: %d recovery blocks, %d ctxgit blocks; want exactly 1", i+1, j, n, b)
			}
			if ids := blockCheckpoints(r.Body); len(ids) != 1 || ids[0] != manual {
				t.Errorf("turn %d after /compress, request %d: the block is from %q, want the compaction checkpoint %s", i+1, j, ids, manual)
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(g.w.Dir, ".ctxgit", "local", "ctxgit.log")); err == nil && len(data) > 0 {
		t.Errorf("hook failures logged:\n%s", data)
	}
}
