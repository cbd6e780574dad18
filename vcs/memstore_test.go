package vcs_test

import (
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
)

func TestMemStoreConformance(t *testing.T) {
	vcstest.Run(t, func(*testing.T) vcs.Store { return vcs.NewMemStore() })
}
