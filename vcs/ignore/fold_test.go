package ignore

import (
	"fmt"
	"testing"
)

// foldRules are patterns and paths that differ in case; with
// core.ignoreCase git ignores each path its pattern matches whatever the
// case (TestFoldCaseAgainstGit checks the table against git itself).
var foldRules = []rule{
	{"*.PEM\n", "server.pem", false, true},
	{"*.pem\n", "SERVER.PEM", false, true},
	{"Build/\n", "build", true, true},
	{"/Docs/Out\n", "docs/OUT", false, true},
	{"node_modules\n", "Node_Modules", true, true},
	{".env*\n", ".ENV.local", false, true},
	{"[A-C]x\n", "bx", false, true},
	{"[a-c]x\n", "BX", false, true},
	{"[[:upper:]]q\n", "aq", false, true},
	{"[[:lower:]]q\n", "Aq", false, true},
	{"Foo\n!FOO\n", "foo", false, false},
	{"a/**/B\n", "A/x/b", false, true},
	{"*.txt\n", "notes.md", false, false},
}

func TestFoldCase(t *testing.T) {
	for i, tc := range foldRules {
		m := New(FoldCase(ParsePatterns([]byte(tc.gitignore), "Sub", "Sub/.gitignore")))
		if got := m.Match(FoldPath("sub/"+tc.path), tc.dir); got != tc.want {
			t.Errorf("row %d: patterns %q, path %q: got %v, want %v", i, tc.gitignore, tc.path, got, tc.want)
		}
	}
	if FoldPath("abc/é") != "abc/é" || FoldPath("ABC/É") != "abc/É" {
		t.Fatalf("FoldPath folds only ASCII: %q", FoldPath("ABC/É"))
	}
}

func TestFoldCaseAgainstGit(t *testing.T) {
	r := newGitRepo(t)
	r.git(t, nil, "config", "core.ignorecase", "true")
	var paths []string
	for i, tc := range foldRules {
		base := fmt.Sprintf("r%d", i)
		r.writeFile(t, base+"/.gitignore", []byte(tc.gitignore))
		p := base + "/" + tc.path
		if tc.dir {
			r.mkdir(t, p)
		} else {
			r.writeFile(t, p, nil)
		}
		paths = append(paths, p)
	}
	got := r.checkIgnore(t, "", paths)
	for i, tc := range foldRules {
		p := paths[i]
		if ignored := explainIgnores(got[p]); ignored != tc.want {
			t.Errorf("row %d: patterns %q, path %q: git says ignored=%v (%q), table says %v", i, tc.gitignore, tc.path, ignored, got[p], tc.want)
		}
	}
}
