package vcs

import (
	"errors"
	"fmt"
	"strings"
)

// Store is the small git-shaped interface everything in ctxgit's history is
// built on: content-addressed objects and named refs. Implementations must
// be safe for concurrent use by multiple goroutines.
type Store interface {
	// HasObject reports whether an object is stored.
	HasObject(h Hash) (bool, error)
	// ReadObject returns an object's type and content, or an error
	// matching ErrObjectNotFound.
	ReadObject(h Hash) (ObjectType, []byte, error)
	// WriteObject stores one object (a no-op when it is already stored)
	// and returns its id. It keeps no reference to data once it returns:
	// the snapshot reuses its read buffers.
	WriteObject(t ObjectType, data []byte) (Hash, error)
	// NewBatch starts a batch for many objects, stored together on Commit.
	NewBatch() (Batch, error)

	// ReadRef returns the id a ref points at, or an error matching
	// ErrRefNotFound.
	ReadRef(name string) (Hash, error)
	// UpdateRef sets name to newID if it currently points at oldID
	// (compare-and-swap; a zero oldID means the ref must not exist). A
	// mismatch returns an error matching ErrRefConflict and changes
	// nothing.
	UpdateRef(name string, newID, oldID Hash) error
	// DeleteRef removes name if it currently points at oldID.
	DeleteRef(name string, oldID Hash) error
	// ListRefs returns the refs whose names start with prefix, sorted by
	// name.
	ListRefs(prefix string) ([]Ref, error)
}

// Batch collects objects to be stored together: a large batch becomes one
// packfile rather than thousands of loose objects. Add is safe for
// concurrent use, so callers can compress on several cores.
type Batch interface {
	// Add stores an object in the batch and returns its id. Adding an
	// object that is already stored or already in the batch is a no-op.
	Add(t ObjectType, data []byte) (Hash, error)
	// Len is the number of objects added so far.
	Len() int
	// Commit makes the batch's objects durable and readable.
	Commit() error
	// Abort discards an uncommitted batch.
	Abort()
}

// Ref is a ref name and the id it points at.
type Ref struct {
	Name string
	ID   Hash
}

// Errors matched with errors.Is.
var (
	ErrObjectNotFound = errors.New("object not found")
	ErrRefNotFound    = errors.New("ref not found")
	ErrRefConflict    = errors.New("ref changed concurrently")
	// ErrCorrupt marks repository data that does not decode: a ref file
	// or packed-refs line that is not an object id.
	ErrCorrupt = errors.New("corrupt")
)

// CheckRefName applies git's ref-name rules (git-check-ref-format) to a
// full ref name, so nothing ctxgit writes is a ref git would refuse.
func CheckRefName(name string) error {
	bad := func(why string) error { return errors.New("invalid ref name " + quote(name) + ": " + why) }
	if !strings.HasPrefix(name, "refs/") {
		return bad("must start with refs/")
	}
	if strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") {
		return bad("must not end with / or .")
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return bad("must not contain '..', '@{' or '//'")
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return bad("contains a forbidden character")
		}
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || strings.HasPrefix(el, ".") || strings.HasSuffix(el, ".lock") {
			return bad("a component is empty, starts with '.' or ends with .lock")
		}
	}
	return nil
}

func quote(s string) string { return "\"" + s + "\"" }

// corruptError reads as its message and matches ErrCorrupt.
type corruptError struct{ msg string }

func (e *corruptError) Error() string        { return e.msg }
func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

func corruptf(format string, args ...any) error {
	return &corruptError{fmt.Sprintf(format, args...)}
}
