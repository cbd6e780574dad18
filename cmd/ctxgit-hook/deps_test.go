package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHookBinaryDeps keeps ctxgit-hook small: the packages it links are
// initialised on every tool call, so none of ctxgit's heavy dependencies
// (or its own packages beyond internal/hookpath, internal/tail,
// internal/jsonscan and internal/regfile, the file rule's reads, in
// syscall alone) may reach it
// (docs/PERFORMANCE.md, "The tool-call hook's own binary").
func TestHookBinaryDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	heavy := []string{"github.com/yuin/goldmark", "github.com/urfave/cli", "github.com/cpuguy83/go-md2man",
		"github.com/russross/blackfriday", "github.com/go-git/", "gopkg.in/yaml", "text/template", "html/template", "regexp"}
	own := map[string]bool{"github.com/ctxgit/ctxgit/cmd/ctxgit-hook": true, "github.com/ctxgit/ctxgit/internal/hookpath": true,
		"github.com/ctxgit/ctxgit/internal/jsonscan": true, "github.com/ctxgit/ctxgit/internal/regfile": true,
		"github.com/ctxgit/ctxgit/internal/tail": true}
	for _, p := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(p, h) {
				t.Errorf("ctxgit-hook links %s", p)
			}
		}
		if strings.HasPrefix(p, "github.com/ctxgit/ctxgit/") && !own[p] {
			t.Errorf("ctxgit-hook links %s: only internal/hookpath, internal/tail, internal/jsonscan and internal/regfile of ctxgit's packages belong on the tool-call path", p)
		}
		if strings.Contains(p, ".") && !strings.HasPrefix(p, "github.com/ctxgit/ctxgit/") && !strings.HasPrefix(p, "vendor/") {
			t.Errorf("ctxgit-hook links %s: the tool-call path is the standard library only", p)
		}
	}
}
