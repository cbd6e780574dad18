package hooks

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/workspace"
)

// The two tool-call paths agree: `ctxgit-hook HOST EVENT` (hookpath.Steady,
// which answers itself, else `ctxgit hook` with hookpath.ViaEnv set, as
// hookpath.Main runs it) and `ctxgit hook HOST EVENT` (Handle) leave the
// same output, the same error and the same files after every call of a
// session that goes through the steady state, the flush nudge, automatic
// checkpoints, a compaction and its recovery, for every host with a
// tool-call hook. Each path has a workspace of its own; both read the
// same transcript, written as the host writes it — including the race
// the real hosts showed: the tool call's hook runs before the assistant
// message's usage is in the transcript (on Claude Code it waits for it,
// briefly here, and counts the miss), and the reading is taken on the
// next call. The one file only ctxgit-hook's path leaves is
// hookpath.GaugeName, its copy of the thresholds.
func TestHookPathEquivalence(t *testing.T) {
	for _, host := range []string{"claude-code", "codex", "gemini", "cursor"} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			e := newEquiv(t, host)
			e.session()
			if e.answered < 10 || e.handed < 2 {
				t.Errorf("ctxgit-hook answered %d calls and handed %d over: the session does not exercise both paths", e.answered, e.handed)
			}
			t.Logf("%s: %d calls answered by ctxgit-hook, %d handed to ctxgit hook", host, e.answered, e.handed)
		})
	}
}

type equiv struct {
	t                *testing.T
	host             string
	direct, small    string // the workspaces of `ctxgit hook` and of ctxgit-hook
	transcript       string
	clock            time.Time
	calls, msg       int
	answered, handed int
	tokens           int64
	// model switches the host's model (Codex: its window; Gemini CLI: a
	// Gemma model's window): the gauge's window changes.
	model bool
}

func newEquiv(t *testing.T, host string) *equiv {
	e := &equiv{t: t, host: host, clock: now}
	var err error
	if e.direct, err = filepath.EvalSymlinks(initialised(t)); err != nil {
		t.Fatal(err)
	}
	if e.small, err = filepath.EvalSymlinks(initialised(t)); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{e.direct, e.small} {
		if err := os.WriteFile(filepath.Join(root, "plan.md"), []byte("# Plan\n\n1. [ ] the task\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if host != "cursor" {
		e.transcript = filepath.Join(t.TempDir(), "transcript.jsonl")
		if err := os.WriteFile(e.transcript, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// window is the context window the host's transcript reports, or the
// one ctxgit assumes, in tokens of the gauge.
func (e *equiv) window() int64 {
	switch e.host {
	case "codex":
		return 258_400
	case "gemini":
		return 1_048_576 / 2
	}
	return 200_000
}

// append writes lines to the transcript.
func (e *equiv) append(lines ...string) {
	f, err := os.OpenFile(e.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			e.t.Fatal(err)
		}
	}
}

// usageLine is an assistant message with the context at tokens, in the
// host's transcript format.
func (e *equiv) usageLine(tokens int64) string {
	e.msg++
	switch e.host {
	case "claude-code":
		return fmt.Sprintf(`{"type":"assistant","uuid":"u%d","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":50}}}`,
			e.msg, e.msg, e.msg, tokens/4, tokens-tokens/4)
	case "codex":
		window := 258400
		if e.model {
			window = 400000
		}
		return fmt.Sprintf(`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":50},"model_context_window":%d}}}`,
			tokens, tokens/2, window)
	case "gemini":
		model := "gemini-2.5-pro"
		if e.model {
			model = "gemma-4-31b-it"
		}
		return fmt.Sprintf(`{"id":"g%d","type":"gemini","content":"ok","model":%q,"tokens":{"input":%d,"cached":%d,"output":50}}`,
			e.msg, model, tokens, tokens/3)
	}
	return ""
}

// toolResultLine is the tool's result, which the host writes after
// PostToolUse has run.
func (e *equiv) toolResultLine() string {
	switch e.host {
	case "claude-code":
		return fmt.Sprintf(`{"type":"user","uuid":"r%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"done"}]}}`, e.msg, e.msg)
	case "codex":
		return fmt.Sprintf(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"done"}}`, e.msg)
	case "gemini":
		return fmt.Sprintf(`{"id":"u%d","type":"user","content":"next"}`, e.msg)
	}
	return ""
}

func (e *equiv) payload(root, event, extra string) string {
	switch e.host {
	case "cursor":
		return fmt.Sprintf(`{"conversation_id":"conv-1","cursor_version":"3.9.0","hook_event_name":%q,"workspace_roots":[%q]%s}`, event, root, extra)
	case "gemini":
		return fmt.Sprintf(`{"session_id":"sess-1","transcript_path":%q,"cwd":%q,"hook_event_name":%q%s}`, e.transcript, root, event, extra)
	}
	return fmt.Sprintf(`{"session_id":"sess-1","transcript_path":%q,"cwd":%q,"hook_event_name":%q,"tool_name":"Bash"%s}`, e.transcript, root, event, extra)
}

func (e *equiv) toolEvent() string {
	if e.host == "gemini" {
		return "after-tool"
	}
	return "post-tool-use"
}

// call runs event on both paths and compares what they leave.
func (e *equiv) call(event, extra string) string {
	e.t.Helper()
	e.calls++
	e.clock = e.clock.Add(7 * time.Second)
	clock := e.clock
	mkenv := func(dir string, vars map[string]string) Request {
		return Request{Host: e.host, Event: event, Input: []byte(e.payload(dir, event, extra)),
			Env: envAt(dir, clock, vars), CallWait: 20 * time.Millisecond}
	}
	var outDirect, outSmall bytes.Buffer
	req := mkenv(e.direct, nil)
	req.Out = &outDirect
	errDirect := Handle(req)

	req = mkenv(e.small, map[string]string{hookpath.ViaEnv: "1"})
	req.Out = &outSmall
	var errSmall error
	if hookpath.ToolEvent(e.host, event) && hookpath.Steady(e.host, event, req.Input, req.Env.Getenv, e.small, clock) {
		e.answered++
	} else {
		if hookpath.ToolEvent(e.host, event) {
			e.handed++
		}
		errSmall = Handle(req)
	}
	if (errDirect == nil) != (errSmall == nil) {
		e.t.Fatalf("call %d (%s): ctxgit hook: %v; ctxgit-hook: %v", e.calls, event, errDirect, errSmall)
	}
	a, b := outDirect.String(), strings.ReplaceAll(outSmall.String(), e.small, e.direct)
	if a != b {
		e.t.Fatalf("call %d (%s, %d tokens): output differs\nctxgit hook: %q\nctxgit-hook: %q", e.calls, event, e.tokens, a, b)
	}
	e.sameFiles(event)
	return a
}

func envAt(dir string, clock time.Time, vars map[string]string) workspace.Env {
	return workspace.Env{Now: func() time.Time { return clock }, Getenv: func(k string) string { return vars[k] }, Cwd: dir}
}

// sameFiles compares the two workspaces' files, byte for byte.
func (e *equiv) sameFiles(event string) {
	e.t.Helper()
	a, b := e.tree(e.direct), e.tree(e.small)
	for p, ca := range a {
		cb, ok := b[p]
		switch {
		case !ok:
			e.t.Fatalf("call %d (%s, %d tokens): %s left only by ctxgit hook", e.calls, event, e.tokens, p)
		case ca != strings.ReplaceAll(cb, e.small, e.direct):
			cb = strings.ReplaceAll(cb, e.small, e.direct)
			i := 0
			for i < len(ca) && i < len(cb) && ca[i] == cb[i] {
				i++
			}
			e.t.Fatalf("call %d (%s, %d tokens): %s differs at byte %d\nctxgit hook: %q\nctxgit-hook: %q", e.calls, event, e.tokens, p, i,
				ca[max(0, i-200):min(len(ca), i+200)], cb[max(0, i-200):min(len(cb), i+200)])
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			e.t.Fatalf("call %d (%s, %d tokens): %s left only by ctxgit-hook", e.calls, event, e.tokens, p)
		}
	}
}

// tree is a workspace's files by slash path, without ctxgit-hook's own.
func (e *equiv) tree(root string) map[string]string {
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == ".ctxgit/local/"+hookpath.GaugeName {
			return nil
		}
		if rel == ".ctxgit/local/statcache" || strings.HasPrefix(rel, ".ctxgit/local/transcripts/") {
			// Caches whose bytes differ between any two runs: the stat
			// cache holds each workspace's own inode numbers and change
			// times, the transcript's resume state a hashed line index
			// laid out in map order. Their presence is compared.
			files[rel] = "(cache)"
			return nil
		}
		data, err := os.ReadFile(path)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return files
}

// toolCall is one tool call as the host makes it: the assistant message
// with its usage, the tool-call hook (Gemini CLI's PreCompress first, as
// a model request comes before), the tool's result. raced writes the
// usage only after the hook has run, as Claude Code sometimes does.
func (e *equiv) toolCall(tokens int64, raced bool) string {
	e.tokens = tokens
	if e.host == "gemini" {
		e.call("pre-compress", `,"trigger":"auto"`)
	}
	if e.transcript == "" {
		return e.call(e.toolEvent(), `,"tool_name":"Shell"`)
	}
	line := e.usageLine(tokens)
	if !raced {
		e.append(line)
	}
	extra := ""
	if e.host == "claude-code" {
		// The call's id: the hook waits for its message (hookpath.AwaitedCall),
		// which a raced call's host writes only after the wait.
		extra = fmt.Sprintf(`,"tool_use_id":"t%d"`, e.msg)
	}
	out := e.call(e.toolEvent(), extra)
	if raced {
		e.append(line)
	}
	e.append(e.toolResultLine())
	return out
}

// session drives a session from 10% of the window to past every
// threshold, through a compaction, and on again.
func (e *equiv) session() {
	w := e.window()
	nudged := false
	// Per mille of the window: coarse steps, and fine ones (under the
	// percent a reading must move to be recorded) across pressure.flush
	// (0.65), pressure.auto_checkpoint (0.80) and again after
	// pressure.min_growth, and Gemini CLI's compression point (0.95).
	for _, pm := range []int64{100, 140, 180, 260, 340, 420, 500, 580, 620, 640, 645, 648, 650, 652, 655, 700, 760,
		790, 795, 798, 800, 802, 805, 830, 838, 840, 842, 845, 880, 920, 940, 945, 948, 950, 952, 955} {
		for i := range 2 {
			out := e.toolCall(w*pm/1000+int64(i)*37, i == 1)
			nudged = nudged || strings.Contains(out, "Context is ")
		}
	}
	if !nudged && e.host != "cursor" && e.host != "gemini" {
		e.t.Errorf("no nudge in the session")
	}
	// The compaction.
	switch e.host {
	case "claude-code", "codex":
		e.call("pre-compact", `,"trigger":"auto"`)
		e.call(e.toolEvent(), "") // the tail still holds the stale reading
		e.call("session-start", `,"source":"compact"`)
		e.append(e.compactionLine())
	case "cursor":
		e.call("pre-compact", `,"trigger":"auto","context_usage_percent":85`)
		if out := e.call(e.toolEvent(), ""); !strings.Contains(out, "additional_context") {
			e.t.Errorf("cursor: no recovery after the compaction: %q", out)
		}
	case "gemini":
		// Past the compression point, then compressed: the next tool
		// call confirms it and recovers.
		e.toolCall(w*97/100, false)
		e.call("pre-compress", `,"trigger":"auto"`)
		e.append(e.usageLine(w * 20 / 100))
		if out := e.call(e.toolEvent(), ""); !strings.Contains(out, "additionalContext") {
			e.t.Errorf("gemini: no recovery after the compression: %q", out)
		}
	}
	for pct := int64(20); pct <= 40; pct += 2 {
		for i := range 3 {
			e.toolCall(w*pct/100+int64(i)*11, i == 2)
		}
	}
	// Another model, another window, at the same reading's share of it
	// within a percent: the window is recorded.
	e.model = true
	for i := range 3 {
		switch e.host {
		case "codex":
			e.toolCall(400000*40/100+int64(i)*7, false)
		case "gemini":
			e.toolCall(128000*40/100+int64(i)*7, false)
		}
	}
	e.model = false
	// A config edit: ctxgit-hook hands over until ctxgit hook has read it.
	for _, root := range []string{e.direct, e.small} {
		if err := os.WriteFile(filepath.Join(root, ".ctxgit", "config.yaml"), []byte("version: 1\npressure:\n  flush: 0.3\n"), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	for pct := int64(40); pct <= 50; pct += 2 {
		for i := range 3 {
			e.toolCall(w*pct/100+int64(i)*13, false)
		}
	}
}

func (e *equiv) compactionLine() string {
	switch e.host {
	case "claude-code":
		return `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}`
	case "codex":
		return `{"type":"compacted","payload":{"message":"summary"}}`
	}
	return ""
}
