package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// installHosts merges ctxgit's hooks into each named host's config (or
// removes them), reporting what changed.
func (a *app) installHosts(w *workspace.Workspace, names []string, local, uninstall, asJSON bool) ([]*hostconfig.Result, error) {
	var results []*hostconfig.Result
	program := hookProgram()
	tool := toolHookProgram(program, executable, exec.LookPath)
	for _, name := range names {
		h, err := hostconfig.ParseHost(name)
		if err != nil {
			return nil, spec.Usage("%v", err)
		}
		res, err := hostconfig.Install(hostconfig.Options{Root: w.Root, Host: h, Local: local, Uninstall: uninstall, Program: program, ToolProgram: tool, Now: w.Env.Now})
		if err != nil {
			return nil, err
		}
		results = append(results, res)
		if asJSON {
			continue
		}
		did := "installed hooks in"
		if uninstall {
			did = "removed hooks in"
		}
		a.printInstalled(h, res, did)
	}
	if !uninstall && !asJSON && len(results) > 0 {
		// The same card the agent gets on a session's first start.
		card := taskstate.OnboardingCard(w)
		if !w.Config.Recovery.Onboarding {
			fmt.Fprintln(a.stdout, "agents get no onboarding card (recovery.onboarding: false); it would say:")
		} else {
			fmt.Fprintln(a.stdout, "on a session's first start the agent gets this card:")
		}
		for _, line := range strings.Split(strings.TrimRight(card, "\n"), "\n") {
			fmt.Fprintln(a.stdout, "  "+line)
		}
	}
	return results, nil
}

// hookProgram is the ctxgit hooks run: the name when a ctxgit is on PATH
// (the host's shell finds it there, and an upgrade in place needs no new
// install), else this binary by its absolute path.
func hookProgram() string {
	if _, err := exec.LookPath(hostconfig.DefaultCommand); err == nil {
		return hostconfig.DefaultCommand
	}
	if exe, err := executable(); err == nil {
		return exe
	}
	return hostconfig.DefaultCommand
}

// toolHookProgram is the ctxgit-hook the tool-call hooks run
// (cmd/ctxgit-hook), or "" when none is installed beside this ctxgit: then
// they run `ctxgit hook` like the other events. It is the name when
// program is too and the ctxgit-hook on PATH is the one beside this
// binary, else that one by its absolute path.
func toolHookProgram(program string, executable func() (string, error), lookPath func(string) (string, error)) string {
	exe, err := executable()
	if err != nil {
		return ""
	}
	name := hostconfig.ToolHookProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	beside := filepath.Join(filepath.Dir(exe), name)
	if fi, err := os.Stat(beside); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if program == hostconfig.DefaultCommand {
		if p, err := lookPath(hostconfig.ToolHookProgram); err == nil && sameFile(p, beside) {
			return hostconfig.ToolHookProgram
		}
	}
	return beside
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// printInstalled says what init did to one host's config: did (e.g.
// "installed hooks in") and the file, its backup, and the host's notes.
func (a *app) printInstalled(h hostconfig.Host, res *hostconfig.Result, did string) {
	if !res.Changed {
		fmt.Fprintf(a.stdout, "%s: %s already up to date\n", h, res.Path)
	} else {
		fmt.Fprintf(a.stdout, "%s: %s %s", h, did, res.Path)
		if res.Backup != "" {
			fmt.Fprintf(a.stdout, " (backup %s)", res.Backup)
		}
		fmt.Fprintln(a.stdout)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(a.stdout, "%s: %s\n", h, n)
	}
}
