package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/workspace"
)

// fakeCtxgit writes a shell script standing in for ctxgit: it prints its
// arguments and CTXGIT_SESSION, as JSON for --json and as text otherwise,
// or fails as ctxgit fails when FAIL is set.
func fakeCtxgit(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for ctxgit is a shell script")
	}
	p := filepath.Join(t.TempDir(), "ctxgit")
	script := `#!/bin/sh
if [ -n "$FAIL" ]; then echo "ctxgit: $FAIL" >&2; echo "more" >&2; exit 4; fi
case "$1" in
--json) printf '{"args":"%s","env_session":"%s"}\n' "$*" "${CTXGIT_SESSION-unset}" ;;
*) printf 'text: %s\n' "$*" ;;
esac
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOverviewRunsCtxgit: the status tool's overview is `ctxgit --json`
// and `ctxgit` on the call's workspace, the server's session passed as
// --session and never through the environment.
func TestOverviewRunsCtxgit(t *testing.T) {
	overview := overviewOf(fakeCtxgit(t))
	w := &workspace.Workspace{Root: "/work/space"}
	t.Setenv("CTXGIT_SESSION", "from-env")

	out, text, err := overview(context.Background(), w, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if out["args"] != "--json --root /work/space" || out["env_session"] != "unset" {
		t.Errorf("json overview ran with %v", out)
	}
	if text != "text: --color never --no-pager --root /work/space\n" {
		t.Errorf("text overview: %q", text)
	}

	out, text, err = overview(context.Background(), w, "claude-code/abc", true)
	if err != nil {
		t.Fatal(err)
	}
	if out["args"] != "--json --root /work/space --session claude-code/abc" || out["env_session"] != "unset" {
		t.Errorf("json overview of a named session ran with %v", out)
	}
	if !strings.HasSuffix(text, "--session claude-code/abc\n") {
		t.Errorf("text overview of a named session: %q", text)
	}
}

// TestOverviewError: ctxgit's refusal is the tool error, its first line
// without a second "ctxgit: ".
func TestOverviewError(t *testing.T) {
	overview := overviewOf(fakeCtxgit(t))
	t.Setenv("FAIL", "/work/space is not a workspace")
	_, _, err := overview(context.Background(), &workspace.Workspace{Root: "/work/space"}, "", false)
	if err == nil || err.Error() != "/work/space is not a workspace" {
		t.Fatalf("err = %v", err)
	}
	missing := overviewOf(filepath.Join(t.TempDir(), "no-ctxgit"))
	_, _, err = missing(context.Background(), &workspace.Workspace{Root: "/work/space"}, "", false)
	if err == nil || !strings.Contains(err.Error(), "running ") || !strings.Contains(err.Error(), "for the overview") {
		t.Fatalf("a missing ctxgit: err = %v", err)
	}
}
