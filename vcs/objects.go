package vcs

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// File modes as git records them in trees.
const (
	ModeFile       uint32 = 0o100644
	ModeExecutable uint32 = 0o100755
	ModeSymlink    uint32 = 0o120000
	ModeGitlink    uint32 = 0o160000
	ModeDir        uint32 = 0o040000
)

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Name string
	Mode uint32
	ID   Hash
}

// IsDir reports whether the entry is a subtree.
func (e TreeEntry) IsDir() bool { return e.Mode == ModeDir }

// SortTree orders entries as git does: by name, with a subtree compared as
// if its name ended in '/'. go-git's encoder does not sort, and a tree in
// the wrong order fails `git fsck`.
func SortTree(entries []TreeEntry) {
	slices.SortFunc(entries, func(a, b TreeEntry) int {
		switch {
		case treeLess(a, b):
			return -1
		case treeLess(b, a):
			return 1
		}
		return 0
	})
}

func treeLess(a, b TreeEntry) bool {
	an, bn := a.Name, b.Name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c < 0
	}
	ac, bc := sortTail(an, n, a.IsDir()), sortTail(bn, n, b.IsDir())
	return ac < bc
}

// sortTail is the byte after the common prefix: the next byte of the name,
// '/' for a directory at its end, or 0 for a file at its end.
func sortTail[S ~string | ~[]byte](name S, n int, dir bool) int {
	if n < len(name) {
		return int(name[n])
	}
	if dir {
		return '/'
	}
	return 0
}

// EncodeTree serialises entries (which must be sorted) in git's format.
func EncodeTree(entries []TreeEntry) []byte {
	// Sized once: a snapshot encodes a tree per changed directory.
	size := 0
	for _, e := range entries {
		size += 6 + 1 + len(e.Name) + 1 + len(e.ID)
	}
	b := make([]byte, 0, size)
	for _, e := range entries {
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.ID[:]...)
	}
	return b
}

// DecodeTree parses a tree object.
func DecodeTree(data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	err := forEachTreeEntry(data, func(mode uint32, name []byte, id Hash) error {
		out = append(out, TreeEntry{Name: string(name), Mode: mode, ID: id})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEachTreeEntry calls visit with each entry of a tree's data, in order,
// allocating nothing: name is valid only during the call. An error from
// visit stops it and is returned.
func forEachTreeEntry(data []byte, visit func(mode uint32, name []byte, id Hash) error) error {
	for len(data) > 0 {
		e, rest, err := nextTreeEntry(data)
		if err != nil {
			return err
		}
		if err := visit(e.mode, e.name, e.id); err != nil {
			return err
		}
		data = rest
	}
	return nil
}

// rawEntry is a tree entry as it lies in the tree's bytes.
type rawEntry struct {
	mode uint32
	name []byte
	id   Hash
}

// nextTreeEntry parses the first entry of a tree's data, not empty, and
// returns the data after it.
func nextTreeEntry(data []byte) (rawEntry, []byte, error) {
	sp := bytes.IndexByte(data, ' ')
	if sp < 0 {
		return rawEntry{}, nil, errors.New("corrupt tree: no mode")
	}
	mode, ok := parseTreeMode(data[:sp])
	if !ok {
		return rawEntry{}, nil, fmt.Errorf("corrupt tree: mode %q", data[:sp])
	}
	data = data[sp+1:]
	nul := bytes.IndexByte(data, 0)
	if nul < 0 || len(data) < nul+21 {
		return rawEntry{}, nil, errors.New("corrupt tree: truncated entry")
	}
	e := rawEntry{mode: mode, name: data[:nul]}
	copy(e.id[:], data[nul+1:nul+21])
	return e, data[nul+21:], nil
}

// parseTreeMode parses a tree entry's octal mode as strconv.ParseUint(s,
// 8, 32) does, without making a string of it.
func parseTreeMode(b []byte) (uint32, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '7' {
			return 0, false
		}
		v = v<<3 | uint64(c-'0')
		if v > 1<<32-1 {
			return 0, false
		}
	}
	return uint32(v), true
}

// Signature is a commit's author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s Signature) encode() string {
	_, off := s.When.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.Name, s.Email, s.When.Unix(), sign, off/3600, off%3600/60)
}

func decodeSignature(s string) (Signature, error) {
	lt, gt := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Signature{}, fmt.Errorf("corrupt signature %q", s)
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	f := strings.Fields(s[gt+1:])
	if len(f) != 2 {
		return sig, fmt.Errorf("corrupt signature time %q", s)
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || len(f[1]) != 5 {
		return sig, fmt.Errorf("corrupt signature time %q", s)
	}
	hh, _ := strconv.Atoi(f[1][1:3])
	mm, _ := strconv.Atoi(f[1][3:5])
	off := hh*3600 + mm*60
	if f[1][0] == '-' {
		off = -off
	}
	sig.When = time.Unix(sec, 0).In(time.FixedZone("", off))
	return sig, nil
}

// Commit is a commit object.
type Commit struct {
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// EncodeCommit serialises c in git's format. Signatures must not contain
// '<', '>' or newlines (git would refuse them too).
func EncodeCommit(c *Commit) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n", c.Author.encode(), c.Committer.encode())
	b.WriteString(c.Message)
	return []byte(b.String())
}

// DecodeCommit parses a commit object. Headers it does not know (gpgsig,
// encoding, mergetag) are skipped.
func DecodeCommit(data []byte) (*Commit, error) {
	c := &Commit{}
	head, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		head, msg = data, nil
	}
	c.Message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, " ")
		var err error
		switch key {
		case "tree":
			c.Tree, err = ParseHash(val)
		case "parent":
			var p Hash
			p, err = ParseHash(val)
			c.Parents = append(c.Parents, p)
		case "author":
			c.Author, err = decodeSignature(val)
		case "committer":
			c.Committer, err = decodeSignature(val)
		}
		if err != nil {
			return nil, fmt.Errorf("corrupt commit: %w", err)
		}
	}
	if c.Tree.IsZero() {
		return nil, errors.New("corrupt commit: no tree")
	}
	return c, nil
}

// WriteTree sorts and stores a tree.
func WriteTree(s Store, entries []TreeEntry) (Hash, error) {
	SortTree(entries)
	return s.WriteObject(TreeObject, EncodeTree(entries))
}

// ReadTree loads a tree object.
func ReadTree(s Store, id Hash) ([]TreeEntry, error) {
	t, data, err := s.ReadObject(id)
	if err != nil {
		return nil, err
	}
	if t != TreeObject {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id.Short(), t)
	}
	return DecodeTree(data)
}

// WriteCommit stores a commit.
func WriteCommit(s Store, c *Commit) (Hash, error) {
	return s.WriteObject(CommitObject, EncodeCommit(c))
}

// ReadCommit loads a commit object.
func ReadCommit(s Store, id Hash) (*Commit, error) {
	t, data, err := s.ReadObject(id)
	if err != nil {
		return nil, err
	}
	if t != CommitObject {
		return nil, fmt.Errorf("object %s is a %s, not a commit", id.Short(), t)
	}
	return DecodeCommit(data)
}

// ReadBlob loads a blob object.
func ReadBlob(s Store, id Hash) ([]byte, error) {
	t, data, err := s.ReadObject(id)
	if err != nil {
		return nil, err
	}
	if t != BlobObject {
		return nil, fmt.Errorf("object %s is a %s, not a blob", id.Short(), t)
	}
	return data, nil
}

// Lookup finds the entry at a slash-separated path below tree root.
func Lookup(s Store, root Hash, path string) (TreeEntry, error) {
	cur := TreeEntry{Mode: ModeDir, ID: root}
	for _, name := range strings.Split(path, "/") {
		if !cur.IsDir() {
			return TreeEntry{}, fmt.Errorf("%s: %w", path, ErrObjectNotFound)
		}
		entries, err := ReadTree(s, cur.ID)
		if err != nil {
			return TreeEntry{}, err
		}
		found := false
		for _, e := range entries {
			if e.Name == name {
				cur, found = e, true
				break
			}
		}
		if !found {
			return TreeEntry{}, fmt.Errorf("%s: %w", path, ErrObjectNotFound)
		}
	}
	return cur, nil
}

// ReadFileAt returns the content of the blob at path in tree root.
func ReadFileAt(s Store, root Hash, path string) ([]byte, error) {
	e, err := Lookup(s, root, path)
	if err != nil {
		return nil, err
	}
	if e.IsDir() || e.Mode == ModeGitlink {
		return nil, fmt.Errorf("%s is not a file", path)
	}
	return ReadBlob(s, e.ID)
}

// PathEntry places an entry at a slash-separated path in a tree.
type PathEntry struct {
	Path string
	Mode uint32
	ID   Hash
}

// Overlay returns root with each entry placed at its path (replacing what is
// there, creating directories as needed); a zero ID removes the path. Only
// the trees along the changed paths are rewritten.
func Overlay(s Store, root Hash, entries []PathEntry) (Hash, error) {
	byDir := map[string][]PathEntry{}
	for _, e := range entries {
		dir, _ := splitPath(e.Path)
		byDir[dir] = append(byDir[dir], e)
	}
	return overlayDir(s, root, "", byDir)
}

func overlayDir(s Store, id Hash, dir string, byDir map[string][]PathEntry) (Hash, error) {
	var entries []TreeEntry
	if !id.IsZero() {
		var err error
		if entries, err = ReadTree(s, id); err != nil {
			return ZeroHash, err
		}
	}
	set := func(name string, mode uint32, h Hash) {
		for i := range entries {
			if entries[i].Name == name {
				if h.IsZero() {
					entries = append(entries[:i], entries[i+1:]...)
				} else {
					entries[i].Mode, entries[i].ID = mode, h
				}
				return
			}
		}
		if !h.IsZero() {
			entries = append(entries, TreeEntry{Name: name, Mode: mode, ID: h})
		}
	}
	for _, e := range byDir[dir] {
		_, name := splitPath(e.Path)
		set(name, e.Mode, e.ID)
	}
	// Subdirectories that hold overlaid paths, directly or deeper.
	children := map[string]bool{}
	for d := range byDir {
		if d == dir || !(dir == "" || strings.HasPrefix(d, dir+"/")) {
			continue
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(d, dir), "/")
		child, _, _ := strings.Cut(rest, "/")
		children[child] = true
	}
	for child := range children {
		var sub Hash
		for _, e := range entries {
			if e.Name == child && e.IsDir() {
				sub = e.ID
			}
		}
		path := child
		if dir != "" {
			path = dir + "/" + child
		}
		nid, err := overlayDir(s, sub, path, byDir)
		if err != nil {
			return ZeroHash, err
		}
		set(child, ModeDir, nid)
	}
	if len(entries) == 0 && dir != "" {
		return ZeroHash, nil // git stores no empty subtrees
	}
	return WriteTree(s, entries)
}

func splitPath(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}
