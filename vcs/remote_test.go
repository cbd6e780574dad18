package vcs_test

import (
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/vcs"
)

// bareRemote makes an empty bare repository that accepts pushes over
// every transport, and returns its path.
func bareRemote(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	gitCmd(t, filepath.Dir(dir), "init", "-q", "--bare", dir)
	gitCmd(t, dir, "config", "http.receivepack", "true")
	return dir
}

// freePort returns a TCP port on 127.0.0.1 nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// gitDaemon serves base over git:// on a free loopback port until the
// test ends, and returns the URL prefix.
func gitDaemon(t *testing.T, base string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	port := freePort(t)
	// git-daemon itself, not `git daemon`: git would run it as a child
	// that outlives a kill of the parent.
	daemon := filepath.Join(strings.TrimSpace(gitCmd(t, base, "--exec-path")), "git-daemon")
	cmd := exec.Command(daemon, "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--informative-errors", "--base-path="+base, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "git://" + addr + "/"
}

// httpBackend serves base with git http-backend behind a test server; for
// TLS, git is told to trust the server's certificate.
func httpBackend(t *testing.T, base string, tlsOn bool) string {
	t.Helper()
	execPath := strings.TrimSpace(gitCmd(t, base, "--exec-path"))
	h := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()},
	}
	if !tlsOn {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL + "/"
	}
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemData, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_SSL_CAINFO", ca)
	return srv.URL + "/"
}

// fakeSSH writes an ssh stand-in that runs the remote command here, so
// the ssh transport is tested without an ssh server.
func fakeSSH(t *testing.T, body string) string {
	t.Helper()
	wstest.NeedGit(t) // only git runs it
	path := filepath.Join(t.TempDir(), "fake-ssh")
	if body == "" {
		body = `while [ $# -gt 1 ]; do shift; done; exec sh -c "$1"`
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// connect opens url for pushing from, or fetching into, the store at
// gitDir, with env set for git.
func connect(t *testing.T, url string, push bool, gitDir string, env map[string]string) vcs.Remote {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	ep, err := vcs.ParseEndpoint(url, "/")
	if err != nil {
		t.Fatal(err)
	}
	r, err := vcs.Connect(ep, vcs.ConnectOptions{Push: push, GitDir: gitDir, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func refOf(refs []vcs.Ref, name string) vcs.Hash {
	for _, r := range refs {
		if r.Name == name {
			return r.ID
		}
	}
	return vcs.ZeroHash
}

// Push and fetch round trips through every transport: objects arrive
// whole, refs move by compare-and-swap, only what is missing is sent, and
// git finds both sides sound.
func TestRemoteRoundTrip(t *testing.T) {
	const ref = "refs/ctxgit/sessions/default"
	for _, tc := range []struct {
		name string
		url  func(t *testing.T, remote string) (string, map[string]string)
	}{
		{"local path", func(t *testing.T, remote string) (string, map[string]string) { return remote, nil }},
		{"file url", func(t *testing.T, remote string) (string, map[string]string) { return "file://" + remote, nil }},
		{"git daemon", func(t *testing.T, remote string) (string, map[string]string) {
			return gitDaemon(t, filepath.Dir(remote)) + "remote.git", nil
		}},
		{"http", func(t *testing.T, remote string) (string, map[string]string) {
			return httpBackend(t, filepath.Dir(remote), false) + "remote.git", nil
		}},
		{"https", func(t *testing.T, remote string) (string, map[string]string) {
			return httpBackend(t, filepath.Dir(remote), true) + "remote.git", nil
		}},
		{"ssh", func(t *testing.T, remote string) (string, map[string]string) {
			return "ssh://example.invalid" + remote, map[string]string{"GIT_SSH": fakeSSH(t, ""), "GIT_SSH_VARIANT": "simple"}
		}},
		{"ssh scp-like", func(t *testing.T, remote string) (string, map[string]string) {
			return "me@example.invalid:" + remote, map[string]string{"GIT_SSH_COMMAND": fakeSSH(t, "") + " -o Ignored=yes"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "local path" && tc.name != "file url" && os.Getenv("CTXGIT_FULL") != "1" {
				// A server or a fake ssh per transport costs seconds past
				// go test ./...'s 90 s; .ci/run runs them all.
				t.Skip("the full tier: CTXGIT_FULL=1 go test -run TestRemoteRoundTrip ./vcs")
			}
			// Each has its own remote and server, and waits on git; https
			// and ssh set the process's environment (GIT_SSL_CAINFO,
			// GIT_SSH…), so they run alone.
			if !strings.HasPrefix(tc.name, "https") && !strings.HasPrefix(tc.name, "ssh") {
				t.Parallel()
			}
			remote := bareRemote(t)
			url, env := tc.url(t, remote)
			srcDir := filepath.Join(t.TempDir(), "src.git")
			src, err := vcs.InitPrivate(srcDir)
			if err != nil {
				t.Fatal(err)
			}
			c1 := commitFiles(t, src, vcs.ZeroHash, map[string]string{"a.txt": "alpha", "dir/b.txt": "beta"})
			c2 := commitFiles(t, src, c1, map[string]string{"a.txt": "alpha", "dir/b.txt": "beta 2"})

			// Push c1 to an empty remote.
			r := connect(t, url, true, srcDir, env)
			if len(r.Refs()) != 0 {
				t.Fatalf("empty remote advertises %v", r.Refs())
			}
			st, n, err := r.Push(src, []vcs.RefUpdate{{Name: ref, New: c1}}, noneKnown)
			if err != nil || len(st) != 1 || st[0].Err != "" {
				t.Fatalf("push c1 = %v, %v", st, err)
			}
			if n != 5 { // commit, 2 trees, 2 blobs
				t.Fatalf("push c1 sent %d objects, want 5", n)
			}
			r.Close()
			if got := strings.TrimSpace(gitCmd(t, remote, "rev-parse", ref)); got != c1.String() {
				t.Fatalf("remote ref = %s", got)
			}

			// Push c2 as a fast-forward: only the new objects go.
			r = connect(t, url, true, srcDir, env)
			have := refOf(r.Refs(), ref)
			if have != c1 {
				t.Fatalf("remote advertises %s at %s", ref, have)
			}
			known, err := vcs.KnownFrom(src, []vcs.Hash{have})
			if err != nil {
				t.Fatal(err)
			}
			st, n, err = r.Push(src, []vcs.RefUpdate{{Name: ref, Old: c1, New: c2}}, known)
			if err != nil || len(st) != 1 || st[0].Err != "" {
				t.Fatalf("push c2 = %v, %v", st, err)
			}
			if n != 4 { // commit, root tree, dir/, dir/b.txt
				t.Fatalf("push c2 sent %d objects, want 4", n)
			}
			r.Close()

			// A stale old value is refused by the remote, which keeps its ref.
			r = connect(t, url, true, srcDir, env)
			st, _, err = r.Push(src, []vcs.RefUpdate{{Name: ref, Old: c1, New: c1}}, noneKnown)
			if err != nil || len(st) != 1 || st[0].Err == "" {
				t.Fatalf("stale push = %v, %v; want a refusal", st, err)
			}
			r.Close()
			if got := strings.TrimSpace(gitCmd(t, remote, "rev-parse", ref)); got != c2.String() {
				t.Fatalf("remote ref moved to %s on a refused update", got)
			}
			gitCmd(t, remote, "fsck", "--strict", "--no-dangling")

			// Fetch into a new store, then fetch again with nothing new.
			dstDir := filepath.Join(t.TempDir(), "dst.git")
			dst, err := vcs.InitPrivate(dstDir)
			if err != nil {
				t.Fatal(err)
			}
			r = connect(t, url, false, dstDir, env)
			tip := refOf(r.Refs(), ref)
			if tip != c2 {
				t.Fatalf("fetch advertisement: %s at %s", ref, tip)
			}
			got, n, err := r.Fetch(dst, []vcs.Ref{{Name: ref, ID: tip}})
			if err != nil {
				t.Fatal(err)
			}
			if n != 9 || len(got) != 1 || got[0].Name != ref || got[0].ID != c2 {
				t.Fatalf("fetched %v with %d objects, want c2 with 9", got, n)
			}
			r.Close()
			// What git staged is gone once the fetch is over.
			if staged, _ := dst.ListRefs("refs/"); len(staged) != 0 {
				t.Fatalf("refs left after a fetch: %v", staged)
			}
			data, err := vcs.ReadFileAt(dst, mustTree(t, dst, c2), "dir/b.txt")
			if err != nil || string(data) != "beta 2" {
				t.Fatalf("dir/b.txt = %q, %v", data, err)
			}
			if err := dst.UpdateRef("refs/ctxgit/remotes/origin/sessions/default", c2, vcs.ZeroHash); err != nil {
				t.Fatal(err)
			}
			gitCmd(t, dstDir, "--git-dir="+dstDir, "fsck", "--strict", "--no-dangling")

			r = connect(t, url, false, dstDir, env)
			if _, n, err := r.Fetch(dst, []vcs.Ref{{Name: ref, ID: c2}}); n != 0 || err != nil {
				t.Fatalf("fetch with nothing new = %d, %v", n, err)
			}
			r.Close()

			// An incremental fetch sends what is new since the have.
			c3 := commitFiles(t, src, c2, map[string]string{"a.txt": "alpha 3", "dir/b.txt": "beta 2"})
			r = connect(t, url, true, srcDir, env)
			known, _ = vcs.KnownFrom(src, []vcs.Hash{c2})
			if st, _, err := r.Push(src, []vcs.RefUpdate{{Name: ref, Old: c2, New: c3}}, known); err != nil || st[0].Err != "" {
				t.Fatalf("push c3 = %v, %v", st, err)
			}
			r.Close()
			r = connect(t, url, false, dstDir, env)
			_, n, err = r.Fetch(dst, []vcs.Ref{{Name: ref, ID: c3}})
			if err != nil {
				t.Fatal(err)
			}
			if n != 3 {
				t.Fatalf("incremental fetch got %d objects, want 3", n)
			}
			if ok, _ := dst.HasObject(c3); !ok {
				t.Fatal("c3 not fetched")
			}
		})
	}
}

func noneKnown(vcs.Hash) (bool, error) { return false, nil }

func mustTree(t *testing.T, s vcs.Store, c vcs.Hash) vcs.Hash {
	t.Helper()
	cm, err := vcs.ReadCommit(s, c)
	if err != nil {
		t.Fatal(err)
	}
	return cm.Tree
}

// A remote that cannot be reached is ErrUnreachable, one that is not a
// repository ErrNoRepository, whatever the transport.
func TestRemoteErrors(t *testing.T) {
	port := freePort(t)
	missing := filepath.Join(t.TempDir(), "nothing")
	notRepo := t.TempDir()
	failingSSH := fakeSSH(t, `echo "ssh: connect to host nowhere.invalid port 22: Connection refused" >&2; exit 255`)
	served := t.TempDir()
	gitCmd(t, served, "init", "-q", "--bare", "there.git")
	daemon := gitDaemon(t, served)
	web := httpBackend(t, served, false)
	store := filepath.Join(t.TempDir(), "store.git")
	if _, err := vcs.InitPrivate(store); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url string
		env       map[string]string
		is        error
		msg       string
	}{
		{"refused git", fmt.Sprintf("git://127.0.0.1:%d/x.git", port), nil, vcs.ErrUnreachable, "Connection refused"},
		{"refused http", fmt.Sprintf("http://127.0.0.1:%d/x.git", port), nil, vcs.ErrUnreachable, "Failed to connect"},
		{"ssh fails", "ssh://nowhere.invalid/x.git", map[string]string{"GIT_SSH": failingSSH}, vcs.ErrUnreachable, "cannot reach ssh://nowhere.invalid/x.git: ssh: connect to host nowhere.invalid port 22: Connection refused"},
		{"no such path", missing, nil, vcs.ErrNoRepository, "no such directory"},
		{"not a repository", notRepo, nil, vcs.ErrNoRepository, "not a git repository"},
		{"daemon, no such repository", daemon + "missing.git", nil, nil, "no such repository"},
		{"http, no such repository", web + "missing.git", nil, vcs.ErrNoRepository, "missing.git/' not found"},
		{"ssh, no such repository", "ssh://x.invalid" + missing, map[string]string{"GIT_SSH": fakeSSH(t, "")}, nil, "does not appear to be a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep, err := vcs.ParseEndpoint(tc.url, "/")
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: store, Timeout: time.Minute})
			if err == nil {
				t.Fatal("connected")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want it to say %q", err, tc.msg)
			}
		})
	}
}

func TestParseEndpoint(t *testing.T) {
	// A local path is absolute on this system's terms: on Windows on the
	// base's drive, and a path with a drive letter is local (git's
	// has_dos_drive_prefix), not an scp-like host "C".
	local := func(p string) string {
		if runtime.GOOS == "windows" {
			return `C:` + filepath.FromSlash(p)
		}
		return p
	}
	type row struct {
		in                             string
		scheme, user, host, port, path string
		err                            string
	}
	windows := []row{
		{in: `C:\backup\r.git`, scheme: "file", path: `C:\backup\r.git`},
		{in: "d:/backup/r.git", scheme: "file", path: `d:\backup\r.git`},
		{in: `\abs\r.git`, scheme: "file", path: `C:\abs\r.git`},
	}
	if runtime.GOOS != "windows" {
		windows = nil
	}
	for _, tc := range append([]row{
		{in: "git://example.com/r.git", scheme: "git", host: "example.com", path: "/r.git"},
		{in: "git://example.com:9419/r.git", scheme: "git", host: "example.com", port: "9419", path: "/r.git"},
		{in: "ssh://me@example.com:2222/srv/r.git", scheme: "ssh", user: "me", host: "example.com", port: "2222", path: "/srv/r.git"},
		{in: "git+ssh://example.com/r.git", scheme: "ssh", host: "example.com", path: "/r.git"},
		{in: "me@example.com:team/r.git", scheme: "ssh", user: "me", host: "example.com", path: "team/r.git"},
		{in: "https://u:p@example.com/team/r.git/", scheme: "https", user: "u", host: "example.com", path: "/team/r.git"},
		{in: "file:///srv/r.git", scheme: "file", path: "/srv/r.git"},
		{in: "../r.git", scheme: "file", path: local("/base/r.git")},
		{in: "/abs/r.git", scheme: "file", path: local("/abs/r.git")},
		{in: "./a:b", scheme: "file", path: local("/base/here/a:b")},
		{in: "ftp://example.com/r.git", err: "not supported"},
		{in: "git:///r.git", err: "no host"},
		{in: "", err: "empty"},
	}, windows...) {
		e, err := vcs.ParseEndpoint(tc.in, local("/base/here"))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		got := []string{e.Scheme, e.User, e.Host, e.Port, e.Path}
		want := []string{tc.scheme, tc.user, tc.host, tc.port, tc.path}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q = %v, want %v", tc.in, got, want)
		}
	}
	e, _ := vcs.ParseEndpoint("https://u:secret@example.com/r.git", "/")
	if strings.Contains(e.String(), "secret") || e.Password != "secret" {
		t.Errorf("String() shows the password, or it was lost: %s", e)
	}
	for _, bad := range []string{"https://u:secret@example.com/%zz", "ftp://u:secret@example.com/r.git", "https://u:secret@example.com/r.git?x=1"} {
		if _, err := vcs.ParseEndpoint(bad, "/"); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: err = %v; want one without the password", bad, err)
		}
	}
}

func TestReadRemotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	os.WriteFile(path, []byte("[core]\n\tbare = true\n[remote \"origin\"]\n\turl = ../r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote \"Fork\"]\n\turl = git://x/y\n\tpushurl = ssh://x/y\n[remote \"nourl\"]\n\tfetch = x\n"), 0o644)
	got, err := vcs.ReadRemotes(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []vcs.RemoteConfig{{Name: "Fork", URL: "git://x/y", PushURL: "ssh://x/y"}, {Name: "origin", URL: "../r.git"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ReadRemotes = %v, want %v", got, want)
	}
	if none, err := vcs.ReadRemotes(filepath.Join(t.TempDir(), "missing")); err != nil || len(none) != 0 {
		t.Fatalf("missing config = %v, %v", none, err)
	}
}

// commitFiles commits files (path to content) on parent in s.
func commitFiles(t *testing.T, s vcs.Store, parent vcs.Hash, files map[string]string) vcs.Hash {
	t.Helper()
	var entries []vcs.PathEntry
	for p, content := range files {
		id, err := s.WriteObject(vcs.BlobObject, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, vcs.PathEntry{Path: p, Mode: vcs.ModeFile, ID: id})
	}
	root, err := vcs.Overlay(s, vcs.ZeroHash, entries)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := &vcs.Commit{Tree: root, Message: "checkpoint\n",
		Author: vcs.Signature{Name: "t", Email: "t@t", When: when}, Committer: vcs.Signature{Name: "t", Email: "t@t", When: when}}
	if !parent.IsZero() {
		c.Parents = []vcs.Hash{parent}
		pc, err := vcs.ReadCommit(s, parent)
		if err != nil {
			t.Fatal(err)
		}
		c.Committer.When = pc.Committer.When.Add(time.Second)
		c.Author.When = c.Committer.When
	}
	id, err := vcs.WriteCommit(s, c)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
