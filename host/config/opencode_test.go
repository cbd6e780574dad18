package hostconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// docs/HOSTS.md, "opencode": init writes ctxgit's plugin, opened by its
// marker, with the program as a JSON string (a path with spaces and
// quotes needs no shell quoting: the plugin spawns it with no shell); a
// second install changes nothing; doctor reads back the program and says
// when the file is not what this version writes; uninstall removes the
// file and the folders it alone made.
func TestOpenCodeInstall(t *testing.T) {
	root := t.TempDir()
	prog := `/opt/my tools/"ctx"/ctxgit`
	res := install(t, Options{Root: root, Host: OpenCode, Program: prog})
	if !res.Changed || res.Path != opencodePluginFile || res.Backup != "" {
		t.Fatalf("install: %+v", res)
	}
	if want := opencodeEntries(prog); !reflect.DeepEqual(res.Added, want) {
		t.Errorf("Added = %q, want %q", res.Added, want)
	}
	data := readFile(t, root, opencodePluginFile)
	if !ownPlugin([]byte(data)) || !strings.Contains(data, `const COMMAND = "/opt/my tools/\"ctx\"/ctxgit";`) || strings.Contains(data, "__CTXGIT_COMMAND__") {
		t.Fatalf("plugin file:\n%s", data)
	}
	if got := pluginCommand([]byte(data), ""); got != prog {
		t.Errorf("pluginCommand = %q, want %q", got, prog)
	}
	if res := install(t, Options{Root: root, Host: OpenCode, Program: prog}); res.Changed {
		t.Errorf("second install changed %+v", res)
	}
	in, ok := inspectOpenCode(root)
	if !ok || in.Err != nil || !reflect.DeepEqual(in.Programs, []string{prog}) || len(in.Outdated) != 0 || len(in.Entries) != 3 {
		t.Errorf("inspect: %+v %v", in, ok)
	}
	writeFile(t, root, opencodePluginFile, data+"// edited\n")
	if in, _ := inspectOpenCode(root); !reflect.DeepEqual(in.Outdated, []string{"ctxgit.js"}) {
		t.Errorf("an edited plugin: Outdated = %q", in.Outdated)
	}
	res = install(t, Options{Root: root, Host: OpenCode, Program: prog, Uninstall: true})
	if !res.Changed || res.Backup == "" {
		t.Errorf("uninstall: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, ".opencode")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".opencode left after uninstall: %v", err)
	}
}

// A plugin of ctxgit's name that is not ctxgit's (one a repository
// committed) is refused, install and uninstall alike, and left as it is;
// a folder beside ctxgit's file stays.
func TestOpenCodeForeignPlugin(t *testing.T) {
	root := t.TempDir()
	theirs := "export const Theirs = async () => ({})\n"
	writeFile(t, root, opencodePluginFile, theirs)
	for _, uninstall := range []bool{false, true} {
		_, err := Install(Options{Root: root, Host: OpenCode, Uninstall: uninstall, Now: fixedNow})
		if !errors.Is(err, spec.ErrInvalid) || !strings.Contains(err.Error(), "not ctxgit's") {
			t.Errorf("uninstall=%v: %v; want a refusal", uninstall, err)
		}
	}
	if got := readFile(t, root, opencodePluginFile); got != theirs {
		t.Errorf("the foreign plugin became\n%s", got)
	}
	if _, ok := inspectOpenCode(root); ok {
		t.Error("doctor reported a plugin that is not ctxgit's")
	}
	os.Remove(filepath.Join(root, filepath.FromSlash(opencodePluginFile)))
	writeFile(t, root, ".opencode/plugins/other.js", theirs)
	install(t, Options{Root: root, Host: OpenCode})
	install(t, Options{Root: root, Host: OpenCode, Uninstall: true})
	if got := readFile(t, root, ".opencode/plugins/other.js"); got != theirs {
		t.Errorf("another plugin became %q", got)
	}
}
