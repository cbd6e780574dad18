package spec

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// FileError is an error in a file a person or agent wrote: it names the file
// and, where known, the line, so the one-line message is actionable
// ("path:line: what is wrong").
type FileError struct {
	Path string // workspace-relative where possible
	Line int    // 1-based; 0 when the error is about the file as a whole
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Errorf returns a *FileError for path and line with a formatted message.
func Errorf(path string, line int, format string, args ...any) error {
	return &FileError{Path: path, Line: line, Err: fmt.Errorf(format, args...)}
}

// Sentinel errors, checked with errors.Is. Each maps to one exit code
// (docs/cli.md#exit-codes).
var (
	// ErrInvalid marks malformed input: a state file, config or argument
	// that does not follow the spec.
	ErrInvalid = errors.New("invalid")
	// ErrNotFound marks a missing checkpoint, session or file.
	ErrNotFound = errors.New("not found")
	// ErrConflict marks a lost race: a lock held too long or a ref that
	// moved under us more times than we retry.
	ErrConflict = errors.New("conflict")
	// ErrUnsupported marks a repository ctxgit cannot store into
	// (SHA-256 objects, reftable refs, a newer repository format).
	ErrUnsupported = errors.New("unsupported")
	// ErrUsage marks a command line that is wrong.
	ErrUsage = errors.New("usage")
)

// Invalid returns an error that reads as the formatted message and matches
// ErrInvalid under errors.Is.
func Invalid(format string, args ...any) error {
	return &kindError{kind: ErrInvalid, err: fmt.Errorf(format, args...)}
}

// NotFound is Invalid for ErrNotFound.
func NotFound(format string, args ...any) error {
	return &kindError{kind: ErrNotFound, err: fmt.Errorf(format, args...)}
}

// Conflict is Invalid for ErrConflict.
func Conflict(format string, args ...any) error {
	return &kindError{kind: ErrConflict, err: fmt.Errorf(format, args...)}
}

// Unsupported is Invalid for ErrUnsupported.
func Unsupported(format string, args ...any) error {
	return &kindError{kind: ErrUnsupported, err: fmt.Errorf(format, args...)}
}

// Usage is Invalid for ErrUsage.
func Usage(format string, args ...any) error {
	return &kindError{kind: ErrUsage, err: fmt.Errorf(format, args...)}
}

// kindError keeps the message free of the sentinel's text while errors.Is
// still finds the sentinel, and errors.As still finds any wrapped cause.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string        { return e.err.Error() }
func (e *kindError) Unwrap() error        { return e.err }
func (e *kindError) Is(target error) bool { return target == e.kind }

// InvalidAt returns a *FileError at path:line whose cause matches ErrInvalid.
func InvalidAt(path string, line int, format string, args ...any) error {
	return &FileError{Path: path, Line: line, Err: Invalid(format, args...)}
}

// CheckArg refuses text from the command line that no file could hold: a
// NUL byte or invalid UTF-8 (a usage error, before anything is written).
func CheckArg(name, text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return Usage("%s must not contain NUL bytes", name)
	}
	if !utf8.ValidString(text) {
		return Usage("%s is not valid UTF-8", name)
	}
	return nil
}
