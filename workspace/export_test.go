package workspace

import "github.com/ctxgit/ctxgit/vcs"

// ResolveRemoteForTest exposes resolveRemote to the tests.
func ResolveRemoteForTest(w *Workspace, arg, as string, push bool) (string, *vcs.Endpoint, error) {
	rr, err := w.resolveRemote(arg, as, push)
	if err != nil {
		return "", nil, err
	}
	return rr.ns, rr.ep, nil
}
