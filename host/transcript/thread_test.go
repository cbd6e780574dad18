package transcript

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"
)

func TestOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  hello \n\n world\t ", 120, "hello world"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"abc defg", 5, "abc…"}, // no dangling space before the ellipsis
		{"ab\x1b[31mred\x1b[0m", 120, "ab [31mred [0m"},
		{"日本語のテキスト", 4, "日本語…"},
		{"", 10, ""},
		{"\n\t ", 10, ""},
		{"x", 0, ""},
		{"bad \xff utf8", 120, "bad utf8"},
	}
	for _, tc := range tests {
		if got := oneLine(tc.in, tc.max); got != tc.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if n := utf8.RuneCountInString(oneLine(tc.in, tc.max)); n > tc.max {
			t.Errorf("oneLine(%q, %d) has %d characters", tc.in, tc.max, n)
		}
	}
}

// conversation builds a Claude Code transcript of prompts and replies.
func conversation(pairs ...[2]string) []string {
	var lines []string
	for i, p := range pairs {
		lines = append(lines, ccUser(p[0]))
		if p[1] != "" {
			lines = append(lines, ccAsst(fmt.Sprintf("m%d", i), ccUsage(1, 1, 1, 1), ccText(p[1])))
		}
	}
	return lines
}

func exchanges(s *Summary) []spec.Exchange { return s.Thread.KeyExchanges }

// SPEC §8.3: the thread rule, exactly.
func TestThread(t *testing.T) {
	long := strings.Repeat("a", 501)
	t.Run("SPEC §8.3: one prompt is the whole summary", func(t *testing.T) {
		s := readLines(t, ClaudeCode, conversation([2]string{"only question", "only answer"})...)
		want := []spec.Exchange{ex("user", "only question"), ex("assistant", "only answer")}
		if s.Thread.Summary != "only question" || !reflect.DeepEqual(exchanges(s), want) {
			t.Errorf("Thread = %+v", s.Thread)
		}
	})
	t.Run("SPEC §8.3: summary halves are cut at 100 characters", func(t *testing.T) {
		first, last := strings.Repeat("f", 150), strings.Repeat("l", 99)
		s := readLines(t, ClaudeCode, conversation([2]string{first, "x"}, [2]string{"middle", "y"}, [2]string{last, "z"})...)
		want := strings.Repeat("f", 99) + "… ... " + last
		if string(s.Thread.Summary) != want {
			t.Errorf("Summary = %q, want %q", s.Thread.Summary, want)
		}
	})
	t.Run("SPEC §8.3: first, after a long reply, and the last two pairs", func(t *testing.T) {
		s := readLines(t, ClaudeCode, conversation(
			[2]string{"p0", "a0"}, [2]string{"p1", long}, [2]string{"p2", "a2"},
			[2]string{"p3", "a3"}, [2]string{"p4", "a4"}, [2]string{"p5", "a5"})...)
		want := []spec.Exchange{ex("user", "p0"), ex("user", "p2"), ex("user", "p4"), ex("assistant", "a4"), ex("user", "p5"), ex("assistant", "a5")}
		if !reflect.DeepEqual(exchanges(s), want) {
			t.Errorf("KeyExchanges = %v\nwant %v", exchanges(s), want)
		}
		if s.Turns != 6 || s.Thread.Summary != "p0 ... p5" {
			t.Errorf("Turns %d, Summary %q", s.Turns, s.Thread.Summary)
		}
	})
	t.Run("SPEC §8.3: at most MaxExchanges, the newest kept", func(t *testing.T) {
		var pairs [][2]string
		for i := range 20 {
			pairs = append(pairs, [2]string{fmt.Sprintf("p%d", i), long})
		}
		s, err := Read(strings.NewReader(strings.Join(conversation(pairs...), "\n")), ClaudeCode, ReadOptions{MaxExchanges: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := []spec.Exchange{ex("user", "p17"), ex("user", "p18"), ex("assistant", oneLine(long, 120)), ex("user", "p19"), ex("assistant", oneLine(long, 120))}
		if !reflect.DeepEqual(exchanges(s), want) {
			t.Errorf("KeyExchanges = %v\nwant %v", exchanges(s), want)
		}
		s, _ = Read(strings.NewReader(strings.Join(conversation(pairs...), "\n")), ClaudeCode, ReadOptions{})
		if len(exchanges(s)) != 8 {
			t.Errorf("default cap: %d exchanges, want 8", len(exchanges(s)))
		}
	})
	t.Run("SPEC §8.3: a long reply is counted in characters and over a message's blocks", func(t *testing.T) {
		// 400 CJK characters are 1200 bytes but not a long reply; one
		// message of two 300-character blocks is.
		cjk := strings.Repeat("字", 400)
		lines := []string{
			ccUser("p0"), ccAsst("m0", ccUsage(1, 1, 1, 1), ccText(cjk)),
			ccUser("p1"), ccAsst("m1", ccUsage(1, 1, 1, 1), ccText(strings.Repeat("b", 300))), ccAsst("m1", ccUsage(1, 1, 1, 1), ccText(strings.Repeat("c", 300))),
			ccUser("p2"), ccAsst("m2", ccUsage(1, 1, 1, 1), ccText(strings.Repeat("d", 300))), ccAsst("m3", ccUsage(1, 1, 1, 1), ccText(strings.Repeat("e", 300))),
			ccUser("p3"), ccUser("p4"), ccUser("p5"),
		}
		s := readLines(t, ClaudeCode, lines...)
		var users []string
		for _, e := range exchanges(s) {
			if e.Role == "user" {
				users = append(users, string(e.Gist))
			}
		}
		if want := []string{"p0", "p2", "p4", "p5"}; !reflect.DeepEqual(users, want) {
			t.Errorf("user exchanges %q, want %q", users, want)
		}
	})
	t.Run("SPEC §8.3: tool results, compaction summaries, host notes and subagents are not prompts", func(t *testing.T) {
		lines := []string{
			js(obj{"type": "user", "isMeta": true, "message": obj{"role": "user", "content": "<local-command-caveat>note</local-command-caveat>"}}),
			ccUser("real prompt"),
			ccAsst("m1", ccUsage(1, 1, 1, 1), ccCall("t1", "Read", obj{"file_path": "/a"})),
			ccUser([]obj{ccResult("t1", "file body", false)}),
			js(obj{"type": "user", "isSidechain": true, "message": obj{"role": "user", "content": "subagent task"}}),
			ccBoundary(), ccSummaryLine(),
			ccUser([]obj{ccText("second"), {"type": "image", "source": obj{"type": "base64", "data": "AAAA"}}}),
		}
		s := readLines(t, ClaudeCode, lines...)
		if s.Turns != 2 || s.Thread.Summary != "real prompt ... second" {
			t.Errorf("Turns %d, Summary %q", s.Turns, s.Thread.Summary)
		}
	})
	t.Run("SPEC §8.3: the rule looks at shape, not words: every language alike", func(t *testing.T) {
		var shapes []string
		for _, words := range [][2]string{
			{"please fix the bug", "I fixed it"},
			{"バグを直してください", "直しました"},
			{"أصلح الخطأ من فضلك", "تم الإصلاح"},
		} {
			s := readLines(t, ClaudeCode, conversation(
				[2]string{words[0], words[1]}, [2]string{words[0] + " 2", strings.Repeat(words[1]+" ", 120)},
				[2]string{words[0] + " 3", words[1]}, [2]string{words[0] + " 4", words[1]}, [2]string{words[0] + " 5", words[1]})...)
			var shape []string
			for _, e := range exchanges(s) {
				shape = append(shape, e.Role)
			}
			shapes = append(shapes, strings.Join(shape, ","))
		}
		if shapes[0] != shapes[1] || shapes[1] != shapes[2] {
			t.Errorf("the selection depends on the language: %q", shapes)
		}
	})
}

// docs/HOSTS.md, "Transcripts": Interrupted is an unanswered last call or a
// user interruption not yet followed by a prompt.
func TestInterrupted(t *testing.T) {
	call := ccAsst("m1", ccUsage(1, 1, 1, 1), ccCall("t1", "Bash", obj{"command": "sleep 100"}))
	tests := []struct {
		name   string
		format Format
		lines  []string
		want   bool
		turns  int
	}{
		{"a call without its result", ClaudeCode, []string{ccUser("go"), call}, true, 1},
		{"a call with its result", ClaudeCode, []string{ccUser("go"), call, ccUser([]obj{ccResult("t1", "ok", false)})}, false, 1},
		{"the user interrupted", ClaudeCode, []string{ccUser("go"), ccAsst("m1", ccUsage(1, 1, 1, 1), ccText("working")), ccUser([]obj{ccText("[Request interrupted by user]")})}, true, 1},
		{"the user interrupted, then prompted", ClaudeCode, []string{ccUser("go"), ccUser([]obj{ccText("[Request interrupted by user]")}), ccUser("try again")}, false, 2},
		{"interrupted inside a tool result", ClaudeCode, []string{ccUser("go"), call, ccUser([]obj{ccResult("t1", []obj{ccText("[Request interrupted by user for tool use]")}, true)})}, true, 1},
		{"a subagent's open call is not the session's", ClaudeCode, []string{ccUser("go"), ccSideAsst("s1", ccUsage(1, 1, 1, 1), ccCall("ts", "Grep", obj{}))}, false, 1},
		{"Codex turn aborted", Codex, []string{js(obj{"type": "event_msg", "payload": obj{"type": "user_message", "message": "go"}}), js(obj{"type": "event_msg", "payload": obj{"type": "turn_aborted", "reason": "interrupted"}})}, true, 1},
		{"Codex call without output", Codex, []string{js(obj{"type": "response_item", "payload": obj{"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}})}, true, 0},
		{"OpenClaw aborted turn", OpenClaw, []string{js(obj{"type": "message", "id": "a", "message": obj{"role": "assistant", "content": []obj{ccText("partial")}, "stopReason": "aborted"}})}, true, 0},
	}
	for _, tc := range tests {
		s := readLines(t, tc.format, tc.lines...)
		if s.Interrupted != tc.want || s.Turns != tc.turns {
			t.Errorf("%s: Interrupted %v, Turns %d; want %v, %d", tc.name, s.Interrupted, s.Turns, tc.want, tc.turns)
		}
	}
}

// SPEC §8.5: lists are capped; failures keep the newest.
func TestCaps(t *testing.T) {
	var lines []string
	for i := range 150 {
		id := fmt.Sprintf("t%d", i)
		lines = append(lines,
			ccAsst(fmt.Sprintf("m%d", i), ccUsage(1, 1, 1, 1), ccCall(id, fmt.Sprintf("Tool%d", i), obj{"file_path": fmt.Sprintf("/f%d", i)}), ccCall(id+"r", "Read", obj{"file_path": fmt.Sprintf("/r%d", i)})),
			ccUser([]obj{ccResult(id, fmt.Sprintf("failure %d", i), true)}))
	}
	s := readLines(t, ClaudeCode, lines...)
	if len(s.ToolsUsed) != 100 || len(s.FilesRead) != 100 || s.ToolCalls != 300 {
		t.Errorf("ToolsUsed %d, FilesRead %d, ToolCalls %d", len(s.ToolsUsed), len(s.FilesRead), s.ToolCalls)
	}
	if len(s.ToolFailures) != 20 || s.ToolFailures[0].Summary != "failure 130" || s.ToolFailures[19].Summary != "failure 149" || s.ToolFailures[19].Tool != "Tool149" {
		t.Errorf("ToolFailures = %+v", s.ToolFailures)
	}
}
