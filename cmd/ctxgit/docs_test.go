package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameRealTests: every Test, Benchmark or Fuzz function the
// contributor docs name exists in the module, so a doc never points at a
// test that was removed (issue 36: ARCHITECTURE.md named
// TestJSONScanCopy after it was gone).
func TestDocsNameRealTests(t *testing.T) {
	defined := map[string]bool{}
	def := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Za-z0-9_]+)\(`)
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range def.FindAllSubmatch(data, -1) {
				defined[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A name ending in * stands for every function it begins.
	named := regexp.MustCompile("`((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)(\\*?)")
	exists := func(name string, prefix bool) bool {
		if !prefix {
			return defined[name]
		}
		for d := range defined {
			if strings.HasPrefix(d, name) {
				return true
			}
		}
		return false
	}
	for _, doc := range []string{"ARCHITECTURE.md", "CONTRIBUTING.md", "docs/design.md", "docs/PERFORMANCE.md", "README.md"} {
		data, err := os.ReadFile(filepath.Join("../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllSubmatch(data, -1) {
			if !exists(string(m[1]), len(m[2]) > 0) {
				t.Errorf("%s names %s, which no _test.go file defines", doc, m[1])
			}
		}
	}
}

// docBudgets are the byte budgets of the docs a reader takes in whole
// (issue 36): PERFORMANCE.md holds current figures only, each with the
// command that produced it (their history is in git), and design.md
// holds decisions and their reasons, not their every measurement.
// SPEC.md's budget is held by spec.TestSpecSize.
var docBudgets = []struct {
	path string
	max  int
}{
	{"docs/PERFORMANCE.md", 20000},
	{"docs/design.md", 60000},
}

// TestDocsSize holds each budgeted doc to its size in bytes, as wc -c
// counts.
func TestDocsSize(t *testing.T) {
	for _, b := range docBudgets {
		fi, err := os.Stat(filepath.Join("../..", b.path))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > int64(b.max) {
			t.Errorf("%s is %d bytes, over its budget of %d (issue 36): cut repetition and history (git keeps it)", b.path, fi.Size(), b.max)
		}
	}
}
