package realhost_test

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
	first := openclawSystem(reqs[0].Body)
	if Count([]byte(first), cardMarker) != 1 || CountBlocks([]byte(first)) != 0 {
		t.Errorf("first request: card %d times, %d blocks; want the card once, no block", Count([]byte(first), cardMarker), CountBlocks([]byte(first)))
	}
	if !bytes.Contains(reqs[len(reqs)-1].Body, []byte(`"role":"tool"`)) {
		t.Errorf("the exec tool's result never reached the model")
	}

	// 2. A manual compaction: session:compact:before checkpoints.
	_, out := openclawRun(t, in, w, api, "sessions", "compact", openclawSessionKey, "--json")
	if !strings.Contains(out, `"compacted": true`) {
		t.Fatalf("sessions compact did not compact:\n%s", out)
	}
	log := w.MustRun("ctxgit", "log", "-s", session, "--json")
	var cps []struct {
		ID      string `json:"checkpoint_id"`
		Trigger string `json:"trigger"`
	}
	if err := json.Unmarshal([]byte(log), &cps); err != nil || len(cps) == 0 || cps[0].Trigger != "compaction" {
		t.Fatalf("no compaction checkpoint in session %s (%v):\n%s", session, err, log)
	}
	if show := w.MustRun("ctxgit", "show", "--yaml", "-s", session); !strings.Contains(show, "context_window: "+strconv.Itoa(openclawWindow)) {
		t.Errorf("the compaction checkpoint lacks the configured window:\n%s", show)
	}

	// 3. Two runs after the compaction: each one's first request holds
	// exactly one ctxgit block, the recovery of the compaction checkpoint,
	// and no card.
	for i, msg := range []string{"what next?", "and then?"} {
		reqs, _ := openclawRun(t, in, w, api, "agent", "--agent", "main", "--message", msg, "--json", "--timeout", "600")
		if len(reqs) == 0 {
			t.Fatalf("run %d after the compaction reached no model", i+1)
		}
		sys := []byte(openclawSystem(reqs[0].Body))
		if n := CountBlocks(reqs[0].Body); n != 1 || Count(sys, "# Post-Compaction Recovery") != 1 {
			t.Errorf("run %d after the compaction: %d ctxgit blocks in the request, %d recoveries in the system prompt; want 1",
				i+1, n, Count(sys, "# Post-Compaction Recovery"))
		}
		if !bytes.Contains(sys, []byte(cps[0].ID)) {
			t.Errorf("run %d after the compaction: the block is not from %s", i+1, cps[0].ID)
		}
		if n := Count(reqs[0].Body, cardMarker); n != 0 {
			t.Errorf("run %d after the compaction: the card %d times", i+1, n)
		}
	}
	// Nothing left in git's view of the user's files.
	if st := w.MustRun("git", "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("git status after the session:\n%s", st)
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
