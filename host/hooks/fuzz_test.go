package hooks

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzHosts is every host, then the status line, in a fixed order so a
// corpus entry names the same call on every run.
func fuzzHosts() []string {
	hosts := make([]string, 0, len(Events)+1)
	for h := range Events {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	return append(hosts, "statusline")
}

// docs/cli.md#hook, SPEC §6.2: whatever a host sends, for any of its events, a
// hook neither panics nor writes output that is not what the host parses
// (JSON for the hosts that take JSON, valid UTF-8 for OpenClaw), and the
// refs it creates stay in refs/ctxgit/sessions/, one component deep, however
// hostile the session id.
func FuzzHandle(f *testing.F) {
	seeds := []string{
		`{"session_id":"s1","transcript_path":"t.jsonl","cwd":".","hook_event_name":"PreCompact","trigger":"auto"}`,
		`{"session_id":"../../heads/main","source":"compact"}`,
		`{"conversation_id":"c/../x.lock","workspace_roots":["/"],"context_usage_percent":91.5,"context_tokens":183000,"context_window_size":200000}`,
		`{"sessionKey":"agent:main:main","context":{"workspaceDir":"."}}`,
		`{"session_id":"s","context_window":{"context_window_size":200000,"current_usage":{"input_tokens":170000}}}`,
		`{"session_id":"s","context_window":{"context_window_size":0,"used_percentage":-1e308}}`,
		`{"session_id":"\u0000\n@{HEAD}","tool_name":"Bash"}`,
		`{"sessionId":"c15c3d93","cwd":".","transcriptPath":"../../events.jsonl","source":"resume","trigger":"manual"}`,
		`{"sessionId":"../x","cwd":"."}`,
		`{"session_id":"ses_1","cwd":".","tokens":{"input":-5,"cache":{"read":9e18,"write":1}},"contextWindow":0,"source":"compact"}`,
		`{"session_id":"q","cwd":".","context_usage":1e308,"context_limit":-1,"input_tokens":7}`,
		`[]`, `null`, `{"session_id":7}`,
	}
	hosts := fuzzHosts()
	for i, s := range seeds {
		f.Add(uint8(i), uint8(i/2), []byte(s))
	}
	dir := f.TempDir()
	store := filepath.Join(dir, ".ctxgit", "store.git")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, hi, ei uint8, input []byte) {
		host := hosts[int(hi)%len(hosts)]
		var out bytes.Buffer
		req := Request{Host: host, Input: input, Env: env(dir, nil), Root: dir, Out: &out}
		if host == "statusline" {
			_ = Statusline(req)
		} else {
			events := Events[host]
			req.Event = events[int(ei)%len(events)]
			_ = Handle(req)
		}
		switch {
		case out.Len() == 0:
		case host == "openclaw" || host == "statusline":
			if !utf8.Valid(out.Bytes()) {
				t.Fatalf("%s %s wrote invalid UTF-8: %q", host, req.Event, out.Bytes())
			}
		default:
			if !json.Valid(out.Bytes()) {
				t.Fatalf("%s %s wrote output that is not JSON: %q", host, req.Event, out.Bytes())
			}
		}
		_ = filepath.WalkDir(filepath.Join(store, "refs"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(store, p)
			rel = filepath.ToSlash(rel)
			name, ok := strings.CutPrefix(rel, "refs/ctxgit/sessions/")
			if !ok || strings.Contains(name, "/") {
				t.Fatalf("a hook created ref %s", rel)
			}
			return nil
		})
	})
}
