package vcs

import (
	"errors"
	"sync"
)

// HashOnly is a store as a snapshot sees it, minus the writes: blobs are
// hashed and dropped, trees and commits are kept in memory, reads fall
// through to the real store. A dry run, or a look at what a checkpoint
// would hold, plans on it and stores nothing.
type HashOnly struct {
	Store
	mu   sync.Mutex
	objs map[Hash]hashOnlyObject
}

type hashOnlyObject struct {
	t    ObjectType
	data []byte
}

// NewHashOnly wraps base.
func NewHashOnly(base Store) *HashOnly {
	return &HashOnly{Store: base, objs: map[Hash]hashOnlyObject{}}
}

var errHashOnly = errors.New("a dry run stores nothing")

// WriteObject implements Store: the id, and nothing stored but in memory.
func (s *HashOnly) WriteObject(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	if t != BlobObject {
		s.mu.Lock()
		s.objs[h] = hashOnlyObject{t, append([]byte(nil), data...)}
		s.mu.Unlock()
	}
	return h, nil
}

// HasObject implements Store.
func (s *HashOnly) HasObject(h Hash) (bool, error) {
	s.mu.Lock()
	_, ok := s.objs[h]
	s.mu.Unlock()
	if ok {
		return true, nil
	}
	return s.Store.HasObject(h)
}

// ReadObject implements Store.
func (s *HashOnly) ReadObject(h Hash) (ObjectType, []byte, error) {
	s.mu.Lock()
	o, ok := s.objs[h]
	s.mu.Unlock()
	if ok {
		return o.t, o.data, nil
	}
	return s.Store.ReadObject(h)
}

// NewBatch, UpdateRef and DeleteRef refuse: nothing is written.
func (s *HashOnly) NewBatch() (Batch, error)           { return nil, errHashOnly }
func (s *HashOnly) UpdateRef(string, Hash, Hash) error { return errHashOnly }
func (s *HashOnly) DeleteRef(string, Hash) error       { return errHashOnly }
