package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// fileRuleWS is a workspace with a file outside it, a .git directory
// holding a config, and a .env, for the file rule's tests.
func fileRuleWS(t *testing.T) (w *workspace.Workspace, root, outside string) {
	t.Helper()
	root = realpath(t, t.TempDir())
	outside = realpath(t, t.TempDir())
	for p, data := range map[string]string{
		filepath.Join(outside, "secret"):    "AKIA outside\n",
		filepath.Join(root, ".git/config"):  "[remote]\n\turl = https://u:TOKEN@h/r\n",
		filepath.Join(root, ".env"):         "TOKEN=hunter2\n",
		filepath.Join(root, "docs/plan.md"): "# Plan\n\n1. one\n",
		filepath.Join(root, ".ctxgit/x"):    "",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openWS(t, root), root, outside
}

func link(t *testing.T, target, at string) {
	t.Helper()
	os.Remove(at)
	wstest.Symlink(t, target, at)
}

// SPEC §3.4: a state file is read through links only while they stay in
// the workspace, never into .git or to a secret, and only as a regular
// file; every refusal names the file, says why and is bad input (exit 3).
func TestReadStateFileRule(t *testing.T) {
	w, root, outside := fileRuleWS(t)
	plan := filepath.Join(root, ".active-plan.md")
	for _, c := range []struct {
		target, want, why string
	}{
		{"docs/plan.md", "", ""}, // in the workspace: followed
		{filepath.Join(outside, "secret"), "is a symbolic link to " + outside + "/secret, outside the workspace: not read", "outside the workspace"},
		{"../" + filepath.Base(outside) + "/secret", "outside the workspace: not read", "outside the workspace"},
		{".git/config", "leads to .git/config through a symbolic link, inside .git or .ctxgit/local: not read", "in .git or .ctxgit/local"},
		{".env", `leads to .env and matches the secret pattern ".env*": not read`, `a secret (".env*")`},
	} {
		link(t, c.target, plan)
		data, err := w.ReadStateFile(".active-plan.md", 1<<20)
		if c.want == "" {
			if err != nil || !strings.Contains(string(data), "1. one") {
				t.Errorf("-> %s: %q, %v; want the plan read", c.target, data, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), ".active-plan.md: ") {
			t.Errorf("-> %s: %q, %v; want %q", c.target, data, err, c.want)
		}
		if !errors.Is(err, workspace.ErrRefused) || spec.ExitCode(err) != spec.ExitInvalid {
			t.Errorf("-> %s: %v is not a refusal of exit 3", c.target, err)
		}
		if why, _ := workspace.Refusal(err); why != c.why {
			t.Errorf("-> %s: reason %q, want %q", c.target, why, c.why)
		}
	}
	// A directory on the way that leads out.
	link(t, outside, filepath.Join(root, "out"))
	if _, err := w.ReadStateFile("out/secret", 1<<20); err == nil || !strings.Contains(err.Error(), "out/secret: out is a symbolic link to "+outside) {
		t.Errorf("through a linked directory: %v", err)
	}
	// Missing is not refused: it is missing.
	os.Remove(plan)
	if _, err := w.ReadStateFile(".active-plan.md", 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	// Over the bound: refused unread, exit 3.
	os.WriteFile(plan, make([]byte, 2048), 0o644)
	if _, err := w.ReadStateFile(".active-plan.md", 1024); !errors.Is(err, workspace.ErrTooLarge) || spec.ExitCode(err) != spec.ExitInvalid {
		t.Errorf("too large: %v", err)
	}
}

// Writes land in the workspace or nowhere: a state file linked out, into
// .git, to a secret or dangling is not written, and neither is one behind
// a directory linked out (issue 32 defect 3); one linked within the
// workspace is written through, the link kept (SPEC §3.3).
func TestWriteStateFileRule(t *testing.T) {
	w, root, outside := fileRuleWS(t)
	dec := filepath.Join(root, ".ctxgit", "decisions.md")
	for _, target := range []string{filepath.Join(outside, "secret"), "../.git/config", "../.env", "../docs/missing.md"} {
		link(t, target, dec)
		if err := w.WriteStateFile(".ctxgit/decisions.md", []byte("x\n")); !errors.Is(err, workspace.ErrRefused) {
			t.Errorf("-> %s: %v, want refused", target, err)
		}
	}
	link(t, outside, filepath.Join(root, "docs2"))
	if err := w.WriteStateFile("docs2/decisions.md", []byte("x\n")); !errors.Is(err, workspace.ErrRefused) {
		t.Errorf("through docs2 -> outside: %v, want refused", err)
	}
	link(t, "../docs/plan.md", dec)
	if err := w.WriteStateFile(".ctxgit/decisions.md", []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "docs/plan.md")); string(data) != "new\n" {
		t.Errorf("the link's target holds %q", data)
	}
	if fi, err := os.Lstat(dec); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	for p, want := range map[string]string{
		filepath.Join(outside, "secret"):   "AKIA outside\n",
		filepath.Join(root, ".git/config"): "[remote]\n\turl = https://u:TOKEN@h/r\n",
		filepath.Join(root, ".env"):        "TOKEN=hunter2\n",
	} {
		if data, _ := os.ReadFile(p); string(data) != want {
			t.Errorf("%s now %q", p, data)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("%d entries outside, want the 1 there before", len(entries))
	}
}

// A config that sets a state path naming a secret, or one a link on the
// way leads out of the workspace or into .git, is refused as it loads,
// at its line; the defaults and a path linked within are fine.
func TestConfigStatePathsChecked(t *testing.T) {
	_, root, outside := fileRuleWS(t)
	link(t, outside, filepath.Join(root, "out"))
	link(t, ".git", filepath.Join(root, "g"))
	link(t, "docs", filepath.Join(root, "notes"))
	cfg := filepath.Join(root, filepath.FromSlash(spec.ConfigPath))
	for _, c := range []struct{ yaml, want string }{
		{"paths:\n  failure_log: .env\n", `.ctxgit/config.yaml:3: paths.failure_log: ".env" matches the secret pattern ".env*"`},
		{"paths:\n  plan: keys/id_rsa\n", `.ctxgit/config.yaml:3: paths.plan: "keys/id_rsa" matches the secret pattern "id_rsa*"`},
		{"paths:\n  decisions: out/d.md\n", ".ctxgit/config.yaml:3: paths.decisions: out/d.md: out is a symbolic link to " + outside + ", outside the workspace: not used"},
		{"paths:\n  summaries: g/s\n", ".ctxgit/config.yaml:3: paths.summaries: g/s: leads to .git/s through a symbolic link, inside .git or .ctxgit/local: not used"},
		{"paths:\n  plan: notes/plan.md\n", ""},
		{"", ""},
	} {
		os.WriteFile(cfg, []byte("version: 1\n"+c.yaml), 0o644)
		_, err := workspace.Open(testEnv(root, nil), root)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.yaml, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || spec.ExitCode(err) != spec.ExitInvalid):
			t.Errorf("%q: %v, want %q (exit 3)", c.yaml, err, c.want)
		}
	}
	// The config itself linked out of the workspace is not read.
	os.WriteFile(filepath.Join(outside, "config.yaml"), []byte("version: 1\n"), 0o644)
	link(t, filepath.Join(outside, "config.yaml"), cfg)
	if _, err := workspace.Open(testEnv(root, nil), root); err == nil || err.Error() != ".ctxgit/config.yaml: is a symbolic link, not a regular file: not read" || spec.ExitCode(err) != spec.ExitInvalid {
		t.Errorf("a linked config: %v", err)
	}
}

// Under .ctxgit/local/ no link is followed at all: not a directory on the
// way, not the file itself, dangling or not (issue 32 defects 1, 4, 11).
func TestLocalFilesNoLinks(t *testing.T) {
	_, root, outside := fileRuleWS(t)
	local := filepath.Join(root, ".ctxgit", "local")
	os.MkdirAll(filepath.Join(local, "hooks-ran"), 0o755)
	link(t, outside, filepath.Join(local, "nudge"))
	link(t, filepath.Join(outside, "secret"), filepath.Join(local, "ctxgit.log"))
	link(t, filepath.Join(outside, "nologin"), filepath.Join(local, "hooks-ran", "claude-code.session-start"))
	link(t, "/dev/zero", filepath.Join(local, "hookpath.json"))

	nudge := filepath.Join(local, "nudge", "s.json")
	if err := workspace.WriteLocal(root, nudge, []byte("{}"), 0o644); err == nil || err.Error() != ".ctxgit/local/nudge: is a symbolic link: ctxgit reads and writes nothing through it" {
		t.Errorf("WriteLocal through a linked directory: %v", err)
	}
	if _, err := workspace.ReadLocal(root, nudge, 1<<10); !errors.Is(err, workspace.ErrRefused) {
		t.Errorf("ReadLocal through a linked directory: %v", err)
	}
	if workspace.LocalExists(root, nudge) || workspace.RemoveLocal(root, nudge) == nil {
		t.Error("a marker behind a linked directory exists or was removed")
	}
	if err := workspace.AppendLocal(root, filepath.Join(local, "ctxgit.log"), []byte("$(touch PWNED)\n")); !errors.Is(err, workspace.ErrRefused) {
		t.Errorf("AppendLocal to a link: %v", err)
	}
	wstest.Within(t, "ReadLocal(/dev/zero)", func() {
		if _, err := workspace.ReadLocal(root, filepath.Join(local, "hookpath.json"), 1<<10); !errors.Is(err, workspace.ErrRefused) {
			t.Errorf("ReadLocal of a link to /dev/zero: %v", err)
		}
	})
	workspace.MarkHookRan(root, "claude-code", "session-start")
	if _, err := os.Lstat(filepath.Join(outside, "nologin")); err == nil {
		t.Error("MarkHookRan created the dangling link's target")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "AKIA outside\n" {
		t.Errorf("the log link's target now %q", data)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("%d entries outside, want the 1 there before", len(entries))
	}
	// Replaced by real directories and files, the same calls work.
	os.Remove(filepath.Join(local, "nudge"))
	if err := workspace.WriteLocal(root, nudge, []byte("{}"), 0o644); err != nil || !workspace.LocalExists(root, nudge) {
		t.Errorf("WriteLocal: %v", err)
	}
}
