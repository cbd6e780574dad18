package mcpserver

import (
	"context"
	"errors"
	"io/fs"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxgit/ctxgit/workspace"
)

// The resources: the three state files and the newest recovery block.
const (
	PlanURI      = "ctxgit://plan"
	DecisionsURI = "ctxgit://decisions"
	FailuresURI  = "ctxgit://failures"
	RecoveryURI  = "ctxgit://recovery"
)

// maxResource bounds a state file served as a resource, as the state
// files are bounded when a checkpoint reads them.
const maxResource = 4 << 20

type resource struct {
	uri, name, description string
	// path is the state file's path in the workspace; nil for the
	// recovery block.
	path func(w *workspace.Workspace) string
}

var resources = []resource{
	{PlanURI, "plan", "The plan (.active-plan.md by default): goal and numbered steps with their marks.",
		func(w *workspace.Workspace) string { return w.Config.Paths.Plan }},
	{DecisionsURI, "decisions", "The decisions log, one decision a line with its reason.",
		func(w *workspace.Workspace) string { return w.Config.Paths.Decisions }},
	{FailuresURI, "failures", "The failure log: what failed, its type, the action taken and the lesson.",
		func(w *workspace.Workspace) string { return w.FailureLogPath() }},
	{RecoveryURI, "recovery", "The recovery block of the session's newest checkpoint, as a host injects it after compaction (read without marking it delivered).", nil},
}

func (s *Server) addResources() {
	for _, r := range resources {
		r := r
		s.srv.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, Description: r.description, MIMEType: "text/markdown"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				text, err := s.readResource(r)
				if err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.uri, MIMEType: "text/markdown", Text: text}}}, nil
			})
	}
}

// readResource reads a resource now: a state file as it is on disk, the
// recovery block as `ctxgit recover --peek --force` renders it.
func (s *Server) readResource(r resource) (string, error) {
	c, err := s.open(true)
	if err != nil {
		return "", toolError(nil, err)
	}
	if r.path == nil {
		res, err := c.w.Recover(workspace.RecoverOptions{Session: c.session, SessionGiven: s.opts.Session != "", Peek: true, Force: true})
		if err != nil {
			return "", toolError(c.w, err)
		}
		if res.Block == "" {
			return res.Note + "\n", nil
		}
		return res.Block, nil
	}
	rel := r.path(c.w)
	// The file rule (SPEC §3.4): a state file linked out of the
	// workspace, into .git or to a secret, or a FIFO, is refused, never
	// served to the model.
	data, err := c.w.ReadStateFile(rel, maxResource)
	if errors.Is(err, fs.ErrNotExist) {
		return "", mcp.ResourceNotFoundError(r.uri)
	}
	if err != nil {
		return "", toolError(c.w, err)
	}
	return string(data), nil
}

func known(uri string) bool {
	for _, r := range resources {
		if r.uri == uri {
			return true
		}
	}
	return false
}

// subscribe accepts a subscription to one of the resources; the SDK
// keeps the list of subscribers.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if !known(req.Params.URI) {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

func (s *Server) unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// notify tells the subscribers of each uri that it changed. The server
// notifies after its own writes; a change made outside it (an edit, a
// hook's checkpoint) is seen on the next read, not notified.
func (s *Server) notify(ctx context.Context, uris ...string) {
	for _, u := range uris {
		_ = s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u})
	}
}
