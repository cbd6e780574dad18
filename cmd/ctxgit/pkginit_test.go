package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// initWork are calls that compile or build something: at package level
// they run in every ctxgit process before main, a hook's on every tool
// call included (docs/PERFORMANCE.md, "Cost per tool call").
var initWork = map[string]bool{
	"regexp.MustCompile": true, "regexp.Compile": true, "regexp.MustCompilePOSIX": true,
	"template.Must": true, "template.New": true,
}

// TestNoPackageLevelWork fails on a package-level variable of ctxgit's own
// code (tests and scripts aside) initialised by compiling a regular
// expression or parsing a template: each is built on first use instead
// (sync.OnceValue), so a process that never uses it never pays for it.
func TestNoPackageLevelWork(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	// scripts/ holds the measuring tools (benchrun, genws), not ctxgit.
	for _, path := range moduleFiles(t, func(rel string) bool {
		return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.HasPrefix(rel, "scripts/")
	}) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					ast.Inspect(v, func(n ast.Node) bool {
						if _, ok := n.(*ast.FuncLit); ok {
							return false // runs when called, not at init
						}
						call, ok := n.(*ast.CallExpr)
						if !ok {
							return true
						}
						if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
							if x, ok := sel.X.(*ast.Ident); ok && initWork[x.Name+"."+sel.Sel.Name] {
								t.Errorf("%s: %s.%s at package level: build it on first use", fset.Position(call.Pos()), x.Name, sel.Sel.Name)
							}
						}
						return true
					})
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: the walk missed the module", checked)
	}
}
