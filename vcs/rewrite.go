package vcs

import (
	"bytes"
	"errors"
	"fmt"
)

// Reparent returns a commit object's raw data with its parent lines
// replaced by one naming parent (none when parent is ZeroHash). Every
// other byte — tree, author, committer and their dates, extra headers,
// the message and its trailers — is kept as it was, so the commit differs
// only in where it hangs.
func Reparent(data []byte, parent Hash) ([]byte, error) {
	head, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		return nil, errors.New("corrupt commit: no blank line after the headers")
	}
	lines := bytes.Split(head, []byte("\n"))
	if len(lines) == 0 || !bytes.HasPrefix(lines[0], []byte("tree ")) {
		return nil, errors.New("corrupt commit: no tree line first")
	}
	var out bytes.Buffer
	out.Grow(len(data))
	out.Write(lines[0])
	out.WriteByte('\n')
	if !parent.IsZero() {
		fmt.Fprintf(&out, "parent %s\n", parent)
	}
	for _, l := range lines[1:] {
		if bytes.HasPrefix(l, []byte("parent ")) {
			continue
		}
		out.Write(l)
		out.WriteByte('\n')
	}
	out.WriteByte('\n')
	out.Write(msg)
	return out.Bytes(), nil
}

// RewriteChain re-creates the commits of chain (newest first) as a chain of
// their own: the oldest gets no parent and each other one the re-created
// commit before it, with everything else unchanged (see Reparent). The new
// commits are added to b; the caller commits the batch, making them
// durable, before pointing any ref at the new head. It returns the new
// head and the new id of every commit of chain.
func RewriteChain(s Store, b Batch, chain []Hash) (Hash, map[Hash]Hash, error) {
	ids := map[Hash]Hash{}
	parent := ZeroHash
	for i := len(chain) - 1; i >= 0; i-- {
		id := chain[i]
		t, data, err := s.ReadObject(id)
		if err != nil {
			return ZeroHash, nil, fmt.Errorf("commit %s: %w", id.Short(), err)
		}
		if t != CommitObject {
			return ZeroHash, nil, fmt.Errorf("object %s is a %s, not a commit", id.Short(), t)
		}
		data, err = Reparent(data, parent)
		if err != nil {
			return ZeroHash, nil, fmt.Errorf("commit %s: %w", id.Short(), err)
		}
		nid, err := b.Add(CommitObject, data)
		if err != nil {
			return ZeroHash, nil, err
		}
		ids[id], parent = nid, nid
	}
	return parent, ids, nil
}
