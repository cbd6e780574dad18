package hooks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/spec"
)

// The paths agree with package spec's, which this package cannot import.
func TestPathsAgreeWithSpec(t *testing.T) {
	if hookpath.DirName != spec.DirName || hookpath.LocalDir != spec.LocalDir || filepath.Join(hookpath.DirName, hookpath.ConfigName) != filepath.FromSlash(spec.ConfigPath) {
		t.Fatalf("hookpath's paths (%s, %s, %s) differ from spec's", hookpath.DirName, hookpath.LocalDir, hookpath.ConfigName)
	}
}

// Every id PlainKey takes is a session key as it stands.
func TestPlainKeyIsValid(t *testing.T) {
	for _, id := range []string{"conv-7", "0b4e6c1a-9f3d-4c2e-8a1b-2d3e4f5a6b7c", "A", "x--y", strings.Repeat("a", 100)} {
		if !hookpath.PlainKey(id) {
			t.Errorf("hookpath.PlainKey(%q) = false", id)
		}
		if spec.SanitizeSessionKey(id) != id || spec.ValidateSessionKey(id) != nil {
			t.Errorf("PlainKey took %q, which spec does not", id)
		}
	}
	for _, id := range []string{"", "-x", "a.b", "a/b", "a..b", "x.lock", "a b", strings.Repeat("a", 100) + "a"} {
		if hookpath.PlainKey(id) {
			t.Errorf("hookpath.PlainKey(%q) = true", id)
		}
	}
}
