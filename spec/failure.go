package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FailureType classifies a failure (SPEC §5.2).
type FailureType string

// The failure types, as the failure-recovery convention names them.
const (
	FailTransient      FailureType = "Transient"
	FailEnvironmental  FailureType = "Environmental Constraint"
	FailInputData      FailureType = "Input/Data"
	FailCapabilityGap  FailureType = "Capability Gap"
	FailLogic          FailureType = "Logic/Approach"
	FailGoal           FailureType = "Goal Misunderstanding"
	FailImpossibility  FailureType = "Fundamental Impossibility"
	FailureTypeUnknown FailureType = ""
)

// FailureTypes lists the types in the spec's order.
var FailureTypes = []FailureType{FailTransient, FailEnvironmental, FailInputData,
	FailCapabilityGap, FailLogic, FailGoal, FailImpossibility}

// FailureAction is what was done about a failure (SPEC §5.2).
type FailureAction string

// The failure actions.
const (
	ActionRetry    FailureAction = "Retry"
	ActionPivot    FailureAction = "Pivot"
	ActionEscalate FailureAction = "Escalate"
	ActionAbort    FailureAction = "Abort"
)

// FailureActions lists the actions in the spec's order.
var FailureActions = []FailureAction{ActionRetry, ActionPivot, ActionEscalate, ActionAbort}

// ParseFailureType matches a type case-insensitively, ignoring spaces,
// hyphens, underscores and slashes ("logic", "logic-approach" and
// "Logic/Approach" all match), and also accepts a unique prefix of at least
// four letters.
func ParseFailureType(s string) (FailureType, bool) {
	k := foldName(s)
	if k == "" {
		return "", false
	}
	var found FailureType
	n := 0
	for _, t := range FailureTypes {
		f := foldName(string(t))
		if f == k {
			return t, true
		}
		if len(k) >= 4 && strings.HasPrefix(f, k) {
			found = t
			n++
		}
	}
	return found, n == 1
}

// ParseFailureAction matches an action case-insensitively.
func ParseFailureAction(s string) (FailureAction, bool) {
	k := foldName(s)
	for _, a := range FailureActions {
		if foldName(string(a)) == k {
			return a, true
		}
	}
	return "", false
}

func foldName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case ' ', '-', '_', '/', '\t':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseFailureKind reads a failure's type and action as given, nil for
// one not given: both are optional (an unclassified entry, SPEC §5.2),
// but one given must be known. prefix goes before the field's name in
// the usage error ("--" where they are flags).
func ParseFailureKind(typ, action *string, prefix string) (FailureType, FailureAction, error) {
	var t FailureType
	var a FailureAction
	ok := true
	if typ != nil {
		if t, ok = ParseFailureType(*typ); !ok {
			names := make([]string, len(FailureTypes))
			for i, ft := range FailureTypes {
				names[i] = string(ft)
			}
			return t, a, Usage("%stype %q: want one of %s", prefix, *typ, strings.Join(names, ", "))
		}
	}
	if action != nil {
		if a, ok = ParseFailureAction(*action); !ok {
			return t, a, Usage("%saction %q: want Retry, Pivot, Escalate or Abort", prefix, *action)
		}
	}
	return t, a, nil
}

// Kind is "TYPE → ACTION", naming what an unclassified entry lacks
// (SPEC §5.2).
func (e *FailureEntry) Kind() string {
	t, a := string(e.Type), string(e.Action)
	if t == "" {
		t = "unclassified"
	}
	if a == "" {
		a = "no action yet"
	}
	return t + " → " + a
}

// FailureEntry is one entry of the failure log (SPEC §5).
type FailureEntry struct {
	// When is the entry's timestamp; zero when the entry has none.
	When   time.Time     `json:"when,omitzero" yaml:"when,omitempty"`
	Type   FailureType   `json:"type,omitempty" yaml:"type,omitempty"`
	Action FailureAction `json:"action,omitempty" yaml:"action,omitempty"`
	// Summary is the entry's first lines (SPEC §5.3): the "Summary:" field
	// when present, else the first non-empty lines that are not fields.
	Summary string `json:"summary" yaml:"summary"`
	// Lesson is the "Lesson:" field, a learning worth keeping.
	Lesson string `json:"lesson,omitempty" yaml:"lesson,omitempty"`
	// Body is the entry's full text, trimmed.
	Body string `json:"body" yaml:"body"`
	// Line is the 1-based line where the entry starts.
	Line int `json:"line" yaml:"line"`
	// Step is the plan step the failure was recorded against (its
	// "Step:" field, SPEC §5.3), as the plan numbers it; "" when none.
	Step string `json:"step,omitempty" yaml:"step,omitempty"`
	// Resolved is the "Resolved:" field's value (SPEC §5.6): when and how
	// the failure was resolved; "" while it is not.
	Resolved string `json:"resolved,omitempty" yaml:"resolved,omitempty"`
	// ResolvedAt is the time Resolved names; zero when it names none.
	ResolvedAt time.Time `json:"resolved_at,omitzero" yaml:"resolved_at,omitempty"`
}

// IsResolved reports whether the entry is marked resolved (SPEC §5.6).
func (e *FailureEntry) IsResolved() bool { return strings.TrimSpace(e.Resolved) != "" }

// FailureID is the id of the failure log's entry at 0-based position i:
// "f_NNN", by position, as decisions are numbered (SPEC §5.6).
func FailureID(i int) string { return fmt.Sprintf("f_%03d", i+1) }

// ParseFailureID reads an id as FailureID writes it, or the bare number
// ("3", "f_3", "f_003"), into a 0-based position; ok is false for
// anything else.
func ParseFailureID(s string) (int, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "f_")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strings.HasPrefix(s, "+") {
		return 0, false
	}
	return n - 1, true
}

// Decision is one item of the decisions log (SPEC §5.4).
type Decision struct {
	// ID is "d_NNN", the 1-based position of the item in the log.
	ID   string    `json:"id" yaml:"id"`
	What string    `json:"what" yaml:"what"`
	Why  string    `json:"why,omitempty" yaml:"why,omitempty"`
	When time.Time `json:"when,omitzero" yaml:"when,omitempty"`
	Line int       `json:"line" yaml:"-"`
}
