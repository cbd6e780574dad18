package hostconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// docs/HOSTS.md, "Codex CLI": the trust records doctor reads from Codex's
// config, in the forms TOML allows for them.
func TestTOMLStrings(t *testing.T) {
	doc := `# a comment
model = "gpt-5" # trailing comment
[projects.'C:\work\repo']
trust_level = "trusted"

[hooks.state."C:\\work\\repo\\.codex\\hooks.json:session_start:0:0"]
trusted_hash = "sha256:aa"
enabled = true

[hooks.state]
"/r/.codex/hooks.json:pre_compact:0:0" = { trusted_hash = "sha256:bb", enabled = false }
"/r/.codex/hooks.json:session_end:0:0".trusted_hash = "sha256:\u0063c"

[[skills]]
trusted_hash = "not a hook"
`
	got := tomlStrings(doc)
	want := map[string]string{
		tomlKey("model"): "gpt-5",
		tomlKey("projects", `C:\work\repo`, "trust_level"):                                            "trusted",
		tomlKey("hooks", "state", `C:\work\repo\.codex\hooks.json:session_start:0:0`, "trusted_hash"): "sha256:aa",
		tomlKey("hooks", "state", "/r/.codex/hooks.json:pre_compact:0:0", "trusted_hash"):             "sha256:bb",
		tomlKey("hooks", "state", "/r/.codex/hooks.json:session_end:0:0", "trusted_hash"):             "sha256:cc",
		tomlKey("[]", "skills", "trusted_hash"):                                                       "not a hook",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tomlStrings:\n got %q\nwant %q", got, want)
	}
	// Broken lines are skipped, never misread.
	if got := tomlStrings("[hooks.state.\"open\ntrusted_hash = \"x\n= \"y\"\n"); len(got) != 0 {
		t.Errorf("broken TOML read as %q", got)
	}
}

// Trust keys name the event in snake case, with the group and handler
// index of each of ctxgit's entries.
func TestReadCodexTrust(t *testing.T) {
	root := t.TempDir()
	install(t, Options{Root: root, Host: Codex})
	home := t.TempDir()
	hooks := filepath.Join(root, ".codex", "hooks.json")
	cfg := "[projects." + codexTOMLKey(filepath.Dir(root)) + "]\ntrust_level = \"trusted\"\n" +
		"[hooks.state." + codexTOMLKey(hooks+":post_tool_use:0:0") + "]\ntrusted_hash = \"sha256:1\"\n" +
		"[hooks.state." + codexTOMLKey(hooks+":post_tool_use:1:0") + "]\ntrusted_hash = \"sha256:2\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, ok := readCodexTrust(root, func(k string) string { return map[string]string{"CODEX_HOME": home}[k] })
	if !ok || !tr.ProjectTrusted || tr.Entries != 5 {
		t.Fatalf("trust %+v, ok %v: want the parent folder's trust and 5 entries", tr, ok)
	}
	if want := []string{"SessionStart", "PreCompact", "UserPromptSubmit", "SessionEnd"}; !reflect.DeepEqual(tr.Awaiting, want) {
		t.Errorf("awaiting %v, want %v", tr.Awaiting, want)
	}
	// On Windows a folder's name is the same in any case: Codex's
	// record of c:\users\… trusts C:\Users\… .
	if runtime.GOOS == "windows" {
		cfg := "[projects." + codexTOMLKey(strings.ToLower(filepath.Dir(root))) + "]\ntrust_level = \"trusted\"\n"
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		if tr, ok := readCodexTrust(root, func(k string) string { return map[string]string{"CODEX_HOME": home}[k] }); !ok || !tr.ProjectTrusted {
			t.Errorf("trust recorded in lower case: %+v, ok %v", tr, ok)
		}
	}
	if got := snakeCase("UserPromptSubmit"); got != "user_prompt_submit" {
		t.Errorf("snakeCase = %q", got)
	}
}

// codexTOMLKey quotes a key as Codex writes it (toml_edit): a literal
// string where the text has a backslash (every Windows path), else a
// basic one.
func codexTOMLKey(k string) string {
	if strings.Contains(k, `\`) && !strings.Contains(k, "'") {
		return "'" + k + "'"
	}
	return strconv.Quote(k)
}
