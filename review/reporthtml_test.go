package review_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// compactedHistory is a session as hooks record it: a start at 10%, an
// automatic checkpoint at 82% with a decision and a failure, a
// compaction at 85%, and a last checkpoint at 30%, ten minutes apart.
// The plan's title carries markup, which the page must escape.
func compactedHistory(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	now := fixedNow
	w, err := workspace.Open(workspace.Env{Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cp := func(trigger string, fill float64) {
		t.Helper()
		usage := spec.TokenUsage{InputTokens: int64(fill * 200000), ContextWindow: 200000, Utilization: fill, Source: "host"}
		if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: "s1", Trigger: trigger, Usage: usage}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(10 * time.Minute)
	}
	write(".active-plan.md", "## Plan: Ledger & \"co\" 1<2 v2\n\nGoal: no downtime\n\n### Steps\n1. Read [in progress]\n2. Write\n")
	cp("session-start", 0.10)
	write("ledger.go", "package ledger\n")
	write(".active-plan.md", "## Plan: Ledger & \"co\" 1<2 v2\n\nGoal: no downtime\n\n### Steps\n1. Read ✅\n2. Write [in progress]\n")
	if _, err := taskstate.Decide(w, "Keep v1 read-only", "rollback"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := taskstate.Fail(w, spec.FailureEntry{Summary: "dual write loses events", Type: "Logic/Approach", Action: "Pivot"}); err != nil {
		t.Fatal(err)
	}
	cp("auto-80pct", 0.82)
	cp(spec.TriggerCompaction, 0.85)
	cp("session-end", 0.30)
	return w
}

// docs/cli.md#report: --html is one page that needs nothing else, with
// the timeline's chart, marks and hover text, the plan, and the files.
func TestRenderReportHTML(t *testing.T) {
	w := compactedHistory(t)
	r, err := review.BuildReport(w, review.ReportOptions{Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := review.RenderReportHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)

	// Self-contained: no script, nothing loaded from anywhere.
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url(", "<link", "<iframe", "<object"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must load nothing and run nothing", bad)
		}
	}
	if !strings.Contains(page, `<h1 id="title">Ledger &amp; &#34;co&#34; 1&lt;2 v2</h1>`) {
		t.Error("the plan's title is not in the page, escaped")
	}
	if !strings.Contains(page, "@media print") {
		t.Error("no print rules")
	}

	// The context as measured: each reading held until the next (a step,
	// not a slope), and the compaction at 10:20 a vertical drop from the
	// 85% it began at to the 30% read after it. Time across (ten minutes
	// apart over a 30-minute span), fill up (0% at y=244, 100% at 44).
	m := regexp.MustCompile(`<polyline class="fill s0" data-mark="line s0" points="([^"]+)"/>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no context line in the chart:\n%s", page)
	}
	if want := "96,224 376,224 376,80 656,80 656,74 656,184 936,184"; m[1] != want {
		t.Errorf("context line points = %q, want %q", m[1], want)
	}
	if !strings.Contains(page, `<line class="rule" data-mark="compaction-rule" x1="656" x2="656" y1="44" y2="244"/>`) {
		t.Error("the compaction rule is not at the drop (x=656)")
	}
	// A dot on every reading, each saying what it measured.
	if n := strings.Count(page, `<g class="mark point">`); n != 4 {
		t.Errorf("%d reading dots, want 4", n)
	}
	if !strings.Contains(page, "<title>context 85% (170k/200k tokens, host)\n10:20 (2026-11-22T10:20:00Z) · recorded by checkpoint cp_003</title>") {
		t.Error("the compaction's reading does not say what it measured")
	}
	// The time axis at round times of the zone, the first with its date.
	var ticks []string
	for _, m := range regexp.MustCompile(`<text class="label tick" x="([0-9.]+)" y="244" dy="18" text-anchor="[a-z]+">([^<]+)</text>`).FindAllStringSubmatch(page, -1) {
		ticks = append(ticks, m[1]+" "+m[2])
	}
	if got, want := strings.Join(ticks, ", "), "96 2026-11-22 10:00 UTC, 376 10:10, 656 10:20, 936 10:30"; got != want {
		t.Errorf("time axis = %s, want %s", got, want)
	}
	if n := strings.Count(page, `class="rule"`); n != 2 { // the plot's and the legend's
		t.Errorf("%d compaction rules, want 1 and its legend key", n)
	}
	if !strings.Contains(page, "<title>compaction at cp_003 (10:20, 2026-11-22T10:20:00Z)</title>") {
		t.Error("the compaction rule has no hover text naming its checkpoint")
	}
	// Hover on a checkpoint: its subject, context and the files it changed.
	if !regexp.MustCompile(`<title>checkpoint cp_002 \(auto-80pct\)\n10:10 \(2026-11-22T10:10:00Z\) · context 82% \(164k/200k tokens, host\)\n[^<]*  ledger.go</title>`).MatchString(page) {
		t.Error("checkpoint cp_002's hover does not give its subject, context and files")
	}
	// Decisions and failures in their lanes, at the time they were
	// recorded (before cp_002, on the clock of cp_001's end: 10:10).
	if !strings.Contains(page, `<g class="mark decision"><title>d_001 Keep v1 read-only — why: rollback (cp_002)</title><path class="decision" data-mark="decision" d="M376 317`) {
		t.Error("the decision is not marked in its lane at 10:10")
	}
	if !strings.Contains(page, `<g class="mark failure"><title>`) || !strings.Contains(page, "dual write loses events (cp_002)</title>") {
		t.Error("the failure is not marked with its text")
	}
	// The legend draws each mark as the chart does: the failure's cross,
	// the compaction's dashed rule, not a dot for each.
	legend := page[strings.Index(page, `<ul class="legend">`):]
	legend = legend[:strings.Index(legend, "</ul>")]
	var keys []string
	for _, m := range regexp.MustCompile(`<svg class="key" viewBox="0 0 18 14">(.*?)</svg>([^<]+)</li>`).FindAllStringSubmatch(legend, -1) {
		keys = append(keys, m[2])
	}
	// A key for each kind of mark drawn, and none for a kind not drawn
	// (no hook reading, manual checkpoint or resolved failure here).
	if got, want := strings.Join(keys, "|"), "context, as measured (each reading holds until the next)|hook checkpoint|compaction checkpoint|compaction|decision|failure, open"; got != want {
		t.Errorf("legend keys:\n%s\nwant\n%s", got, want)
	}
	for _, key := range []string{
		`<path class="failure open" data-mark="failure open" d="M9 7 m-4 -4 l8 8 m0 -8 l-8 8"/>`,
		`<line class="rule" data-mark="compaction-rule" x1="9" x2="9" y1="0" y2="14"/>`,
		`<path class="decision" data-mark="decision" d="M9 7 m0 -6 l6 6 l-6 6 l-6 -6 z"/>`,
	} {
		if !strings.Contains(legend, key) {
			t.Errorf("the legend lacks %s", key)
		}
	}
	if !strings.Contains(page, `<path class="failure open" data-mark="failure open" d="M376 343 m-4 -4 l8 8 m0 -8 l-8 8"/>`) {
		t.Error("the plotted failure is not the legend's cross")
	}
	for _, want := range []string{
		"1 of 2 steps done.", `style="width: 50%"`, `<td class="path">ledger.go</td><td>added</td>`,
		"Dual write loses events", "Keep v1 read-only", "<td>compaction</td>",
		`4 checkpoints, from <time datetime="2026-11-22T10:00:00Z" title="2026-11-22T10:00:00Z">2026-11-22 10:00</time> to <time datetime="2026-11-22T10:30:00Z" title="2026-11-22T10:30:00Z">10:30</time> UTC (30 min).`,
		`<time datetime="2026-11-22T10:10:00Z" title="2026-11-22T10:10:00Z">10:10</time>`,
	} {
		if !strings.Contains(strings.ToLower(page), strings.ToLower(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Times are in the report's zone; the stamp to hover stays UTC.
	r.Zone = time.FixedZone("CET", 3600)
	b, err = review.RenderReportHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `<time datetime="2026-11-22T10:10:00Z" title="2026-11-22T10:10:00Z">11:10</time>`) ||
		!strings.Contains(string(b), ">2026-11-22 11:00 CET</text>") {
		t.Error("the page does not show times in the report's zone")
	}
	r.Zone = time.UTC

	again, err := review.RenderReportHTML(r)
	if err != nil || string(again) != page {
		t.Error("two renderings of one report differ: the page must depend only on the history")
	}
}

// Checkpoints that all carry one time are spread evenly, and a
// checkpoint whose context is unknown is in the lane but not on the line.
func TestRenderReportHTMLOneInstant(t *testing.T) {
	w := history(t) // manual checkpoints: context unknown
	r, err := review.BuildReport(w, review.ReportOptions{Session: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Checkpoints {
		r.Checkpoints[i].CreatedAt = fixedNow
	}
	b, err := review.RenderReportHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if strings.Contains(page, "<polyline") {
		t.Error("a context line drawn with no known context")
	}
	xs := regexp.MustCompile(`<g class="mark checkpoint"><title>[^<]*</title><circle class="dot cp manual" data-mark="cp manual" cx="([0-9.]+)"`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, x := range xs {
		got = append(got, x[1])
	}
	if strings.Join(got, " ") != "96 516 936" {
		t.Errorf("checkpoint marks at x = %v, want evenly spread 96 516 936", got)
	}
}

// A report of several sessions names a decision's checkpoint by the
// session's short id (SHORT:cp_NNN, never the key), and the chart still
// marks the decision at that checkpoint when the times cannot place it.
func TestRenderReportHTMLSessionsMarks(t *testing.T) {
	dir := t.TempDir()
	w, err := workspace.Open(workspace.Env{Now: func() time.Time { return fixedNow }, Getenv: func(string) string { return "" }, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	const s1, s2 = "7f3c2a10-4b5e-4c3b-9e8f-0a1b2c3d4e5f", "9b1e0c44-2d3f-4a5b-8c7d-6e5f4a3b2c1d"
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: s1, Trigger: "manual"}); err != nil {
		t.Fatal(err)
	}
	if _, err := taskstate.Decide(w, "Use encoding/csv", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: s2, Trigger: "manual"}); err != nil {
		t.Fatal(err)
	}
	r, err := review.BuildReport(w, review.ReportOptions{Session: s2, AllSessions: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sessions) != 2 || len(r.Decisions) != 1 {
		t.Fatalf("sessions %v, decisions %+v: want both sessions and the decision", r.Sessions, r.Decisions)
	}
	b, err := review.RenderReportHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if strings.Contains(page, s1) || strings.Contains(page, s2) {
		t.Error("the page spells a session's key")
	}
	cps := regexp.MustCompile(`<g class="mark checkpoint"><title>[^<]*</title><circle [^>]*cx="([0-9.]+)"`).FindAllStringSubmatch(page, -1)
	dec := regexp.MustCompile(`<g class="mark decision"><title>([^<]*)</title><path [^>]*d="M([0-9.]+) `).FindStringSubmatch(page)
	if len(cps) != 2 || dec == nil {
		t.Fatalf("checkpoint marks %v, decision mark %v", cps, dec)
	}
	if !strings.Contains(dec[1], "9b1e0c44:cp_001") {
		t.Errorf("decision's hover %q, want it at 9b1e0c44:cp_001", dec[1])
	}
	if dec[2] != cps[1][1] {
		t.Errorf("decision marked at x = %s, want %s, the checkpoint that first shows it", dec[2], cps[1][1])
	}
}
