package vcs

import "context"

// What a store kept in a git directory on disk offers beyond Store, one
// small interface per concern, so that a feature takes only what it uses
// (ARCHITECTURE.md): fetch, doctor and the repack depend on these, never
// on *GitStore. GitStore is their one implementation and MemStore has
// none of them: each is about a git directory's files (ref lock files,
// loose object and pack files, temporary files, a directory git itself
// can fetch into), which a store in memory does not have.

// GitDir names the git directory a store keeps its objects and refs in.
type GitDir interface {
	// CommonDir is the directory holding objects/ and refs/.
	CommonDir() string
}

// FetchStore is a Store a remote fetches into. A network fetch runs git
// fetch on the store's git directory and counts what arrived, so the
// store must be one on disk.
type FetchStore interface {
	Store
	GitDir
	// ObjectCount counts the objects stored: loose ones and those listed
	// in pack indexes.
	ObjectCount() int
}

// RefScanner lists refs, reporting each one that does not read beside
// the others rather than failing on it.
type RefScanner interface {
	ScanRefs(prefix string) ([]Ref, []error)
}

// RefLocker finds the ref lock files under a prefix and removes one a
// killed writer left, under the rules a waiting writer uses.
type RefLocker interface {
	RefLocks(prefix string) ([]RefLock, error)
	RemoveStaleRefLock(path string) bool
}

// ObjectFiles reports on the files objects are kept in: loose objects,
// and packs git would refuse (which are not read).
type ObjectFiles interface {
	LooseObjects() (count int, bytes int64, err error)
	IsLoose(h Hash) bool
	BadPacks() ([]error, error)
}

// TempCleaner finds the temporary files interrupted writes left in the
// object directory, and removes those no live writer can own.
type TempCleaner interface {
	TempFiles(private bool) ([]TempFile, error)
	RemoveStaleTemp(private bool) (n int, bytes int64, err error)
}

// Repacker is a Store that packs what its roots reach and then removes
// what the new pack makes redundant; ctx interrupts it before anything is
// published.
type Repacker interface {
	Store
	Repack(ctx context.Context, mode RepackMode, roots []Hash) (*RepackResult, error)
}

// DiskStore is a store on disk with all of its upkeep: what doctor checks
// and repairs, and the repack.
type DiskStore interface {
	Store
	GitDir
	RefScanner
	RefLocker
	ObjectFiles
	TempCleaner
	Repacker
}

var (
	_ DiskStore  = (*GitStore)(nil)
	_ FetchStore = (*GitStore)(nil)
)
