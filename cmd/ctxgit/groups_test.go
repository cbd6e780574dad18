package main

import (
	"io"
	"strings"
	"testing"
)

// Every visible command sits in one of the two help groups, and the
// plumbing list names only commands that exist (a renamed command would
// otherwise fall silently among a person's).
func TestHelpGroups(t *testing.T) {
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	seen := map[string]bool{}
	for _, c := range a.cli.Commands {
		seen[c.Name] = true
		if c.Hidden {
			continue
		}
		want := groupPeople
		if plumbing[c.Name] {
			want = groupPlumbing
		}
		if c.Category != want {
			t.Errorf("%s: group %q, want %q", c.Name, c.Category, want)
		}
	}
	for name := range plumbing {
		if !seen[name] {
			t.Errorf("plumbing names %q, which is no command", name)
		}
	}
}
