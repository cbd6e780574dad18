package vcs

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Resolving a revision expression (`HEAD~1`, a short id, `main@{u}`) as
// the user's git resolves it, for commands that take a REF: through git
// itself when it is installed (RevParseCommit), else the caller evaluates
// the expression over the store with ObjectsWithPrefix and GitConfig.

// ErrNoGitBinary is RevParseCommit's error when no git is in PATH.
var ErrNoGitBinary = errors.New("no git in PATH")

// ErrRevisionUnknown is RevParseCommit's error when git ran and cannot
// resolve the expression to a commit; ErrRevisionAmbiguous when git says
// a short id names several objects.
var (
	ErrRevisionUnknown   = errors.New("git cannot resolve it to a commit")
	ErrRevisionAmbiguous = errors.New("the short object id is ambiguous")
)

// revParseTimeout and revParseMemory bound one `git rev-parse`: it
// answers in milliseconds, and holds little more than the refs.
const (
	revParseTimeout = 30 * time.Second
	revParseMemory  = 256 << 20
)

// RevParseCommit runs `git rev-parse --verify --end-of-options REV^{commit}`
// in dir, bounded as every git child ctxgit runs is (gitproc.go: its own
// process group, its death with ctxgit, a memory bound) and in time. The
// expression is passed after --end-of-options, so none is read as an
// option.
func RevParseCommit(ctx context.Context, dir, rev string) (Hash, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return ZeroHash, ErrNoGitBinary
	}
	ctx, cancel := context.WithTimeout(ctx, revParseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "-C", dir, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	cmd.SysProcAttr = gitProcAttr()
	cmd.Cancel = func() error { return stopGit(cmd) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr cappedBuffer
	stdout.max, stderr.max = 4096, 4096
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = runGit(cmd, revParseMemory)
	killGroup(cmd)
	if ctx.Err() != nil {
		return ZeroHash, ctx.Err()
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return ZeroHash, err
		}
		if strings.Contains(stderr.String(), "ambiguous") {
			return ZeroHash, ErrRevisionAmbiguous
		}
		return ZeroHash, ErrRevisionUnknown
	}
	return ParseHash(strings.TrimSpace(stdout.String()))
}

// cappedBuffer keeps the first max bytes written to it and drops the rest.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// PrefixFinder is a store that can list its objects by a prefix of their
// id, as git expands a short id.
type PrefixFinder interface {
	// ObjectsWithPrefix lists the ids (each once) that start with the hex
	// prefix, at most limit of them.
	ObjectsWithPrefix(prefix string, limit int) ([]Hash, error)
}

// ObjectsWithPrefix implements PrefixFinder over the packs and loose
// objects of the repository and its alternates.
func (g *GitStore) ObjectsWithPrefix(prefix string, limit int) ([]Hash, error) {
	prefix = strings.ToLower(prefix)
	if len(prefix) < 2 || len(prefix) > 2*len(Hash{}) {
		return nil, nil
	}
	if strings.Trim(prefix, "0123456789abcdef") != "" {
		return nil, nil
	}
	seen := map[Hash]bool{}
	var out []Hash
	add := func(h Hash) bool {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
		return len(out) < limit
	}
	idxs, err := g.packIndexes()
	if err != nil {
		return nil, err
	}
	first, _ := hex.DecodeString(prefix[:2])
	for _, p := range idxs {
		lo := 0
		if first[0] > 0 {
			lo = int(p.fanout[first[0]-1])
		}
		for i := lo; i < int(p.fanout[first[0]]); i++ {
			var h Hash
			at := p.names + i*p.stride
			copy(h[:], p.data[at:at+len(h)])
			if strings.HasPrefix(h.String(), prefix) && !add(h) {
				return out, nil
			}
		}
	}
	for _, dir := range append([]string{g.objDir}, g.altDirs...) {
		names, err := os.ReadDir(filepath.Join(dir, prefix[:2]))
		if err != nil {
			continue
		}
		for _, e := range names {
			h, err := ParseHash(prefix[:2] + e.Name())
			if err == nil && strings.HasPrefix(h.String(), prefix) && !add(h) {
				return out, nil
			}
		}
	}
	return out, nil
}

// GitConfig reads one key of git's config as git would for the
// repository whose common directory is commonDir: the repository's
// config, then the user's (global, XDG), "" when none sets it.
func GitConfig(commonDir, key string) string { return lookupConfig(commonDir, key) }
