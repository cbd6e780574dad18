package vcs

// CreateObjectTemp exposes createObjectTemp to the external tests.
var CreateObjectTemp = createObjectTemp

// SetAfterObjectDirMade sets the hook that plays a concurrent gc.
func SetAfterObjectDirMade(f func(string)) { afterObjectDirMade = f }
