// Package mcpserver is `ctxgit mcp`: the workspace's working state as
// Model Context Protocol tools and resources, served over stdio on the
// official Go SDK (docs/cli.md#mcp). Each tool calls the code its CLI
// command calls (taskstate, workspace, review), with the same validation
// and the same locks; it is an adapter beside host/hooks, imported only
// by the command's mcp file, so the hook path links none of it.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// Options is what the command found before serving.
type Options struct {
	// Root is the workspace root, found as for every command.
	Root string
	Env  workspace.Env
	// Session is the session CTXGIT_SESSION names, "" for none: calls
	// then land in the session the hooks recorded (SPEC §6.3).
	Session string
	// Version is the server's version in the initialize answer.
	Version string
	// Overview is the person's overview (`ctxgit` alone) of the workspace
	// and session, as JSON and as text, composed in by the command: it
	// reads host hook state this package does not import. Nil: the status
	// tool gives the recovery block instead.
	Overview func(ctx context.Context, w *workspace.Workspace, session string, named bool) (map[string]any, string, error)
	// CardHooks are the hosts whose hooks in the workspace show the
	// onboarding card (composed in by the command: hostconfig.CardHosts).
	// A client that is one of them gets ToolsOnly as instructions, not
	// the card a second time.
	CardHooks []string
}

// Name is the server's name in the initialize answer and in host configs.
const Name = "ctxgit"

// Server is a ctxgit MCP server for one workspace.
type Server struct {
	opts      Options
	srv       *mcp.Server
	toolsOnly string // ToolsOnly of the workspace, for clients with the card's hooks
}

// New makes the server: its instructions (the onboarding card), tools and
// resources. The session named in o is checked here, so a bad
// CTXGIT_SESSION is a usage error before anything is served.
func New(o Options) (*Server, error) {
	if o.Session != "" {
		if err := workspace.ValidateReadSession(o.Session); err != nil {
			return nil, fmt.Errorf("CTXGIT_SESSION: %w", err)
		}
	}
	w, err := workspace.Open(o.Env, o.Root)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, toolsOnly: ToolsOnly(w)}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "ctxgit", Version: o.Version}, &mcp.ServerOptions{
		Instructions:       Instructions(w),
		Capabilities:       &mcp.ServerCapabilities{},
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	})
	s.srv.AddReceivingMiddleware(s.cardMiddleware)
	s.addTools()
	s.addResources()
	return s, nil
}

// MCP is the SDK server, for a transport to run.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves on t until the client goes (EOF on stdio) or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.srv.Run(ctx, drained{t})
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil || errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return nil
	case errors.Is(err, errTooLong):
		return spec.Invalid("a message from the MCP client is over %d MiB", maxMessage>>20)
	case errors.As(err, &syntax) || errors.As(err, &typ):
		// The SDK ends the connection on a line it cannot read.
		return spec.Invalid("a message from the MCP client is not JSON-RPC: %v", err)
	}
	return err
}

// ServeIO serves over a byte stream, one JSON-RPC message a line: stdin
// and stdout for `ctxgit mcp`. It ends at the end of input, once every
// request read is answered.
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(&lineLimit{r: r}), Writer: nopCloser{w}})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// call is one tool call's workspace and session.
type call struct {
	w       *workspace.Workspace
	session string
}

// open opens the workspace afresh for each call, so a change made outside
// the server (an edit, a hook's checkpoint) is what the call sees, and
// picks the call's session as the CLI does (SPEC §6.3): read tools take
// a unique prefix or the newest session, write tools a short id.
func (s *Server) open(read bool) (*call, error) {
	w, err := workspace.Open(s.opts.Env, s.opts.Root)
	if err != nil {
		return nil, err
	}
	given := s.opts.Session
	if given == "" {
		given = spec.DefaultSession
	} else if !read {
		if err := spec.ValidateSessionKey(given); err != nil {
			return nil, fmt.Errorf("CTXGIT_SESSION: %w", err)
		}
	}
	choice, err := workspace.PickSession(w, given, s.opts.Session != "", read)
	if err != nil {
		return &call{w: w}, err
	}
	return &call{w: w, session: choice.Session}, nil
}

// handler is a tool's work: the structured result, its short text, or an
// error the client sees as a tool error.
type handler[In, Out any] func(ctx context.Context, c *call, in In) (Out, string, error)

// tool describes one tool; read tools never write.
type tool struct {
	name, title, description string
	read                     bool
	// touches are the resources a write changes, notified afterwards.
	touches []string
}

// add registers h as tool t: it opens the workspace, runs h, and turns an
// error or a panic into a tool error of one line, file names relative to
// the workspace as the CLI prints them.
func add[In, Out any](s *Server, t tool, h handler[In, Out]) {
	ann := &mcp.ToolAnnotations{Title: t.title, ReadOnlyHint: t.read, OpenWorldHint: new(bool)}
	if !t.read {
		ann.DestructiveHint = new(bool) // additive: a line appended, a mark set, a checkpoint added
	}
	inSchema, err := portableSchema[In]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.name, err)) // a type of this package: a programming error
	}
	outSchema, err := portableSchema[Out]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", t.name, err))
	}
	mcp.AddTool(s.srv, &mcp.Tool{Name: t.name, Title: t.title, Description: t.description, Annotations: ann,
		InputSchema: inSchema, OutputSchema: outSchema},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out any, err error) {
			var w *workspace.Workspace
			defer func() {
				if p := recover(); p != nil {
					res, out, err = nil, nil, fmt.Errorf("ctxgit: internal error in %s: %v (please report it)", t.name, p)
				}
			}()
			c, err := s.open(t.read)
			if c != nil {
				w = c.w
			}
			if err == nil {
				var text string
				var result Out
				result, text, err = h(ctx, c, in)
				if err == nil {
					if !t.read {
						s.notify(ctx, t.touches...)
					}
					// The schema has no null types: the result is sent
					// without its nulls.
					structured, err := withoutNulls(result)
					if err != nil {
						return nil, nil, toolError(w, err)
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, structured, nil
				}
			}
			return nil, nil, toolError(w, err)
		})
}

// toolError is err as the CLI's one stderr line says it.
func toolError(w *workspace.Workspace, err error) error {
	msg := safetext.Line(err.Error())
	if w != nil {
		msg = w.Rel(msg)
	}
	return errors.New("ctxgit: " + msg)
}

// is.
