package main

import (
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// capture NAME REGEXP sets the environment variable NAME to the first
// group of REGEXP's first match in the last command's stdout (a commit
// id the script cannot know ahead), failing when nothing matches.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("capture: no match for %q with a group in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}
