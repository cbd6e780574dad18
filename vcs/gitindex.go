package vcs

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// readGitIndex reads what the snapshot needs of git's index file (git's
// Documentation/gitformat-index.txt): each entry's path and mode, in the
// file's order. Decoding it whole with go-git cost a first snapshot of
// 100,000 files 32 MB of garbage (an Entry, its times and a name string
// per file); this keeps nothing but what visit copies. The file is read as
// a stream through a small buffer, and its trailing SHA-1 is checked.
//
// Versions 2, 3 and 4 (path prefix compression) are read. Extensions are
// skipped: an optional one (its signature starts with 'A'..'Z') by its
// length, a required one (split index "link", sparse "sdir") is an error,
// as for git versions that do not know it. A checksum of all zeros is
// accepted, as git accepts it (index.skipHash).
//
// r yields the file's size bytes. begin, when not nil, is told the number
// of entries and a size for their paths in all (exact at most by the
// extensions and padding in versions 2 and 3; in version 4, with its
// prefixes compressed, a lower bound) before the first visit, so the
// caller can size what it keeps. name is valid only during the call to
// visit.
func readGitIndex(r io.Reader, size int64, begin func(entries, pathBytes int), visit func(name []byte, mode uint32)) error {
	const hashLen = sha1.Size
	if size < 12+hashLen {
		return errors.New("index: too short for its header")
	}
	sum := sha1.New()
	body := &io.LimitedReader{R: r, N: size - hashLen}
	br := bufio.NewReaderSize(io.TeeReader(body, sum), 32<<10)
	x := indexReader{r: br, left: size - hashLen}

	var head [12]byte
	x.full(head[:])
	if x.err != nil {
		return x.err
	}
	if string(head[:4]) != "DIRC" {
		return errors.New("index: no DIRC signature")
	}
	version := binary.BigEndian.Uint32(head[4:8])
	if version < 2 || version > 4 {
		return fmt.Errorf("index: version %d, not 2, 3 or 4", version)
	}
	count := binary.BigEndian.Uint32(head[8:12])
	if begin != nil {
		// Each entry takes 62 bytes besides its path; more entries than
		// that allows make the file truncated, found below.
		entries := min(int64(count), x.left/62)
		begin(int(entries), int(max(x.left-62*entries, 0)))
	}
	var (
		name  []byte // the current entry's path; in version 4 the next one's prefix
		entry [62]byte
	)
	for i := uint32(0); i < count; i++ {
		// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each),
		// the object id (20), flags (2).
		x.full(entry[:])
		if x.err != nil {
			return fmt.Errorf("index: entry %d of %d: %w", i+1, count, x.err)
		}
		mode := binary.BigEndian.Uint32(entry[24:28])
		flags := binary.BigEndian.Uint16(entry[60:62])
		headLen := 62
		if flags&0x4000 != 0 { // extended flags follow (version 3 and up)
			var ext [2]byte
			x.full(ext[:])
			headLen += 2
		}
		nameLen := int(flags & 0xfff)
		if version == 4 {
			strip := x.varint()
			if x.err == nil && strip > uint64(len(name)) {
				return fmt.Errorf("index: entry %d strips %d bytes of a %d-byte path", i+1, strip, len(name))
			}
			name = x.until(name[:len(name)-int(strip)], 0)
			if x.err == nil && nameLen != 0xfff && nameLen != len(name) {
				return fmt.Errorf("index: entry %d: path of %d bytes, its flags say %d", i+1, len(name), nameLen)
			}
		} else {
			if nameLen == 0xfff { // 4095 bytes or more: up to its NUL
				name = x.until(name[:0], 0)
			} else {
				name = x.read(name[:0], nameLen)
			}
			// Entries are padded with 1 to 8 NULs to a multiple of 8
			// bytes; a name read to its NUL has used one of them.
			pad := (headLen+len(name)+8)&^7 - headLen - len(name)
			if nameLen == 0xfff {
				pad--
			}
			var zeros [8]byte
			x.full(zeros[:pad])
			if x.err == nil && zeros != [8]byte{} {
				return fmt.Errorf("index: entry %d: padding is not NUL", i+1)
			}
		}
		if x.err != nil {
			return fmt.Errorf("index: entry %d of %d: %w", i+1, count, x.err)
		}
		if len(name) == 0 || bytes.IndexByte(name, 0) >= 0 {
			return fmt.Errorf("index: entry %d: an empty path or one holding NUL", i+1)
		}
		visit(name, mode)
	}
	// Extensions, each a signature and a length, until the checksum; git
	// stops looking for one when fewer than 8 bytes are left.
	for x.left >= 8 {
		var ext [8]byte
		x.full(ext[:])
		n := int64(binary.BigEndian.Uint32(ext[4:8]))
		if x.err != nil {
			return fmt.Errorf("index: extension: %w", x.err)
		}
		if ext[0] < 'A' || ext[0] > 'Z' {
			return fmt.Errorf("index: required extension %q, which ctxgit does not read", ext[:4])
		}
		if n > x.left {
			return fmt.Errorf("index: extension %q of %d bytes runs past the file", ext[:4], n)
		}
		x.skip(n)
	}
	x.skip(x.left)
	if x.err != nil {
		return fmt.Errorf("index: %w", x.err)
	}
	var want, got [hashLen]byte
	if _, err := io.ReadFull(r, want[:]); err != nil {
		return errors.New("index: truncated before its checksum")
	}
	if want != [hashLen]byte{} && !bytes.Equal(sum.Sum(got[:0]), want[:]) {
		return errors.New("index: checksum mismatch")
	}
	return nil
}

// indexReader reads the index body, counting what is left of it; the
// first error sticks and makes every later read a no-op.
type indexReader struct {
	r    *bufio.Reader
	left int64
	err  error
}

var errIndexTruncated = errors.New("truncated")

func (x *indexReader) full(p []byte) {
	if x.err != nil {
		return
	}
	if int64(len(p)) > x.left {
		x.err = errIndexTruncated
		return
	}
	if _, err := io.ReadFull(x.r, p); err != nil {
		x.err = errIndexTruncated
		return
	}
	x.left -= int64(len(p))
}

// read appends n bytes to b.
func (x *indexReader) read(b []byte, n int) []byte {
	if x.err != nil {
		return b
	}
	if int64(n) > x.left {
		x.err = errIndexTruncated
		return b
	}
	b = slices.Grow(b, n)[:len(b)+n]
	x.full(b[len(b)-n:])
	return b
}

// until appends to b the bytes up to delim, which is read and not
// appended.
func (x *indexReader) until(b []byte, delim byte) []byte {
	for x.err == nil {
		if x.left == 0 {
			x.err = errIndexTruncated
			break
		}
		c, err := x.r.ReadByte()
		if err != nil {
			x.err = errIndexTruncated
			break
		}
		x.left--
		if c == delim {
			break
		}
		b = append(b, c)
	}
	return b
}

// varint reads git's offset varint (varint.c decode_varint): big-endian
// groups of 7 bits, each continuation adding one.
func (x *indexReader) varint() uint64 {
	var v uint64
	for i := 0; x.err == nil; i++ {
		if x.left == 0 {
			x.err = errIndexTruncated
			return 0
		}
		c, err := x.r.ReadByte()
		if err != nil {
			x.err = errIndexTruncated
			return 0
		}
		x.left--
		if i > 0 {
			v++
		}
		if v>>57 != 0 {
			x.err = errors.New("path strip length overflows")
			return 0
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			break
		}
	}
	return v
}

func (x *indexReader) skip(n int64) {
	if x.err != nil {
		return
	}
	if n > x.left {
		x.err = errIndexTruncated
		return
	}
	if _, err := x.r.Discard(int(n)); err != nil {
		x.err = errIndexTruncated
		return
	}
	x.left -= n
}
