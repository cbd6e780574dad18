package realhost_test

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// OpenClaw runs its agents inside its Gateway, and only the Gateway loads
// internal hooks (its dist/server-startup-post-attach: prepareInternalHooks
// at Gateway start; `openclaw agent --local` runs the embedded agent with
// no hooks at all). So the tier starts a Gateway on 127.0.0.1 and drives it
// with `openclaw agent` (one agent run each, through the Gateway) and
// `openclaw sessions compact` (a manual compaction; `--message /compact`
// is refused by the CLI).

const (
	openclawToken      = "ctxgit-realhost-token"
	openclawSessionKey = "agent:main:main" // OpenClaw's main session of agent main
	openclawWindow     = 100000
)

// openclawEnv keeps OpenClaw off the network but for the fake: no mDNS
// advertising, no channels, no update checks, no ClawHub telemetry
// (docs/gateway/... "OPENCLAW_DISABLE_BONJOUR", "OPENCLAW_SKIP_CHANNELS",
// update.checkOnStart).
func openclawEnv() []string {
	return []string{
		"OPENCLAW_DISABLE_BONJOUR=1", "OPENCLAW_SKIP_CHANNELS=1", "OPENCLAW_NO_AUTO_UPDATE=1",
		"CLAWHUB_DISABLE_TELEMETRY=1", "OPENCLAW_GATEWAY_TOKEN=" + openclawToken,
	}
}

// openclawConfig writes ~/.openclaw/openclaw.json: the fake as the only
// model provider (OpenAI Chat Completions, window openclawWindow), the
// repository as agent main's workspace, a loopback Gateway with a token,
// and a plain compaction (no memory flush turn, no summary audit) so the
// fake's summary is taken.
func openclawConfig(t *testing.T, w *Workspace, api string, port int) {
	t.Helper()
	cfg := map[string]any{
		"gateway": map[string]any{"mode": "local", "bind": "loopback", "port": port,
			"auth": map[string]any{"mode": "token", "token": openclawToken}},
		"update":    map[string]any{"checkOnStart": false},
		"telemetry": map[string]any{"enabled": false},
		"models": map[string]any{"mode": "replace", "providers": map[string]any{"fake": map[string]any{
			"baseUrl": api + "/v1", "apiKey": "sk-fake", "api": "openai-completions",
			"models": []map[string]any{{"id": "fake-1", "name": "fake-1", "reasoning": false, "input": []string{"text"},
				"contextWindow": openclawWindow, "maxTokens": 4096}},
		}}},
		"agents": map[string]any{"defaults": map[string]any{
			"model":     map[string]any{"primary": "fake/fake-1"},
			"workspace": w.Dir,
			"compaction": map[string]any{"mode": "default", "keepRecentTokens": 1, "recentTurnsPreserve": 0,
				"memoryFlush": map[string]any{"enabled": false}, "qualityGuard": map[string]any{"enabled": false}},
		}},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(w.Home, ".openclaw")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// openclawLog is a Gateway's output, read while it runs.
type openclawLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *openclawLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *openclawLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// openclawGateway starts OpenClaw's Gateway in the workspace and waits
// until it reports ready. On a loaded machine its start can fail its own
// 5-second lease-heartbeat deadline (dist/openclaw-state-lease-heartbeat-
// shared: LEASE_HEARTBEAT_START_TIMEOUT_MS); it is tried three times.
func openclawGateway(t *testing.T, in hostInstall, w *Workspace, port int) {
	t.Helper()
	var last string
	for attempt := 1; attempt <= 3; attempt++ {
		log := &openclawLog{}
		cmd := exec.Command(in.Bin, "gateway", "run", "--port", strconv.Itoa(port), "--auth", "token", "--token", openclawToken)
		cmd.Dir = w.Dir
		cmd.Env = append(append([]string(nil), w.Env...), openclawEnv()...)
		cmd.Stdin = strings.NewReader("")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("openclaw gateway run: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		}
		deadline := time.After(8 * time.Minute)
	wait:
		for {
			select {
			case <-exited:
				last = log.String()
				t.Logf("gateway attempt %d exited before ready:\n%s", attempt, tail(last, 2000))
				break wait
			case <-deadline:
				stop()
				t.Fatalf("gateway not ready within 8 minutes:\n%s", tail(log.String(), 4000))
			case <-time.After(500 * time.Millisecond):
				if strings.Contains(log.String(), "[gateway] ready") {
					t.Cleanup(func() {
						stop()
						if t.Failed() {
							t.Logf("gateway log:\n%s", tail(log.String(), 8000))
						}
					})
					return
				}
			}
		}
	}
	t.Fatalf("gateway did not start in 3 attempts:\n%s", tail(last, 4000))
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// openclawRun runs one OpenClaw command against the Gateway and returns
// the requests the fake received meanwhile, summarizer calls left out.
func openclawRun(t *testing.T, in hostInstall, w *Workspace, fake *FakeAPI, args ...string) ([]Request, string) {
	t.Helper()
	before := len(fake.Requests())
	r := w.Run(8*time.Minute, openclawEnv(), in.Bin, args...)
	if r.Err != nil {
		t.Fatalf("openclaw %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, tail(r.Stdout, 3000), tail(r.Stderr, 3000))
	}
	var turns []Request
	for _, req := range fake.Requests()[before:] {
		if !openclawSummarizing(req.Body) {
			turns = append(turns, req)
		}
	}
	return turns, r.Stdout
}

func TestOpenClaw(t *testing.T) {
	requireTier(t)
	in := installHost(t, "openclaw")
	fake := &openclawFake{}
	api := NewFakeAPI(t, fake.respond)
	w := NewWorkspace(t, in, "--host", "openclaw")
	if _, err := os.Stat(filepath.Join(w.Home, ".openclaw", "hooks", "ctxgit", "handler.ts")); err != nil {
		t.Fatalf("init --host openclaw did not install into OpenClaw's managed hooks: %v", err)
	}
	port := freePort(t)
	openclawConfig(t, w, api.URL, port)
	// What init tells the user to run, as written.
	if r := w.Run(5*time.Minute, openclawEnv(), in.Bin, "hooks", "enable", "ctxgit"); r.Err != nil {
		t.Fatalf("openclaw hooks enable ctxgit: %v\n%s%s", r.Err, tail(r.Stdout, 2000), tail(r.Stderr, 2000))
	}
	openclawGateway(t, in, w, port)
	session := spec.SanitizeSessionKey(openclawSessionKey)

	// 1. The first run: a tool call, with usage at 70% of the window.
	fake.Usage.Store(openclawWindow * 70 / 100)
	reqs, _ := openclawRun(t, in, w, api, "agent", "--agent", "main", "--message", openclawToolWord+": list the files", "--json", "--timeout", "600")
	if len(reqs) < 2 {
		t.Fatalf("first run: %d model requests, want the tool call and its answer", len(reqs))
	}
	// Every request of the run carries the run's system prompt: the card
	// once in each, and no block.
	for i, q := range reqs {
		if n, b := Count(q.Body, cardMarker), CountBlocks(q.Body); n != 1 || b != 0 {
			t.Errorf("first run, request %d: card %d times, %d blocks; want the card once, no block", i, n, b)
		}
	}
	if !bytes.Contains(reqs[len(reqs)-1].Body, []byte(`"role":"tool"`)) {
		t.Errorf("the exec tool's result never reached the model")
	}

	// 2. A manual compaction: session:compact:before checkpoints.
	_, out := openclawRun(t, in, w, api, "sessions", "compact", openclawSessionKey, "--json")
	if !strings.Contains(out, `"compacted": true`) {
		t.Fatalf("sessions compact did not compact:\n%s", out)
	}
	cps := openclawCheckpoints(t, w, session)
	if len(cps) == 0 || cps[0].Trigger != "compaction" {
		t.Fatalf("no compaction checkpoint in session %s: %+v", session, cps)
	}
	show := w.MustRun("ctxgit", "show", "--yaml", "-s", session)
	if !strings.Contains(show, "context_window: "+strconv.Itoa(openclawWindow)) {
		t.Errorf("the compaction checkpoint lacks the configured window:\n%s", show)
	}
	// Its usage is what the provider reported (70% of the window), not
	// OpenClaw's own estimate of the messages (issue 34: "context 0%").
	if !strings.Contains(show, "input_tokens: "+strconv.Itoa(openclawWindow*70/100)) || !strings.Contains(show, "utilization: 0.7\n") {
		t.Errorf("the compaction checkpoint's usage is not the provider's 70%%:\n%s", show)
	}
	// The compaction event names no session file: the handler read the
	// session's thread from OpenClaw's own store (the agent's SQLite
	// database), and the checkpoint holds what it said.
	openclawThreadRecorded(t, show, cps[0].ID)

	// 3. Two runs after the compaction. OpenClaw rebuilds the system
	// prompt on every run from the bootstrap files, and sends no earlier
	// run's system prompt, so each run carries the recovery anew: every
	// request of each run holds exactly one ctxgit block, the compaction
	// checkpoint's recovery, and no card. The second run, with nothing
	// changed, adds nothing beside that block (docs/HOSTS.md, "OpenClaw").
	for i, msg := range []string{"what next?", "and then?"} {
		reqs, _ := openclawRun(t, in, w, api, "agent", "--agent", "main", "--message", msg, "--json", "--timeout", "600")
		if len(reqs) == 0 {
			t.Fatalf("run %d after the compaction reached no model", i+1)
		}
		for j, q := range reqs {
			sys := []byte(openclawSystem(q.Body))
			if n, r := CountBlocks(q.Body), Count(sys, "# Post-Compaction Recovery"); n != 1 || r != 1 {
				t.Errorf("run %d after the compaction, request %d: %d ctxgit blocks in the request, %d recoveries in the system prompt; want 1",
					i+1, j, n, r)
			}
			if ids := blockCheckpoints(q.Body); len(ids) != 1 || ids[0] != cps[0].ID {
				t.Errorf("run %d after the compaction, request %d: the block is from %q, want the compaction checkpoint %s exactly", i+1, j, ids, cps[0].ID)
			}
			for _, extra := range []string{cardMarker, nudgeMarker, "(since you left)"} {
				if n := Count(q.Body, extra); n != 0 {
					t.Errorf("run %d after the compaction, request %d: %q %d times, want none", i+1, j, extra, n)
				}
			}
		}
	}
	// The runs took no checkpoint of their own: the compaction's is still
	// the session's newest, the one the block was built from.
	if after := openclawCheckpoints(t, w, session); len(after) != len(cps) || after[0].ID != cps[0].ID {
		t.Errorf("checkpoints after the runs: %+v, want still %+v", after, cps)
	}
	// Nothing left in git's view of the user's files.
	if st := w.MustRun("git", "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("git status after the session:\n%s", st)
	}
}

type openclawCheckpoint struct {
	ID      string `json:"checkpoint_id"`
	Trigger string `json:"trigger"`
}

// openclawCheckpoints lists a session's checkpoints, newest first, as
// `ctxgit log -s SESSION --json` prints them.
func openclawCheckpoints(t *testing.T, w *Workspace, session string) []openclawCheckpoint {
	t.Helper()
	out := w.MustRun("ctxgit", "log", "-s", session, "--json")
	var cps []openclawCheckpoint
	if err := json.Unmarshal([]byte(out), &cps); err != nil {
		t.Fatalf("ctxgit log -s %s --json: %v\n%s", session, err, out)
	}
	return cps
}

// blockCheckpoints lists the checkpoint ids the ctxgit blocks in a request
// name in their headers.
func blockCheckpoints(body []byte) []string {
	var ids []string
	for _, m := range blockCheckpoint.FindAllSubmatch(body, -1) {
		ids = append(ids, string(m[1]))
	}
	return ids
}

// openclawThreadRecorded checks that the compaction checkpoint (`ctxgit
// show --yaml`) holds the thread of the session before it: the user's
// instruction as its latest prompt and among its exchanges, an answer of
// the model, and the exec tool the run called.
func openclawThreadRecorded(t *testing.T, show, id string) {
	t.Helper()
	cp, err := spec.ParseCheckpoint("ctxgit show --yaml", []byte(show))
	if err != nil {
		t.Fatalf("ctxgit show --yaml: %v\n%s", err, show)
	}
	if cp.Meta.CheckpointID != id {
		t.Fatalf("ctxgit show --yaml shows %s, want the compaction checkpoint %s", cp.Meta.CheckpointID, id)
	}
	const instruction = openclawToolWord + ": list the files"
	if !strings.Contains(string(cp.Thread.LatestPrompt), instruction) {
		t.Errorf("the compaction checkpoint's latest prompt is %q, want the user's instruction %q from OpenClaw's store:\n%s",
			cp.Thread.LatestPrompt, instruction, show)
	}
	roles := map[string]int{}
	user := false
	for _, e := range cp.Thread.KeyExchanges {
		roles[e.Role]++
		user = user || (e.Role == "user" && strings.Contains(string(e.Gist), instruction))
	}
	if !user || roles["assistant"] == 0 {
		t.Errorf("the compaction checkpoint's exchanges %+v lack the user's instruction or the model's answer", cp.Thread.KeyExchanges)
	}
	if !slices.Contains(cp.Resources.ToolsUsed, "exec") {
		t.Errorf("the compaction checkpoint's tools %q lack exec, the tool the run called", cp.Resources.ToolsUsed)
	}
}

// The handler ctxgit writes is TypeScript OpenClaw loads as it is: the
// tier type-checks it, strictly, with the TypeScript and Node types
// OpenClaw ships in its own dependencies.
func TestOpenClawHandlerTypes(t *testing.T) {
	requireTier(t)
	in := installHost(t, "openclaw")
	modules := filepath.Dir(filepath.Dir(in.Bin)) // .../node_modules
	tsc := filepath.Join(modules, "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("OpenClaw %s ships no TypeScript: %v", in.Version, err)
	}
	w := NewWorkspace(t, in, "--host", "openclaw")
	handler := filepath.Join(w.Home, ".openclaw", "hooks", "ctxgit", "handler.ts")
	r := w.Run(5*time.Minute, nil, filepath.Join(in.NodeDir, "node"), tsc, "--noEmit", "--strict",
		"--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext",
		"--types", "node", "--typeRoots", filepath.Join(modules, "@types"), handler)
	if r.Err != nil {
		t.Errorf("tsc %s: %v\n%s%s", handler, r.Err, r.Stdout, r.Stderr)
	}
}

// TestOpenClawHandlerRunsNoWorkspaceProgram: with "." and an empty entry
// on PATH and no ctxgit installed, the handler runs nothing, not the
// ./ctxgit a repository committed into the agent's workspace; an
// installed ctxgit in an absolute folder is found (as ctxgit's opencode
// plugin does). The handler runs in the host's Node, types stripped.
func TestOpenClawHandlerRunsNoWorkspaceProgram(t *testing.T) {
	requireTier(t)
	in := installHost(t, "openclaw")
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{ws, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fake := func(at, marker string) {
		script := "#!/bin/sh\ntouch " + filepath.Join(dir, marker) + "\n"
		if err := os.WriteFile(filepath.Join(at, "ctxgit"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fake(ws, "ran-the-workspace-program")
	src, err := os.ReadFile(filepath.Join(moduleRoot, "host", "config", "openclaw", "handler.ts"))
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(dir, "handler.ts")
	if err := os.WriteFile(mod, []byte(strings.Replace(string(src), "__CTXGIT_COMMAND__", `"ctxgit"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(dir, "driver.mjs")
	if err := os.WriteFile(driver, []byte(`const { default: handler } = await import("`+mod+`");
await handler({ type: "agent", action: "bootstrap", sessionKey: "agent:main:main", context: { workspaceDir: "`+ws+`", bootstrapFiles: [] } });
`), 0o644); err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(in.NodeDir, "node")
	run := func(path string) {
		t.Helper()
		cmd := exec.Command(node, driver)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "PATH="+path, "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node %s: %v\n%s", driver, err, out)
		}
	}
	run(".::" + in.NodeDir + ":/usr/bin:/bin")
	if _, err := os.Stat(filepath.Join(dir, "ran-the-workspace-program")); err == nil {
		t.Fatal("the handler ran the workspace's ./ctxgit found through a relative PATH entry")
	}
	fake(bin, "ran-the-installed-program")
	run(".:" + bin + ":/usr/bin:/bin")
	if _, err := os.Stat(filepath.Join(dir, "ran-the-installed-program")); err != nil {
		t.Fatal("the handler did not run the ctxgit installed in an absolute PATH folder")
	}
	if _, err := os.Stat(filepath.Join(dir, "ran-the-workspace-program")); err == nil {
		t.Fatal("the handler ran the workspace's ./ctxgit")
	}
}
