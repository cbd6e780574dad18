package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ctxgitRun runs the CLI in-process and returns its exit code and output.
func ctxgitRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"ctxgit"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func mustCtxgit(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := ctxgitRun(t, args...)
	if code != 0 {
		t.Fatalf("ctxgit %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// repoState is what ctxgit must never change in a repository.
func repoState(t *testing.T, dir string) string {
	t.Helper()
	index, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	sum := sha256.Sum256(index)
	return git(t, dir, "rev-parse", "HEAD") + git(t, dir, "branch", "--list", "-a") +
		git(t, dir, "status", "--porcelain", "--untracked-files=all") + hex.EncodeToString(sum[:])
}

func sharingEnv(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com", "GIT_COMMITTER_NAME": "Dev",
		"GIT_COMMITTER_EMAIL": "dev@example.com", "CTXGIT_NOW": "2026-11-22T10:00:00Z",
	} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"CTXGIT_ROOT", "CTXGIT_SESSION", "GIT_DIR", "GIT_WORK_TREE"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
}

// serveGitDaemon serves base over git:// on a free loopback port and
// returns the URL prefix and a function that stops the server.
func serveGitDaemon(t *testing.T, base string) (string, func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// git-daemon itself, not `git daemon`: git would run it as a child
	// that outlives a kill of the parent.
	daemon := filepath.Join(strings.TrimSpace(git(t, base, "--exec-path")), "git-daemon")
	cmd := exec.Command(daemon, "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--informative-errors", "--base-path="+base, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon: %v", err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("git daemon did not start")
		}
	}
	return "git://" + addr + "/", stop
}

// SPEC §19: two workspaces share checkpoints through a server the test
// starts on the loopback — git daemon, and git http-backend behind an
// HTTP server — and stops afterwards.
func TestPushFetchThroughServers(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, server := range []string{"git daemon", "http-backend"} {
		t.Run(server, func(t *testing.T) {
			sharingEnv(t)
			base := t.TempDir()
			remote := filepath.Join(base, "remote.git")
			git(t, base, "init", "-q", "--bare", remote)
			git(t, remote, "config", "http.receivepack", "true")
			var url string
			var stop func()
			if server == "git daemon" {
				var prefix string
				prefix, stop = serveGitDaemon(t, base)
				url = prefix + "remote.git"
			} else {
				h := &cgi.Handler{
					Path: filepath.Join(strings.TrimSpace(git(t, base, "--exec-path")), "git-http-backend"),
					Env:  []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1"},
				}
				srv := httptest.NewServer(h)
				stop = srv.Close
				t.Cleanup(srv.Close)
				url = srv.URL + "/remote.git"
			}

			alice := filepath.Join(t.TempDir(), "alice")
			git(t, filepath.Dir(alice), "init", "-q", "-b", "main", alice)
			os.WriteFile(filepath.Join(alice, "notes.txt"), []byte("notes\n"), 0o644)
			git(t, alice, "add", "notes.txt")
			git(t, alice, "commit", "-qm", "initial")
			git(t, alice, "remote", "add", "origin", url)
			mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice one")
			before := repoState(t, alice)

			out := mustCtxgit(t, "push", "--root", alice, "origin")
			if !strings.Contains(out, "pushed to origin ("+url+")") || !strings.Contains(out, "new           default  cp_001") {
				t.Fatalf("push said:\n%s", out)
			}
			if after := repoState(t, alice); after != before {
				t.Fatalf("push changed the repository:\n%s\n---\n%s", before, after)
			}
			head := strings.TrimSpace(git(t, alice, "rev-parse", "refs/ctxgit/sessions/default"))
			if got := strings.TrimSpace(git(t, remote, "rev-parse", "refs/ctxgit/sessions/default")); got != head {
				t.Fatalf("remote has %s, alice %s", got, head)
			}
			git(t, remote, "fsck", "--strict", "--no-dangling")

			// Bob, a plain directory, fetches by URL into origin's namespace.
			bob := t.TempDir()
			os.WriteFile(filepath.Join(bob, "b.txt"), []byte("b\n"), 0o644)
			out = mustCtxgit(t, "fetch", "--root", bob, url, "--as", "origin")
			if !strings.Contains(out, "new           origin/default  cp_001") {
				t.Fatalf("fetch said:\n%s", out)
			}
			store := filepath.Join(bob, ".ctxgit", "store.git")
			if got := strings.TrimSpace(git(t, bob, "--git-dir="+store, "rev-parse", "refs/ctxgit/remotes/origin/sessions/default")); got != head {
				t.Fatalf("bob fetched %s, want %s", got, head)
			}
			git(t, bob, "--git-dir="+store, "fsck", "--strict", "--no-dangling")
			if out := mustCtxgit(t, "log", "--root", bob, "-s", "origin/default"); !strings.Contains(out, "alice one") {
				t.Fatalf("log -s origin/default:\n%s", out)
			}
			if code, _, _ := ctxgitRun(t, "log", "--root", bob); code != 4 {
				t.Fatalf("bob has a local session after a fetch (log exit %d)", code)
			}

			// Alice goes on; bob's second fetch brings only what is new.
			os.WriteFile(filepath.Join(alice, "notes.txt"), []byte("notes 2\n"), 0o644)
			t.Setenv("CTXGIT_NOW", "2026-11-22T10:05:00Z")
			mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice two")
			mustCtxgit(t, "push", "--root", alice, "origin")
			out = mustCtxgit(t, "fetch", "--root", bob, url, "--as", "origin")
			if !strings.Contains(out, "fast-forward  origin/default  cp_002") {
				t.Fatalf("second fetch said:\n%s", out)
			}
			if strings.Contains(out, ": 0 objects") || strings.Contains(out, ": 9 objects") {
				t.Fatalf("second fetch moved the wrong amount:\n%s", out)
			}
			git(t, bob, "--git-dir="+store, "fsck", "--strict", "--no-dangling")
			if after := repoState(t, alice); !strings.HasPrefix(after, strings.SplitN(before, "\n", 2)[0]) {
				t.Fatalf("HEAD moved: %s", after)
			}

			// The remote's hooks speak through ctxgit, and a refusal is a
			// rejected session, exit 5.
			hook := filepath.Join(remote, "hooks", "pre-receive")
			os.WriteFile(hook, []byte("#!/bin/sh\necho 'policy: no pushes on Fridays' >&2\nexit 1\n"), 0o755)
			os.WriteFile(filepath.Join(alice, "notes.txt"), []byte("notes 3\n"), 0o644)
			t.Setenv("CTXGIT_NOW", "2026-11-22T10:10:00Z")
			mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice three")
			code, out, errOut := ctxgitRun(t, "push", "--root", alice, "origin")
			if code != 5 || !strings.Contains(errOut, "ctxgit: remote: policy: no pushes on Fridays\n") ||
				!strings.Contains(out, "rejected      default  refused by the remote: pre-receive hook declined") {
				t.Fatalf("push against a refusing hook: exit %d\n%s%s", code, out, errOut)
			}
			os.Remove(hook)

			// With the server gone, fetch fails with one line, exit 1.
			stop()
			code, out, errOut = ctxgitRun(t, "fetch", "--root", bob, url, "--as", "origin")
			if code != 1 || out != "" || !strings.HasPrefix(errOut, "ctxgit: cannot reach ") || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("fetch from a stopped server: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}
