package transcript

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
	"github.com/ctxgit/ctxgit/spec"
)

// maxCompressScan bounds how much of a Gemini CLI chat recording
// GeminiCompressedSince reads: what a session writes between a
// compression's start and the next hook is a few turns.
const maxCompressScan = 64 << 20

// GeminiCompressedSince reports whether the Gemini CLI chat recording at
// path shows a compression after byte offset from: a `$set` of the
// conversation's messages holding the compression's summary (a user
// message wholly one `<state_snapshot>…</state_snapshot>`), which Gemini
// CLI writes when it starts the compressed chat (GeminiClient.
// tryCompressChat, startChat with the new history). A resume rewrites
// the conversation too, and holds the summary of a compression made
// before; from is therefore the recording's size when this compression
// began (its PreCompress). Only the bytes after from are read, at most
// maxCompressScan of them. The older one-document layout is rewritten
// whole on every change, so no offset tells what came after: it is taken
// as compressed (the recovery then goes out at the next event that can
// carry it, as before the JSON Lines layout).
func GeminiCompressedSince(path string, from int64) (bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return false, err
	}
	if tail.LegacyDocument(bufio.NewReader(fh)) {
		return true, nil
	}
	if from < 0 || from > fi.Size() {
		from = 0 // rewritten since: read it from its start
	}
	lr := newLineReader(io.NewSectionReader(fh, from, maxCompressScan), maxLineBytes)
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, &spec.FileError{Path: path, Err: err}
		}
		if tooLong || !bytes.Contains(line, []byte(`"$set"`)) || !bytes.Contains(line, []byte("state_snapshot")) {
			continue
		}
		line = bytes.TrimSpace(line)
		if !jsonscan.ValidLine(line) {
			continue
		}
		for m := range jsonscan.EachElement(jsonscan.Field(jsonscan.Field(line, "$set"), "messages")) {
			if jsonscan.StrOr(jsonscan.Field(m, "type")) != "user" {
				continue
			}
			t := strings.TrimSpace(geminiText(jsonscan.Field(m, "content")))
			if strings.HasPrefix(t, "<state_snapshot>") && strings.HasSuffix(t, "</state_snapshot>") {
				return true, nil
			}
		}
	}
}
