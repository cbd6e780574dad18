package vcs

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// A small HTTP/1.1 client for git's smart HTTP protocol: one request per
// connection, bodies sized up front, chunked or sized responses, redirects
// followed for the advertisement as git follows them. net/http would add a
// tenth of a millisecond of package initialisation to every ctxgit
// command, hooks included (measured with GODEBUG=inittrace=1); this needs
// only net and crypto/tls. Proxies and credential helpers are not
// supported: credentials go in the URL.

// httpTLSConfig is the TLS configuration for https remotes; nil uses the
// system's roots. Tests set it to trust their own server.
var httpTLSConfig *tls.Config

// maxRedirects is how many redirects the advertisement request follows.
const maxRedirects = 5

type httpResponse struct {
	status int
	header map[string]string // lower-cased names, last value wins
	body   io.ReadCloser
}

// httpGet fetches rawURL, following redirects; it returns the response
// and the URL that answered.
func httpGet(e *Endpoint, rawURL string) (*httpResponse, string, error) {
	for range maxRedirects + 1 {
		resp, err := httpDo(e, "GET", rawURL, nil, nil, 0)
		if err != nil {
			return nil, "", err
		}
		switch resp.status {
		case 301, 302, 303, 307, 308:
			resp.body.Close()
			loc := resp.header["location"]
			u, err := url.Parse(rawURL)
			if err != nil {
				return nil, "", err
			}
			next, err := u.Parse(loc)
			if loc == "" || err != nil {
				return nil, "", fmt.Errorf("%s: redirect without a usable Location", e)
			}
			if u.Scheme == "https" && next.Scheme != "https" {
				return nil, "", fmt.Errorf("%s: refusing a redirect from https to %s", e, next.Scheme)
			}
			rawURL = next.String()
			continue
		}
		if err := httpStatusError(e, resp); err != nil {
			return nil, "", err
		}
		return resp, rawURL, nil
	}
	return nil, "", fmt.Errorf("%s: more than %d redirects", e, maxRedirects)
}

// httpPost sends a sized body.
func httpPost(e *Endpoint, rawURL, contentType, accept string, body io.Reader, size int64) (*httpResponse, error) {
	hdr := map[string]string{"Content-Type": contentType, "Accept": accept}
	resp, err := httpDo(e, "POST", rawURL, hdr, body, size)
	if err != nil {
		return nil, err
	}
	if err := httpStatusError(e, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

func httpStatusError(e *Endpoint, resp *httpResponse) error {
	if resp.status == 200 {
		return nil
	}
	resp.body.Close()
	switch resp.status {
	case 401, 403:
		return fmt.Errorf("%s: access denied (HTTP %d); put the user and password in the URL", e, resp.status)
	case 404:
		return kindf(ErrNoRepository, "%s: no repository there (HTTP 404)", e)
	}
	return fmt.Errorf("%s: the server answered HTTP %d", e, resp.status)
}

// httpDo makes one request on a new connection.
func httpDo(e *Endpoint, method, rawURL string, hdr map[string]string, body io.Reader, size int64) (*httpResponse, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if port == "" {
		return nil, fmt.Errorf("%s: cannot follow a redirect to %s", e, u.Scheme)
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	c, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, kindf(ErrUnreachable, "cannot reach %s: %s", e, shortNetErr(err))
	}
	if u.Scheme == "https" {
		cfg := &tls.Config{}
		if httpTLSConfig != nil {
			cfg = httpTLSConfig.Clone()
		}
		cfg.ServerName = u.Hostname()
		tc := tls.Client(c, cfg)
		if err := tc.Handshake(); err != nil {
			c.Close()
			return nil, kindf(ErrUnreachable, "cannot reach %s: TLS: %v", e, err)
		}
		c = tc
	}
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), u.Host)
	// Servers such as GitHub speak the smart protocol only to a user agent
	// that starts with "git/".
	req.WriteString("User-Agent: git/2.0 (ctxgit)\r\nConnection: close\r\nPragma: no-cache\r\n")
	// Credentials go to the host they were given for, not to wherever a
	// redirect points (as curl does).
	if (e.User != "" || e.Password != "") && strings.EqualFold(u.Hostname(), e.Host) {
		cred := base64.StdEncoding.EncodeToString([]byte(e.User + ":" + e.Password))
		req.WriteString("Authorization: Basic " + cred + "\r\n")
	}
	for k, v := range hdr {
		fmt.Fprintf(&req, "%s: %s\r\n", k, v)
	}
	if body != nil {
		fmt.Fprintf(&req, "Content-Length: %d\r\n", size)
	}
	req.WriteString("\r\n")
	bw := bufio.NewWriterSize(c, 65536)
	bw.WriteString(req.String())
	if body != nil {
		if _, err := io.CopyN(bw, body, size); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: sending the request: %v", e, err)
		}
	}
	if err := bw.Flush(); err != nil {
		c.Close()
		return nil, kindf(ErrUnreachable, "%s: sending the request: %v", e, err)
	}
	br := bufio.NewReaderSize(c, 65536)
	resp, err := readHTTPResponse(br)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: reading the answer: %v", e, err)
	}
	var r io.Reader
	switch {
	case strings.EqualFold(resp.header["transfer-encoding"], "chunked"):
		r = &chunkedReader{r: br}
	case resp.header["content-length"] != "":
		n, err := strconv.ParseInt(resp.header["content-length"], 10, 64)
		if err != nil || n < 0 {
			c.Close()
			return nil, fmt.Errorf("%s: bad Content-Length %q", e, resp.header["content-length"])
		}
		r = io.LimitReader(br, n)
	default:
		r = br // until the server closes the connection
	}
	resp.body = &connBody{Reader: r, c: c}
	return resp, nil
}

type connBody struct {
	io.Reader
	c net.Conn
}

func (b *connBody) Close() error { return b.c.Close() }

// A server's answer is bounded in what it can make ctxgit keep: at most
// maxInterim "100 Continue" answers before the real one, and maxHeaders
// header lines (each at most the reader's buffer) in it.
const (
	maxInterim = 8
	maxHeaders = 256
)

func readHTTPResponse(br *bufio.Reader) (*httpResponse, error) {
	for range maxInterim + 1 {
		resp, err := readHTTPHead(br)
		if err != nil || resp.status != 100 {
			return resp, err
		}
	}
	return nil, fmt.Errorf("more than %d interim (100) responses", maxInterim)
}

// readHTTPHead reads one response's status line and headers.
func readHTTPHead(br *bufio.Reader) (*httpResponse, error) {
	line, err := readCRLFLine(br)
	if err != nil {
		return nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return nil, fmt.Errorf("malformed status line %q", line)
	}
	resp := &httpResponse{status: status, header: map[string]string{}}
	for n := 0; ; n++ {
		line, err := readCRLFLine(br)
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		if n == maxHeaders {
			return nil, fmt.Errorf("more than %d header lines", maxHeaders)
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("malformed header line %q", line)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if k == "content-type" {
			v, _, _ = strings.Cut(v, ";")
			v = strings.TrimSpace(v)
		}
		resp.header[k] = v
	}
	return resp, nil
}

// readCRLFLine reads one line of at most the reader's buffer: a server
// that never sends a newline cannot grow memory without bound.
func readCRLFLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return "", errors.New("header line too long")
	case err == io.EOF:
		return "", io.ErrUnexpectedEOF
	case err != nil:
		return "", err
	}
	return strings.TrimRight(string(line), "\r\n"), nil
}

// chunkedReader decodes a chunked transfer encoding.
type chunkedReader struct {
	r    *bufio.Reader
	left int64
	done bool
}

func (c *chunkedReader) Read(b []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	if c.left == 0 {
		line, err := readCRLFLine(c.r)
		if err != nil {
			return 0, err
		}
		sz, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(sz), 16, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("malformed chunk size %q", line)
		}
		if n == 0 {
			for { // trailers, up to the empty line
				l, err := readCRLFLine(c.r)
				if err != nil || l == "" {
					break
				}
			}
			c.done = true
			return 0, io.EOF
		}
		c.left = n
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		if _, err := readCRLFLine(c.r); err != nil {
			return n, err
		}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
