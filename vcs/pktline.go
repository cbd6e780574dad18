package vcs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// git's pkt-line framing (gitprotocol-common): four hex digits giving the
// length of the line including themselves, then the payload; "0000" is a
// flush packet. ctxgit speaks the protocol with this small reader and
// writer of its own rather than go-git's packp, whose package initialisation
// (a config decoder, encoding/gob, URL patterns) would run on every hook.

// maxPktPayload is the largest payload a pkt-line may carry.
const maxPktPayload = 65516

// pktReader reads pkt-lines from a stream.
type pktReader struct {
	r *bufio.Reader
}

func newPktReader(r io.Reader) *pktReader {
	if br, ok := r.(*bufio.Reader); ok {
		return &pktReader{r: br}
	}
	return &pktReader{r: bufio.NewReaderSize(r, 65536)}
}

// errFlush is returned by next for a flush packet.
var errFlush = errors.New("flush packet")

// next returns the next packet's payload, or errFlush for a flush packet.
// The slice is valid until the next call.
func (p *pktReader) next() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(p.r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("the remote closed the connection mid-packet: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
	if err != nil {
		return nil, fmt.Errorf("malformed pkt-line header %q from the remote", hdr[:])
	}
	switch {
	case n == 0:
		return nil, errFlush
	case n < 4:
		// 0001 (delim) and 0002 (response-end) belong to protocol v2.
		return nil, fmt.Errorf("unexpected pkt-line %q from the remote (protocol v2 is not spoken)", hdr[:])
	case n-4 > maxPktPayload:
		return nil, fmt.Errorf("pkt-line of %d bytes from the remote exceeds the limit", n)
	}
	buf := make([]byte, n-4)
	if _, err := io.ReadFull(p.r, buf); err != nil {
		return nil, fmt.Errorf("the remote closed the connection mid-packet: %w", io.ErrUnexpectedEOF)
	}
	return buf, nil
}

// line returns the next packet as text without its trailing newline; an
// "ERR msg" packet becomes an error carrying the remote's message.
func (p *pktReader) line() (string, error) {
	b, err := p.next()
	if err != nil {
		return "", err
	}
	s := strings.TrimSuffix(string(b), "\n")
	if msg, ok := strings.CutPrefix(s, "ERR "); ok {
		return "", &RemoteError{Msg: msg}
	}
	return s, nil
}

// RemoteError is an error the remote reported itself (an "ERR" packet, a
// fatal message on the side band, a failed unpack).
type RemoteError struct{ Msg string }

func (e *RemoteError) Error() string { return "the remote said: " + strings.TrimSpace(e.Msg) }

// pktWriter builds a request of pkt-lines.
type pktWriter struct{ bytes.Buffer }

// line appends one text packet (a newline is added, as git sends them).
func (w *pktWriter) line(format string, args ...any) {
	s := fmt.Sprintf(format, args...) + "\n"
	fmt.Fprintf(&w.Buffer, "%04x%s", len(s)+4, s)
}

// raw appends one packet with exactly payload.
func (w *pktWriter) raw(payload string) {
	fmt.Fprintf(&w.Buffer, "%04x%s", len(payload)+4, payload)
}

// flush appends a flush packet.
func (w *pktWriter) flush() { w.WriteString("0000") }

// sidebandReader demultiplexes side-band-64k: band 1 is data, band 2
// progress and messages (passed to msgs, which may be nil), band 3 a fatal
// error. A flush packet ends the data.
type sidebandReader struct {
	p    *pktReader
	msgs io.Writer
	buf  []byte
	err  error
}

func (s *sidebandReader) Read(b []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		pkt, err := s.p.next()
		switch {
		case errors.Is(err, errFlush):
			s.err = io.EOF
			continue
		case errors.Is(err, io.EOF):
			s.err = io.ErrUnexpectedEOF
			continue
		case err != nil:
			s.err = err
			continue
		case len(pkt) == 0:
			continue
		}
		switch pkt[0] {
		case 1:
			s.buf = pkt[1:]
		case 2:
			if s.msgs != nil {
				s.msgs.Write(pkt[1:])
			}
		case 3:
			s.err = &RemoteError{Msg: string(pkt[1:])}
		default:
			s.err = fmt.Errorf("unknown side band %d from the remote", pkt[0])
		}
	}
	n := copy(b, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}
