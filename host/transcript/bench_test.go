package transcript

import (
	"bytes"
	"os"
	"path/filepath"
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
		if _, err := Read(bytes.NewReader(data), ClaudeCode, ReadOptions{Root: "/home/dev/proj"}); err != nil {
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
