//go:build windows

package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// heldOpen reports a rename refused because a file is open in another
// process: MoveFileEx fails with access denied or a sharing violation.
// Access is denied too when the file replaced is read-only (a loose
// object): as git does, its read-only attribute is cleared first.
func heldOpen(err error, newpath string) bool {
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		if fi, serr := os.Lstat(newpath); serr == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
			os.Chmod(newpath, 0o644)
		}
	}
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// beingReplaced reports an open refused while another handle holds the
// file with delete access and shares no deletion: a rename replacing it.
func beingReplaced(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
