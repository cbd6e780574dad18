package vcs

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
)

// StorePack adds a packfile read from r (as a remote sends it) to the
// repository, the way `git index-pack` does: the bytes go to a temp file
// as they arrive, the trailing SHA-1 is checked, every object is hashed
// (deltas resolved), and the pack and its .idx are moved into place, the
// .idx last, so readers never see half a pack. It returns the number of
// objects. A pack whose delta bases are not all inside it (a thin pack) is
// refused: ctxgit never asks for one.
func (g *GitStore) StorePack(r io.Reader) (int, error) {
	dir := filepath.Join(g.objDir, "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return 0, err
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	size, err := io.Copy(f, r)
	if err != nil {
		return 0, fmt.Errorf("receiving the pack: %w", err)
	}
	if size == 0 {
		return 0, nil // nothing was sent: nothing was needed
	}
	idx, sum, n, err := indexPack(f, size)
	if err != nil {
		return 0, fmt.Errorf("received pack: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	if err := f.Chmod(0o444); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	keep = true
	base := filepath.Join(dir, "pack-"+sum.String())
	if err := os.Rename(f.Name(), base+".pack"); err != nil {
		os.Remove(f.Name())
		return 0, err
	}
	if err := atomicfile.Write(base+".idx", idx, 0o444); err != nil {
		os.Remove(base + ".pack")
		return 0, err
	}
	g.invalidatePacks()
	return n, nil
}

// indexedEntry is what the first pass learns about one pack entry.
type indexedEntry struct {
	off    int64
	crc    uint32
	typ    ObjectType // whole objects; 0 until a delta is resolved
	id     Hash       // whole objects, and deltas once resolved
	delta  byte       // ofsDelta or refDelta, 0 for a whole object
	base   int64      // ofsDelta: the base's offset
	baseID Hash       // refDelta: the base's id
}

// indexPack checks a pack file of size bytes and returns its encoded
// version-2 index, its checksum and its object count.
func indexPack(f *os.File, size int64) ([]byte, Hash, int, error) {
	var sum Hash
	if size < 32 {
		return nil, sum, 0, errors.New("truncated (shorter than a pack header and trailer)")
	}
	var hdr [12]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return nil, sum, 0, err
	}
	if !bytes.Equal(hdr[:4], []byte("PACK")) {
		return nil, sum, 0, errors.New("not a packfile (no PACK signature)")
	}
	if v := binary.BigEndian.Uint32(hdr[4:8]); v != 2 && v != 3 {
		return nil, sum, 0, fmt.Errorf("pack version %d is not supported", v)
	}
	count := binary.BigEndian.Uint32(hdr[8:12])

	// The trailer is the SHA-1 of everything before it.
	d := sha1.New()
	if _, err := io.Copy(d, io.NewSectionReader(f, 0, size-20)); err != nil {
		return nil, sum, 0, err
	}
	if _, err := f.ReadAt(sum[:], size-20); err != nil {
		return nil, sum, 0, err
	}
	if !bytes.Equal(d.Sum(nil), sum[:]) {
		return nil, sum, 0, errors.New("checksum mismatch (corrupted in transit)")
	}

	entries, err := scanPack(f, size-20, count)
	if err != nil {
		return nil, sum, 0, err
	}
	if err := resolveDeltas(f, entries); err != nil {
		return nil, sum, 0, err
	}

	var w idxfile.Writer
	for _, e := range entries {
		w.Add(plumbing.Hash(e.id), uint64(e.off), e.crc)
	}
	if err := w.OnFooter(plumbing.Hash(sum)); err != nil {
		return nil, sum, 0, err
	}
	idx, err := w.Index()
	if err != nil {
		return nil, sum, 0, err
	}
	var ib bytes.Buffer
	if _, err := idxfile.NewEncoder(&ib).Encode(idx); err != nil {
		return nil, sum, 0, err
	}
	return ib.Bytes(), sum, len(entries), nil
}

// countingReader counts and checksums the bytes read through it. It is a
// ByteReader, so zlib and flate read exactly an entry's bytes and not past
// them, which is how the end of each compressed entry is found.
type countingReader struct {
	r   *bufio.Reader
	n   int64
	crc hash.Hash32
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	c.crc.Write(b[:n])
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
		c.crc.Write([]byte{b})
	}
	return b, err
}

// scanPack walks the entries in order: offsets, CRCs, and the ids of whole
// objects, hashed as they inflate.
func scanPack(f *os.File, end int64, count uint32) ([]*indexedEntry, error) {
	if uint64(count) > uint64(end) {
		return nil, fmt.Errorf("claims %d objects in %d bytes", count, end)
	}
	cr := &countingReader{r: bufio.NewReaderSize(io.NewSectionReader(f, 12, end-12), 1<<16), n: 12}
	entries := make([]*indexedEntry, 0, count)
	for i := uint32(0); i < count; i++ {
		off := cr.n
		cr.crc = crc32.NewIEEE()
		corrupt := fmt.Errorf("corrupt object header at offset %d", off)
		c, err := cr.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("truncated: %d of %d objects", i, count)
		}
		e := &indexedEntry{off: off}
		typ := c >> 4 & 7
		size := uint64(c & 0x0f)
		for shift := 4; c&0x80 != 0; shift += 7 {
			if shift > 56 {
				return nil, corrupt
			}
			if c, err = cr.ReadByte(); err != nil {
				return nil, corrupt
			}
			size |= uint64(c&0x7f) << shift
		}
		if size > 1<<34 {
			return nil, corrupt
		}
		switch typ {
		case byte(CommitObject), byte(TreeObject), byte(BlobObject):
			e.typ = ObjectType(typ)
		case ofsDelta:
			e.delta = ofsDelta
			if c, err = cr.ReadByte(); err != nil {
				return nil, corrupt
			}
			rel := int64(c & 0x7f)
			for c&0x80 != 0 {
				if rel > 1<<55 {
					return nil, corrupt
				}
				if c, err = cr.ReadByte(); err != nil {
					return nil, corrupt
				}
				rel = (rel+1)<<7 | int64(c&0x7f)
			}
			if rel <= 0 || rel > off {
				return nil, corrupt
			}
			e.base = off - rel
		case refDelta:
			e.delta = refDelta
			if _, err := io.ReadFull(cr, e.baseID[:]); err != nil {
				return nil, corrupt
			}
		default:
			// Tags (4) never reach refs/ctxgit/; 5 is reserved.
			return nil, fmt.Errorf("object of type %d at offset %d is not supported", typ, off)
		}
		zr, err := inflater(cr)
		if err != nil {
			return nil, fmt.Errorf("object at offset %d: %w", off, errCorruptLoose)
		}
		var sink io.Writer = io.Discard
		var d hash.Hash
		if e.delta == 0 {
			d = sha1.New()
			writeHeader(d, e.typ, int64(size))
			sink = d
		}
		n, err := io.Copy(sink, zr)
		releaseInflater(zr)
		if err == nil && uint64(n) != size {
			err = fmt.Errorf("inflates to %d bytes, header says %d", n, size)
		}
		if err != nil {
			return nil, fmt.Errorf("object at offset %d: %v", off, err)
		}
		if d != nil {
			d.Sum(e.id[:0])
		}
		e.crc = cr.crc.Sum32()
		entries = append(entries, e)
	}
	if cr.n != end {
		return nil, fmt.Errorf("%d stray bytes after the last object", end-cr.n)
	}
	return entries, nil
}

// deltaCacheBytes bounds the resolved objects kept while resolving deltas:
// a base shared by many deltas is inflated once.
const deltaCacheBytes = 64 << 20

// errBaseNotYet: a reference delta's base is not known (yet).
var errBaseNotYet = errors.New("delta base not resolved yet")

// resolveDeltas computes the id of every delta entry. Offset deltas name
// their base by position; reference deltas by id, which may itself be a
// delta resolved earlier, so those are resolved in rounds.
func resolveDeltas(f *os.File, entries []*indexedEntry) error {
	byOff := make(map[int64]*indexedEntry, len(entries))
	byID := map[Hash]*indexedEntry{}
	for _, e := range entries {
		byOff[e.off] = e
		if e.delta == 0 {
			byID[e.id] = e
		}
	}
	type object struct {
		t    ObjectType
		data []byte
	}
	cache := map[int64]object{}
	cached := 0
	var load func(e *indexedEntry, depth int) (ObjectType, []byte, error)
	load = func(e *indexedEntry, depth int) (ObjectType, []byte, error) {
		if o, ok := cache[e.off]; ok {
			return o.t, o.data, nil
		}
		if depth > maxDeltaChain {
			return 0, nil, fmt.Errorf("delta chain longer than %d", maxDeltaChain)
		}
		if e.delta == refDelta && byID[e.baseID] == nil {
			// Before inflating it: each round must not read again every
			// delta still waiting (quadratic in a reversed chain).
			return 0, nil, errBaseNotYet
		}
		raw, err := readEntry(f, "pack", e.off)
		if err != nil {
			return 0, nil, err
		}
		t, data := raw.typ, raw.data
		if e.delta != 0 {
			var base *indexedEntry
			if e.delta == ofsDelta {
				base = byOff[e.base]
			} else {
				base = byID[e.baseID]
			}
			if base == nil && e.delta == refDelta {
				return 0, nil, errBaseNotYet
			}
			if base == nil {
				return 0, nil, fmt.Errorf("delta at offset %d: no object at its base offset %d", e.off, e.base)
			}
			bt, bdata, err := load(base, depth+1)
			if err != nil {
				return 0, nil, err
			}
			if data, err = applyDelta(bdata, raw.data); err != nil {
				return 0, nil, fmt.Errorf("delta at offset %d: %w", e.off, err)
			}
			t = bt
		}
		if cached+len(data) > deltaCacheBytes {
			clear(cache)
			cached = 0
		}
		cache[e.off] = object{t, data}
		cached += len(data)
		return t, data, nil
	}
	pending := 0
	for _, e := range entries {
		if e.delta != 0 {
			pending++
		}
	}
	for pending > 0 {
		progress := false
		for _, e := range entries {
			if e.delta == 0 || e.typ != 0 {
				continue
			}
			t, data, err := load(e, 0)
			if errors.Is(err, errBaseNotYet) {
				continue // a reference delta whose base is a delta not resolved yet
			}
			if err != nil {
				return err
			}
			e.typ, e.id = t, HashObject(t, data)
			byID[e.id] = e
			pending--
			progress = true
		}
		if !progress {
			return fmt.Errorf("%d deltas have bases that are not in the pack (a thin pack)", pending)
		}
	}
	return nil
}
