package vcs

import (
	"errors"
	"io/fs"
	"sort"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// IndexPaths lists the paths git's index file holds, slash-separated and
// relative to the top of the worktree, sorted and each once (a path in
// conflict has several stages). The file is only read; a missing one
// holds nothing. What git status calls untracked is a path of the
// working tree this list does not hold.
func IndexPaths(file string) ([]string, error) {
	f, err := regfile.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var paths []string
	begin := func(entries, _ int) { paths = make([]string, 0, entries) }
	if err := readGitIndex(f, f.Info().Size, begin, func(name []byte, _ uint32) {
		if n := len(paths); n == 0 || paths[n-1] != string(name) {
			paths = append(paths, string(name))
		}
	}); err != nil {
		return nil, err
	}
	sort.Strings(paths)
	return paths, nil
}
