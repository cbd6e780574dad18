package hooks

import (
	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/spec"
)

// lastToolFailure is the transcript's newest failing tool call, as the
// checkpoint records it (SPEC §8.3); the checkpoint drops it when the
// failure log already has it.
func lastToolFailure(s *transcript.Summary) *spec.ToolFailure {
	if len(s.ToolFailures) == 0 {
		return nil
	}
	f := s.ToolFailures[len(s.ToolFailures)-1]
	return &spec.ToolFailure{Tool: f.Tool, Target: f.Target, ExitCode: f.ExitCode, Error: f.Error, At: f.Time}
}

// transcriptStatePath is where a session's transcript reading is saved to
// resume from (SPEC §3.1): machine-local, replaced atomically, so
// concurrent hooks each leave a whole reading.
func transcriptStatePath(root, session string) string {
	return localPath(root, "transcripts", session+".json")
}
