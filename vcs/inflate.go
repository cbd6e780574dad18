package vcs

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// inflaters pools zlib readers. A new one allocates about 40 KB (its
// window and Huffman tables); made per object, reading the 1,000 commits
// of a long log spent most of its time allocating and faulting in fresh
// pages for them.
var inflaters sync.Pool

// inflater returns a zlib reader over r, from the pool when it can.
// Give it back with releaseInflater.
func inflater(r io.Reader) (io.ReadCloser, error) {
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(r, nil); err != nil {
			inflaters.Put(z)
			return nil, err
		}
		return z, nil
	}
	return zlib.NewReader(r)
}

func releaseInflater(z io.ReadCloser) { inflaters.Put(z) }

// maxInflateRatio bounds what a zlib stream can expand to (deflate's
// limit is 1032:1), so a loose object's header cannot make us allocate
// more than its file could hold.
const maxInflateRatio = 1032

// readLoose reads and inflates one loose object file, checking its header
// and its zlib checksum.
func readLoose(path string) (ObjectType, []byte, error) {
	comp, err := readWhole(path)
	if err != nil {
		return 0, nil, err
	}
	// A bytes.Reader is an io.ByteReader, so flate reads it directly
	// instead of through a bufio.Reader of its own.
	zr, err := inflater(bytes.NewReader(comp))
	if err != nil {
		return 0, nil, errCorruptLoose
	}
	defer releaseInflater(zr)
	var hdr [32]byte // "commit 18446744073709551615\x00" fits
	n, err := io.ReadFull(zr, hdr[:])
	if err != nil && err != io.ErrUnexpectedEOF {
		return 0, nil, errCorruptLoose
	}
	nul := bytes.IndexByte(hdr[:n], 0)
	if nul < 0 {
		return 0, nil, errCorruptLoose
	}
	typ, sizeText, ok := strings.Cut(string(hdr[:nul]), " ")
	size, err := strconv.Atoi(sizeText)
	// The size must be written as git writes it (no sign, no leading
	// zeros) and be no more than the file can inflate to.
	if !ok || err != nil || size < 0 || strconv.Itoa(size) != sizeText || size > maxInflateRatio*len(comp) {
		return 0, nil, errCorruptLoose
	}
	data := make([]byte, size)
	got := copy(data, hdr[nul+1:n])
	if got < n-nul-1 {
		return 0, nil, errCorruptLoose // more data than the header says
	}
	if _, err := io.ReadFull(zr, data[got:]); err != nil {
		return 0, nil, errCorruptLoose
	}
	// Read to the end: zlib checks its checksum there, and anything past
	// the claimed size is corruption too.
	var extra [1]byte
	if m, err := io.ReadFull(zr, extra[:]); m != 0 || err != io.EOF {
		return 0, nil, errCorruptLoose
	}
	switch typ {
	case "blob":
		return BlobObject, data, nil
	case "tree":
		return TreeObject, data, nil
	case "commit":
		return CommitObject, data, nil
	case "tag":
		return TagObject, data, nil
	}
	return 0, nil, fmt.Errorf("%w: type %q", errCorruptLoose, typ)
}
