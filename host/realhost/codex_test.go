package realhost_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// codexHome writes a private CODEX_HOME whose config.toml sends every
// model request to the fake, trusts the workspace as a project (Codex
// loads a project's .codex/ layer, hooks included, only then), and
// compacts automatically past autoCompact tokens.
func codexHome(t *testing.T, w *Workspace, url string, autoCompact int) []string {
	t.Helper()
	home := filepath.Join(w.Home, ".codex")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "ctxgit-fake"
model_provider = "fake"
model_context_window = 200000
model_auto_compact_token_limit = %d
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
apps = false

[feedback]
enabled = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"
`, autoCompact, url, w.Dir)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"CODEX_HOME=" + home, "RUST_LOG=warn"}
}

// codexWorkspace is NewWorkspace for Codex, waiting for its detached jobs
// at the end.
func codexWorkspace(t *testing.T, in hostInstall) *Workspace {
	t.Helper()
	w := NewWorkspace(t, in, "--host", "codex")
	// Runs before the temporary directory goes: the detached checkpoints
	// of the last SessionEnd may still be writing.
	t.Cleanup(func() { codexWaitJobs(w) })
	return w
}

// codexWaitJobs waits, bounded, for the workspace's detached hook jobs
// (.ctxgit/local/jobs/) to finish.
func codexWaitJobs(w *Workspace) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		entries, err := os.ReadDir(filepath.Join(w.Dir, ".ctxgit", "local", "jobs"))
		if err != nil || len(entries) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// codexExec runs `codex exec` headless with hook trust bypassed the
// documented way (--dangerously-bypass-hook-trust: runtime-only, nothing
// persisted; openai/codex#21768); args follow exec.
func codexExec(t *testing.T, w *Workspace, in hostInstall, env []string, args ...string) Result {
	t.Helper()
	all := append([]string{"exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check"}, args...)
	r := w.Run(2*time.Minute, env, in.Bin, all...)
	if r.Err != nil {
		t.Fatalf("codex %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(all, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r
}

// codexScript answers Codex's model requests in order from turns (then
// "ok"), and its compaction requests with a summary; it records which
// requests were which.
type codexScript struct {
	turns   []codexTurn
	next    int
	compact map[int]bool
}

func (s *codexScript) respond(n int, r Request, w http.ResponseWriter) {
	if r.Method != http.MethodPost || !strings.HasSuffix(strings.SplitN(r.Path, "?", 2)[0], "/responses") && !isCompactRequest(r) {
		http.NotFound(w, nil)
		return
	}
	if isCompactRequest(r) {
		s.compact[n] = true
		writeCodexSSE(w, codexTurn{Text: "Summary: echoed hello; next, continue.", Usage: codexUsage{Input: 2000, Output: 40}})
		return
	}
	turn := codexTurn{Text: "ok", Usage: codexUsage{Input: 3000, Output: 10}}
	if s.next < len(s.turns) {
		turn = s.turns[s.next]
	}
	s.next++
	writeCodexSSE(w, turn)
}

// TestCodex runs Codex CLI through start, a tool call, usage past the
// nudge threshold, its automatic compaction, the next turn and a resume
// (docs/HOSTS.md, "Real hosts"). Codex has no headless manual compaction:
// /compact is a TUI command, and `codex exec "/compact"` sends the text to
// the model.
func TestCodex(t *testing.T) {
	requireTier(t)
	in := installHost(t, "codex")
	w := codexWorkspace(t, in)
	w.MustRun("ctxgit", "decide", "pack large batches")
	script := &codexScript{compact: map[int]bool{}, turns: []codexTurn{
		// The untrusted run.
		{Text: "hello", Usage: codexUsage{Input: 3000, Output: 10}},
		// 160,050 of the 190,000 Codex reports as the window (95% of
		// model_context_window): past the 75% nudge threshold. The
		// command's output shows the model the thread id Codex exports.
		{Command: `echo "thread=$CODEX_THREAD_ID"`, Usage: codexUsage{Input: 160000, Output: 50}},
		// Past model_auto_compact_token_limit: the next turn compacts first.
		{Text: "done", Usage: codexUsage{Input: 185000, Output: 50}},
	}}
	fake := NewFakeAPI(t, script.respond)
	env := codexHome(t, w, fake.URL, 180000)

	// Untrusted, the hooks are silent (developers.openai.com/codex/hooks),
	// and doctor says why.
	r := w.Run(2*time.Minute, env, in.Bin, "exec", "--skip-git-repo-check", "say hello")
	if r.Err != nil {
		t.Fatalf("codex exec: %v\n%s", r.Err, r.Stderr)
	}
	if reqs := fake.Requests(); len(reqs) != 1 || Count(reqs[0].Body, cardMarker) != 0 {
		t.Fatalf("untrusted run: %d requests; the card reached the model though the hooks await trust", len(reqs))
	}
	doctor := w.MustRun("ctxgit", "doctor")
	for _, want := range []string{"5 of 5 ctxgit hooks await your trust in Codex", "codex: the hooks in .codex/hooks.json have never run in this workspace"} {
		if !strings.Contains(doctor, want) {
			t.Errorf("doctor after an untrusted run lacks %q:\n%s", want, doctor)
		}
	}

	r = codexExec(t, w, in, env, "run echo hello")
	session := codexSessionID(t, r.Stderr)
	reqs := fake.Requests()[1:]
	if len(reqs) != 2 {
		t.Fatalf("first run: %d model requests, want 2 (the prompt, the tool result)", len(reqs))
	}
	// The card in the session's first request, the nudge in the request
	// after the tool call whose response crossed the threshold.
	if n := Count(reqs[0].Body, cardMarker); n != 1 {
		t.Errorf("request 0 holds the card %d times, want 1", n)
	}
	if n := Count(reqs[0].Body, nudgeMarker); n != 0 {
		t.Errorf("request 0 holds the nudge %d times, want 0", n)
	}
	if n := Count(reqs[1].Body, nudgeMarker); n != 1 {
		t.Errorf("request 1 (after the tool call) holds the nudge %d times, want 1", n)
	}
	// One window for the session from its first tool call on: the turn's
	// task_started reports Codex's 190,000 before any token_count does, so
	// the first reading is 160,000 of 190,000, as every later one is, not
	// of an assumed 200,000 (issue 34).
	if n := Count(reqs[1].Body, "Context is 84% full"); n != 1 {
		t.Errorf("request 1: the nudge does not read 84%% (160,000 of Codex's 190,000)")
	}
	if !strings.Contains(string(reqs[1].Body), "thread="+session) {
		t.Errorf("the shell Codex spawned had no CODEX_THREAD_ID %s, the hooks' session", session)
	}
	for i, r := range reqs {
		if n := CountBlocks(r.Body); n != 0 {
			t.Errorf("request %d of a new session holds %d ctxgit blocks, want 0", i, n)
		}
	}

	// The resumed thread is past the limit: Codex compacts before the turn
	// (PreCompact, a summary request, SessionStart "compact").
	codexExec(t, w, in, env, "resume", "--last", "what next?")
	reqs = fake.Requests()
	after := -1
	for i := 3; i < len(reqs); i++ {
		if script.compact[i] {
			after = i + 1
		}
	}
	if after < 0 || after >= len(reqs) {
		t.Fatalf("second run: no compaction request followed by a turn among %d requests", len(reqs))
	}
	compaction := codexCompactionCheckpoint(t, w)
	first := reqs[after].Body
	if n := CountBlocks(first); n != 1 {
		t.Errorf("the first request after the compaction holds %d ctxgit blocks, want 1", n)
	}
	if n := Count(first, "# Post-Compaction Recovery"); n != 1 {
		t.Errorf("the first request after the compaction holds %d recovery blocks, want 1", n)
	}
	if ids := blockCheckpoints(first); len(ids) != 1 || ids[0] != compaction {
		t.Errorf("the recovery is built from %q, want the compaction checkpoint %s exactly", ids, compaction)
	}
	if !strings.Contains(string(first), "pack large batches") {
		t.Errorf("the recovery lacks the decision recorded before the compaction")
	}
	blocksAfterCompaction := CountBlocks(reqs[len(reqs)-1].Body)

	// A resume with nothing changed adds no block.
	codexExec(t, w, in, env, "resume", "--last", "and then?")
	reqs = fake.Requests()
	last := reqs[len(reqs)-1].Body
	if n := CountBlocks(last); n != blocksAfterCompaction {
		t.Errorf("the resumed turn holds %d ctxgit blocks, want the %d already there", n, blocksAfterCompaction)
	}
	// The card once per session: never injected again, not even after
	// the compaction dropped it.
	for i := after; i < len(reqs); i++ {
		if n := Count(reqs[i].Body, cardMarker); n != 0 {
			t.Errorf("request %d holds the card %d times; the session had it", i, n)
		}
	}
	// SessionEnd ran at each exit; its checkpoint runs detached, so it may
	// land a moment after Codex exits.
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(w.MustRun("ctxgit", "log", "--session", session), "session-end") {
		if time.Now().After(deadline) {
			t.Fatalf("no session-end checkpoint in %s:\n%s", session, w.MustRun("ctxgit", "log", "--session", session))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if data, err := os.ReadFile(filepath.Join(w.Dir, ".ctxgit", "local", "ctxgit.log")); err == nil {
		t.Errorf("hook failures logged:\n%s", data)
	}
}

// codexSessionID reads the "session id: …" line codex exec prints.
func codexSessionID(t *testing.T, stderr string) string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "session id: "); ok {
			return id
		}
	}
	t.Fatalf("codex exec printed no session id:\n%s", stderr)
	return ""
}

// codexCompactionCheckpoint is the id of the workspace's newest
// compaction checkpoint.
func codexCompactionCheckpoint(t *testing.T, w *Workspace) string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(w.MustRun("ctxgit", "log"), "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[3] == "compaction" {
			ids = append(ids, f[0])
		}
	}
	if len(ids) == 0 {
		t.Fatal("ctxgit log shows no compaction checkpoint")
	}
	return ids[0]
}
