// ctxgit hook for OpenClaw, written by `ctxgit init --host openclaw`, which
// rewrites it; `ctxgit init --host openclaw --uninstall` removes its folder.
//
// It runs `ctxgit hook openclaw <event>` with the event as JSON on stdin,
// under a timeout, and adds what the bootstrap answer prints to the run's
// bootstrap files. One folder serves every workspace OpenClaw's agents work
// in: the repository comes from the event (agent:bootstrap's workspaceDir),
// never from where this folder sits. The compaction events carry no
// workspace and no session file: ctxgit finds the repository from the
// session key the last bootstrap recorded, and this handler passes the
// session's transcript, read from OpenClaw's agent database, as a JSONL
// file. Whatever goes wrong (ctxgit missing, slow or failing, an event of
// an unexpected shape), it returns quietly and the agent goes on
// (docs/cli.md#hook).

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const COMMAND: string = __CTXGIT_COMMAND__;
const TIMEOUT_MS = 30000;
const MAX_OUTPUT = 1 << 20;
const RECOVERY_FILE = "CONTEXT_RECOVERY.md";
// The transcript passed at compaction: its newest events, enough for the
// checkpoint's thread, files and tools, never the whole history.
const MAX_EVENTS = 4000;

const EVENTS: Record<string, string> = {
  "agent:bootstrap": "bootstrap",
  "session:compact:before": "compact-before",
  "session:compact:after": "compact-after",
};

type RunResult = { code: number | null; stdout: string };

// primitives copies an object's string, number and boolean fields: what
// ctxgit needs, without the gateway config (secrets) or file contents.
function primitives(obj: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  try {
    if (obj !== null && typeof obj === "object") {
      for (const [key, val] of Object.entries(obj as Record<string, unknown>)) {
        if (typeof val === "string" || typeof val === "number" || typeof val === "boolean") {
          out[key] = val;
        }
      }
    }
  } catch {
    // A hostile getter leaves the copy partial.
  }
  return out;
}

// agentId is the agent a session key names ("agent:<id>:..."), else the
// event's agentId, else OpenClaw's default agent.
function agentId(sessionKey: unknown, ctx: any): string {
  if (typeof ctx.agentId === "string" && ctx.agentId !== "") {
    return ctx.agentId;
  }
  if (typeof sessionKey === "string") {
    const parts = sessionKey.split(":");
    if (parts.length >= 2 && parts[0] === "agent" && parts[1] !== "") {
      return parts[1];
    }
  }
  return "main";
}

// contextWindow is the window of the agent's model as the config states it
// (models.providers.<p>.models[].contextTokens or contextWindow, or
// agents.defaults.contextTokens); 0 when the config does not say.
function contextWindow(cfg: any, agent: string): number {
  try {
    if (cfg === null || typeof cfg !== "object") {
      return 0;
    }
    const defaults = cfg.agents?.defaults ?? {};
    const entry = Array.isArray(cfg.agents?.list) ? cfg.agents.list.find((a: any) => a?.id === agent) : undefined;
    const model = entry?.model ?? defaults.model;
    const ref: unknown = typeof model === "string" ? model : model?.primary;
    if (typeof ref === "string" && ref.includes("/")) {
      const slash = ref.indexOf("/");
      const provider = cfg.models?.providers?.[ref.slice(0, slash)];
      const id = ref.slice(slash + 1);
      const row = Array.isArray(provider?.models) ? provider.models.find((m: any) => m?.id === id) : undefined;
      for (const n of [row?.contextTokens, row?.contextWindow]) {
        if (typeof n === "number" && n > 0) {
          return n;
        }
      }
    }
    const n = entry?.contextTokens ?? defaults.contextTokens;
    return typeof n === "number" && n > 0 ? n : 0;
  } catch {
    return 0;
  }
}

// stateDir is OpenClaw's state directory: OPENCLAW_STATE_DIR, else
// .openclaw in OPENCLAW_HOME or the user's home.
function stateDir(): string {
  const env = process.env;
  const expand = (p: string) => (p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p);
  const override = env.OPENCLAW_STATE_DIR?.trim();
  if (override) {
    return path.resolve(expand(override));
  }
  const home = env.OPENCLAW_HOME?.trim();
  return path.join(home ? path.resolve(expand(home)) : os.homedir(), ".openclaw");
}

// exportTranscript writes the session's newest transcript events, as
// OpenClaw stores them in its agent database
// (<stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite, table
// transcript_events), to a JSONL file in a fresh temporary folder; "" when
// they cannot be read. The caller removes the folder.
async function exportTranscript(agent: string, sessionId: unknown): Promise<string> {
  if (typeof sessionId !== "string" || sessionId === "") {
    return "";
  }
  let db: any;
  try {
    const file = path.join(stateDir(), "agents", agent, "agent", "openclaw-agent.sqlite");
    if (!fs.existsSync(file)) {
      return "";
    }
    const sqlite: any = await import("node:sqlite");
    const zlib: any = await import("node:zlib");
    db = new sqlite.DatabaseSync(file, { readOnly: true, timeout: 2000 });
    const rows: any[] = db
      .prepare(
        "SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
      )
      .all(sessionId, MAX_EVENTS);
    const lines: string[] = [];
    for (const row of rows.reverse()) {
      let text: unknown = row.event_json;
      if (typeof text !== "string" && row.event_zstd != null && typeof zlib.zstdDecompressSync === "function") {
        text = zlib.zstdDecompressSync(row.event_zstd).toString("utf8");
      }
      if (typeof text === "string" && text !== "") {
        lines.push(text.replace(/\n/g, " "));
      }
    }
    if (lines.length === 0) {
      return "";
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxgit-openclaw-"));
    const out = path.join(dir, "session.jsonl");
    fs.writeFileSync(out, lines.join("\n") + "\n", { mode: 0o600 });
    return out;
  } catch {
    return "";
  } finally {
    try {
      db?.close();
    } catch {
      // Closed already.
    }
  }
}

function payload(event: any, ctx: any, extra: Record<string, unknown>): string {
  try {
    const context = primitives(ctx);
    if (Array.isArray(ctx.bootstrapFiles)) {
      context.bootstrapFiles = ctx.bootstrapFiles.map((f: any) =>
        f !== null && typeof f === "object" && typeof f.name === "string" ? f.name : "",
      );
    }
    let timestamp: unknown = event.timestamp;
    if (timestamp instanceof Date) {
      timestamp = Number.isNaN(timestamp.getTime()) ? undefined : timestamp.toISOString();
    }
    return JSON.stringify({
      type: event.type,
      action: event.action,
      sessionKey: event.sessionKey,
      tokenCount: typeof ctx.tokenCount === "number" ? ctx.tokenCount : undefined,
      timestamp,
      ...extra,
      context,
    });
  } catch {
    return JSON.stringify({ type: String(event.type), action: String(event.action), context: {} });
  }
}

// program is the file to run: COMMAND itself when it is an absolute
// path, else the first file of that name in an absolute folder on PATH
// (with ".exe" first on Windows, where the variable may be spelled
// "Path"), else "" and nothing runs. A relative folder on PATH ("." or
// an empty entry) or a relative COMMAND would name a file of the agent's
// workspace, which the repository controls: never run (as ctxgit's
// opencode plugin). No shell is involved, so a path with spaces, quotes
// or backslashes is passed as it is.
function program(): string {
  try {
    const win = process.platform === "win32";
    if (path.isAbsolute(COMMAND)) {
      return COMMAND;
    }
    if (COMMAND.includes("/") || COMMAND.includes("\\")) {
      return "";
    }
    const names = win && !/\.exe$/i.test(COMMAND) ? [COMMAND + ".exe", COMMAND] : [COMMAND];
    let list = process.env.PATH;
    if (list === undefined && win) {
      list = process.env.Path;
    }
    for (const dir of (list ?? "").split(path.delimiter)) {
      if (dir === "" || !path.isAbsolute(dir)) {
        continue;
      }
      for (const name of names) {
        const file = path.join(dir, name);
        try {
          fs.accessSync(file, win ? fs.constants.F_OK : fs.constants.X_OK);
          if (fs.statSync(file).isFile()) {
            return file;
          }
        } catch {
          // Not here.
        }
      }
    }
  } catch {
    // No program: nothing runs.
  }
  return "";
}

// directory is where ctxgit starts looking for its workspace: the agent's
// workspace for a bootstrap; for the compaction events, which name none,
// CTXGIT_ROOT or the home directory, from where ctxgit finds the repository
// the session's last bootstrap recorded.
function directory(ctx: any): string {
  try {
    if (typeof ctx.workspaceDir === "string" && path.isAbsolute(ctx.workspaceDir) && fs.existsSync(ctx.workspaceDir)) {
      return ctx.workspaceDir;
    }
    const root = process.env.CTXGIT_ROOT;
    if (typeof root === "string" && root !== "") {
      return root;
    }
    return os.homedir();
  } catch {
    return "";
  }
}

function run(args: string[], input: string, cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    let settled = false;
    let stdout = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (code: number | null) => {
      if (!settled) {
        settled = true;
        if (timer !== undefined) {
          clearTimeout(timer);
        }
        resolve({ code, stdout });
      }
    };
    try {
      // Its own process group, so that a timeout ends ctxgit and anything
      // it started.
      const prog = program();
      if (prog === "") {
        finish(null);
        return;
      }
      const group = process.platform !== "win32";
      const child = spawn(prog, args, {
        cwd,
        shell: false,
        detached: group,
        stdio: ["pipe", "pipe", "ignore"],
        timeout: TIMEOUT_MS,
        windowsHide: true,
      });
      // The timeout above signals ctxgit; past it, everything goes.
      timer = setTimeout(() => {
        try {
          if (group && child.pid !== undefined) {
            process.kill(-child.pid, "SIGKILL");
          } else {
            child.kill("SIGKILL");
          }
        } catch {
          // Already gone.
        }
        try {
          child.stdout?.destroy();
          child.stdin?.destroy();
        } catch {
          // Nothing left to release.
        }
        finish(null);
      }, TIMEOUT_MS + 2000);
      child.on("error", () => finish(null));
      child.on("close", (code: number | null) => finish(code));
      if (child.stdout) {
        child.stdout.setEncoding("utf8");
        child.stdout.on("error", () => {});
        child.stdout.on("data", (chunk: string) => {
          if (stdout.length < MAX_OUTPUT) {
            stdout += chunk;
          }
        });
      }
      if (child.stdin) {
        child.stdin.on("error", () => {});
        child.stdin.end(input);
      }
    } catch {
      finish(null);
    }
  });
}

const handler = async (event: any): Promise<void> => {
  try {
    if (event === null || typeof event !== "object") {
      return;
    }
    const key = `${event.type}:${event.action}`;
    if (!Object.prototype.hasOwnProperty.call(EVENTS, key)) {
      return;
    }
    const name = EVENTS[key];
    const ctx: any = event.context !== null && typeof event.context === "object" ? event.context : {};
    const cwd = directory(ctx);
    if (cwd === "") {
      // Run nowhere rather than in the gateway's own directory.
      return;
    }
    const agent = agentId(event.sessionKey, ctx);
    if (name === "compact-before") {
      const file = await exportTranscript(agent, ctx.sessionId);
      // run settles whatever ctxgit does, so the file always goes.
      await run(["hook", "openclaw", name], payload(event, ctx, { agentId: agent, sessionFile: file || undefined }), cwd);
      if (file !== "") {
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
      return;
    }
    if (name !== "bootstrap") {
      await run(["hook", "openclaw", name], payload(event, ctx, { agentId: agent }), cwd);
      return;
    }
    const window = contextWindow(ctx.cfg, agent);
    const input = payload(event, ctx, { agentId: agent, contextWindow: window > 0 ? window : undefined });
    if (!Array.isArray(ctx.bootstrapFiles)) {
      // Nothing to add the block to: ctxgit writes CONTEXT_RECOVERY.md
      // into the workspace instead.
      await run(["hook", "openclaw", "bootstrap", "--write"], input, cwd);
      return;
    }
    const result = await run(["hook", "openclaw", "bootstrap"], input, cwd);
    if (result.code === 0 && result.stdout.trim() !== "") {
      ctx.bootstrapFiles.push({
        name: RECOVERY_FILE,
        path: path.join(cwd, RECOVERY_FILE),
        content: result.stdout,
        missing: false,
      });
    }
  } catch {
    // Fail open: the agent goes on without ctxgit.
  }
};

export default handler;
