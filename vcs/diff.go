package vcs

import (
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

func diffDir(s Store, a, b Hash, dir string, out *[]Change) error {
	if a == b {
		return nil
	}
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
