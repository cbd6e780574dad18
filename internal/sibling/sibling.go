// Package sibling finds a program installed beside the running one:
// ctxgit hands `ctxgit mcp` over to ctxgit-mcp, and ctxgit-mcp runs
// ctxgit for the status tool's overview (docs/design.md, "The MCP
// server").
package sibling

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ErrNotFound is the error Find returns when name is neither beside
// this program nor on PATH.
var ErrNotFound = errors.New("not found")

// Find is the path of the program name: the one in the running
// program's own directory, so that a ctxgit and its companion come from
// one install, else the first on PATH.
func Find(name string) (string, error) {
	return find(name, os.Executable, exec.LookPath)
}

// FindFrom is Find beside the program executable names.
func FindFrom(name string, executable func() (string, error)) (string, error) {
	return find(name, executable, exec.LookPath)
}

func find(name string, executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	file := name
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	if exe, err := executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), file)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	p, err := lookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return "", ErrNotFound
		}
		return "", err
	}
	return p, nil
}
