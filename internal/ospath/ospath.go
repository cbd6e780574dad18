// Package ospath makes a path a person or a config names absolute, as
// this system reads it.
package ospath

import (
	"path/filepath"
	"runtime"
	"strings"
)

// Abs is p made absolute against the absolute directory base: p itself
// when absolute; on Windows a path rooted without a drive (\x or /x) on
// base's drive, as Windows reads it (not below base); anything else
// joined to base. The result is clean.
func Abs(base, p string) string {
	switch {
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case runtime.GOOS == "windows" && filepath.VolumeName(p) == "" && (strings.HasPrefix(p, `/`) || strings.HasPrefix(p, `\`)):
		return filepath.Clean(filepath.VolumeName(base) + p)
	}
	return filepath.Join(base, p)
}
