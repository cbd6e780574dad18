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

	"github.com/ctxgit/ctxgit/vcs"
)

// endlessRemote serves a smart-HTTP ref advertisement that does not end:
// it ends, properly, only at cap, so a git without the bound under test
// stops too and the test fails on what was sent or the error. sent
// counts the bytes written.
func endlessRemote(t *testing.T, cap int64) (ep *vcs.Endpoint, sent *atomic.Int64) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	sent = new(atomic.Int64)
	var b strings.Builder
	for i := 0; int64(b.Len()) < min(cap, 4<<20); i++ {
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
		w.Write([]byte("0000"))
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	ep, err = vcs.ParseEndpoint("http://"+l.Addr().String()+"/r.git", "/")
	must(t, err)
	return ep, sent
}

// Issue 24 item 6: each bound on `git ls-remote` trips with an error that
// names it. The cap on what ctxgit reads of git's output stops a listing
// git printed whole: here 2 MiB of refs against a cap lowered to 1 MiB
// (the error names the cap), while the same listing under the real cap
// of 16 MiB is read and refused on its number of refs instead.
func TestLsRemoteOutputCap(t *testing.T) {
	for _, tc := range []struct {
		cap  int64
		want string
	}{
		{1 << 20, "the ref listing is over 1 MiB; ctxgit reads at most that much from a remote"},
		{vcs.MaxAdvertisement, "refs under refs/ctxgit/"},
	} {
		ep, _ := endlessRemote(t, 2<<20)
		gitDir := filepath.Join(t.TempDir(), "store.git")
		_, err := vcs.InitPrivate(gitDir)
		must(t, err)
		old := vcs.SetMaxListing(tc.cap)
		_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: gitDir, Timeout: vcs.DefaultRemoteTimeout})
		vcs.SetMaxListing(old)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("2 MiB of refs, a cap of %d MiB: %v; want %q", tc.cap>>20, err, tc.want)
		}
	}
}
