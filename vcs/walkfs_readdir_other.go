//go:build !linux

package vcs

import "os"

// readDirByFile lists a directory through its *os.File (Linux reads the
// descriptor itself: walkfs_linux.go).
func readDirByFile(f *os.File) ([]dirent, error) {
	entries, err := f.ReadDir(-1)
	out := make([]dirent, len(entries))
	for i, de := range entries {
		out[i] = dirent{name: de.Name(), typ: de.Type()}
	}
	return out, err
}
