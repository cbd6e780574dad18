package ospath

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestAbs(t *testing.T) {
	base := "/base/here"
	tests := []struct{ p, want string }{
		{"a/b", "/base/here/a/b"},
		{"../x", "/base/x"},
		{"/etc/passwd", "/etc/passwd"},
		{"/etc/../tmp/x", "/tmp/x"},
	}
	if runtime.GOOS == "windows" {
		base = `C:\base\here`
		tests = []struct{ p, want string }{
			{`a\b`, `C:\base\here\a\b`},
			{"a/b", `C:\base\here\a\b`},
			{`..\x`, `C:\base\x`},
			{`D:\etc\x`, `D:\etc\x`},
			{`\etc\passwd`, `C:\etc\passwd`},
			{"/etc/passwd", `C:\etc\passwd`},
		}
	}
	for _, tc := range tests {
		if got := Abs(base, tc.p); got != filepath.FromSlash(tc.want) {
			t.Errorf("Abs(%q, %q) = %q, want %q", base, tc.p, got, tc.want)
		}
	}
}
