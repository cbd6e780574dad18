package spec

import (
	"reflect"
	"testing"
)

func TestParseTrailers(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want []CheckpointLink
	}{
		{"fix\n\nCtxgit-Checkpoint: 7f3c2a10/cp_004\n", []CheckpointLink{{"7f3c2a10", "cp_004"}}},
		// git compares keys without case; the last paragraph only.
		{"fix\n\nctxgit-checkpoint: a/cp_001\nSigned-off-by: x\nCtxgit-Checkpoint: b/cp_012", []CheckpointLink{{"a", "cp_001"}, {"b", "cp_012"}}},
		{"Ctxgit-Checkpoint: a/cp_001\n\nbody only", nil},
		{"fix\n\nCtxgit-Checkpoint: ../cp_001\nCtxgit-Checkpoint: a/cp_1\nCtxgit-Checkpoint: nothing", nil},
		{"subject only", nil},
		{"fix\r\n\r\nCtxgit-Checkpoint: default/cp_002\r\n", []CheckpointLink{{"default", "cp_002"}}},
	} {
		if got := ParseTrailers(tc.msg); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseTrailers(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

func TestLinkTo(t *testing.T) {
	if got := LinkTo("7f3c2a10-4b5e-4c1d-9e2f-0a1b2c3d4e5f", "cp_004").String(); got != "7f3c2a10/cp_004" {
		t.Errorf("long key: %q", got)
	}
	if got := LinkTo("default", "cp_010").String(); got != "default/cp_010" {
		t.Errorf("short key: %q", got)
	}
}
