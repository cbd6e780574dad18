package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// productEnv switches the scripts back to the test binary as ctxgit
// (CTXGIT_TEST_PRODUCT=0), e.g. to debug one with the test's own build.
const productEnv = "CTXGIT_TEST_PRODUCT"

// buildProduct builds the shipped ctxgit once for this run into a new
// directory and puts the test binary beside it as each of names (the
// other programs an install puts beside ctxgit, which testscript.Main
// answers by the name they are run as), so ctxgit finds its siblings as
// installed. The scripts then run the program users run: the test binary
// as ctxgit cost 44 ms of CPU a start against the product's 30 (it is
// twice the size, dynamically linked, and initialises testscript and the
// MCP SDK), and the scripts start ctxgit some 1,700 times
// (CONTRIBUTING.md, "Test tiers"). On any failure it returns the reason
// and the caller keeps the test binary as ctxgit: slower, the same code.
func buildProduct(names ...string) (dir string, err error) {
	if os.Getenv(productEnv) == "0" {
		return "", fmt.Errorf("%s=0", productEnv)
	}
	goTool, err := goCommand()
	if err != nil {
		return "", err
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir, err = os.MkdirTemp("", "ctxgit-product")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	args := []string{"build", "-o", filepath.Join(dir, "ctxgit"+exe)}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, strings.TrimSpace(string(out)))
	}
	for _, name := range names {
		if err := linkOrCopy(self, filepath.Join(dir, name+exe)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// goCommand is the go command that is running this test.
func goCommand() (string, error) {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath("go")
}

func linkOrCopy(from, to string) error {
	if err := os.Link(from, to); err == nil {
		return nil
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// ctxgitOnPath is the ctxgit the scripts run: the product built for this
// run, or the test binary testscript.Main put on PATH. Anything else (an
// installed ctxgit ahead of them) fails the test that would run it.
func ctxgitOnPath(t testing.TB) string {
	t.Helper()
	exe, err := exec.LookPath("ctxgit")
	if err == nil && (productDir != "" && filepath.Dir(exe) == productDir || strings.Contains(exe, "testscript-main")) {
		return exe
	}
	t.Fatalf("ctxgit on PATH is %q (%v), not the one built for this test", exe, err)
	return ""
}

// The scripts run the built product when it could be built.
func TestScriptsRunTheProduct(t *testing.T) {
	if os.Getenv(productEnv) == "0" {
		t.Skip(productEnv + "=0: the test binary is ctxgit")
	}
	if productDir == "" {
		t.Fatal("the product was not built; see the line TestMain printed")
	}
	exe := ctxgitOnPath(t)
	if filepath.Dir(exe) != productDir {
		t.Fatalf("ctxgit on PATH is %s, not the product in %s", exe, productDir)
	}
	for _, sibling := range []string{"ctxgit-hook", "ctxgit-mcp"} {
		if _, err := os.Stat(filepath.Join(productDir, sibling)); err != nil {
			t.Errorf("%s is not beside the product: %v", sibling, err)
		}
	}
}
