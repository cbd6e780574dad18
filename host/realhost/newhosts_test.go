package realhost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What the tier checks of the hosts issue 33 added (Qwen Code, GitHub
// Copilot CLI, opencode), shared by their tests.

// planGoal is the goal of the plan the new hosts' workspaces hold: the
// recovery after a compaction must carry it.
const planGoal = "the batch packer writes batches of 500"

// writePlan puts a plan with planGoal into the workspace.
func writePlan(w *Workspace) {
	w.WriteFile(".active-plan.md", "## Plan: Pack the batches\n\n**Goal**: "+planGoal+"\n\n### Steps\n1. Echo hello\n2. Check the output\n")
}

// oneRecovery checks that a request holds exactly one ctxgit block, the
// recovery built from checkpoint id, with the plan's goal, and no card.
func oneRecovery(t *testing.T, body []byte, id, when string) {
	t.Helper()
	if n := CountBlocks(body); n != 1 {
		t.Errorf("%s: %d ctxgit blocks, want 1", when, n)
	}
	if n := Count(body, "# Post-Compaction Recovery"); n != 1 {
		t.Errorf("%s: %d recovery blocks, want 1", when, n)
	}
	if ids := blockCheckpoints(body); len(ids) != 1 || ids[0] != id {
		t.Errorf("%s: the block is from %q, want the compaction checkpoint %s exactly", when, ids, id)
	}
	if !strings.Contains(string(body), planGoal) {
		t.Errorf("%s: the recovery lacks the plan's goal %q", when, planGoal)
	}
	if n := Count(body, cardMarker); n != 0 {
		t.Errorf("%s: the card %d times, want 0 (the session had it)", when, n)
	}
}

// ciModes runs test once with CI unset and once with CI=true, as CI
// systems set it, each in a new workspace: hosts run differently under
// it (Claude Code and Copilot CLI created their transcripts later; the
// harness does not pass on the test process's own CI). env is what the
// host's runs add to the workspace's environment.
func ciModes(t *testing.T, test func(t *testing.T, env []string)) {
	t.Run("CI unset", func(t *testing.T) { test(t, nil) })
	t.Run("CI=true", func(t *testing.T) { test(t, []string{"CI=true"}) })
}

// noHookFailures fails the test when a hook logged a failure.
func noHookFailures(t *testing.T, w *Workspace) {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(w.Dir, ".ctxgit", "local", "ctxgit.log")); err == nil {
		t.Errorf("hook failures logged:\n%s", data)
	}
}

// chatSession drives one of the new hosts headless against the chat fake,
// in one workspace: each run is the host's binary with argv(args) and env.
type chatSession struct {
	t      *testing.T
	w      *Workspace
	bin    string
	fake   *FakeAPI
	script *chatScript
	env    []string
	argv   func(args []string) []string
}

// run runs the host once and returns the main-loop requests it made, in
// order, and the index among them of the first one after a compaction's
// summary request (-1 when there was none); with CTXGIT_REALHOST_DUMP set
// it logs the host's output.
func (s *chatSession) run(args ...string) (main []Request, afterSummary int) {
	s.t.Helper()
	before := len(s.fake.Requests())
	name := filepath.Base(s.bin) + " " + strings.Join(args, " ")
	began := time.Now()
	r := s.w.Run(5*time.Minute, s.env, s.bin, s.argv(args)...)
	s.t.Logf("%s: ran %s", name, time.Since(began).Round(time.Millisecond))
	if r.Err != nil {
		s.t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, r.Err, r.Stdout, r.Stderr)
	}
	if os.Getenv("CTXGIT_REALHOST_DUMP") != "" {
		s.t.Logf("%s:\nstdout:\n%s\nstderr:\n%s", name, r.Stdout, r.Stderr)
	}
	afterSummary = -1
	summary := false
	for i, q := range s.fake.Requests()[before:] {
		kind := s.script.kinds[before+i]
		s.t.Logf("%s: request %d %s: blocks %d card %d nudge %d", name, i, kind,
			CountBlocks(q.Body), Count(q.Body, cardMarker), Count(q.Body, nudgeMarker))
		switch kind {
		case "summary":
			summary = true
		case "main":
			if summary && afterSummary < 0 {
				afterSummary = len(main)
			}
			main = append(main, q)
		}
	}
	return main, afterSummary
}

// scenario runs the tier's scenario on a host whose compaction is a run of
// its own (Qwen Code's /compress, Copilot CLI's /compact), its script
// holding the start's two answers (a tool call reporting 70% of the
// window, then text): the start, whose two main requests hold the card
// once each and no block, the second the nudge once; the compaction run,
// which leaves a checkpoint with trigger compaction; the next run, whose
// first request holds exactly the recovery from it; and a further run,
// whose requests hold the same recovery once and no nudge.
func (s *chatSession) scenario(start, compact, next, further []string) {
	t := s.t
	t.Helper()
	first, _ := s.run(start...)
	if len(first) != 2 {
		t.Fatalf("first run: %d main requests, want 2 (the prompt, the tool result)", len(first))
	}
	for i, q := range first {
		if n := Count(q.Body, cardMarker); n != 1 {
			t.Errorf("first run, request %d: the card %d times, want 1", i, n)
		}
		if n := CountBlocks(q.Body); n != 0 {
			t.Errorf("first run, request %d: %d ctxgit blocks, want 0", i, n)
		}
	}
	if n := Count(first[0].Body, nudgeMarker); n != 0 {
		t.Errorf("request 0 holds the nudge %d times, want 0", n)
	}
	if n := Count(first[1].Body, nudgeMarker); n != 1 {
		t.Errorf("the request after the tool call holds the nudge %d times, want 1", n)
	}

	s.run(compact...)
	compaction := codexCompactionCheckpoint(t, s.w)

	after, _ := s.run(next...)
	if len(after) == 0 {
		t.Fatal("the turn after the compaction made no main request")
	}
	oneRecovery(t, after[0].Body, compaction, "the first request after the compaction")

	// A new process: its requests hold the recovery again, once, and
	// nothing beside it.
	later, _ := s.run(further...)
	for i, q := range later {
		oneRecovery(t, q.Body, compaction, fmt.Sprintf("a further prompt, request %d", i))
		if n := Count(q.Body, nudgeMarker); n != 0 {
			t.Errorf("a further prompt, request %d: the nudge %d times, want 0 (the compaction ended its cycle)", i, n)
		}
	}
	noHookFailures(t, s.w)
}

// untrusted runs the host once in a folder it does not trust yet: no
// request holds the card (the project's hooks did not run), and doctor
// says each of doctorSays.
func (s *chatSession) untrusted(args []string, doctorSays ...string) {
	s.t.Helper()
	main, _ := s.run(args...)
	for i, q := range main {
		if n := Count(q.Body, cardMarker); n != 0 {
			s.t.Errorf("untrusted run, request %d: the card %d times; the folder is not trusted", i, n)
		}
	}
	doctor := s.w.MustRun("ctxgit", "doctor")
	for _, want := range doctorSays {
		if !strings.Contains(doctor, want) {
			s.t.Errorf("doctor after an untrusted run lacks %q:\n%s", want, doctor)
		}
	}
}

// chatKind tells a host's requests apart by their messages: "summary"
// when the last message starts with summaryLast, "main" when the first is
// a system message starting with mainSystem, else "other" (a title, a
// memory-extraction subagent).
func chatKind(mainSystem, summaryLast string) func(Request) string {
	return func(r Request) string {
		msgs := chatMessages(r.Body)
		switch {
		case len(msgs) == 0:
			return "other"
		case summaryLast != "" && strings.HasPrefix(strings.TrimSpace(msgs[len(msgs)-1].Text), summaryLast):
			return "summary"
		case msgs[0].Role == "system" && strings.HasPrefix(msgs[0].Text, mainSystem):
			return "main"
		}
		return "other"
	}
}

// writeHomeJSON writes v as the JSON file rel under the workspace's home.
func writeHomeJSON(t *testing.T, w *Workspace, rel string, v any) {
	t.Helper()
	p := filepath.Join(w.Home, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
