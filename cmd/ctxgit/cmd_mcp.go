package main

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/mcpserver"
	"github.com/ctxgit/ctxgit/workspace"
)

// mcpCommand is `ctxgit mcp` (docs/cli.md#mcp). This is the one file of
// the command that imports mcpserver, and through it the SDK
// (TestMCPImportedOnlyByItsCommand).
func (a *app) mcpCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "mcp",
		Usage: "serve the workspace's state as Model Context Protocol tools and resources over stdio",
		Flags: []cli.Flag{rootFlag, sessionFlag()},
		Action: func(c *cli.Context) error {
			env, err := workspace.DefaultEnv()
			if err != nil {
				return err
			}
			root, err := workspace.FindRoot(env, c.String("root"))
			if err != nil {
				return err
			}
			sess := ""
			if c.IsSet("session") {
				sess = c.String("session")
			}
			s, err := mcpserver.New(mcpserver.Options{Root: root, Env: env, Session: sess, Version: buildInfo().String(), Overview: a.mcpOverview})
			if err != nil {
				return err
			}
			// The protocol's messages go to stdout and nothing else does.
			return s.ServeIO(c.Context, a.stdin, a.stdout)
		},
	})
}

// mcpOverview is the status tool's answer: what `ctxgit` alone prints,
// as JSON and as text.
func (a *app) mcpOverview(ctx context.Context, w *workspace.Workspace, session string, named bool) (map[string]any, string, error) {
	v, err := a.buildWhere(ctx, w, session, named)
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	(&app{stdout: &buf}).printWhere(v, w.Env.Now(), w.Config.Pressure)
	data, err := json.Marshal(v)
	if err != nil {
		return nil, "", err
	}
	var out map[string]any
	err = json.Unmarshal(data, &out)
	return out, buf.String(), err
}
