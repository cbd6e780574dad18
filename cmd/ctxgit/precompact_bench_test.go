package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxgit/ctxgit/internal/gentranscript"
)

// The pre-compaction hook as Claude Code runs it, on a generated
// transcript shaped like the real one (gentranscript.Claude): issue 23's
// goal is at most 0.2 s and at most 32 MB more than on a small transcript,
// for a 200 MB one. "first" is a session's first read (no saved reading:
// the whole file is parsed); "resumed" restores the reading saved before
// the last 256 KiB were written, as a checkpoint after an earlier one
// does. docs/PERFORMANCE.md, "The whole pre-compaction hook on a 200 MB
// transcript", has the figures and the commands.

// preCompactSizes are the transcripts measured: a small one, the baseline
// of the extra memory, and the goal's 200 MB.
var preCompactSizes = []struct {
	name  string
	bytes int
}{{"1MB", 1 << 20}, {"200MB", 200 << 20}}

// preCompactTail is what a resumed read reads: written since the previous
// checkpoint.
const preCompactTail = 256 << 10

// preCompactFixture is a workspace initialised for Claude Code and a
// transcript, with the hook's payload and, for a resumed read, the
// reading saved before the transcript's tail.
type preCompactFixture struct {
	ws, transcript, state string
	payload               []byte
	saved                 []byte // nil: a first read
	size                  int64
}

// BenchmarkPreCompactHook runs the hook in this process (ctxgit's own
// main, the payload on stdin): time per op, and the bytes it allocates
// (B/op, an upper bound of the memory it adds).
func BenchmarkPreCompactHook(b *testing.B) {
	b.Setenv("CTXGIT_HOOK_DETACH", "0")
	for _, size := range preCompactSizes {
		data := genPreCompactTranscript(size.bytes)
		for _, resumed := range []bool{false, true} {
			b.Run(size.name+"/"+readMode(resumed), func(b *testing.B) {
				f := newPreCompactFixture(b, data, resumed)
				b.Chdir(f.ws)
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					f.reset(b)
					b.StartTimer()
					var stderr bytes.Buffer
					if code := run([]string{"ctxgit", "hook", "claude-code", "pre-compact"}, bytes.NewReader(f.payload), &bytes.Buffer{}, &stderr); code != 0 || stderr.Len() > 0 {
						b.Fatalf("hook: exit %d: %s", code, stderr.String())
					}
				}
				b.StopTimer()
				f.check(b)
			})
		}
	}
}

// BenchmarkPreCompactHookProcess runs the hook as the host does, a
// process of its own (this test binary as ctxgit, on PATH), and reports
// its peak resident memory (peak-RSS-MB) and how much more that is than
// the same read of the small transcript (extra-RSS-MB), where the OS
// says (childPeakRSS).
func BenchmarkPreCompactHookProcess(b *testing.B) {
	exe, err := exec.LookPath("ctxgit")
	if err != nil {
		b.Fatal(err)
	}
	small := genPreCompactTranscript(preCompactSizes[0].bytes)
	for _, size := range preCompactSizes {
		data := genPreCompactTranscript(size.bytes)
		for _, resumed := range []bool{false, true} {
			b.Run(size.name+"/"+readMode(resumed), func(b *testing.B) {
				base := newPreCompactFixture(b, small, resumed)
				base.reset(b)
				baseRSS, known := runHookProcess(b, exe, base)
				f := newPreCompactFixture(b, data, resumed)
				var peak int64
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					f.reset(b)
					b.StartTimer()
					rss, _ := runHookProcess(b, exe, f)
					peak = max(peak, rss)
				}
				b.StopTimer()
				f.check(b)
				if known {
					b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
					b.ReportMetric(float64(peak-baseRSS)/(1<<20), "extra-RSS-MB")
				}
			})
		}
	}
}

func readMode(resumed bool) string {
	if resumed {
		return "resumed"
	}
	return "first"
}

// genPreCompactTranscript is a Claude Code transcript of about size bytes
// with a compaction every 200 turns, the same for every run.
func genPreCompactTranscript(size int) []byte {
	var buf bytes.Buffer
	buf.Grow(size + 64<<10)
	gentranscript.Claude(&buf, size, 200, 23)
	return buf.Bytes()
}

// newPreCompactFixture makes a git workspace initialised for Claude Code
// (`ctxgit init --host claude-code`) beside a transcript of data; for a
// resumed read it runs the hook once on all but the last preCompactTail
// bytes and keeps the reading that saved.
func newPreCompactFixture(b *testing.B, data []byte, resumed bool) *preCompactFixture {
	b.Helper()
	dir := b.TempDir()
	f := &preCompactFixture{ws: filepath.Join(dir, "ws"), transcript: filepath.Join(dir, "session.jsonl"), size: int64(len(data))}
	f.state = filepath.Join(f.ws, ".ctxgit", "local", "transcripts", "bench.json")
	if err := os.MkdirAll(filepath.Join(f.ws, "src"), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(f.ws, "src", fmt.Sprintf("file%02d.go", i)), bytes.Repeat([]byte("package src\n"), 100), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", f.ws).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v: %s", err, out)
	}
	var stderr bytes.Buffer
	if code := runIn(f.ws, []string{"ctxgit", "init", "--host", "claude-code"}, nil, &stderr); code != 0 {
		b.Fatalf("ctxgit init: exit %d: %s", code, stderr.String())
	}
	f.payload, _ = json.Marshal(map[string]string{"session_id": "bench", "transcript_path": f.transcript, "cwd": f.ws,
		"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""})
	head := data
	if resumed {
		head = data[:bytes.LastIndexByte(data[:len(data)-preCompactTail], '\n')+1]
	}
	if err := os.WriteFile(f.transcript, head, 0o644); err != nil {
		b.Fatal(err)
	}
	if !resumed {
		return f
	}
	if code := runIn(f.ws, []string{"ctxgit", "hook", "claude-code", "pre-compact"}, f.payload, &stderr); code != 0 || stderr.Len() > 0 {
		b.Fatalf("hook: exit %d: %s", code, stderr.String())
	}
	saved, err := os.ReadFile(f.state)
	if err != nil {
		b.Fatalf("no reading saved: %v", err)
	}
	f.saved = saved
	tr, err := os.OpenFile(f.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tr.Write(data[len(head):]); err != nil {
		b.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		b.Fatal(err)
	}
	return f
}

// runIn runs ctxgit's main in dir and returns its exit code.
func runIn(dir string, args []string, stdin []byte, stderr *bytes.Buffer) int {
	wd, err := os.Getwd()
	if err != nil {
		return -1
	}
	if err := os.Chdir(dir); err != nil {
		return -1
	}
	defer os.Chdir(wd)
	return run(args, bytes.NewReader(stdin), &bytes.Buffer{}, stderr)
}

// reset puts back what the next run starts from: no saved reading for a
// first read, the one saved before the tail for a resumed read.
func (f *preCompactFixture) reset(b *testing.B) {
	if f.saved == nil {
		if err := os.Remove(f.state); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(f.state, f.saved, 0o644); err != nil {
		b.Fatal(err)
	}
}

// check fails unless the hook's last run read the transcript to its end
// (the reading it saved) and took the compaction's checkpoint.
func (f *preCompactFixture) check(b *testing.B) {
	b.Helper()
	data, err := os.ReadFile(f.state)
	if err != nil {
		b.Fatalf("no reading saved: %v", err)
	}
	var st struct {
		Offset int64 `json:"offset"`
	}
	if err := json.Unmarshal(data, &st); err != nil || st.Offset != f.size {
		b.Fatalf("the reading saved stops at %d (%v); the transcript has %d bytes", st.Offset, err, f.size)
	}
	cp, err := os.ReadFile(filepath.Join(f.ws, ".ctxgit", "checkpoint.yaml"))
	if err != nil || !bytes.Contains(cp, []byte("trigger: compaction")) {
		b.Fatalf("no compaction checkpoint (%v):\n%.400s", err, cp)
	}
}

// runHookProcess runs the hook as a process in f's workspace, through
// the peakrss launcher, and returns its peak resident memory in bytes,
// and whether the OS told it.
func runHookProcess(b *testing.B, exe string, f *preCompactFixture) (int64, bool) {
	b.Helper()
	launcher, err := exec.LookPath("peakrss")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(launcher, exe, "hook", "claude-code", "pre-compact")
	cmd.Dir, cmd.Stdin = f.ws, bytes.NewReader(f.payload)
	cmd.Env = append(os.Environ(), "CTXGIT_HOOK_DETACH=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		b.Fatalf("hook: %v: %s", err, stderr.String())
	}
	var rss int64
	if _, err := fmt.Sscanf(stdout.String(), "maxrss %d\n", &rss); err != nil {
		return 0, false
	}
	return rss, true
}

// peakRSSMain runs its arguments as a command and prints the command's
// peak resident memory ("maxrss BYTES") when the OS says, exiting with
// its status. Go starts a child sharing its parent's memory until exec
// (vfork), and Linux then carries the parent's peak into the child's
// ru_maxrss: measured from the benchmark, which holds the generated
// transcripts, every child would read as large as the benchmark. From this
// fresh, small process the floor is its own few megabytes.
func peakRSSMain() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peakrss COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if rss, ok := childPeakRSS(cmd.ProcessState); ok {
		fmt.Printf("maxrss %d\n", rss)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
