package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// inProcessEnv switches the scripts' bare `ctxgit` lines back to starting
// the built program every time (CTXGIT_TEST_INPROCESS=0).
const inProcessEnv = "CTXGIT_TEST_INPROCESS"

// inProcessMu serialises the ctxgit runs made inside this process: each
// takes the process's working directory, environment and os.Args[0] for
// its run, as a started ctxgit has them to itself.
var inProcessMu sync.Mutex

// inProcessRuns counts them, and ctxgitLines every script line that ran
// ctxgit (both under inProcessMu), for TestScripts' check that the
// scripts do run inside the process.
var inProcessRuns, ctxgitLines int

// truePath is true(1), which clears a stdin a ctxgit run inside the
// process read; "" where there is none (those lines start ctxgit).
var truePath, _ = exec.LookPath("true")

// runCtxgit runs ctxgit with args for a script line and returns its exit
// code; err is set only when it could not be run at all.
//
// Why inside the process: a script starts ctxgit some 1,700 times, and a
// start costs about 40 ms of CPU time (exec, the runtime, package
// initialisation) against about 10 ms for a checkpoint's own work, which
// made go test ./... twice its 90 s budget (CONTRIBUTING.md, "Test
// tiers"). A run inside the process is run(), the whole program after
// main's collector settings, on the script's directory, environment,
// pending stdin and streams. What needs a process of its own still gets
// one, the built program: a line with a terminal (or a stdout that
// counts as one), a script that set its own PATH, `exec ctxgit`, and
// every ctxgit that ctxgit itself, a git hook or a host's hook command
// starts.
func runCtxgit(ts *testscript.TestScript, args []string) (int, error) {
	inProcessMu.Lock()
	ctxgitLines++
	inProcessMu.Unlock()
	if env, stdin, ok := inProcessState(ts); ok {
		code := runInProcess(ts, env, stdin, args)
		if stdin != "" {
			// testscript clears a pending stdin only when it starts a
			// process: the cheapest there is.
			ts.Exec(truePath)
		}
		return code, nil
	}
	err := ts.Exec("ctxgit", args...)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// inProcessState is the script's environment when this line can run
// inside the process. testscript keeps the environment, a pending stdin
// and a terminal for the next command in unexported fields and has no
// getter for them; they are read (never written) by reflection, and a
// testscript whose fields differ runs every line as a process.
func inProcessState(ts *testscript.TestScript) (env []string, stdin string, ok bool) {
	if productDir == "" || os.Getenv(inProcessEnv) == "0" {
		return nil, "", false
	}
	v := reflect.ValueOf(ts).Elem()
	envField, stdinField, ttyin, pty := v.FieldByName("env"), v.FieldByName("stdin"), v.FieldByName("ttyin"), v.FieldByName("stdinPty")
	if envField.Kind() != reflect.Slice || stdinField.Kind() != reflect.String || ttyin.Kind() != reflect.String || pty.Kind() != reflect.Bool {
		return nil, "", false
	}
	if ttyin.String() != "" || pty.Bool() || stdinField.String() != "" && truePath == "" {
		return nil, "", false // testscript hands these to the next process
	}
	env = make([]string, envField.Len())
	for i := range env {
		env[i] = envField.Index(i).String()
		k, v, _ := strings.Cut(env[i], "=")
		switch {
		case k == testTerminalEnv && v != "":
			// A stdout that counts as a terminal gets a pager, which
			// needs the process's own stdout file.
			return nil, "", false
		case k == "PATH" && v != os.Getenv("PATH"):
			// A script's own PATH (a stand-in git or pager): PATH
			// stays the process's, which the tests beside the
			// scripts look programs up in.
			return nil, "", false
		}
	}
	return env, stdinField.String(), true
}

// runInProcess runs ctxgit's run() as the script's process would: in its
// directory, with its environment, os.Args[0] and the executable the
// built ctxgit (os.Args too: urfave/cli reads it), stdin the script's
// pending one, stdout and stderr the script's.
func runInProcess(ts *testscript.TestScript, env []string, stdin string, args []string) (code int) {
	inProcessMu.Lock()
	defer inProcessMu.Unlock()
	inProcessRuns++
	savedEnv, savedArgs, savedExecutable := os.Environ(), os.Args, executable
	savedDir, err := os.Getwd()
	if err != nil {
		ts.Fatalf("ctxgit in process: %v", err)
	}
	product := filepath.Join(productDir, "ctxgit")
	defer func() {
		os.Chdir(savedDir)
		setEnviron(savedEnv)
		os.Args, executable = savedArgs, savedExecutable
		if r := recover(); r != nil {
			ts.Fatalf("ctxgit %s panicked: %v\n%s", strings.Join(args, " "), r, debug.Stack())
		}
	}()
	dir := ts.MkAbs(".")
	// TMPDIR stays the process's: the tests running beside the scripts
	// make their temporary directories from it.
	setEnviron(append(env, "PWD="+dir, "TMPDIR="+os.Getenv("TMPDIR")))
	if err := os.Chdir(dir); err != nil {
		ts.Fatalf("ctxgit in process: %v", err)
	}
	// urfave/cli reads os.Args for flag completion.
	os.Args = append([]string{product}, args...)
	executable = func() (string, error) { return product, nil }
	code = run(append([]string{"ctxgit"}, args...), strings.NewReader(stdin), ts.Stdout(), ts.Stderr())
	if code != 0 {
		ts.Logf("[exit status %d]", code)
	}
	return code
}

// setEnviron makes the process's environment env, by setting and
// unsetting one variable at a time rather than clearing it: PATH and
// TMPDIR, the same in both, are never absent for a moment.
func setEnviron(env []string) {
	want := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			want[k] = v
		}
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "" {
			if _, keep := want[k]; !keep {
				os.Unsetenv(k)
			}
		}
	}
	for k, v := range want {
		if os.Getenv(k) != v {
			os.Setenv(k, v)
		}
	}
}
