package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// defaultPager is the pager when neither CTXGIT_PAGER nor PAGER names
// one, as git's: quit when the output fits one screen, pass colour,
// leave the screen as it was.
var defaultPager = []string{"less", "-FRX"}

// maxPagerCopy bounds the copy of the output kept to print again when the
// pager fails: past it, a failing pager's output is lost, not printed.
const maxPagerCopy = 16 << 20

// pager is a pager child fed through a pipe: what the command writes goes
// to it, and ends when the command ends (docs/cli.md#global-options).
type pager struct {
	name string // as the person named it, for the warning
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  io.Writer // stdout, for the fallback
	// copy is what was written, until maxPagerCopy; over once past it.
	copy bytes.Buffer
	over bool
	// gone is set once the pager stopped reading (the person quit it):
	// the rest of the output is dropped, and that is no error.
	gone bool
	// sig keeps ctxgit alive on Ctrl-C while the pager runs: the pager
	// has the terminal, and ctxgit must close its input and wait for it
	// rather than leave it behind.
	sig chan os.Signal
}

// pagerCommand is the pager the environment names: CTXGIT_PAGER, then
// PAGER, else less -FRX. Set to "" or "cat", none.
func pagerCommand() (name string, named bool) {
	for _, k := range []string{"CTXGIT_PAGER", "PAGER"} {
		if v, ok := os.LookupEnv(k); ok {
			return strings.TrimSpace(v), true
		}
	}
	return strings.Join(defaultPager, " "), false
}

// startPager sends the rest of the command's output through the pager.
// A pager that cannot start leaves the output as it was: silently for the
// default one (less may not be installed), with a warning for one the
// person named.
func (a *app) startPager() {
	if a.pager != nil || a.stdoutFile == nil {
		return
	}
	name, named := pagerCommand()
	if name == "" || name == "cat" {
		return
	}
	var cmd *exec.Cmd
	if named {
		cmd = namedPagerCmd(name)
	} else {
		cmd = exec.Command(defaultPager[0], defaultPager[1:]...)
	}
	cmd.Env = pagerEnv(os.Environ())
	cmd.Stdout = a.stdoutFile
	if f, ok := a.stderr.(*os.File); ok {
		cmd.Stderr = f
	}
	// Hold the signals before the pager exists, so no Ctrl-C falls
	// between its start and the hold.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		signal.Stop(sig)
		if named {
			a.warn("pager %q did not start (%v): printing without it", name, err)
		}
		return
	}
	p := &pager{name: name, cmd: cmd, in: in, out: a.out.w, sig: sig}
	a.pager = p
	a.out.w = p
}

// pagerEnv is the environment with git's defaults for less and lv where
// the person set none.
func pagerEnv(env []string) []string {
	has := map[string]bool{}
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		has[k] = true
	}
	if !has["LESS"] {
		env = append(env, "LESS=FRX")
	}
	if !has["LV"] {
		env = append(env, "LV=-c")
	}
	return env
}

func (p *pager) Write(b []byte) (int, error) {
	if !p.over {
		if p.copy.Len()+len(b) > maxPagerCopy {
			p.over = true
			p.copy = bytes.Buffer{}
		} else {
			p.copy.Write(b)
		}
	}
	if !p.gone {
		if _, err := p.in.Write(b); err != nil {
			p.gone = true
		}
	}
	return len(b), nil
}

// endPager closes the pager's input and waits for it to end. A pager
// that exits with an error status (not found by the shell, a bad option)
// gets the output printed without it, with a warning.
func (a *app) endPager() {
	p := a.pager
	if p == nil {
		return
	}
	a.pager = nil
	a.out.w = p.out
	p.in.Close()
	err := p.cmd.Wait()
	signal.Stop(p.sig)
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ee.ExitCode() < 0 {
		return // done, or stopped by a signal: the person saw it
	}
	if p.over {
		a.warn("pager %q failed (%v)", p.name, err)
		return
	}
	a.warn("pager %q failed (%v): printing without it", p.name, err)
	a.out.Write(p.copy.Bytes())
}
