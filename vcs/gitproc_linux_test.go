package vcs_test

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 24 item 6: git reads a remote's whole ref advertisement before it
// prints a line, so ctxgit's cap on git's output never bounded git
// itself. Against a server that never stops advertising, ls-remote must
// stop within 10 s, having taken far less than the advertisement, with a
// clear error.
func TestLsRemoteEndlessAdvertisementIsBounded(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// An endless smart-HTTP advertisement, capped so that a git without
	// the bound stops too (the test then fails on the count).
	const cap = 1 << 30
	var sent atomic.Int64
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		line := fmt.Sprintf("%040x refs/ctxgit/sessions/s%d\n", i+1, i)
		fmt.Fprintf(&b, "%04x%s", len(line)+4, line)
	}
	refChunk := []byte(b.String())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/info/refs") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		pkt := func(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }
		head := pkt("# service=git-upload-pack\n") + "0000" +
			pkt(strings.Repeat("1", 40)+" HEAD\x00multi_ack side-band-64k ofs-delta\n")
		if _, err := w.Write([]byte(head)); err != nil {
			return
		}
		for sent.Load() < cap {
			n, err := w.Write(refChunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Close()

	gitDir := filepath.Join(t.TempDir(), "store.git")
	_, err = vcs.InitPrivate(gitDir)
	must(t, err)
	ep, err := vcs.ParseEndpoint("http://"+l.Addr().String()+"/r.git", "/")
	must(t, err)
	start := time.Now()
	_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: gitDir, Timeout: vcs.DefaultRemoteTimeout})
	took := time.Since(start)
	if err == nil {
		t.Fatal("ls-remote of an endless advertisement succeeded")
	}
	t.Logf("after %v and %d MiB sent: %v", took, sent.Load()>>20, err)
	if took > time.Minute {
		t.Errorf("ls-remote stopped after %v: the bound, not the timeout, must stop it", took)
	}
	// git's helper holds what it received: what was sent bounds it.
	if sent.Load() > 384<<20 {
		t.Errorf("git took %d MiB of the advertisement, want the 256 MiB bound to stop it", sent.Load()>>20)
	}
	if !strings.Contains(err.Error(), "ran out of the 256 MiB ctxgit allows it") {
		t.Errorf("error %q does not say git hit its memory bound", err)
	}
}
