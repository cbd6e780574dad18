package hooks

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Copilot CLI's record as postToolUse can find it: the turn started, its
// usage record and the hook's start not written yet (seen with 1.0.102).
const (
	copilotTurnStarted = `{"type":"user.message","data":{"content":"Run echo hello."}}
{"type":"hook.start","data":{"hookType":"userPromptSubmitted","input":{"sessionId":"s1","timestamp":17959259480710,"prompt":"Run echo hello."}}}
{"type":"assistant.turn_start","data":{"turnId":"0"}}
`
	copilotTurnRest = `{"type":"session.usage_record","data":{"usage":{"inputTokens":44800,"maxPromptTokens":64000}}}
{"type":"tool.execution_start","data":{"toolCallId":"call_1","toolName":"bash"}}
{"type":"hook.start","data":{"hookType":"postToolUse","input":{"sessionId":"s1","timestamp":1795925948312,"cwd":"/w"}}}
`
	copilotStamp = "1795925948312"
)

// copilotCatchUp waits for the record to hold the call's hook start, and
// no longer.
func TestCopilotCatchUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(copilotTurnStarted), 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(150 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(copilotTurnRest)
			f.Close()
		}
	}()
	start := time.Now()
	copilotCatchUp(path, []byte(copilotStamp), 10*time.Second)
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v for a record written 150 ms later", d)
	}

	// Caught up: no wait.
	start = time.Now()
	copilotCatchUp(path, []byte(copilotStamp), 10*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("waited %v on a record that holds the hook's start", d)
	}

	// Never caught up (an earlier hook's stamp shares the digits but is
	// longer): the bound.
	stuck := filepath.Join(t.TempDir(), "events.jsonl")
	os.WriteFile(stuck, []byte(copilotTurnStarted), 0o600)
	start = time.Now()
	copilotCatchUp(stuck, []byte("1795925948071"), 200*time.Millisecond)
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v on a record that never catches up, want the 200 ms bound", d)
	}

	// No stamp, one that is no number, no file: no wait.
	start = time.Now()
	copilotCatchUp(stuck, nil, 10*time.Second)
	copilotCatchUp(stuck, []byte(`"2026-11-29T04:19:08Z"`), 10*time.Second)
	copilotCatchUp(filepath.Join(t.TempDir(), "missing.jsonl"), []byte(copilotStamp), 10*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("waited %v with nothing to wait for", d)
	}
}
