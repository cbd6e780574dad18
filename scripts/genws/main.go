// Command genws writes a synthetic agent workspace for benchmarks: FILES
// files of a few KB spread over DIRS directories, plus an ignored build/
// tree, all with distinct content; and, with -transcript, a Claude Code
// transcript of a given size.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("out", "", "directory to write into (created)")
	files := flag.Int("files", 10000, "number of files")
	dirs := flag.Int("dirs", 500, "number of directories")
	size := flag.Int("size", 3000, "approximate bytes per file")
	ignored := flag.Int("ignored", 1000, "files in the ignored build/ tree")
	transcript := flag.String("transcript", "", "also write a Claude Code transcript here")
	transcriptMB := flag.Int("transcript-mb", 100, "the transcript's size in MiB")
	flag.Parse()
	if (*out == "" && *transcript == "") || *dirs < 1 {
		fmt.Fprintln(os.Stderr, "genws: -out or -transcript is required and -dirs must be positive")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if *transcript != "" {
		must(writeTranscript(*transcript, *transcriptMB<<20, rng))
	}
	if *out == "" {
		return
	}
	words := strings.Fields("alpha beta gamma delta ledger invoice agent context checkpoint parser token budget recovery plan step")
	write := func(path string, n int) {
		var b strings.Builder
		fmt.Fprintf(&b, "// %s\n", path)
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
			if rng.IntN(12) == 0 {
				b.WriteByte('\n')
			}
		}
		must(os.MkdirAll(filepath.Dir(path), 0o755))
		must(os.WriteFile(path, []byte(b.String()), 0o644))
	}
	for i := 0; i < *files; i++ {
		d := i % *dirs
		write(filepath.Join(*out, "src", fmt.Sprintf("pkg%03d", d/25), fmt.Sprintf("mod%04d", d), fmt.Sprintf("file%05d.go", i)), *size/2+rng.IntN(*size))
	}
	for i := 0; i < *ignored; i++ {
		write(filepath.Join(*out, "build", fmt.Sprintf("obj%02d", i%20), fmt.Sprintf("out%05d.o", i)), *size)
	}
	must(os.WriteFile(filepath.Join(*out, ".gitignore"), []byte("build/\n*.o\n"), 0o644))
}

// writeTranscript writes turns of a Claude Code session (a user prompt, an
// assistant reply with its usage) until the file reaches size bytes. The
// usage rises to 40% of a 200k window, below every threshold, so a gauge
// that reads it has nothing to do but read.
func writeTranscript(path string, size int, rng *rand.Rand) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	words := strings.Fields("the context window fills as the agent reads files and runs tools; each turn adds its prompt, its reply and the tools' output")
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	written := 0
	line := func(v map[string]any) {
		b, _ := json.Marshal(v)
		w.Write(b)
		w.WriteByte('\n')
		written += len(b) + 1
	}
	parent := ""
	for turn := 0; written < size; turn++ {
		user := fmt.Sprintf("00000000-0000-4000-8000-%012x", 2*turn)
		reply := fmt.Sprintf("00000000-0000-4000-8000-%012x", 2*turn+1)
		common := func(uuid string) map[string]any {
			return map[string]any{"parentUuid": parent, "uuid": uuid, "isSidechain": false, "userType": "external",
				"cwd": "/home/dev/proj", "sessionId": "bench", "version": "2.1.39", "timestamp": "2026-11-22T10:00:00.000Z"}
		}
		u := common(user)
		u["type"] = "user"
		u["message"] = map[string]any{"role": "user", "content": text(400)}
		line(u)
		parent = user
		a := common(reply)
		a["type"] = "assistant"
		a["message"] = map[string]any{"id": fmt.Sprintf("msg_%d", turn), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": text(1600)}},
			"usage":   map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 79497, "output_tokens": 200}}
		line(a)
		parent = reply
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genws:", err)
		os.Exit(1)
	}
}
