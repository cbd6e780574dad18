package vcs

// CreateObjectTemp exposes createObjectTemp to the external tests.
var CreateObjectTemp = createObjectTemp

// SetAfterObjectDirMade sets the hook that plays a concurrent gc.
func SetAfterObjectDirMade(f func(string)) { afterObjectDirMade = f }

// SetMaxListing sets the cap on what ctxgit reads of git ls-remote's
// output, returning the old one.
func SetMaxListing(n int64) int64 {
	old := maxListing
	maxListing = n
	return old
}
