package vcs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

// Issue 13 item 13, SPEC §14.4: which temporary files of the object
// directory may go. git's own wait for git prune's two weeks in a shared
// repository; ctxgit's go once their writer is gone (after a minute, for
// a writer on another host); a running writer's stay.
func TestClassifyTemp(t *testing.T) {
	dead, live := wstest.ExitedPID(t), os.Getpid()
	const hour, day = time.Hour, 24 * time.Hour
	cases := []struct {
		name      string
		age       time.Duration
		private   bool
		temp      bool
		ours      bool
		removable bool
	}{
		{"tmp_obj_Ab12Cd", 2 * hour, false, true, false, false},
		{"tmp_obj_Ab12Cd", 15 * day, false, true, false, true},
		{"tmp_pack_Ab12Cd", 2 * hour, true, true, true, true},
		{"tmp_pack_Ab12Cd", time.Minute, true, true, true, false},
		{fmt.Sprintf("tmp_obj_ctxgit_%d_1", dead), 2 * time.Minute, false, true, true, true},
		{fmt.Sprintf("tmp_obj_ctxgit_%d_1", dead), 10 * time.Second, false, true, true, false},
		{fmt.Sprintf("tmp_pack_ctxgit_%d_1", live), 2 * hour, false, true, true, false},
		{fmt.Sprintf("tmp_pack_ctxgit_%d_1", live), 15 * day, false, true, true, true},
		{fmt.Sprintf(".ctxgit-tmp-%d-pack-1.idx.9", dead), 2 * time.Minute, false, true, true, true},
		{fmt.Sprintf(".ctxgit-tmp-%d-pack-1.idx.9", live), 2 * hour, false, true, true, false},
		{".pack-1.idx.tmp-9", 2 * hour, false, true, true, true},
		{"pack-1.pack", 15 * day, false, false, false, false},
		{"ab", 15 * day, true, false, false, false},
	}
	for _, c := range cases {
		temp, ours, removable := classifyTemp(c.name, c.age, c.private)
		if temp != c.temp || ours != c.ours || removable != c.removable {
			t.Errorf("%s, %v old, private %v: temp %v ours %v removable %v; want %v %v %v",
				c.name, c.age, c.private, temp, ours, removable, c.temp, c.ours, c.removable)
		}
	}
}

// SPEC §14.4: a pack whose index a kill kept from being written (or a
// repack's deletion, index first, left behind) is an interrupted write's
// leftover: listed, and removable once past the temporary files' age.
// A pack with its index is never listed.
func TestOrphanPacks(t *testing.T) {
	for _, private := range []bool{true, false} {
		dir := t.TempDir()
		g, err := InitPrivate(dir)
		if err != nil {
			t.Fatal(err)
		}
		pack := filepath.Join(g.objDir, "pack")
		if err := os.MkdirAll(pack, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(name string, age time.Duration) {
			p := filepath.Join(pack, name)
			if err := os.WriteFile(p, []byte("PACK"), 0o644); err != nil {
				t.Fatal(err)
			}
			when := time.Now().Add(-age)
			if err := os.Chtimes(p, when, when); err != nil {
				t.Fatal(err)
			}
		}
		write("pack-aa.pack", 3*time.Hour)
		write("pack-aa.idx", 3*time.Hour)
		write("pack-bb.pack", 3*time.Hour)     // orphan, old
		write("pack-cc.pack", time.Minute)     // orphan, young: a writer may be about to add its index
		write("pack-dd.pack", 15*24*time.Hour) // orphan, past git's two weeks
		write("pack-ee.pack", 15*24*time.Hour) // no index but kept: never an orphan
		write("pack-ee.keep", 15*24*time.Hour)
		// The files git keeps beside a pack go with an orphan, and only
		// with it.
		siblings := []string{".rev", ".bitmap", ".mtimes", ".promisor"}
		for _, ext := range siblings {
			for _, base := range []string{"pack-bb", "pack-cc", "pack-ee"} {
				write(base+ext, 15*24*time.Hour)
			}
		}
		files, err := g.TempFiles(private)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range files {
			got[filepath.Base(f.Path)] = f.Removable
			// Any writer may leave a pack without an index, and its
			// name does not say which: git runs in a private store too.
			if f.Ours {
				t.Errorf("private %v: %s listed as ctxgit's", private, f.Path)
			}
		}
		want := map[string]bool{"pack-bb.pack": private, "pack-cc.pack": false, "pack-dd.pack": true}
		if len(got) != len(want) {
			t.Errorf("private %v: listed %v, want %v", private, got, want)
		}
		for name, removable := range want {
			if r, ok := got[name]; !ok || r != removable {
				t.Errorf("private %v: %s listed %v removable %v, want removable %v", private, name, ok, r, removable)
			}
		}
		if _, _, err := g.RemoveStaleTemp(private); err != nil {
			t.Fatal(err)
		}
		for name, removable := range want {
			_, err := os.Stat(filepath.Join(pack, name))
			if gone := os.IsNotExist(err); gone != removable {
				t.Errorf("private %v: %s removed %v, want %v", private, name, gone, removable)
			}
		}
		for _, ext := range siblings {
			for base, removed := range map[string]bool{"pack-bb": private, "pack-cc": false, "pack-ee": false} {
				_, err := os.Stat(filepath.Join(pack, base+ext))
				if gone := os.IsNotExist(err); gone != removed {
					t.Errorf("private %v: %s%s removed %v, want %v", private, base, ext, gone, removed)
				}
			}
		}
		for _, name := range []string{"pack-aa.pack", "pack-aa.idx", "pack-ee.pack", "pack-ee.keep"} {
			if _, err := os.Stat(filepath.Join(pack, name)); err != nil {
				t.Errorf("private %v: %s was removed: %v", private, name, err)
			}
		}
	}
}
