package vcs

import (
	"runtime"
	"testing"
)

// Git for Windows' is_valid_win32_path: names a Windows file system cannot
// hold, and ordinary ones it can.
func TestWin32Refuses(t *testing.T) {
	for _, name := range []string{"a:b", `a\b`, "a<b", "what?", "star*", "pipe|", `q"`, "tab\tname", "trailing.", "trailing ",
		"CON", "con", "nul.txt", "AUX.tar.gz", "COM1", "lpt9.log", "CONIN$", ""} {
		if !win32Refuses(name) {
			t.Errorf("%q taken for a Windows name", name)
		}
	}
	for _, name := range []string{"README.md", ".gitignore", "CONSOLE", "COM0", "COM10", "nul_", "a b", "é.txt", "con-fig"} {
		if win32Refuses(name) {
			t.Errorf("%q refused", name)
		}
	}
	if UnwritableName("a:b") != (runtime.GOOS == "windows") {
		t.Fatalf("UnwritableName(\"a:b\") on %s = %v", runtime.GOOS, UnwritableName("a:b"))
	}
}
