package vcs

import (
	"bufio"
	"errors"
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

// A server's answer cannot make ctxgit keep reading interim responses or
// header lines without bound.
func TestHTTPResponseBounds(t *testing.T) {
	cont := "HTTP/1.1 100 Continue\r\n\r\n"
	var many strings.Builder
	many.WriteString("HTTP/1.1 200 OK\r\n")
	for i := range maxHeaders + 1 {
		fmt.Fprintf(&many, "X-H%d: v\r\n", i)
	}
	many.WriteString("\r\n")
	for _, c := range []struct {
		name, in, wantErr string
		wantStatus        int
	}{
		{name: "plain", in: "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-result; x=y\r\n\r\n", wantStatus: 200},
		{name: "two interim", in: cont + cont + "HTTP/1.1 404 Not Found\r\n\r\n", wantStatus: 404},
		{name: "endless interim", in: strings.Repeat(cont, 100), wantErr: "more than 8 interim (100) responses"},
		{name: "too many headers", in: many.String(), wantErr: "more than 256 header lines"},
		{name: "status out of range", in: "HTTP/1.1 20 OK\r\n\r\n", wantErr: `malformed status line "HTTP/1.1 20 OK"`},
		{name: "not http", in: "SSH-2.0-OpenSSH\r\n\r\n", wantErr: `malformed status line "SSH-2.0-OpenSSH"`},
		{name: "header without colon", in: "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", wantErr: `malformed header line "broken"`},
		{name: "cut short", in: "HTTP/1.1 200 OK\r\nA: b\r\n", wantErr: "unexpected EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, err := readHTTPResponse(bufio.NewReader(strings.NewReader(c.in)))
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("readHTTPResponse = %v, want error %q", err, c.wantErr)
				}
				return
			}
			if err != nil || resp.status != c.wantStatus {
				t.Fatalf("readHTTPResponse = %+v, %v; want status %d", resp, err, c.wantStatus)
			}
			if c.name == "plain" && resp.header["content-type"] != "application/x-git-upload-pack-result" {
				t.Fatalf("content-type = %q", resp.header["content-type"])
			}
		})
	}
}

// FuzzHTTPResponse feeds a server's bytes to the response reader and, for
// a chunked body, the chunk decoder: errors, never a panic, and never
// more body than was sent.
func FuzzHTTPResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nx",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		br := bufio.NewReaderSize(strings.NewReader(string(in)), 4096)
		resp, err := readHTTPResponse(br)
		if err != nil {
			return
		}
		if resp.status < 100 || resp.status > 999 {
			t.Fatalf("status %d accepted", resp.status)
		}
		n, _ := io.Copy(io.Discard, &chunkedReader{r: br})
		if n > int64(len(in)) {
			t.Fatalf("decoded %d body bytes from %d bytes of input", n, len(in))
		}
	})
}

// FuzzPktLines feeds a remote's bytes to the pkt-line reader, as lines and
// as a side-band stream: errors, never a panic, and never more out than in.
func FuzzPktLines(f *testing.F) {
	f.Add([]byte(pkt("# service=git-upload-pack\n", "", "0123456789012345678901234567890123456789 HEAD\x00side-band-64k\n", "")))
	f.Add([]byte(pkt("\x01PACK", "\x02progress\n", "\x03fatal", "")))
	f.Add([]byte(pkt("ERR access denied\n")))
	f.Add([]byte("0001000200030004ffff"))
	f.Add([]byte("00zz"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p := newPktReader(strings.NewReader(string(in)))
		for range len(in)/4 + 2 {
			if _, err := p.line(); err != nil && !errors.Is(err, errFlush) {
				break
			}
		}
		var msgs strings.Builder
		sb := &sidebandReader{p: newPktReader(strings.NewReader(string(in))), msgs: &msgs}
		n, _ := io.Copy(io.Discard, sb)
		if n+int64(msgs.Len()) > int64(len(in)) {
			t.Fatalf("side band gave %d bytes and %d of messages from %d bytes of input", n, msgs.Len(), len(in))
		}
	})
}
