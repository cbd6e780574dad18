package vcs

import (
	"errors"
	"fmt"
)

// WalkReachable visits every object reachable from roots once, the roots
// first: commits and trees are read and decoded (visit gets their data),
// blobs are only checked to exist (visit gets nil data), and gitlinks are
// not followed (their commits live in another repository). Objects already
// in seen are skipped, so several walks can share the work; seen may be
// nil. A missing or undecodable object stops the walk with an error naming
// it and the object that refers to it; so does an error from visit.
//
// Retention (SPEC §14) decides from this walk what a store must keep, so
// it never guesses: anything it cannot read is an error, never "unused".
func WalkReachable(s Store, roots []Hash, seen map[Hash]bool, visit func(h Hash, t ObjectType, data []byte) error) error {
	return reach{seen: seen, history: true, checkBlobs: true}.walk(s, roots, visit)
}

// reach is the one walk of reachable objects: retention's WalkReachable
// and the transfers' ReachableObjects and KnownFrom are its settings.
type reach struct {
	// seen holds the objects already walked, which are skipped; the walk
	// adds to it. nil starts empty.
	seen map[Hash]bool
	// rootType is the type every root must have; 0 accepts a commit,
	// tree or blob.
	rootType ObjectType
	// skip reports objects the walk neither visits nor descends into
	// (what the other side of a transfer has); nil skips none.
	skip func(Hash) (bool, error)
	// history follows each commit's parents; without it only the
	// roots' snapshots are walked.
	history bool
	// checkBlobs checks that each blob exists; without it a blob is
	// visited on its id alone.
	checkBlobs bool
}

// walk visits every object reachable from roots once, the roots first,
// depth first: a commit's tree before its parents. Commits and trees are
// read and decoded (visit gets their data); blobs are not read (visit
// gets nil data); gitlinks are not followed. A missing or undecodable
// object stops the walk with an error naming it and the object that
// refers to it; so does an error from skip or visit.
func (r reach) walk(s Store, roots []Hash, visit func(h Hash, t ObjectType, data []byte) error) error {
	seen := r.seen
	if seen == nil {
		seen = map[Hash]bool{}
	}
	type item struct {
		id   Hash
		want ObjectType // for a root, rootType
		from string     // who refers to it, for errors; "" for a root
	}
	var stack []item
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{id: roots[i], want: r.rootType})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it.id] {
			continue
		}
		where := func(err error) error {
			if it.from == "" {
				return fmt.Errorf("object %s: %w", it.id.Short(), err)
			}
			return fmt.Errorf("%s %s (%s): %w", kindName(it.want), it.id.Short(), it.from, err)
		}
		if r.skip != nil {
			skip, err := r.skip(it.id)
			if err != nil {
				return err
			}
			if skip {
				seen[it.id] = true
				continue
			}
		}
		if it.want == BlobObject {
			if r.checkBlobs {
				ok, err := s.HasObject(it.id)
				if err != nil {
					return where(err)
				}
				if !ok {
					return where(ErrObjectNotFound)
				}
			}
			seen[it.id] = true
			if err := visit(it.id, BlobObject, nil); err != nil {
				return err
			}
			continue
		}
		t, data, err := s.ReadObject(it.id)
		if err != nil {
			if errors.Is(err, ErrObjectNotFound) {
				return where(ErrObjectNotFound)
			}
			return where(err)
		}
		if it.want != 0 && t != it.want {
			return where(fmt.Errorf("is a %s", t))
		}
		seen[it.id] = true
		switch t {
		case CommitObject:
			c, err := DecodeCommit(data)
			if err != nil {
				return where(err)
			}
			from := "of commit " + it.id.Short()
			// Parents go on the stack first so the tree is walked before
			// the history below it: errors name the nearest commit.
			if r.history {
				for i := len(c.Parents) - 1; i >= 0; i-- {
					stack = append(stack, item{c.Parents[i], CommitObject, "parent " + from})
				}
			}
			stack = append(stack, item{c.Tree, TreeObject, from})
		case TreeObject:
			entries, err := DecodeTree(data)
			if err != nil {
				return where(err)
			}
			from := "in tree " + it.id.Short()
			for i := len(entries) - 1; i >= 0; i-- {
				e := entries[i]
				switch {
				case e.Mode == ModeGitlink:
				case e.IsDir():
					stack = append(stack, item{e.ID, TreeObject, e.Name + " " + from})
				default:
					stack = append(stack, item{e.ID, BlobObject, e.Name + " " + from})
				}
			}
		}
		if err := visit(it.id, t, data); err != nil {
			return err
		}
	}
	return nil
}

func kindName(t ObjectType) string {
	if t == 0 {
		return "object"
	}
	return t.String()
}
