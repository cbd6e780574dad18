package gitlink

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// TriggerCommit names the checkpoint the hook takes before a commit whose
// staged change is newer than the session's newest checkpoint.
const TriggerCommit = "commit"

// PrepareResult says what the hook did to one commit message.
type PrepareResult struct {
	// Skipped says why no trailer was added ("" when one was).
	Skipped string
	Link    spec.CheckpointLink
	// Took is true when the hook took a checkpoint first.
	Took bool
	// Busy is true when the hook would have taken one but another
	// ctxgit write held the workspace past LockWait: Link is then the
	// newest checkpoint as it was.
	Busy bool
}

// LockWait bounds how long the hook waits for the workspace lock before
// it links the newest checkpoint without taking one: a commit never
// waits on ctxgit (docs/cli.md#init), whatever lock.timeout says.
const LockWait = time.Second

// replaying are the files git keeps while it replays commits that already
// have their messages: a rebase, a cherry-pick. A revert is not among
// them: it is a new change with a message git writes afresh, linked like
// any commit made in the session.
var replaying = []string{"rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD"}

// PrepareCommitMsg is the prepare-commit-msg hook (docs/cli.md#init): when
// a session is active in the workspace, it links the commit being made to
// the session's newest checkpoint, taking one first when the staged change
// is newer, by adding a Ctxgit-Checkpoint trailer to msgFile as `git
// interpret-trailers` adds it (an equal trailer is not added twice), or,
// in the editor flow before the user has typed anything, where `git
// commit -s` puts its Signed-off-by (leadEmpty). source is git's second
// hook argument ("" for the editor with git's template, "template",
// "message", "merge", "squash", "commit"); session is CTXGIT_SESSION, if
// set.
func PrepareCommitMsg(ctx context.Context, w *workspace.Workspace, msgFile, source, session string) (PrepareResult, error) {
	if w.Repo == nil {
		return PrepareResult{Skipped: "the workspace keeps a private store"}, nil
	}
	for _, name := range replaying {
		if _, err := os.Lstat(filepath.Join(w.Repo.GitDir, name)); err == nil {
			return PrepareResult{Skipped: "git is replaying commits (" + name + ")"}, nil
		}
	}
	if session == "" {
		cur, ok := workspace.CurrentSessionAt(w.Root, w.Env.Now())
		if !ok {
			return PrepareResult{Skipped: "no ctxgit session is active here"}, nil
		}
		session = cur.Session
	}
	cp, err := sessionHead(w, session)
	if err != nil {
		return PrepareResult{}, err
	}
	res := PrepareResult{}
	if cp == nil || stagedAfter(w, cp) {
		if time.Duration(w.Config.Lock.Timeout) > LockWait {
			w.Config.Lock.Timeout = spec.Duration(LockWait)
		}
		out, err := w.Checkpoint(workspace.CheckpointOptions{Session: session, Trigger: TriggerCommit,
			Message: "before a commit", Ctx: ctx})
		switch {
		case err == nil:
			cp, res.Took = out.Checkpoint, true
		case errors.Is(err, spec.ErrConflict):
			// Another ctxgit write holds the workspace (a host hook's
			// checkpoint, as likely as not of this very change): link
			// the newest checkpoint as it stands now.
			newest, herr := sessionHead(w, session)
			if herr != nil || newest == nil {
				return PrepareResult{}, err
			}
			cp, res.Busy = newest, true
		default:
			return PrepareResult{}, err
		}
	}
	res.Link = spec.LinkTo(session, cp.Meta.CheckpointID)
	trailer := spec.TrailerKey + ": " + res.Link.String()
	if source == "" || source == "template" {
		if done, err := leadEmpty(ctx, w.Repo.WorkTree, msgFile, trailer); done || err != nil {
			return res, err
		}
	}
	if err := endLine(msgFile); err != nil {
		return res, err
	}
	_, err = git(ctx, w.Repo.WorkTree, "interpret-trailers", "--in-place", "--if-exists", "addIfDifferent",
		"--trailer", trailer, msgFile)
	return res, err
}

// scissors is the line below which git drops everything (commit -v puts
// the diff there), after the comment string.
const scissors = " ------------------------ >8 ------------------------"

// leadEmpty adds trailer to a message that holds nothing yet but blank
// lines and git's comments (the editor flow, before the user types), as
// `git commit -s` adds its Signed-off-by: line one left for the subject,
// a blank line, the trailer, a blank line, then git's comments. `git
// interpret-trailers` would put it on line two, where the subject the
// user types on line one swallows it (issue 32). It reports whether the
// message was such a one, and so done.
func leadEmpty(ctx context.Context, dir, msgFile, trailer string) (bool, error) {
	data, err := os.ReadFile(msgFile)
	if err != nil {
		return false, err
	}
	// Before asking git for the comment string: a message with a line
	// that no comment string of git's "auto" choice starts is not empty.
	if !blankOrComment(data, "#;@!$%^&|:", "") {
		return false, nil
	}
	comment := commentString(ctx, dir)
	if !blankOrComment(data, "", comment) {
		return false, nil
	}
	rest := bytes.TrimLeft(data, "\n")
	msg := "\n\n" + trailer + "\n"
	if len(rest) > 0 {
		msg += "\n"
	}
	return true, atomicfile.Write(msgFile, append([]byte(msg), rest...), 0o644)
}

// blankOrComment reports whether every line of msg up to a scissors line
// is blank or a comment: one starting with comment, or, when comment is
// "", with any of the characters in anyOf.
func blankOrComment(msg []byte, anyOf, comment string) bool {
	for line := range strings.Lines(string(msg)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.TrimSpace(line) == "":
		case comment != "" && line == comment+scissors,
			comment == "" && strings.HasSuffix(line, scissors) && strings.ContainsRune(anyOf, rune(line[0])):
			return true
		case comment != "" && strings.HasPrefix(line, comment):
		case comment == "" && strings.ContainsRune(anyOf, rune(line[0])):
		default:
			return false
		}
	}
	return true
}

// commentString is the string git starts comment lines with in dir:
// core.commentChar or its newer name core.commentString, whichever git
// read last, else "#" (also for "auto", which picks "#" for a message
// with no lines of its own).
func commentString(ctx context.Context, dir string) string {
	out, _ := git(ctx, dir, "config", "--get-regexp", `^core\.comment(char|string)$`)
	comment := ""
	for line := range strings.Lines(out) {
		_, comment, _ = strings.Cut(strings.TrimRight(line, "\n"), " ")
	}
	if comment == "" || comment == "auto" {
		comment = "#"
	}
	return comment
}

// sessionHead is the session's newest checkpoint, nil when it has none.
func sessionHead(w *workspace.Workspace, session string) (*spec.Checkpoint, error) {
	store, err := w.ReadStore()
	if err != nil || store == nil {
		return nil, err
	}
	_, cp, err := w.SessionHead(store, session)
	return cp, err
}

// stagedAfter reports whether the index was written after the checkpoint:
// what is being committed may then not be in it.
func stagedAfter(w *workspace.Workspace, cp *spec.Checkpoint) bool {
	index := os.Getenv("GIT_INDEX_FILE")
	if index == "" {
		index = filepath.Join(w.Repo.GitDir, "index")
	} else if !filepath.IsAbs(index) {
		index = filepath.Join(w.Repo.WorkTree, index)
	}
	fi, err := os.Stat(index)
	if err != nil {
		return true
	}
	return fi.ModTime().Truncate(1e9).After(cp.Meta.CreatedAt)
}

// endLine ends the message with a newline when it has none, as a merge's
// does: git interpret-trailers would put the trailer on the subject's
// paragraph otherwise.
func endLine(path string) error {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte{'\n'})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
