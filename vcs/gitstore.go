package vcs

import (
	"bufio"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/durable"
)

// GitStore is a Store over a git repository's object database and refs,
// read and written directly: loose objects (zlib level 1, as git writes
// them), packs with their deltas, alternates; large batches become one
// pack. Refs are updated with git's lock protocol.
type GitStore struct {
	commonDir string
	objDir    string

	idxMu    sync.Mutex
	idxs     []*packIndex // nil until first needed
	badPacks []error      // packs left out of idxs, and why
	altDirs  []string     // alternate object directories

	ownedRefs atomic.Pointer[string] // see OwnRefLocks
}

// OpenGit opens the repository whose common git directory is commonDir,
// refusing formats it cannot write (SHA-256 objects, reftable refs).
func OpenGit(commonDir string) (*GitStore, error) {
	if err := checkFormat(commonDir); err != nil {
		return nil, err
	}
	objDir := filepath.Join(commonDir, "objects")
	if fi, err := os.Stat(objDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a git directory (no objects/)", commonDir)
	}
	return &GitStore{commonDir: commonDir, objDir: objDir, altDirs: readAlternates(objDir)}, nil
}

// InitPrivate creates (if needed) and opens a bare repository at dir, for a
// workspace that is not inside a git repository. `git --git-dir=dir log`
// works on it.
func InitPrivate(dir string) (*GitStore, error) {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); errors.Is(err, os.ErrNotExist) {
		for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				return nil, err
			}
		}
		files := []struct{ name, data string }{
			{"config", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"},
			{"description", "ctxgit private checkpoint store\n"},
			// HEAD last: its presence marks a complete repository.
			{"HEAD", "ref: refs/heads/main\n"},
		}
		for _, f := range files {
			if err := atomicfile.Write(filepath.Join(dir, f.name), []byte(f.data), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return OpenGit(dir)
}

// CommonDir is the repository's common git directory.
func (g *GitStore) CommonDir() string { return g.commonDir }

func readAlternates(objDir string) []string {
	data, err := os.ReadFile(filepath.Join(objDir, "info", "alternates"))
	if err != nil {
		return nil
	}
	var dirs []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objDir, line)
		}
		dirs = append(dirs, filepath.Clean(line))
	}
	return dirs
}

func loosePath(objDir string, h Hash) string {
	s := h.String()
	return filepath.Join(objDir, s[:2], s[2:])
}

// HasObject implements Store. It is safe for concurrent use: packed
// objects are a lookup in indexes mapped once, loose ones a stat. Packs
// come first, as in git's freshen_packed_object before the loose check:
// in a packed repository most objects a first snapshot finds are there,
// and each found costs no system call.
func (g *GitStore) HasObject(h Hash) (bool, error) {
	idxs, err := g.packIndexes()
	if err != nil {
		return false, err
	}
	for _, idx := range idxs {
		if idx.contains(h) {
			return true, nil
		}
	}
	if _, err := os.Lstat(loosePath(g.objDir, h)); err == nil {
		return true, nil
	}
	for _, dir := range g.altDirs {
		if _, err := os.Lstat(loosePath(dir, h)); err == nil {
			return true, nil
		}
	}
	return false, nil
}

// hasFreshened is HasObject for a writer about to store h: an object
// found is also re-timestamped, as git's write path does
// (freshen_loose_object, freshen_packed_object), so that a `git gc`
// pruning unreachable objects older than its expiry does not take an old
// object a checkpoint is reusing before the checkpoint's ref points at it
// (docs/design.md, "Checkpoints beside git gc"). A loose object gets its own mtime set, a
// packed one its pack's, once per pack per store. An object that cannot
// be freshened (a read-only alternate, another user's file) counts as
// absent, so the writer stores a copy of its own, as git does.
func (g *GitStore) hasFreshened(h Hash) (bool, error) {
	idxs, err := g.packIndexes()
	if err != nil {
		return false, err
	}
	now := time.Now()
	for _, idx := range idxs {
		if idx.contains(h) && idx.freshen(now) {
			return true, nil
		}
	}
	for _, dir := range append([]string{g.objDir}, g.altDirs...) {
		p := loosePath(dir, h)
		if _, err := os.Lstat(p); err == nil && os.Chtimes(p, now, now) == nil {
			return true, nil
		}
	}
	return false, nil
}

// packIndexes loads every pack index of the repository and its
// alternates. A pack that fails git's checks (verifyPack) is left out, so
// its objects count as absent and a checkpoint writes them again; doctor
// names it (BadPacks).
func (g *GitStore) packIndexes() ([]*packIndex, error) {
	g.idxMu.Lock()
	defer g.idxMu.Unlock()
	if g.idxs != nil {
		return g.idxs, nil
	}
	idxs := []*packIndex{}
	var bad []error
	for _, dir := range append([]string{g.objDir}, g.altDirs...) {
		names, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
		for _, name := range names {
			idx, err := readPackIndex(name)
			if err == nil {
				err = idx.verifyPack()
			}
			switch {
			case errors.Is(err, os.ErrNotExist):
				continue // removed by a concurrent repack
			case err != nil:
				bad = append(bad, err)
				continue
			}
			idxs = append(idxs, idx)
		}
	}
	g.idxs, g.badPacks = idxs, bad
	return idxs, nil
}

// BadPacks lists the packs (with alternates') that fail git's checks and
// are not read: a truncated pack, a pack whose trailer does not match its
// index, a corrupt index.
func (g *GitStore) BadPacks() ([]error, error) {
	if _, err := g.packIndexes(); err != nil {
		return nil, err
	}
	g.idxMu.Lock()
	defer g.idxMu.Unlock()
	return g.badPacks, nil
}

// invalidatePacks makes the next lookup see packs written since.
func (g *GitStore) invalidatePacks() {
	g.idxMu.Lock()
	g.idxs = nil
	g.idxMu.Unlock()
}

// ReadObject implements Store.
func (g *GitStore) ReadObject(h Hash) (ObjectType, []byte, error) {
	t, data, err := g.readObject(h)
	if errors.Is(err, ErrObjectNotFound) || errors.Is(err, fs.ErrNotExist) {
		// A pack may have appeared since the index was loaded (our own
		// batch, or a concurrent git gc), or gone with a repack that
		// moved its objects into a new one (SPEC §14): look once more.
		g.invalidatePacks()
		t, data, err = g.readObject(h)
	}
	return t, data, err
}

func (g *GitStore) readObject(h Hash) (ObjectType, []byte, error) {
	for _, dir := range append([]string{g.objDir}, g.altDirs...) {
		t, data, err := readLoose(loosePath(dir, h))
		if err == nil {
			return t, data, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return 0, nil, fmt.Errorf("object %s: %w", h, err)
		}
	}
	idxs, err := g.packIndexes()
	if err != nil {
		return 0, nil, err
	}
	for _, idx := range idxs {
		if i, ok := idx.find(h); ok {
			t, data, err := idx.read(i, g.readObject)
			if err != nil {
				return 0, nil, fmt.Errorf("object %s: %w", h, err)
			}
			return t, data, nil
		}
	}
	return 0, nil, fmt.Errorf("object %s: %w", h, ErrObjectNotFound)
}

// WriteObject implements Store.
func (g *GitStore) WriteObject(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	if ok, err := g.hasFreshened(h); err != nil || ok {
		return h, err
	}
	return h, g.writeLoose(h, t, data)
}

// BlobWriter is a Store that stores a blob as it reads it, so a file of
// any size takes a fixed amount of memory (issue 13 item 15).
type BlobWriter interface {
	// WriteBlobFrom stores the blob of exactly size bytes read from r; r
	// yielding fewer is ErrChangedWhileRead and stores nothing.
	WriteBlobFrom(r io.Reader, size int64) (Hash, error)
}

// ErrChangedWhileRead: a file yielded fewer bytes than its size said.
var ErrChangedWhileRead = errors.New("changed while it was read")

// streamChunk is how much of a streamed blob is in memory at once.
const streamChunk = 256 << 10

// WriteBlobFrom implements BlobWriter: one pass hashes and compresses
// into a temp file in the objects directory (where git puts its own), then
// the temp file becomes the loose object, or is dropped when the store
// already holds that blob. The id is known only at the end, so the work
// is done even for a blob that turns out to be stored; large files are
// few, and the stat cache spares them once checkpointed.
func (g *GitStore) WriteBlobFrom(r io.Reader, size int64) (Hash, error) {
	f, err := os.CreateTemp(g.objDir, "tmp_obj_")
	if err != nil {
		return ZeroHash, err
	}
	tmp := f.Name()
	fail := func(err error) (Hash, error) {
		f.Close()
		os.Remove(tmp)
		return ZeroHash, err
	}
	bw := bufio.NewWriterSize(f, streamChunk)
	zw := getZlib(bw)
	defer zlibPool.Put(zw)
	d := sha1.New()
	writeHeader(d, BlobObject, size)
	if _, err := zw.Write(objectHeader(BlobObject, int(size))); err != nil {
		return fail(err)
	}
	buf := make([]byte, streamChunk)
	n, err := io.CopyBuffer(io.MultiWriter(d, zw), io.LimitReader(r, size), buf)
	if err != nil {
		return fail(err)
	}
	if n != size {
		return fail(ErrChangedWhileRead)
	}
	if err := zw.Close(); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	var h Hash
	d.Sum(h[:0])
	if ok, err := g.hasFreshened(h); err != nil || ok {
		f.Close()
		os.Remove(tmp)
		return h, err
	}
	if err := f.Chmod(0o444); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return ZeroHash, err
	}
	if err := os.MkdirAll(filepath.Dir(loosePath(g.objDir, h)), 0o755); err != nil {
		os.Remove(tmp)
		return ZeroHash, err
	}
	return h, g.placeLoose(h, tmp)
}

// writeLoose writes one loose object at zlib level 1 (git's
// core.looseCompression default) through a temp file, fsync and rename, so
// a crash leaves either no object or a whole one.
func (g *GitStore) writeLoose(h Hash, t ObjectType, data []byte) error {
	tmp, err := g.looseTemp(h, t, data, (*os.File).Sync)
	if err == nil {
		err = g.placeLoose(h, tmp)
	}
	return err
}

// writeLooseBatch writes several loose objects as git's
// core.fsyncMethod=batch does: each temp file is written out to disk
// without a journal commit, one fsync then commits them all and flushes
// the disk's cache, and only then are they renamed into place.
func (g *GitStore) writeLooseBatch(objs []bufferedObject) error {
	tmps := make([]string, len(objs))
	cleanup := func() {
		for _, t := range tmps {
			if t != "" {
				os.Remove(t)
			}
		}
	}
	for i, o := range objs {
		tmp, err := g.looseTemp(o.h, o.t, o.data, durable.WriteOut)
		if err != nil {
			cleanup()
			return err
		}
		tmps[i] = tmp
	}
	if err := durable.Marker(g.objDir); err != nil {
		cleanup()
		return err
	}
	for i, o := range objs {
		err := g.placeLoose(o.h, tmps[i])
		if errors.Is(err, fs.ErrNotExist) {
			// A concurrent `git prune --expire=now` removes temporary
			// object files; the data is still here, so write it again.
			err = g.writeLooseRetry(o.h, o.t, o.data)
		}
		if err != nil {
			cleanup()
			return err
		}
		tmps[i] = ""
	}
	return nil
}

// looseTemp compresses an object into a read-only temp file beside its
// final path, made durable by sync.
func (g *GitStore) looseTemp(h Hash, t ObjectType, data []byte, sync func(*os.File) error) (string, error) {
	f, err := createObjectTemp(filepath.Dir(loosePath(g.objDir, h)))
	if err != nil {
		return "", err
	}
	zw := getZlib(f)
	defer zlibPool.Put(zw)
	_, err = zw.Write(objectHeader(t, len(data)))
	if err == nil {
		_, err = zw.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	if err == nil {
		err = sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing object %s: %w", h.Short(), err)
	}
	return f.Name(), nil
}

// afterObjectDirMade, when set by a test, runs between making an object
// directory and creating the temp file in it: where a concurrent gc strikes.
var afterObjectDirMade func(dir string)

// createObjectTemp creates a temp file in a loose-object directory
// (objects/xx), making the directory first. A concurrent `git gc` removes
// fan-out directories it emptied (prune-packed) between the two steps, so
// a directory gone again is made again, as git's own create_tmpfile does.
func createObjectTemp(dir string) (*os.File, error) {
	var err error
	for range 5 {
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if afterObjectDirMade != nil {
			afterObjectDirMade(dir)
		}
		var f *os.File
		if f, err = os.CreateTemp(dir, tempPattern("obj")); !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, err
}

func (g *GitStore) placeLoose(h Hash, tmp string) error {
	if err := atomicfile.Rename(tmp, loosePath(g.objDir, h)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing object %s: %w", h.Short(), err)
	}
	return nil
}

// writeLooseRetry retries a single object a pruning git removed mid-write.
func (g *GitStore) writeLooseRetry(h Hash, t ObjectType, data []byte) error {
	var err error
	for range 3 {
		if err = g.writeLoose(h, t, data); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// maxLooseBatch is the most objects a batch writes loose; more become one
// pack so a first snapshot never floods the repository with loose objects
// (and never pushes it past gc.auto).
const maxLooseBatch = 100

// maxBufferedBatch bounds the bytes a batch holds in memory while it is
// still small enough to be written loose.
const maxBufferedBatch = 8 << 20

// NewBatch implements Store.
func (g *GitStore) NewBatch() (Batch, error) {
	return &gitBatch{store: g, seen: map[Hash]bool{}}, nil
}

type gitBatch struct {
	store *GitStore

	mu       sync.Mutex
	seen     map[Hash]bool
	buffered []bufferedObject // raw objects while the batch is small
	bufBytes int
	pack     *packWriter // non-nil once the batch is large
	done     bool
}

type bufferedObject struct {
	h    Hash
	t    ObjectType
	data []byte
}

func (b *gitBatch) Add(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return h, errors.New("batch already finished")
	}
	if b.seen[h] {
		b.mu.Unlock()
		return h, nil
	}
	b.mu.Unlock()
	if ok, err := b.store.hasFreshened(h); err != nil || ok {
		return h, err
	}

	b.mu.Lock()
	if b.seen[h] {
		b.mu.Unlock()
		return h, nil
	}
	b.seen[h] = true
	if b.pack == nil && len(b.buffered) < maxLooseBatch && b.bufBytes+len(data) <= maxBufferedBatch {
		b.buffered = append(b.buffered, bufferedObject{h, t, append([]byte(nil), data...)})
		b.bufBytes += len(data)
		b.mu.Unlock()
		return h, nil
	}
	if b.pack == nil {
		if err := b.startPackLocked(); err != nil {
			b.mu.Unlock()
			return h, err
		}
	}
	pack := b.pack
	b.mu.Unlock()
	// Compress outside the lock so several callers use several cores.
	entry, err := compressPackEntry(t, data)
	if err != nil {
		return h, err
	}
	return h, pack.append(h, entry)
}

// startPackLocked switches the batch to a pack, moving buffered objects in.
func (b *gitBatch) startPackLocked() error {
	pw, err := newPackWriter(filepath.Join(b.store.objDir, "pack"))
	if err != nil {
		return err
	}
	for _, o := range b.buffered {
		entry, err := compressPackEntry(o.t, o.data)
		if err == nil {
			err = pw.append(o.h, entry)
		}
		if err != nil {
			pw.abort()
			return err
		}
	}
	b.buffered, b.bufBytes, b.pack = nil, 0, pw
	return nil
}

func (b *gitBatch) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.seen)
}

func (b *gitBatch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return errors.New("batch already finished")
	}
	b.done = true
	if b.pack != nil {
		if err := b.pack.finish(); err != nil {
			return err
		}
		b.store.invalidatePacks()
		return nil
	}
	if len(b.buffered) > 0 {
		if err := b.store.writeLooseBatch(b.buffered); err != nil {
			return err
		}
	}
	b.buffered = nil
	return nil
}

func (b *gitBatch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	if b.pack != nil {
		b.pack.abort()
	}
	b.buffered = nil
}
