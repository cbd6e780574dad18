package mcpserver

import (
	"os"
	"testing"
)

// TestMain runs the test binary as the server itself, Main over its
// stdin and stdout, when CTXGIT_TEST_MCP_ROOT is set: a test that must
// kill the server's process outright (TestStatusChildDiesWithServer)
// starts it so.
func TestMain(m *testing.M) {
	if root := os.Getenv("CTXGIT_TEST_MCP_ROOT"); root != "" {
		os.Exit(Main([]string{Program, "--root", root, "--ctxgit", os.Getenv("CTXGIT_TEST_MCP_CTXGIT")}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
