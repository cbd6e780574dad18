package vcs

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// MemStore is an in-memory Store for tests of code built on Store.
type MemStore struct {
	mu      sync.Mutex
	objects map[Hash]memObject
	refs    map[string]Hash
}

type memObject struct {
	t    ObjectType
	data []byte
}

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore {
	return &MemStore{objects: map[Hash]memObject{}, refs: map[string]Hash{}}
}

// HasObject implements Store.
func (m *MemStore) HasObject(h Hash) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objects[h]
	return ok, nil
}

// ReadObject implements Store.
func (m *MemStore) ReadObject(h Hash) (ObjectType, []byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[h]
	if !ok {
		return 0, nil, fmt.Errorf("%s: %w", h.Short(), ErrObjectNotFound)
	}
	return o.t, append([]byte(nil), o.data...), nil
}

// WriteObject implements Store.
func (m *MemStore) WriteObject(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[h]; !ok {
		m.objects[h] = memObject{t, append([]byte(nil), data...)}
	}
	return h, nil
}

// DeleteObject removes an object, as git prune removes an unreachable
// one: for tests of a store that lost objects under a ref.
func (m *MemStore) DeleteObject(h Hash) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, h)
}

// NewBatch implements Store.
func (m *MemStore) NewBatch() (Batch, error) {
	return &memBatch{store: m, pending: map[Hash]memObject{}}, nil
}

type memBatch struct {
	store   *MemStore
	mu      sync.Mutex
	pending map[Hash]memObject
}

func (b *memBatch) Add(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		return h, fmt.Errorf("batch already finished")
	}
	b.pending[h] = memObject{t, append([]byte(nil), data...)}
	return h, nil
}

func (b *memBatch) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

func (b *memBatch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.mu.Lock()
	defer b.store.mu.Unlock()
	for h, o := range b.pending {
		b.store.objects[h] = o
	}
	b.pending = nil
	return nil
}

func (b *memBatch) Abort() {
	b.mu.Lock()
	b.pending = nil
	b.mu.Unlock()
}

// ReadRef implements Store.
func (m *MemStore) ReadRef(name string) (Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.refs[name]
	if !ok {
		return ZeroHash, fmt.Errorf("%s: %w", name, ErrRefNotFound)
	}
	return h, nil
}

// UpdateRef implements Store.
func (m *MemStore) UpdateRef(name string, newID, oldID Hash) error {
	if err := CheckRefName(name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur := m.refs[name]; cur != oldID {
		return fmt.Errorf("%s: %w", name, ErrRefConflict)
	}
	m.refs[name] = newID
	return nil
}

// DeleteRef implements Store.
func (m *MemStore) DeleteRef(name string, oldID Hash) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.refs[name]
	if !ok {
		return fmt.Errorf("%s: %w", name, ErrRefNotFound)
	}
	if cur != oldID {
		return fmt.Errorf("%s: %w", name, ErrRefConflict)
	}
	delete(m.refs, name)
	return nil
}

// ListRefs implements Store.
func (m *MemStore) ListRefs(prefix string) ([]Ref, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Ref
	for n, h := range m.refs {
		if strings.HasPrefix(n, prefix) {
			out = append(out, Ref{n, h})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
