package vcs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// packIndex reads a pack's .idx straight from its bytes: a fanout lookup
// and a binary search over the sorted names give an object's offset.
// Decoding a whole index into memory (as go-git does) costs far more than
// the few lookups a checkpoint makes.
type packIndex struct {
	pack    string // the .pack file beside the index
	data    []byte
	fanout  [256]uint32
	n       int
	names   int // offset of the first name
	stride  int // bytes from one name to the next
	offsets int // v2: offset of the 32-bit offset table; v1: unused
	large   int // v2: offset of the 64-bit offset table
	version int
	// freshened is set once the pack's mtime was brought to now
	// (hasFreshened), as git's packed_git.freshened.
	freshened atomic.Bool
}

// freshen sets the pack's mtime to now, once: it reports whether the pack
// is fresh, false when its time cannot be set.
func (idx *packIndex) freshen(now time.Time) bool {
	if idx.freshened.Load() {
		return true
	}
	if os.Chtimes(idx.pack, now, now) != nil {
		return false
	}
	idx.freshened.Store(true)
	return true
}

var idxMagic = []byte{0xff, 't', 'O', 'c'}

func readPackIndex(path string) (*packIndex, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	corrupt := fmt.Errorf("%s: corrupt pack index", path)
	p := &packIndex{pack: strings.TrimSuffix(path, ".idx") + ".pack", data: data}
	fanoutAt := 0
	switch {
	case len(data) >= 8 && bytes.Equal(data[:4], idxMagic):
		if v := binary.BigEndian.Uint32(data[4:8]); v != 2 {
			return nil, fmt.Errorf("%s: pack index version %d is not supported", path, v)
		}
		fanoutAt, p.names, p.stride, p.version = 8, 8+256*4, 20, 2
	default: // version 1: fanout, then (offset, name) pairs
		fanoutAt, p.names, p.stride, p.version = 0, 256*4+4, 24, 1
	}
	if len(data) < fanoutAt+256*4 {
		return nil, corrupt
	}
	prev := uint32(0)
	for i := range p.fanout {
		v := binary.BigEndian.Uint32(data[fanoutAt+4*i:])
		if v < prev {
			return nil, corrupt
		}
		p.fanout[i], prev = v, v
	}
	p.n = int(p.fanout[255])
	end := p.names + p.n*p.stride
	if p.version == 1 {
		end -= 4
	} else {
		p.offsets = end + 4*p.n // past the CRC table
		p.large = p.offsets + 4*p.n
		end = p.large
	}
	if p.n < 0 || end > len(data) || end < 0 {
		return nil, corrupt
	}
	return p, nil
}

// packChecksum is the pack's own SHA-1 as the index records it: the first
// of the two hashes that end a version-2 index (version 1 has the same
// trailer).
func (p *packIndex) packChecksum() []byte {
	if len(p.data) < 40 {
		return nil
	}
	return p.data[len(p.data)-40 : len(p.data)-20]
}

// verifyPack checks the pack beside the index as git does before it uses
// one (packfile.c, open_packed_git_1): a version 2 or 3 pack header, the
// object count the index has, and a trailing SHA-1 equal to the one the
// index records. A truncated or replaced pack fails: its objects must be
// taken as absent, never read half.
func (p *packIndex) verifyPack() error {
	f, err := os.Open(p.pack)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var head [12]byte
	if fi.Size() < int64(len(head))+20 {
		return fmt.Errorf("%s: %d bytes: too short for a pack", p.pack, fi.Size())
	}
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return err
	}
	if string(head[:4]) != "PACK" {
		return fmt.Errorf("%s: not a pack (no PACK signature)", p.pack)
	}
	if v := binary.BigEndian.Uint32(head[4:8]); v != 2 && v != 3 {
		return fmt.Errorf("%s: pack version %d is not supported", p.pack, v)
	}
	if n := binary.BigEndian.Uint32(head[8:12]); int(n) != p.n {
		return fmt.Errorf("%s: holds %d objects, its index %d", p.pack, n, p.n)
	}
	var trailer [20]byte
	if _, err := f.ReadAt(trailer[:], fi.Size()-20); err != nil {
		return err
	}
	if !bytes.Equal(trailer[:], p.packChecksum()) {
		return fmt.Errorf("%s: trailer does not match its index (truncated or replaced)", p.pack)
	}
	return nil
}

// find returns the position of h in the index.
func (p *packIndex) find(h Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(p.fanout[h[0]-1])
	}
	hi := int(p.fanout[h[0]])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		at := p.names + mid*p.stride
		c := bytes.Compare(p.data[at:at+20], h[:])
		switch {
		case c == 0:
			return mid, true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

func (p *packIndex) contains(h Hash) bool {
	_, ok := p.find(h)
	return ok
}

// offset is the byte offset in the pack of the object at position i.
func (p *packIndex) offset(i int) (int64, error) {
	if p.version == 1 {
		return int64(binary.BigEndian.Uint32(p.data[p.names+i*p.stride-4:])), nil
	}
	o := binary.BigEndian.Uint32(p.data[p.offsets+4*i:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	at := p.large + 8*int(o&0x7fffffff)
	if at+8 > len(p.data) {
		return 0, errors.New("corrupt pack index: large offset out of range")
	}
	return int64(binary.BigEndian.Uint64(p.data[at:])), nil
}

// Pack entry types beyond the object types: a delta against an earlier
// entry of the same pack (by offset) or against an object by id.
const (
	ofsDelta = 6
	refDelta = 7
)

// maxDeltaChain bounds a delta chain (git's own default depth is 50).
const maxDeltaChain = 10000

// read returns the object at position i of the pack, resolving deltas:
// offset deltas within the pack, ref deltas through base (any object the
// store holds).
func (p *packIndex) read(i int, base func(Hash) (ObjectType, []byte, error)) (ObjectType, []byte, error) {
	off, err := p.offset(i)
	if err != nil {
		return 0, nil, err
	}
	f, err := os.Open(p.pack)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	// Walk the chain down to a whole object, then apply the deltas from
	// the base outward.
	var deltas [][]byte
	for depth := 0; ; depth++ {
		if depth > maxDeltaChain {
			return 0, nil, fmt.Errorf("%s: delta chain longer than %d", p.pack, maxDeltaChain)
		}
		e, err := readEntry(f, p.pack, off)
		if err != nil {
			return 0, nil, err
		}
		switch e.typ {
		case CommitObject, TreeObject, BlobObject, TagObject:
			data := e.data
			for j := len(deltas) - 1; j >= 0; j-- {
				if data, err = applyDelta(data, deltas[j]); err != nil {
					return 0, nil, fmt.Errorf("%s: at offset %d: %w", p.pack, off, err)
				}
			}
			return e.typ, data, nil
		case ofsDelta:
			deltas = append(deltas, e.data)
			off = e.base
		case refDelta:
			deltas = append(deltas, e.data)
			t, data, err := base(e.baseID)
			if err != nil {
				return 0, nil, fmt.Errorf("%s: delta base %s: %w", p.pack, e.baseID.Short(), err)
			}
			for j := len(deltas) - 1; j >= 0; j-- {
				if data, err = applyDelta(data, deltas[j]); err != nil {
					return 0, nil, fmt.Errorf("%s: %w", p.pack, err)
				}
			}
			return t, data, nil
		default:
			return 0, nil, fmt.Errorf("%s: object of type %d at offset %d", p.pack, e.typ, off)
		}
	}
}

// packEntryData is one decoded pack entry: a whole object, or a delta and
// where its base is.
type packEntryData struct {
	typ    ObjectType
	data   []byte
	base   int64 // ofsDelta: the base's offset
	baseID Hash  // refDelta: the base's id
}

func readEntry(f *os.File, pack string, off int64) (*packEntryData, error) {
	var hdr [32]byte
	n, err := f.ReadAt(hdr[:], off)
	if n == 0 {
		return nil, fmt.Errorf("%s: reading object header at %d: %v", pack, off, err)
	}
	corrupt := fmt.Errorf("%s: corrupt object header at %d", pack, off)
	e := &packEntryData{typ: ObjectType(hdr[0] >> 4 & 7)}
	size := uint64(hdr[0] & 0x0f)
	shift, k := 4, 1
	for c := hdr[0]; c&0x80 != 0; k++ {
		if k >= n || shift > 56 {
			return nil, corrupt
		}
		c = hdr[k]
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	switch e.typ {
	case ofsDelta:
		if k >= n {
			return nil, corrupt
		}
		c := hdr[k]
		k++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if k >= n || rel > 1<<55 {
				return nil, corrupt
			}
			c = hdr[k]
			k++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return nil, corrupt
		}
		e.base = off - rel
	case refDelta:
		if k+20 > n {
			return nil, corrupt
		}
		copy(e.baseID[:], hdr[k:k+20])
		k += 20
	}
	if size > 1<<34 {
		return nil, corrupt
	}
	zr, err := inflater(io.NewSectionReader(f, off+int64(k), 1<<62))
	if err != nil {
		return nil, fmt.Errorf("%s: %w at offset %d", pack, errCorruptLoose, off)
	}
	defer releaseInflater(zr)
	e.data = make([]byte, size)
	if _, err := io.ReadFull(zr, e.data); err != nil {
		return nil, fmt.Errorf("%s: object at offset %d: %v", pack, off, err)
	}
	return e, nil
}

// applyDelta rebuilds an object from its base and a git delta: the base
// and result sizes, then copy (from the base) and insert instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("corrupt delta")
	r := &byteReader{b: delta, s: string(delta)}
	if uint64(len(base)) != r.uvarint() {
		return nil, bad
	}
	size := r.uvarint()
	if r.err != nil || size > 1<<34 {
		return nil, bad
	}
	// The claimed size is checked as the output grows, not trusted for
	// an allocation: a few bytes of delta could claim 16 GiB.
	out := make([]byte, 0, min(size, uint64(len(base)+len(delta))))
	d := r.b
	for len(d) > 0 {
		op := d[0]
		d = d[1:]
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for bit := range 7 {
				if op&(1<<bit) == 0 {
					continue
				}
				if len(d) == 0 {
					return nil, bad
				}
				if bit < 4 {
					off |= uint64(d[0]) << (8 * bit)
				} else {
					n |= uint64(d[0]) << (8 * (bit - 4))
				}
				d = d[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > size {
				return nil, bad
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(d) || uint64(len(out))+uint64(op) > size {
				return nil, bad
			}
			out = append(out, d[:op]...)
			d = d[op:]
		default:
			return nil, bad
		}
	}
	if uint64(len(out)) != size {
		return nil, bad
	}
	return out, nil
}

// errCorruptLoose marks an object that does not decode.
var errCorruptLoose = errors.New("corrupt object")
