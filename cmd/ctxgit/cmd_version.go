package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

func (a *app) versionCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:        "version",
		Usage:       "print the version, commit and build date (also: ctxgit --version)",
		Flags:       []cli.Flag{rootFlag, jsonFlag},
		Description: examples("ctxgit version", "ctxgit version --json"),
		Action: func(c *cli.Context) error {
			b := buildInfo()
			if c.Bool("json") {
				return a.printJSON(versionResult{buildStamp: b, Spec: spec.Version,
					CheckpointSchema: fmt.Sprintf("%s v%d", spec.CheckpointSchema, spec.CheckpointSchemaVersion)})
			}
			_, err := fmt.Fprintln(a.stdout, b)
			return err
		},
	})
}

// versionResult is `ctxgit version --json`.
type versionResult struct {
	buildStamp
	Spec             string `json:"spec"`
	CheckpointSchema string `json:"checkpoint_schema"`
}

// Build stamps: scripts/dist.sh sets them with -ldflags "-X main.version=…
// -X main.commit=… -X main.date=…". A plain `go build` or `go install`
// leaves them empty and buildInfo fills them from the Go build info.
var (
	version = ""
	commit  = ""
	date    = ""
)

// devVersion names a build with no version stamp and no module version.
const devVersion = "0.1.0-dev"

// buildStamp is what this binary knows of its own build.
type buildStamp struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Date    string `json:"date,omitempty"`
	// Modified is true when the build's work tree had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
}

// buildInfo reads the stamps, filling what -ldflags left empty from the Go
// build info: the module version `go install …@vX` records, and the vcs.*
// settings `go build` records inside a git checkout.
func buildInfo() buildStamp {
	b := buildStamp{Version: version, Commit: commit, Date: date}
	info, ok := debug.ReadBuildInfo()
	if ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = strings.TrimPrefix(info.Main.Version, "v")
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			case s.Key == "vcs.modified" && commit == "":
				// Only of the commit the build info names: a stamped
				// version says "-dirty" itself (git describe --dirty).
				b.Modified = s.Value == "true"
			}
		}
	}
	if b.Version == "" {
		b.Version = devVersion
	}
	return b
}

func init() {
	// --version prints what `ctxgit version` prints.
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, c.App.Version) }
}

// SemVer is the version alone, as a protocol's version field wants it
// (the MCP initialize answer's serverInfo.version): 0.1.0-dev, with the
// commit as build metadata when known (0.1.0-dev+1b51a8b0c1d2.dirty).
func (b buildStamp) SemVer() string {
	v := b.Version
	if b.Commit != "" && !strings.Contains(v, "+") {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		v += "+" + c
		if b.Modified {
			v += ".dirty"
		}
	}
	return v
}

// String is the one-line version: `ctxgit 1.2.0 (abc1234, 2026-11-24) spec ctxgit/v1`.
func (b buildStamp) String() string {
	var detail []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Modified {
			c += "+dirty"
		}
		detail = append(detail, c)
	}
	if b.Date != "" {
		detail = append(detail, b.Date)
	}
	s := "ctxgit " + b.Version
	if len(detail) > 0 {
		s += " (" + strings.Join(detail, ", ") + ")"
	}
	return s + " (spec " + spec.Version + ")"
}
