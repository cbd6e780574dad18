package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/mcpserver"
)

// sharedFixture is the real Claude Code transcript in ../shared, made
// absolute by TestMain: ctxgit runs inside this process change its
// directory while the scripts and the other parallel tests run.
var sharedFixture = "../../../shared/fixtures/claude-code/real-session-with-compaction.jsonl"

// startEnviron is the environment the tests started with. The tests that
// run beside the scripts start their children with it (testEnviron), not
// with os.Environ(), which a ctxgit run inside the process changes for
// its duration (inprocess_test.go).
var startEnviron []string

func testEnviron() []string { return append([]string(nil), startEnviron...) }

// pkgDir is this package's directory, where go test started the tests.
var pkgDir string

func TestMain(m *testing.M) {
	cmds := map[string]func(){
		// The MCP server `ctxgit mcp` hands over to (cmd/ctxgit-mcp), beside
		// ctxgit in the scripts' PATH directory as an install puts it.
		"ctxgit-mcp": func() { os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		// The small tool-call hook installed beside ctxgit (cmd/ctxgit-hook).
		"ctxgit-hook": func() { os.Exit(hookpath.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		// The launcher BenchmarkPreCompactHookProcess measures through.
		"peakrss": peakRSSMain,
		// main itself, when the product could not be built (below).
		"ctxgit": main,
	}
	if _, child := cmds[strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")]; !child {
		pkgDir, _ = os.Getwd()
		// The scripts set TZ=UTC; the ctxgit runs inside this process
		// read time.Local, which the runtime loads once.
		os.Setenv("TZ", "UTC")
		time.Local = time.UTC
		if abs, err := filepath.Abs(sharedFixture); err == nil {
			sharedFixture = abs
		}
		// The top-level run: the scripts' ctxgit is the shipped program,
		// built once, ahead of testscript's directory of test-binary
		// commands on PATH (product_test.go).
		if dir, err := buildProduct("ctxgit-mcp", "ctxgit-hook"); err != nil {
			fmt.Fprintf(os.Stderr, "cmd/ctxgit tests: ctxgit is the test binary (%v)\n", err)
		} else {
			delete(cmds, "ctxgit")
			productDir = dir
			os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
		}
	}
	testscript.Main(removeAfter{m, productDir}, cmds)
}

// productDir holds the built ctxgit the scripts run, "" when they run the
// test binary as ctxgit.
var productDir string

// removeAfter runs the tests, then removes dir ("" removes nothing).
type removeAfter struct {
	m   *testing.M
	dir string
}

func (r removeAfter) Run() int {
	// testscript.Main has put its commands on PATH by now.
	startEnviron = os.Environ()
	code := r.m.Run()
	if r.dir != "" {
		os.RemoveAll(r.dir)
	}
	return code
}

// TestScripts runs the acceptance scripts in testdata/scripts: each reads as
// a user's terminal session.
func TestScripts(t *testing.T) {
	// Parallel, so the scripts share the test slots with the process
	// tests that mostly wait on their children (the kill tests).
	t.Parallel()
	dir, err := filepath.Abs("../../testdata/scripts")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// After every script: their ctxgit lines ran inside the process
		// (inprocess_test.go) unless switched off.
		inProcessMu.Lock()
		defer inProcessMu.Unlock()
		if productDir != "" && os.Getenv(inProcessEnv) != "0" && ctxgitLines > 0 && inProcessRuns*10 < ctxgitLines*7 {
			t.Errorf("%d of the scripts' %d ctxgit lines ran inside the test process, want at least 70%%", inProcessRuns, ctxgitLines)
		}
	})
	testscript.Run(t, scriptParams(dir))
}

// scriptParams are the settings every acceptance script runs under: a
// fixed clock and identity, no colour, hooks inline, and the commands
// below.
func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Dev")
			env.Setenv("GIT_AUTHOR_EMAIL", "dev@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Dev")
			env.Setenv("GIT_COMMITTER_EMAIL", "dev@example.com")
			env.Setenv("GIT_AUTHOR_DATE", "2026-11-22T09:00:00Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-11-22T09:00:00Z")
			env.Setenv("TZ", "UTC")
			env.Setenv("NO_COLOR", "1")
			// A fixed clock: every checkpoint in a script is dated by it.
			env.Setenv("CTXGIT_NOW", "2026-11-22T10:00:00Z")
			// Hooks take their session checkpoints inline, so a script
			// reads what they wrote and leaves no child running after it;
			// hooks_detach.txtar turns detaching back on.
			env.Setenv("CTXGIT_HOOK_DETACH", "0")
			if abs, err := filepath.Abs(sharedFixture); err == nil {
				env.Setenv("SHARED_TRANSCRIPT", abs)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"ctxgit":    cmdCtxgit,
			"exits":     cmdExits,
			"repostate": cmdRepoState,
			"genplan":   cmdGenPlan,
			"gendecide": cmdGenDecisions,
			"maxchars":  cmdMaxChars,
			"maxlines":  cmdMaxLines,
			"gitinit":   cmdGitInit,
			"treestate": cmdTreeState,
			"taught":    cmdTaught,
			"shown":     cmdShown,
			"pngcheck":  cmdPNGCheck,
			"boxcheck":  cmdBoxCheck,
			"capture":   cmdCapture,
		},
		Condition: func(cond string) (bool, error) {
			// shared: the real host captures in ../shared/fixtures are here
			// (they are beside the repository in CI, maybe not elsewhere).
			if cond == "shared" {
				_, err := os.Stat(sharedFixture)
				return err == nil, nil
			}
			if cond == "full" {
				// The full tier (CTXGIT_FULL=1, which .ci/run sets): the
				// scripts go test ./... leaves out to stay under 90 s.
				return os.Getenv("CTXGIT_FULL") == "1", nil
			}
			if cond == "shells" {
				return shellsCondition()
			}
			if cond == "chromium" {
				return chromiumCondition()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}

// ctxgit ARGS runs ctxgit (runCtxgit: inside this process when it can,
// else the built program), as `exec ctxgit` runs the built program.
func cmdCtxgit(ts *testscript.TestScript, neg bool, args []string) {
	code, err := runCtxgit(ts, args)
	switch {
	case err != nil:
		ts.Fatalf("ctxgit: %v", err)
	case code != 0 && !neg:
		ts.Fatalf("unexpected command failure")
	case code == 0 && neg:
		ts.Fatalf("unexpected command success")
	}
}

// exits [-noperm] N CMD [ARGS...] runs CMD and fails unless it exits with
// status N; its stdout and stderr are then checked as any command's. With
// -noperm CMD runs without the capabilities that let root ignore file
// permissions (tests run as root here), so a read-only file is read-only
// to it as to any user.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 0 && args[0] == "-noperm" {
		args = args[1:]
		if os.Geteuid() == 0 && len(args) >= 2 {
			if _, err := exec.LookPath("setpriv"); err != nil {
				ts.Fatalf("exits -noperm: running as root needs setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
			}
			args = append([]string{args[0], "setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--"}, args[1:]...)
		}
	}
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits [-noperm] N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not a number", args[0])
	}
	got := 0
	if args[1] == "ctxgit" {
		got, err = runCtxgit(ts, args[2:])
	} else {
		err = ts.Exec(args[1], args[2:]...)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got, err = ee.ExitCode(), nil
		}
	}
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// repostate FILE writes what ctxgit must never change in the git repository
// of the current directory — HEAD, the index file's bytes, the branch list
// and `git status --porcelain` — so two such files can be compared.
func cmdRepoState(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: repostate FILE")
	}
	git := func(a ...string) string {
		cmd := exec.Command("git", a...)
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = scriptEnv(ts)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "error: " + strings.TrimSpace(string(out))
		}
		return strings.TrimSpace(string(out))
	}
	index := git("rev-parse", "--path-format=absolute", "--git-path", "index")
	sum := "no index"
	if data, err := os.ReadFile(index); err == nil {
		h := sha256.Sum256(data)
		sum = hex.EncodeToString(h[:])
	}
	state := fmt.Sprintf("HEAD: %s\nsymbolic: %s\nindex: %s\nbranches:\n%s\nstatus:\n%s\n",
		git("rev-parse", "--verify", "-q", "HEAD"), git("symbolic-ref", "-q", "HEAD"), sum,
		git("branch", "--list", "-a"), git("status", "--porcelain", "--untracked-files=all"))
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(state), 0o644); err != nil {
		ts.Fatalf("repostate: %v", err)
	}
}

func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "PATH", "TZ",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// genplan FILE KB writes a plan of about KB kilobytes: a goal, a done-when
// line, 3 steps (the second in progress) and filler notes.
func cmdGenPlan(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genplan FILE KB")
	}
	kb, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("genplan: %v", err)
	}
	var b strings.Builder
	b.WriteString("## Plan: Big plan\n\n**Goal**: migrate the billing service to the new ledger without downtime\n**Done when**: all invoices reconcile\n\n### Steps\n")
	b.WriteString("1. Inventory — list every ledger call ✅\n2. Dual write — write to both ledgers [in progress]\n3. Cut over — switch reads\n\n### Notes\n")
	for i := 0; b.Len() < kb*1024; i++ {
		fmt.Fprintf(&b, "- note %d: the quick brown fox jumps over the lazy dog while the ledger reconciles\n", i)
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("genplan: %v", err)
	}
}

// gendecide FILE N writes a decisions log of N timestamped decisions.
func cmdGenDecisions(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gendecide FILE N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("gendecide: %v", err)
	}
	var b strings.Builder
	b.WriteString("# Decisions\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- 2026-11-22T09:%02d:%02dZ — decision number %d about a detail of the migration\n", i/60%60, i%60, i)
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("gendecide: %v", err)
	}
}

// maxchars FILE N fails if FILE (or stdout/stderr) has more than N
// characters; with ! it fails if it has N or fewer.
func cmdMaxChars(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: maxchars FILE N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("maxchars: %v", err)
	}
	text := ts.ReadFile(args[0])
	got := utf8.RuneCountInString(text)
	if (got > n) != neg {
		ts.Fatalf("%s has %d characters, limit %d", args[0], got, n)
	}
}

// maxlines N fails if stdout has more than N lines.
func cmdMaxLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: maxlines N")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("maxlines: %v", err)
	}
	if got := strings.Count(ts.ReadFile("stdout"), "\n"); got > n {
		ts.Fatalf("stdout has %d lines, limit %d", got, n)
	}
}

// treestate FILE DIR... writes to FILE every entry under each DIR
// (wstest.Listing: path, type, permissions, a link's target or a regular
// file's content), so that cmp of two such files says whether anything
// there changed, byte for byte.
func cmdTreeState(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: treestate FILE DIR...")
	}
	var b strings.Builder
	for _, dir := range args[1:] {
		l, err := wstest.Listing(ts.MkAbs(dir))
		if err != nil {
			ts.Fatalf("treestate: %v", err)
		}
		fmt.Fprintf(&b, "# %s\n%s", dir, l)
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("treestate: %v", err)
	}
}

// gitinit [DIR] makes a git repository with one commit on main.
func cmdGitInit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: gitinit [DIR]")
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	for _, a := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "commit", "-q", "--allow-empty", "-m", "initial"}} {
		if err := ts.Exec("git", a...); err != nil {
			ts.Fatalf("git %s: %v", strings.Join(a, " "), err)
		}
	}
}
