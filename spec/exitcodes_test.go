package spec_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// docs/cli.md#exit-codes: the exit code table, and how an error picks its code.
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain error", errors.New("disk on fire"), 1},
		{"os error", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, 1},
		{"ErrUsage", spec.ErrUsage, 2},
		{"Usage", spec.Usage("bad flag"), 2},
		{"ErrInvalid", spec.ErrInvalid, 3},
		{"Invalid", spec.Invalid("bad value"), 3},
		{"ErrNotFound", spec.ErrNotFound, 4},
		{"NotFound", spec.NotFound("no such checkpoint"), 4},
		{"ErrConflict", spec.ErrConflict, 5},
		{"Conflict", spec.Conflict("locked"), 5},
		{"ErrUnsupported", spec.ErrUnsupported, 6},
		{"Unsupported", spec.Unsupported("sha256"), 6},
		{"wrapped sentinel", fmt.Errorf("reading: %w", spec.ErrNotFound), 4},
		{"wrapped kind", fmt.Errorf("reading: %w", spec.Conflict("ref moved")), 5},
		{"InvalidAt", spec.InvalidAt("f.md", 3, "bad"), 3},
		{"Errorf", spec.Errorf("f.md", 3, "bad"), 3},
		{"FileError without kind", &spec.FileError{Path: "f.md", Err: errors.New("read: is a directory")}, 3},
		{"FileError wrapping a plain os error", &spec.FileError{Path: "f.md", Err: fs.ErrPermission}, 3},
		{"wrapped FileError", fmt.Errorf("checkpoint: %w", &spec.FileError{Path: "f.md", Err: errors.New("x")}), 3},
		{"FileError around NotFound", &spec.FileError{Path: "f.md", Err: spec.NotFound("gone")}, 4},
		{"FileError around Usage", &spec.FileError{Path: "f.md", Err: spec.Usage("flag")}, 2},
		{"FileError around Unsupported", &spec.FileError{Path: "config", Err: spec.Unsupported("reftable")}, 6},
		{"usage wins over invalid", errors.Join(spec.Invalid("a"), spec.Usage("b")), 2},
		{"invalid wins over not found", errors.Join(spec.NotFound("a"), spec.Invalid("b")), 3},
	} {
		if got := spec.ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
	// Every code of the table is distinct.
	codes := []int{spec.ExitOK, spec.ExitFailure, spec.ExitUsage, spec.ExitInvalid, spec.ExitNotFound, spec.ExitConflict,
		spec.ExitUnsupported, spec.ExitUnhealthy, spec.ExitStatusMissingState, spec.ExitStatusHalt, spec.ExitStatusComplete}
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12}
	for i := range codes {
		if codes[i] != want[i] {
			t.Errorf("exit code %d is %d, docs/cli.md#exit-codes says %d", i, codes[i], want[i])
		}
	}
}

// Rules passed to ExitCode, for sentinels of packages spec does not
// import, are tried before spec's own.
func TestExitCodeRules(t *testing.T) {
	errDamaged := errors.New("damaged")
	rules := []spec.ExitRule{{Err: errDamaged, Code: spec.ExitInvalid}}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"rule", fmt.Errorf("reading ref: %w", errDamaged), 3},
		{"rule wins over spec's", spec.NotFound("%w", errDamaged), 3},
		{"spec's without a rule", spec.NotFound("gone"), 4},
		{"neither", errors.New("disk on fire"), 1},
	} {
		if got := spec.ExitCode(tc.err, rules...); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// SPEC §1, docs/cli.md#exit-codes: errors are one line, "path:line: what", and
// a kind's message does not repeat the sentinel's name.
func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{spec.InvalidAt(".active-plan.md", 12, "step has no number"), ".active-plan.md:12: step has no number"},
		{spec.InvalidAt(".ctxgit/config.yaml", 0, "version 2 is not supported"), ".ctxgit/config.yaml: version 2 is not supported"},
		{spec.Errorf("a.md", 1, "x %d", 5), "a.md:1: x 5"},
		{&spec.FileError{Path: "a.md", Err: errors.New("boom")}, "a.md: boom"},
		{spec.NotFound("no checkpoint %s", "cp_009"), "no checkpoint cp_009"},
		{spec.Usage("unknown command %q", "frob"), `unknown command "frob"`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	// errors.As still finds the cause wrapped by a kind.
	cause := &fs.PathError{Op: "open", Path: "p", Err: fs.ErrNotExist}
	err := spec.NotFound("%w", cause)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, spec.ErrNotFound) || errors.Is(err, spec.ErrInvalid) {
		t.Errorf("NotFound(%%w) does not expose its cause and kind only: %v", err)
	}
}

// SPEC §1, docs/cli.md#exit-codes: command-line text that no file can hold is
// a usage error, named after the argument.
func TestCheckArg(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"", ""},
		{"café — ok\nsecond line", ""},
		{"a\x00b", "--message must not contain NUL bytes"},
		{"caf\xe9", "--message is not valid UTF-8"},
	} {
		err := spec.CheckArg("--message", tc.text)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckArg(%q) = %v, want nil", tc.text, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || spec.ExitCode(err) != spec.ExitUsage):
			t.Errorf("CheckArg(%q) = %v (exit %d), want %q (exit 2)", tc.text, err, spec.ExitCode(err), tc.want)
		}
	}
}
