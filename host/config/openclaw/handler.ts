// ctxgit hook for OpenClaw, written by `ctxgit init --host openclaw`, which
// rewrites it; `ctxgit init --host openclaw --uninstall` removes its folder.
//
// It does one thing: run `ctxgit hook openclaw <event>` in the repository this
// folder was installed into (or CTXGIT_ROOT), with the event as JSON on stdin,
// under a timeout. The agent's workspace (context.workspaceDir) may be another
// directory: it is passed along, never used as the place to run. Whatever goes
// wrong (ctxgit missing, slow or failing, an event of an unexpected shape), it
// returns quietly and the agent goes on (docs/cli.md#hook).

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const COMMAND: string = __CTXGIT_COMMAND__;
// The repository `ctxgit init --host openclaw` ran in.
const INSTALL_ROOT: string = __CTXGIT_ROOT__;
const TIMEOUT_MS = 30000;
const MAX_OUTPUT = 1 << 20;
const RECOVERY_FILE = "CONTEXT_RECOVERY.md";

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

function payload(event: any, ctx: any): string {
  try {
    const context = primitives(ctx);
    if (ctx.sessionEntry !== null && typeof ctx.sessionEntry === "object") {
      context.sessionEntry = primitives(ctx.sessionEntry);
    }
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
      tokenCount: typeof event.tokenCount === "number" ? event.tokenCount : undefined,
      sessionFile: typeof event.sessionFile === "string" ? event.sessionFile : undefined,
      timestamp,
      context,
    });
  } catch {
    return JSON.stringify({ type: String(event.type), action: String(event.action), context: {} });
  }
}

// program is the file to run: COMMAND itself when it is a path, else the
// first file of that name on PATH (with ".exe" on Windows, where the
// variable may be spelled "Path"), else the bare name for spawn's own
// lookup. No shell is involved, so a path with spaces, quotes or
// backslashes is passed as it is.
function program(): string {
  try {
    const win = process.platform === "win32";
    if (COMMAND.includes("/") || (win && COMMAND.includes("\\"))) {
      return COMMAND;
    }
    const name = win && !/\.exe$/i.test(COMMAND) ? COMMAND + ".exe" : COMMAND;
    let list = process.env.PATH;
    if (list === undefined && win) {
      list = process.env.Path;
    }
    for (const dir of (list ?? "").split(path.delimiter)) {
      if (dir === "") {
        continue;
      }
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
    return name;
  } catch {
    return COMMAND;
  }
}

// repository is where ctxgit runs: the repository this folder sits in
// (<repo>/hooks/ctxgit/) when the module system tells where that is, else
// the one it was installed into, else CTXGIT_ROOT; never the agent's
// workspace by default, which may be another directory.
function repository(): string {
  try {
    if (typeof __dirname === "string" && __dirname !== "") {
      return path.resolve(__dirname, "..", "..");
    }
  } catch {
    // No __dirname under native ES modules.
  }
  if (INSTALL_ROOT !== "") {
    return INSTALL_ROOT;
  }
  try {
    const root = process.env.CTXGIT_ROOT;
    return typeof root === "string" ? root : "";
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
      const group = process.platform !== "win32";
      const child = spawn(program(), args, {
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
    const cwd = repository();
    if (cwd === "") {
      // Run nowhere rather than in the gateway's own directory.
      return;
    }
    const input = payload(event, ctx);
    if (name !== "bootstrap") {
      await run(["hook", "openclaw", name], input, cwd);
      return;
    }
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
