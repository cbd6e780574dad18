package vcs

import (
	"fmt"
	"io"
	"sync"
)

// Pending is a Store that stages a checkpoint: blobs go straight into one
// batch on the base store (so large files stream and compress in parallel),
// while trees and commits stay in memory until Flush writes the ones the
// final commit reaches. Intermediate trees (say, a snapshot's root before
// ctxgit adds its own files to it) never reach the repository.
type Pending struct {
	base  Store
	batch Batch

	mu      sync.Mutex
	objects map[Hash]memObject
	flushed map[Hash]bool
}

// NewPending starts staging on base.
func NewPending(base Store) (*Pending, error) {
	b, err := base.NewBatch()
	if err != nil {
		return nil, err
	}
	return &Pending{base: base, batch: b, objects: map[Hash]memObject{}}, nil
}

// HasObject implements Store.
func (p *Pending) HasObject(h Hash) (bool, error) {
	p.mu.Lock()
	_, ok := p.objects[h]
	p.mu.Unlock()
	if ok {
		return true, nil
	}
	return p.base.HasObject(h)
}

// ReadObject implements Store. Blobs added since NewPending are readable
// only after Flush.
func (p *Pending) ReadObject(h Hash) (ObjectType, []byte, error) {
	p.mu.Lock()
	o, ok := p.objects[h]
	p.mu.Unlock()
	if ok {
		return o.t, o.data, nil
	}
	return p.base.ReadObject(h)
}

// WriteObject implements Store.
func (p *Pending) WriteObject(t ObjectType, data []byte) (Hash, error) {
	if t == BlobObject {
		return p.batch.Add(t, data)
	}
	h := HashObject(t, data)
	p.mu.Lock()
	if _, ok := p.objects[h]; !ok {
		p.objects[h] = memObject{t, append([]byte(nil), data...)}
	}
	p.mu.Unlock()
	return h, nil
}

// ownedWriter is a Store that can keep data it is handed without copying
// it: the caller never touches data again, and h is its id.
type ownedWriter interface {
	writeOwned(t ObjectType, h Hash, data []byte)
}

// writeOwned writes an object the caller has no further use for: a
// Pending keeps the very bytes (at the first snapshot of 100,000 files
// the copies of its trees were 5 MB), any other store copies them.
func writeOwned(s Store, t ObjectType, h Hash, data []byte) error {
	if o, ok := s.(ownedWriter); ok && t != BlobObject {
		o.writeOwned(t, h, data)
		return nil
	}
	_, err := s.WriteObject(t, data)
	return err
}

func (p *Pending) writeOwned(t ObjectType, h Hash, data []byte) {
	p.mu.Lock()
	if _, ok := p.objects[h]; !ok {
		p.objects[h] = memObject{t, data}
	}
	p.mu.Unlock()
}

// WriteBlobFrom implements BlobWriter: a streamed blob goes straight to
// the base store (durable at once), or, on a base that cannot stream, is
// read whole and added to the batch.
func (p *Pending) WriteBlobFrom(r io.Reader, size int64) (Hash, error) {
	if bs, ok := p.base.(BlobWriter); ok {
		return bs.WriteBlobFrom(r, size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return ZeroHash, ErrChangedWhileRead
	}
	return p.batch.Add(BlobObject, data)
}

// NewBatch implements Store; a Pending is already one batch.
func (p *Pending) NewBatch() (Batch, error) {
	return nil, fmt.Errorf("vcs: Pending does not nest batches")
}

// ReadRef implements Store.
func (p *Pending) ReadRef(name string) (Hash, error) { return p.base.ReadRef(name) }

// UpdateRef implements Store.
func (p *Pending) UpdateRef(name string, newID, oldID Hash) error {
	return p.base.UpdateRef(name, newID, oldID)
}

// DeleteRef implements Store.
func (p *Pending) DeleteRef(name string, oldID Hash) error { return p.base.DeleteRef(name, oldID) }

// ListRefs implements Store.
func (p *Pending) ListRefs(prefix string) ([]Ref, error) { return p.base.ListRefs(prefix) }

// Flush writes the staged trees and commits reachable from root, and every
// staged blob, durably into the base store. After Flush, root and all it
// reaches are in the base store.
func (p *Pending) Flush(root Hash) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushed = map[Hash]bool{}
	var visit func(h Hash) error
	visit = func(h Hash) error {
		o, ok := p.objects[h]
		if !ok || p.flushed[h] {
			return nil // already in the base store
		}
		p.flushed[h] = true
		switch o.t {
		case CommitObject:
			c, err := DecodeCommit(o.data)
			if err != nil {
				return err
			}
			if err := visit(c.Tree); err != nil {
				return err
			}
		case TreeObject:
			// Walked in place: decoding every staged tree into entries
			// was 15 MB of a first snapshot of 100,000 files.
			err := forEachTreeEntry(o.data, func(mode uint32, _ []byte, id Hash) error {
				if mode == ModeDir {
					return visit(id)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		_, err := p.batch.Add(o.t, o.data)
		return err
	}
	if err := visit(root); err != nil {
		p.batch.Abort()
		return err
	}
	return p.batch.Commit()
}

// Flushed reports whether Flush wrote h from the staged objects.
func (p *Pending) Flushed(h Hash) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.flushed[h]
}

// Abort discards everything staged.
func (p *Pending) Abort() { p.batch.Abort() }
