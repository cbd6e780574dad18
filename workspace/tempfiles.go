package workspace

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/proc"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
)

// strayTemp is a temporary file ctxgit made in the workspace
// (.ctxgit-tmp-<pid>-<name>.*, SPEC §3.3) that its writer left behind.
type strayTemp struct {
	rel  string
	size int64
}

// deadTemp reports whether name is one of ctxgit's temporary files whose
// writer is no longer running: a kill between create and rename left it.
// One whose writer runs (this process, or a hook writing now) is not.
func deadTemp(name string) bool {
	pid, ok := atomicfile.TempPID(name)
	return ok && pid != os.Getpid() && !proc.Alive(pid)
}

// strayTemps finds the temporary files killed ctxgit processes left in
// the workspace at root: in the directories dirs (workspace-relative), or, with
// dirs nil, anywhere but inside .git directories, nested repositories and
// the private store.
func strayTemps(root string, dirs []string) []strayTemp {
	var out []strayTemp
	add := func(dir string, e fs.DirEntry) {
		if !e.Type().IsRegular() || !atomicfile.IsTemp(e.Name()) || !deadTemp(e.Name()) {
			return
		}
		if fi, err := e.Info(); err == nil {
			out = append(out, strayTemp{rel: filepath.ToSlash(filepath.Join(dir, e.Name())), size: fi.Size()})
		}
	}
	if dirs != nil {
		seen := map[string]bool{}
		for _, d := range dirs {
			if seen[d] {
				continue
			}
			seen[d] = true
			if regfile.Dirs(root, d+"/x", false) != nil {
				continue // reached through a link: not the workspace's to clean
			}
			entries, _ := os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
			for _, e := range entries {
				add(d, e)
			}
		}
		return out
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || filepath.ToSlash(rel) == spec.PrivateStoreDir || IsRepoDir(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		add(filepath.Dir(rel), d)
		return nil
	})
	return out
}

// removeStrayTemps removes what strayTemps found, returning how many
// files and bytes went.
func removeStrayTemps(root string, found []strayTemp) (int, int64) {
	n, size := 0, int64(0)
	for _, t := range found {
		if os.Remove(filepath.Join(root, filepath.FromSlash(t.rel))) == nil {
			n++
			size += t.size
		}
	}
	return n, size
}

// IsRepoDir reports whether a directory is a repository of its own, which
// the snapshot records as a gitlink or leaves out (SPEC §9.5).
func IsRepoDir(abs string) bool {
	_, err := os.Lstat(filepath.Join(abs, ".git"))
	return err == nil
}
