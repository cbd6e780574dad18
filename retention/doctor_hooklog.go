package retention

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// hookLogWindow is how far back doctor looks for hook failures.
const hookLogWindow = 24 * time.Hour

// hookLogTail bounds how much of the hook log doctor reads.
const hookLogTail = 256 << 10

// doctorHookLog reports hook failures of the last 24 hours from
// .ctxgit/local/ctxgit.log (lines "TIME hook HOST EVENT: message",
// docs/cli.md#hook): hooks fail open, so without this a failing hook is
// silent.
func doctorHookLog(w *workspace.Workspace, r *DoctorResult) {
	data, err := workspace.ReadLocalTail(w.Root, w.LocalPath("ctxgit.log"), hookLogTail)
	if err != nil {
		return
	}
	since := w.Env.Now().Add(-hookLogWindow)
	n, newest := 0, ""
	perEvent := map[string]int{}
	var order []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		stamp, rest, ok := strings.Cut(string(line), " hook ")
		if !ok {
			continue
		}
		at, err := time.Parse("2006-01-02T15:04:05Z", stamp)
		if err != nil || at.Before(since) {
			continue
		}
		event, msg, _ := strings.Cut(rest, ": ")
		if strings.HasPrefix(msg, "note: ") {
			continue // what a hook went on without (SPEC §7.5), not a failure
		}
		n++
		newest = string(line)
		if perEvent[event] == 0 {
			order = append(order, event)
		}
		perEvent[event]++
	}
	if n == 0 {
		return
	}
	var counts []string
	for _, e := range order {
		counts = append(counts, fmt.Sprintf("%s ×%d", e, perEvent[e]))
	}
	r.add(Finding{Check: "hooks", Level: FindingWarning,
		Message: fmt.Sprintf("%s in the last 24 hours (%s); newest: %s", spec.Plural(n, "hook failure"), strings.Join(counts, ", "), safetext.Line(newest)),
		Fix:     "see .ctxgit/local/ctxgit.log; hooks fail open, so the host went on without ctxgit"})
}
