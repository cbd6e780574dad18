package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

func (a *app) demoCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "demo",
		Usage: "run a short scripted Claude Code session through the real hooks in a new directory, and show what ctxgit kept",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "run it in `DIR` (new or empty) instead of a new temporary directory"},
		},
		Action: func(c *cli.Context) error {
			dir, err := demoDir(c.String("dir"))
			if err != nil {
				return err
			}
			start := time.Now().UTC().Add(-demoLength).Truncate(time.Minute)
			if v := os.Getenv("CTXGIT_NOW"); v != "" {
				if start, err = time.Parse(time.RFC3339, v); err != nil {
					return spec.Usage("CTXGIT_NOW=%q: want an RFC 3339 time such as 2026-11-22T10:00:00Z", v)
				}
			}
			// The transcript stays inside the workspace, in the part of
			// .ctxgit/ that is never committed or snapshotted.
			d := &demo{a: a, dir: dir, start: start, exe: selfProgram(),
				transcript: filepath.Join(dir, ".ctxgit", "local", "demo-transcript.jsonl")}
			return d.run()
		},
	})
}

// demoLength is how long the scripted session seems to last: its clock
// starts this long before now, so the timeline ends about now.
const demoLength = 45 * time.Minute

// demoSession is the scripted session's id, shaped as Claude Code's.
const demoSession = "5e1f0c2a-7d3b-4c8e-9a61-d3m0c7a5e001"

// demoDir is the directory the demo's workspace is made in: DIR when
// given (created; it must be empty), else a new temporary directory. It
// is never the current directory's repository.
func demoDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "ctxgit-demo-")
		if err != nil {
			return "", err
		}
		return d, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	if len(entries) > 0 {
		return "", spec.Usage("demo: --dir %s is not empty: give a new or empty directory", dir)
	}
	return abs, nil
}

// demo runs each step as Claude Code runs a hook: this ctxgit as a child
// process in the workspace, the event's JSON on stdin, its stdout read
// back. Commands the agent would run (decide, fail, plan mark) run the
// same way. The children's clock is CTXGIT_NOW, moved on step by step.
type demo struct {
	a          *app
	dir        string
	transcript string
	exe        string
	start      time.Time
	now        time.Duration // since start
	recovery   string
}

func (d *demo) run() error {
	out := d.a.stdout
	fmt.Fprintf(out, "A scripted Claude Code session, run through ctxgit's real hooks.\nWorkspace: %s (new; nothing outside it is touched)\n\n", d.dir)
	if _, err := d.cmd("init"); err != nil {
		return err
	}
	d.step("ctxgit init", "created .ctxgit/ and the checkpoint store")

	d.talk("Ready.", 0.08) // the system prompt and tools, before the first prompt
	card := d.hook("session-start", map[string]any{"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-5"})
	d.step("SessionStart (startup)", fmt.Sprintf("→ the onboarding card (%d characters) and checkpoint cp_001", len([]rune(card))))

	d.at(1)
	d.prompt("Migrate the ledger to v2 without downtime")
	d.talk("I will read the v1 schema and write a plan.", 0.12)

	d.at(3)
	if err := d.write(".active-plan.md", demoPlan); err != nil {
		return err
	}
	d.toolUse("Write", map[string]any{"file_path": filepath.Join(d.dir, ".active-plan.md")}, "ok")
	d.step("Write .active-plan.md", "a plan of 4 steps")

	d.at(6)
	if err := d.agent("decide", "Keep the v1 ledger read-only during the migration", "--why", "rollback stays one config flag away"); err != nil {
		return err
	}
	if err := d.agent("plan", "mark", "1", "done"); err != nil {
		return err
	}

	d.at(10)
	d.talk("Writing the dual write.", 0.38)
	if err := d.write("ledger/v2.go", "package ledger\n\n// DualWrite writes an entry to v1 and v2.\nfunc DualWrite(e Entry) error {\n\tif err := v1.Write(e); err != nil {\n\t\treturn err\n\t}\n\treturn v2.Write(e)\n}\n"); err != nil {
		return err
	}
	d.toolUse("Write", map[string]any{"file_path": filepath.Join(d.dir, "ledger/v2.go")}, "ok")
	d.step("Write ledger/v2.go", "")
	d.statusline(0.41)

	d.at(15)
	d.talk("Running the tests.", 0.55)
	d.toolUse("Bash", map[string]any{"command": "go test ./ledger/..."}, "--- FAIL: TestDualWriteUnderLoad (0.31s)\n    ledger_test.go:88: 3 of 1000 events missing in v2\nFAIL")
	d.step("Bash go test ./ledger/...", "FAIL: 3 of 1000 events missing in v2")
	d.at(17)
	if err := d.agent("fail", "Dual write loses events under load: 3 of 1000 missing in v2", "--type", "Logic/Approach", "--action", "Pivot", "--lesson", "write v2 in batches from the v1 change feed"); err != nil {
		return err
	}

	d.at(21)
	d.talk("Switching to batches from the change feed.", 0.72)
	d.statusline(0.72)
	d.at(22)
	if nudge := d.toolUse("Read", map[string]any{"file_path": filepath.Join(d.dir, "ledger/v2.go")}, "package ledger"); nudge != "" {
		d.step("PostToolUse", "→ the nudge, once: "+strings.SplitN(nudge, ";", 2)[0]+"; …")
	}

	d.at(26)
	if err := d.write("ledger/v2.go", "package ledger\n\n// Backfill copies v1 to v2 in batches from the change feed.\nfunc Backfill(feed ChangeFeed) error {\n\tfor batch := range feed.Batches(500) {\n\t\tif err := v2.WriteBatch(batch); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n}\n"); err != nil {
		return err
	}
	d.talk("Batches written.", 0.83)
	d.toolUse("Edit", map[string]any{"file_path": filepath.Join(d.dir, "ledger/v2.go")}, "ok")
	d.step("Edit ledger/v2.go", "")
	d.statusline(0.83)

	d.at(29)
	d.hook("pre-compact", map[string]any{"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""})
	d.step("PreCompact (auto)", "→ a checkpoint of the plan, decisions, failures and files")
	d.compact(0.83)
	d.recovery = d.hook("session-start", map[string]any{"hook_event_name": "SessionStart", "source": "compact"})
	if d.recovery == "" {
		return fmt.Errorf("demo: SessionStart (compact) gave no recovery block: see %s", filepath.Join(d.dir, ".ctxgit", "local"))
	}
	d.step("SessionStart (compact)", fmt.Sprintf("→ the recovery block (%d characters), shown below", len([]rune(d.recovery))))

	d.at(33)
	d.prompt("go on")
	d.talk("Resuming step 2: batch the v2 writes, then rerun the tests.", 0.18)
	d.at(38)
	d.talk("Tests pass.", 0.26)
	d.toolUse("Bash", map[string]any{"command": "go test ./ledger/..."}, "ok  \texample.com/app/ledger\t0.41s")
	d.step("Bash go test ./ledger/...", "ok")
	if err := d.agent("plan", "mark", "2", "done"); err != nil {
		return err
	}
	d.at(44)
	d.hook("session-end", map[string]any{"hook_event_name": "SessionEnd", "reason": "exit"})
	d.step("SessionEnd", "→ a last checkpoint")

	if hookLog := filepath.Join(d.dir, ".ctxgit", "local", "ctxgit.log"); fileExists(hookLog) {
		return fmt.Errorf("demo: a hook failed: see %s", hookLog)
	}
	fmt.Fprintf(out, "\n== What the model got after the compaction ==\n\n%s\n", strings.TrimRight(d.recovery, "\n"))
	log, err := d.cmd("log")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== ctxgit log ==\n\n%s", log)
	// Under .ctxgit/local/, which is never snapshotted: the page is not
	// the session's work, and the overview does not count it as a change.
	page := filepath.Join(d.dir, ".ctxgit", "local", "timeline.html")
	if _, err := d.cmd("report", "--html", "--output", page); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nHTML timeline: %s\nLook around: ctxgit log --root %s\nThe demo's directory is yours to delete when you are done: nothing else refers to it.\n", page, d.dir)
	return nil
}

// demoPlan is the plan the scripted agent writes (SPEC §2's format).
const demoPlan = `## Plan: Migrate the ledger to v2

Goal: move every ledger write to v2 without downtime

### Steps
1. Read the v1 schema and its writers [in progress]
2. Write v2 behind a dual write
3. Backfill v2 from the v1 change feed
4. Switch reads to v2
`

// at moves the children's clock to m minutes into the session.
func (d *demo) at(m int) { d.now = time.Duration(m) * time.Minute }

func (d *demo) clock() time.Time { return d.start.Add(d.now) }

// step prints one line of the session: the clock, what happened, and
// what ctxgit did.
func (d *demo) step(what, result string) {
	line := fmt.Sprintf("%s  %-26s %s", d.clock().Format("15:04"), what, result)
	fmt.Fprintln(d.a.stdout, strings.TrimRight(line, " "))
}

// cmd runs `ctxgit ARGS` in the workspace and returns its stdout; a
// failure is an error naming the command and its message.
func (d *demo) cmd(args ...string) (string, error) {
	out, errOut, err := d.exec(nil, args...)
	if err != nil {
		msg := strings.TrimSpace(errOut)
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("demo: ctxgit %s failed: %s", strings.Join(args, " "), oneLine(msg))
	}
	return out, nil
}

// agent runs a command the agent would run through its Bash tool, then
// the PostToolUse hook for that call, and prints it.
func (d *demo) agent(args ...string) error {
	if _, err := d.cmd(args...); err != nil {
		return err
	}
	shown := "$ ctxgit " + shellWords(args)
	d.toolUse("Bash", map[string]any{"command": shown[2:]}, "ok")
	d.step(shown, "")
	return nil
}

// hook sends one Claude Code hook event and returns the additionalContext
// it gave the model ("" for none). Hooks fail open and always exit 0: a
// failure shows in .ctxgit/local/ctxgit.log, checked at the end.
func (d *demo) hook(event string, payload map[string]any) string {
	payload["session_id"] = demoSession
	payload["transcript_path"] = d.transcript
	payload["cwd"] = d.dir
	out, _, _ := d.exec(payload, "hook", "claude-code", event)
	var reply struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal([]byte(out), &reply) != nil {
		return ""
	}
	return reply.HookSpecificOutput.AdditionalContext
}

// toolUse sends a PostToolUse event and returns what it gave the model.
func (d *demo) toolUse(tool string, input map[string]any, response string) string {
	return d.hook("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "permission_mode": "default", "tool_name": tool,
		"tool_input": input, "tool_response": map[string]any{"stdout": response, "stderr": "", "interrupted": false},
		"tool_use_id": fmt.Sprintf("toolu_demo_%d", int(d.now.Minutes()))})
}

// statusline sends Claude Code's status line JSON at fill (0..1) of a
// 200k window and prints the line it shows.
func (d *demo) statusline(fill float64) {
	used := int64(fill * demoWindow)
	payload := map[string]any{"session_id": demoSession, "transcript_path": d.transcript, "cwd": d.dir,
		"workspace": map[string]any{"current_dir": d.dir, "project_dir": d.dir},
		"context_window": map[string]any{"context_window_size": demoWindow, "used_percentage": int(fill * 100),
			"current_usage": map[string]any{"input_tokens": 2000, "output_tokens": 50, "cache_creation_input_tokens": 8000, "cache_read_input_tokens": used - 10000}}}
	out, _, _ := d.exec(payload, "statusline")
	shown := strings.TrimSpace(out)
	if shown == "" {
		shown = "(blank below 70%)"
	}
	d.step(fmt.Sprintf("status line at %d%%", int(fill*100)), shown)
}

const demoWindow = 200000

// prompt appends the user's prompt to the transcript and sends it to
// the UserPromptSubmit hook, as Claude Code does.
func (d *demo) prompt(text string) {
	d.appendTranscript(map[string]any{"type": "user", "sessionId": demoSession, "uuid": fmt.Sprintf("u%d", int(d.now.Minutes())),
		"timestamp": d.clock().Format(time.RFC3339), "message": map[string]any{"role": "user", "content": text}})
	d.hook("user-prompt-submit", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": text})
	d.step("UserPromptSubmit", strconv.Quote(text))
}

// talk appends an assistant turn to the transcript, its usage at fill of
// the window, as Claude Code records it.
func (d *demo) talk(text string, fill float64) {
	used := int(fill * demoWindow)
	n := int(d.now.Minutes())
	d.appendTranscript(map[string]any{"type": "assistant", "sessionId": demoSession, "uuid": fmt.Sprintf("a%d", n), "timestamp": d.clock().Format(time.RFC3339),
		"message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": 2000, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": used - 3000, "output_tokens": 40}}})
}

// compact appends what Claude Code writes when it compacts: a boundary
// and the summary the session goes on from.
func (d *demo) compact(fill float64) {
	d.appendTranscript(
		map[string]any{"type": "system", "subtype": "compact_boundary", "sessionId": demoSession, "content": "Conversation compacted", "level": "info",
			"compactMetadata": map[string]any{"trigger": "auto", "preTokens": int(fill * demoWindow)}},
		map[string]any{"type": "user", "isCompactSummary": true, "sessionId": demoSession,
			"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation that ran out of context."}})
}

func (d *demo) appendTranscript(lines ...map[string]any) {
	f, err := os.OpenFile(d.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return // the hooks then read no transcript: the demo shows less
	}
	defer f.Close()
	for _, l := range lines {
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}

// write writes a workspace file as the agent's Write tool would.
func (d *demo) write(name, content string) error {
	p := filepath.Join(d.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// exec runs this ctxgit with args in the workspace, payload as JSON on
// stdin. The child's environment has none of the caller's CTXGIT_ or
// git location variables: it works on the demo's workspace alone.
func (d *demo) exec(payload map[string]any, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(d.exe, args...)
	cmd.Dir = d.dir
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CTXGIT_") || demoDropEnv[name] {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "CTXGIT_ROOT="+d.dir, "CTXGIT_HOOK_DETACH=0", "CTXGIT_NOW="+d.clock().Format(time.RFC3339))
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return "", "", err
		}
		cmd.Stdin = bytes.NewReader(b)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// demoDropEnv are git's variables that would point a child at another
// repository.
var demoDropEnv = map[string]bool{"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_COMMON_DIR": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true}

// shellWords quotes args as a POSIX shell would need them.
func shellWords(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}
