package hostconfig

import (
	"strings"
	"testing"
)

// With ctxgit-hook installed beside ctxgit, init --host writes it for the
// per-tool-call events only (Gemini CLI's AfterTool and PreCompress); re-running init without it switches back, and
// Inspect (doctor's hooks check) and --uninstall recognise both lines.
func TestToolHookProgram(t *testing.T) {
	for _, c := range []struct {
		host  Host
		rel   string
		tools []string
	}{
		{ClaudeCode, ".claude/settings.json", []string{"ctxgit-hook claude-code post-tool-use"}},
		{Codex, ".codex/hooks.json", []string{"ctxgit-hook codex post-tool-use"}},
		{Gemini, ".gemini/settings.json", []string{"ctxgit-hook gemini pre-compress", "ctxgit-hook gemini after-tool"}},
		{Cursor, ".cursor/hooks.json", []string{"ctxgit-hook cursor post-tool-use"}},
	} {
		t.Run(string(c.host), func(t *testing.T) {
			root := t.TempDir()
			install(t, Options{Root: root, Host: c.host, GOOS: "linux"})
			f := readFile(t, root, c.rel)
			if strings.Contains(f, "ctxgit-hook") {
				t.Fatalf("without ctxgit-hook:\n%s", f)
			}
			for _, tool := range c.tools {
				if old := strings.Replace(tool, "ctxgit-hook ", "ctxgit hook ", 1); !strings.Contains(f, `"`+old+`"`) {
					t.Fatalf("without ctxgit-hook, no %q:\n%s", old, f)
				}
			}
			res := install(t, Options{Root: root, Host: c.host, GOOS: "linux", ToolProgram: "ctxgit-hook"})
			f = readFile(t, root, c.rel)
			if strings.Count(f, "ctxgit-hook") != len(c.tools) {
				t.Fatalf("with ctxgit-hook:\n%s", f)
			}
			for i, tool := range c.tools {
				if old := strings.Replace(tool, "ctxgit-hook ", "ctxgit hook ", 1); !strings.Contains(f, `"`+tool+`"`) || strings.Contains(f, `"`+old+`"`) {
					t.Fatalf("with ctxgit-hook, %q:\n%s", tool, f)
				}
				if len(res.Added) != len(c.tools) || len(res.Removed) != len(c.tools) || !strings.HasSuffix(res.Added[i], tool) {
					t.Errorf("switch: added %q, removed %q", res.Added, res.Removed)
				}
			}
			if res := install(t, Options{Root: root, Host: c.host, GOOS: "linux", ToolProgram: "ctxgit-hook"}); res.Changed {
				t.Errorf("second install changed the file: %+v", res)
			}
			for _, in := range Inspect(root) {
				if len(in.Missing)+len(in.Extra) != 0 || in.Err != nil {
					t.Errorf("inspect: missing %q, extra %q, %v", in.Missing, in.Extra, in.Err)
				}
			}
			install(t, Options{Root: root, Host: c.host, GOOS: "linux"})
			if f := readFile(t, root, c.rel); strings.Contains(f, "ctxgit-hook") {
				t.Fatalf("switched back:\n%s", f)
			}
			install(t, Options{Root: root, Host: c.host, GOOS: "linux", ToolProgram: "/opt/ctxgit bin/ctxgit-hook"})
			install(t, Options{Root: root, Host: c.host, Uninstall: true})
			if in := Inspect(root); len(in) != 0 {
				t.Errorf("left after uninstall: %+v", in)
			}
		})
	}
}

func TestOwnsToolHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ctxgit-hook cursor post-tool-use":                                 true,
		"/usr/local/bin/ctxgit-hook codex post-tool-use":                   true,
		"'/opt/my tools/ctxgit-hook' gemini after-tool":                    true,
		`& "C:\Program Files\ctxgit\ctxgit-hook.exe" cursor post-tool-use`: true,
		"ctxgit hook cursor post-tool-use":                                 false,
		"other-hook cursor post-tool-use":                                  false,
		"ctxgit-hook":                                                      false,
	} {
		if got := ownsToolHook(cmd); got != want {
			t.Errorf("ownsToolHook(%q) = %v", cmd, got)
		}
	}
}
