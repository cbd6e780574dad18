package vcs

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
)

// BlobStreamer is a store that can read a blob as a stream, so a file of
// any size is restored in bounded memory (issue 13 item 15).
type BlobStreamer interface {
	// OpenBlob returns blob h's content as a stream and its size. The
	// stream fails at its end when the object's checksum does not match.
	OpenBlob(h Hash) (io.ReadCloser, int64, error)
}

// OpenBlob implements BlobStreamer. A loose object, or a whole object in
// a pack, is inflated as it is read; a delta in a pack (git deltifies
// small files, not large ones: core.bigFileThreshold) is rebuilt in
// memory, as ReadObject does.
func (g *GitStore) OpenBlob(h Hash) (io.ReadCloser, int64, error) {
	for _, dir := range append([]string{g.objDir}, g.altDirs...) {
		rc, size, err := openLooseBlob(loosePath(dir, h))
		if err == nil {
			return rc, size, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, 0, fmt.Errorf("object %s: %w", h, err)
		}
	}
	if idxs, err := g.packIndexes(); err == nil {
		for _, idx := range idxs {
			if i, ok := idx.find(h); ok {
				if rc, size, ok := openPackedBlob(idx, i); ok {
					return rc, size, nil
				}
				break
			}
		}
	}
	// A delta, a pack that appeared since the index was read, or an error
	// ReadObject words better.
	data, err := ReadBlob(g, h)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
}

// blobStream reads size bytes of an inflated object, then checks that the
// zlib stream ends there (its checksum is verified at its end).
type blobStream struct {
	r      io.Reader // the inflated content after the header
	zr     io.ReadCloser
	f      *os.File
	left   int64
	source string
}

func (b *blobStream) Read(p []byte) (int, error) {
	if b.left == 0 {
		var extra [1]byte
		if n, err := io.ReadFull(b.r, extra[:]); n != 0 || err != io.EOF {
			return 0, fmt.Errorf("%s: %w", b.source, errCorruptLoose)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err == io.EOF {
		if b.left > 0 {
			return n, fmt.Errorf("%s: %w (ends early)", b.source, errCorruptLoose)
		}
		err = nil
	}
	return n, err
}

func (b *blobStream) Close() error {
	b.zr.Close()
	return b.f.Close()
}

// openLooseBlob opens a loose object file as a blob stream.
func openLooseBlob(path string) (io.ReadCloser, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	zr, err := inflater(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, 0, errCorruptLoose
	}
	br := bufio.NewReader(zr)
	hdr, err := br.ReadSlice(0)
	if err != nil || len(hdr) > 32 {
		zr.Close()
		f.Close()
		return nil, 0, errCorruptLoose
	}
	typ, sizeText, ok := bytes.Cut(hdr[:len(hdr)-1], []byte(" "))
	size, err := strconv.ParseInt(string(sizeText), 10, 64)
	if !ok || err != nil || size < 0 || strconv.FormatInt(size, 10) != string(sizeText) || size > maxInflateRatio*fi.Size() {
		zr.Close()
		f.Close()
		return nil, 0, errCorruptLoose
	}
	if string(typ) != "blob" {
		zr.Close()
		f.Close()
		return nil, 0, fmt.Errorf("a %s, not a blob", typ)
	}
	return &blobStream{r: br, zr: zr, f: f, left: size, source: path}, size, nil
}

// openPackedBlob opens entry i of a pack as a blob stream when it is a
// whole blob (not a delta); ok is false otherwise.
func openPackedBlob(idx *packIndex, i int) (io.ReadCloser, int64, bool) {
	off, err := idx.offset(i)
	if err != nil {
		return nil, 0, false
	}
	f, err := os.Open(idx.pack)
	if err != nil {
		return nil, 0, false
	}
	var hdr [16]byte
	n, _ := f.ReadAt(hdr[:], off)
	if n == 0 || ObjectType(hdr[0]>>4&7) != BlobObject {
		f.Close()
		return nil, 0, false
	}
	size := int64(hdr[0] & 0x0f)
	shift, k := 4, 1
	for c := hdr[0]; c&0x80 != 0; k++ {
		if k >= n || shift > 56 {
			f.Close()
			return nil, 0, false
		}
		c = hdr[k]
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	zr, err := inflater(bufio.NewReader(io.NewSectionReader(f, off+int64(k), 1<<62)))
	if err != nil {
		f.Close()
		return nil, 0, false
	}
	return &blobStream{r: zr, zr: zr, f: f, left: size, source: fmt.Sprintf("%s at offset %d", idx.pack, off)}, size, true
}

// BlobHasher computes a blob's id from its content written in pieces, in
// bounded memory: HashObject(BlobObject, content) without the content.
type BlobHasher struct {
	d    hash.Hash
	size int64
	n    int64
}

// NewBlobHasher starts the id of a blob of size bytes.
func NewBlobHasher(size int64) *BlobHasher {
	d := sha1.New()
	writeHeader(d, BlobObject, size)
	return &BlobHasher{d: d, size: size}
}

func (b *BlobHasher) Write(p []byte) (int, error) {
	b.n += int64(len(p))
	return b.d.Write(p)
}

// Sum is the blob's id, or the zero hash when what was written is not
// the size announced.
func (b *BlobHasher) Sum() Hash {
	var h Hash
	if b.n != b.size {
		return h
	}
	b.d.Sum(h[:0])
	return h
}
