package vcs

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// netRemote speaks git's pack protocol, version 0 (gitprotocol-pack), to
// git-upload-pack or git-receive-pack at the other end of a conn.
type netRemote struct {
	ep   *Endpoint
	c    conn
	push bool
	msgs io.Writer
	refs []Ref
	caps map[string]bool
	done bool // a request was made
}

// maxHaves bounds the commits a fetch tells the remote it has: the heads
// of refs/ctxgit/ are enough for chains, and a request stays small.
const maxHaves = 256

// readAdvertisement reads the refs and capabilities the service announces.
func (r *netRemote) readAdvertisement() error {
	p := r.c.advertisement()
	r.caps = map[string]bool{}
	for first := true; ; first = false {
		line, err := p.line()
		if errors.Is(err, errFlush) {
			break
		}
		if err != nil {
			return r.advErr(err)
		}
		if first && line == "version 1" {
			// Protocol v1 announces itself; the refs and capabilities
			// follow on the next line, as in v0.
			line, err = p.line()
			if errors.Is(err, errFlush) {
				break
			}
			if err != nil {
				return r.advErr(err)
			}
		}
		if first {
			ref, caps, _ := strings.Cut(line, "\x00")
			for _, c := range strings.Fields(caps) {
				r.caps[c] = true
			}
			line = ref
		}
		if strings.HasPrefix(line, "shallow ") {
			continue
		}
		hex, name, ok := strings.Cut(line, " ")
		id, err := ParseHash(hex)
		if !ok || err != nil {
			if strings.HasPrefix(line, "version 2") {
				return kindf(ErrUnsupportedRemote, "%s speaks only protocol version 2", r.ep)
			}
			return fmt.Errorf("%s: malformed ref advertisement line %q", r.ep, line)
		}
		if name == "capabilities^{}" || strings.HasSuffix(name, "^{}") {
			continue
		}
		r.refs = append(r.refs, Ref{Name: name, ID: id})
	}
	for c := range r.caps {
		if strings.HasPrefix(c, "object-format=") && c != "object-format=sha1" {
			return kindf(ErrUnsupportedRemote, "%s: %s repositories are not supported (ctxgit stores SHA-1)", r.ep, strings.TrimPrefix(c, "object-format="))
		}
	}
	sort.Slice(r.refs, func(i, j int) bool { return r.refs[i].Name < r.refs[j].Name })
	return nil
}

// advErr explains a failure to read the advertisement: a remote that
// hangs up before saying anything was not reached.
func (r *netRemote) advErr(err error) error {
	switch {
	case errors.Is(err, ErrUnreachable):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return kindf(ErrUnreachable, "%s hung up without answering", r.ep)
	}
	return fmt.Errorf("%s: %w", r.ep, err)
}

func (r *netRemote) Refs() []Ref { return r.refs }

// Close ends the session, telling a stream service that nothing more is
// coming when no request was made.
func (r *netRemote) Close() error {
	if !r.done {
		r.hangUp()
	}
	return r.c.close()
}

// capsFor returns the capabilities ctxgit asks for among those offered.
func (r *netRemote) capsFor(want ...string) string {
	var out []string
	for _, c := range want {
		if r.caps[c] {
			out = append(out, c)
		}
	}
	return strings.Join(append(out, "agent=ctxgit"), " ")
}

// sideband returns the side-band capability to ask for, "" for none.
func (r *netRemote) sideband() string {
	switch {
	case r.caps["side-band-64k"]:
		return "side-band-64k"
	case r.caps["side-band"]:
		return "side-band"
	}
	return ""
}

// Fetch implements Remote: wants, a flush, haves, "done"; the remote
// answers with one ACK or NAK (no multi_ack is asked for) and the pack.
func (r *netRemote) Fetch(dst *GitStore, wants, haves []Hash) (int, error) {
	if r.push {
		return 0, errors.New("remote opened for pushing")
	}
	if len(wants) == 0 {
		r.hangUp()
		return 0, nil
	}
	sb := r.sideband()
	caps := r.capsFor(sb, "ofs-delta", "no-progress")
	if len(haves) > maxHaves {
		haves = haves[:maxHaves]
	}
	var req pktWriter
	for i, id := range wants {
		if i == 0 {
			req.line("want %s %s", id, caps)
		} else {
			req.line("want %s", id)
		}
	}
	req.flush()
	for _, id := range haves {
		req.line("have %s", id)
	}
	req.line("done")
	r.done = true
	resp, err := r.c.request(func(w io.Writer) error { _, err := w.Write(req.Bytes()); return err })
	if err != nil {
		return 0, err
	}
	for {
		line, err := resp.line()
		if err != nil {
			return 0, r.respErr(err)
		}
		if line == "NAK" || strings.HasPrefix(line, "ACK ") && !strings.Contains(line[4:], " ") {
			break
		}
		if strings.HasPrefix(line, "ACK ") || strings.HasPrefix(line, "shallow ") {
			continue
		}
		return 0, fmt.Errorf("%s: unexpected answer %q", r.ep, line)
	}
	var pack io.Reader = resp.r
	if sb != "" {
		pack = &sidebandReader{p: resp, msgs: r.msgs}
	}
	n, err := dst.StorePack(pack)
	if err != nil {
		return 0, r.respErr(err)
	}
	return n, nil
}

// hangUp ends a conversation that has nothing to ask: over a stream, a
// flush tells the service so (it would otherwise report the remote end
// hung up); over HTTP no request is made at all.
func (r *netRemote) hangUp() {
	r.done = true
	if _, ok := r.c.(*streamConn); !ok {
		return
	}
	resp, err := r.c.request(func(w io.Writer) error { _, err := io.WriteString(w, "0000"); return err })
	if err == nil {
		resp.next() // the service just exits
	}
}

// respErr names the remote in an error met while reading its answer.
func (r *netRemote) respErr(err error) error {
	var re *RemoteError
	if errors.As(err, &re) {
		return fmt.Errorf("%s: %w", r.ep, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return kindf(ErrUnreachable, "%s hung up before the transfer finished", r.ep)
	}
	return fmt.Errorf("%s: %w", r.ep, err)
}

// Push implements Remote: the commands, a flush, the pack (objects the
// remote lacks, without deltas), then the remote's report-status.
func (r *netRemote) Push(src Store, updates []RefUpdate, known func(Hash) (bool, error)) ([]RefStatus, int, error) {
	if !r.push {
		return nil, 0, errors.New("remote opened for fetching")
	}
	if !r.caps["report-status"] {
		return nil, 0, kindf(ErrUnsupportedRemote, "%s does not report the status of a push", r.ep)
	}
	if len(updates) == 0 {
		r.hangUp()
		return nil, 0, nil
	}
	var tips []Hash
	for _, u := range updates {
		if !u.New.IsZero() {
			tips = append(tips, u.New)
		}
	}
	ids, err := ReachableObjects(src, tips, known)
	if err != nil {
		return nil, 0, err
	}
	sb := r.sideband()
	caps := r.capsFor("report-status", sb, "quiet", "delete-refs")
	var req pktWriter
	for i, u := range updates {
		if i == 0 {
			req.raw(fmt.Sprintf("%s %s %s\x00%s\n", u.Old, u.New, u.Name, caps))
		} else {
			req.line("%s %s %s", u.Old, u.New, u.Name)
		}
	}
	req.flush()
	r.done = true
	resp, err := r.c.request(func(w io.Writer) error {
		if _, err := w.Write(req.Bytes()); err != nil {
			return err
		}
		if len(tips) == 0 {
			return nil
		}
		return WritePack(w, src, ids)
	})
	if err != nil {
		return nil, 0, err
	}
	report := resp
	if sb != "" {
		report = newPktReader(&sidebandReader{p: resp, msgs: r.msgs})
	}
	unpack, err := report.line()
	if err != nil {
		return nil, 0, r.respErr(err)
	}
	if unpack != "unpack ok" {
		return nil, 0, fmt.Errorf("%s: %w", r.ep, &RemoteError{Msg: "unpacking failed: " + strings.TrimPrefix(unpack, "unpack ")})
	}
	var out []RefStatus
	for {
		line, err := report.line()
		if errors.Is(err, errFlush) {
			break
		}
		if err != nil {
			return nil, 0, r.respErr(err)
		}
		switch {
		case strings.HasPrefix(line, "ok "):
			out = append(out, RefStatus{Name: strings.TrimPrefix(line, "ok ")})
		case strings.HasPrefix(line, "ng "):
			name, why, _ := strings.Cut(strings.TrimPrefix(line, "ng "), " ")
			out = append(out, RefStatus{Name: name, Err: why})
		}
	}
	return out, len(ids), nil
}
