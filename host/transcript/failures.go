package transcript

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// exitInText finds a command's exit status in the header of its result
// text: Claude Code's Bash "Exit code N", Codex's "Exit code: N" and
// "Process exited with code N" (shellExitCode), Gemini CLI's "Exit Code: N".
func exitInText(s string) (int, bool) {
	if code, ok := shellExitCode(s); ok {
		return code, true
	}
	for i := 0; i < 8 && s != ""; i++ {
		line, rest, _ := strings.Cut(s, "\n")
		for _, p := range []string{"Exit code ", "Exit Code: ", "exit code ", "Command exited with code "} {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), p); ok {
				if code, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return code, true
				}
			}
		}
		s = rest
	}
	return 0, false
}

// resultHeaders start the lines hosts put above a command's output: the
// status, not the output (Claude Code's "Exit code N"; Codex's unified
// exec header, ended by "Output:"; Gemini CLI's "Command:" block).
var resultHeaders = []string{"Exit code", "Exit Code:", "Chunk ID:", "Wall time:", "Process exited with code", "Process running with session ID",
	"Original token count:", "Output:", "Command:", "Directory:", "Stdout:", "Signal:", "Background PIDs:", "Process Group PGID:"}

// stripExitHeader drops the header lines above a result's output.
func stripExitHeader(s string) string {
	for i := 0; i < 10 && s != ""; i++ {
		line, rest, _ := strings.Cut(s, "\n")
		t := strings.TrimSpace(line)
		header := t == ""
		for _, h := range resultHeaders {
			if v, ok := strings.CutPrefix(t, h); ok {
				header = true
				if (h == "Output:" || h == "Stdout:") && strings.TrimSpace(v) != "" {
					// "Output: text" on one line: the text is output.
					return strings.TrimSpace(v) + "\n" + rest
				}
				break
			}
		}
		if !header {
			return s
		}
		s = rest
	}
	return s
}

// errorWords mark the line of a command's output that says what broke.
// They are the words compilers, test runners and shells print, not words
// of the conversation; without one, the first non-blank line stands.
var errorWords = []string{"error", "fail", "panic", "fatal", "exception", "cannot", "can't", "denied", "not found", "no such", "undefined", "traceback", "refused", "invalid"}

// failureLine is the first meaningful line of a failed result: the first
// of its first lines that carries an error word, else its first line that
// is more than punctuation; "" when it has none. One line, at most
// maxErrorChars.
func failureLine(text string) string {
	first := ""
	n := 0
	for line := range strings.Lines(prefix(text, 16<<10)) {
		if n++; n > 200 {
			break
		}
		t := strings.TrimSpace(strings.TrimSuffix(line, "\n"))
		t = strings.TrimPrefix(strings.TrimSuffix(t, "</tool_use_error>"), "<tool_use_error>")
		if !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		lower := strings.ToLower(t)
		for _, w := range errorWords {
			if strings.Contains(lower, w) {
				return oneLine(t, maxErrorChars)
			}
		}
		if first == "" {
			first = t
		}
	}
	return oneLine(first, maxErrorChars)
}

// lineTime reads a record's timestamp: an RFC 3339 string (Claude Code,
// Codex, Gemini CLI, OpenClaw entries) or milliseconds since the epoch
// (OpenClaw messages); "" when it has none. The result is RFC 3339 UTC to
// the second, as checkpoints write times (SPEC §8).
func lineTime(raw []byte) string {
	if t, ok := recordTime(raw); ok {
		return t.Format(time.RFC3339)
	}
	return ""
}

// editTime is a record's raw timestamp as RFC 3339 UTC to the
// nanosecond, "" when it has none: an edit is compared with a
// checkpoint's time, and a second's rounding would move it across.
func editTime(raw []byte) string {
	if t, ok := recordTime(raw); ok {
		return t.Format(time.RFC3339Nano)
	}
	return ""
}

// recordTime decodes a record's raw timestamp: an RFC 3339 string or
// milliseconds since the epoch.
func recordTime(raw []byte) (time.Time, bool) {
	if jsonscan.IsString(raw) {
		t, err := time.Parse(time.RFC3339Nano, jsonscan.StrOr(raw))
		return t.UTC(), err == nil
	}
	if ms, ok := jsonscan.Num(raw); ok && ms > 0 {
		return time.UnixMilli(ms).UTC(), true
	}
	return time.Time{}, false
}
