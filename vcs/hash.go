package vcs

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
)

// Hash is a SHA-1 object id.
type Hash [20]byte

// ZeroHash is the all-zero id, meaning "no object" (and, in UpdateRef's old
// value, "the ref must not exist").
var ZeroHash Hash

// IsZero reports whether h is ZeroHash.
func (h Hash) IsZero() bool { return h == ZeroHash }

// String is the 40-digit hex form.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short is the 7-digit abbreviation git prints by default.
func (h Hash) Short() string { return h.String()[:7] }

// ParseHash parses a 40-digit hex id.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 40 {
		return h, fmt.Errorf("object id %q: want 40 hex digits", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("object id %q: not hex", s)
	}
	return h, nil
}

// ObjectType is a git object type. The values are git's pack type numbers.
type ObjectType int8

// Object types.
const (
	CommitObject ObjectType = 1
	TreeObject   ObjectType = 2
	BlobObject   ObjectType = 3
	// TagObject is git's annotated tag: never a checkpoint, read only so
	// a ref at one is named as such and refused (a fetch skips it).
	TagObject ObjectType = 4
)

func (t ObjectType) String() string {
	switch t {
	case CommitObject:
		return "commit"
	case TreeObject:
		return "tree"
	case BlobObject:
		return "blob"
	case TagObject:
		return "tag"
	}
	return "unknown"
}

// HashObject computes an object's id as git does: SHA-1 over
// "<type> <size>\x00" followed by the content.
func HashObject(t ObjectType, data []byte) Hash {
	d := sha1.New()
	writeHeader(d, t, int64(len(data)))
	d.Write(data)
	var h Hash
	d.Sum(h[:0])
	return h
}

func writeHeader(d hash.Hash, t ObjectType, size int64) {
	var buf [32]byte
	b := append(buf[:0], t.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, size, 10)
	b = append(b, 0)
	d.Write(b)
}

// objectHeader returns the loose-object header for t and size.
func objectHeader(t ObjectType, size int) []byte {
	b := append([]byte(t.String()), ' ')
	b = strconv.AppendInt(b, int64(size), 10)
	return append(b, 0)
}
