package realhost_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tier's switch (CONTRIBUTING.md, "Test tiers").
const switchEnv = "CTXGIT_REALHOST"

// moduleRoot is the repository root, from this package's directory.
const moduleRoot = "../.."

var (
	ctxgitOnce sync.Once
	ctxgitPath string
	ctxgitErr  error

	installMu sync.Mutex
	installed = map[string]hostInstall{}
)

// hostInstall is what scripts/realhost/install.sh printed for one host.
type hostInstall struct {
	Bin     string // the host's executable
	NodeDir string // the directory of the node the host runs on
	Version string // the pinned version, from the installed package
}

// requireTier skips the test unless the real-host tier was asked for.
func requireTier(t *testing.T) {
	t.Helper()
	if os.Getenv(switchEnv) == "" {
		t.Skipf("real-host tier: set %s=1 (CONTRIBUTING.md, \"Test tiers\")", switchEnv)
	}
	if runtime.GOOS == "windows" {
		t.Skip("real-host tier: the install script and hosts run on Linux and macOS")
	}
}

// ctxgitBinary builds cmd/ctxgit and cmd/ctxgit-hook once per test binary
// and returns ctxgit's path; the hosts run them as the hook commands init
// wrote, found on PATH.
func ctxgitBinary(t *testing.T) string {
	t.Helper()
	ctxgitOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctxgit-realhost-bin-")
		if err != nil {
			ctxgitErr = err
			return
		}
		ctxgitPath = filepath.Join(dir, "ctxgit")
		// ctxgit-hook and ctxgit-mcp beside it, as `go install
		// ./cmd/...` and the release archives put them: init --host
		// installs ctxgit-hook for the tool-call events, and `ctxgit
		// mcp`, which init --mcp configures, hands over to ctxgit-mcp.
		for _, b := range []struct{ out, pkg string }{{ctxgitPath, "./cmd/ctxgit"}, {filepath.Join(dir, "ctxgit-hook"), "./cmd/ctxgit-hook"},
			{filepath.Join(dir, "ctxgit-mcp"), "./cmd/ctxgit-mcp"}} {
			cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
			cmd.Dir = moduleRoot
			if out, err := cmd.CombinedOutput(); err != nil {
				ctxgitErr = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if ctxgitErr != nil {
		t.Fatal(ctxgitErr)
	}
	return ctxgitPath
}

// installHost installs one host (claude-code, codex, gemini-cli, openclaw)
// at its pinned version through the install script, once per test binary.
func installHost(t *testing.T, host string) hostInstall {
	t.Helper()
	installMu.Lock()
	defer installMu.Unlock()
	if in, ok := installed[host]; ok {
		return in
	}
	cmd := exec.Command("bash", "scripts/realhost/install.sh", host)
	cmd.Dir = moduleRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("install %s: %v\n%s", host, err, stderr.String())
	}
	var in hostInstall
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		switch {
		case !ok:
		case k == "NODE":
			in.NodeDir = filepath.Dir(v)
		case k == host:
			in.Bin = v
		}
	}
	if in.Bin == "" || in.NodeDir == "" {
		t.Fatalf("install %s printed no binary:\n%s", host, out)
	}
	installed[host] = in
	return in
}

// Workspace is a git repository with ctxgit's hooks installed for one host,
// and a private HOME so the host's user config is the test's alone.
type Workspace struct {
	Dir  string
	Home string
	Env  []string // the environment every command here runs with
	t    *testing.T
}

// NewWorkspace makes a repository with one commit, puts ctxgit and the
// host's node first on PATH, and runs `ctxgit init` with initArgs (for
// example "--host", "claude-code").
func NewWorkspace(t *testing.T, in hostInstall, initArgs ...string) *Workspace {
	t.Helper()
	root := t.TempDir()
	w := &Workspace{Dir: filepath.Join(root, "repo"), Home: filepath.Join(root, "home"), t: t}
	for _, d := range []string{w.Dir, w.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := ctxgitBinary(t)
	path := filepath.Dir(bin) + string(os.PathListSeparator) + in.NodeDir +
		string(os.PathListSeparator) + os.Getenv("PATH")
	// CI is the host's to see only where a test sets it: Claude Code
	// runs differently under CI=true (TestClaudeCodeHeadless runs both).
	var inherited []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			inherited = append(inherited, kv)
		}
	}
	w.Env = append(inherited,
		"PATH="+path,
		"HOME="+w.Home,
		"XDG_CONFIG_HOME="+filepath.Join(w.Home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(w.Home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(w.Home, ".local", "share"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"NO_COLOR=1",
		// No update checks, telemetry or other traffic off this machine.
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	)
	w.MustRun("git", "init", "-q", "-b", "main")
	w.WriteFile("README.md", "# demo\n")
	w.MustRun("git", "add", "-A")
	w.MustRun("git", "commit", "-q", "-m", "initial")
	w.MustRun("ctxgit", append([]string{"init"}, initArgs...)...)
	// The tool-call hooks run ctxgit-hook, found beside ctxgit.
	for _, f := range []string{".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json", ".cursor/hooks.json"} {
		if data, err := os.ReadFile(filepath.Join(w.Dir, f)); err == nil && !bytes.Contains(data, []byte("ctxgit-hook ")) {
			t.Fatalf("ctxgit init %s wrote no ctxgit-hook command in %s:\n%s", strings.Join(initArgs, " "), f, data)
		}
	}
	return w
}

// WriteFile writes a file under the workspace.
func (w *Workspace) WriteFile(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// Result is one finished command.
type Result struct {
	Stdout, Stderr string
	Err            error
}

// Run runs a command in the workspace with its environment plus extra,
// killed after timeout; the host's children (its hooks) share its fate.
func (w *Workspace) Run(timeout time.Duration, extra []string, name string, args ...string) Result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	env := append(append([]string(nil), w.Env...), extra...)
	cmd := exec.CommandContext(ctx, lookPath(name, env), args...)
	cmd.Dir = w.Dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %s: %v", name, timeout, err)
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// lookPath finds a bare command name on the PATH of env (the last PATH
// wins, as exec does), not the test process's: ctxgit and the host's node
// are first there only.
func lookPath(name string, env []string) string {
	if strings.ContainsRune(name, filepath.Separator) {
		return name
	}
	path := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return name
}

// MustRun runs a short command and fails the test if it fails.
func (w *Workspace) MustRun(name string, args ...string) string {
	w.t.Helper()
	r := w.Run(time.Minute, nil, name, args...)
	if r.Err != nil {
		w.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// Request is one request the fake model API received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// FakeAPI is a scripted model API on 127.0.0.1 that records every request.
// Respond answers each request; it runs under the fake's lock, in order.
type FakeAPI struct {
	URL string

	mu       sync.Mutex
	requests []Request
	srv      *http.Server
	respond  func(n int, r Request, w http.ResponseWriter)
}

// NewFakeAPI starts a fake on a free loopback port; respond gets the
// request's index (from 0) among all the fake received.
func NewFakeAPI(t *testing.T, respond func(n int, r Request, w http.ResponseWriter)) *FakeAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &FakeAPI{URL: "http://" + ln.Addr().String(), respond: respond}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	t.Cleanup(func() { _ = f.srv.Close() })
	return f
}

func (f *FakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.requests)
	f.requests = append(f.requests, req)
	f.respond(n, req, w)
}

// Requests returns a copy of what the fake has received so far.
func (f *FakeAPI) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Block markers: the first line of each block ctxgit puts before the model.
var blockMarkers = []string{
	"# Post-Compaction Recovery",
	"# Resumed",
	"# Previous session",
	"# Earlier work in this workspace (ctxgit)",
}

// cardMarker opens the onboarding card.
const cardMarker = "# ctxgit keeps this workspace's working state across compaction"

// mcpToolsMarker opens the MCP server's instructions to a host whose
// hooks show the card (mcpserver.ToolsOnly).
const mcpToolsMarker = "ctxgit's tools keep the working state its hooks describe"

// nudgeMarker opens the flush nudge.
const nudgeMarker = "full; compaction will soon drop older turns"

// CountBlocks counts the ctxgit recovery-type blocks in a request body.
func CountBlocks(body []byte) int {
	n := 0
	for _, m := range blockMarkers {
		n += bytes.Count(body, []byte(m))
	}
	return n
}

// Count counts a marker in a request body.
func Count(body []byte, marker string) int { return bytes.Count(body, []byte(marker)) }
