package vcs

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// packWriter streams objects into a version-2 packfile (no deltas) and, on
// finish, writes its index and moves both into place under git's names.
// Readers find packs by their .idx, which is renamed last, so a crash leaves
// at most a stray temp file, never a half-visible pack.
type packWriter struct {
	dir string

	mu     sync.Mutex
	f      *os.File
	offset int64
	count  uint32
	idx    idxfile.Writer
	// base is the finished pack's path without ".pack" or ".idx".
	base string
}

// packEntry is one object's pack header and compressed content.
type packEntry []byte

func newPackWriter(dir string) (*packWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, tempPattern("pack"))
	if err != nil {
		return nil, err
	}
	// The object count is patched in on finish.
	hdr := []byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}
	if _, err := f.Write(hdr); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &packWriter{dir: dir, f: f, offset: int64(len(hdr))}, nil
}

// compressPackEntry encodes the object header (type and size, git's varint)
// and the zlib-compressed content at level 1.
func compressPackEntry(t ObjectType, data []byte) (packEntry, error) {
	var buf bytes.Buffer
	size := uint64(len(data))
	c := byte(t)<<4 | byte(size&0x0f)
	size >>= 4
	for size != 0 {
		buf.WriteByte(c | 0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	buf.WriteByte(c)
	zw := getZlib(&buf)
	defer zlibPool.Put(zw)
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zlibPool reuses compressors: a new flate writer allocates and clears
// hundreds of kilobytes, which dominated snapshot time when made per object.
var zlibPool sync.Pool

// getZlib returns a level-1 zlib writer reset to write into w.
func getZlib(w io.Writer) *zlib.Writer {
	if zw, ok := zlibPool.Get().(*zlib.Writer); ok {
		zw.Reset(w)
		return zw
	}
	zw, _ := zlib.NewWriterLevel(w, zlib.BestSpeed)
	return zw
}

func (p *packWriter) append(h Hash, e packEntry) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.f.Write(e); err != nil {
		return fmt.Errorf("writing pack: %w", err)
	}
	p.idx.Add(plumbing.Hash(h), uint64(p.offset), crc32.ChecksumIEEE(e))
	p.offset += int64(len(e))
	p.count++
	return nil
}

func (p *packWriter) abort() {
	p.f.Close()
	os.Remove(p.f.Name())
}

func (p *packWriter) finish() (err error) {
	defer func() {
		if err != nil {
			p.abort()
		}
	}()
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], p.count)
	if _, err := p.f.WriteAt(n[:], 8); err != nil {
		return err
	}
	// The trailer is the SHA-1 of everything before it, count included.
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	d := sha1.New()
	if _, err := io.Copy(d, p.f); err != nil {
		return err
	}
	var sum plumbing.Hash
	d.Sum(sum[:0])
	if _, err := p.f.Write(sum[:]); err != nil {
		return err
	}
	if err := p.f.Sync(); err != nil {
		return err
	}
	if err := p.f.Close(); err != nil {
		return err
	}

	// OnHeader is not called: it would drop the entries added so far, and
	// the index is built from those entries alone.
	if err := p.idx.OnFooter(sum); err != nil {
		return err
	}
	idx, err := p.idx.Index()
	if err != nil {
		return err
	}
	var ib bytes.Buffer
	if _, err := idxfile.NewEncoder(&ib).Encode(idx); err != nil {
		return err
	}
	base := filepath.Join(p.dir, "pack-"+sum.String())
	if err := os.Chmod(p.f.Name(), 0o444); err != nil {
		return err
	}
	// A pack of the same name holds the same objects (the name is its
	// content's hash) and may be live with its index: if writing the
	// index fails, only a pack this writer put in place is removed.
	_, statErr := os.Lstat(base + ".pack")
	existed := statErr == nil
	if err := atomicfile.Rename(p.f.Name(), base+".pack"); err != nil {
		return err
	}
	if err := atomicfile.Write(base+".idx", ib.Bytes(), 0o444); err != nil {
		if !existed {
			os.Remove(base + ".pack")
		}
		return err
	}
	p.base = base
	return nil
}
