package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
)

var repairNow = time.Date(2026, 3, 4, 10, 15, 0, 0, time.UTC)

// ocSession builds an OpenClaw session: a header, then entries given ids
// e01, e02, … each linked to the one before, as OpenClaw writes them.
// An entry may be a raw line (string) to plant damage.
func ocSession(entries ...any) []byte {
	var b bytes.Buffer
	b.WriteString(js(obj{"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-03-04T10:00:00.000Z", "cwd": "/w"}) + "\n")
	var parent any
	for i, e := range entries {
		if s, ok := e.(string); ok {
			b.WriteString(s + "\n")
			continue
		}
		m := e.(obj)
		id := fmt.Sprintf("e%02d", i+1)
		line := obj{"type": "message", "id": id, "parentId": parent, "timestamp": "2026-03-04T10:00:01.000Z"}
		for k, v := range m {
			line[k] = v
		}
		parent = id
		b.WriteString(js(line) + "\n")
	}
	return b.Bytes()
}

func ocUserE(text string) obj { return obj{"message": obj{"role": "user", "content": text}} }

func ocCallE(calls ...obj) obj {
	return obj{"message": obj{"role": "assistant", "content": calls, "stopReason": "toolUse", "usage": obj{"input": 1, "output": 1, "cacheRead": 1, "cacheWrite": 1}}}
}

func ocCall(id, name string) obj {
	c := obj{"type": "toolCall", "arguments": obj{"path": "a.txt"}}
	if id != "" {
		c["id"] = id
	}
	if name != "" {
		c["name"] = name
	}
	return c
}

func ocResultE(id, text string) obj {
	return obj{"message": obj{"role": "toolResult", "toolCallId": id, "toolName": "read", "content": []obj{ccText(text)}, "isError": false}}
}

// chainOrder walks the parent links back from the last linked entry and
// returns the ids from the root, with the file order of linked entries, so
// a test can check the host still sees one conversation in file order.
func chainOrder(t *testing.T, data []byte, idKey, parentKey string) (walked, file []string) {
	t.Helper()
	parents := map[string]string{}
	var last string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		id, _ := m[idKey].(string)
		p, linked := m[parentKey]
		if !linked || id == "" {
			continue
		}
		ps, _ := p.(string)
		parents[id] = ps
		file = append(file, id)
		last = id
	}
	for id := last; id != "" && len(walked) <= len(parents); id = parents[id] {
		walked = append([]string{id}, walked...)
	}
	return walked, file
}

type repairCase struct {
	name   string
	format Format
	input  []byte
	check  func(t *testing.T, rep *RepairReport, out []byte)
	want   RepairReport // the lists and Changed
}

func runRepair(t *testing.T, tc repairCase) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(p, tc.input, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Repair(p, RepairOptions{Now: func() time.Time { return repairNow }, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	got := *rep
	got.Path, got.Backup = "", ""
	if !reflect.DeepEqual(norm(got), norm(tc.want)) {
		t.Errorf("report = %+v\nwant     %+v", got, tc.want)
	}
	out, _ := os.ReadFile(p)
	if !rep.Changed {
		if rep.Backup != "" || !bytes.Equal(out, tc.input) {
			t.Errorf("nothing to repair, yet backup %q or the file changed", rep.Backup)
		}
		return
	}
	// The original is in the backup, named <file>.bak-<pid>-<UTC stamp>.
	if want := p + ".bak-4242-20260304T101500Z"; rep.Backup != want {
		t.Errorf("Backup = %q, want %q", rep.Backup, want)
	}
	if b, err := os.ReadFile(rep.Backup); err != nil || !bytes.Equal(b, tc.input) {
		t.Errorf("the backup does not hold the original bytes (%v)", err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != wstest.Perm(0o600, false) {
		t.Errorf("mode after repair: %v, %v", fi.Mode(), err)
	}
	// The output re-parses with no bad line, and needs no more repair.
	s, err := Read(bytes.NewReader(out), tc.format, ReadOptions{})
	if err != nil || s.BadLines != 0 {
		t.Errorf("the output has %d bad lines (%v):\n%s", s.BadLines, err, out)
	}
	again := &RepairReport{}
	if _, err := repairBytes(out, repairNow, again); err != nil || again.Changed {
		t.Errorf("a second repair still changes %+v (%v)", again, err)
	}
	if _, err := os.Stat(p + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock was left behind: %v", err)
	}
	if tc.check != nil {
		tc.check(t, rep, out)
	}
}

// norm makes nil and empty lists compare equal.
func norm(r RepairReport) RepairReport {
	for _, l := range []*[]string{&r.SyntheticResults, &r.DroppedOrphans, &r.DroppedDuplicates, &r.Moved, &r.DroppedIncompleteCalls} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(r.DroppedUnparseable) == 0 {
		r.DroppedUnparseable = nil
	}
	return r
}

// linear checks that the host, walking parent links back from the newest
// entry, sees every linked entry, in file order.
func linear(idKey, parentKey string) func(t *testing.T, rep *RepairReport, out []byte) {
	return func(t *testing.T, rep *RepairReport, out []byte) {
		walked, file := chainOrder(t, out, idKey, parentKey)
		if !reflect.DeepEqual(walked, file) {
			t.Errorf("parent chain %v\nfile order   %v\n%s", walked, file, out)
		}
	}
}

// contents lists the output's message texts and result ids in order.
func contents(t *testing.T, out []byte) []string {
	t.Helper()
	var got []string
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var m struct {
			Type    string
			Message struct {
				Role       string
				ToolCallID string
				IsError    bool
				Content    any
			}
		}
		json.Unmarshal(line, &m)
		switch m.Message.Role {
		case "user":
			got = append(got, "user:"+fmt.Sprint(m.Message.Content))
		case "assistant":
			var ids []string
			for _, c := range m.Message.Content.([]any) {
				if id, ok := c.(map[string]any)["id"].(string); ok {
					ids = append(ids, id)
				}
			}
			got = append(got, "call:"+strings.Join(ids, ","))
		case "toolResult":
			r := "result:" + m.Message.ToolCallID
			if m.Message.IsError {
				r += "!"
			}
			b, _ := json.Marshal(m.Message.Content)
			if strings.Contains(string(b), "second copy") {
				r += "(second)"
			}
			got = append(got, r)
		}
	}
	return got
}

func expect(want ...string) func(t *testing.T, rep *RepairReport, out []byte) {
	return func(t *testing.T, rep *RepairReport, out []byte) {
		linear("id", "parentId")(t, rep, out)
		if got := contents(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("output %q\nwant   %q", got, want)
		}
	}
}

// docs/HOSTS.md, "Transcripts" and "OpenClaw": one test per tool-pairing rule.
func TestRepairOpenClawPairing(t *testing.T) {
	tests := []repairCase{
		{
			name:  "HOSTS.md Transcripts: a call without a result gets a synthetic error result",
			input: ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read"), ocCall("c2", "read")), ocResultE("c2", "ok"), ocUserE("next")),
			want:  RepairReport{SyntheticResults: []string{"c1"}, Changed: true},
			check: expect("user:go", "call:c1,c2", "result:c2", "result:c1!", "user:next"),
		},
		{
			name:  "HOSTS.md Transcripts: a call at the very end gets one too",
			input: ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read"))),
			want:  RepairReport{SyntheticResults: []string{"c1"}, Changed: true},
			check: expect("user:go", "call:c1", "result:c1!"),
		},
		{
			name:  "HOSTS.md Transcripts: orphaned results are dropped",
			input: ocSession(ocResultE("early", "x"), ocUserE("go"), ocCallE(ocCall("c1", "read")), ocResultE("c1", "ok"), ocResultE("ghost", "boo"), ocUserE("next")),
			want:  RepairReport{DroppedOrphans: []string{"early", "ghost"}, Changed: true},
			check: expect("user:go", "call:c1", "result:c1", "user:next"),
		},
		{
			name:  "HOSTS.md Transcripts: of duplicate results the first is kept",
			input: ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read")), ocResultE("c1", "first"), ocResultE("c1", "second copy"), ocUserE("next")),
			want:  RepairReport{DroppedDuplicates: []string{"c1"}, Changed: true},
			check: expect("user:go", "call:c1", "result:c1", "user:next"),
		},
		{
			name:  "HOSTS.md Transcripts: a duplicate after the next turn is a duplicate too",
			input: ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read")), ocResultE("c1", "first"), ocCallE(ocCall("c2", "read")), ocResultE("c2", "ok"), ocResultE("c1", "second copy")),
			want:  RepairReport{DroppedDuplicates: []string{"c1"}, Changed: true},
			check: expect("user:go", "call:c1", "result:c1", "call:c2", "result:c2"),
		},
		{
			name:  "HOSTS.md Transcripts: a mis-ordered result moves next to its call",
			input: ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read")), ocUserE("wait, also this"), ocResultE("c1", "ok"), ocCallE(ocCall("c2", "read")), ocResultE("c2", "ok")),
			want:  RepairReport{Moved: []string{"c1"}, Changed: true},
			check: expect("user:go", "call:c1", "result:c1", "user:wait, also this", "call:c2", "result:c2"),
		},
		{
			name: "HOSTS.md Transcripts: incomplete calls are dropped, and their results with them",
			input: ocSession(ocUserE("go"),
				ocCallE(ocCall("", "read"), ocCall("c2", ""), ocCall("c3", "read")), ocResultE("c2", "x"), ocResultE("c3", "ok"),
				ocCallE(ocCall("c4", " ")), ocUserE("next")),
			want:  RepairReport{DroppedIncompleteCalls: []string{"line 3", "c2", "c4"}, DroppedOrphans: []string{"c2"}, Changed: true},
			check: expect("user:go", "call:c3", "result:c3", "user:next"),
		},
		{
			name:  "HOSTS.md Transcripts: an aborted turn gets no synthetic result (as in OpenClaw)",
			input: ocSession(ocUserE("go"), obj{"message": obj{"role": "assistant", "content": []obj{ocCall("c1", "read")}, "stopReason": "aborted"}}, ocUserE("next")),
			want:  RepairReport{},
		},
		{
			name:  "HOSTS.md Transcripts: unparseable lines are dropped",
			input: ocSession(ocUserE("go"), "{not json", ocCallE(ocCall("c1", "read")), `{"type":"message","id":"x","message":{"role":"user","content":"cut`, ocResultE("c1", "ok")),
			want:  RepairReport{DroppedUnparseable: []int{3, 5}, Changed: true},
			check: expect("user:go", "call:c1", "result:c1"),
		},
		{
			name:  "a healthy session is left alone",
			input: ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read")), ocResultE("c1", "ok"), ocUserE("thanks")),
			want:  RepairReport{},
		},
	}
	for _, tc := range tests {
		tc.format = OpenClaw
		t.Run(tc.name, func(t *testing.T) { runRepair(t, tc) })
	}
}

// ccChain links Claude Code lines into one chain, as the host writes them.
func ccChain(lines ...string) []byte {
	var b bytes.Buffer
	var parent any
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			b.WriteString(l + "\n")
			continue
		}
		id := fmt.Sprintf("uu-%02d", i+1)
		m["uuid"], m["parentUuid"], m["sessionId"], m["cwd"] = id, parent, "s-1", "/w"
		parent = id
		b.WriteString(js(m) + "\n")
	}
	return b.Bytes()
}

func TestRepairClaudeCode(t *testing.T) {
	progress := js(obj{"type": "progress", "data": obj{"type": "hook_progress"}})
	u := ccUsage(1, 1, 1, 1)
	tests := []repairCase{
		{
			name:  "HOSTS.md Transcripts: Claude Code, a call without a result",
			input: ccChain(ccUser("go"), ccAsst("m1", u, ccCall("t1", "Bash", obj{"command": "ls"})), progress, ccUser("next"), ccAsst("m2", u, ccText("ok"))),
			want:  RepairReport{SyntheticResults: []string{"t1"}, Changed: true},
			check: func(t *testing.T, rep *RepairReport, out []byte) {
				linear("uuid", "parentUuid")(t, rep, out)
				s, _ := Read(bytes.NewReader(out), ClaudeCode, ReadOptions{})
				if len(s.ToolFailures) != 1 || s.ToolFailures[0].Tool != "Bash" || !strings.HasPrefix(s.ToolFailures[0].Summary, "[ctxgit] missing tool result") || s.ToolFailures[0].Line != 4 {
					t.Errorf("ToolFailures = %+v", s.ToolFailures)
				}
				if !bytes.Contains(out, []byte(`"sessionId":"s-1"`)) {
					t.Error("the synthetic line lacks the session's identity")
				}
			},
		},
		{
			name: "HOSTS.md Transcripts: Claude Code, orphan and duplicate result blocks",
			input: ccChain(ccUser("go"), ccAsst("m1", u, ccCall("t1", "Read", obj{"file_path": "/a"})),
				ccUser([]obj{ccResult("t1", "ok", false), ccResult("t1", "again", false), ccResult("tx", "who?", false)}), ccAsst("m2", u, ccText("done"))),
			want:  RepairReport{DroppedDuplicates: []string{"t1"}, DroppedOrphans: []string{"tx"}, Changed: true},
			check: linear("uuid", "parentUuid"),
		},
		{
			name: "HOSTS.md Transcripts: Claude Code, a result after the next prompt moves back",
			input: ccChain(ccUser("go"), ccAsst("m1", u, ccCall("t1", "Read", obj{"file_path": "/a"})), ccUser("also this"),
				ccUser([]obj{ccResult("t1", "ok", false)}), ccAsst("m2", u, ccText("done"))),
			want:  RepairReport{Moved: []string{"t1"}, Changed: true},
			check: linear("uuid", "parentUuid"),
		},
		{
			name: "Claude Code writes one line per block: parallel calls of one message are not mis-ordered",
			input: ccChain(ccUser("go"), ccAsst("m1", u, ccText("two reads")), ccAsst("m1", u, ccCall("t1", "Read", obj{"file_path": "/a"})), progress,
				ccAsst("m1", u, ccCall("t2", "Read", obj{"file_path": "/b"})), ccUser([]obj{ccResult("t1", "a", false)}), progress,
				ccUser([]obj{ccResult("t2", "b", false)}), ccAsst("m2", u, ccText("done"))),
			want: RepairReport{},
		},
		{
			name: "Claude Code: a subagent's lines are not paired with the session's",
			input: ccChain(ccUser("go"), ccAsst("m1", u, ccCall("t1", "Task", obj{})), ccSideAsst("s1", u, ccCall("ts", "Grep", obj{})),
				js(obj{"type": "user", "isSidechain": true, "message": obj{"role": "user", "content": []obj{ccResult("ts", "x", false)}}}),
				ccUser([]obj{ccResult("t1", "done", false)})),
			want: RepairReport{},
		},
	}
	for _, tc := range tests {
		tc.format = ClaudeCode
		t.Run(tc.name, func(t *testing.T) { runRepair(t, tc) })
	}
}

// docs/HOSTS.md, "Transcripts": a Codex rollout only loses its unparseable
// lines.
func TestRepairCodex(t *testing.T) {
	input := []byte(js(obj{"timestamp": "t", "type": "session_meta", "payload": obj{"id": "x", "cwd": "/w"}}) + "\n" +
		"garbage\n" +
		js(obj{"timestamp": "t", "type": "response_item", "payload": obj{"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}}) + "\n")
	runRepair(t, repairCase{format: Codex, input: input, want: RepairReport{DroppedUnparseable: []int{2}, Changed: true}})
}

func writeSession(t *testing.T) (string, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	data := ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read")), ocUserE("next"))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// docs/HOSTS.md, "Transcripts": a dry run reports and changes nothing.
func TestRepairDryRun(t *testing.T) {
	p, data := writeSession(t)
	before, _ := os.Stat(p)
	rep, err := Repair(p, RepairOptions{DryRun: true, Now: func() time.Time { return repairNow }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Changed || rep.Backup != "" || !reflect.DeepEqual(rep.SyntheticResults, []string{"c1"}) {
		t.Errorf("report = %+v", rep)
	}
	after, _ := os.Stat(p)
	got, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(filepath.Dir(p))
	if !bytes.Equal(got, data) || !after.ModTime().Equal(before.ModTime()) || len(entries) != 1 {
		t.Errorf("a dry run touched the directory: %d entries", len(entries))
	}
}

func writeLock(t *testing.T, path string, content string) {
	t.Helper()
	if err := os.WriteFile(path+".lock", []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// docs/HOSTS.md, "Transcripts": a live lock refuses; a dead or expired one is
// ignored.
func TestRepairLock(t *testing.T) {
	live := os.Getpid()
	const dead = 0x3ffffff0 // above any pid_max
	fresh := repairNow.Add(-time.Minute).Format(time.RFC3339Nano)
	old := repairNow.Add(-31 * time.Minute).Format(time.RFC3339Nano)
	tests := []struct {
		name    string
		lock    string
		refused bool
	}{
		{"HOSTS.md Transcripts: a live process's lock refuses", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, live, fresh), true},
		{"createdAt in milliseconds", fmt.Sprintf(`{"pid":%d,"createdAt":%d}`, live, repairNow.Add(-time.Minute).UnixMilli()), true},
		{"an unreadable lock written just now refuses", `{"pid":`, true},
		{"HOSTS.md Transcripts: a dead process's lock is ignored", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, dead, fresh), false},
		{"HOSTS.md Transcripts: a lock older than 30 minutes is ignored", fmt.Sprintf(`{"pid":%d,"createdAt":%q}`, live, old), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, data := writeSession(t)
			writeLock(t, p, tc.lock)
			if tc.lock == `{"pid":` {
				// Its age is its file's: make it fresh by the test's clock.
				os.Chtimes(p+".lock", repairNow, repairNow)
			}
			rep, err := Repair(p, RepairOptions{Now: func() time.Time { return repairNow }})
			got, _ := os.ReadFile(p)
			if tc.refused {
				var fe *spec.FileError
				if err == nil || !errors.As(err, &fe) || fe.Path != p+".lock" || !errors.Is(err, spec.ErrConflict) || !bytes.Equal(got, data) {
					t.Errorf("Repair = %+v, %v; want a conflict naming %s.lock and the file untouched", rep, err, p)
				}
				if _, err := os.Stat(p + ".lock"); err != nil {
					t.Errorf("a live lock was removed: %v", err)
				}
				return
			}
			if err != nil || !rep.Changed {
				t.Fatalf("Repair = %+v, %v", rep, err)
			}
			if _, err := os.Stat(p + ".lock"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the lock is still there: %v", err)
			}
		})
	}
}

func TestRepairMissingAndHopeless(t *testing.T) {
	dir := t.TempDir()
	if _, err := Repair(filepath.Join(dir, "missing.jsonl"), RepairOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Repair(missing) = %v", err)
	}
	p := filepath.Join(dir, "junk.jsonl")
	os.WriteFile(p, []byte("junk\nmore junk\n"), 0o644)
	_, err := Repair(p, RepairOptions{})
	var fe *spec.FileError
	if !errors.As(err, &fe) || fe.Path != p || !errors.Is(err, spec.ErrInvalid) {
		t.Errorf("Repair(all junk) = %v; want an invalid-file error naming it", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "junk\nmore junk\n" {
		t.Error("a hopeless file was rewritten")
	}
	// JSON lines no host wrote, one of them broken: not a transcript, so
	// nothing is dropped, backed up or rewritten (docs/HOSTS.md,
	// "Transcripts").
	p = filepath.Join(dir, "log.jsonl")
	log := "{\"level\":\"info\"}\nnot json\n{\"level\":\"warn\"}\n"
	os.WriteFile(p, []byte(log), 0o644)
	_, err = Repair(p, RepairOptions{})
	if !errors.As(err, &fe) || fe.Path != p || !errors.Is(err, spec.ErrInvalid) || !strings.Contains(err.Error(), NotATranscript) {
		t.Errorf("Repair(not a transcript) = %v; want %q naming it", err, NotATranscript)
	}
	if got, _ := os.ReadFile(p); string(got) != log {
		t.Error("a file that is not a transcript was rewritten")
	}
	if m, _ := filepath.Glob(p + ".*"); len(m) != 0 {
		t.Errorf("left beside it: %q", m)
	}
}

// The fixtures are healthy: Repair leaves them alone.
func TestRepairFixturesUnchanged(t *testing.T) {
	for _, name := range []string{"claude-code-small.jsonl", "codex-rollout.jsonl", "openclaw-session.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		rep := &RepairReport{}
		if _, err := repairBytes(data, repairNow, rep); err != nil || rep.Changed {
			// claude-code-small ends with an unanswered Write: that one is
			// a repair, and the only one.
			if name == "claude-code-small.jsonl" && reflect.DeepEqual(rep.SyntheticResults, []string{"toolu_8"}) && len(rep.DroppedOrphans)+len(rep.Moved)+len(rep.DroppedDuplicates) == 0 {
				continue
			}
			t.Errorf("%s: %+v, %v", name, rep, err)
		}
	}
}

func TestSetMember(t *testing.T) {
	tests := []struct{ in, key, val, want string }{
		{`{"a":1,"b":2}`, "a", `"x"`, `{"a":"x","b":2}`},
		{`{"a":1, "b" : {"c":3} }`, "b", `null`, `{"a":1, "b" : null }`},
		{`{"a":1}`, "z", `true`, `{"a":1,"z":true}`},
		{`{}`, "z", `1`, `{"z":1}`},
		{`{ }`, "z", `1`, `{ "z":1}`},
	}
	for _, tc := range tests {
		if got := string(setMember([]byte(tc.in), tc.key, []byte(tc.val))); got != tc.want {
			t.Errorf("setMember(%s, %s) = %s, want %s", tc.in, tc.key, got, tc.want)
		}
	}
}
