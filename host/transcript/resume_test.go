package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// resumeFixtures are the JSON Lines fixtures of every format.
var resumeFixtures = []struct {
	file   string
	format Format
	root   string
}{
	{"claude-code-small.jsonl", ClaudeCode, "/home/dev/app"},
	{"claude-code-queued.jsonl", ClaudeCode, "/home/dev/app"},
	{"claude-code-commands.jsonl", ClaudeCode, "/home/dev/app"},
	{"codex-rollout.jsonl", Codex, "/home/dev/proj"},
	{"codex-ide.jsonl", Codex, "/home/dev/web"},
	{"gemini-session.jsonl", Gemini, "/home/dev/shop"},
	{"openclaw-session.jsonl", OpenClaw, "/home/dev/site"},
	{"qwen-code-session.jsonl", QwenCode, "/tmp/disc/qwen/repo3"},
	{"copilot-events.jsonl", Copilot, "/tmp/disc/cop/repo4"},
	{"opencode-session.jsonl", OpenCode, "/tmp/disc/oc2/repo"},
}

// docs/design.md, "Transcript JSON": a reading resumed from any point of a
// growing file (a line boundary, or the middle of a line the host is still
// writing) says exactly what one reading of the whole file says.
func TestReadFileResumeEqualsWholeRead(t *testing.T) {
	for _, fx := range resumeFixtures {
		data, err := os.ReadFile(fixture(t, filepath.Join("testdata", fx.file)))
		if err != nil {
			t.Fatal(err)
		}
		o := ReadOptions{Root: osPath(fx.root)}
		want, err := Read(bytes.NewReader(data), fx.format, o)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		p, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "state", "t.json")
		abs, _ := filepath.Abs(p)
		key := savedKey{Version: resumeVersion, Path: abs, Format: fx.format, Root: osPath(fx.root), Max: defaultExchanges}
		for cut := 1; cut < len(data); cut += 1 + len(data)/41 {
			os.Remove(state)
			if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			first, err := ReadFileResume(p, fx.format, o, state)
			if err != nil {
				t.Fatal(err)
			}
			part, _ := Read(bytes.NewReader(data[:cut]), fx.format, o)
			if !reflect.DeepEqual(first, part) {
				t.Fatalf("%s cut at %d: the first reading differs from Read:\n%+v\nwant %+v", fx.file, cut, first, part)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			fh, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			sv := loadSaved(state, key, fh, int64(len(data)))
			fh.Close()
			if hasLine := bytes.IndexByte(data[:cut], '\n') >= 0; (sv != nil) != hasLine || sv != nil && bytes.LastIndexByte(data[:cut], '\n')+1 != int(sv.Offset) {
				t.Fatalf("%s cut at %d: saved reading %v; want one at the last line ending", fx.file, cut, sv != nil)
			}
			got, err := ReadFileResume(p, fx.format, o, state)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s resumed at %d:\n%+v\nwant %+v", fx.file, cut, got, want)
			}
		}
	}
}

// A saved reading is trusted only for the file it read, grown at its end:
// a rewritten, truncated or other file, another root or format, or a
// corrupt state file is read afresh.
func TestReadFileResumeRefusesAnotherFile(t *testing.T) {
	data, err := os.ReadFile(fixture(t, filepath.Join("testdata", "claude-code-small.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	o := ReadOptions{Root: osPath("/home/dev/app")}
	whole := func(b []byte) *Summary {
		s, err := Read(bytes.NewReader(b), ClaudeCode, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	half := bytes.Index(data[len(data)/2:], []byte("\n")) + len(data)/2 + 1
	rewritten := bytes.Replace(data, []byte("Make the CSV importer stream"), []byte("Make the TSV importer stream"), 1)
	for _, tc := range []struct {
		name  string
		later []byte
	}{
		{"rewritten", rewritten},
		{"truncated", data[:half/2]},
		{"replaced by a shorter file", data[:half-1]},
		{"the same", data[:half]},
	} {
		dir := t.TempDir()
		p, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.state")
		os.WriteFile(p, data[:half], 0o644)
		if _, err := ReadFileResume(p, ClaudeCode, o, state); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, tc.later, 0o644)
		got, err := ReadFileResume(p, ClaudeCode, o, state)
		if err != nil {
			t.Fatal(err)
		}
		if want := whole(tc.later); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v\nwant %+v", tc.name, got, want)
		}
	}
	// A corrupt state, another root or another format: read afresh.
	dir := t.TempDir()
	p, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.state")
	os.WriteFile(p, data, 0o644)
	for _, garbage := range [][]byte{[]byte("{"), []byte(`{"version":1,"offset":99999999}`), nil} {
		if garbage != nil {
			os.WriteFile(state, garbage, 0o644)
		}
		got, err := ReadFileResume(p, ClaudeCode, o, state)
		if err != nil || !reflect.DeepEqual(got, whole(data)) {
			t.Errorf("state %q: %+v, %v", garbage, got, err)
		}
	}
	other := ReadOptions{Root: osPath("/home/dev")}
	got, err := ReadFileResume(p, ClaudeCode, other, state)
	want, _ := Read(bytes.NewReader(data), ClaudeCode, other)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("another root: %+v, %v\nwant %+v", got, err, want)
	}
}

// Gemini CLI's one-document layout is rewritten whole: read whole.
func TestReadFileResumeGeminiDocument(t *testing.T) {
	p := filepath.Join("testdata", "gemini-failures.json")
	state := filepath.Join(t.TempDir(), "g.state")
	for range 2 {
		got, err := ReadFileResume(p, Gemini, ReadOptions{Root: osPath("/home/dev/svc")}, state)
		want, _ := ReadFile(p, Gemini, ReadOptions{Root: osPath("/home/dev/svc")})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v, %v\nwant %+v", got, err, want)
		}
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("a state was saved for a document")
	}
}

// A long session keeps only its last maxMarks prompts' uuids in the saved
// table: a rewind to a recent line still rolls back after a resume, and
// one to a line older than every mark kept still changes nothing.
func TestReadFileResumeLongSessionRewinds(t *testing.T) {
	var b bytes.Buffer
	line := func(uuid, parent string, v obj) {
		v["uuid"], v["isSidechain"], v["sessionId"] = uuid, false, "s"
		if parent == "" {
			v["parentUuid"] = nil
		} else {
			v["parentUuid"] = parent
		}
		b.WriteString(js(v) + "\n")
	}
	prev := ""
	for i := range maxMarks + 60 {
		u, a := fmt.Sprintf("u%04d", i), fmt.Sprintf("a%04d", i)
		line(u, prev, obj{"type": "user", "message": obj{"role": "user", "content": fmt.Sprintf("prompt %d", i)}})
		line(a, u, obj{"type": "assistant", "message": obj{"id": "m" + a, "role": "assistant", "content": []obj{ccText(fmt.Sprintf("reply %d", i))}}})
		prev = a
	}
	cut := b.Len()
	line("r1", "a0300", obj{"type": "user", "message": obj{"role": "user", "content": "rewound to 300"}})
	line("r2", "a0003", obj{"type": "user", "message": obj{"role": "user", "content": "rewound to 3"}})
	data := b.Bytes()
	want, err := Read(bytes.NewReader(data), ClaudeCode, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want.AbandonedPrompts == 0 {
		t.Fatalf("the recent rewind abandoned nothing: %+v", want)
	}
	dir := t.TempDir()
	p, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.state")
	os.WriteFile(p, data[:cut], 0o644)
	if _, err := ReadFileResume(p, ClaudeCode, ReadOptions{}, state); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(state); err != nil || fi.Size() > 200<<10 {
		t.Errorf("saved state: %v, %v; want one pruned to the last prompts", fi, err)
	}
	os.WriteFile(p, data, 0o644)
	got, err := ReadFileResume(p, ClaudeCode, ReadOptions{}, state)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("resumed: %+v, %v\nwant %+v", got, err, want)
	}
}

// Hooks of one session may read at once: each reading is whole and right,
// and the state left behind is one whole reading (written atomically).
func TestReadFileResumeConcurrent(t *testing.T) {
	data, err := os.ReadFile(fixture(t, filepath.Join("testdata", "codex-ide.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	o := ReadOptions{Root: osPath("/home/dev/web")}
	want, _ := Read(bytes.NewReader(data), Codex, o)
	dir := t.TempDir()
	p, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "s", "t.json")
	half := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	os.WriteFile(p, data[:half], 0o644)
	if _, err := ReadFileResume(p, Codex, o, state); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, data, 0o644)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			got, err := ReadFileResume(p, Codex, o, state)
			if err != nil || !reflect.DeepEqual(got, want) {
				errs <- fmt.Sprintf("%+v, %v", got, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent reading: %s\nwant %+v", e, want)
	}
	abs, _ := filepath.Abs(p)
	fh, _ := os.Open(p)
	defer fh.Close()
	sv := loadSaved(state, savedKey{Version: resumeVersion, Path: abs, Format: Codex, Root: osPath("/home/dev/web"), Max: defaultExchanges}, fh, int64(len(data)))
	if sv == nil || sv.Offset != int64(len(data)) {
		t.Errorf("state after concurrent readings: %+v", sv)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "s", "*")); len(left) != 1 {
		t.Errorf("files beside the state: %q", left)
	}
}
