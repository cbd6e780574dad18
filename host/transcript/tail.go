package transcript

import (
	"errors"
	"io"
	"os"

	"github.com/ctxgit/ctxgit/spec"

	"github.com/ctxgit/ctxgit/internal/tail"
)

// DefaultTailBytes is how far back TailUsage looks when maxBack <= 0.
const DefaultTailBytes = tail.DefaultMaxBack

// TailUsage finds the newest usage after the last compaction by reading
// backwards from the end (internal/tail, the one reader of a transcript's
// tail, which the small tool-call hook reads with too), so that the gauge,
// asked on every tool call, costs the same on a 100 MB transcript as on a
// small one. It stops at the first usable assistant usage line (ok =
// true), at a compaction boundary (ok = false: usage before a compaction
// is stale), or after maxBack bytes (ok = false; maxBack <= 0 means
// DefaultTailBytes). It agrees with Read: the usage it finds is
// Summary.Usage.
func TailUsage(path string, f Format, maxBack int64) (u Usage, ok bool, err error) {
	r, err := TailReading(path, f, tail.Options{MaxBack: maxBack})
	return r.Usage, r.Known, err
}

// TailReading is TailUsage with the search's options (a tool call the
// tail should hold) and its whole answer.
func TailReading(path string, f Format, o tail.Options) (tail.Reading, error) {
	if !f.known() {
		return tail.Reading{}, &spec.FileError{Path: path, Err: spec.Invalid("unknown transcript format %q", f)}
	}
	fh, err := os.Open(path)
	if err != nil {
		return tail.Reading{}, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return tail.Reading{}, err
	}
	r, err := tailReading(fh, fi.Size(), f, o)
	if err != nil {
		return tail.Reading{}, &spec.FileError{Path: path, Err: err}
	}
	return r, nil
}

// tailUsage is TailUsage on any ReaderAt, so tests can count what it reads.
func tailUsage(r io.ReaderAt, size int64, f Format, maxBack int64) (Usage, bool, error) {
	rd, err := tailReading(r, size, f, tail.Options{MaxBack: maxBack})
	return rd.Usage, rd.Known, err
}

func tailReading(r io.ReaderAt, size int64, f Format, o tail.Options) (tail.Reading, error) {
	rd, err := tail.Read(r, size, string(f), o)
	if errors.Is(err, tail.ErrLegacy) {
		// The older Gemini layout is one document: no line of its tail
		// stands alone, so it is read whole (it predates long sessions
		// being recorded as lines).
		s, err := Read(io.NewSectionReader(r, 0, size), f, ReadOptions{})
		if err != nil {
			return tail.Reading{}, err
		}
		return tail.Reading{Usage: s.Usage, Known: s.UsageKnown}, nil
	}
	return rd, err
}
