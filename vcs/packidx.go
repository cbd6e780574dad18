package vcs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// packIndex answers "is this object in the pack?" straight from the .idx
// file's bytes: a fanout lookup and a binary search over the sorted names.
// Decoding a whole index into memory (as go-git does) costs far more than
// the few lookups a checkpoint makes.
type packIndex struct {
	names  []byte // sorted 20-byte names
	fanout [256]uint32
	stride int // bytes from one name to the next
}

var idxMagic = []byte{0xff, 't', 'O', 'c'}

func readPackIndex(path string) (*packIndex, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	corrupt := fmt.Errorf("%s: corrupt pack index", path)
	p := &packIndex{}
	fanoutAt, namesAt := 0, 0
	switch {
	case len(data) >= 8 && bytes.Equal(data[:4], idxMagic):
		if binary.BigEndian.Uint32(data[4:8]) != 2 {
			return nil, fmt.Errorf("%s: pack index version %d is not supported", path, binary.BigEndian.Uint32(data[4:8]))
		}
		fanoutAt, namesAt, p.stride = 8, 8+256*4, 20
	default: // version 1: fanout, then (offset, name) pairs
		fanoutAt, namesAt, p.stride = 0, 256*4+4, 24
	}
	if len(data) < fanoutAt+256*4 {
		return nil, corrupt
	}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(data[fanoutAt+4*i:])
	}
	n := int(p.fanout[255])
	end := namesAt + n*p.stride
	if p.stride == 24 {
		end -= 4
	}
	if n < 0 || end > len(data) {
		return nil, corrupt
	}
	p.names = data[namesAt:end]
	return p, nil
}

func (p *packIndex) contains(h Hash) bool {
	lo := 0
	if h[0] > 0 {
		lo = int(p.fanout[h[0]-1])
	}
	hi := int(p.fanout[h[0]])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c := bytes.Compare(p.names[mid*p.stride:mid*p.stride+20], h[:])
		switch {
		case c == 0:
			return true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
}

// errCorruptLoose marks a loose object that does not decode.
var errCorruptLoose = errors.New("corrupt loose object")
