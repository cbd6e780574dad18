package vcs

// CreateObjectTemp exposes createObjectTemp to the external tests.
var CreateObjectTemp = createObjectTemp

// SetAfterObjectDirMade sets the hook that plays a concurrent gc.
func SetAfterObjectDirMade(f func(string)) { afterObjectDirMade = f }

// IndexDecodes is how many times a git index was decoded in this process.
func IndexDecodes() int64 { return indexDecodes.Load() }

// ListedDirs is how many directories a snapshot read from the disk rather
// than from the stat cache.
func ListedDirs(r *SnapshotResult) int { return r.listed }

// MatchedEntries is how many entries a snapshot matched the ignore rules
// against, rather than taking their fate from the stat cache.
func MatchedEntries(r *SnapshotResult) int { return r.matched }

// SetMaxListing sets the cap on what ctxgit reads of git ls-remote's
// output, returning the old one.
func SetMaxListing(n int64) int64 {
	old := maxListing
	maxListing = n
	return old
}
