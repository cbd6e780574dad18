package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

// readmePath is the README, from this package's directory (pkgDir: the
// scripts run in process change the process's directory while parallel
// tests read it).
const readmePath = "../../README.md"

// readmeSection returns the lines of the README section under heading
// (a "## " line), up to the next "## " heading.
func readmeSection(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pkgDir, readmePath))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "## ") {
			if in {
				break
			}
			in = l == heading
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	if !in {
		t.Fatalf("README.md has no %q section", heading)
	}
	return out
}

// readmeBlocks returns the section's indented code blocks, unindented,
// each as its lines.
func readmeBlocks(lines []string) [][]string {
	var blocks [][]string
	var cur []string
	flush := func() {
		for len(cur) > 0 && cur[len(cur)-1] == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			blocks = append(blocks, cur)
		}
		cur = nil
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "    "):
			cur = append(cur, l[4:])
		case l == "" && len(cur) > 0:
			cur = append(cur, "")
		default:
			flush()
		}
	}
	flush()
	return blocks
}

// TestREADMELength holds the README to what a person reads in five
// minutes (issue 36), with exactly the two commands under its heading
// that the next paragraph describes: the demo and the tests.
func TestREADMELength(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(pkgDir, readmePath))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 200 {
		t.Errorf("README.md has %d lines, want at most 200", n)
	}
	blocks := readmeBlocks(readmeSection(t, "## The two commands"))
	var cmds []string
	for _, b := range blocks {
		cmds = append(cmds, b...)
	}
	want := []string{"go run ./cmd/ctxgit demo", "go test ./..."}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("README's two commands are %q, want %q", cmds, want)
	}
	// Nothing that does not work yet is offered as an install line.
	for _, b := range readmeBlocks(readmeSection(t, "## Install")) {
		for _, l := range b {
			if l != "go install ./cmd/..." {
				t.Errorf("README's Install offers %q: only the install from a clone works today (release channels go to docs/install.md)", l)
			}
		}
	}
}

// TestREADMETour runs the README's tour as written, in a new git
// repository at /src/app, and checks that each command prints exactly
// what the README shows; it checks the demo's block the same way. A
// block that starts "## Plan:" is the plan the tour's agent keeps, and is
// written to .active-plan.md where it stands.
func TestREADMETour(t *testing.T) {
	t.Parallel()
	var script strings.Builder
	script.WriteString("gitinit src/app\ncd src/app\nexec git commit -q --allow-empty -m init\n")
	files := map[string]string{}
	n := 0
	for _, b := range readmeBlocks(readmeSection(t, "## A short tour")) {
		if strings.HasPrefix(b[0], "## Plan:") {
			n++
			name := fmt.Sprintf("plan%d.md", n)
			files[name] = strings.Join(b, "\n") + "\n"
			fmt.Fprintf(&script, "cp $WORK/%s .active-plan.md\n", name)
			continue
		}
		if !strings.HasPrefix(b[0], "$ ") {
			t.Fatalf("README tour: a block that is neither a plan nor commands: %q", b[0])
		}
		for i := 0; i < len(b); {
			cmd := strings.TrimPrefix(b[i], "$ ")
			j := i + 1
			for j < len(b) && !strings.HasPrefix(b[j], "$ ") {
				j++
			}
			out := b[i+1 : j]
			for len(out) > 0 && out[len(out)-1] == "" {
				out = out[:len(out)-1]
			}
			args, err := splitShell(cmd)
			if err != nil || len(args) == 0 || args[0] != "ctxgit" {
				t.Fatalf("README tour: %q is not a ctxgit command (%v)", cmd, err)
			}
			n++
			name := fmt.Sprintf("out%d.txt", n)
			files[name] = strings.Join(out, "\n")
			if len(out) > 0 {
				files[name] += "\n"
			}
			quoted := make([]string, len(args)-1)
			for k, a := range args[1:] {
				quoted[k] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
			}
			fmt.Fprintf(&script, "\n# %s\nctxgit %s\nreadmeout $WORK/%s\n", cmd, strings.Join(quoted, " "), name)
			i = j
		}
	}

	// The demo's block: the README shows it after the summary line.
	blocks := readmeBlocks(readmeSection(t, "## What the model gets back"))
	if len(blocks) != 2 || !strings.HasPrefix(blocks[1][0], "# Post-Compaction Recovery") {
		t.Fatalf("README's 'What the model gets back' wants the host's summary line and the recovery block, got %d blocks", len(blocks))
	}
	files["block.txt"] = strings.Join(blocks[1], "\n") + "\n"
	files["summary.txt"] = strings.Join(blocks[0], "\n") + "\n"
	script.WriteString("\n# The demo's block and the host's summary it stands beside.\ncd $WORK\nctxgit demo --dir demo\nreadmeblock block.txt\nexec grep -F -f summary.txt demo/.ctxgit/local/demo-transcript.jsonl\n")

	for name, content := range files {
		fmt.Fprintf(&script, "-- %s --\n%s", name, content)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tour.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scriptParams(dir)
	p.Cmds["readmeout"] = cmdReadmeOut
	p.Cmds["readmeblock"] = cmdReadmeBlock
	testscript.Run(t, p)
}

// readmeout FILE checks that the last command's stdout, then its
// stderr, with $WORK shown as the README shows it (/), is FILE's text.
func cmdReadmeOut(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: readmeout FILE")
	}
	got := ts.ReadFile("stdout") + ts.ReadFile("stderr")
	got = strings.ReplaceAll(got, ts.Getenv("WORK")+string(filepath.Separator), "/")
	want := ts.ReadFile(args[0])
	if got != want {
		ts.Fatalf("the README shows:\n%s\nthe program prints:\n%s", want, got)
	}
}

// readmeblock FILE checks that the demo's stdout holds FILE's text as
// the block the model got after the compaction.
func cmdReadmeBlock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: readmeblock FILE")
	}
	out := ts.ReadFile("stdout")
	_, after, ok := strings.Cut(out, "== What the model got after the compaction ==\n\n")
	block, _, _ := strings.Cut(after, "\n== ")
	if !ok || block != ts.ReadFile(args[0]) {
		ts.Fatalf("the README's block is not the demo's; the demo's is:\n%s", block)
	}
}

// splitShell splits a README command line as a POSIX shell would for
// the words it uses: single and double quotes, no expansions.
func splitShell(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\'' || r == '"':
			end := strings.IndexRune(s[i+1:], r)
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 2
			continue
		case r == '#' && !inWord:
			i = len(s)
			continue
		default:
			cur.WriteRune(r)
			inWord = true
		}
		i += size
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// TestREADMEHosts runs each line of the README's "Hosts" block as
// written, each in a new git repository, and checks that it prints no
// error and writes the file its comment names (~ is the home).
func TestREADMEHosts(t *testing.T) {
	t.Parallel()
	blocks := readmeBlocks(readmeSection(t, "## Hosts"))
	if len(blocks) != 1 {
		t.Fatalf("README's Hosts section: %d code blocks, want 1", len(blocks))
	}
	var script strings.Builder
	for i, l := range blocks[0] {
		cmd, comment, ok := strings.Cut(l, "#")
		args, err := splitShell(strings.TrimSpace(cmd))
		if !ok || err != nil || len(args) < 2 || args[0] != "ctxgit" {
			t.Fatalf("README Hosts: %q is not a ctxgit command with a comment naming its file (%v)", l, err)
		}
		// The file is the comment's first word that is a path, the
		// comment's words after it a remark.
		var file string
		for _, f := range strings.Fields(strings.Trim(strings.TrimSpace(comment), "()")) {
			f = strings.Trim(f, "()")
			if strings.Contains(f, "/") || strings.HasPrefix(f, ".") {
				file = f
				break
			}
		}
		if file == "" {
			t.Fatalf("README Hosts: %q names no file in its comment", l)
		}
		file = strings.Replace(file, "~", "$HOME", 1)
		quoted := make([]string, len(args)-1)
		for k, a := range args[1:] {
			quoted[k] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		}
		fmt.Fprintf(&script, "\n# %s\ncd $WORK\ngitinit r%d\ncd r%d\nctxgit %s\n! stderr .\nexists %s\n", l, i, i, strings.Join(quoted, " "), file)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hosts.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, scriptParams(dir))
}
