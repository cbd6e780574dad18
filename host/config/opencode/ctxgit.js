// ctxgit: opencode plugin written by `ctxgit init --host opencode`, which rewrites it; `ctxgit init --host opencode --uninstall` removes it.
//
// opencode loads the .js files of .opencode/plugins/ at startup
// (opencode.ai/docs/plugins). This one runs `ctxgit hook opencode EVENT`
// with the event as JSON on stdin, under a timeout, and uses what it
// prints ({"additionalContext": TEXT}):
//
// - before every model request (experimental.chat.system.transform) it
//   adds the session's standing context to the system prompt: the card on
//   a session's first start, the recovery after a compaction. ctxgit is
//   asked once per process and session, and again after a compaction;
// - before a compaction (experimental.session.compacting), a checkpoint,
//   with the session's messages read through opencode's own API into a
//   temporary JSONL file;
// - after a tool call (tool.execute.after), the newest usage the session
//   reported, and the flush nudge appended to the tool's output.
//
// Whatever goes wrong (ctxgit missing, slow or failing, an event of an
// unexpected shape), it returns quietly and opencode goes on. It runs
// nothing the repository names: the program below is the one init wrote,
// looked up only in the absolute folders of PATH.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const COMMAND = __CTXGIT_COMMAND__;
const TIMEOUT_MS = 10000;
const MAX_OUTPUT = 1 << 20;
// The transcript passed at compaction: the session's newest messages,
// enough for the checkpoint's thread, files and tools.
const MAX_MESSAGES = 400;

// program is the file to run: COMMAND when it is an absolute path, else
// the first file of that name in an absolute folder of PATH (a relative
// entry such as "." would find a program the repository put there); ""
// when there is none.
function program() {
  try {
    const win = process.platform === "win32";
    if (path.isAbsolute(COMMAND)) {
      return COMMAND;
    }
    if (COMMAND.includes("/") || COMMAND.includes("\\")) {
      return "";
    }
    const names = win && !/\.exe$/i.test(COMMAND) ? [COMMAND + ".exe", COMMAND] : [COMMAND];
    const list = process.env.PATH ?? (win ? process.env.Path : undefined) ?? "";
    for (const dir of list.split(path.delimiter)) {
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

// run runs `ctxgit hook opencode EVENT` with input on stdin in cwd and
// resolves to what it printed ("" on any failure); it never rejects.
function run(event, input, cwd) {
  return new Promise((resolve) => {
    let settled = false;
    let stdout = "";
    let timer;
    const finish = (code) => {
      if (!settled) {
        settled = true;
        if (timer !== undefined) {
          clearTimeout(timer);
        }
        resolve(code === 0 ? stdout : "");
      }
    };
    try {
      const prog = program();
      if (prog === "") {
        finish(null);
        return;
      }
      // Its own process group, so that a timeout ends ctxgit and anything
      // it started.
      const group = process.platform !== "win32";
      const child = spawn(prog, ["hook", "opencode", event], {
        cwd,
        shell: false,
        detached: group,
        stdio: ["pipe", "pipe", "ignore"],
        windowsHide: true,
      });
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
      }, TIMEOUT_MS);
      child.on("error", () => finish(null));
      child.on("close", (code) => finish(code));
      if (child.stdout) {
        child.stdout.setEncoding("utf8");
        child.stdout.on("error", () => {});
        child.stdout.on("data", (chunk) => {
          if (stdout.length < MAX_OUTPUT) {
            stdout += chunk;
          }
        });
      }
      if (child.stdin) {
        child.stdin.on("error", () => {});
        child.stdin.end(JSON.stringify(input));
      }
    } catch {
      finish(null);
    }
  });
}

// context is the text of ctxgit's answer, "" when it has none.
function context(out) {
  try {
    const lines = out.trim().split("\n");
    const v = JSON.parse(lines[lines.length - 1]);
    return typeof v?.additionalContext === "string" ? v.additionalContext : "";
  } catch {
    return "";
  }
}

export const CtxgitPlugin = async ({ client, directory }) => {
  const cwd = typeof directory === "string" && path.isAbsolute(directory) ? directory : "";
  // Per session: the standing context (undefined until asked), whether it
  // must be asked again (after a compaction), whether this process created
  // the session, the newest usage and window, and the usage last passed on.
  const sessions = new Map();
  const session = (id) => {
    let s = sessions.get(id);
    if (s === undefined) {
      s = { standing: undefined, stale: false, created: false, usage: undefined, usageID: "", sentID: "", window: 0 };
      sessions.set(id, s);
    }
    return s;
  };
  const payload = (id, s, extra) => ({
    session_id: id,
    cwd,
    tokens: s.usage,
    contextWindow: s.window > 0 ? s.window : undefined,
    ...extra,
  });

  // transcript writes the session's newest messages, as opencode's API
  // returns them ({info, parts} each), to a JSONL file in a fresh
  // temporary folder; "" when they cannot be read. The caller removes the
  // folder.
  const transcript = async (id) => {
    try {
      const res = await client.session.messages({ path: { id } });
      const list = Array.isArray(res?.data) ? res.data : Array.isArray(res) ? res : [];
      const lines = list.slice(-MAX_MESSAGES).map((m) => JSON.stringify(m));
      if (lines.length === 0) {
        return "";
      }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxgit-opencode-"));
      const file = path.join(dir, "session.jsonl");
      fs.writeFileSync(file, lines.join("\n") + "\n", { mode: 0o600 });
      return file;
    } catch {
      return "";
    }
  };

  return {
    event: async ({ event }) => {
      try {
        const props = event?.properties ?? {};
        if (event?.type === "session.created" && typeof props.info?.id === "string") {
          session(props.info.id).created = true;
        } else if (event?.type === "session.compacted" && typeof props.sessionID === "string") {
          session(props.sessionID).stale = true;
        } else if (event?.type === "message.updated") {
          const info = props.info;
          const t = info?.tokens;
          if (info?.role === "assistant" && !info.summary && typeof info.sessionID === "string" && t && typeof t.input === "number") {
            const used = t.input + (t.cache?.read ?? 0) + (t.cache?.write ?? 0);
            if (used > 0) {
              const s = session(info.sessionID);
              s.usage = { input: t.input, output: t.output ?? 0, cache: { read: t.cache?.read ?? 0, write: t.cache?.write ?? 0 } };
              s.usageID = String(info.id);
            }
          }
        }
      } catch {
        // An event of another shape: nothing to note.
      }
    },

    "experimental.chat.system.transform": async (input, output) => {
      try {
        const id = input?.sessionID;
        if (typeof id !== "string" || cwd === "" || !Array.isArray(output?.system)) {
          return;
        }
        const s = session(id);
        const limit = input?.model?.limit?.context;
        if (typeof limit === "number" && limit > 0) {
          s.window = limit;
        }
        // The title request is opencode's own, not the session's.
        if (output.system.some((p) => typeof p === "string" && p.startsWith("You are a title generator"))) {
          return;
        }
        if (s.standing === undefined || s.stale) {
          const source = s.stale ? "compact" : s.created ? "startup" : "resume";
          s.stale = false;
          s.standing = context(await run("session-start", payload(id, s, { source }), cwd));
        }
        if (s.standing !== "") {
          output.system.push(s.standing);
        }
      } catch {
        // The request goes out as opencode built it.
      }
    },

    "experimental.session.compacting": async (input, _output) => {
      try {
        const id = input?.sessionID;
        if (typeof id !== "string" || cwd === "") {
          return;
        }
        const s = session(id);
        const file = await transcript(id);
        await run("pre-compact", payload(id, s, { trigger: "auto", transcript_path: file || undefined }), cwd);
        if (file !== "") {
          fs.rmSync(path.dirname(file), { recursive: true, force: true });
        }
        s.stale = true;
      } catch {
        // The compaction goes on without a checkpoint.
      }
    },

    "tool.execute.after": async (input, output) => {
      try {
        const id = input?.sessionID;
        if (typeof id !== "string" || cwd === "") {
          return;
        }
        const s = session(id);
        // A reading ctxgit has already taken changes nothing it says.
        if (s.usage === undefined || s.usageID === s.sentID) {
          return;
        }
        s.sentID = s.usageID;
        const text = context(await run("post-tool-use", payload(id, s, { tool_name: input?.tool }), cwd));
        if (text !== "" && output && typeof output.output === "string") {
          output.output += "\n\n" + text;
        }
      } catch {
        // The tool's output stays as it was.
      }
    },
  };
};
