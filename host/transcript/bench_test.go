package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var benchData = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	genClaude(&b, 20<<20, 200, 42)
	return b.Bytes()
})

// BenchmarkRead reads a generated 20 MB Claude Code transcript; MB/s is
// the figure to watch (the goal is 150 MB/s or more).
func BenchmarkRead(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), ClaudeCode, ReadOptions{Root: osPath("/home/dev/proj")}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTailUsage asks for the gauge's usage on a 100 MB transcript:
// its cost must not depend on the file's size.
func BenchmarkTailUsage(b *testing.B) {
	p := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	want, _ := genClaude(f, 100<<20, 0, 7)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		u, ok, err := TailUsage(p, ClaudeCode, 0)
		if err != nil || !ok || u != want {
			b.Fatalf("TailUsage = %+v, %v, %v; want %+v", u, ok, err, want)
		}
	}
}

// BenchmarkReadResume is a checkpoint's read of a long session's
// transcript (docs/design.md, "Transcript JSON"): the reading saved at the
// previous checkpoint is resumed and the last 256 KiB, written since, are
// read. The goal (issue 23): on a 200 MB transcript at most 0.2 s and at
// most 32 MB more than on a small one (B/op); docs/PERFORMANCE.md has the
// figures.
func BenchmarkReadResume(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1MB", 1 << 20}, {"200MB", 200 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			dir := b.TempDir()
			var all bytes.Buffer
			genClaude(&all, size.bytes, 200, 11)
			data := all.Bytes()
			// The reading saved before the last 256 KiB were written.
			cut := bytes.LastIndexByte(data[:len(data)-256<<10], '\n') + 1
			p, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "state.json")
			if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
				b.Fatal(err)
			}
			o := ReadOptions{Root: osPath("/home/dev/proj")}
			if _, err := ReadFileResume(p, ClaudeCode, o, state); err != nil {
				b.Fatal(err)
			}
			saved, err := os.ReadFile(state)
			if err != nil {
				b.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Write(data[cut:]); err != nil {
				b.Fatal(err)
			}
			f.Close()
			want, err := Read(bytes.NewReader(data), ClaudeCode, o)
			if err != nil {
				b.Fatal(err)
			}
			all, data = bytes.Buffer{}, nil
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				if err := os.WriteFile(state, saved, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				s, err := ReadFileResume(p, ClaudeCode, o, state)
				if err != nil || s.Lines != want.Lines || s.Usage != want.Usage {
					b.Fatalf("resumed reading: %d lines, usage %+v, %v; want %d, %+v", s.Lines, s.Usage, err, want.Lines, want.Usage)
				}
			}
			b.ReportMetric(float64(len(saved)), "state-bytes")
		})
	}
}
