package vcs

import (
	"bytes"
	"cmp"
	"fmt"
	"sort"
)

// Change statuses, as git's --name-status prints them.
const (
	Added    = "A"
	Modified = "M"
	Deleted  = "D"
	Renamed  = "R"
)

// Change is one path that differs between two trees.
type Change struct {
	Path             string
	Status           string // Added, Modified, Deleted or Renamed
	From             string // the old path of a rename
	OldID            Hash
	NewID            Hash
	OldMode, NewMode uint32
}

// DiffTrees lists the non-directory paths that differ from tree a to tree b
// (either may be ZeroHash for "empty"), sorted by path. Identical subtrees
// are skipped by id, so the cost grows with the change, not the tree. A
// deleted path and an added one with the same content pair up as a rename.
func DiffTrees(s Store, a, b Hash) ([]Change, error) {
	var out []Change
	if err := diffDir(s, a, b, "", &out); err != nil {
		return nil, err
	}
	out = pairRenames(out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func readTreeOrEmpty(s Store, id Hash) ([]TreeEntry, error) {
	if id.IsZero() {
		return nil, nil
	}
	return ReadTree(s, id)
}

// readTreeData is a tree object's bytes, nil for ZeroHash.
func readTreeData(s Store, id Hash) ([]byte, error) {
	if id.IsZero() {
		return nil, nil
	}
	t, data, err := s.ReadObject(id)
	if err != nil {
		return nil, err
	}
	if t != TreeObject {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id.Short(), t)
	}
	return data, nil
}

func (e rawEntry) isDir() bool { return e.mode == ModeDir }

// treeIter reads a tree's entries one at a time from its bytes: no
// entry is decoded into strings or kept.
type treeIter struct {
	data []byte
	cur  rawEntry
	ok   bool // cur holds an entry
	err  error
}

func newTreeIter(data []byte) *treeIter {
	it := &treeIter{data: data}
	it.next()
	return it
}

// next moves to the following entry; ok is false at the end or on a
// malformed tree (err).
func (it *treeIter) next() {
	it.ok = false
	if len(it.data) == 0 || it.err != nil {
		return
	}
	e, rest, err := nextTreeEntry(it.data)
	if err != nil {
		it.err = err
		return
	}
	it.cur, it.data, it.ok = e, rest, true
}

// inGitOrder reports whether a tree's entries are sorted as git sorts
// them, each key once: what the merge in diffDir needs.
func inGitOrder(data []byte) (bool, error) {
	it := newTreeIter(data)
	for prev := it.cur; it.ok; prev = it.cur {
		if it.next(); it.ok && compareRaw(prev, it.cur) >= 0 {
			return false, nil
		}
	}
	return true, it.err
}

// compareRaw orders entries as git sorts a tree: by name, a directory's
// as if it ended in '/'. Equal means the same name and the same kind, the
// key DiffTrees pairs entries by.
func compareRaw(a, b rawEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(sortTail(a.name, n, a.isDir()), sortTail(b.name, n, b.isDir()))
}

// diffDir compares two trees entry by entry, both sorted as git sorts
// them, in one pass: no map of either side, no string but for a path that
// changed. Subtrees with the same id are not read.
func diffDir(s Store, a, b Hash, dir string, out *[]Change) error {
	if a == b {
		return nil
	}
	da, err := readTreeData(s, a)
	if err != nil {
		return err
	}
	db, err := readTreeData(s, b)
	if err != nil {
		return err
	}
	for _, data := range [][]byte{da, db} {
		if ordered, err := inGitOrder(data); err != nil {
			return err
		} else if !ordered {
			return diffDirByName(s, a, b, dir, out)
		}
	}
	ia, ib := newTreeIter(da), newTreeIter(db)
	for ia.ok || ib.ok {
		var c int
		switch {
		case !ib.ok:
			c = -1
		case !ia.ok:
			c = 1
		default:
			c = compareRaw(ia.cur, ib.cur)
		}
		switch {
		case c < 0: // only in a
			o := ia.cur
			ia.next()
			path := joinRel(dir, string(o.name))
			if o.isDir() {
				if err := diffDir(s, o.id, ZeroHash, path, out); err != nil {
					return err
				}
				continue
			}
			*out = append(*out, Change{Path: path, Status: Deleted, OldID: o.id, OldMode: o.mode})
		case c > 0: // only in b
			e := ib.cur
			ib.next()
			path := joinRel(dir, string(e.name))
			if e.isDir() {
				if err := diffDir(s, ZeroHash, e.id, path, out); err != nil {
					return err
				}
				continue
			}
			*out = append(*out, Change{Path: path, Status: Added, NewID: e.id, NewMode: e.mode})
		default:
			o, e := ia.cur, ib.cur
			ia.next()
			ib.next()
			switch {
			case e.isDir():
				if o.id != e.id {
					if err := diffDir(s, o.id, e.id, joinRel(dir, string(e.name)), out); err != nil {
						return err
					}
				}
			case o.id != e.id || o.mode != e.mode:
				*out = append(*out, Change{Path: joinRel(dir, string(e.name)), Status: Modified, OldID: o.id, NewID: e.id, OldMode: o.mode, NewMode: e.mode})
			}
		}
	}
	return nil
}

// diffDirByName compares two trees by name, whatever their order: the
// way for a tree git would not have written (its entries out of order).
func diffDirByName(s Store, a, b Hash, dir string, out *[]Change) error {
	ea, err := readTreeOrEmpty(s, a)
	if err != nil {
		return err
	}
	eb, err := readTreeOrEmpty(s, b)
	if err != nil {
		return err
	}
	// Files and directories are keyed apart: "x" the file and "x/" the
	// directory are different paths to a diff.
	key := func(e TreeEntry) string {
		if e.IsDir() {
			return e.Name + "/"
		}
		return e.Name
	}
	old := make(map[string]TreeEntry, len(ea))
	for _, e := range ea {
		old[key(e)] = e
	}
	seen := make(map[string]bool, len(eb))
	for _, e := range eb {
		k := key(e)
		seen[k] = true
		o, ok := old[k]
		path := joinRel(dir, e.Name)
		switch {
		case e.IsDir():
			var from Hash
			if ok {
				from = o.ID
			}
			if err := diffDir(s, from, e.ID, path, out); err != nil {
				return err
			}
		case !ok:
			*out = append(*out, Change{Path: path, Status: Added, NewID: e.ID, NewMode: e.Mode})
		case o.ID != e.ID || o.Mode != e.Mode:
			*out = append(*out, Change{Path: path, Status: Modified, OldID: o.ID, NewID: e.ID, OldMode: o.Mode, NewMode: e.Mode})
		}
	}
	for _, o := range ea {
		if seen[key(o)] {
			continue
		}
		path := joinRel(dir, o.Name)
		if o.IsDir() {
			if err := diffDir(s, o.ID, ZeroHash, path, out); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, Change{Path: path, Status: Deleted, OldID: o.ID, OldMode: o.Mode})
	}
	return nil
}

// pairRenames turns a deletion and an addition of identical content into
// one rename, pairing in path order so the result is deterministic.
func pairRenames(changes []Change) []Change {
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	deleted := map[Hash][]int{}
	for i, c := range changes {
		if c.Status == Deleted {
			deleted[c.OldID] = append(deleted[c.OldID], i)
		}
	}
	drop := map[int]bool{}
	for i := range changes {
		c := &changes[i]
		if c.Status != Added {
			continue
		}
		cands := deleted[c.NewID]
		if len(cands) == 0 {
			continue
		}
		d := cands[0]
		deleted[c.NewID] = cands[1:]
		c.Status, c.From, c.OldID, c.OldMode = Renamed, changes[d].Path, changes[d].OldID, changes[d].OldMode
		drop[d] = true
	}
	out := changes[:0]
	for i, c := range changes {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}
