package workspace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fileRuleDirs are the packages that touch a workspace's files: every
// direct open, write, rename or removal in them must go through the file
// rule (files.go, internal/regfile) or be listed in fileRuleAllowed.
var fileRuleDirs = []string{"workspace", "taskstate", "host/hooks", "host/config", "mcpserver", "retention",
	"review", "gitlink", "sharing", "restore", "cmd/ctxgit", "internal/hookpath", "internal/tail", "host/transcript"}

// fileRuleCalls are the calls that open, write, make, rename or remove a
// file by path, following whatever links the path holds.
var fileRuleCalls = map[string]bool{
	"os.ReadFile": true, "os.Open": true, "os.OpenFile": true, "os.WriteFile": true, "os.Create": true,
	"os.CreateTemp": true, "os.MkdirAll": true, "os.Mkdir": true, "os.Rename": true, "os.Remove": true,
	"os.RemoveAll": true, "os.Chtimes": true, "os.Truncate": true, "os.Symlink": true, "os.ReadDir": true,
	"atomicfile.Write": true, "atomicfile.WriteChecked": true, "atomicfile.WriteFrom": true,
	"atomicfile.WriteNoSync": true, "atomicfile.WriteNoSyncWith": true, "atomicfile.WriteNew": true,
	"atomicfile.Rename": true, "atomicfile.Commit": true, "workspace.WriteFileAtomic": true, "WriteFileAtomic": true,
}

// fileRuleAllowed are the direct calls that stay, each with why the file
// rule does not apply or is already held there: "dir/file.go func call".
var fileRuleAllowed = map[string]string{
	"host/transcript/repair.go Repair atomicfile.Write":               "the host's transcript `transcript repair` is named, not a workspace file",
	"host/transcript/repair.go Repair os.ReadFile":                    "the host's transcript `transcript repair` is named, not a workspace file",
	"host/transcript/repair.go Repair os.Remove":                      "the host's transcript `transcript repair` is named, not a workspace file",
	"host/transcript/repair.go lockHolder os.ReadFile":                "the repair's lock beside the host's transcript, not a workspace file",
	"host/transcript/repair.go takeLock os.OpenFile":                  "the repair's lock beside the host's transcript, not a workspace file",
	"host/transcript/repair.go takeLock os.ReadFile":                  "the repair's lock beside the host's transcript, not a workspace file",
	"host/transcript/repair.go takeLock os.Remove":                    "the repair's lock beside the host's transcript, not a workspace file",
	"host/transcript/repair.go writeBackup atomicfile.WriteNew":       "the backup beside the host's transcript, not a workspace file",
	"host/transcript/resume.go ReadFileResume atomicfile.WriteNoSync": "the saved reading under .ctxgit/local/transcripts/, whose directories the caller checked (workspace.MakeLocalDirs); the rename replaces a link",
	"host/transcript/resume.go ReadFileResume os.MkdirAll":            "as its WriteNoSync: the caller checked the directories",
	"host/transcript/resume.go ReadFileResume os.Open":                "the host's transcript, outside the workspace",
	"host/transcript/tail.go TailReading os.Open":                     "the host's transcript, outside the workspace",
	"host/transcript/geminicompress.go GeminiCompressedSince os.Open": "the host's chat recording, outside the workspace",
	"host/transcript/transcript.go Detect os.Open":                    "the host's transcript, outside the workspace",
	"host/transcript/transcript.go ReadFile os.Open":                  "the host's transcript, outside the workspace",
	"host/transcript/transcript.go detectFileDocument os.Open":        "the host's transcript, outside the workspace",
	"workspace/files.go CreateLocal os.OpenFile":                      "the rule: an exclusive create (follows no link) after localDirs",
	"workspace/files.go ReadLocalDir os.ReadDir":                      "the rule: after localDirs checked the directory itself",
	"workspace/files.go RemoveLocal os.Remove":                        "the rule: after localDirs; unlinks a link itself",
	"workspace/files.go WriteLocal atomicfile.Write":                  "the rule: after localDirs; the rename replaces a link, never follows it",
	"workspace/fileutil.go WriteFileAtomic atomicfile.Write":          "the rename replaces a final link; callers pass checked directories (Publish's, a user's cache)",
	"workspace/fileutil.go WriteFileAtomic os.MkdirAll":               "callers pass checked directories (see Publish)",
	"workspace/lock.go Publish WriteFileAtomic":                       "callers check the directories first: WriteStateFile (regfile.Dirs), markRecovered (localDirs), ctxgit's outputs at the root and in .ctxgit/ (CheckOwnDirs)",
	"workspace/lock.go Publish atomicfile.WriteChecked":               "as Publish's WriteFileAtomic",
	"workspace/lock.go Publish os.MkdirAll":                           "as Publish's WriteFileAtomic",
	"workspace/lock.go LockContext os.OpenFile":                       "an exclusive create (follows no link) in .ctxgit/local/, which CheckOwnDirs checked",
	"workspace/lock.go LockContext os.Remove":                         "removes the lock it just created",
	"workspace/lock.go Unlock os.Remove":                              "unlinks the lock entry itself, once it holds this holder's token",
	"workspace/lock.go heartbeat os.Chtimes":                          "this holder's own lock, made by an exclusive create",
	"workspace/lock.go takeOver os.Remove":                            "unlinks the stale lock entry itself, under the guard",
	"workspace/init.go createFromTemplate os.OpenFile":                "an exclusive create at the path resolveState and regfile.Dirs checked",
	"workspace/init.go createFromTemplate os.Remove":                  "removes the file it just created when the write failed",
	"workspace/init.go ensureInfoExclude WriteFileAtomic":             "the git directory's info/exclude: git's, never a clone's content",
	"workspace/init.go ensureInfoExclude os.ReadFile":                 "the git directory's info/exclude: git's, never a clone's content",
	"workspace/init.go prepareLocal os.MkdirAll":                      "makes .ctxgit/local/ after CheckOwnDirs",
	"workspace/workspace.go Store os.MkdirAll":                        "makes .ctxgit/ after CheckOwnDirs (Open)",
	"workspace/workspace.go isWorkspaceMarker os.ReadDir":             "lists .ctxgit/ for names only, while finding the root",
	"workspace/checkpoint.go CheckpointHeld os.Remove":                "unlinks the stat cache and the recovered copy at the root: an entry itself, never what a link leads to",
	"workspace/recover.go retireContextCheckpoint os.Rename":          "renames ctxgit's output at the root, the entry itself",
	"workspace/tempfiles.go removeStrayTemps os.Remove":               "unlinks what strayTemps listed: regular files, in directories checked or walked without following links",
	"workspace/tempfiles.go strayTemps os.ReadDir":                    "after regfile.Dirs checked the directory",
	"taskstate/status.go Ensure os.Rename":                            "moves the task state's entry aside in its own directory (a link moves as a link); a configured path was checked at load",
	"taskstate/status.go Ensure os.Remove":                            "unlinks the task state's entry itself",
	"host/hooks/gemini.go claimCompression os.Rename":                 "claims the marker readJSON just read by the rule, within its checked directory",
	"host/hooks/gemini.go claimCompression os.Remove":                 "removes the claimed marker it renamed",
	"host/hooks/openclaw.go rememberRoot workspace.WriteFileAtomic":   "the user's cache directory, not a workspace",
	"host/hooks/output.go appendLine os.MkdirAll":                     "the user's cache directory, not a workspace; the append follows no link",
	"host/hooks/output.go writeContext workspace.WriteFileAtomic":     "ctxgit's output at the workspace root: the rename replaces a link there, never follows it",
	"host/config/hostconfig.go backup atomicfile.WriteNew":            "an exclusive create under .ctxgit/local/backups/, after MakeLocalDirs",
	"host/config/hostconfig.go installJSON atomicfile.Write":          "writes where ResolveFile led, in directories regfile.Dirs checked",
	"host/config/hostconfig.go installJSON os.Remove":                 "unlinks the settings file's entry itself, after ResolveFile",
	"host/config/mcp.go InstallMCP atomicfile.Write":                  "writes where ResolveFile led, in directories regfile.Dirs checked",
	"host/config/mcp.go InstallMCP os.Remove":                         "unlinks the MCP config's entry itself, after ResolveFile",
	"host/config/opencode.go installOpenCode atomicfile.Write":        "writes where ResolveFile led, in directories regfile.Dirs checked (prepareWrite)",
	"host/config/opencode.go installOpenCode os.Remove":               "unlinks the plugin file's entry itself, after ResolveFile",
	"host/config/opencode.go removeEmptyDir os.Remove":                "removes an empty directory, checked by Lstat to be one (a link stays)",
	"host/config/openclaw.go checkFolder os.ReadDir":                  "OpenClaw's hook folder in the user's home, or the one an earlier version left in the workspace, reached through no link (oldOpenClawDir)",
	"host/config/openclaw.go installOpenClaw atomicfile.Write":        "OpenClaw's hook folder in the user's home, not a workspace",
	"host/config/openclaw.go installOpenClaw os.MkdirAll":             "OpenClaw's hook folder in the user's home, not a workspace",
	"host/config/openclaw.go removeOpenClaw os.ReadDir":               "OpenClaw's hook folder in the user's home, or the one an earlier version left in the workspace, reached through no link (oldOpenClawDir)",
	"host/config/openclaw.go removeOpenClaw os.Remove":                "OpenClaw's hook folder in the user's home, or the one an earlier version left in the workspace, reached through no link (oldOpenClawDir)",
	"internal/tail/tail.go File os.Open":                              "the host's transcript, a regular file by the caller's stat, outside the workspace",
	"gitlink/husky.go installBlock atomicfile.Write":                  "after readHook read the hook by the rule; the rename replaces a link, never follows it",
	"gitlink/husky.go installBlock os.MkdirAll":                       "husky's hooks directory, which the user's core.hooksPath names",
	"gitlink/husky.go uninstallBlock atomicfile.Write":                "after readHook read the hook by the rule; the rename replaces a link, never follows it",
	"gitlink/husky.go uninstallBlock os.Remove":                       "unlinks the hook entry itself",
	"gitlink/install.go Install atomicfile.Write":                     "git's hooks directory (the git directory's, or core.hooksPath): git's, never a clone's content",
	"gitlink/install.go Install os.MkdirAll":                          "git's hooks directory: git's, never a clone's content",
	"gitlink/install.go Install os.Remove":                            "git's hooks directory: removes the second name keepAside gave the user's hook when ctxgit's was not written",
	"gitlink/install.go keepAside atomicfile.Write":                   "git's hooks directory: git's, never a clone's content",
	"gitlink/doctor.go restoreStranded os.Remove":                     "git's hooks directory: the stranded hook's second name, once linked back",
	"gitlink/doctor.go restoreStranded os.Rename":                     "git's hooks directory: git's, never a clone's content",
	"gitlink/install.go removeOursAside os.Remove":                    "git's hooks directory: git's, never a clone's content",
	"gitlink/install.go uninstallIn atomicfile.Rename":                "git's hooks directory: git's, never a clone's content",
	"gitlink/install.go uninstallIn os.Remove":                        "git's hooks directory: git's, never a clone's content",
	"gitlink/prepare.go endLine os.OpenFile":                          "the commit message file git names in its own directory",
	"gitlink/prepare.go endLine os.ReadFile":                          "the commit message file git names in its own directory",
	"gitlink/prepare.go leadEmpty atomicfile.Write":                   "the commit message file git names in its own directory",
	"gitlink/prepare.go leadEmpty os.ReadFile":                        "the commit message file git names in its own directory",
	"restore/restore.go applyRestore os.MkdirAll":                     "restore's own rule (checkSafe, lstatNoFollow): no link on the way, nothing in .git",
	"restore/restore.go applyRestore os.Remove":                       "restore's own rule (checkSafe, lstatNoFollow)",
	"restore/restore.go removeEmptyDirs os.Remove":                    "restore's own rule (checkSafe, lstatNoFollow)",
	"restore/restore.go writeBlobFile atomicfile.WriteFrom":           "restore's own rule (checkSafe, lstatNoFollow)",
	"restore/restore.go writeLinkAtomic atomicfile.Rename":            "restore's own rule (checkSafe, lstatNoFollow)",
	"restore/restore.go writeLinkAtomic os.Open":                      "fsyncs the directory restore's rule checked",
	"restore/restore.go writeLinkAtomic os.Remove":                    "restore's own rule (checkSafe, lstatNoFollow)",
	"restore/restore.go writeLinkAtomic os.Symlink":                   "restore's own rule (checkSafe, lstatNoFollow)",
	"cmd/ctxgit/cmd_demo.go appendTranscript os.OpenFile":             "the demo's own directory, which it made",
	"cmd/ctxgit/cmd_demo.go demoDir os.MkdirAll":                      "the demo's own directory, named on the command line",
	"cmd/ctxgit/cmd_demo.go demoDir os.ReadDir":                       "the demo's own directory, named on the command line",
	"cmd/ctxgit/cmd_demo.go write os.MkdirAll":                        "the demo's own directory, which it made",
	"cmd/ctxgit/cmd_demo.go write os.WriteFile":                       "the demo's own directory, which it made",
	"cmd/ctxgit/cmd_report.go writeReport atomicfile.Write":           "the file --output names on the command line",
}

// TestFileRuleHeld fails when a package that touches workspace files opens,
// writes, renames or removes one by a direct call the file rule does not
// cover (SPEC §3.4, issue 32): a new reader must use ReadStateFile,
// ReadLocal and their kin, or be listed above with its reason.
func TestFileRuleHeld(t *testing.T) {
	found := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range fileRuleDirs {
		err := filepath.WalkDir(filepath.Join("..", filepath.FromSlash(dir)), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if rel, _ := filepath.Rel("..", p); filepath.ToSlash(rel) != dir && d.Name() != "." {
					return filepath.SkipDir // a package below is listed on its own, if at all
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel("..", p)
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				ast.Inspect(fn, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					name := ""
					switch fun := call.Fun.(type) {
					case *ast.SelectorExpr:
						if x, ok := fun.X.(*ast.Ident); ok {
							name = x.Name + "." + fun.Sel.Name
						}
					case *ast.Ident:
						name = fun.Name
					}
					if fileRuleCalls[name] {
						found[filepath.ToSlash(rel)+" "+fn.Name.Name+" "+name] = true
					}
					return true
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := fileRuleAllowed[k]; !ok {
			t.Errorf("%s: a direct file call outside the file rule (workspace/files.go); use it, or list it in fileRuleAllowed with why", k)
		}
	}
	for k := range fileRuleAllowed {
		if !found[k] {
			t.Errorf("fileRuleAllowed lists %q, which is no longer there", k)
		}
	}
}
