package hookpath

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Steady answers only a Cursor tool call with nothing to do, and leaves
// every other call to `ctxgit hook`.
func TestSteady(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(root, ".git", "HEAD"))
	touch(t, filepath.Join(root, ".ctxgit/config.yaml"))
	sub := filepath.Join(root, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	payload := []byte(`{"conversation_id":"conv-7","session_id":"other","workspace_roots":["` + filepath.ToSlash(root) + `"],"cursor_version":"3.9.0"}`)
	steady := func() bool { return Steady("cursor", "post-tool-use", payload, noEnv, sub, time.Now()) }

	if steady() {
		t.Fatal("steady before the event's first run is recorded: ctxgit hook records it")
	}
	touch(t, HookRanPath(root, "cursor", "post-tool-use"))
	if !steady() {
		t.Fatal("not steady with nothing to do")
	}
	if !Steady("cursor", "post-tool-use", []byte(`{"conversation_id":"conv-7"}`), noEnv, sub, time.Now()) {
		t.Fatal("not steady for a payload without a directory, run from inside the workspace")
	}
	for _, c := range []struct {
		name        string
		host, event string
		input       string
		env         string
	}{
		{"claude-code", "claude-code", "post-tool-use", "", ""},
		{"another event", "cursor", "session-start", "", ""},
		{"not JSON", "cursor", "post-tool-use", "{", ""},
		{"no session", "cursor", "post-tool-use", `{"cwd":"` + filepath.ToSlash(root) + `"}`, ""},
		{"a key to sanitize", "cursor", "post-tool-use", `{"conversation_id":"a b","cwd":"` + filepath.ToSlash(root) + `"}`, ""},
		{"CTXGIT_ROOT", "cursor", "post-tool-use", "", "CTXGIT_ROOT"},
		{"GIT_DIR", "cursor", "post-tool-use", "", "GIT_DIR"},
	} {
		in := payload
		if c.input != "" {
			in = []byte(c.input)
		}
		env := noEnv
		if c.env != "" {
			env = func(k string) string {
				if k == c.env {
					return "x"
				}
				return ""
			}
		}
		if Steady(c.host, c.event, in, env, sub, time.Now()) {
			t.Errorf("%s: steady", c.name)
		}
	}
	for _, marker := range []string{PendingPath(root, "conv-7"), NudgePath(root, "conv-7"), FailedPath(root, "cursor", "post-tool-use")} {
		touch(t, marker)
		if steady() {
			t.Errorf("steady with %s", marker)
		}
		os.Remove(marker)
	}
	// A release that drops postToolUse context delivers nothing: a pending
	// recovery waits for sessionStart.
	old := []byte(`{"conversation_id":"conv-7","cwd":"` + filepath.ToSlash(root) + `","cursor_version":"3.7.2"}`)
	touch(t, PendingPath(root, "conv-7"))
	if !Steady("cursor", "post-tool-use", old, noEnv, sub, time.Now()) {
		t.Error("not steady for a release that drops the context")
	}
	// No workspace in the repository: ctxgit hook decides.
	os.Remove(filepath.Join(root, ".ctxgit/config.yaml"))
	if steady() {
		t.Error("steady without a config")
	}
}

// A host's folder: its variable when set, else the dot folder in HOME,
// else in USERPROFILE; none without a home.
func TestHostHome(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"COPILOT_HOME": "/ch", "HOME": "/h"}, "/ch"},
		{map[string]string{"HOME": "/h", "USERPROFILE": "/u"}, filepath.Join("/h", ".copilot")},
		{map[string]string{"USERPROFILE": "/u"}, filepath.Join("/u", ".copilot")},
		{map[string]string{}, ""},
	} {
		if got := HostHome(func(k string) string { return tc.env[k] }, "COPILOT_HOME", ".copilot"); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}
