package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
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
	for _, path := range moduleFiles(t, func(rel string) bool { return strings.HasSuffix(rel, "_test.go") }) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range def.FindAllSubmatch(data, -1) {
			defined[string(m[1])] = true
		}
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
		data, err := os.ReadFile(filepath.Join(pkgDir, "../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllSubmatch(data, -1) {
			if !exists(string(m[1]), len(m[2]) > 0) {
				t.Errorf("%s names %s, which no _test.go file defines", doc, m[1])
			}
		}
		// A -run pattern's names: go test matches them anywhere in a
		// test's name, so one without $ stands for every test it begins
		// (a table's \| is its |).
		for _, m := range runPattern.FindAllSubmatch(data, -1) {
			for _, alt := range strings.Split(strings.ReplaceAll(string(m[1]), `\|`, "|"), "|") {
				n := runName.FindStringSubmatch(alt)
				if n == nil {
					continue
				}
				if !exists(n[1], n[2] == "") {
					t.Errorf("%s: the pattern '%s' names %s, which no _test.go file defines", doc, m[1], n[1])
				}
			}
		}
	}
}

// runPattern is a quoted -run pattern in a doc that begins with a test
// function's name; runName is one alternative's name, with the $ that
// makes it whole.
var (
	runPattern = regexp.MustCompile(`'\^?((?:Test|Benchmark|Fuzz)[^'\n]*)'`)
	runName    = regexp.MustCompile(`^\^?((?:Test|Benchmark|Fuzz)[A-Za-z0-9_]*)(\$?)`)
)

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
		fi, err := os.Stat(filepath.Join(pkgDir, "../..", b.path))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > int64(b.max) {
			t.Errorf("%s is %d bytes, over its budget of %d (issue 36): cut repetition and history (git keeps it)", b.path, fi.Size(), b.max)
		}
	}
}

// TestDocsNameFilesOutsideWorktree: the README's and SPEC's lists of what
// ctxgit writes outside the worktree (issue 36 item 8) name the files the
// hooks keep in ctxgit's folder of the user's cache directory: the log of
// hooks that could not log in a workspace (hooks.UserLogPath) and
// OpenClaw's map of session keys to repositories.
func TestDocsNameFilesOutsideWorktree(t *testing.T) {
	for _, doc := range []string{"README.md", "spec/SPEC.md"} {
		data, err := os.ReadFile(filepath.Join(pkgDir, "../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		i := strings.Index(text, "Outside the worktree")
		if i < 0 {
			t.Errorf("%s: no \"Outside the worktree\" list", doc)
			continue
		}
		list := text[i:]
		if j := strings.Index(list, "\n\n"); j >= 0 {
			list = list[:j]
		}
		for _, want := range []string{"cache directory", "ctxgit.log", "openclaw-sessions.json"} {
			if !strings.Contains(list, want) {
				t.Errorf("%s: the list of what ctxgit writes outside the worktree does not name %q", doc, want)
			}
		}
	}
}

// TestNoParenthesisedPlurals: no text the program prints counts with
// "file(s)" (issue 36 item 5: plurals are words, spec.Plural writes
// them). It reads every string literal of the module's non-test Go files
// and every help page.
func TestNoParenthesisedPlurals(t *testing.T) {
	paren := regexp.MustCompile(`[A-Za-z]\((?:s|es)\)`)
	fset := token.NewFileSet()
	read := moduleFiles(t, func(rel string) bool {
		return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") ||
			strings.HasSuffix(rel, ".md") && path.Base(path.Dir(rel)) == "help"
	})
	for _, file := range read {
		if strings.HasSuffix(file, ".md") {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if m := paren.Find(data); m != nil {
				t.Errorf("%s: %q: say the plural in words", file, m)
			}
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && paren.MatchString(s) {
				t.Errorf("%s: %q: say the plural in words (spec.Plural)", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}

// moduleFiles lists the files of the module (from its root, this
// package's directory's grandparent) whose slash-separated path from the
// root keep accepts, skipping testdata and hidden folders (.git among
// them). The paths it returns are absolute: the scripts run in process
// change the process's directory. A walk that keeps nothing fails the
// test, which would otherwise pass having read nothing.
func moduleFiles(t *testing.T, keep func(rel string) bool) []string {
	t.Helper()
	root := filepath.Join(pkgDir, "..", "..")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if keep(filepath.ToSlash(rel)) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no file of the module under %s matched", root)
	}
	return files
}

// TestDocsTableRows: every row of a table in the docs has its header's
// number of cells. A | inside a cell's code (a -run pattern's
// alternatives) must be written \| in a table, else it splits the cell
// and the rendered command loses the rest of its pattern.
func TestDocsTableRows(t *testing.T) {
	bar := regexp.MustCompile(`(^|[^\\])\|`)
	cells := func(l string) int { return len(bar.FindAllStringIndex(strings.ReplaceAll(l, "||", "| |"), -1)) }
	docs := moduleFiles(t, func(rel string) bool { return strings.HasSuffix(rel, ".md") && !strings.Contains(rel, "/help/") })
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		header := 0
		for i, l := range strings.Split(string(data), "\n") {
			switch {
			case !strings.HasPrefix(l, "|"):
				header = 0
			case header == 0:
				header = cells(l)
			case cells(l) != header:
				t.Errorf("%s:%d: %d cells in a table of %d: write a | inside a cell as \\|", doc, i+1, cells(l)-1, header-1)
			}
		}
	}
}
