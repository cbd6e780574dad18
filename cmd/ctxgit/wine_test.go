package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The Windows tier (CONTRIBUTING.md, "The Windows tier under Wine"):
// scripts/wine.sh builds the Windows binaries and runs the scripts in
// testdata/wine, and the acceptance scripts testdata/wine/scripts.txt
// names, with every ctxgit line run by ctxgit.exe under Wine, and the rest
// of the script (git, the assertions) on this machine.
// CTXGIT_WINE names the wine program, CTXGIT_WINE_BIN the directory that
// holds ctxgit.exe, ctxgit-hook.exe and ctxgit-mcp.exe; WINEPREFIX and
// WINEDEBUG are passed on to it.
func TestWindowsUnderWine(t *testing.T) {
	wine, bin := os.Getenv("CTXGIT_WINE"), os.Getenv("CTXGIT_WINE_BIN")
	if wine == "" || bin == "" {
		t.Skip("CTXGIT_WINE and CTXGIT_WINE_BIN are unset: scripts/wine.sh runs this")
	}
	// Wine starts its system processes (services.exe, winedevice.exe,
	// …) with the first program a server runs, and they inherit that
	// program's stdout: started here with none, they cannot hold a
	// script line's output open after it exits (scripts/wine.sh keeps the
	// server, and so them, for the whole tier).
	if err := exec.Command(wine, "wineboot").Run(); err != nil {
		t.Fatalf("wine wineboot: %v", err)
	}
	dir, err := filepath.Abs("../../testdata/wine")
	if err != nil {
		t.Fatal(err)
	}
	p := scriptParams(dir)
	// testdata/wine's own scripts, and those of testdata/scripts that
	// scripts.txt names: they run unchanged against ctxgit.exe.
	own, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	p.Dir, p.Files = "", own
	list, err := os.ReadFile(filepath.Join(dir, "scripts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(list), "\n") {
		if name := strings.TrimSpace(line); name != "" && !strings.HasPrefix(name, "#") {
			p.Files = append(p.Files, filepath.Join(dir, "..", "scripts", name+".txtar"))
		}
	}
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		for _, k := range []string{"WINEPREFIX", "WINEDEBUG", "WINEDLLOVERRIDES"} {
			env.Setenv(k, os.Getenv(k))
		}
		// Wine keeps its server's socket under TMPDIR: the tier's
		// server, not one per script inside the work directory (where
		// ctxgit would also see the socket as a file of the workspace).
		env.Setenv("TMPDIR", os.TempDir())
		// No ctxgit of this machine's: a line that runs ctxgit another
		// way than as a script's ctxgit command (sh -c, a git hook)
		// finds none, rather than the Linux build.
		var path []string
		for _, d := range filepath.SplitList(env.Getenv("PATH")) {
			if d != productDir {
				path = append(path, d)
			}
		}
		env.Setenv("PATH", strings.Join(path, string(filepath.ListSeparator)))
		env.Setenv("WINE", wine)
		env.Setenv("CTXGIT_EXE", filepath.Join(bin, "ctxgit.exe"))
		env.Setenv("CTXGIT_HOOK_EXE", filepath.Join(bin, "ctxgit-hook.exe"))
		// The work directory as the Windows program names it: Wine maps
		// the root of this file system to drive Z:.
		env.Setenv("WINWORK", winePath(env.WorkDir))
		return nil
	}
	exe := func(name string) func(*testscript.TestScript, bool, []string) {
		return func(ts *testscript.TestScript, neg bool, args []string) {
			code, err := runWine(ts, wine, filepath.Join(bin, name+".exe"), args)
			switch {
			case err != nil:
				ts.Fatalf("%s.exe under wine: %v", name, err)
			case code != 0 && !neg:
				ts.Fatalf("unexpected command failure")
			case code == 0 && neg:
				ts.Fatalf("unexpected command success")
			}
		}
	}
	// testscript's builtins (the test binary's commands: ctxgit-hook,
	// ctxgit-mcp) come before these: a script runs ctxgit-hook.exe as
	// exec $WINE $CTXGIT_HOOK_EXE, and ctxgit is the test binary's
	// command unless the product was built.
	if productDir == "" {
		t.Fatal("the product was not built (see the line TestMain printed): the scripts' ctxgit would be this machine's")
	}
	p.Cmds["ctxgit"] = exe("ctxgit")
	// exits N ctxgit ARGS: the exit code ctxgit.exe gave.
	p.Cmds["exits"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 || args[1] != "ctxgit" {
			ts.Fatalf("usage: exits N ctxgit [args...]")
		}
		want, err := strconv.Atoi(args[0])
		if err != nil {
			ts.Fatalf("exits: %q is not a number", args[0])
		}
		got, err := runWine(ts, wine, filepath.Join(bin, "ctxgit.exe"), args[2:])
		if err != nil {
			ts.Fatalf("ctxgit.exe under wine: %v", err)
		}
		if got != want {
			ts.Fatalf("exit status %d, want %d", got, want)
		}
	}
	// winfile FILE rewrites FILE with $VARS expanded and CRLF line
	// endings: a payload or transcript as a Windows host writes it.
	p.Cmds["winfile"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: winfile FILE")
		}
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		text := os.Expand(string(data), func(k string) string {
			// JSON carries a Windows path's backslashes escaped.
			return strings.ReplaceAll(ts.Getenv(k), `\`, `\\`)
		})
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(text), 0o644))
	}
	testscript.Run(t, p)
}

// runWine runs a Windows program under wine and returns its exit code.
// A line Wine's own client library prints when a thread's connection to
// the server breaks as the process exits ("wine client error:TID: …",
// server_protocol_error in Wine's ntdll; seen once in a few tiers after
// ctxgit mcp ended at the end of its input) is Wine's, not the
// program's: it is taken out of the line's stderr, and logged.
func runWine(ts *testscript.TestScript, wine, exe string, args []string) (int, error) {
	err := ts.Exec(wine, append([]string{exe}, args...)...)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code, err = ee.ExitCode(), nil
	}
	if stderr := ts.ReadFile("stderr"); strings.Contains(stderr, "wine client error:") {
		stdout := ts.ReadFile("stdout")
		kept, dropped := wineClientErrors(stderr)
		ts.Logf("wine's own lines, left out of stderr:\n%s", dropped)
		fmt.Fprint(ts.Stdout(), stdout)
		fmt.Fprint(ts.Stderr(), kept)
	}
	return code, err
}

// wineClientErrors splits stderr into the program's lines and Wine's
// client errors.
func wineClientErrors(stderr string) (kept, dropped string) {
	var k, d strings.Builder
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if wineClientError.MatchString(line) {
			d.WriteString(line)
		} else {
			k.WriteString(line)
		}
	}
	return k.String(), d.String()
}

var wineClientError = regexp.MustCompile(`^wine client error:[0-9a-f]+: `)

// winePath is the Windows name Wine gives an absolute path of this
// machine: Z: is the root directory.
func winePath(p string) string {
	return `Z:` + strings.ReplaceAll(p, "/", `\`)
}

// scripts/wine.sh says which tool it lacks before it starts, and the
// packages to install: a wine with no wineserver beside it or on PATH
// (that was a silent exit 1), and a wine without Wine's preloader beside
// it, with which about one program start in 4,000 failed ("failed to map
// the shared user data": wine64's heap lay where Windows' shared data
// goes), a script line's exit 1 with no output once in a few tiers.
func TestWineScriptNamesAMissingTool(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Wine tier runs on Linux")
	}
	for _, tc := range []struct {
		beside  []string // beside the stand-in wine64
		missing string
	}{
		{nil, "wineserver"},
		{[]string{"wineserver"}, "/wine64-preloader"},
	} {
		bin := t.TempDir()
		for _, tool := range []string{"bash", "dirname", "readlink"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skip("needs", tool)
			}
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
		dir := t.TempDir()
		for _, name := range append([]string{"wine64"}, tc.beside...) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(filepath.Join(bin, "bash"), "../../scripts/wine.sh")
		cmd.Env = []string{"PATH=" + bin, "WINE=" + filepath.Join(dir, "wine64"), "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		want := tc.missing + " is missing (apt-get install wine64 wine64-preloader gcc-mingw-w64-x86-64)\n"
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.HasPrefix(string(out), "wine.sh: ") || !strings.HasSuffix(string(out), want) {
			t.Errorf("wine.sh without %s: %v\n%s", tc.missing, err, out)
		}
	}
}

// Only Wine's client-error lines leave a line's stderr; ctxgit's own
// lines, one that merely mentions Wine included, stay.
func TestWineClientErrorsLeaveOnlyWinesLines(t *testing.T) {
	stderr := "ctxgit: warning: one\nwine client error:678: \nwine client error:1a4: read: Connection reset by peer\nctxgit: note: wine client error: is text\n"
	kept, dropped := wineClientErrors(stderr)
	if kept != "ctxgit: warning: one\nctxgit: note: wine client error: is text\n" {
		t.Errorf("kept %q", kept)
	}
	if dropped != "wine client error:678: \nwine client error:1a4: read: Connection reset by peer\n" {
		t.Errorf("dropped %q", dropped)
	}
}
