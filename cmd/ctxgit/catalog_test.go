package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docs/BAD-INPUT.md lists at least 40 refused inputs, each a testscript
// case; every row must still be the line it names, so the catalog cannot
// drift from the scripts.
func TestBadInputCatalog(t *testing.T) {
	doc, err := os.ReadFile("../../docs/BAD-INPUT.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| ([a-z0-9_]+\\.txtar):([0-9]+) \\| `(.*)` \\| ([0-9]+) \\| (.*) \\|$")
	rows := 0
	for _, l := range strings.Split(string(doc), "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rows++
		script, err := os.ReadFile("../../testdata/scripts/" + m[1])
		if err != nil {
			t.Errorf("%s: %v", l, err)
			continue
		}
		lines := strings.Split(string(script), "\n")
		n, _ := strconv.Atoi(m[2]) // the pattern holds digits only
		cmd := strings.ReplaceAll(strings.TrimSuffix(m[3], " (read-only: root without CAP_DAC_OVERRIDE)"), "\\|", "|")
		want := "exits " + m[4] + " " + cmd
		if strings.HasSuffix(m[3], "(read-only: root without CAP_DAC_OVERRIDE)") {
			want = "exits -noperm " + m[4] + " " + cmd
		}
		if n < 1 || n > len(lines) || lines[n-1] != want {
			t.Errorf("docs/BAD-INPUT.md names %s:%s as %q; the script has something else there: update the catalog", m[1], m[2], want)
		}
	}
	if rows < 40 {
		t.Errorf("docs/BAD-INPUT.md lists %d refused inputs, want at least 40", rows)
	}
}
