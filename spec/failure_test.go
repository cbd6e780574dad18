package spec_test

import (
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// SPEC §5.2: failure types are matched case-insensitively, ignoring spaces,
// '-', '_', '/' and tabs, or by a unique prefix of at least four letters.
func TestParseFailureType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want spec.FailureType
		ok   bool
	}{
		{"Transient", spec.FailTransient, true},
		{"Environmental Constraint", spec.FailEnvironmental, true},
		{"Input/Data", spec.FailInputData, true},
		{"Capability Gap", spec.FailCapabilityGap, true},
		{"Logic/Approach", spec.FailLogic, true},
		{"Goal Misunderstanding", spec.FailGoal, true},
		{"Fundamental Impossibility", spec.FailImpossibility, true},
		{"transient", spec.FailTransient, true},
		{"TRANSIENT", spec.FailTransient, true},
		{"logic-approach", spec.FailLogic, true},
		{"logic_approach", spec.FailLogic, true},
		{"LOGIC/APPROACH", spec.FailLogic, true},
		{"logic", spec.FailLogic, true},
		{"environmental", spec.FailEnvironmental, true},
		{"environmental-constraint", spec.FailEnvironmental, true},
		{"input data", spec.FailInputData, true},
		{"input", spec.FailInputData, true},
		{"capability", spec.FailCapabilityGap, true},
		{"capa", spec.FailCapabilityGap, true},
		{"goal", spec.FailGoal, true},
		{"fund", spec.FailImpossibility, true},
		{"tran", spec.FailTransient, true},
		{"Envi ronmental", spec.FailEnvironmental, true},
		{"\tTransient\t", spec.FailTransient, true},
		{"env", "", false},
		{"log", "", false},
		{"", "", false},
		{"  ", "", false},
		{"-/_", "", false},
		{"failure", "", false},
		{"Transientx", "", false},
		{"Impossibility", "", false},
		{"Retry", "", false},
	} {
		got, ok := spec.ParseFailureType(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseFailureType(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	// SPEC §5.2: no two types share a four-letter folded prefix, so a prefix
	// is never ambiguous, and every exact name reads as itself.
	for _, ty := range spec.FailureTypes {
		if got, ok := spec.ParseFailureType(string(ty)); !ok || got != ty {
			t.Errorf("ParseFailureType(%q) = %q, %v", ty, got, ok)
		}
	}
	if len(spec.FailureTypes) != 7 {
		t.Errorf("FailureTypes has %d entries, SPEC §5.2 names 7", len(spec.FailureTypes))
	}
}

// SPEC §5.2: failure actions are matched case-insensitively on the whole
// word (ignoring spaces, '-', '_', '/'), never by prefix.
func TestParseFailureAction(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want spec.FailureAction
		ok   bool
	}{
		{"Retry", spec.ActionRetry, true},
		{"Pivot", spec.ActionPivot, true},
		{"Escalate", spec.ActionEscalate, true},
		{"Abort", spec.ActionAbort, true},
		{"retry", spec.ActionRetry, true},
		{"PIVOT", spec.ActionPivot, true},
		{" escalate ", spec.ActionEscalate, true},
		{"re-try", spec.ActionRetry, true},
		{"ret", "", false},
		{"esc", "", false},
		{"Pivot to step 3b", "", false},
		{"", "", false},
		{"Transient", "", false},
	} {
		got, ok := spec.ParseFailureAction(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseFailureAction(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if len(spec.FailureActions) != 4 {
		t.Errorf("FailureActions has %d entries, SPEC §5.2 names 4", len(spec.FailureActions))
	}
}
