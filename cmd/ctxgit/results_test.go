package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The --json outputs were maps, which encoding/json prints with sorted
// keys; scripts and users read them in that order. Their typed results
// keep it: fields in alphabetical order of their JSON names. (doctor's
// findings, prune's sessions and version were structs already, in an
// order of their own.)
func TestResultFieldsKeepSortedKeys(t *testing.T) {
	for _, v := range []any{
		checkpointRef{}, checkpointResult{}, decideResult{}, diffResult{}, failResult{}, resolveResult{}, gaugeResult{}, initResult{}, uninstallResult{},
		logEntry{}, planResult{}, planMarkResult{}, pruneResult{}, repackResult{}, recoverResult{}, reportResult{},
		reportPlan{}, checklistStep{}, restoreResult{}, resumeResult{}, showResult{}, stateResult{}, stateFieldResult{},
		statusResult{}, summaryResult{}, syncResult{}, syncRef{}, taskChange{}, doctorResult{},
	} {
		typ := reflect.TypeOf(v)
		var keys []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				t.Errorf("%s.%s has no JSON name", typ.Name(), typ.Field(i).Name)
			}
			keys = append(keys, name)
		}
		if !slices.IsSorted(keys) {
			t.Errorf("%s: JSON keys %v are not in sorted order", typ.Name(), keys)
		}
	}
}
