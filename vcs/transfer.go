package vcs

import "context"

// Objects to transfer are found by walking from the tips being sent and
// not descending into objects the other side is known to have. A commit,
// or a tree, the other side has is taken to come with everything it
// reaches — git's own assumption for objects reachable from refs.

// ReachableObjects lists the objects reachable from the commits tips that
// known does not report, in pack order (commits, then trees and blobs as
// met). The walk does not descend into a known commit or tree. Gitlinks
// (nested repositories) are not objects of this repository and are skipped.
func ReachableObjects(s Store, tips []Hash, known func(Hash) (bool, error)) ([]Hash, error) {
	var commits, rest []Hash
	err := reach{rootType: CommitObject, skip: known, history: true}.walk(s, tips, func(h Hash, t ObjectType, _ []byte) error {
		if t == CommitObject {
			commits = append(commits, h)
		} else {
			rest = append(rest, h)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append(commits, rest...), nil
}

// KnownFrom returns a predicate reporting the objects reachable from the
// snapshots of the commits haves (each commit and its whole tree), for a
// walk that must leave out what a remote already has. Haves that s does
// not hold are ignored. Each snapshot's trees are read once, so the cost
// is that of the distinct trees among the haves.
func KnownFrom(s Store, haves []Hash) (func(Hash) (bool, error), error) {
	known := map[Hash]bool{}
	held := make([]Hash, 0, len(haves))
	for _, h := range haves {
		if known[h] {
			continue
		}
		ok, err := s.HasObject(h)
		if err != nil {
			return nil, err
		}
		if ok {
			held = append(held, h)
		}
	}
	// The walk marks every commit, tree and blob it meets in known.
	err := reach{seen: known, rootType: CommitObject}.walk(s, held, func(Hash, ObjectType, []byte) error { return nil })
	if err != nil {
		return nil, err
	}
	return func(h Hash) (bool, error) { return known[h], nil }, nil
}

// IsAncestor reports whether anc is desc or one of its ancestors.
func IsAncestor(s Store, anc, desc Hash) (bool, error) {
	seen := map[Hash]bool{}
	queue := []Hash{desc}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if id == anc {
			return true, nil
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := ReadCommit(s, id)
		if err != nil {
			return false, err
		}
		queue = append(queue, c.Parents...)
	}
	return false, nil
}

// CopyObjects copies into dst every object reachable from tips that dst
// lacks, as one batch (a pack when large), and returns how many it copied.
// ctx (nil for none) is checked between objects: once it is done the batch
// is discarded, dst is left as it was, and its error is returned.
func CopyObjects(ctx context.Context, src, dst Store, tips []Hash) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ids, err := ReachableObjects(src, tips, dst.HasObject)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	b, err := dst.NewBatch()
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			b.Abort()
			return 0, err
		}
		t, data, err := src.ReadObject(id)
		if err == nil {
			_, err = b.Add(t, data)
		}
		if err != nil {
			b.Abort()
			return 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		b.Abort()
		return 0, err
	}
	if err := b.Commit(); err != nil {
		return 0, err
	}
	return len(ids), nil
}
