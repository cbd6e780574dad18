//go:build !linux && !darwin

package vcs

import "os"

// mapFile reads the file whole where ctxgit does not map files.
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }
