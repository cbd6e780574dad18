package hostconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// docs/cli.md#doctor: doctor sees what init installed, per file, with the events a
// file lacks and the programs its hooks run; files without ctxgit's hooks
// are not listed.
func TestInspect(t *testing.T) {
	dir := openclawState(t)
	root := t.TempDir()
	if got := Inspect(root); len(got) != 0 {
		t.Fatalf("Inspect of an empty workspace = %+v", got)
	}
	for _, h := range []Host{ClaudeCode, Codex, OpenClaw} {
		install(t, Options{Root: root, Host: h, Command: "/opt/bin/ctxgit"})
	}
	os.MkdirAll(filepath.Join(root, ".cursor"), 0o755)
	os.WriteFile(filepath.Join(root, ".cursor", "hooks.json"), []byte(`{"version": 1, "hooks": {}}`), 0o644)
	os.MkdirAll(filepath.Join(root, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(root, ".gemini", "settings.json"), []byte("{\n  \"hooks\": [\n"), 0o644)

	got := Inspect(root)
	var hosts []string
	for _, in := range got {
		hosts = append(hosts, string(in.Host)+" "+in.Path)
	}
	want := []string{"claude-code .claude/settings.json", "codex .codex/hooks.json", "gemini .gemini/settings.json", "openclaw " + dir}
	if !reflect.DeepEqual(hosts, want) {
		t.Fatalf("Inspect found %v, want %v", hosts, want)
	}
	claude := got[0]
	if claude.Err != nil || len(claude.Missing) != 0 || !reflect.DeepEqual(claude.Programs, []string{"/opt/bin/ctxgit"}) || len(claude.Entries) != 6 || len(claude.Extra) != 0 {
		t.Errorf("claude-code = %+v", claude)
	}
	if g := got[2]; g.Err == nil || !strings.HasPrefix(g.Err.Error(), ".gemini/settings.json:3: ") {
		t.Errorf("gemini's broken file: %v", g.Err)
	}
	if o := got[3]; len(o.Entries) != 3 || !reflect.DeepEqual(o.Programs, []string{"/opt/bin/ctxgit"}) || len(o.Outdated) != 0 {
		t.Errorf("openclaw = %+v", o)
	}
	// A handler an older version wrote is reported as outdated.
	os.WriteFile(filepath.Join(dir, "handler.ts"), []byte("const COMMAND: string = \"/opt/bin/ctxgit\";\n// old\n"), 0o644)
	if o := Inspect(root)[3]; !reflect.DeepEqual(o.Outdated, []string{"handler.ts"}) {
		t.Errorf("openclaw after an old handler = %+v", o)
	}
	install(t, Options{Root: root, Host: OpenClaw, Command: "/opt/bin/ctxgit"})

	// A hand-edited file lacking events is reported with what it lacks.
	os.WriteFile(filepath.Join(root, ".codex", "hooks.json"),
		[]byte(`{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "ctxgit hook codex pre-compact"}]}]}}`), 0o644)
	codex := Inspect(root)[1]
	if !reflect.DeepEqual(codex.Missing, []string{"SessionStart", "PostToolUse", "UserPromptSubmit", "SessionEnd"}) || !reflect.DeepEqual(codex.Programs, []string{"ctxgit"}) {
		t.Errorf("codex = %+v", codex)
	}

	// An older install's events that this version no longer uses are
	// reported as extra: `ctxgit init --host` removes them.
	os.WriteFile(filepath.Join(root, ".codex", "hooks.json"),
		[]byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "ctxgit hook codex pre-tool-use"}]}]}}`), 0o644)
	codex = Inspect(root)[1]
	if !reflect.DeepEqual(codex.Extra, []string{"PreToolUse: ctxgit hook codex pre-tool-use"}) {
		t.Errorf("codex extra = %+v", codex)
	}
}

// A hook's program is found as a shell would find it.
func TestProgramAndResolve(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"ctxgit hook claude-code stop", "ctxgit"},
		{`"/path with space/ctxgit" hook x y`, "/path with space/ctxgit"},
		{`'/q/ctxgit' hook`, "/q/ctxgit"},
		{"  $HOME/bin/ctxgit statusline", "$HOME/bin/ctxgit"},
		{"", ""},
	} {
		if got := Program(tc.cmd); got != tc.want {
			t.Errorf("Program(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	os.MkdirAll(bin, 0o755)
	// A program as the system knows one: executable, or on Windows named
	// with an extension of PATHEXT, which a command need not name.
	exe, shell := "", "sh"
	if runtime.GOOS == "windows" {
		exe, shell = ".exe", "cmd"
	}
	os.WriteFile(filepath.Join(bin, "ctxgit"+exe), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "notexec"), []byte("x"), 0o644)
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	for _, tc := range []struct {
		prog  string
		found bool
	}{
		{"~/bin/ctxgit", true},
		{"$HOME/bin/ctxgit", true},
		{filepath.Join(bin, "ctxgit"), true},
		{filepath.ToSlash(filepath.Join(bin, "ctxgit")), true},
		{filepath.Join(bin, "ctxgit"+exe), true},
		{filepath.Join(bin, "notexec"), false},
		{bin, false},
		{"/nonexistent/ctxgit", false},
		{shell, true},
		{"no-such-program-on-path-xyz", false},
	} {
		if got := ResolveProgram(tc.prog, env) != ""; got != tc.found {
			t.Errorf("ResolveProgram(%q) found = %v, want %v", tc.prog, got, tc.found)
		}
	}
	// Without HOME (a Windows shell sets none), ~ is USERPROFILE.
	profile := func(k string) string {
		if k == "USERPROFILE" {
			return home
		}
		return ""
	}
	if ResolveProgram("~/bin/ctxgit", profile) == "" {
		t.Error("ResolveProgram(~/bin/ctxgit) with USERPROFILE alone found nothing")
	}
}

// CardHosts: the hosts whose project config holds ctxgit's session-start
// entry, once each (Claude Code's local settings too); a config that does
// not parse, or one with no start entry, adds none.
func TestCardHosts(t *testing.T) {
	openclawState(t)
	root := t.TempDir()
	if got := CardHosts(root); len(got) != 0 {
		t.Fatalf("CardHosts of an empty workspace = %v", got)
	}
	install(t, Options{Root: root, Host: ClaudeCode, Command: "/opt/bin/ctxgit"})
	install(t, Options{Root: root, Host: ClaudeCode, Local: true, Command: "/opt/bin/ctxgit"})
	install(t, Options{Root: root, Host: Codex, Command: `"C:\Program Files\ctxgit\ctxgit.exe"`})
	os.MkdirAll(filepath.Join(root, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(root, ".gemini", "settings.json"), []byte("{\n  \"hooks\": [\n"), 0o644)
	os.MkdirAll(filepath.Join(root, ".cursor"), 0o755)
	os.WriteFile(filepath.Join(root, ".cursor", "hooks.json"), []byte(`{"version": 1, "hooks": {"postToolUse": [{"command": "ctxgit hook cursor post-tool-use"}]}}`), 0o644)
	if got, want := CardHosts(root), []Host{ClaudeCode, Codex}; !reflect.DeepEqual(got, want) {
		t.Fatalf("CardHosts = %v, want %v", got, want)
	}
}
