package vcs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

func tree(t *testing.T, s vcs.Store, files map[string]string) vcs.Hash {
	t.Helper()
	root, _ := vcs.WriteTree(s, nil)
	var entries []vcs.PathEntry
	for p, c := range files {
		id, _ := s.WriteObject(vcs.BlobObject, []byte(c))
		entries = append(entries, vcs.PathEntry{Path: p, Mode: vcs.ModeFile, ID: id})
	}
	root, err := vcs.Overlay(s, root, entries)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestDiffTrees(t *testing.T) {
	s := vcs.NewMemStore()
	for _, tc := range []struct {
		name string
		a, b map[string]string
		want string
	}{
		{"nothing", map[string]string{"a": "1"}, map[string]string{"a": "1"}, ""},
		{"add-modify-delete", map[string]string{"a": "1", "d/b": "2", "gone": "3"}, map[string]string{"a": "1*", "d/b": "2", "d/new": "4"},
			"M a; A d/new; D gone"},
		{"rename", map[string]string{"old/name.go": "same content"}, map[string]string{"new/name.go": "same content"},
			"R old/name.go->new/name.go"},
		{"file-becomes-dir", map[string]string{"x": "f"}, map[string]string{"x/y": "f2"}, "D x; A x/y"},
		{"from-empty", nil, map[string]string{"a/b/c": "1"}, "A a/b/c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := vcs.ZeroHash, tree(t, s, tc.b)
			if tc.a != nil {
				a = tree(t, s, tc.a)
			}
			changes, err := vcs.DiffTrees(s, a, b)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				if c.Status == vcs.Renamed {
					got = append(got, fmt.Sprintf("R %s->%s", c.From, c.Path))
				} else {
					got = append(got, c.Status+" "+c.Path)
				}
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Fatalf("diff = %q, want %q", g, tc.want)
			}
		})
	}
}

func TestOverlay(t *testing.T) {
	s := vcs.NewMemStore()
	root := tree(t, s, map[string]string{"a/b": "1", "c": "2"})
	id, _ := s.WriteObject(vcs.BlobObject, []byte("3"))
	root2, err := vcs.Overlay(s, root, []vcs.PathEntry{
		{Path: "a/new/deep", Mode: vcs.ModeFile, ID: id},
		{Path: "c"}, // zero id removes
	})
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := vcs.DiffTrees(s, root, root2)
	if len(changes) != 2 || changes[0].Path != "a/new/deep" || changes[0].Status != vcs.Added || changes[1].Path != "c" || changes[1].Status != vcs.Deleted {
		t.Fatalf("overlay changes = %+v", changes)
	}
}
