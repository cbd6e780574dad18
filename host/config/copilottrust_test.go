package hostconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// jsonString is s as a JSON string: a Windows path's backslashes escaped.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// docs/HOSTS.md, "GitHub Copilot CLI": doctor reads trustedFolders of
// Copilot's config.json (its comment lines dropped); a listed folder trusts
// the files below it, and nothing else does.
func TestCopilotTrusts(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	root := filepath.Join(dir, "work", "repo")
	for _, tc := range []struct {
		name, content string
		trusted, ok   bool
	}{
		{"no config", "", false, true},
		{"the folder", "// User settings belong in settings.json.\n// This file is managed automatically.\n{\"trustedFolders\": [" + jsonString(root) + "]}\n", true, true},
		{"a folder above it", `{"firstLaunchAt": "2026-03-11T00:00:00.000Z", "trustedFolders": [` + jsonString(filepath.Join(dir, "work")) + `]}`, true, true},
		{"the older key", `{"trusted_folders": [` + jsonString(root) + `]}`, true, true},
		{"a sibling with the same prefix", `{"trustedFolders": [` + jsonString(root+"-old") + `, ` + jsonString(filepath.Join(dir, "wor")) + `]}`, false, true},
		{"a relative entry", `{"trustedFolders": ["repo", "."]}`, false, true},
		{"not JSON", "{trustedFolders", false, false},
	} {
		os.Remove(cfg)
		if tc.name != "no config" {
			if err := os.WriteFile(cfg, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if trusted, ok := copilotTrusts(cfg, root); trusted != tc.trusted || ok != tc.ok {
			t.Errorf("%s: trusted %v ok %v; want %v %v", tc.name, trusted, ok, tc.trusted, tc.ok)
		}
	}
	os.Remove(cfg)
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := copilotTrusts(cfg, root); ok {
		t.Error("a directory in the config's place read as a config")
	}
}
