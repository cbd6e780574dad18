package taskstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// Status is the answer to "may I take the next major action?".
type Status struct {
	Token    string   `json:"token"`
	Level    Level    `json:"level"`
	Pressure Pressure `json:"pressure"`
	// Required lists what must happen before the next major action.
	Required []string `json:"required"`
	// Missing lists the task-state fields that are absent or empty.
	Missing []string `json:"missing,omitempty"`
	Turn    int      `json:"turn"`
	Halt    *Halt    `json:"halt,omitempty"`
	// Notes say what this call did (initialised, archived, wrote …).
	Notes []string `json:"notes,omitempty"`
}

// ExitCode is the token's exit code (docs/cli.md#exit-codes).
func (s *Status) ExitCode() int {
	switch s.Token {
	case workspace.StatusMissingState:
		return spec.ExitStatusMissingState
	case workspace.StatusHalt:
		return spec.ExitStatusHalt
	case workspace.StatusComplete:
		return spec.ExitStatusComplete
	}
	return spec.ExitOK
}

// StatusCheck is the runtime contract's check before each major action
// (docs/cli.md#status): it counts the turn, reads the task state and the
// pressure, and at critical pressure checkpoints, writes a summary and halts —
// a halt that persists across restarts until an explicit override.
func StatusCheck(w *workspace.Workspace, session string, p Pressure) (*Status, error) {
	return StatusCheckAs(w, session, p, false)
}

// StatusCheckAs is StatusCheck, told whether a person typed the command
// at a terminal. Without a reading given, the session's newest hook
// reading is used; a workspace whose hooks record readings but have none
// for this session yet counts 0. Only a workspace with no reading at all
// counts as missing: 0 on the first turn, critical after — except for a
// person at a terminal, whose call counts 0 and is no turn, so typing
// `ctxgit status` never halts a session by itself.
func StatusCheckAs(w *workspace.Workspace, session string, p Pressure, interactive bool) (*Status, error) {
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rt, rterr := loadRuntime(w, session)
	if !p.Known {
		if r, ok := RecordedReading(w, session); ok {
			p = r
		}
	}
	if p.Known || !interactive {
		rt.Turns++
	}
	st := &Status{Turn: rt.Turns, Required: []string{}}
	if rterr != nil {
		st.Notes = append(st.Notes, rterr.Error())
	}
	switch {
	case p.Known:
	case anyReading(w):
		p = Pressure{Value: 0, Source: "no hook reading for this session yet (counts as 0)"}
	case interactive:
		p = Pressure{Value: 0, Source: "missing (typed at a terminal: counts as 0, not a turn)"}
	case rt.Turns == 1:
		// No reading: harmless on the first turn, the worst case after.
		p = Pressure{Value: 0, Source: "missing (first turn: counts as 0)"}
	default:
		p = Pressure{Value: w.Config.Pressure.Critical, Source: "missing (after the first turn: counts as critical)"}
	}
	st.Pressure, st.Level = p, LevelOf(w, p.Value)
	err = decide(w, session, rt, st)
	if serr := saveRuntime(w, session, rt); err == nil {
		err = serr
	}
	return st, err
}

func decide(w *workspace.Workspace, session string, rt *runtimeState, st *Status) error {
	if rt.Halt != nil {
		st.Token, st.Halt = workspace.StatusHalt, rt.Halt
		st.Required = append(st.Required, haltRequirement)
		return nil
	}
	task, err := w.ReadTaskState()
	if err != nil {
		return err
	}
	if task.Exists && task.State.IsDone() && len(task.Missing) == 0 {
		st.Token = workspace.StatusComplete
		return nil
	}
	if st.Level == LevelCritical {
		return halt(w, session, rt, st)
	}
	if !task.Exists || len(task.Missing) > 0 {
		st.Token, st.Missing = workspace.StatusMissingState, task.Missing
		if !task.Exists {
			st.Missing = []string{task.Path + " (no task state)"}
		}
		st.Required = append(st.Required, "write the task state (ctxgit ensure, then ctxgit state set …)")
		return nil
	}
	st.Token = workspace.StatusOK
	if st.Level == LevelCompress && rt.CompressSince == nil {
		now := w.Now()
		rt.CompressSince = &now
	}
	if rt.CompressSince != nil {
		if summaryWrittenSince(w, *rt.CompressSince) {
			rt.CompressSince = nil
		} else {
			st.Required = append(st.Required, "fresh summary required before the next major action (ctxgit summary)")
		}
	}
	if st.Level == LevelWarning && len(st.Required) == 0 {
		st.Notes = append(st.Notes, "context is filling: keep the task state current")
	}
	return nil
}

const haltRequirement = "stop: the context limit was reached; resume only after `ctxgit resume --override --reason \"…\"`"

// halt checkpoints, writes a summary and persists the halt.
func halt(w *workspace.Workspace, session string, rt *runtimeState, st *Status) error {
	h := &Halt{At: w.Now(), Pressure: st.Pressure.Value, Source: st.Pressure.Source}
	opts := workspace.CheckpointOptions{Session: session, Trigger: spec.TriggerHalt,
		Message: fmt.Sprintf("context limit: %.0f%% (%s)", st.Pressure.Value*100, st.Pressure.Source)}
	if st.Pressure.Window > 0 {
		opts.Usage = spec.TokenUsage{InputTokens: st.Pressure.Tokens, ContextWindow: st.Pressure.Window, Utilization: st.Pressure.Value, Source: "host"}
	}
	// The halt stands whatever else fails: a context at its limit must
	// stop even if the checkpoint cannot be taken.
	if res, err := w.CheckpointHeld(opts); err != nil {
		st.Notes = append(st.Notes, "halting: checkpoint failed: "+w.Rel(err.Error()))
	} else {
		h.Checkpoint = session + ":" + res.Checkpoint.Meta.CheckpointID
	}
	if path, err := writeSummary(w, session); err == nil {
		h.Summary = path
	} else {
		st.Notes = append(st.Notes, "summary not written: "+err.Error())
	}
	rt.Halt = h
	st.Token, st.Halt = workspace.StatusHalt, h
	st.Required = append(st.Required, haltRequirement)
	return nil
}

// Resume clears a persisted halt, on an explicit override with a reason,
// recorded in the task state (and so in the next checkpoint).
func Resume(w *workspace.Workspace, session, reason string) (*Halt, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, spec.Usage("an override needs --reason")
	}
	if err := spec.CheckArg("--reason", reason); err != nil {
		return nil, err
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rt, _ := loadRuntime(w, session)
	if rt.Halt == nil {
		return nil, spec.Usage("session %s is not halted: nothing to override", session)
	}
	task, err := w.ReadTaskState()
	if err != nil {
		return nil, err
	}
	if task.Exists {
		task.State.Overrides = append(task.State.Overrides, spec.HaltOverride{At: w.Now().Format(timeLayout), Reason: reason})
		if err := writeTaskState(w, task.Path, task.State); err != nil {
			return nil, err
		}
	}
	h := rt.Halt
	rt.Halt = nil
	return h, saveRuntime(w, session, rt)
}

// PeekStatus is the token a session would get, without counting a turn or
// acting on pressure: for the recovery block. It is "" for a workspace that
// does not use the runtime contract (no task state, no halt).
func PeekStatus(w *workspace.Workspace, session string) string {
	if rt, err := loadRuntime(w, session); err != nil || rt.Halt != nil {
		return workspace.StatusHalt
	}
	task, err := w.ReadTaskState()
	switch {
	case err == nil && !task.Exists:
		return ""
	case err == nil && len(task.Missing) == 1 && task.Missing[0] == "goal (empty)":
		return workspace.StatusNoGoal
	case err != nil || len(task.Missing) > 0:
		return workspace.StatusMissingState
	case task.State.IsDone():
		return workspace.StatusComplete
	}
	return workspace.StatusOK
}

// EnsureOptions shape the startup branch.
type EnsureOptions struct {
	Session string
	Goal    string // for a new task; default: the plan's goal
	TaskID  string // for a new task; default: task-<date>
	Archive bool   // move a legacy state aside, then start over
	Reinit  bool   // discard a legacy or broken state and start over
}

// Ensure is the startup branch of the runtime contract (docs/cli.md#ensure).
func Ensure(w *workspace.Workspace, o EnsureOptions) (*Status, error) {
	for _, a := range []struct{ name, v string }{{"--goal", o.Goal}, {"--task-id", o.TaskID}} {
		if err := spec.CheckArg(a.name, a.v); err != nil {
			return nil, err
		}
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	st := &Status{Level: LevelOK, Required: []string{}}
	rt, rterr := loadRuntime(w, o.Session)
	if rterr != nil {
		st.Notes = append(st.Notes, rterr.Error())
	}
	st.Turn = rt.Turns
	if rt.Halt != nil {
		st.Token, st.Halt = workspace.StatusHalt, rt.Halt
		st.Required = append(st.Required, haltRequirement)
		return st, nil
	}
	task, err := w.ReadTaskState()
	if err != nil {
		if !o.Archive && !o.Reinit {
			return nil, err
		}
		path := w.TaskStatePath()
		if o.Archive {
			aside, err := freeArchiveName(w, path)
			if err != nil {
				return nil, err
			}
			if err := os.Rename(w.Path(path), w.Path(aside)); err != nil {
				return nil, &spec.FileError{Path: path, Err: workspace.UnwrapPathError(err)}
			}
			st.Notes = append(st.Notes, "moved "+path+" to "+aside)
		} else {
			if err := os.Remove(w.Path(path)); err != nil {
				return nil, &spec.FileError{Path: path, Err: workspace.UnwrapPathError(err)}
			}
			st.Notes = append(st.Notes, "removed "+path)
		}
		task = &workspace.TaskRead{Path: path}
	}
	summaryPath := latestSummaryPath(w)
	haveSummary := w.StateFileExists(summaryPath)

	switch {
	case !task.Exists && !haveSummary:
		goal := o.Goal
		if goal == "" {
			if p := w.ReadState().Plan; p != nil {
				goal = p.Goal
			}
		}
		ts := spec.NewTaskState(taskID(o, w), o.Session, goal, w.Now())
		if err := writeTaskState(w, task.Path, ts); err != nil {
			return nil, err
		}
		path, err := writeSummary(w, o.Session)
		if err != nil {
			return nil, err
		}
		st.Notes = append(st.Notes, "initialised "+task.Path+" (next_action START) and "+path)
		if strings.TrimSpace(goal) == "" {
			st.Token, st.Missing = workspace.StatusMissingState, []string{"goal (empty)"}
			st.Required = append(st.Required, "set the goal: ctxgit state set goal \"…\"")
			return st, nil
		}
		st.Token = workspace.StatusOK
	case !task.Exists && o.Reinit:
		ts := spec.NewTaskState(taskID(o, w), o.Session, o.Goal, w.Now())
		if err := writeTaskState(w, task.Path, ts); err != nil {
			return nil, err
		}
		path, err := writeSummary(w, o.Session)
		if err != nil {
			return nil, err
		}
		st.Notes = append(st.Notes, "started over: initialised "+task.Path+" and rewrote "+path)
		st.Token = workspace.StatusOK
		if strings.TrimSpace(o.Goal) == "" {
			st.Token, st.Missing = workspace.StatusMissingState, []string{"goal (empty)"}
			st.Required = append(st.Required, "set the goal: ctxgit state set goal \"…\"")
		}
	case !task.Exists:
		st.Token, st.Missing = workspace.StatusMissingState, []string{task.Path + " (no task state)"}
		st.Required = append(st.Required, "rebuild the task state from "+summaryPath+" (or start over: ctxgit ensure --reinit --goal \"…\")")
	case len(task.Missing) > 0:
		st.Token, st.Missing = workspace.StatusMissingState, task.Missing
		st.Required = append(st.Required, "fill the missing task-state fields (ctxgit state set …)")
	case task.State.IsDone():
		if task.State.Status != spec.TaskComplete {
			task.State.Status = spec.TaskComplete
			if err := writeTaskState(w, task.Path, task.State); err != nil {
				return nil, err
			}
		}
		path, err := writeSummary(w, o.Session)
		if err != nil {
			return nil, err
		}
		st.Token = workspace.StatusComplete
		st.Notes = append(st.Notes, "final state and summary written ("+path+")")
	default:
		st.Token = workspace.StatusOK
		if conflict := summaryConflict(w, task.State); conflict != "" {
			path, err := writeSummary(w, o.Session)
			if err != nil {
				return nil, err
			}
			st.Notes = append(st.Notes, "the summary disagreed with the task state ("+conflict+"): the task state wins; rewrote "+path)
		}
	}
	return st, nil
}

// taskID is the id of a new task: the caller's, else task-STAMP.
func taskID(o EnsureOptions, w *workspace.Workspace) string {
	if o.TaskID != "" {
		return o.TaskID
	}
	return "task-" + w.Now().Format("20060102T150405Z")
}

// freeArchiveName is where --archive moves the task state at path: beside
// it, stamped with the workspace clock, and never over an earlier archive
// (two in the same second, or under a fixed CTXGIT_NOW, get -2, -3, …).
// The caller holds the workspace lock, so no other ctxgit takes the name
// between the check and the rename. A name that cannot be checked (too
// long for the file system, a directory that cannot be searched) is an
// error, not a reason to try the next one.
func freeArchiveName(w *workspace.Workspace, path string) (string, error) {
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext) + ".archived-" + w.Now().Format("20060102T150405Z")
	name := stem + ext
	for n := 2; n <= maxArchivesPerSecond; n++ {
		_, err := os.Lstat(w.Path(name))
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", &spec.FileError{Path: name, Err: workspace.UnwrapPathError(err)}
		}
		name = fmt.Sprintf("%s-%d%s", stem, n, ext)
	}
	return "", spec.Conflict("%s: %d archives of the task state in one second already; move some away", path, maxArchivesPerSecond)
}

// maxArchivesPerSecond bounds the names freeArchiveName tries.
const maxArchivesPerSecond = 1000
