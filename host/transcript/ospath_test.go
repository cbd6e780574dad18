package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
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
// them, escaped as JSON at their place (wstest.JSONEscapeAt).
func osText(s string) string {
	if runtime.GOOS != "windows" {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range recordedPath.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[4], m[5] // the path
		b.WriteString(s[last:start])
		b.WriteString(wstest.JSONEscapeAt(s, start, osPath(s[start:end])))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
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
	var escaped []string
	for _, m := range recordedPath.FindAllStringSubmatchIndex(line, -1) {
		escaped = append(escaped, wstest.JSONEscapeAt(line, m[4], `C:\h`))
	}
	if want := []string{`C:\\\\h`, `C:\\\\h`, `C:\\h`}; !reflect.DeepEqual(escaped, want) {
		t.Errorf("escaped = %q, want %q", escaped, want)
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
