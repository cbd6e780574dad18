package workspace

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// upward are the import paths above workspace in ARCHITECTURE.md's
// dependency rule: the host tree (hook answers, host configs and
// transcripts) and the feature packages split out of workspace, those
// done (review) and those planned (restore, sharing, retention), so a
// feature moved out cannot be imported back.
var upward = []string{
	"github.com/ctxgit/ctxgit/host",
	"github.com/ctxgit/ctxgit/review",
	"github.com/ctxgit/ctxgit/restore",
	"github.com/ctxgit/ctxgit/sharing",
	"github.com/ctxgit/ctxgit/retention",
}

// importsUpward reports whether import path p is one of upward or below
// one of them.
func importsUpward(p string) bool {
	for _, u := range upward {
		if p == u || strings.HasPrefix(p, u+"/") {
			return true
		}
	}
	return false
}

func TestImportsUpward(t *testing.T) {
	for p, want := range map[string]bool{
		"github.com/ctxgit/ctxgit/host/hooks":    true,
		"github.com/ctxgit/ctxgit/review":        true,
		"github.com/ctxgit/ctxgit/restore":       true,
		"github.com/ctxgit/ctxgit/vcs":           false,
		"github.com/ctxgit/ctxgit/internal/proc": false,
		"github.com/ctxgit/ctxgit/reviewer":      false, // a prefix of a name is not the package
		"strings":                                false,
	} {
		if got := importsUpward(p); got != want {
			t.Errorf("importsUpward(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestNoHostImports holds the dependency rule of ARCHITECTURE.md: host
// code and feature packages import workspace, never the reverse. It reads
// every Go file under workspace/, tests and OS-specific files included
// (go list would only see this platform's), so an import of host/... or
// of a feature package anywhere fails it.
func TestNoHostImports(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if importsUpward(p) {
				t.Errorf("workspace/%s imports %s: workspace must not import host code or a feature package (ARCHITECTURE.md)", filepath.ToSlash(path), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Guard against walking the wrong folder and passing on nothing.
	if _, err := os.Stat("workspace.go"); err != nil || checked < 10 {
		t.Fatalf("checked %d Go files in %s, expected the workspace package", checked, mustGetwd(t))
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
