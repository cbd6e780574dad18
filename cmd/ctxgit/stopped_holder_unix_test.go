//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashStoppedHolder is TestCrashInjection's stopped-holder round (issue
// 13 item 2, SPEC §13): for decide and state set, a holder SIGSTOPped
// while it holds the lock, for longer than lock.stale_after, keeps it. A
// second command times out with exit 5 instead of taking it over; the
// holder, resumed, finishes; the second command, retried, succeeds; and
// neither write is lost (before, the resumed holder published its older
// copy over the taker's).
func crashStoppedHolder(t *testing.T, dir string) {
	cfgPath := filepath.Join(dir, ".ctxgit/config.yaml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(cfgPath, cfg, 0o644)
	// A short stale_after keeps the round fast; the stop outlasts it.
	const staleAfter = time.Second
	// Whatever the template writes for the lock section's values.
	short := regexp.MustCompile(`(?m)^  timeout: .*\n  stale_after: .*\n`).ReplaceAll(cfg, []byte("  timeout: 500ms\n  stale_after: 1s\n"))
	if bytes.Equal(short, cfg) {
		t.Fatalf("no lock section to shorten in %s:\n%s", cfgPath, cfg)
	}
	if err := os.WriteFile(cfgPath, short, 0o644); err != nil {
		t.Fatal(err)
	}
	ops := []struct {
		name   string
		holder func(i int) []string // the command stopped while it holds the lock
		taker  func(i int) []string // the command that must not take it over
		file   string               // where both write
		marks  func(i int) (holder, taker string)
	}{
		{"decide",
			func(i int) []string { return []string{"decide", fmt.Sprintf("holder decision %d", i)} },
			func(i int) []string { return []string{"decide", fmt.Sprintf("taker decision %d", i)} },
			".ctxgit/decisions.md",
			func(i int) (string, string) {
				return fmt.Sprintf("holder decision %d", i), fmt.Sprintf("taker decision %d", i)
			}},
		{"state set",
			func(i int) []string { return []string{"state", "set", "next_action", fmt.Sprintf("holder step %d", i)} },
			func(i int) []string {
				return []string{"state", "add", "constraints", fmt.Sprintf("taker constraint %d", i)}
			},
			".ctxgit/task-state.yaml",
			func(i int) (string, string) {
				return fmt.Sprintf("holder step %d", i), fmt.Sprintf("taker constraint %d", i)
			}},
	}
	lockPath := filepath.Join(dir, ".ctxgit/local/lock")
	for _, op := range ops {
		stopped := 0
		for i := 0; stopped < 2; i++ {
			if i == 40 {
				t.Fatalf("%s: stopped the holder while it held the lock only %d times in %d runs", op.name, stopped, i)
			}
			holder := ctxgitCmd(dir, op.holder(i)...)
			var holderErr bytes.Buffer
			holder.Stderr = &holderErr
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- holder.Wait() }()
			if !stopWhileHolding(holder.Process.Pid, lockPath, done) {
				if err := <-done; err != nil {
					t.Fatalf("%s: %v\n%s", op.name, err, holderErr.String())
				}
				continue
			}
			stopped++
			time.Sleep(staleAfter + 200*time.Millisecond)
			// The holder is alive on this host: the taker waits its
			// lock.timeout and gives up, exit 5, naming the holder.
			taker := ctxgitCmd(dir, op.taker(i)...)
			out, err := taker.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 5 || !strings.Contains(string(out), fmt.Sprintf("workspace is locked by pid %d", holder.Process.Pid)) {
				syscall.Kill(holder.Process.Pid, syscall.SIGCONT)
				<-done
				t.Fatalf("%s: a stopped holder's lock was taken over (err %v):\n%s", op.name, err, out)
			}
			syscall.Kill(holder.Process.Pid, syscall.SIGCONT)
			if err := <-done; err != nil {
				t.Fatalf("%s: the resumed holder failed: %v\n%s", op.name, err, holderErr.String())
			}
			mustRun(t, ctxgitCmd(dir, op.taker(i)...))
			data, err := os.ReadFile(filepath.Join(dir, op.file))
			if err != nil {
				t.Fatal(err)
			}
			hm, tm := op.marks(i)
			if !bytes.Contains(data, []byte(hm)) || !bytes.Contains(data, []byte(tm)) {
				t.Fatalf("%s: a write was lost (want %q and %q):\n%s", op.name, hm, tm, data)
			}
		}
		t.Logf("%s: %d holders stopped past lock.stale_after kept their lock", op.name, stopped)
	}
}

// stopWhileHolding SIGSTOPs pid as soon as the lock file names it, and
// reports whether it was stopped still holding it; one that finished
// first is left to exit (done receives its end).
func stopWhileHolding(pid int, lockPath string, done chan error) bool {
	mark := []byte(fmt.Sprintf(`"pid":%d,`, pid))
	for {
		select {
		case err := <-done:
			done <- err
			return false
		default:
		}
		if data, _ := os.ReadFile(lockPath); bytes.Contains(data, mark) {
			syscall.Kill(pid, syscall.SIGSTOP)
			if data, _ := os.ReadFile(lockPath); bytes.Contains(data, mark) {
				return true
			}
			syscall.Kill(pid, syscall.SIGCONT)
			return false
		}
	}
}
