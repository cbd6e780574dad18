package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// opencode: the usage a compaction began at is no new reading. The plugin
// (host/config/opencode/ctxgit.js) keeps the session's newest usage until
// a newer message replaces it, so a tool call right after a compaction
// can still carry the one from before it; pre-compact recorded it as
// stale from the exported messages, as it does for every transcript host.
func TestOpenCodePostToolUseSkipsTheStaleReading(t *testing.T) {
	dir := initialised(t)
	export := filepath.Join(t.TempDir(), "session.jsonl")
	msgs := `{"info":{"id":"msg_1","role":"user"},"parts":[{"type":"text","text":"go"}]}` + "\n" +
		`{"info":{"id":"msg_2","role":"assistant","tokens":{"input":15000,"output":10,"cache":{"read":0,"write":0}}},"parts":[]}` + "\n"
	if err := os.WriteFile(export, []byte(msgs), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(event, extra string) string {
		t.Helper()
		input := fmt.Sprintf(`{"session_id":"ses_1","cwd":%q,"tokens":{"input":15000,"output":10,"cache":{"read":0,"write":0}},"contextWindow":20000%s}`, dir, extra)
		var out bytes.Buffer
		if err := Handle(Request{Host: "opencode", Event: event, Input: []byte(input), Env: env(dir, nil), Out: &out}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	call("pre-compact", fmt.Sprintf(`,"trigger":"auto","transcript_path":%q`, export))
	var st hookState
	readJSON(dir, statePath(dir, "ses_1"), &st)
	if st.StaleTokens != 15000 {
		t.Fatalf("stale_tokens %d after the compaction, want 15000", st.StaleTokens)
	}
	if out := call("post-tool-use", ""); out != "" {
		t.Fatalf("the reading the compaction began at counted again: %q", out)
	}
}
