package vcs_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 13 item 15: OpenBlob streams a blob from a loose object and from
// a pack, with its size; a truncated object fails the stream instead of
// ending it short, and what is not a blob is refused.
func TestOpenBlob(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store.git")
	s, err := vcs.InitPrivate(dir)
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("stream me\n"), 100_000)
	id, err := s.WriteObject(vcs.BlobObject, content)
	if err != nil {
		t.Fatal(err)
	}
	read := func(stage string) {
		t.Helper()
		rc, size, err := s.OpenBlob(id)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		defer rc.Close()
		got, err := io.ReadAll(rc)
		if err != nil || size != int64(len(content)) || !bytes.Equal(got, content) {
			t.Fatalf("%s: %d bytes of %d (size %d), %v", stage, len(got), len(content), size, err)
		}
		hw := vcs.NewBlobHasher(size)
		hw.Write(got)
		if hw.Sum() != id {
			t.Fatalf("%s: BlobHasher gives %s, want %s", stage, hw.Sum(), id)
		}
	}
	read("loose")

	tree, err := s.WriteObject(vcs.TreeObject, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.OpenBlob(tree); err == nil || !strings.Contains(err.Error(), "not a blob") {
		t.Fatalf("OpenBlob of a tree = %v", err)
	}

	// Truncated: the stream fails, it does not end early.
	loose := filepath.Join(dir, "objects", id.String()[:2], id.String()[2:])
	whole, err := os.ReadFile(loose)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(loose, 0o644)
	if err := os.WriteFile(loose, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, _, err := s.OpenBlob(id); err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err == nil {
			t.Fatal("a truncated object read as whole")
		}
	}
	if err := os.WriteFile(loose, whole, 0o444); err != nil {
		t.Fatal(err)
	}

	if _, err := s.Repack(context.Background(), vcs.RepackAll, []vcs.Hash{id}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(loose); err == nil {
		t.Fatal("the repack left the loose object: the pack path is not tested")
	}
	read("pack")
}
