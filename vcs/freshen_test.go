package vcs_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 24 item 2: a writer that finds its object already stored
// re-timestamps it, as git does (freshen_loose_object,
// freshen_packed_object), so a `git gc` pruning unreachable objects older
// than its expiry cannot take an old object a checkpoint reuses before the
// checkpoint's ref points at it. Each write path is checked: an old
// unreachable object, written again, survives `git prune --expire=1.day.ago`.
func TestWritersFreshenObjectsTheyReuse(t *testing.T) {
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, tc := range []struct {
		name  string
		write func(s *vcs.GitStore, data []byte) (vcs.Hash, error)
	}{
		{"WriteObject", func(s *vcs.GitStore, data []byte) (vcs.Hash, error) {
			return s.WriteObject(vcs.BlobObject, data)
		}},
		{"batch", func(s *vcs.GitStore, data []byte) (vcs.Hash, error) {
			b, err := s.NewBatch()
			if err != nil {
				return vcs.ZeroHash, err
			}
			h, err := b.Add(vcs.BlobObject, data)
			if err != nil {
				return h, err
			}
			return h, b.Commit()
		}},
		{"WriteBlobFrom", func(s *vcs.GitStore, data []byte) (vcs.Hash, error) {
			return s.WriteBlobFrom(bytes.NewReader(data), int64(len(data)))
		}},
	} {
		for _, packed := range []bool{false, true} {
			name := tc.name + "/loose"
			if packed {
				name = tc.name + "/packed"
			}
			t.Run(name, func(t *testing.T) {
				repo := newGitRepo(t)
				data := []byte("an old blob a checkpoint reuses: " + name + "\n")
				h, err := openRepo(t, repo).WriteObject(vcs.BlobObject, data)
				must(t, err)
				file := filepath.Join(repo, ".git", "objects", h.String()[:2], h.String()[2:])
				if packed {
					cmd := exec.Command("git", "pack-objects", "-q", ".git/objects/pack/pack")
					cmd.Dir, cmd.Stdin = repo, strings.NewReader(h.String()+"\n")
					out, err := cmd.Output()
					must(t, err)
					file = filepath.Join(repo, ".git", "objects", "pack", "pack-"+strings.TrimSpace(string(out))+".pack")
					gitCmd(t, repo, "prune-packed")
				}
				must(t, os.Chtimes(file, old, old))
				s := openRepo(t, repo)
				got, err := tc.write(s, data)
				must(t, err)
				if got != h {
					t.Fatalf("wrote %s, want %s", got, h)
				}
				fi, err := os.Stat(file)
				must(t, err)
				if time.Since(fi.ModTime()) > time.Hour {
					t.Errorf("%s kept its mtime %v: not freshened", filepath.Base(file), fi.ModTime())
				}
				gitCmd(t, repo, "prune", "--expire=1.day.ago")
				if packed {
					gitCmd(t, repo, "repack", "-a", "-d", "-q", "--unpack-unreachable=1.day.ago")
				}
				gitCmd(t, repo, "cat-file", "-e", h.String())
			})
		}
	}
}
