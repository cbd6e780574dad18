package spec

import (
	"strings"
)

// TrailerKey is the git trailer that links a commit to the checkpoint it
// was made at (SPEC §7.6).
const TrailerKey = "Ctxgit-Checkpoint"

// ShortSessionLen is how much of a session key a trailer names (SPEC §7.6).
const ShortSessionLen = 8

// ShortSession is the first ShortSessionLen characters of a session key,
// the whole key when shorter.
func ShortSession(key string) string {
	if len(key) > ShortSessionLen {
		return key[:ShortSessionLen]
	}
	return key
}

// CheckpointLink is one Ctxgit-Checkpoint trailer's value.
type CheckpointLink struct {
	// Session is a prefix of the session's key (SPEC §7.6).
	Session      string `json:"session"`
	CheckpointID string `json:"checkpoint_id"`
}

// String is the trailer's value.
func (l CheckpointLink) String() string { return l.Session + "/" + l.CheckpointID }

// LinkTo is the link a commit made at checkpoint id of session carries.
func LinkTo(session, id string) CheckpointLink {
	return CheckpointLink{Session: ShortSession(session), CheckpointID: id}
}

// ParseTrailers returns the Ctxgit-Checkpoint trailers of a commit message,
// in order: the lines of its last paragraph whose key is TrailerKey
// (compared as git compares trailer keys, ignoring case) and whose value
// is a valid SESSION/cp_NNN. Other values are ignored.
func ParseTrailers(msg string) []CheckpointLink {
	msg = strings.TrimRight(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	last := msg
	if i := strings.LastIndex(msg, "\n\n"); i >= 0 {
		last = msg[i+2:]
	}
	var links []CheckpointLink
	for _, line := range strings.Split(last, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), TrailerKey) {
			continue
		}
		session, id, ok := strings.Cut(strings.TrimSpace(value), "/")
		if !ok || ValidateSessionKey(session) != nil {
			continue
		}
		if _, ok := ParseCheckpointID(id); !ok {
			continue
		}
		links = append(links, CheckpointLink{Session: session, CheckpointID: id})
	}
	return links
}
