package vcs

import (
	"bufio"
	"errors"
	"io/fs"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/format/index"

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
	var idx index.Index
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(&idx); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		if n := len(paths); n == 0 || paths[n-1] != e.Name {
			paths = append(paths, e.Name)
		}
	}
	sort.Strings(paths)
	return paths, nil
}
