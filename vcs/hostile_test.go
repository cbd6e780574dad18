package vcs

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// pkt frames lines as pkt-lines; "" is a flush.
func pkt(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			b.WriteString("0000")
			continue
		}
		fmt.Fprintf(&b, "%04x%s", len(l)+4, l)
	}
	return b.String()
}

type advConn struct{ r *pktReader }

func (c advConn) advertisement() *pktReader                         { return c.r }
func (c advConn) request(func(io.Writer) error) (*pktReader, error) { return nil, io.EOF }
func (c advConn) close() error                                      { return nil }

// A protocol v1 advertisement: "version 1" first, then the refs with the
// capabilities on the first of them, as in v0.
func TestAdvertisementVersion1(t *testing.T) {
	id := strings.Repeat("a", 40)
	for _, adv := range []string{
		pkt("version 1\n", id+" refs/heads/main\x00report-status side-band-64k\n", ""),
		pkt(id+" refs/heads/main\x00report-status side-band-64k\n", ""),
	} {
		r := &netRemote{c: advConn{newPktReader(strings.NewReader(adv))}}
		if err := r.readAdvertisement(); err != nil {
			t.Fatal(err)
		}
		if len(r.refs) != 1 || r.refs[0].Name != "refs/heads/main" || !r.caps["report-status"] || !r.caps["side-band-64k"] {
			t.Fatalf("advertisement %q read as refs %v, caps %v", adv, r.refs, r.caps)
		}
	}
}

// A delta claiming a huge result is refused as it is applied, not
// allocated up front.
func TestApplyDeltaHugeClaim(t *testing.T) {
	base := []byte("base")
	// base size 4; result size 16 GiB (varint); one insert of 1 byte.
	delta := []byte{4, 0x80, 0x80, 0x80, 0x80, 0x40, 1, 'x'}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := applyDelta(base, delta); err == nil {
		t.Fatal("a delta claiming 16 GiB from 1 byte was applied")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("applying it allocated %d bytes", grew)
	}
}

// A server line with no newline stops at the buffer, not at memory's end.
func TestReadCRLFLineBounded(t *testing.T) {
	br := bufio.NewReaderSize(io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20)), strings.NewReader("\r\n")), 4096)
	if _, err := readCRLFLine(br); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("a 1 MiB header line: %v", err)
	}
	br = bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n"))
	if line, err := readCRLFLine(br); err != nil || line != "HTTP/1.1 200 OK" {
		t.Fatalf("status line = %q, %v", line, err)
	}
}

// No part of a password shows in a message, an @ in it included.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pa@ss@host/repo": "https://user@host/repo",
		"https://user:secret@host/a@b": "https://user@host/a@b",
		"https://user@host/repo":       "https://user@host/repo",
		"https://host/repo":            "https://host/repo",
		"host:path/repo":               "host:path/repo",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A redirect to another host does not take the credentials along.
func TestHTTPCredentialsStayWithTheirHost(t *testing.T) {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other:"+r.Header.Get("Authorization"))
		w.WriteHeader(404)
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "first:"+r.Header.Get("Authorization"))
		http.Redirect(w, r, otherURL+r.URL.Path, http.StatusFound)
	}))
	defer first.Close()
	e, err := ParseEndpoint(strings.Replace(first.URL, "http://", "http://user:secret@", 1)+"/repo.git", "")
	if err != nil {
		t.Fatal(err)
	}
	httpGet(e, first.URL+"/repo.git/info/refs?service=git-upload-pack")
	if len(got) != 2 || got[0] == "first:" || got[1] != "other:" {
		t.Fatalf("requests: %q", got)
	}
}
