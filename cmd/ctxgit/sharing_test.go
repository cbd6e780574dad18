package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
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

// basicAuth lets through only requests with the user and password, and
// asks for them (401, as GitHub does) otherwise.
func basicAuth(user, pass string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="ctxgit test"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sshShim writes a GIT_SSH_COMMAND stand-in that runs the remote command
// on this machine. When $WORK/race holds "REPO REF ID", it first moves
// that ref in REPO, once, as another pusher would between ctxgit's
// listing and its push.
func sshShim(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "ssh-shim")
	script := "#!/bin/sh\nfor a; do last=$a; done\n" +
		"case \"$last\" in git-receive-pack*) if [ -f " + dir + "/race ]; then set -- $(cat " + dir + "/race); rm " + dir + "/race; git --git-dir=\"$1\" update-ref \"$2\" \"$3\"; fi;; esac\n" +
		"exec sh -c \"$last\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// docs/cli.md#push, docs/cli.md#fetch: two workspaces share checkpoints through
// servers the test starts on the loopback and stops afterwards — git daemon,
// git http-backend behind an HTTP server that requires Basic authentication
// (the password comes from a credential helper in the repository's config,
// never from the URL), and ssh through a GIT_SSH_COMMAND shim. Network remotes
// go through the user's git (docs/design.md, "Transports").
func TestPushFetchThroughServers(t *testing.T) {
	if os.Getenv("CTXGIT_FULL") != "1" {
		// push_fetch.txtar and TestRemoteRoundTrip's local transports run
		// in go test ./...; the servers cost seconds past its 90 s.
		t.Skip("the full tier: CTXGIT_FULL=1 go test -run TestPushFetchThroughServers ./cmd/ctxgit (.ci/run)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, server := range []string{"git daemon", "http-backend", "ssh"} {
		t.Run(server, func(t *testing.T) {
			sharingEnv(t)
			base := t.TempDir()
			remote := filepath.Join(base, "remote.git")
			git(t, base, "init", "-q", "--bare", remote)
			git(t, remote, "config", "http.receivepack", "true")
			var url string
			var stop func()
			var credHelper string
			shim := ""
			switch server {
			case "git daemon":
				var prefix string
				prefix, stop = serveGitDaemon(t, base)
				url = prefix + "remote.git"
			case "http-backend":
				h := &cgi.Handler{
					Path: filepath.Join(strings.TrimSpace(git(t, base, "--exec-path")), "git-http-backend"),
					Env:  []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1"},
				}
				srv := httptest.NewServer(basicAuth("alice", "s3cret-pw", h))
				stop = srv.Close
				t.Cleanup(srv.Close)
				url = srv.URL + "/remote.git"
				credHelper = "!f() { test \"$1\" = get && echo username=alice && echo password=s3cret-pw; }; f"
			case "ssh":
				shim = sshShim(t)
				t.Setenv("GIT_SSH_COMMAND", shim)
				url = "ssh://example.invalid" + remote
				stop = func() {
					os.WriteFile(shim, []byte("#!/bin/sh\necho 'ssh: connect to host example.invalid port 22: Connection refused' >&2\nexit 255\n"), 0o755)
				}
			}

			alice := filepath.Join(t.TempDir(), "alice")
			git(t, filepath.Dir(alice), "init", "-q", "-b", "main", alice)
			os.WriteFile(filepath.Join(alice, "notes.txt"), []byte("notes\n"), 0o644)
			git(t, alice, "add", "notes.txt")
			git(t, alice, "commit", "-qm", "initial")
			git(t, alice, "remote", "add", "origin", url)
			if credHelper != "" {
				// Without the helper the server refuses: no password is
				// in the URL.
				mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice one")
				t.Setenv("GIT_TERMINAL_PROMPT", "0")
				code, _, errOut := ctxgitRun(t, "push", "--root", alice, "origin")
				// The first push's notice comes first, then the one error.
				if code != 1 || !strings.HasPrefix(errOut, "note: first push to origin") || !strings.Contains(errOut, "\nctxgit: cannot reach "+url+": ") {
					t.Fatalf("push without credentials: exit %d\n%s", code, errOut)
				}
				git(t, alice, "config", "credential.helper", credHelper)
			} else {
				mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice one")
			}
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
			if got := strings.TrimSpace(git(t, alice, "rev-parse", "refs/ctxgit/remotes/origin/sessions/default")); got != head {
				t.Fatalf("after the push, alice's fetched ref is %s, want %s", got, head)
			}
			git(t, remote, "fsck", "--strict", "--no-dangling")

			// Bob, a plain directory, fetches by URL into origin's
			// namespace; his helper lives in his private store's config.
			bob := t.TempDir()
			os.WriteFile(filepath.Join(bob, "b.txt"), []byte("b\n"), 0o644)
			if credHelper != "" {
				mustCtxgit(t, "git", "--root", bob, "--", "config", "credential.helper", credHelper)
			}
			out = mustCtxgit(t, "fetch", "--root", bob, url, "--as", "origin")
			if !strings.Contains(out, "new           origin/default  cp_001") || strings.Contains(out, ": 0 objects") {
				t.Fatalf("fetch said:\n%s", out)
			}
			store := filepath.Join(bob, ".ctxgit", "store.git")
			if got := strings.TrimSpace(git(t, bob, "--git-dir="+store, "rev-parse", "refs/ctxgit/remotes/origin/sessions/default")); got != head {
				t.Fatalf("bob fetched %s, want %s", got, head)
			}
			// Nothing of the fetch's staging is left, and git finds the
			// store sound.
			if refs := git(t, bob, "--git-dir="+store, "for-each-ref", "--format=%(refname)"); refs != "refs/ctxgit/remotes/origin/sessions/default\n" {
				t.Fatalf("bob's refs after the fetch:\n%s", refs)
			}
			git(t, bob, "--git-dir="+store, "fsck", "--strict", "--no-dangling")
			if out := mustCtxgit(t, "log", "--root", bob, "-s", "origin/default"); !strings.Contains(out, "alice one") {
				t.Fatalf("log -s origin/default:\n%s", out)
			}
			// Bob has no session of his own: a read picks the fetched one
			// (docs/cli.md#log); none became his.
			if code, out, errOut := ctxgitRun(t, "log", "--root", bob); code != 0 || !strings.Contains(out, "alice one") {
				t.Fatalf("bob's log after a fetch: exit %d\n%s%s", code, out, errOut)
			}

			// Alice goes on; bob's second fetch brings only what is new.
			os.WriteFile(filepath.Join(alice, "notes.txt"), []byte("notes 2\n"), 0o644)
			t.Setenv("CTXGIT_NOW", "2026-11-22T10:05:00Z")
			mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice two")
			out = mustCtxgit(t, "push", "--root", alice, "origin")
			if !strings.Contains(out, "fast-forward  default  cp_002") {
				t.Fatalf("second push said:\n%s", out)
			}
			out = mustCtxgit(t, "fetch", "--root", bob, url, "--as", "origin", "--json")
			if !strings.Contains(out, `"status": "fast-forward"`) || strings.Contains(out, `"objects": 0,`) {
				t.Fatalf("second fetch said:\n%s", out)
			}
			git(t, bob, "--git-dir="+store, "fsck", "--strict", "--no-dangling")

			// Bob's own chain is not a fast-forward of alice's: refused
			// without --force (exit 5), the remote unchanged.
			t.Setenv("CTXGIT_NOW", "2026-11-22T10:07:00Z")
			mustCtxgit(t, "checkpoint", "--root", bob, "-m", "bob one")
			code, out, errOut := ctxgitRun(t, "push", "--root", bob, url, "--as", "origin")
			if code != 5 || !strings.Contains(out, "rejected      default  non-fast-forward: ") ||
				!strings.HasPrefix(errOut, "ctxgit: 1 session rejected by origin: refs/ctxgit/sessions/default: non-fast-forward") {
				t.Fatalf("non-fast-forward push: exit %d\n%s%s", code, out, errOut)
			}
			alices := strings.TrimSpace(git(t, remote, "rev-parse", "refs/ctxgit/sessions/default"))
			// --force replaces alice's chain.
			out = mustCtxgit(t, "push", "--root", bob, "--force", url, "--as", "origin")
			if !strings.Contains(out, "forced        default  cp_001 ") {
				t.Fatalf("forced push said:\n%s", out)
			}
			bobs := strings.TrimSpace(git(t, bob, "--git-dir="+store, "rev-parse", "refs/ctxgit/sessions/default"))
			if got := strings.TrimSpace(git(t, remote, "rev-parse", "refs/ctxgit/sessions/default")); got != bobs {
				t.Fatalf("after --force the remote has %s, want bob's %s", got, bobs)
			}
			git(t, remote, "fsck", "--strict", "--no-dangling")

			// A push is a compare-and-swap against the value listed: when
			// the ref moves between the listing and the push, the remote
			// keeps the newer value and the session is rejected.
			if shim != "" {
				t.Setenv("CTXGIT_NOW", "2026-11-22T10:08:00Z")
				mustCtxgit(t, "checkpoint", "--root", bob, "-m", "bob two")
				race := remote + " refs/ctxgit/sessions/default " + alices
				os.WriteFile(filepath.Join(filepath.Dir(shim), "race"), []byte(race), 0o644)
				code, out, errOut = ctxgitRun(t, "push", "--root", bob, url, "--as", "origin")
				if code != 5 || !strings.Contains(out, "rejected      default  refused by the remote: the ref moved while pushing (stale info)") {
					t.Fatalf("push racing another pusher: exit %d\n%s%s", code, out, errOut)
				}
				if got := strings.TrimSpace(git(t, remote, "rev-parse", "refs/ctxgit/sessions/default")); got != alices {
					t.Fatalf("the racing push overwrote the remote: %s", got)
				}
			}

			// The remote's hooks speak through ctxgit, and a refusal is a
			// rejected session, exit 5.
			hook := filepath.Join(remote, "hooks", "pre-receive")
			os.WriteFile(hook, []byte("#!/bin/sh\necho 'policy: no pushes on Fridays' >&2\nexit 1\n"), 0o755)
			os.WriteFile(filepath.Join(alice, "notes.txt"), []byte("notes 3\n"), 0o644)
			t.Setenv("CTXGIT_NOW", "2026-11-22T10:10:00Z")
			mustCtxgit(t, "checkpoint", "--root", alice, "-m", "alice three")
			code, out, errOut = ctxgitRun(t, "push", "--root", alice, "--force", "origin")
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
			if strings.Contains(errOut, "s3cret") {
				t.Fatalf("the password shows: %s", errOut)
			}
		})
	}
}

// docs/cli.md#push: a remote that accepts the connection and never answers is
// given up on after the timeout — --timeout, else ctxgit.remoteTimeout in
// the git config — with one line, exit 1.
func TestFetchHungRemoteTimesOut(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	sharingEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // read nothing, say nothing
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	url := "git://" + l.Addr().String() + "/r.git"
	repo := filepath.Join(t.TempDir(), "repo")
	git(t, filepath.Dir(repo), "init", "-q", repo)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"flag", []string{"--timeout", "1s"}, " did not finish within 1s (set a longer one with --timeout, or git config ctxgit.remoteTimeout)\n"},
		{"config", nil, " did not finish within 2s "},
	} {
		if tc.name == "config" {
			git(t, repo, "config", "ctxgit.remoteTimeout", "2s")
		}
		start := time.Now()
		code, out, errOut := ctxgitRun(t, append([]string{"fetch", "--root", repo, url}, tc.args...)...)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "ctxgit: "+url+tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%s: exit %d\n%s%s", tc.name, code, out, errOut)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("%s: gave up after %s", tc.name, d)
		}
	}
	if refs := git(t, repo, "for-each-ref"); refs != "" {
		t.Fatalf("a timed-out fetch left refs:\n%s", refs)
	}
}

// docs/SHARING.md's CI script is the one testdata/scripts/sharing_ci.txtar
// runs: the recipe users copy is the tested one.
func TestSharingRecipeIsTested(t *testing.T) {
	doc, err := os.ReadFile("../../docs/SHARING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- ci-report.sh:")
	if !ok {
		t.Fatal("docs/SHARING.md has no ci-report.sh marker")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	script, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("docs/SHARING.md: the ci-report.sh block does not end")
	}
	ar, err := txtar.ParseFile("../../testdata/scripts/sharing_ci.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "ci-report.sh" {
			if string(f.Data) != script {
				t.Fatalf("docs/SHARING.md's script and sharing_ci.txtar's differ:\n--- doc\n%s--- script\n%s", script, f.Data)
			}
			return
		}
	}
	t.Fatal("sharing_ci.txtar has no ci-report.sh")
}
