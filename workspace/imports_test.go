package workspace

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ctxgit/ctxgit/"

// The groups of ARCHITECTURE.md's dependency rule, as module-relative
// package paths (a group holds the packages below its paths too).
var (
	hostGroup    = []string{"host"}
	featureGroup = []string{"review", "restore", "sharing", "retention", "gitlink"}
	taskGroup    = []string{"taskstate"}
	coreGroup    = []string{"workspace"}
	vcsGroup     = []string{"vcs"}
	markdownPkg  = []string{"markdown"}
	internalPkgs = []string{"internal"}
	mcpGroup     = []string{"mcpserver"}
)

// layerRule says which imports the Go files under dir must not make.
type layerRule struct {
	dir       string
	forbidden [][]string
	why       string
	testsToo  bool // false: test files may import upward (spec's run the examples)
	// only, when set, is the whole of what the files may import of this
	// module: anything else is forbidden.
	only []string
}

// importExceptions are imports a rule refuses that are allowed all the
// same, as "importing package -> imported package", each with its
// reason. ARCHITECTURE.md names each one.
var importExceptions = map[string]string{
	// A test helper: it knows the workspace's lock file by spec's name
	// for the local directory, as the tests it serves do.
	"internal/wstest -> spec": "imported by tests only, it names the workspace's lock by spec.LocalDir",
}

var layerRules = []layerRule{
	{"mcpserver", [][]string{hostGroup}, "the MCP server is an adapter beside host code: what it needs of the hosts the command composes in", true, nil},
	{"workspace", [][]string{hostGroup, featureGroup, taskGroup, mcpGroup}, "workspace must not import host code, a feature package or the task-state contract", true, nil},
	{"taskstate", [][]string{hostGroup, featureGroup, mcpGroup}, "the task-state contract sits below host code and the feature packages, above workspace", true, nil},
	{"cmd/ctxgit", [][]string{vcsGroup}, "the command reaches the store through workspace and the feature packages", true, nil},
	{"host", [][]string{featureGroup, mcpGroup}, "host code and the feature packages sit side by side; what both name lives in workspace", true, nil},
	{"review", [][]string{hostGroup, mcpGroup, without(featureGroup, "review")}, "a feature package imports no host code and no other feature", true, nil},
	{"restore", [][]string{hostGroup, mcpGroup, without(featureGroup, "restore")}, "a feature package imports no host code and no other feature", true, nil},
	{"sharing", [][]string{hostGroup, mcpGroup, without(featureGroup, "sharing")}, "a feature package imports no host code and no other feature", true, nil},
	{"retention", [][]string{hostGroup, mcpGroup, without(featureGroup, "retention")}, "a feature package imports no host code and no other feature", true, nil},
	{"gitlink", [][]string{hostGroup, mcpGroup, without(featureGroup, "gitlink")}, "a feature package imports no host code and no other feature", true, nil},
	{"vcs", [][]string{coreGroup, taskGroup, featureGroup, hostGroup, markdownPkg}, "vcs is below workspace and beside markdown", true, nil},
	{"markdown", [][]string{coreGroup, taskGroup, featureGroup, hostGroup, vcsGroup}, "markdown is below workspace and beside vcs", true, nil},
	{"spec", [][]string{coreGroup, taskGroup, featureGroup, hostGroup, vcsGroup, markdownPkg}, "spec imports nothing of ours", false, nil},
	{dir: "internal", only: internalPkgs, why: "internal/* import nothing of ours but each other", testsToo: true},
	{"host/transcript", [][]string{coreGroup, taskGroup, {"host/hooks", "host/config"}}, "host/transcript imports no workspace and no other host package", true, nil},
	{"host/hooks", [][]string{{"host/config"}}, "host/* import each other only downward (hooks → transcript)", true, nil},
	{"host/config", [][]string{{"host/hooks", "host/transcript"}}, "host/* import each other only downward (hooks → transcript)", true, nil},
}

func without(group []string, name string) []string {
	var out []string
	for _, g := range group {
		if g != name {
			out = append(out, g)
		}
	}
	return out
}

// inGroup reports whether import path p is a package of group, or below
// one of them.
func inGroup(p string, group []string) bool {
	for _, g := range group {
		if p == module+g || strings.HasPrefix(p, module+g+"/") {
			return true
		}
	}
	return false
}

func TestInGroup(t *testing.T) {
	for p, want := range map[string]bool{
		module + "host/hooks":    true,
		module + "review":        true,
		module + "vcs":           false,
		module + "internal/proc": false,
		module + "reviewer":      false, // a prefix of a name is not the package
		"strings":                false,
	} {
		if got := inGroup(p, append(hostGroup, featureGroup...)); got != want {
			t.Errorf("inGroup(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestDependencyRule holds ARCHITECTURE.md's dependency rule over the
// whole module: cmd/ctxgit → host/* and the feature packages → workspace →
// spec, markdown, vcs, internal/*, no arrow skipping workspace and none
// between host code and features or between two features. It parses the
// import lists of every Go file, tests and OS-specific files included (go
// list would only see this platform's).
func TestDependencyRule(t *testing.T) {
	fset := token.NewFileSet()
	checked := map[string]int{}
	excused := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		for _, r := range layerRules {
			if !strings.HasPrefix(rel, r.dir+"/") || !r.testsToo && strings.HasSuffix(rel, "_test.go") {
				continue
			}
			checked[r.dir]++
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					return err
				}
				if !strings.HasPrefix(p, module) {
					continue
				}
				edge := filepath.ToSlash(filepath.Dir(rel)) + " -> " + strings.TrimPrefix(p, module)
				if _, ok := importExceptions[edge]; ok {
					excused[edge] = true
					continue
				}
				bad := r.only != nil && !inGroup(p, r.only)
				for _, g := range r.forbidden {
					bad = bad || inGroup(p, g)
				}
				if bad {
					t.Errorf("%s imports %s: %s (ARCHITECTURE.md)", rel, p, r.why)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Guard against walking the wrong folder and passing on nothing.
	for _, r := range layerRules {
		if checked[r.dir] == 0 {
			t.Errorf("no Go files checked under %s: the walk missed the module", r.dir)
		}
	}
	// An exception no import needs any more goes, with its line in
	// ARCHITECTURE.md.
	for edge := range importExceptions {
		if !excused[edge] {
			t.Errorf("exception %q: no such import any more; drop it", edge)
		}
	}
}

// TestMCPImportedOnlyByItsCommand: the MCP SDK is imported only by
// mcpserver, and mcpserver only by its own binary, cmd/ctxgit-mcp (and
// tests), so ctxgit, its hooks and every other command link none of it
// (ARCHITECTURE.md; cmd/ctxgit's TestCtxgitLinksNoMCP checks the link).
func TestMCPImportedOnlyByItsCommand(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			sdk := strings.HasPrefix(p, "github.com/modelcontextprotocol/")
			server := p == module+"mcpserver"
			switch {
			case sdk && strings.HasPrefix(rel, "mcpserver/"), server && rel == "cmd/ctxgit-mcp/main.go":
				seen++
			case sdk || server:
				t.Errorf("%s imports %s: only mcpserver imports the MCP SDK, and only cmd/ctxgit-mcp/main.go imports mcpserver", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 2 {
		t.Errorf("found %d of the expected imports: the walk missed the module", seen)
	}
}
