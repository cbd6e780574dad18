package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) transcriptCommand() *cli.Command {
	var names []string
	for _, f := range transcript.Formats {
		names = append(names, string(f))
	}
	formats := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	format := &cli.StringFlag{Name: "format", Usage: formats + " (default: detected)"}
	detect := func(c *cli.Context, path string) (transcript.Format, error) {
		if f := c.String("format"); f != "" {
			if slices.Contains(transcript.Formats, transcript.Format(f)) {
				return transcript.Format(f), nil
			}
			return "", spec.Usage("--format %q: want %s", f, formats)
		}
		return transcript.Detect(path)
	}
	// The transcript path is checked in this one place, named as the
	// user gave it: one that is not there, or under a file, is "not
	// found" (exit 4); a directory is a usage error (exit 2); any other
	// failure says what failed without the path twice.
	exists := func(path string) error {
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return spec.NotFound("%s: no such file", path)
		case err != nil:
			return fmt.Errorf("%s: %w", path, workspace.UnwrapPathError(err))
		case fi.IsDir():
			return spec.Usage("%s: is a directory", path)
		}
		return nil
	}
	return &cli.Command{
		Name:  "transcript",
		Usage: "read or repair a host's session transcript",
		Subcommands: []*cli.Command{
			args("PATH").command(&cli.Command{
				Name: "show", Usage: "turns, usage, compactions, tools, failures and bad lines of a transcript",
				Flags: []cli.Flag{rootFlag, jsonFlag, format},
				Action: func(c *cli.Context) error {
					path := c.Args().First()
					if err := exists(path); err != nil {
						return err
					}
					f, err := detect(c, path)
					if err != nil {
						return err
					}
					root, _ := os.Getwd()
					s, err := transcript.ReadFile(path, f, transcript.ReadOptions{Root: root})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						s.BadLineNumbers, s.FilesRead, s.FilesModified = nonNil(s.BadLineNumbers), nonNil(s.FilesRead), nonNil(s.FilesModified)
						s.ToolsUsed, s.ToolFailures = nonNil(s.ToolsUsed), nonNil(s.ToolFailures)
						return a.printJSON(s)
					}
					a.printTranscript(path, s)
					return nil
				},
			}),
			args("PATH").command(&cli.Command{
				Name: "repair", Usage: "drop unparseable lines and repair tool-call pairing (backup first)",
				Flags: []cli.Flag{rootFlag, jsonFlag, &cli.BoolFlag{Name: "dry-run", Usage: "report what would change"}},
				Action: func(c *cli.Context) error {
					if err := exists(c.Args().First()); err != nil {
						return err
					}
					env, err := workspace.DefaultEnv()
					if err != nil {
						return err
					}
					rep, err := transcript.Repair(c.Args().First(), transcript.RepairOptions{DryRun: c.Bool("dry-run"), Now: func() time.Time { return env.Now() }, PID: os.Getpid()})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						rep.DroppedUnparseable, rep.SyntheticResults = nonNil(rep.DroppedUnparseable), nonNil(rep.SyntheticResults)
						rep.DroppedOrphans, rep.DroppedDuplicates = nonNil(rep.DroppedOrphans), nonNil(rep.DroppedDuplicates)
						rep.Moved, rep.DroppedIncompleteCalls = nonNil(rep.Moved), nonNil(rep.DroppedIncompleteCalls)
						return a.printJSON(rep)
					}
					a.printRepair(rep, c.Bool("dry-run"))
					return nil
				},
			}),
		},
	}
}

func (a *app) printTranscript(path string, s *transcript.Summary) {
	out := a.stdout
	fmt.Fprintf(out, "%s (%s): %d lines, %d bad\n", path, s.Format, s.Lines, s.BadLines)
	fmt.Fprintf(out, "turns: %d · compactions: %d · tool calls: %d\n", s.Turns, s.Compactions, s.ToolCalls)
	if s.HostMessages+s.AbandonedPrompts+s.ToolRejections > 0 {
		fmt.Fprintf(out, "not prompts: %d host messages, %d on abandoned branches · declined tool calls: %d\n", s.HostMessages, s.AbandonedPrompts, s.ToolRejections)
	}
	if hp := s.Thread.HostPlan; hp != nil {
		done, total := hp.Progress()
		fmt.Fprintf(out, "host plan (%s): %d of %d done", hp.Tool, done, total)
		if cur := hp.Current(); cur != nil {
			fmt.Fprintf(out, "; current: %s", safetext.Line(string(cur.Text)))
		}
		fmt.Fprintln(out)
	}
	if s.UsageKnown {
		fmt.Fprintf(out, "usage since the last compaction: %d tokens", s.Usage.Used())
		if s.Usage.ContextWindow > 0 {
			fmt.Fprintf(out, " of %d", s.Usage.ContextWindow)
		}
		fmt.Fprintln(out)
	} else {
		fmt.Fprintln(out, "usage since the last compaction: unknown")
	}
	for _, l := range []struct {
		name  string
		items []string
	}{{"tools", s.ToolsUsed}, {"files read", s.FilesRead}, {"files modified", s.FilesModified}} {
		if len(l.items) > 0 {
			fmt.Fprintf(out, "%s: %d (%s)\n", l.name, len(l.items), joinMax(l.items, 8))
		}
	}
	for _, f := range s.ToolFailures {
		// A one-document transcript places a failure by a JSON pointer.
		where := fmt.Sprintf("line %d", f.Line)
		if f.At != "" {
			where = "at " + oneLine(f.At)
		}
		fmt.Fprintf(out, "failure: %s: %s: %s\n", where, oneLine(f.Tool), oneLine(f.Summary))
	}
	if len(s.BadLineNumbers) > 0 {
		fmt.Fprintf(out, "bad lines: %v\n", s.BadLineNumbers)
	}
	if s.Thread.Summary != "" {
		fmt.Fprintf(out, "thread: %s\n", oneLine(string(s.Thread.Summary)))
	}
}

func (a *app) printRepair(r *transcript.RepairReport, dry bool) {
	out := a.stdout
	if !r.Changed {
		fmt.Fprintf(out, "%s: nothing to repair\n", r.Path)
		return
	}
	prefix := "repaired"
	if dry {
		prefix = "would repair"
	}
	fmt.Fprintf(out, "%s %s", prefix, r.Path)
	if r.Backup != "" {
		fmt.Fprintf(out, " (backup %s)", r.Backup)
	}
	fmt.Fprintln(out)
	for _, l := range []struct {
		what string
		n    int
	}{{"unparseable lines dropped", len(r.DroppedUnparseable)}, {"synthetic error results added", len(r.SyntheticResults)},
		{"orphaned results dropped", len(r.DroppedOrphans)}, {"duplicate results dropped", len(r.DroppedDuplicates)},
		{"results moved next to their call", len(r.Moved)}, {"incomplete calls dropped", len(r.DroppedIncompleteCalls)}} {
		if l.n > 0 {
			fmt.Fprintf(out, "  %s: %d\n", l.what, l.n)
		}
	}
}

func joinMax(items []string, n int) string {
	s := ""
	for i, it := range items {
		if i == n {
			return s + ", …"
		}
		if i > 0 {
			s += ", "
		}
		s += it
	}
	return s
}
