package hostconfig

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The program part of every hook command, per host and OS: what each
// host's shell there reads as the same program (docs/HOSTS.md, "Hooks on
// each OS"). Linux runs the Windows and macOS rows too.
func TestProgramCommand(t *testing.T) {
	const spaced = `C:\Program Files\ctxgit\ctxgit.exe`
	const plainWin = `C:\Users\dev\bin\ctxgit.exe`
	tests := []struct {
		host    Host
		goos    string
		program string
		want    string // "" = ErrUnwritable
	}{
		// A name found on PATH is the same word in every shell.
		{ClaudeCode, "linux", "ctxgit", "ctxgit"},
		{ClaudeCode, "windows", "ctxgit", "ctxgit"},
		{Codex, "windows", "ctxgit", "ctxgit"},
		{Gemini, "windows", "ctxgit", "ctxgit"},
		{Cursor, "darwin", "ctxgit", "ctxgit"},

		// Unix: plain paths stay plain, the rest is single-quoted, with
		// quotes and backslashes written outside the quotes (fish reads
		// a backslash inside them).
		{ClaudeCode, "linux", "/usr/local/bin/ctxgit", "/usr/local/bin/ctxgit"},
		{ClaudeCode, "darwin", "/Users/Dev Name/go/bin/ctxgit", `'/Users/Dev Name/go/bin/ctxgit'`},
		{Codex, "linux", "/home/o'brien/bin/ctxgit", `'/home/o'\''brien/bin/ctxgit'`},
		{Gemini, "linux", `/srv/a\b c/ctxgit`, `'/srv/a'\\'b c/ctxgit'`},
		{Cursor, "darwin", "/opt/$HOME/ctxgit", `'/opt/$HOME/ctxgit'`},
		{ClaudeCode, "linux", "bin/ctxgit", "bin/ctxgit"},

		// Claude Code on Windows: Git Bash, or PowerShell without it.
		// Forward slashes, unquoted, are a path to both; a space has no
		// form both read.
		{ClaudeCode, "windows", plainWin, "C:/Users/dev/bin/ctxgit.exe"},
		{ClaudeCode, "windows", `C:\Users\dev\bin\ctxgit`, "C:/Users/dev/bin/ctxgit.exe"},
		{ClaudeCode, "windows", spaced, ""},
		{ClaudeCode, "windows", `C:\Users\dev$x\ctxgit.exe`, ""},

		// Codex (cmd.exe /C, or PowerShell) and Cursor (PowerShell or
		// cmd.exe): backslashes, unquoted.
		{Codex, "windows", plainWin, plainWin},
		{Codex, "windows", "C:/Users/dev/bin/ctxgit.exe", plainWin},
		{Codex, "windows", spaced, ""},
		{Codex, "windows", `C:\Users\dev&co\ctxgit.exe`, ""},
		{Cursor, "windows", plainWin, plainWin},
		{Cursor, "windows", spaced, ""},

		// Gemini CLI: PowerShell only, so the call operator runs any
		// quoted path; a quote in it is doubled.
		{Gemini, "windows", plainWin, plainWin},
		{Gemini, "windows", spaced, `& 'C:\Program Files\ctxgit\ctxgit.exe'`},
		{Gemini, "windows", `D:\O'Brien tools\ctxgit.exe`, `& 'D:\O''Brien tools\ctxgit.exe'`},
		{Gemini, "windows", "D:/tools (x86)/ctxgit", `& 'D:\tools (x86)\ctxgit.exe'`},

		// OpenClaw runs no shell: the path as it is.
		{OpenClaw, "windows", spaced, spaced},
		{OpenClaw, "linux", "/opt/my tools/ctxgit", "/opt/my tools/ctxgit"},
	}
	for _, tc := range tests {
		got, err := ProgramCommand(tc.host, tc.goos, tc.program)
		if tc.want == "" {
			var ue *ErrUnwritable
			if !errors.As(err, &ue) {
				t.Errorf("%s on %s, %q: got %q, %v; want ErrUnwritable", tc.host, tc.goos, tc.program, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s on %s, %q: got %q, %v; want %q", tc.host, tc.goos, tc.program, got, err, tc.want)
			continue
		}
		// What doctor resolves and owns() recognises is the program
		// again, whatever quoting the shell removes.
		if tc.host != OpenClaw {
			line := got + " hook " + string(tc.host) + " post-tool-use"
			if p := Program(line); !samePath(p, tc.program, tc.goos) {
				t.Errorf("Program(%q) = %q, want %q", line, p, tc.program)
			}
			if !owns("ctxgit", line, "hook") {
				t.Errorf("owns(%q) = false", line)
			}
		}
	}
}

// samePath compares what Program read back with the path given, as the
// OS would: on Windows either slash and an added ".exe".
func samePath(got, want, goos string) bool {
	if goos != "windows" {
		return got == want
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, `\`, "/")
		return strings.TrimSuffix(s, ".exe")
	}
	return norm(got) == norm(want)
}

// A Windows install for each host writes the command its shells there
// read as the program; uninstalling finds those entries again.
func TestInstallWindowsCommands(t *testing.T) {
	const spaced = `C:\Program Files\ctxgit\ctxgit.exe`
	for _, tc := range []struct {
		host Host
		file string
		want string // the PostToolUse-like command
	}{
		{Gemini, ".gemini/settings.json", `& 'C:\Program Files\ctxgit\ctxgit.exe' hook gemini after-tool`},
		{ClaudeCode, ".claude/settings.json", "C:/Users/dev/bin/ctxgit.exe hook claude-code post-tool-use"},
		{Codex, ".codex/hooks.json", `C:\Users\dev\bin\ctxgit.exe hook codex post-tool-use`},
		{Cursor, ".cursor/hooks.json", `C:\Users\dev\bin\ctxgit.exe hook cursor post-tool-use`},
	} {
		t.Run(string(tc.host), func(t *testing.T) {
			root := t.TempDir()
			prog := `C:\Users\dev\bin\ctxgit.exe`
			if tc.host == Gemini {
				prog = spaced
			}
			res := install(t, Options{Root: root, Host: tc.host, Program: prog, GOOS: "windows"})
			body := readFile(t, root, tc.file)
			if !strings.Contains(body, quoteJSON(tc.want)) {
				t.Fatalf("%s lacks %s:\n%s", tc.file, quoteJSON(tc.want), body)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "hooks run "+prog+" by its path") }) {
				t.Errorf("no note that hooks run the path: %q", res.Notes)
			}
			// Installing again changes nothing; uninstalling removes them
			// all, the file with them.
			if again := install(t, Options{Root: root, Host: tc.host, Program: prog, GOOS: "windows"}); again.Changed {
				t.Errorf("second install changed %s: %+v", tc.file, again)
			}
			install(t, Options{Root: root, Host: tc.host, Program: prog, GOOS: "windows", Uninstall: true})
			if fileExists(filepath.Join(root, tc.file)) {
				t.Errorf("%s left after uninstall:\n%s", tc.file, readFile(t, root, tc.file))
			}
		})
	}
}

// A path no shell form can carry to all of a host's shells is not
// written mangled: the hooks run the name, and the result says to put
// ctxgit on PATH.
func TestInstallUnwritablePathFallsBack(t *testing.T) {
	root := t.TempDir()
	res := install(t, Options{Root: root, Host: Codex, Program: `C:\Program Files\ctxgit\ctxgit.exe`, GOOS: "windows"})
	body := readFile(t, root, ".codex/hooks.json")
	if !strings.Contains(body, `"ctxgit hook codex post-tool-use"`) {
		t.Errorf("hooks.json does not run the name:\n%s", body)
	}
	if len(res.Notes) == 0 || !strings.HasPrefix(res.Notes[0], "hooks run `ctxgit`, found on PATH: codex runs hooks with cmd or powershell on windows") ||
		!strings.HasSuffix(res.Notes[0], `put the folder of C:\Program Files\ctxgit\ctxgit.exe on PATH`) {
		t.Errorf("notes = %q", res.Notes)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
