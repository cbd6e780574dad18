package vcs

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// FSFlags are what the workspace's file system cannot do, as git's core
// config records them (SPEC §9.7). The zero value is a Linux file system:
// names are case-sensitive, files have an executable bit, symlinks exist.
type FSFlags struct {
	// IgnoreCase (core.ignoreCase): names differing only in case are one
	// file, so ignore rules and tracked paths match whatever the case.
	IgnoreCase bool
	// NoFileMode (core.fileMode=false): the executable bit on disk means
	// nothing; a file keeps the mode its previous checkpoint, else the
	// index, gives it.
	NoFileMode bool
	// NoSymlinks (core.symlinks=false): symlinks are checked out as plain
	// files holding their target; such a file stays a symlink.
	NoSymlinks bool
}

// SystemFSFlags is what a file system of this system can be assumed not
// to do when it cannot be asked: nothing on Linux and macOS; on Windows,
// no executable bit, no symlinks and names in any case, the keys Git for
// Windows writes at `git init`.
func SystemFSFlags() FSFlags {
	if runtime.GOOS == "windows" {
		return FSFlags{IgnoreCase: true, NoFileMode: true, NoSymlinks: true}
	}
	return FSFlags{}
}

// ReadFSFlags reads core.ignoreCase, core.fileMode and core.symlinks from
// a repository's config, as git does: a key that is unset has git's
// default (false, true, true), whatever the file system. `git init` and
// `git clone` probe the file system and write the keys where it differs.
func ReadFSFlags(commonDir string) (FSFlags, error) {
	cfg, err := readGitConfig(filepath.Join(commonDir, "config"))
	if err != nil {
		return FSFlags{}, err
	}
	return FSFlags{
		IgnoreCase: cfg.boolean("core.ignorecase", false),
		NoFileMode: !cfg.boolean("core.filemode", true),
		NoSymlinks: !cfg.boolean("core.symlinks", true),
	}, nil
}

// boolean reads a key as git reads a boolean: true, yes, on, 1 or a bare
// name; false, no, off, 0 or empty. Anything else, and unset, is def.
func (c gitConfig) boolean(key string, def bool) bool {
	v, ok := c[strings.ToLower(key)]
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0", "":
		return false
	}
	return def
}

// ProbeFSFlags finds the flags by trying, in dir, what `git init` tries
// (create_default_files in git's setup.c): whether a file's executable bit
// sticks, whether a symlink can be made, and whether a name in other case
// finds the same file. For a workspace outside git, which has no config
// to read.
func ProbeFSFlags(dir string) (FSFlags, error) {
	f, err := os.CreateTemp(dir, "probe-FsFlags-*")
	if err != nil {
		return FSFlags{}, err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	var flags FSFlags
	fi1, err1 := os.Lstat(name)
	err2 := os.Chmod(name, fi1.Mode()^0o100)
	fi2, err3 := os.Lstat(name)
	flags.NoFileMode = err1 != nil || err2 != nil || err3 != nil || fi1.Mode() == fi2.Mode()
	link := name + "-link"
	// A link must be there once made: Wine 8's CreateSymbolicLinkW
	// reports success and makes nothing.
	if err := os.Symlink("target", link); err != nil {
		flags.NoSymlinks = true
	} else {
		fi, err := os.Lstat(link)
		flags.NoSymlinks = err != nil || fi.Mode()&os.ModeSymlink == 0
		os.Remove(link)
	}
	other := filepath.Join(filepath.Dir(name), strings.Replace(filepath.Base(name), "FsFlags", "fSfLAGS", 1))
	if fi, err := os.Lstat(other); err == nil && os.SameFile(fi, fi2) {
		flags.IgnoreCase = true
	}
	return flags, nil
}

// keptModes is, for a file system without an executable bit or symlinks,
// the mode each path had: in the previous checkpoint's tree, else in the
// index (git keeps the index's mode: ce_mode_from_stat in read-cache.c).
func (w *walker) keptModes() map[string]uint32 {
	w.keptOnce.Do(func() {
		w.kept = map[string]uint32{}
		if w.opts.IndexFile != "" {
			if f, err := regfile.Open(w.opts.IndexFile); err == nil {
				kept := map[string]uint32{}
				if readGitIndex(f, f.Info().Size, nil, func(name []byte, mode uint32) {
					if rel, ok := bytes.CutPrefix(name, []byte(w.prefix)); ok {
						kept[string(rel)] = mode
					}
				}) == nil {
					w.kept = kept
				}
				f.Close()
			}
		}
		if !w.opts.Previous.IsZero() && w.prevStore != nil {
			// The previous checkpoint decides over the index.
			walkTreeModes(w.prevStore, w.opts.Previous, "", w.kept)
		}
	})
	return w.kept
}

// walkTreeModes records the mode of every file and link below tree. A tree
// that cannot be read adds nothing: the modes are a hint, and the index's
// (or the disk's) stand in.
func walkTreeModes(s Store, tree Hash, prefix string, out map[string]uint32) {
	t, data, err := s.ReadObject(tree)
	if err != nil || t != TreeObject {
		return
	}
	entries, err := DecodeTree(data)
	if err != nil {
		return
	}
	for _, e := range entries {
		switch {
		case e.IsDir():
			walkTreeModes(s, e.ID, prefix+e.Name+"/", out)
		case e.Mode != ModeGitlink:
			out[prefix+e.Name] = e.Mode
		}
	}
}

// fileMode is the mode a regular file at rel is stored with: from its
// executable bit, unless the file system has none or no symlinks and the
// path had a mode before (keptModes).
func (w *walker) fileMode(rel string, exec bool) uint32 {
	flags := w.opts.FS
	mode := ModeFile
	if exec && !flags.NoFileMode {
		mode = ModeExecutable
	}
	if !flags.NoFileMode && !flags.NoSymlinks {
		return mode
	}
	switch kept, ok := w.keptModes()[rel]; {
	case !ok:
	case kept == ModeSymlink && flags.NoSymlinks:
		return ModeSymlink
	case (kept == ModeFile || kept == ModeExecutable) && flags.NoFileMode:
		return kept
	}
	return mode
}
