package retention_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/retention"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
)

// Issue 17 item 6: doctor --fix interrupted at any check of its repack
// returns context.Canceled and no result, and leaves the store as it was:
// no pack published, no loose object deleted, no lock or temporary file
// left. Run to the end, it repacks.
func TestDoctorFixCancelled(t *testing.T) {
	w, now := pruneWorkspace(t)
	for i := range 4 {
		checkpointAt(t, w, now, fixedNow.Add(time.Duration(i)*time.Minute), "default", fmt.Sprintf("f%d.txt", i), fmt.Sprint(i))
	}
	storeDir := w.Path(spec.PrivateStoreDir)
	before := wstest.TreeFiles(t, storeDir)
	loose := 0
	for p := range before {
		if strings.HasPrefix(p, "objects/") && !strings.HasPrefix(p, "objects/pack/") && !strings.HasPrefix(p, "objects/info/") {
			loose++
		}
	}
	if loose < 10 {
		t.Fatalf("%d loose objects before the repack: too few to interrupt it between them", loose)
	}
	interrupted := 0
	for n := 0; ; n++ {
		if n > 2000 {
			t.Fatal("doctor --fix never finished")
		}
		res, err := retention.Doctor(w, retention.DoctorOptions{Fix: true, LooseThreshold: 1, Ctx: vcstest.CancelAfter(n)}, nil)
		if left := wstest.Leftovers(wstest.TreeFiles(t, w.Root)); len(left) > 0 {
			t.Fatalf("interrupted at check %d: left %v", n, left)
		}
		if err == nil {
			if f := findingOf(res, "objects"); f == nil || !f.Fixed || !strings.HasPrefix(f.Fix, "repacked: ") {
				t.Fatalf("finished doctor --fix after %d interruptions: objects finding %+v", interrupted, f)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("interrupted at check %d: %v, %+v; want context.Canceled and no result", n, err, res)
		}
		interrupted++
		if after := wstest.TreeFiles(t, storeDir); !maps.Equal(after, before) {
			t.Fatalf("interrupted at check %d: the store changed", n)
		}
	}
	// One check per object walked, and one before the pack is renamed
	// into place.
	if interrupted < loose {
		t.Fatalf("interrupted %d times with %d loose objects: the repack is not checked between them", interrupted, loose)
	}
	if after := wstest.TreeFiles(t, storeDir); maps.Equal(after, before) {
		t.Fatal("the finished repack changed nothing")
	}
}

func findingOf(r *retention.DoctorResult, check string) *retention.Finding {
	for i := range r.Findings {
		if r.Findings[i].Check == check {
			return &r.Findings[i]
		}
	}
	return nil
}

// Interrupted before any fix, doctor --fix removes nothing, not even where
// no repack was due: a dead writer's temporary file stays.
func TestDoctorFixInterruptedFixesNothing(t *testing.T) {
	w, now := pruneWorkspace(t)
	checkpointAt(t, w, now, fixedNow, "default", "a.txt", "a")
	tmp := w.Path(spec.PrivateStoreDir + "/objects/pack/tmp_pack_ctxgit_999999999_1")
	if err := os.WriteFile(tmp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := retention.Doctor(w, retention.DoctorOptions{Fix: true, LooseThreshold: 1 << 20, Ctx: ctx}, nil)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("doctor --fix after Ctrl-C: %v, %+v; want context.Canceled and no result", err, res)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the temporary file was removed after the interrupt: %v", err)
	}
	res, err = retention.Doctor(w, retention.DoctorOptions{Fix: true, LooseThreshold: 1 << 20, Ctx: context.Background()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := findingOf(res, "temp"); f == nil || !f.Fixed {
		t.Fatalf("uninterrupted: temp finding %+v, want fixed", f)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("an uninterrupted doctor --fix left the dead writer's temporary file: %v", err)
	}
}
