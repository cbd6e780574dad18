package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 17 item 6: doctor runs its --fix repack under the command's
// context, so Ctrl-C stops it before the repack publishes anything (the
// interruption's one line and exit 130 are app.run's, for every command;
// retention's TestDoctorFixCancelled interrupts it at each check).
func TestDoctorFixUnderCommandContext(t *testing.T) {
	dir := t.TempDir()
	run := func(ctx context.Context, args ...string) (string, error) {
		var out, errOut bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errOut)
		err := a.cli.RunContext(ctx, append([]string{"ctxgit"}, append(args, "--root", dir)...))
		return out.String() + errOut.String(), err
	}
	if out, err := run(context.Background(), "init"); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run(context.Background(), "checkpoint"); err != nil {
			t.Fatalf("checkpoint: %v\n%s", err, out)
		}
	}
	objects := func() []string {
		found, err := filepath.Glob(filepath.Join(dir, ".ctxgit", "store.git", "objects", "*", "*"))
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	before := objects()
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	// No finding is printed: an interrupted doctor reports nothing.
	if out, err := run(interrupted, "doctor", "--fix", "--max-loose", "1"); !errors.Is(err, context.Canceled) || out != "" {
		t.Fatalf("doctor --fix interrupted: %v, want context.Canceled and no output; printed:\n%s", err, out)
	}
	if after := objects(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("an interrupted doctor --fix changed the objects:\n%v\n→\n%v", before, after)
	}
	out, err := run(context.Background(), "doctor", "--fix", "--max-loose", "1")
	if err != nil || !strings.Contains(out, "→ repacked: ") {
		t.Fatalf("doctor --fix: %v\n%s", err, out)
	}
}
