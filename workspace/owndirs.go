package workspace

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/spec"
)

// ownDirs are the directories ctxgit reads its own files from and writes
// under, parents first. A workspace is anyone's files: a committed
// `.ctxgit` or `.ctxgit/local` symlink would have ctxgit read its config
// and write its lock, log, markers and store outside the workspace
// (issue 24 item 4). Each is checked without following links.
var ownDirs = []string{
	spec.DirName,
	spec.LocalDir,
	spec.LocalDir + "/hook-failed",
	spec.LocalDir + "/onboarded",
	spec.LocalDir + "/jobs",
	spec.LocalDir + "/readings", // taskstate's readings
	spec.DirName + "/summaries",
	spec.PrivateStoreDir,
}

// CheckOwnDirs refuses a workspace where one of ctxgit's own directories
// is a symbolic link or not a directory (SPEC §3): nothing is read or
// written through it. A missing one is fine (it is made as a directory).
func CheckOwnDirs(root string) error {
	for _, d := range ownDirs {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			continue // missing (or under a missing parent): made when needed
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return spec.Usage("%s is a symbolic link: ctxgit reads and writes nothing through it (replace it with a directory: rm %s, then ctxgit init)", d, d)
		case !fi.IsDir():
			return spec.Usage("%s is not a directory: ctxgit keeps its own files there (move it away, then ctxgit init)", d)
		}
	}
	return nil
}
