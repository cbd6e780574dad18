package hooks

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/hookpath"
)

// claudeToolTurn is the assistant line of a Claude Code turn that called
// tool id with tokens in use.
func claudeToolTurn(msg, id string, tokens int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":"a-%s","message":{"id":%q,"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Read","input":{}}],"usage":{"input_tokens":%d,"output_tokens":10}}}`+"\n",
		msg, msg, id, tokens)
}

// awaitSetup is a workspace and a Claude Code transcript that ends before
// the turn at hand: a prompt, and an earlier turn at 10%.
func awaitSetup(t *testing.T) (dir, transcript string) {
	t.Helper()
	dir = initialised(t)
	transcript = filepath.Join(t.TempDir(), "t.jsonl")
	data := `{"type":"user","uuid":"u1","message":{"role":"user","content":"read it"}}` + "\n" +
		`{"type":"assistant","uuid":"a0","message":{"id":"msg_0","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":20000,"output_tokens":10}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, transcript
}

func postToolUse(t *testing.T, dir, transcript, id, extra string, wait time.Duration) (string, time.Duration) {
	t.Helper()
	input := fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{},"tool_response":{},"tool_use_id":%q%s}`,
		transcript, dir, id, extra)
	var out bytes.Buffer
	start := time.Now()
	if err := Handle(Request{Host: "claude-code", Event: "post-tool-use", Input: []byte(input), Env: env(dir, nil), Out: &out, CallWait: wait}); err != nil {
		t.Fatal(err)
	}
	return out.String(), time.Since(start)
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Error(err)
	}
}

// docs/HOSTS.md, "The flush nudge": Claude Code's PostToolUse can run
// before the host has written the message that called the tool (the
// turn's usage); the hook waits for it, by the payload's tool_use_id, and
// the nudge goes out with this call's result.
func TestPostToolUseWaitsForTheCallsMessage(t *testing.T) {
	dir, transcript := awaitSetup(t)
	go func() {
		time.Sleep(150 * time.Millisecond)
		appendTo(t, transcript, claudeToolTurn("msg_1", "toolu_1", 140000))
	}()
	out, _ := postToolUse(t, dir, transcript, "toolu_1", "", 30*time.Second)
	if !strings.Contains(out, `"additionalContext":"Context is 70% full`) || !strings.Contains(out, `"hookEventName":"PostToolUse"`) {
		t.Fatalf("the hook did not wait for the call's usage: %q", out)
	}
	var st hookState
	readJSON(dir, statePath(dir, "s1"), &st)
	if st.CallMisses != 0 {
		t.Errorf("call_misses %d after a wait that found the call", st.CallMisses)
	}
}

// A fast `claude -p` run's first tool call can come before Claude Code
// has created the transcript at all (the real-host tier with CI=true):
// the hook waits for the file as for the message, and ctxgit-hook's fast
// path hands such a call to it rather than answer "nothing to do".
func TestPostToolUseWaitsForTheTranscriptFile(t *testing.T) {
	dir := initialised(t)
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	input := fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"toolu_1"}`, transcript, dir)
	if hookpath.Steady("claude-code", "post-tool-use", []byte(input), func(string) string { return "" }, dir, time.Now()) {
		t.Fatal("ctxgit-hook's fast path answers a call whose transcript is not there yet")
	}
	go func() {
		time.Sleep(150 * time.Millisecond)
		data := `{"type":"user","uuid":"u1","message":{"role":"user","content":"read it"}}` + "\n" + claudeToolTurn("msg_1", "toolu_1", 140000)
		if err := os.WriteFile(transcript, []byte(data), 0o644); err != nil {
			t.Error(err)
		}
	}()
	out, _ := postToolUse(t, dir, transcript, "toolu_1", "", 30*time.Second)
	if !strings.Contains(out, `"additionalContext":"Context is 70% full`) {
		t.Fatalf("the hook did not wait for the transcript: %q", out)
	}
	// A transcript that never comes costs a bounded wait, counted as a miss.
	gone := filepath.Join(t.TempDir(), "never.jsonl")
	if out, took := postToolUse(t, dir, gone, "toolu_2", "", 50*time.Millisecond); out != "" || took < 50*time.Millisecond {
		t.Fatalf("no transcript: output %q after %v", out, took)
	}
	var st hookState
	readJSON(dir, statePath(dir, "s1"), &st)
	if st.CallMisses != 1 {
		t.Fatalf("call_misses %d after a wait for a transcript that never came, want 1", st.CallMisses)
	}
}

// A transcript path that names something other than a file (a directory
// here; a FIFO would hang a read) is no transcript: a call that awaits its
// message does not wait for it to become one, and counts no miss.
func TestPostToolUseTranscriptNotAFile(t *testing.T) {
	dir := initialised(t)
	notFile := t.TempDir()
	if out, took := postToolUse(t, dir, notFile, "toolu_1", "", 30*time.Second); out != "" || took > 15*time.Second {
		t.Fatalf("transcript path a directory: output %q after %v", out, took)
	}
	var st hookState
	readJSON(dir, statePath(dir, "s1"), &st)
	if st.CallMisses != 0 {
		t.Fatalf("call_misses %d for a transcript path that is a directory", st.CallMisses)
	}
}

// A call whose message never comes within the wait: the hook answers with
// the reading it has, counts the miss, and from hookpath.MaxCallMisses
// misses in a row on does not wait at all; a tail that holds the call
// starts the count over. A subagent's call (agent_id) never waits: its
// messages go to the subagent's own transcript.
func TestPostToolUseWaitIsBounded(t *testing.T) {
	dir, transcript := awaitSetup(t)
	const short = 50 * time.Millisecond
	for i := 1; i <= hookpath.MaxCallMisses; i++ {
		out, took := postToolUse(t, dir, transcript, fmt.Sprintf("toolu_miss%d", i), "", short)
		if out != "" || took < short {
			t.Fatalf("miss %d: output %q after %v; want none after waiting %v", i, out, took, short)
		}
		var st hookState
		readJSON(dir, statePath(dir, "s1"), &st)
		if st.CallMisses != i {
			t.Fatalf("after miss %d: call_misses %d", i, st.CallMisses)
		}
	}
	if _, took := postToolUse(t, dir, transcript, "toolu_late", "", 30*time.Second); took > 15*time.Second {
		t.Fatalf("waited %v after %d misses in a row", took, hookpath.MaxCallMisses)
	}
	appendTo(t, transcript, claudeToolTurn("msg_2", "toolu_2", 30000))
	postToolUse(t, dir, transcript, "toolu_2", "", short)
	var st hookState
	readJSON(dir, statePath(dir, "s1"), &st)
	if st.CallMisses != 0 {
		t.Fatalf("call_misses %d after a tail that held the call", st.CallMisses)
	}
	if _, took := postToolUse(t, dir, transcript, "toolu_sub", `,"agent_id":"agent-1"`, 30*time.Second); took > 15*time.Second {
		t.Fatalf("a subagent's call waited %v", took)
	}
	readJSON(dir, statePath(dir, "s1"), &st)
	if st.CallMisses != 0 {
		t.Fatalf("a subagent's call counted a miss: %d", st.CallMisses)
	}
}

// ctxgit-hook's fast path (hookpath.Steady) follows awaitCall's rule
// (hookpath.CallWaits): it hands over every call that would wait or would
// change the count of misses, and answers the others itself, those after
// MaxCallMisses misses in a row included.
func TestSteadyFollowsTheWaitRule(t *testing.T) {
	dir, transcript := awaitSetup(t)
	input := func(id string) []byte {
		return fmt.Appendf(nil, `{"session_id":"s1","transcript_path":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":%q}`, transcript, dir, id)
	}
	steady := func(id string) bool {
		return hookpath.Steady("claude-code", "post-tool-use", input(id), func(string) string { return "" }, dir, now)
	}
	const short = 20 * time.Millisecond
	// As ctxgit-hook hands a call over: ctxgit hook then keeps the gauge
	// file the fast path reads the thresholds from.
	postToolUse := func(t *testing.T, dir, transcript, id, extra string, wait time.Duration) {
		t.Helper()
		req := Request{Host: "claude-code", Event: "post-tool-use", Input: input(id), Env: env(dir, map[string]string{hookpath.ViaEnv: "1"}), Out: io.Discard, CallWait: wait}
		if err := Handle(req); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= hookpath.MaxCallMisses; i++ {
		id := fmt.Sprintf("toolu_miss%d", i)
		if steady(id) {
			t.Fatalf("miss %d: the fast path answers a call ctxgit hook waits for", i)
		}
		postToolUse(t, dir, transcript, id, "", short)
	}
	if !steady("toolu_late") {
		t.Fatalf("after %d misses in a row the fast path hands over a call that waits no more", hookpath.MaxCallMisses)
	}
	// The same usage as the reading recorded: only the count calls for ctxgit hook.
	appendTo(t, transcript, claudeToolTurn("msg_2", "toolu_2", 20000))
	if steady("toolu_2") {
		t.Fatal("the fast path answers a call whose held message starts the count over")
	}
	postToolUse(t, dir, transcript, "toolu_2", "", short)
	if !steady("toolu_2") {
		t.Fatal("the fast path hands over a call that is held, counted and recorded")
	}
}

// hookpath.AwaitedCall: only Claude Code's PostToolUse, of the main
// session, with an id a transcript holds verbatim.
func TestAwaitedCall(t *testing.T) {
	for _, tc := range []struct {
		host, event, id, agent, want string
	}{
		{"claude-code", "post-tool-use", "toolu_01AbC-9", "", "toolu_01AbC-9"},
		{"claude-code", "post-tool-use", "toolu_1", "agent-7", ""},
		{"claude-code", "post-tool-use", "", "", ""},
		{"claude-code", "post-tool-use", `a"b`, "", ""},
		{"claude-code", "post-tool-use", strings.Repeat("a", 201), "", ""},
		{"claude-code", "user-prompt-submit", "toolu_1", "", ""},
		{"codex", "post-tool-use", "call_1", "", ""},
	} {
		if got := hookpath.AwaitedCall(tc.host, tc.event, tc.id, tc.agent); got != tc.want {
			t.Errorf("AwaitedCall(%q, %q, %q, %q) = %q, want %q", tc.host, tc.event, tc.id, tc.agent, got, tc.want)
		}
	}
}
