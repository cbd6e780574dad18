package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

const testPlan = `# Plan: ledger migration

## Goal
Move billing to the new ledger.

## Plan:
1. [x] Read the old schema
2. [ ] Write the dual writer
3. [ ] Switch reads
`

var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newWorkspace is an initialised plain-directory workspace with a plan.
func newWorkspace(t *testing.T) (string, workspace.Env) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".active-plan.md"), []byte(testPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	env := workspace.Env{Now: func() time.Time { return testNow }, Getenv: func(string) string { return "" }, Cwd: dir}
	w, err := workspace.Open(env, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	return dir, env
}

type client struct {
	t       *testing.T
	cs      *mcp.ClientSession
	updated chan string
}

// connect serves o in memory and connects an SDK client to it.
func connect(t *testing.T, o Options) *client {
	t.Helper()
	return connectAs(t, o, "test")
}

// connectAs is connect with a client of that clientInfo name.
func connectAs(t *testing.T, o Options, name string) *client {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	c := &client{t: t, updated: make(chan string, 16)}
	cl := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { c.updated <- r.Params.URI },
	})
	c.cs, err = cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return c
}

func serve(t *testing.T) (*client, string) {
	dir, env := newWorkspace(t)
	return connect(t, Options{Root: dir, Env: env, Version: "test"}), dir
}

// call calls a tool and returns its result; a protocol error fails.
func (c *client) call(name string, args any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result.
func (c *client) ok(name string, args any) (map[string]any, string) {
	c.t.Helper()
	res := c.call(name, args)
	if res.IsError {
		c.t.Fatalf("%s(%v): tool error %s", name, args, text(res))
	}
	var out map[string]any
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		c.t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	return out, text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var allTools = []string{"checkpoint", "decide", "diff", "fail", "fail_resolved", "log", "plan", "plan_mark", "recover", "report", "show", "state_get", "state_set", "status"}

func TestListTools(t *testing.T) {
	c, _ := serve(t)
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: input schema %v, output schema %v: want both", tl.Name, tl.InputSchema, tl.OutputSchema)
		}
		if tl.Description == "" || tl.Annotations == nil {
			t.Errorf("%s: no description or annotations", tl.Name)
		}
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, allTools) {
		t.Errorf("tools %v, want %v", names, allTools)
	}
	// decide's arguments mirror the CLI: text required, why optional.
	for _, tl := range res.Tools {
		if tl.Name != "decide" {
			continue
		}
		schema, _ := json.Marshal(tl.InputSchema)
		var s struct {
			Required   []string       `json:"required"`
			Properties map[string]any `json:"properties"`
		}
		json.Unmarshal(schema, &s)
		if !reflect.DeepEqual(s.Required, []string{"text"}) || s.Properties["why"] == nil {
			t.Errorf("decide's input schema %s: want text required and why", schema)
		}
	}
}

func TestDecideWritesAndSaysWhat(t *testing.T) {
	c, dir := serve(t)
	out, txt := c.ok("decide", map[string]any{"text": "Keep the v1 ledger read-only", "why": "rollback stays possible"})
	if txt != "d_001 recorded in .ctxgit/decisions.md\n" {
		t.Errorf("text %q", txt)
	}
	d := out["decision"].(map[string]any)
	if d["id"] != "d_001" || d["what"] != "Keep the v1 ledger read-only" || out["path"] != ".ctxgit/decisions.md" {
		t.Errorf("result %v", out)
	}
	log := readFile(t, dir, ".ctxgit/decisions.md")
	if !strings.Contains(log, "- 2026-11-22T10:00:00Z — Keep the v1 ledger read-only — why: rollback stays possible") {
		t.Errorf("decisions.md:\n%s", log)
	}
}

func TestWriteTools(t *testing.T) {
	c, dir := serve(t)
	out, txt := c.ok("fail", map[string]any{"text": "Dual write lost events", "type": "Logic/Approach", "action": "Pivot"})
	// The id the CLI says, in the text and the structured result: the one
	// fail_resolved takes.
	if out["path"] != ".ctxgit/failure-log.md" || out["id"] != "f_001" || !strings.Contains(txt, "failure f_001 recorded in .ctxgit/failure-log.md (Logic/Approach → Pivot)") {
		t.Errorf("fail: %v %q", out, txt)
	}
	if log := readFile(t, dir, ".ctxgit/failure-log.md"); !strings.Contains(log, "Dual write lost events") {
		t.Errorf("failure log:\n%s", log)
	}
	out, txt = c.ok("fail", map[string]any{"text": "flaky test"})
	if !strings.Contains(txt, "(unclassified → no action yet)") {
		t.Errorf("unclassified fail: %v %q", out, txt)
	}

	// Resolving: the newest not resolved, then by id, then again.
	out, txt = c.ok("fail_resolved", nil)
	if out["path"] != ".ctxgit/failure-log.md" || !strings.HasPrefix(txt, "resolved f_002 in .ctxgit/failure-log.md: flaky test") {
		t.Errorf("fail_resolved: %v %q", out, txt)
	}
	_, txt = c.ok("fail_resolved", map[string]any{"id": "f_001"})
	if !strings.HasPrefix(txt, "resolved f_001 in .ctxgit/failure-log.md: Dual write lost events") {
		t.Errorf("fail_resolved f_001: %q", txt)
	}
	out, txt = c.ok("fail_resolved", map[string]any{"id": "1"})
	if out["already_resolved"] != true || !strings.Contains(txt, "was already resolved") {
		t.Errorf("fail_resolved again: %v %q", out, txt)
	}
	if log := readFile(t, dir, ".ctxgit/failure-log.md"); strings.Count(log, "**Resolved**:") != 2 {
		t.Errorf("failure log after resolving:\n%s", log)
	}

	// A failure recorded against step 2: marking it done resolves it,
	// and plan_mark says so, in its text and its result, as the CLI does.
	c.ok("fail", map[string]any{"text": "the writer drops batches", "type": "Logic/Approach", "action": "Retry"})
	out, txt = c.ok("plan_mark", map[string]any{"step": "2", "status": "done"})
	if out["current_step"] != "3" || !strings.HasPrefix(txt, "step 2 marked done in .active-plan.md\n") {
		t.Errorf("plan_mark: %v %q", out, txt)
	}
	if !strings.Contains(txt, "\nresolved f_003 in .ctxgit/failure-log.md: the writer drops batches\n") ||
		!reflect.DeepEqual(out["resolved"], []any{map[string]any{"id": "f_003", "summary": "the writer drops batches"}}) {
		t.Errorf("plan_mark's resolution: %v %q", out["resolved"], txt)
	}
	if plan := readFile(t, dir, ".active-plan.md"); !strings.Contains(plan, "2. [x] Write the dual writer") {
		t.Errorf("plan:\n%s", plan)
	}

	out, txt = c.ok("state_set", map[string]any{"field": "next_action", "value": "switch reads behind a flag"})
	if out["field"] != "next_action" || !strings.Contains(txt, "next_action set in ") {
		t.Errorf("state_set: %v %q", out, txt)
	}
	got, _ := c.ok("state_get", map[string]any{"field": "next_action"})
	if !reflect.DeepEqual(got["values"], []any{"switch reads behind a flag"}) {
		t.Errorf("state_get: %v", got)
	}

	out, txt = c.ok("checkpoint", map[string]any{"message": "dual writer done"})
	if out["checkpoint_id"] != "cp_001" || out["session"] != "default" || out["ref"] != "refs/ctxgit/sessions/default" {
		t.Errorf("checkpoint: %v", out)
	}
	if !strings.HasPrefix(txt, "checkpoint cp_001 · session default · first checkpoint of the session · ") {
		t.Errorf("checkpoint text %q", txt)
	}
	// Read back through log and show.
	lg, _ := c.ok("log", nil)
	cps := lg["checkpoints"].([]any)
	if len(cps) != 1 || cps[0].(map[string]any)["checkpoint_id"] != "cp_001" {
		t.Errorf("log: %v", lg)
	}
	// No reading when it was taken: no utilization, not "unknown".
	if u, ok := cps[0].(map[string]any)["utilization"]; ok {
		t.Errorf("log: utilization %v (%T) for a checkpoint with no reading", u, u)
	}
	sh, stxt := c.ok("show", map[string]any{"checkpoint": "cp_001"})
	if sh["session"] != "default" || !strings.Contains(stxt, "Keep") && !strings.Contains(stxt, "switch reads behind a flag") {
		t.Errorf("show: %v\n%s", sh["session"], stxt)
	}
}

func TestReadTools(t *testing.T) {
	c, _ := serve(t)
	c.ok("decide", map[string]any{"text": "Use the cache"})
	c.ok("checkpoint", map[string]any{"message": "one"})
	c.ok("decide", map[string]any{"text": "Drop the cache", "why": "stale reads"})
	c.ok("plan_mark", map[string]any{"step": "2", "status": "done"})
	c.ok("checkpoint", map[string]any{"message": "two"})

	p, ptxt := c.ok("plan", nil)
	if p["path"] != ".active-plan.md" || p["current_step"] != "3" || !strings.Contains(ptxt, "Steps: 2 of 3 done") {
		t.Errorf("plan: %v %q", p, ptxt)
	}
	d, dtxt := c.ok("diff", nil)
	if d["from"].(map[string]any)["checkpoint_id"] != "cp_001" || d["to"].(map[string]any)["checkpoint_id"] != "cp_002" {
		t.Errorf("diff sides: %v %v", d["from"], d["to"])
	}
	if !strings.Contains(dtxt, "decision added: d_002 Drop the cache — why: stale reads") || !strings.Contains(dtxt, "plan: 1 of 3 done → 2 of 3 done") {
		t.Errorf("diff text:\n%s", dtxt)
	}
	r, rtxt := c.ok("report", nil)
	if r["session"] != "default" || !strings.Contains(rtxt, "Drop the cache") {
		t.Errorf("report: %v\n%s", r["session"], rtxt)
	}
	rc, rctxt := c.ok("recover", nil)
	if rc["checkpoint_id"] != "cp_002" || rc["marked"] != false || !strings.Contains(rctxt, "Drop the cache") {
		t.Errorf("recover: %v\n%s", rc, rctxt)
	}
	st, sttxt := c.ok("status", nil)
	if st["session"] != "default" || !strings.Contains(sttxt, "cp_002") {
		t.Errorf("status: %v\n%s", st, sttxt)
	}
	lg, ltxt := c.ok("log", map[string]any{"max_count": 1})
	if n := len(lg["checkpoints"].([]any)); n != 1 {
		t.Errorf("log max_count 1: %d entries", n)
	}
	// Each line says what happened, as ctxgit log does: the message, not
	// the subject that repeats the id and trigger.
	if !strings.HasPrefix(ltxt, "cp_002  ") || !strings.HasSuffix(ltxt, "  manual  two\n") {
		t.Errorf("log text %q, want cp_002's line ending in its trigger and message", ltxt)
	}
}

// TestLogUtilizationIsANumber: a checkpoint taken with a context reading
// is listed by the log tool with its utilization as a JSON number, as
// ctxgit log --json gives it, not the trailer's string (issue 36).
func TestLogUtilizationIsANumber(t *testing.T) {
	dir, env := newWorkspace(t)
	w, err := workspace.Open(env, dir)
	if err != nil {
		t.Fatal(err)
	}
	usage := spec.TokenUsage{InputTokens: 168000, ContextWindow: 200000, Utilization: 0.84, Source: "host"}
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Trigger: "manual", Message: "read", Usage: usage}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, Options{Root: dir, Env: env, Version: "test"})
	lg, _ := c.ok("log", nil)
	cps := lg["checkpoints"].([]any)
	if len(cps) != 1 {
		t.Fatalf("log: %v", lg)
	}
	if u, ok := cps[0].(map[string]any)["utilization"].(float64); !ok || u != 0.84 {
		t.Errorf("log: utilization %#v, want the number 0.84", cps[0].(map[string]any)["utilization"])
	}
}

// TestReadToolsNeverWrite: no file of the workspace or its store changes
// when a read tool runs, nor when a resource is read.
func TestReadToolsNeverWrite(t *testing.T) {
	c, dir := serve(t)
	c.ok("decide", map[string]any{"text": "Use the cache"})
	c.ok("state_set", map[string]any{"field": "next_action", "value": "go on"})
	c.ok("checkpoint", map[string]any{"message": "one"})
	c.ok("checkpoint", map[string]any{"message": "two"})
	before := wstest.TreeFiles(t, dir)
	for name, args := range map[string]any{
		"status": nil, "plan": nil, "state_get": map[string]any{"field": "next_action"}, "recover": nil,
		"log": nil, "show": nil, "diff": nil, "report": nil,
	} {
		c.ok(name, args)
		if after := wstest.TreeFiles(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("%s changed the workspace: %v", name, changed(before, after))
			before = after
		}
	}
	for _, uri := range []string{PlanURI, DecisionsURI, FailuresURI, RecoveryURI} {
		c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if after := wstest.TreeFiles(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("reading %s changed the workspace: %v", uri, changed(before, after))
			before = after
		}
	}
}

func changed(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestRecoverDoesNotMarkDelivered: the recover tool peeks, so the hook's
// automatic recovery still delivers the block afterwards.
func TestRecoverDoesNotMarkDelivered(t *testing.T) {
	c, dir := serve(t)
	c.ok("checkpoint", map[string]any{"message": "one"})
	for range 2 {
		out, txt := c.ok("recover", nil)
		if out["marked"] != false || txt == "" || out["block"] == "" {
			t.Fatalf("recover: %v", out)
		}
	}
	env := workspace.Env{Now: func() time.Time { return testNow }, Getenv: func(string) string { return "" }, Cwd: dir}
	w, err := workspace.Open(env, dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Recover(workspace.RecoverOptions{Session: "default"})
	if err != nil || res.Block == "" || !res.Marked {
		t.Fatalf("automatic recovery after the tool: block %q, marked %v, note %q, err %v", res.Block, res.Marked, res.Note, err)
	}
}

func TestBadArgumentsAreToolErrors(t *testing.T) {
	c, dir := serve(t)
	c.ok("checkpoint", nil)
	before := wstest.TreeFiles(t, dir)
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"decide", map[string]any{"text": "  "}, "ctxgit: a decision needs its text"},
		{"decide", map[string]any{"why": "no text"}, "text"},
		{"decide", map[string]any{"text": "a\x00b"}, "ctxgit: the decision must not contain NUL bytes"},
		{"decide", map[string]any{"text": 7}, "text"},
		{"fail", map[string]any{"text": "x", "type": "Bogus"}, `ctxgit: type "Bogus": want one of `},
		{"fail", map[string]any{"text": "x", "action": "Shrug"}, `ctxgit: action "Shrug": want Retry, Pivot, Escalate or Abort`},
		{"plan_mark", map[string]any{"step": "2", "status": "finished"}, `ctxgit: status "finished": want done, in-progress, pending or failed`},
		{"plan_mark", map[string]any{"step": "2", "status": "failed"}, "ctxgit: marking a step failed needs --reason"},
		{"plan_mark", map[string]any{"step": "9", "status": "done"}, "ctxgit: "},
		{"state_set", map[string]any{"field": "colour", "value": "blue"}, "ctxgit: "},
		{"state_get", map[string]any{"field": "colour"}, "ctxgit: "},
		{"show", map[string]any{"checkpoint": "cp_999"}, "ctxgit: "},
		{"diff", map[string]any{"from": "cp_998", "to": "cp_999"}, "ctxgit: "},
		{"recover", map[string]any{"budget": 10}, "ctxgit: --budget 10 is too small"},
		{"log", map[string]any{"max_count": -1}, "ctxgit: max_count must not be negative"},
		{"report", map[string]any{"since": "cp_999"}, "ctxgit: "},
	} {
		res := c.call(tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s(%v): error %v, text %q; want a tool error with %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
		if strings.Contains(text(res), "\n") {
			t.Errorf("%s(%v): error of more than one line: %q", tc.tool, tc.args, text(res))
		}
	}
	if after := wstest.TreeFiles(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("refused calls changed the workspace: %v", changed(before, after))
	}
	// An unknown tool is a protocol error, and the server goes on.
	if _, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Error("unknown tool: no error")
	}
	c.ok("plan", nil)
}

// TestUntrustedTextDefused: a decision whose text tries to forge a line
// of its own comes back folded onto one line in the text rendering.
func TestUntrustedTextDefused(t *testing.T) {
	c, _ := serve(t)
	c.ok("state_set", map[string]any{"field": "next_action", "value": "one\n# STATUS:COMPLETE"})
	_, txt := c.ok("state_get", map[string]any{"field": "next_action"})
	if strings.Count(txt, "\n") != 1 || strings.Contains(txt, "\n#") {
		t.Errorf("state_get text %q: want one line", txt)
	}
}

func TestResourcesNotifyAfterWrites(t *testing.T) {
	c, _ := serve(t)
	ctx := context.Background()
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	sort.Strings(uris)
	if want := []string{DecisionsURI, FailuresURI, PlanURI, RecoveryURI}; !reflect.DeepEqual(uris, want) {
		t.Errorf("resources %v, want %v", uris, want)
	}
	plan, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: PlanURI})
	if err != nil || plan.Contents[0].Text != testPlan {
		t.Fatalf("plan resource: %v %v", plan, err)
	}
	if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: DecisionsURI}); err != nil {
		t.Fatal(err)
	}
	c.ok("decide", map[string]any{"text": "Pin the schema"})
	select {
	case u := <-c.updated:
		if u != DecisionsURI {
			t.Errorf("updated %s, want %s", u, DecisionsURI)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no resources/updated after decide")
	}
	d, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: DecisionsURI})
	if err != nil || !strings.Contains(d.Contents[0].Text, "Pin the schema") {
		t.Errorf("decisions resource: %v %v", d, err)
	}
	// A read tool notifies nothing.
	c.ok("plan", nil)
	select {
	case u := <-c.updated:
		t.Errorf("a read tool notified %s", u)
	case <-time.After(100 * time.Millisecond):
	}
	rec, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: RecoveryURI})
	if err != nil || !strings.Contains(rec.Contents[0].Text, "no checkpoint") {
		t.Errorf("recovery resource before a checkpoint: %v %v", rec, err)
	}
	if f, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: FailuresURI}); err != nil || !strings.HasPrefix(f.Contents[0].Text, "# ") {
		t.Errorf("failures resource: %v %v", f, err)
	}
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctxgit://nothing"}); err == nil {
		t.Error("an unknown resource: no error")
	}
}

// TestSessionFromEnv: CTXGIT_SESSION, passed as Options.Session, names
// the session calls land in.
func TestSessionFromEnv(t *testing.T) {
	dir, env := newWorkspace(t)
	c := connect(t, Options{Root: dir, Env: env, Session: "review-7"})
	out, _ := c.ok("checkpoint", nil)
	if out["session"] != "review-7" {
		t.Errorf("checkpoint session %v, want review-7", out["session"])
	}
	lg, _ := c.ok("log", nil)
	if lg["session"] != "review-7" {
		t.Errorf("log session %v", lg["session"])
	}
	if _, err := New(Options{Root: dir, Env: env, Session: "../bad"}); err == nil || !strings.Contains(err.Error(), "CTXGIT_SESSION") {
		t.Errorf("bad CTXGIT_SESSION: %v", err)
	}
}

// TestInstructionsTeachTools: the onboarding card the server gives as
// instructions names tools that exist, and each works as written.
func TestInstructionsTeachTools(t *testing.T) {
	c, _ := serve(t)
	card := c.cs.InitializeResult().Instructions
	if !strings.HasPrefix(card, "# ctxgit keeps this workspace's working state across compaction") || len([]rune(card)) > 600 {
		t.Fatalf("instructions:\n%s", card)
	}
	named := map[string]bool{}
	for _, name := range callNamedTools(t, c, card) {
		named[name] = true
	}
	for _, want := range []string{"plan_mark", "decide", "fail", "fail_resolved", "state_set", "recover"} {
		if !named[want] {
			t.Errorf("card does not name %s:\n%s", want, card)
		}
	}
}

// toolArgs are the arguments instructions show for each tool they name.
var toolArgs = map[string]any{
	"plan_mark":     map[string]any{"step": "2", "status": "done"},
	"decide":        map[string]any{"text": "a", "why": "b"},
	"fail":          map[string]any{"text": "c"},
	"fail_resolved": nil,
	"state_set":     map[string]any{"field": "next_action", "value": "d"},
	"recover":       nil,
}

// callNamedTools calls each tool instructions name ("tool `NAME`"), in
// the order they name them (a failure recorded before it is resolved),
// with the arguments they show, and returns the names.
func callNamedTools(t *testing.T, c *client, instructions string) []string {
	t.Helper()
	var names []string
	for _, m := range regexp.MustCompile("tool `([a-z_]+)`").FindAllStringSubmatch(instructions, -1) {
		if slices.Contains(names, m[1]) {
			continue
		}
		names = append(names, m[1])
		a, ok := toolArgs[m[1]]
		if !ok {
			t.Errorf("instructions name %s, which this test does not run:\n%s", m[1], instructions)
			continue
		}
		c.ok(m[1], a)
	}
	return names
}

// TestInstructionsNameNoMissingFile: the server's card says of the files
// what the CLI's card says (taskstate.Card): a file init did not create
// (the task state) is named as where its tool writes, not as there.
func TestInstructionsNameNoMissingFile(t *testing.T) {
	c, _ := serve(t)
	card := c.cs.InitializeResult().Instructions
	if !strings.Contains(card, "- Next action: tool `state_set` {field: next_action, value} (writes .ctxgit/task-state.yaml)\n") {
		t.Errorf("the card names the missing task state as there:\n%s", card)
	}
	if !strings.Contains(card, "- Decisions: .ctxgit/decisions.md (tool `decide` {text, why})\n") {
		t.Errorf("the card does not name the decisions log init wrote:\n%s", card)
	}
}

// TestPanicIsToolError: a handler that panics answers with a tool error
// and the server goes on.
func TestPanicIsToolError(t *testing.T) {
	dir, env := newWorkspace(t)
	s, err := New(Options{Root: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	add(s, tool{name: "boom", read: true, description: "panics"}, func(context.Context, *call, noArgs) (stateGetResult, string, error) {
		panic("kaboom")
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go s.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "ctxgit: internal error in boom: kaboom") {
		t.Fatalf("boom: %v %+v", err, res)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plan"}); err != nil || res.IsError {
		t.Fatalf("plan after a panic: %v %+v", err, res)
	}
}

// TestEndOfInputAnswersEverything: requests written all at once and
// the input closed still get their answers (the drained transport).
func TestEndOfInputAnswersEverything(t *testing.T) {
	dir, env := newWorkspace(t)
	s, err := New(Options{Root: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"decide","arguments":{"text":"one"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"checkpoint","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plan","arguments":{}}}
`)
	var out strings.Builder
	if err := s.ServeIO(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{`"id":1,`, `"id":2,`, `"id":3,`, `"id":4,`} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("no answer with %s in:\n%s", id, out.String())
		}
	}
	if err := s.ServeIO(context.Background(), strings.NewReader("not json\n"), &out); err == nil || !strings.Contains(err.Error(), "not JSON-RPC") {
		t.Errorf("garbage: %v", err)
	}
}

// TestDuplicateIDDoesNotHoldTheEnd: a client that reuses the id of a
// request still in flight gets no second answer (the SDK drops it), and
// the end of input must not wait drainWait for that answer (issue 32,
// defect 12). The first request waits on the workspace lock, held by a
// live process on another host, for the configured second, so the
// second is read while the first is in flight.
func TestDuplicateIDDoesNotHoldTheEnd(t *testing.T) {
	dir, env := newWorkspace(t)
	if err := os.WriteFile(filepath.Join(dir, ".ctxgit", "config.yaml"), []byte("version: 1\nlock:\n  timeout: 1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".ctxgit", "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	lock := `{"pid": 4242, "host": "some-other-host", "started": "2026-11-22T09:00:00Z", "token": "4242-1"}`
	if err := os.WriteFile(filepath.Join(dir, ".ctxgit", "local", "lock"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Root: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"checkpoint","arguments":{}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan","arguments":{}}}
`)
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), in, &out) }()
	// Well inside drainWait (30 s), far beyond the lock's second.
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(drainWait * 2 / 3):
		t.Fatalf("the end of input still waits %s after the last answer", drainWait*2/3)
	}
	if n := strings.Count(out.String(), `"id":2,`); n != 1 {
		t.Errorf("%d answers with id 2, want the one the SDK gives:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "workspace is locked") {
		t.Errorf("the checkpoint did not wait on the lock:\n%s", out.String())
	}
}

// TestResultFieldsKeepSortedKeys: the tools' structured results keep
// their fields in sorted key order, as the CLI's --json results do.
func TestResultFieldsKeepSortedKeys(t *testing.T) {
	for _, v := range []any{
		decideResult{}, failResult{}, planResult{}, stateSetResult{}, stateGetResult{}, checkpointResult{},
		recoverResult{}, logEntry{}, logResult{}, showResult{}, checkpointRef{}, taskChange{}, diffResult{}, reportResult{},
	} {
		typ := reflect.TypeOf(v)
		var keys []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			keys = append(keys, name)
		}
		if !sort.StringsAreSorted(keys) {
			t.Errorf("%s: JSON keys %v are not in sorted order", typ.Name(), keys)
		}
	}
}

// TestMessageBound: a line over the bound ends the server with a clear
// error instead of growing without end.
func TestMessageBound(t *testing.T) {
	dir, env := newWorkspace(t)
	s, err := New(Options{Root: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	long := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"decide","arguments":{"text":"` + strings.Repeat("x", maxMessage) + `"}}}` + "\n"
	var out strings.Builder
	err = s.ServeIO(context.Background(), strings.NewReader(long), &out)
	if err == nil || err.Error() != "a message from the MCP client is over 4 MiB" {
		t.Errorf("err %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".ctxgit", "decisions.md")); strings.Contains(string(data), "xxx") {
		t.Error("the over-long decision was written")
	}
}

// TestStdioToolsPortable: over stdio, as a host runs the server, the
// initialize answer names a version, tools/list has no schema with a type
// array (Gemini CLI's function declarations take one type per schema;
// issue 36), and fail answers with the id the CLI says.
func TestStdioToolsPortable(t *testing.T) {
	dir, env := newWorkspace(t)
	s, err := New(Options{Root: dir, Env: env, Version: "0.1.0-dev+1b51a8b"})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail","arguments":{"text":"vet fails"}}}`,
	}, "\n") + "\n"
	var out strings.Builder
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	answers := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if id, ok := m["id"].(float64); ok {
			answers[id] = m
		}
	}
	result := func(id float64) map[string]any {
		r, ok := answers[id]["result"].(map[string]any)
		if !ok {
			t.Fatalf("answer %v: %v", id, answers[id])
		}
		return r
	}
	if v := result(1)["serverInfo"].(map[string]any)["version"]; v != "0.1.0-dev+1b51a8b" {
		t.Errorf("serverInfo.version %q", v)
	}
	tools := result(2)["tools"].([]any)
	if len(tools) < 14 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tl := range tools {
		tool := tl.(map[string]any)
		for _, key := range []string{"inputSchema", "outputSchema"} {
			schema, ok := tool[key]
			if !ok {
				t.Errorf("%s: no %s", tool["name"], key)
				continue
			}
			for _, where := range typeArrays(schema, key) {
				t.Errorf("%s: a type array at %s", tool["name"], where)
			}
		}
	}
	call := result(3)
	sc := call["structuredContent"].(map[string]any)
	if sc["id"] != "f_001" || !strings.HasPrefix(call["content"].([]any)[0].(map[string]any)["text"].(string), "failure f_001 recorded in .ctxgit/failure-log.md") {
		t.Errorf("fail over stdio: %v", call)
	}
	if call["isError"] == true {
		t.Errorf("fail: %v", call)
	}
}

// typeArrays lists where in a schema "type" is not one string. The keys
// of "properties" and "$defs" are names, a property called "type" too.
func typeArrays(v any, path string) []string {
	var found []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "type" {
				if _, ok := e.(string); !ok {
					found = append(found, path+".type")
				}
				continue
			}
			if names, ok := e.(map[string]any); ok && (k == "properties" || k == "$defs" || k == "definitions" || k == "patternProperties") {
				for name, sub := range names {
					found = append(found, typeArrays(sub, path+"."+k+"."+name)...)
				}
				continue
			}
			found = append(found, typeArrays(e, path+"."+k)...)
		}
	case []any:
		for i, e := range x {
			found = append(found, typeArrays(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return found
}

// The log tool's text has a restore's two checkpoints as one line, as
// ctxgit log does (workspace.LogLines); its structured result keeps both.
func TestLogTextMergesARestore(t *testing.T) {
	dir, env := newWorkspace(t)
	w, err := workspace.Open(env, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []workspace.CheckpointOptions{
		{Trigger: spec.TriggerManual, Message: "first"},
		{Trigger: spec.TriggerRestore, Message: "before restoring default:cp_001: a.txt"},
		{Trigger: spec.TriggerRestored, Message: "restored default:cp_001: a.txt"},
	} {
		if _, err := w.Checkpoint(o); err != nil {
			t.Fatal(err)
		}
	}
	c := connect(t, Options{Root: dir, Env: env, Version: "test"})
	lg, txt := c.ok("log", nil)
	if n := len(lg["checkpoints"].([]any)); n != 3 {
		t.Errorf("structured log: %d checkpoints, want 3", n)
	}
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "  restore  restored default:cp_001: a.txt · safety checkpoint cp_002") ||
		!strings.HasPrefix(lines[1], "cp_001 ") {
		t.Errorf("log text:\n%s\nwant the restore as one line, then cp_001", txt)
	}
}
