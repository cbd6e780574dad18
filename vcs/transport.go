package vcs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// A conn is one session with a git service: the ref advertisement, then
// one request and its response. Over git:// and ssh it is one stream (the
// request is written while the response is read, so neither side blocks
// on a full buffer); over HTTP it is two requests, stateless.
type conn interface {
	// advertisement returns a reader positioned at the ref advertisement.
	advertisement() *pktReader
	// request sends what write produces and returns the response.
	request(write func(io.Writer) error) (*pktReader, error)
	close() error
}

// dialTimeout bounds connecting, not transferring.
const dialTimeout = 30 * time.Second

// streamConn is a bidirectional stream: a TCP connection to git daemon or
// the pipes of an ssh process.
type streamConn struct {
	r     *pktReader
	w     io.WriteCloser
	done  func() error // closes the stream and reports how it ended
	werr  chan error
	ended error
}

func (s *streamConn) advertisement() *pktReader { return s.r }

func (s *streamConn) request(write func(io.Writer) error) (*pktReader, error) {
	s.werr = make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(s.w, 65536)
		err := write(bw)
		if err == nil {
			err = bw.Flush()
		}
		s.werr <- err
	}()
	return &pktReader{r: bufio.NewReader(&writeErrReader{r: s.r.r, s: s})}, nil
}

// writeErrReader reads the response; when it ends early, the error of the
// write side (a closed pipe) is reported with it.
type writeErrReader struct {
	r io.Reader
	s *streamConn
}

func (w *writeErrReader) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	if err != nil && err != io.EOF {
		select {
		case werr := <-w.s.werr:
			if werr != nil {
				return n, fmt.Errorf("%v (while sending: %v)", err, werr)
			}
		default:
		}
	}
	return n, err
}

func (s *streamConn) close() error {
	if s.done == nil {
		return s.ended
	}
	done := s.done
	s.done = nil
	s.ended = done()
	return s.ended
}

// dialGit connects to git daemon (git://host[:9418]/path).
func dialGit(e *Endpoint, svc string) (conn, error) {
	port := e.Port
	if port == "" {
		port = "9418"
	}
	addr := net.JoinHostPort(e.Host, port)
	c, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, kindf(ErrUnreachable, "cannot reach %s: %v", e, shortNetErr(err))
	}
	host := e.Host
	if e.Port != "" {
		host = addr
	}
	var w pktWriter
	w.raw(svc + " " + e.Path + "\x00host=" + host + "\x00")
	if _, err := c.Write(w.Bytes()); err != nil {
		c.Close()
		return nil, kindf(ErrUnreachable, "cannot reach %s: %v", e, shortNetErr(err))
	}
	return &streamConn{
		r:    newPktReader(c),
		w:    nopCloser{c},
		done: func() error { return c.Close() },
	}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// shortNetErr drops the repetition in Go's network errors ("dial tcp
// 127.0.0.1:1: connect: connection refused" → "connection refused").
func shortNetErr(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		s := oe.Err.Error()
		if i := strings.LastIndex(s, ": "); i >= 0 {
			s = s[i+2:]
		}
		return s
	}
	return err.Error()
}

// dialSSH runs the ssh client as git does: GIT_SSH_COMMAND (through the
// shell), else GIT_SSH, else ssh; arguments [-p PORT] [USER@]HOST and the
// remote command, the service with the path single-quoted.
func dialSSH(e *Endpoint, svc string, getenv func(string) string) (conn, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	dest := e.Host
	if e.User != "" {
		dest = e.User + "@" + e.Host
	}
	path := e.Path
	if strings.HasPrefix(path, "/~") {
		path = path[1:] // ssh://host/~user/repo is relative to a home
	}
	args := []string{}
	if e.Port != "" {
		args = append(args, "-p", e.Port)
	}
	args = append(args, dest, svc+" "+shellQuote(path))
	var cmd *exec.Cmd
	switch {
	case getenv("GIT_SSH_COMMAND") != "":
		cmd = exec.Command("sh", append([]string{"-c", getenv("GIT_SSH_COMMAND") + ` "$@"`, "ssh"}, args...)...)
	case getenv("GIT_SSH") != "":
		cmd = exec.Command(getenv("GIT_SSH"), args...)
	default:
		cmd = exec.Command("ssh", args...)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, kindf(ErrUnreachable, "cannot reach %s: starting ssh: %v", e, err)
	}
	s := &streamConn{r: newPktReader(&sshOutput{r: stdout, cmd: cmd, stderr: &stderr, ep: e}), w: stdin}
	s.done = func() error {
		stdin.Close()
		// The service exits once it has answered; ssh follows.
		return waitTimeout(cmd, 10*time.Second)
	}
	return s, nil
}

// sshOutput turns an early end of ssh's output into the reason ssh or the
// remote gave on stderr.
type sshOutput struct {
	r      io.Reader
	cmd    *exec.Cmd
	stderr *lockedBuffer
	ep     *Endpoint
	failed error
}

func (o *sshOutput) Read(b []byte) (int, error) {
	if o.failed != nil {
		return 0, o.failed
	}
	n, err := o.r.Read(b)
	if err == io.EOF && n == 0 {
		werr := waitTimeout(o.cmd, 10*time.Second)
		msg := lastLine(o.stderr.String())
		var ee *exec.ExitError
		switch {
		case werr == nil:
			return 0, io.EOF
		case errors.As(werr, &ee) && (ee.ExitCode() == 255 || ee.ExitCode() == 126 || ee.ExitCode() == 127):
			// ssh's own failure (the host, the network, the keys), or
			// the shell's when GIT_SSH_COMMAND cannot run.
			if msg == "" {
				msg = "ssh exited with status 255"
			}
			o.failed = kindf(ErrUnreachable, "cannot reach %s: %s", o.ep, msg)
		case msg != "":
			o.failed = &RemoteError{Msg: msg}
		default:
			o.failed = kindf(ErrUnreachable, "%s: ssh: %v", o.ep, werr)
		}
		return 0, o.failed
	}
	return n, err
}

// waitTimeout waits for a process, killing it when it lingers.
func waitTimeout(cmd *exec.Cmd, d time.Duration) error {
	if cmd.ProcessState != nil {
		if cmd.ProcessState.Success() {
			return nil
		}
		return &exec.ExitError{ProcessState: cmd.ProcessState}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		return <-done
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// shellQuote single-quotes s for a POSIX shell, as git quotes the path it
// sends over ssh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lockedBuffer collects a child's stderr while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() < 64<<10 {
		b.buf.Write(p)
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// httpConn is git's smart HTTP protocol: GET info/refs for the
// advertisement, one POST for the request.
type httpConn struct {
	ep   *Endpoint
	base string // the repository URL, after redirects
	svc  string
	adv  *pktReader
	body io.Closer
}

func dialHTTP(e *Endpoint, svc string) (conn, error) {
	base := e.Scheme + "://" + hostPort(e) + e.Path
	resp, final, err := httpGet(e, base+"/info/refs?service="+svc)
	if err != nil {
		return nil, err
	}
	c := &httpConn{ep: e, base: strings.TrimSuffix(final, "/info/refs?service="+svc), svc: svc, body: resp.body}
	if ct := resp.header["content-type"]; ct != "application/x-"+svc+"-advertisement" {
		resp.body.Close()
		return nil, kindf(ErrUnsupportedRemote, "%s is not a smart git HTTP server (content type %q; dumb HTTP is not supported)", e, ct)
	}
	p := newPktReader(resp.body)
	first, err := p.line()
	if err != nil {
		resp.body.Close()
		return nil, fmt.Errorf("%s: reading the advertisement: %w", e, err)
	}
	if first != "# service="+svc {
		resp.body.Close()
		return nil, fmt.Errorf("%s: unexpected first line %q", e, first)
	}
	if _, err := p.next(); !errors.Is(err, errFlush) {
		resp.body.Close()
		return nil, fmt.Errorf("%s: no flush after the service line", e)
	}
	c.adv = p
	return c, nil
}

func hostPort(e *Endpoint) string {
	h := e.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if e.Port != "" {
		h += ":" + e.Port
	}
	return h
}

func (h *httpConn) advertisement() *pktReader { return h.adv }

func (h *httpConn) request(write func(io.Writer) error) (*pktReader, error) {
	h.body.Close()
	// The body goes to a temp file first: a push's pack can be large, and
	// a Content-Length is what every server accepts.
	f, err := os.CreateTemp("", "ctxgit-request-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	resp, err := httpPost(h.ep, h.base+"/"+h.svc, "application/x-"+h.svc+"-request", "application/x-"+h.svc+"-result", f, size)
	if err != nil {
		return nil, err
	}
	h.body = resp.body
	if ct := resp.header["content-type"]; ct != "application/x-"+h.svc+"-result" {
		return nil, fmt.Errorf("%s: unexpected content type %q in the answer", h.ep, ct)
	}
	return newPktReader(resp.body), nil
}

func (h *httpConn) close() error { return h.body.Close() }
