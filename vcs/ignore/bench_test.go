package ignore

import (
	"fmt"
	"strings"
	"testing"
)

// benchGitignore is a realistic root .gitignore (~30 patterns) mixing the
// literal, suffix and wildmatch fast paths.
const benchGitignore = `# build output
/bin/
/dist
build/
out/
target/
*.o
*.a
*.so
*.class
*.py[cod]
__pycache__/
node_modules/
vendor/
coverage/
*.log
*.tmp
*.swp
*~
.#*
.DS_Store
Thumbs.db
.idea/
.vscode/*
!.vscode/settings.json
docs/**/*.html
**/testdata/golden/*.out
/tmp/
*.test
cmd/*/debug
`

// benchPaths returns a few thousand paths as a walker would visit them.
func benchPaths() []string {
	var paths []string
	exts := []string{".go", "_test.go", ".md", ".o", ".log", ".py", ".pyc", ".html", ".json", ".swp"}
	for d := 0; d < 40; d++ {
		dir := fmt.Sprintf("internal/pkg%02d", d)
		if d%4 == 0 {
			dir += "/sub" + fmt.Sprint(d)
		}
		paths = append(paths, dir)
		for f := 0; f < 60; f++ {
			paths = append(paths, fmt.Sprintf("%s/file%03d%s", dir, f, exts[f%len(exts)]))
		}
	}
	paths = append(paths, "docs/a/b/index.html", "cmd/tool/debug", ".vscode/settings.json",
		"node_modules", "build", ".env", "id_rsa", "key.pem", "README.md", "go.mod")
	return paths
}

// BenchmarkMatch measures one Match call against secret excludes, a root
// .gitignore and a nested one.
func BenchmarkMatch(b *testing.B) {
	secrets := ParsePatterns([]byte(strings.Join([]string{".env*", "*.pem", "id_*", "*.key"}, "\n")), "", "ctxgit:secrets")
	m := New(secrets).
		Push(ParsePatterns([]byte(benchGitignore), "", ".gitignore")).
		Push(ParsePatterns([]byte("*.gen.go\n!keep.o\n"), "internal", "internal/.gitignore"))
	paths := benchPaths()
	isDir := make([]bool, len(paths))
	for i, p := range paths {
		isDir[i] = !strings.Contains(p[strings.LastIndexByte(p, '/')+1:], ".")
	}
	ignored := 0
	for i, p := range paths {
		if m.Match(p, isDir[i]) {
			ignored++
		}
	}
	if ignored == 0 || ignored == len(paths) {
		b.Fatalf("%d of %d paths ignored: not a useful mix", ignored, len(paths))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(paths)
		benchSink = m.Match(paths[k], isDir[k])
	}
}

// benchSink keeps the compiler from discarding Match calls.
var benchSink bool
