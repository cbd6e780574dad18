package vcs

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ScanRefs lists the refs under prefix as ListRefs does, but a ref that
// does not read (a corrupt loose file, a symbolic ref, a bad packed-refs
// line) is reported on its own instead of failing the listing, so a
// health check can name every bad ref and still check the good ones.
func (g *GitStore) ScanRefs(prefix string) ([]Ref, []error) {
	var problems []error
	refs, _ := g.listRefs(prefix, func(err error) error {
		problems = append(problems, err)
		return nil
	})
	return refs, problems
}

// RefLock is a ref lock file (git's `<ref>.lock`) found on disk.
type RefLock struct {
	Path string
	Age  time.Duration
}

// Stale reports whether the lock is old enough to be the leftover of a
// killed process (SPEC §13): ref locks are held for milliseconds.
func (l RefLock) Stale() bool { return l.Age > staleRefLock }

// RefLocks lists the lock files under the refs of prefix, and
// packed-refs.lock, which a killed ctxgit or git can leave behind.
func (g *GitStore) RefLocks(prefix string) ([]RefLock, error) {
	var out []RefLock
	add := func(p string) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, RefLock{Path: p, Age: time.Since(fi.ModTime())})
		}
	}
	err := walkRefFiles(g.refPath(strings.TrimSuffix(prefix, "/")), func(p string) error {
		if strings.HasSuffix(p, ".lock") {
			add(p)
		}
		return nil
	}, func(err error) error { return err })
	if err != nil {
		return nil, err
	}
	add(filepath.Join(g.commonDir, "packed-refs.lock"))
	return out, nil
}

// RemoveStaleRefLock removes a ref lock file if it is still stale, as a
// waiting ref update would (SPEC §13). It reports whether it did.
func (g *GitStore) RemoveStaleRefLock(path string) bool {
	if !strings.HasPrefix(path, g.commonDir+string(filepath.Separator)) || !strings.HasSuffix(path, ".lock") {
		return false
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) <= staleRefLock {
		return false
	}
	return os.Remove(path) == nil
}
