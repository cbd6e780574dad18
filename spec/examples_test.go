package spec_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ctxgit/ctxgit/markdown"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func readSpec(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// exampleRE matches an example marker and the fenced block after it.
var exampleRE = regexp.MustCompile("(?s)<!-- example: (examples/[^ ]+) -->\n```[a-z]*\n(.*?)```\n")

// SPEC §4.6, §5.5, §8.6, §10.5, §11, §12.1: every file in spec/examples is
// shown in EXAMPLES.md, the spec's examples, verbatim.
func TestSpecShowsExamples(t *testing.T) {
	data, err := os.ReadFile("EXAMPLES.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	shown := map[string]bool{}
	for _, m := range exampleRE.FindAllStringSubmatch(doc, -1) {
		want, err := os.ReadFile(m[1])
		if err != nil {
			t.Errorf("EXAMPLES.md shows %s: %v", m[1], err)
			continue
		}
		if m[2] != string(want) {
			t.Errorf("EXAMPLES.md's copy of %s differs from the file", m[1])
		}
		shown[m[1]] = true
	}
	if n := strings.Count(doc, "<!-- example: "); n != len(shown) {
		t.Errorf("%d example markers, %d matched a fenced block", n, len(shown))
	}
	files, err := filepath.Glob("examples/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !shown[filepath.ToSlash(f)] {
			t.Errorf("%s is not shown in EXAMPLES.md", f)
		}
	}
}

// SPEC §1–§14: the sections the code, scripts and docs cite exist,
// numbered as cited, and so do the command headings they cite.
func TestSpecSections(t *testing.T) {
	doc := readSpec(t)
	if !strings.HasPrefix(doc, "# ctxgit file-convention spec — "+spec.Version+"\n") {
		t.Errorf("SPEC.md does not open with its title and version %s", spec.Version)
	}
	headingRE := regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)\.? `)
	have := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(doc, -1) {
		if have[m[1]] {
			t.Errorf("section %s appears twice", m[1])
		}
		have[m[1]] = true
	}
	// The format's top-level sections; subsections are checked through
	// the citations below.
	for _, s := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"} {
		if !have[s] {
			t.Errorf("SPEC.md has no section %s", s)
		}
	}
	checkCitations(t, have)
}

// specMaxBytes is the normative spec's budget (issue 36): a reader
// takes it in whole, so explanation belongs in docs/design.md and
// examples in EXAMPLES.md.
const specMaxBytes = 60000

// TestSpecSize holds SPEC.md to its budget in bytes, as wc -c counts.
func TestSpecSize(t *testing.T) {
	if n := len(readSpec(t)); n > specMaxBytes {
		t.Errorf("SPEC.md is %d bytes, over its budget of %d (issue 36): cut or cite, move explanation to docs/design.md", n, specMaxBytes)
	}
}

// docHeadings is the set of headings of docs/NAME.md.
func docHeadings(t *testing.T, name string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile("../docs/" + name + ".md")
	if err != nil {
		t.Fatal(err)
	}
	return headingsOf(string(src))
}

// headingsOf is the set of ATX headings of a Markdown document. A "#"
// line inside a fenced code block (a shell comment, a heading shown as
// an example) is not one.
func headingsOf(src string) map[string]bool {
	out := map[string]bool{}
	fence := "" // the open fence's marker, "" outside a block
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) < 4 {
			if marker := fenceMarker(trimmed); marker != "" {
				switch {
				case fence == "":
					fence = marker
				case marker[0] == fence[0] && len(marker) >= len(fence) && strings.TrimSpace(strings.TrimLeft(trimmed, marker[:1])) == "":
					fence = ""
				}
				continue
			}
		}
		if fence == "" && strings.HasPrefix(line, "#") {
			out[strings.TrimSpace(strings.TrimLeft(line, "#"))] = true
		}
	}
	return out
}

// fenceMarker is the run of three or more backticks or tildes a line
// opens with, or "".
func fenceMarker(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

func TestHeadingsOfSkipsFences(t *testing.T) {
	doc := "# Title\n\n```sh\n# a shell comment\n```\n\n## Real\n\n~~~~\n## shown, not a heading\n~~~\n### still in the block\n~~~~\n### After\n"
	got := headingsOf(doc)
	for _, h := range []string{"Title", "Real", "After"} {
		if !got[h] {
			t.Errorf("heading %q not found", h)
		}
	}
	for _, h := range []string{"a shell comment", "shown, not a heading", "still in the block"} {
		if got[h] {
			t.Errorf("%q, inside a fence, taken for a heading", h)
		}
	}
}

// skipCitationDir says whether the citation walk, rooted at root, leaves
// out the directory at path: git's, hidden ones (editor and tool
// scratch) and dist/, which scripts/dist.sh makes and git ignores.
func skipCitationDir(root, path string) bool {
	if path == root {
		return false
	}
	name := filepath.Base(path)
	return strings.HasPrefix(name, ".") || path == filepath.Join(root, "dist")
}

func TestSkipCitationDir(t *testing.T) {
	for path, want := range map[string]bool{
		"..":                                      false,
		filepath.Join("..", "dist"):               true,
		filepath.Join("..", ".git"):               true,
		filepath.Join("..", ".idea"):              true,
		filepath.Join("..", "docs"):               false,
		filepath.Join("..", "vcs", "dist"):        false, // only the module's dist/
		filepath.Join("..", "testdata", ".cache"): true,
	} {
		if got := skipCitationDir("..", path); got != want {
			t.Errorf("skipCitationDir(%q) = %v, want %v", path, got, want)
		}
	}
}

// checkCitations walks the module once for the citations its code,
// scripts and docs make, and fails on one that names nothing: "SPEC §N"
// must be a section of SPEC.md (have), docs/cli.md#ANCHOR a heading of
// the generated command reference, and a quoted title after docs/HOSTS.md (or
// design.md's, PERFORMANCE.md's) a heading of that document, as must the
// heading a Go test-name string opens with ("HOSTS.md Transcripts: …").
func checkCitations(t *testing.T, have map[string]bool) {
	t.Helper()
	anchors := map[string]bool{}
	for h := range docHeadings(t, "cli") {
		anchors[strings.ToLower(strings.ReplaceAll(h, " ", "-"))] = true
	}
	headings := map[string]map[string]bool{}
	for _, doc := range []string{"HOSTS", "design", "PERFORMANCE"} {
		headings[doc] = docHeadings(t, doc)
	}
	// A quoted title may be broken over comment lines: `"Diff and\n// report"`.
	docRE := regexp.MustCompile(`docs/(HOSTS|design|PERFORMANCE)\.md,\s+"([^"]+)"`)
	lineBreakRE := regexp.MustCompile(`\s*\n\s*(?://|#)?\s*`)
	specRE := regexp.MustCompile(`SPEC §(\d+(?:\.\d+)?)`)
	cliRE := regexp.MustCompile(`docs/cli\.md#([a-z0-9-]+)`)
	// A Go test-name string opens with the document and the heading:
	// "HOSTS.md Transcripts: orphaned results are dropped".
	testNameRE := regexp.MustCompile(`"(?:docs/)?(HOSTS|design|PERFORMANCE)\.md ([^":]+):`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipCitationDir("..", path) {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".txtar", ".ts", ".sh":
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range specRE.FindAllStringSubmatch(string(src), -1) {
			if !have[m[1]] {
				t.Errorf("%s cites SPEC §%s, which SPEC.md does not have", path, m[1])
			}
		}
		for _, m := range docRE.FindAllStringSubmatch(string(src), -1) {
			title := lineBreakRE.ReplaceAllString(m[2], " ")
			if !headings[m[1]][title] {
				t.Errorf("%s cites docs/%s.md, %q, which has no such heading", path, m[1], title)
			}
		}
		if filepath.Ext(path) == ".go" {
			for _, m := range testNameRE.FindAllStringSubmatch(string(src), -1) {
				if !headings[m[1]][m[2]] {
					t.Errorf("%s names docs/%s.md, %q, in a test name, which has no such heading", path, m[1], m[2])
				}
			}
		}
		for _, m := range cliRE.FindAllStringSubmatch(string(src), -1) {
			if !anchors[m[1]] {
				t.Errorf("%s cites docs/cli.md#%s, which docs/cli.md has no heading for", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// SPEC §4.6: the example plan reads as the spec says.
func TestExamplePlan(t *testing.T) {
	src, err := os.ReadFile("examples/active-plan.md")
	if err != nil {
		t.Fatal(err)
	}
	p, err := markdown.ParsePlan(spec.DefaultPlan, src)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Add CSV export to the report service" || p.Goal != "`GET /reports/{id}.csv` returns the report as RFC 4180 CSV" {
		t.Errorf("title %q, goal %q", p.Title, p.Goal)
	}
	if done, total := p.Progress(); done != 2 || total != 6 {
		t.Errorf("progress %d of %d, want 2 of 6", done, total)
	}
	cur := p.Current()
	if cur == nil || cur.Number != "3b" || cur.Status != spec.StepInProgress || cur.Was != "3" || len(cur.Subitems) != 2 {
		t.Errorf("current step %+v", cur)
	}
	s3 := p.FindStep("3")
	if s3 == nil || s3.Status != spec.StepFailed || s3.FailReason != "the driver buffers the whole result" || s3.PivotTo != "3b" {
		t.Errorf("step 3 %+v", s3)
	}
	if s1 := p.FindStep("1"); s1 == nil || s1.Name != "Read the report model" || s1.Description != "find the row type and its fields" {
		t.Errorf("step 1 %+v", s1)
	}
	if len(p.PendingAssumptions) != 1 || p.PendingAssumptions[0] != "clients accept `text/csv`" || len(p.Assumptions) != 2 {
		t.Errorf("assumptions %q, pending %q", p.Assumptions, p.PendingAssumptions)
	}
	if len(p.OpenItems) != 1 || p.OpenItems[0] != "Do clients need a header row when the report is empty?" {
		t.Errorf("open items %q", p.OpenItems)
	}
	var headings []string
	for _, s := range p.Sections {
		headings = append(headings, s.Heading)
	}
	if strings.Join(headings, "|") != "Plan: Add CSV export to the report service|Steps|Open questions|Notes" {
		t.Errorf("sections %q", headings)
	}
}

// SPEC §5.5: the example logs read as the spec says.
func TestExampleLogs(t *testing.T) {
	src, err := os.ReadFile("examples/failure-log.md")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := markdown.ParseFailureLog(spec.DefaultFailureLog, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("%d failure entries, want 2", len(fs))
	}
	last := fs[1]
	if last.Type != spec.FailLogic || last.Action != spec.ActionPivot ||
		!last.When.Equal(time.Date(2026, 11, 22, 9, 52, 37, 0, time.UTC)) ||
		last.Summary != "streaming rows fails: the driver buffers the whole result set in memory" ||
		last.Lesson != "check what the driver buffers before designing around streaming" {
		t.Errorf("last failure %+v", last)
	}
	if fs[0].Type != spec.FailEnvironmental || fs[0].Action != spec.ActionRetry {
		t.Errorf("first failure %+v", fs[0])
	}

	src, err = os.ReadFile("examples/decisions.md")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := markdown.ParseDecisions(spec.DefaultDecisions, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].ID != "d_001" || ds[1].ID != "d_002" ||
		ds[0].What != "Use the standard CSV encoder" || ds[0].Why != "it quotes per RFC 4180 and is in the standard library" ||
		!ds[1].When.Equal(time.Date(2026, 11, 22, 9, 55, 48, 0, time.UTC)) {
		t.Errorf("decisions %+v", ds)
	}
}

// SPEC §12.1: the example task state uses exactly the field names of the
// spec and fills every required one.
func TestExampleTaskState(t *testing.T) {
	src, err := os.ReadFile("examples/task-state.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ts spec.TaskState
	if err := yaml.Unmarshal(src, &ts); err != nil {
		t.Fatal(err)
	}
	if len(ts.Extra) != 0 {
		t.Errorf("fields the spec does not name: %v", ts.Extra)
	}
	if ts.SchemaVersion != 1 || ts.TaskID == "" || ts.SessionID == "" || ts.Goal == "" || ts.Status == "" ||
		ts.CurrentPhase == "" || ts.NextAction == "" || ts.CompletedSteps == nil || ts.OpenIssues == nil ||
		ts.Constraints == nil || len(ts.Artifacts) == 0 || ts.Artifacts[0].Path == "" ||
		ts.StateConfidence < 0 || ts.StateConfidence > 1 || ts.UpdatedAt == "" {
		t.Errorf("a required field is missing: %+v", ts)
	}
	if _, err := time.Parse(time.RFC3339, ts.UpdatedAt); err != nil {
		t.Errorf("updated_at: %v", err)
	}
	if ts.LastAction == nil || len(ts.Decisions) != 1 || ts.Decisions[0].Reason == "" {
		t.Errorf("optional fields not read: %+v", ts)
	}
	// Keys ctxgit does not know are kept.
	var extra spec.TaskState
	if err := yaml.Unmarshal(append(append([]byte{}, src...), "host_specific: 7\n"...), &extra); err != nil || extra.Extra["host_specific"] != 7 {
		t.Errorf("unknown key not kept: %v, %v", extra.Extra, err)
	}
}

// SPEC §10.5: the example block fits the default budget and has the
// block's frame.
func TestExampleRecoveryBlock(t *testing.T) {
	src, err := os.ReadFile("examples/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(src, []byte("# Post-Compaction Recovery\n\nCheckpoint cp_002 · session default · 2026-11-22T10:00:00Z · trigger auto-80pct\n")) {
		t.Errorf("block does not open with the heading and header line")
	}
	if !bytes.HasSuffix(src, []byte("\nFull checkpoint: `ctxgit show default:cp_002` (.ctxgit/checkpoint.yaml).\n")) {
		t.Errorf("block does not end with the footer")
	}
	cfg := spec.DefaultConfig()
	if n := utf8.RuneCount(src); n > cfg.BudgetChars() || n != 1481 {
		t.Errorf("block is %d characters; SPEC §10.5 says 1481, within %d", n, cfg.BudgetChars())
	}
	order := []string{"## Goal", "## Current step", "## Next action", "## Last failure", "## Decisions (newest first)", "## Open items", "## Files changed", "## Learnings"}
	at := 0
	for _, h := range order {
		i := bytes.Index(src[at:], []byte("\n"+h))
		if i < 0 {
			t.Errorf("%s missing or out of order", h)
			continue
		}
		at += i + 1
	}
}

// SPEC §10.5: the example block is what ctxgit renders today for the
// example checkpoint with the default config, so the two examples stay a
// real pair.
func TestExampleRecoveryIsRendered(t *testing.T) {
	src, err := os.ReadFile("examples/checkpoint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := spec.ParseCheckpoint(cpPath, src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("examples/recovery.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg := spec.DefaultConfig()
	got := workspace.RenderRecovery(cp, workspace.RenderOptions{
		Budget: cfg.BudgetChars(), ChangedFiles: cfg.Recovery.ChangedFiles,
		CompactionWarn: cfg.Recovery.CompactionWarn, FullName: "default:cp_002",
	})
	if got != string(want) {
		t.Errorf("RenderRecovery(example) differs from examples/recovery.md:\n%s", got)
	}
}
