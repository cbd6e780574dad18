package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// The fixtures were recorded on Linux. On Windows a host records the same
// session with Windows paths, so there a test reads each fixture as a
// Windows user's host would have written it (fixture, osText): every
// absolute path of the recording (/home/dev/app/x.go) on drive C: with
// backslashes (C:\home\dev\app\x.go, escaped in JSON), and names the
// workspace root and any absolute path it expects the same way (osPath).
// Elsewhere all three change nothing. testdata/windows-claude-code.jsonl
// is a session recorded with Windows paths from the start, read as it is
// on every system.

// recordedPath is an absolute path of a recording: under one of the
// directories the fixtures name, after a character a path can follow.
var recordedPath = regexp.MustCompile(`(^|[\s"'=(:,])(/(?:home|tmp|etc|w|srv)(?:/[^\s"'\\)/]+)*/?)`)

// osPath is the Unix path p as the same file's path on this system.
func osPath(p string) string {
	if runtime.GOOS != "windows" || !strings.HasPrefix(p, "/") {
		return p
	}
	return `C:` + filepath.FromSlash(p)
}

// osText is a recorded JSON text with its absolute paths as osPath gives
// them, each backslash escaped once per level of JSON it sits in: a path
// inside a string of a string that holds JSON itself (Codex's
// function-call arguments) is escaped twice.
func osText(s string) string {
	if runtime.GOOS != "windows" {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range recordedPath.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[4], m[5] // the path
		escape := `\\`
		if inNestedString(s, start) {
			escape = `\\\\`
		}
		b.WriteString(s[last:start])
		b.WriteString(strings.ReplaceAll(osPath(s[start:end]), `\`, escape))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// inNestedString reports whether pos, inside a JSON string of the line
// it is on, is inside a string of the JSON that string holds: the string
// starts with { or [ and an odd number of escaped quotes come before pos.
func inNestedString(s string, pos int) bool {
	lineStart := strings.LastIndexByte(s[:pos], '\n') + 1
	in, from := false, 0
	for i := lineStart; i < pos; i++ {
		switch {
		case in && s[i] == '\\':
			i++
		case s[i] == '"':
			in, from = !in, i+1
		}
	}
	if !in {
		return false
	}
	content := s[from:pos]
	return (strings.HasPrefix(content, "{") || strings.HasPrefix(content, "[")) && strings.Count(content, `\"`)%2 == 1
}

// osPlain is a text a reader produced (a failure's message) with the
// recording's absolute paths as osPath gives them.
func osPlain(s string) string {
	if runtime.GOOS != "windows" {
		return s
	}
	return recordedPath.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.IndexByte(m, '/')
		return m[:i] + osPath(m[i:])
	})
}

// fixture is the path of a recorded transcript to read on this system:
// the file itself, or on Windows a copy with osText's paths.
func fixture(t testing.TB, path string) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return path
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(p, []byte(osText(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The conversion itself, on every system as on Windows.
func TestOSText(t *testing.T) {
	in := `{"cwd":"/home/dev/app","file_path":"/home/dev/app/a b.go","cmd":"cd /w && rm /tmp/x","c":"/clear","u":"https://x/home/y","rel":"src/home/z"}`
	got := recordedPath.ReplaceAllStringFunc(in, func(m string) string {
		i := strings.IndexByte(m, '/')
		return m[:i] + "<" + m[i:] + ">"
	})
	want := `{"cwd":"</home/dev/app>","file_path":"</home/dev/app/a> b.go","cmd":"cd </w> && rm </tmp/x>","c":"/clear","u":"https://x/home/y","rel":"src/home/z"}`
	if got != want {
		t.Errorf("recorded paths:\n got %s\nwant %s", got, want)
	}
	line := `{"arguments":"{\"workdir\": \"/home/dev\", \"patch\": \"*** Update File: /home/dev/a.go\"}","cwd":"/home/dev"}`
	var nested []bool
	for _, m := range recordedPath.FindAllStringSubmatchIndex(line, -1) {
		nested = append(nested, inNestedString(line, m[4]))
	}
	if want := []bool{true, true, false}; !reflect.DeepEqual(nested, want) {
		t.Errorf("nested = %v, want %v", nested, want)
	}
}

// osFailures is want with the recording's paths as osPlain gives them.
func osFailures(want []ToolFailure) []ToolFailure {
	if want == nil {
		return nil
	}
	out := make([]ToolFailure, len(want))
	copy(out, want)
	for i := range out {
		out[i].Summary, out[i].Target, out[i].Error = osPlain(out[i].Summary), osPlain(out[i].Target), osPlain(out[i].Error)
	}
	return out
}
