package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// geminiChat is a Gemini CLI chat recording being written, as
// chatRecordingService.ts writes it.
type geminiChat struct {
	t    *testing.T
	path string
	n    int
}

func newGeminiChat(t *testing.T) *geminiChat {
	g := &geminiChat{t: t, path: filepath.Join(t.TempDir(), "session-2026-11-22T10-00-gem1.jsonl")}
	g.add(`{"sessionId":"gem-1","projectHash":"h","startTime":"2026-11-22T10:00:00Z","lastUpdated":"2026-11-22T10:00:00Z","kind":"main"}`)
	return g
}

func (g *geminiChat) add(line string) {
	g.t.Helper()
	f, err := os.OpenFile(g.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		g.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		g.t.Fatal(err)
	}
}

// turn records a prompt and the model's answer with its prompt tokens.
func (g *geminiChat) turn(prompt string, tokens int64) {
	g.n++
	g.add(fmt.Sprintf(`{"id":"u%d","timestamp":"2026-11-22T10:00:00Z","type":"user","content":[{"text":%q}]}`, g.n, prompt))
	g.add(fmt.Sprintf(`{"id":"g%d","timestamp":"2026-11-22T10:00:00Z","type":"gemini","content":"ok","tokens":{"input":%d,"output":10,"cached":0,"thoughts":0,"tool":0,"total":%d},"model":"gemini-2.5-flash"}`, g.n, tokens, tokens+10))
	g.add(`{"$set":{"lastUpdated":"2026-11-22T10:00:01Z"}}`)
}

// compressed records what a compression leaves: the conversation replaced
// by the summary and the turns kept.
func (g *geminiChat) compressed() {
	g.add(`{"$set":{"messages":[{"id":"s1","timestamp":"2026-11-22T10:00:00Z","type":"user","content":[{"text":"<state_snapshot>summary</state_snapshot>"}]},{"id":"s2","timestamp":"2026-11-22T10:00:00Z","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]}]}}`)
}

// payload is an event's JSON for the session, with the recording.
func (g *geminiChat) payload(event, extra string) string {
	return fmt.Sprintf(`{"session_id":"gem-1","transcript_path":%q,"cwd":".","hook_event_name":%q%s}`, g.path, event, extra)
}

func geminiWorkspace(t *testing.T) (string, *workspace.Workspace) {
	t.Helper()
	dir := initialised(t)
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := workspace.Open(env(dir, nil), dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, w
}

func compactions(t *testing.T, w *workspace.Workspace) int {
	t.Helper()
	entries, err := w.Log("gem-1", 0)
	if err != nil && !strings.Contains(err.Error(), "no checkpoint") {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Trigger == spec.TriggerCompaction {
			n++
		}
	}
	return n
}

// localFiles lists the files under .ctxgit/local, to tell what an event
// wrote; the one-time mark that an event ever ran (for doctor) is not
// counted.
func localFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	filepath.Walk(filepath.Join(dir, ".ctxgit", "local"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Base(filepath.Dir(p)) != "hooks-ran" {
			files[p] = true
		}
		return nil
	})
	return files
}

// docs/HOSTS.md, "Gemini CLI": Gemini fires PreCompress before every model
// request; with no compression, a PreCompress writes nothing, and over
// twenty requests nothing is recovered and no compaction checkpoint taken.
func TestGeminiPreCompressIsNotACompression(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	for i := range 21 {
		// The real order: PreCompress, the request, its answer recorded,
		// the tool run, AfterTool.
		before := localFiles(t, dir)
		if out := run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"auto"`)); out != "" {
			t.Fatalf("request %d: pre-compress printed %q", i, out)
		}
		if after := localFiles(t, dir); len(after) != len(before) {
			t.Fatalf("request %d: pre-compress wrote %v (before %v)", i, after, before)
		}
		g.turn("RUN: go test", int64(10_000+i*10_000)) // up to 210k, under half the window
		if out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", `,"tool_name":"run_shell_command"`)); out != "" {
			t.Fatalf("request %d: after-tool printed %q", i, out)
		}
	}
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`)); out != "" {
		t.Fatalf("before-agent printed %q", out)
	}
	if n := compactions(t, w); n != 0 {
		t.Fatalf("%d compaction checkpoints with no compression", n)
	}
	for _, p := range []string{pendingPath(dir, "gem-1"), compressPath(dir, "gem-1")} {
		if exists(p) {
			t.Fatalf("%s left with no compression", p)
		}
	}
}

// docs/HOSTS.md, "Gemini CLI": a reading past the compression point marks
// it due; the next PreCompress makes it a candidate; the first AfterTool
// after the recording shows the prompt tokens fell takes the compaction
// checkpoint (with the usage before it) and carries the recovery, once.
func TestGeminiAutoCompression(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("RUN: go test", 600_000)
	// Past 65% of the compression point: the nudge goes out with the tool
	// result, and the compression is due.
	out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", ""))
	if !strings.Contains(out, "Context is 114% full") {
		t.Fatalf("after-tool at 600k tokens: %q", out)
	}
	if !exists(compressPath(dir, "gem-1")) {
		t.Fatal("no due marker at 600k tokens")
	}
	if n := compactions(t, w); n != 0 {
		t.Fatalf("%d compaction checkpoints before the compression", n)
	}
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"auto"`))
	if n := compactions(t, w); n != 0 || exists(pendingPath(dir, "gem-1")) {
		t.Fatalf("pre-compress armed the recovery (%d compaction checkpoints)", n)
	}
	// Gemini compressed, sent the request, recorded the answer.
	g.compressed()
	g.turn("RUN: go vet", 40_000)
	out = run(t, dir, "gemini", "after-tool", g.payload("AfterTool", ""))
	if strings.Count(out, "# Post-Compaction Recovery") != 1 || !strings.Contains(out, `"hookEventName":"AfterTool"`) {
		t.Fatalf("after-tool after the compression: %q", out)
	}
	entries, err := w.Log("gem-1", 0)
	if err != nil || entries[0].Trigger != spec.TriggerCompaction {
		t.Fatalf("newest checkpoint: %+v, %v", entries, err)
	}
	r, err := w.Resolve("", "gem-1")
	if err != nil {
		t.Fatal(err)
	}
	if u := r.Checkpoint.Meta.TokenUsage; u.InputTokens != 600_000 || u.ContextWindow != 524_288 {
		t.Fatalf("compaction checkpoint usage %+v, want the 600k before it over 524,288", u)
	}
	if n := compactions(t, w); n != 1 {
		t.Fatalf("%d compaction checkpoints, want 1", n)
	}
	for _, ev := range []string{"after-tool", "before-agent"} {
		if out := run(t, dir, "gemini", ev, g.payload("X", "")); strings.Contains(out, "Recovery") {
			t.Fatalf("%s delivered the recovery again: %q", ev, out)
		}
	}
}

// docs/HOSTS.md, "Gemini CLI": a candidate the recording does not confirm
// (Gemini found nothing to compress, or failed) is dropped: no checkpoint,
// no recovery; a later reading marks the compression due again.
func TestGeminiCandidateNotConfirmed(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("RUN: go test", 600_000)
	run(t, dir, "gemini", "after-tool", g.payload("AfterTool", ""))
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"auto"`))
	g.turn("RUN: go vet", 610_000)
	if out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", "")); strings.Contains(out, "Recovery") {
		t.Fatalf("recovery with no compression: %q", out)
	}
	if n := compactions(t, w); n != 0 {
		t.Fatalf("%d compaction checkpoints with no compression", n)
	}
	var m compressMarker
	if ok, _ := readJSON(dir, compressPath(dir, "gem-1"), &m); !ok || m.Candidate || m.Tokens != 610_000 {
		t.Fatalf("marker after an unconfirmed candidate: %+v (present %v)", m, ok)
	}
}

// docs/HOSTS.md, "Gemini CLI": trigger manual (/compress) is a compression:
// the checkpoint at once. Its recovery waits until the chat recording
// shows the compressed chat, then for a BeforeAgent whose prompt a resume
// keeps: not the /compress run's own prompt, which the compressed chat
// drops, and never an AfterTool, whose tool result a resume repeats.
func TestGeminiManualCompression(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("hello", 5_000)
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"manual"`))
	if n := compactions(t, w); n != 1 || exists(pendingPath(dir, "gem-1")) {
		t.Fatalf("manual pre-compress: %d compaction checkpoints, pending %v; want 1, none", n, exists(pendingPath(dir, "gem-1")))
	}
	var m compressMarker
	if ok, _ := readJSON(dir, compressPath(dir, "gem-1"), &m); !ok || !m.Manual || m.Offset == 0 {
		t.Fatalf("manual pre-compress: marker %+v (present %v)", m, ok)
	}
	// The /compress run's own prompt, the compression still under way: nothing.
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"/compress"`)); out != "" {
		t.Fatalf("before-agent of /compress: %q", out)
	}
	// An automatic PreCompress leaves the marker as it is.
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"auto"`))
	if ok, _ := readJSON(dir, compressPath(dir, "gem-1"), &m); !ok || !m.Manual || m.Candidate {
		t.Fatalf("after an automatic pre-compress: marker %+v", m)
	}
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`)); out != "" {
		t.Fatalf("before-agent before the recording shows the compression: %q", out)
	}
	g.compressed()
	g.turn("RUN: ls", 20_000)
	if out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", "")); strings.Contains(out, "Recovery") {
		t.Fatalf("after-tool carried the /compress recovery: %q", out)
	}
	for _, prompt := range []string{"/compress", "?", "<hook_context>x</hook_context>\n\nnext", "  "} {
		if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":`+strconv.Quote(prompt))); out != "" {
			t.Fatalf("before-agent with %q, a prompt a resume drops: %q", prompt, out)
		}
	}
	out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`))
	if strings.Count(out, "# Post-Compaction Recovery") != 1 || !strings.Contains(out, `"hookEventName":"BeforeAgent"`) {
		t.Fatalf("before-agent after /compress: %q", out)
	}
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`)); out != "" {
		t.Fatalf("before-agent after the delivery: %q", out)
	}
	if out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", "")); out != "" {
		t.Fatalf("after-tool after the delivery: %q", out)
	}
	if n := compactions(t, w); n != 1 {
		t.Fatalf("%d compaction checkpoints, want 1", n)
	}
}

// docs/HOSTS.md, "Gemini CLI": a run that ended on the compression's
// answer is recovered at the next run's SessionStart, from the recording
// the candidate saw (a resumed SessionStart names a fresh one), in place
// of the Resumed block, and nothing else follows.
func TestGeminiCompressionRecoveredOnResume(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("RUN: go test", 600_000)
	run(t, dir, "gemini", "after-tool", g.payload("AfterTool", ""))
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"auto"`))
	g.compressed()
	g.turn("done?", 40_000)
	fresh := filepath.Join(t.TempDir(), "session-2026-11-22T10-05-gem1.jsonl")
	os.WriteFile(fresh, []byte(`{"sessionId":"gem-1","projectHash":"h","startTime":"2026-11-22T10:05:00Z","lastUpdated":"2026-11-22T10:05:00Z","kind":"main"}`+"\n"), 0o644)
	start := fmt.Sprintf(`{"session_id":"gem-1","transcript_path":%q,"cwd":".","hook_event_name":"SessionStart","source":"resume"}`, fresh)
	out := run(t, dir, "gemini", "session-start", start)
	if strings.Count(out, "# Post-Compaction Recovery") != 1 || strings.Contains(out, "# Resumed") {
		t.Fatalf("session-start after the compression: %q", out)
	}
	if n := compactions(t, w); n != 1 {
		t.Fatalf("%d compaction checkpoints, want 1", n)
	}
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`)); out != "" {
		t.Fatalf("before-agent after the recovery: %q", out)
	}
}

// docs/HOSTS.md, "Gemini CLI": the gauge measures against the compression
// point (half of 1,048,576), so the nudge comes at 65% of it, before the
// compression; a turn that ended on text is read at the next BeforeAgent.
func TestGeminiGaugeWindow(t *testing.T) {
	for _, tc := range []struct {
		tokens int64
		nudge  bool
	}{{300_000, false}, {345_000, true}} {
		dir, _ := geminiWorkspace(t)
		g := newGeminiChat(t)
		g.turn("RUN: go test", tc.tokens)
		out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", ""))
		if got := strings.Contains(out, "compaction will soon drop older turns"); got != tc.nudge {
			t.Fatalf("%d tokens: nudge %v, want %v (%q)", tc.tokens, got, tc.nudge, out)
		}
		w, _ := workspace.Open(env(dir, nil), dir)
		p, ok := taskstate.RecordedReading(w, "gem-1")
		if !ok || p.Window != 524_288 || p.Tokens != tc.tokens {
			t.Fatalf("%d tokens: reading %+v (present %v), want window 524,288", tc.tokens, p, ok)
		}
	}
	dir, _ := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("a long answer", 560_000)
	run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`))
	if !exists(compressPath(dir, "gem-1")) {
		t.Fatal("before-agent did not read the usage a text answer left")
	}
}

// docs/HOSTS.md, "Gemini CLI": a /compress the run ended on is recovered
// in the next run's first prompt (BeforeAgent), once; its SessionStart
// says nothing, since text before the prompt makes a resume leave the
// prompt out. A /compress whose run ended before the recording showed the
// compression has none to recover: the next start drops it.
func TestGeminiManualCompressionRecoveredOnResume(t *testing.T) {
	dir, _ := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("hello", 5_000)
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"manual"`))
	g.compressed()
	if out := run(t, dir, "gemini", "session-start", g.payload("SessionStart", `,"source":"resume"`)); out != "" {
		t.Fatalf("session-start after /compress: %q", out)
	}
	out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"And now?"`))
	if strings.Count(out, "# Post-Compaction Recovery") != 1 || strings.Contains(out, "# Resumed") {
		t.Fatalf("before-agent after /compress: %q", out)
	}
	if out := run(t, dir, "gemini", "session-start", g.payload("SessionStart", `,"source":"resume"`)); strings.Contains(out, "Recovery") {
		t.Fatalf("the next session-start: %q", out)
	}
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"Then?"`)); out != "" {
		t.Fatalf("the next before-agent: %q", out)
	}

	dir, w := geminiWorkspace(t)
	g = newGeminiChat(t)
	g.turn("hello", 5_000)
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"manual"`))
	g.turn("the run ends before the compression is recorded", 5_100)
	run(t, dir, "gemini", "session-start", g.payload("SessionStart", `,"source":"resume"`))
	if exists(compressPath(dir, "gem-1")) {
		t.Fatal("session-start kept a /compress its run never recorded")
	}
	if out := run(t, dir, "gemini", "before-agent", g.payload("BeforeAgent", `,"prompt":"next"`)); strings.Contains(out, "Recovery") {
		t.Fatalf("a recovery with no compression: %q", out)
	}
	if n := compactions(t, w); n != 1 {
		t.Fatalf("%d compaction checkpoints, want the /compress one", n)
	}
}

// A damaged compression marker is no compression: PreCompress and AfterTool
// answer nothing and fail nothing, and AfterTool drops it.
func TestGeminiDamagedCompressMarker(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("RUN: go test", 20_000)
	if err := os.MkdirAll(filepath.Dir(compressPath(dir, "gem-1")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(compressPath(dir, "gem-1"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"pre-compress", "after-tool"} {
		if out := run(t, dir, "gemini", ev, g.payload("X", `,"trigger":"auto"`)); out != "" {
			t.Fatalf("%s with a damaged marker printed %q", ev, out)
		}
	}
	if exists(compressPath(dir, "gem-1")) {
		t.Fatal("after-tool kept a damaged marker")
	}
	if n := compactions(t, w); n != 0 {
		t.Fatalf("%d compaction checkpoints from a damaged marker", n)
	}
}
