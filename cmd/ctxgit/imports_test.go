package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// vcsPath is the store package the command layer must not import: it
// talks to workspace and the feature packages, which name what it needs
// of vcs (workspace.Hash, workspace.Progress, workspace.ExitCode,
// retention.RepackResult).
const vcsPath = "github.com/ctxgit/ctxgit/vcs"

// importsVCS reports whether import path p is vcs or below it.
func importsVCS(p string) bool { return p == vcsPath || strings.HasPrefix(p, vcsPath+"/") }

func TestImportsVCS(t *testing.T) {
	for p, want := range map[string]bool{
		"github.com/ctxgit/ctxgit/vcs":         true,
		"github.com/ctxgit/ctxgit/vcs/ignore":  true,
		"github.com/ctxgit/ctxgit/vcs/vcstest": true,
		"github.com/ctxgit/ctxgit/vcsx":        false, // a prefix of a name is not the package
		"github.com/ctxgit/ctxgit/workspace":   false,
		"github.com/ctxgit/ctxgit/retention":   false,
	} {
		if got := importsVCS(p); got != want {
			t.Errorf("importsVCS(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestNoVCSImports holds ARCHITECTURE.md's layering for the command:
// cmd/ctxgit → host/* and the feature packages → workspace → vcs, with no
// arrow skipping workspace. It reads every Go file of the command, tests
// and OS-specific files included (go list would only see this
// platform's), so an import of vcs anywhere fails it.
func TestNoVCSImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if importsVCS(p) {
				t.Errorf("cmd/ctxgit/%s imports %s: the command reaches the store through workspace and the feature packages (ARCHITECTURE.md)", path, p)
			}
		}
	}
	// Guard against reading the wrong folder and passing on nothing.
	if _, err := os.Stat("main.go"); err != nil || len(files) < 20 {
		wd, _ := os.Getwd()
		t.Fatalf("read %d Go files in %s, expected the ctxgit command", len(files), wd)
	}
}
