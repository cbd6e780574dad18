package main

import "os"

// executable is this program's path (os.Executable): hook commands name
// it when ctxgit is not on PATH, the MCP server is told it, and siblings
// are found beside it. The acceptance scripts run ctxgit inside the test
// process and point it at the ctxgit they built (inprocess_test.go), so
// nothing written or run names the test binary.
var executable = os.Executable
