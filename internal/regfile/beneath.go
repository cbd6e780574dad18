package regfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The path half of the rule: a file named by a path under a root (a
// workspace) is reached through directories that are the root's own.
// Dirs refuses any symbolic link on the way (ctxgit's own directory
// .ctxgit/local/ is never reached through one); Resolve follows links
// only while they stay under the root, and says where the path really
// leads, so the caller can judge the place (not in .git, not a secret).
//
// Both check with Lstat before the file is opened: they hold against what
// a repository commits (links, special files), not against another
// process swapping a directory between the check and the open, which
// could as well write the files itself.

// ErrSymlink is returned for a symbolic link (or, on Windows, another
// reparse point) where the rule allows none.
var ErrSymlink = errors.New("a symbolic link")

// ErrNotDir is returned for a path component that is not a directory.
var ErrNotDir = errors.New("not a directory")

// ErrOutside is returned for a symbolic link that leads outside the root.
var ErrOutside = errors.New("leads outside")

// maxLinks bounds the links Resolve follows, as the kernel bounds them
// (Linux's MAXSYMLINKS).
const maxLinks = 40

// LinkError is a symbolic link Resolve does not follow: Link is its path
// under the root (slash-separated), Target what it holds.
type LinkError struct {
	Link, Target string
	Err          error
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s: a symbolic link to %s: %v", e.Link, e.Target, e.Err)
}

func (e *LinkError) Unwrap() error { return e.Err }

// Dirs checks the directories on the way from root to the file rel
// (slash-separated, relative): each must be a directory, not a symbolic
// link. Checking stops at the first one missing; with mkdir it and those
// below it are made (0755). The error is a *fs.PathError naming the
// directory at fault, with ErrSymlink or ErrNotDir.
func Dirs(root, rel string, mkdir bool) error {
	parts := strings.Split(rel, "/")
	dir := root
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if !mkdir {
				return nil
			}
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			fi, err = os.Lstat(dir) // made, or made meanwhile: checked all the same
		}
		if err != nil {
			return err
		}
		if err := plainDir(dir, fi); err != nil {
			return err
		}
	}
	return nil
}

// plainDir refuses anything but a directory: a symlink, a Windows
// junction (a directory that is also a reparse point), a file.
func plainDir(path string, fi fs.FileInfo) error {
	switch t := fi.Mode().Type(); {
	case t&fs.ModeSymlink != 0, t&fs.ModeIrregular != 0 && t&fs.ModeDir != 0:
		return &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	case t != fs.ModeDir:
		return &fs.PathError{Op: "open", Path: path, Err: ErrNotDir}
	}
	return nil
}

// Resolve is where rel (slash-separated, relative to root) leads: the
// slash-separated path under root with every symbolic link on the way
// followed, as long as each stays under root (root itself must be
// absolute and free of links, as filepath.EvalSymlinks gives it). A link
// leading elsewhere is a *LinkError with ErrOutside. The path need not
// exist: a missing part ends the walk and the rest is taken as written.
func Resolve(root, rel string) (string, error) {
	todo := strings.Split(rel, "/")
	var done []string
	for links := 0; len(todo) > 0; {
		p := todo[0]
		todo = todo[1:]
		switch p {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", &LinkError{Link: rel, Target: rel, Err: ErrOutside}
			}
			done = done[:len(done)-1]
			continue
		}
		here := filepath.Join(root, filepath.Join(append(done, p)...))
		fi, err := os.Lstat(here)
		if errors.Is(err, fs.ErrNotExist) {
			done = append(done, p)
			continue // nothing below a missing name can be a link
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 {
				if err := plainDir(here, fi); err != nil {
					return "", err
				}
			}
			done = append(done, p)
			continue
		}
		link := strings.Join(append(done, p), "/")
		if links++; links > maxLinks {
			return "", &LinkError{Link: link, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := os.Readlink(here)
		if err != nil {
			return "", err
		}
		next := filepath.ToSlash(target)
		if filepath.IsAbs(target) {
			r, err := filepath.Rel(root, filepath.Clean(target))
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
				return "", &LinkError{Link: link, Target: target, Err: ErrOutside}
			}
			next, done = filepath.ToSlash(r), nil
		} else if escapes(done, next) {
			return "", &LinkError{Link: link, Target: target, Err: ErrOutside}
		}
		todo = append(strings.Split(next, "/"), todo...)
	}
	return strings.Join(done, "/"), nil
}

// escapes reports whether the relative link target, read in the directory
// done, climbs above the root.
func escapes(done []string, target string) bool {
	depth := len(done)
	for _, p := range strings.Split(target, "/") {
		switch p {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}
