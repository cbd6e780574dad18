package vcs

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The platform's directory walk and the portable one by path agree on a
// file, an executable and a symlink's own size; both refuse to open a
// symlink to a directory below the root, and both follow one at the root.
func TestWalkFSPlatformAndPortableAgree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	canSymlink := os.Symlink("sub", filepath.Join(dir, "link")) == nil
	if fi, err := os.Lstat(filepath.Join(dir, "link")); canSymlink && (err != nil || fi.Mode()&os.ModeSymlink == 0) {
		canSymlink = false // Wine 8: os.Symlink succeeds and makes nothing
	}

	fast, err := openDir(-1, "", func() string { return dir }, true, &fsTypes{})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.close()
	slow, err := openDirByPath(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.close()
	names := []string{"a.txt", "run.sh"}
	if canSymlink {
		names = append(names, "link")
	}
	for _, name := range names {
		a, err1 := lstatAt(fast, name)
		b, err2 := lstatByPath(slow, name)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if a.size != b.size || a.mtime != b.mtime || a.exec != b.exec {
			t.Fatalf("%s: platform %+v, portable %+v", name, a, b)
		}
	}
	if runtime.GOOS != "windows" {
		if st, _ := lstatAt(fast, "run.sh"); !st.exec {
			t.Fatal("run.sh is not executable")
		}
	}
	if _, err := lstatAt(fast, "missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if !canSymlink {
		return
	}
	if st, _ := lstatAt(fast, "link"); st.size != int64(len("sub")) {
		t.Fatalf("the symlink was followed: size %d", st.size)
	}
	// The platform opens a directory below the root relative to its
	// parent's descriptor, where it has one.
	platform := func(abs string, root bool) (openedDir, error) {
		if root {
			return openDir(-1, "", func() string { return abs }, true, &fsTypes{})
		}
		parent, err := openDir(-1, "", func() string { return filepath.Dir(abs) }, true, &fsTypes{})
		if err != nil {
			return openedDir{}, err
		}
		defer parent.close()
		return openDir(parent.fd, filepath.Base(abs), func() string { return abs }, false, &fsTypes{})
	}
	if d, err := platform(filepath.Join(dir, "sub"), false); err != nil {
		t.Fatalf("platform: a subdirectory: %v", err)
	} else {
		d.close()
	}
	for name, open := range map[string]func(string, bool) (openedDir, error){
		"platform": platform,
		"portable": openDirByPath,
	} {
		if d, err := open(filepath.Join(dir, "link"), false); err == nil {
			d.close()
			t.Fatalf("%s: a symlink to a directory was opened", name)
		}
		d, err := open(filepath.Join(dir, "link"), true)
		if err != nil {
			t.Fatalf("%s: the root through a symlink: %v", name, err)
		}
		d.close()
	}
}

// The allocated size is at least the length of a non-empty file.
func TestAllocatedSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := make([]byte, 10000)
	rand.Read(data) // not zeros: a compressing file system would store those in nothing
	os.WriteFile(path, data, 0o644)
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := allocated(fi); got < 10000 {
		t.Fatalf("allocated %d bytes for a 10000-byte file", got)
	}
}

// git fsck checks a .gitmodules under every name HFS+ or NTFS would open
// as one; so does the snapshot.
func TestIsGitmodulesSpellings(t *testing.T) {
	for _, name := range []string{".gitmodules", ".GITMODULES", ".git\u200cmodules", ".gitmodules. ", ".gitmodules::$DATA", "GITMOD~1"} {
		if !isGitmodules(name) {
			t.Errorf("%q: not taken for a .gitmodules", name)
		}
	}
	for _, name := range []string{"gitmodules", ".gitmodules.bak", "x.gitmodules"} {
		if isGitmodules(name) {
			t.Errorf("%q: taken for a .gitmodules", name)
		}
	}
}
