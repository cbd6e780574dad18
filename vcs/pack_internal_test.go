package vcs

import (
	"os"
	"testing"
)

// writeTestPack writes one pack holding the given blobs into dir.
func writeTestPack(t *testing.T, dir string, blobs ...string) (*packWriter, error) {
	t.Helper()
	pw, err := newPackWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blobs {
		e, err := compressPackEntry(BlobObject, []byte(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := pw.append(HashObject(BlobObject, []byte(b)), e); err != nil {
			t.Fatal(err)
		}
	}
	return pw, pw.finish()
}

// A pack written again under the name of a pack already in place (same
// objects, same name) whose index then cannot be written leaves the pack
// that was there: it was not this writer's to remove.
func TestPackIndexFailureKeepsExistingPack(t *testing.T) {
	dir := t.TempDir()
	first, err := writeTestPack(t, dir, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	base := first.base
	// A directory where the index goes makes writing the index fail.
	if err := os.Remove(base + ".idx"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(base+".idx", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := writeTestPack(t, dir, "a", "b"); err == nil {
		t.Fatal("finish succeeded with a directory in the index's place")
	}
	if _, err := os.Stat(base + ".pack"); err != nil {
		t.Fatalf("the pack already in place was removed: %v", err)
	}
}

// A new pack whose index cannot be written is removed with it.
func TestPackIndexFailureRemovesNewPack(t *testing.T) {
	dir := t.TempDir()
	first, err := writeTestPack(t, dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	base := first.base
	for _, ext := range []string{".idx", ".pack"} {
		if err := os.Remove(base + ext); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(base+".idx", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := writeTestPack(t, dir, "c"); err == nil {
		t.Fatal("finish succeeded with a directory in the index's place")
	}
	if _, err := os.Stat(base + ".pack"); !os.IsNotExist(err) {
		t.Fatalf("the new pack was left behind without its index: %v", err)
	}
}
