//go:build unix

package hostconfig

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Issue 32: the folder an earlier version left in the repository is the
// repository's, so a clone decides what is there. A committed hooks/
// linked to another folder holding ctxgit's files (another project's old
// install, the user's managed folder) is not the old folder: install
// removes nothing there and doctor reads nothing there. A HOOK.md linked
// to /dev/zero is not read (doctor read it without end, then ran out of
// memory), nor one that is a FIFO waited on.
func TestOpenClawOldFolderThroughLinks(t *testing.T) {
	dir := openclawState(t)
	base := t.TempDir()
	elsewhere := filepath.Join(base, "elsewhere")
	writeFile(t, elsewhere, "ctxgit/HOOK.md", "# ctxgit\n\n"+openclawMarker+"; old -->\n")
	writeFile(t, elsewhere, "ctxgit/handler.ts", "const COMMAND: string = \"ctxgit\";\n")
	root := filepath.Join(base, "clone")
	os.MkdirAll(root, 0o755)
	if err := os.Symlink("../elsewhere", filepath.Join(root, "hooks")); err != nil {
		t.Fatal(err)
	}
	if in := Inspect(root); len(in) != 0 {
		t.Errorf("Inspect through a linked hooks/ = %+v, want nothing", in)
	}
	install(t, Options{Root: root, Host: OpenClaw})
	for _, f := range []string{"ctxgit/HOOK.md", "ctxgit/handler.ts"} {
		if readFile(t, elsewhere, f) == "" {
			t.Errorf("install removed %s through the repository's hooks/ link", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "HOOK.md")); err != nil {
		t.Errorf("the managed folder was not installed: %v", err)
	}

	for name, make := range map[string]func(string) error{
		"/dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"FIFO":      func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "hooks", "ctxgit"), 0o755)
			if err := make(filepath.Join(root, "hooks", "ctxgit", "HOOK.md")); err != nil {
				t.Fatal(err)
			}
			in := Inspect(root)
			if len(in) != 1 || in[0].Err == nil {
				t.Errorf("Inspect of a HOOK.md that is %s = %+v, want it refused", name, in)
			}
			install(t, Options{Root: root, Host: OpenClaw})
		})
	}
}

// Codex's config.toml, like Copilot's config.json, is read opened
// without blocking: one that is a FIFO (or a link to one) is "cannot
// read", not a doctor that waits for a writer.
func TestCodexConfigFIFONotWaitedOn(t *testing.T) {
	home := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(home, "config.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := readCodexTrust(t.TempDir(), func(k string) string { return map[string]string{"CODEX_HOME": home}[k] })
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Errorf("readCodexTrust of a FIFO config: ok, want cannot read")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readCodexTrust waited on a FIFO config.toml")
	}
}
