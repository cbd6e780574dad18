package hostconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain points OpenClaw's state directory at a folder of the test run's
// own: no test of this package writes into the user's ~/.openclaw.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxgit-openclaw-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("OPENCLAW_STATE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// openclawState gives the test a fresh OpenClaw state directory, outside
// the home directory (which it also makes the test's own: on Windows the
// temporary directory is inside the user's home, where ctxgit names the
// folder ~/…), and returns the hook folder ctxgit installs there.
func openclawState(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	state := t.TempDir()
	t.Setenv("OPENCLAW_STATE_DIR", state)
	return filepath.Join(state, "hooks", "ctxgit")
}

// OpenClaw resolves its state directory from OPENCLAW_STATE_DIR, else
// .openclaw in OPENCLAW_HOME, else in the home directory
// (src/config/paths.ts, resolveStateDir); ctxgit installs where it looks.
func TestOpenClawStateDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	// An absolute path as OpenClaw's path.resolve makes it: on Windows,
	// /srv/oc is on the current drive.
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct{ state, ochome, want string }{
		{"", "", filepath.Join(home, ".openclaw")},
		{"", "/srv/oc", filepath.Join(abs("/srv/oc"), ".openclaw")},
		{"~/state", "/srv/oc", filepath.Join(home, "state")},
		{"/var/oc", "", abs("/var/oc")},
	} {
		t.Setenv("OPENCLAW_STATE_DIR", tc.state)
		t.Setenv("OPENCLAW_HOME", tc.ochome)
		if got := OpenClawStateDir(); got != tc.want {
			t.Errorf("OPENCLAW_STATE_DIR=%q OPENCLAW_HOME=%q: %q, want %q", tc.state, tc.ochome, got, tc.want)
		}
	}
	t.Setenv("OPENCLAW_STATE_DIR", "")
	t.Setenv("OPENCLAW_HOME", "")
	if _, shown, err := openclawDir(); err != nil || shown != "~/.openclaw/hooks/ctxgit" {
		t.Errorf("shown %q, %v", shown, err)
	}
}

// Upgrading: the folder an earlier version wrote into the repository
// (OpenClaw found it only when the repository was the agent's workspace)
// is removed by install and by uninstall, with the hooks/ folder it
// emptied; someone else's folder there stays.
func TestOpenClawOldFolderMoved(t *testing.T) {
	dir := openclawState(t)
	root := t.TempDir()
	writeFile(t, root, "hooks/ctxgit/HOOK.md", "# ctxgit\n\n"+openclawMarker+"; old -->\n")
	writeFile(t, root, "hooks/ctxgit/handler.ts", "const COMMAND: string = \"ctxgit\";\n")
	if in := Inspect(root); len(in) != 1 || in[0].Path != "hooks/ctxgit" || len(in[0].Outdated) != 2 {
		t.Errorf("Inspect of the old folder = %+v", in)
	}
	res := install(t, Options{Root: root, Host: OpenClaw})
	if !res.Changed || res.Path != dir {
		t.Errorf("install %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "hooks")); !os.IsNotExist(err) {
		t.Errorf("old hooks/ folder left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "handler.ts")); err != nil {
		t.Error(err)
	}
	if in := Inspect(root); len(in) != 1 || in[0].Path != dir || len(in[0].Outdated) != 0 {
		t.Errorf("Inspect after the move = %+v", in)
	}

	writeFile(t, root, "hooks/ctxgit/HOOK.md", "# ctxgit\n\n"+openclawMarker+"; old -->\n")
	writeFile(t, root, "hooks/other/HOOK.md", "---\nname: other\n---\n")
	res = install(t, Options{Root: root, Host: OpenClaw, Uninstall: true})
	if !res.Changed {
		t.Errorf("uninstall %+v", res)
	}
	for _, gone := range []string{filepath.Join(root, "hooks", "ctxgit"), dir} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", gone, err)
		}
	}
	if readFile(t, root, "hooks/other/HOOK.md") == "" {
		t.Error("someone else's hook removed")
	}
	// OpenClaw's own hooks/ folder stays.
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		t.Errorf("OpenClaw's hooks/ removed: %v", err)
	}
}
