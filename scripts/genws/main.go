// Command genws writes a synthetic agent workspace for benchmarks: FILES
// files of a few KB spread over DIRS directories, plus an ignored build/
// tree, all with distinct content.
package main

import (
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
	flag.Parse()
	if *out == "" || *dirs < 1 {
		fmt.Fprintln(os.Stderr, "genws: -out is required and -dirs must be positive")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(1, 2))
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

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genws:", err)
		os.Exit(1)
	}
}
