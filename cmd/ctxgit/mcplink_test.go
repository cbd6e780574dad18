package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCtxgitLinksNoMCP: every ctxgit process, every hook included, runs
// the package initialisation of everything the binary links, so the MCP
// SDK and what it brings (net/http, crypto/tls, OAuth2, JSON Schema) stay
// in ctxgit-mcp (docs/PERFORMANCE.md, "The MCP server's own binary").
func TestCtxgitLinksNoMCP(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps named %d packages: not ctxgit's list", len(deps))
	}
	banned := []string{"github.com/modelcontextprotocol/", "github.com/ctxgit/ctxgit/mcpserver", "github.com/google/jsonschema-go",
		"golang.org/x/oauth2", "github.com/segmentio/", "net/http", "crypto/tls", "encoding/gob"}
	for _, p := range deps {
		for _, b := range banned {
			if p == b || strings.HasPrefix(p, b+"/") || (strings.HasSuffix(b, "/") && strings.HasPrefix(p, b)) {
				t.Errorf("ctxgit links %s: it belongs in ctxgit-mcp alone", p)
			}
		}
	}
}
