package vcs

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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
}

var idxMagic = []byte{0xff, 't', 'O', 'c'}

func readPackIndex(path string) (*packIndex, error) {
	data, err := os.ReadFile(path)
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

// errDelta means the object is stored as a delta: go-git reads those.
var errDelta = errors.New("deltified object")

// read returns a whole (non-delta) object from the pack.
func (p *packIndex) read(i int) (ObjectType, []byte, error) {
	off, err := p.offset(i)
	if err != nil {
		return 0, nil, err
	}
	f, err := os.Open(p.pack)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	var hdr [16]byte
	n, err := f.ReadAt(hdr[:], off)
	if n == 0 {
		return 0, nil, fmt.Errorf("%s: reading object header: %v", p.pack, err)
	}
	t := ObjectType(hdr[0] >> 4 & 7)
	size := uint64(hdr[0] & 0x0f)
	shift, k := 4, 1
	for c := hdr[0]; c&0x80 != 0; k++ {
		if k >= n || shift > 56 {
			return 0, nil, fmt.Errorf("%s: corrupt object header", p.pack)
		}
		c = hdr[k]
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	switch t {
	case CommitObject, TreeObject, BlobObject:
	case 6, 7:
		return 0, nil, errDelta
	default:
		return 0, nil, fmt.Errorf("%s: object of type %d at offset %d", p.pack, t, off)
	}
	zr, err := zlib.NewReader(io.NewSectionReader(f, off+int64(k), 1<<62))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", p.pack, errCorruptLoose)
	}
	defer zr.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return 0, nil, fmt.Errorf("%s: object at offset %d: %v", p.pack, off, err)
	}
	return t, data, nil
}

// errCorruptLoose marks an object that does not decode.
var errCorruptLoose = errors.New("corrupt object")
