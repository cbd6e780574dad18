package vcs

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Issue 13 item 13, SPEC §14.4: which temporary files of the object
// directory may go. git's own wait for git prune's two weeks in a shared
// repository; ctxgit's go once their writer is gone (after a minute, for
// a writer on another host); a running writer's stay.
func TestClassifyTemp(t *testing.T) {
	gone := exec.Command("git", "--version")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead, live := gone.Process.Pid, os.Getpid()
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
