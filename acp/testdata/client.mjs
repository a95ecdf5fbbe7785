// The official ACP client (@agentclientprotocol/sdk) driving `castor --acp`.
// Env: CASTOR_BIN, ACP_WORKSPACE, ACP_STEP ("run" or "load"), ACP_SESSION
// (for "load"). The agent's environment is this process's. Prints one JSON
// line per step on stdout: {"step": ..., ...}.
import { spawn } from "node:child_process";
import { Writable, Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const ws = process.env.ACP_WORKSPACE;
const agentProc = spawn(process.env.CASTOR_BIN, ["--acp"], { cwd: ws, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(agentProc.stdin), Readable.toWeb(agentProc.stdout));

const updates = [];
const writes = [];
const permissions = [];
// Answers for permission requests, in order: an optionId, or "cancelled".
const answers = [];

const client = {
  async requestPermission(p) {
    permissions.push({ title: p.toolCall.title, kind: p.toolCall.kind, options: p.options.map((o) => `${o.optionId}:${o.kind}`) });
    const a = answers.shift() ?? "cancelled";
    if (a === "cancel-turn") {
      // The user cancels the turn while the agent waits for this answer.
      await conn.cancel({ sessionId: p.sessionId });
      return { outcome: { outcome: "cancelled" } };
    }
    if (a === "cancelled") return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: a } };
  },
  async sessionUpdate(n) {
    updates.push(n.update);
  },
  async writeTextFile(p) {
    writes.push({ path: p.path, content: p.content });
    const fs = await import("node:fs/promises");
    await fs.writeFile(p.path, p.content);
    return {};
  },
  async readTextFile(p) {
    const fs = await import("node:fs/promises");
    return { content: await fs.readFile(p.path, "utf8") };
  },
};
const conn = new acp.ClientSideConnection(() => client, stream);
const out = (o) => console.log(JSON.stringify(o));
const summary = (us) => us.map((u) => {
  switch (u.sessionUpdate) {
    case "agent_message_chunk": case "agent_thought_chunk": case "user_message_chunk":
      return `${u.sessionUpdate}:${u.content.type === "text" ? u.content.text : u.content.type}`;
    case "tool_call":
      return `tool_call:${u.kind}:${u.status}:${u.title}`;
    case "tool_call_update":
      return `tool_call_update:${u.status ?? ""}`;
    default:
      return u.sessionUpdate;
  }
});
const waitFor = (kind) => new Promise((res) => {
  const check = () => (updates.some((u) => u.sessionUpdate === kind) ? res() : setTimeout(check, 10));
  check();
});
const take = () => updates.splice(0, updates.length);

try {
  const init = await conn.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  out({ step: "initialize", protocolVersion: init.protocolVersion, loadSession: init.agentCapabilities.loadSession,
    name: init.agentInfo?.name, auth: init.authMethods.map((m) => m.id) });

  if (process.env.ACP_STEP === "load") {
    const id = process.env.ACP_SESSION;
    const list = await conn.listSessions({ cwd: ws });
    out({ step: "list", ids: list.sessions.map((s) => s.sessionId) });
    await conn.loadSession({ sessionId: id, cwd: ws, mcpServers: [] });
    out({ step: "load", updates: summary(take()) });
    try {
      await conn.prompt({ sessionId: "nope", prompt: [{ type: "text", text: "x" }] });
      out({ step: "unknown", error: null });
    } catch (e) {
      out({ step: "unknown", code: e.code, message: e.message });
    }
  } else {
    const s = await conn.newSession({ cwd: ws, mcpServers: [] });
    await waitFor("available_commands_update"); // it follows the answer
    out({ step: "new", sessionId: s.sessionId, modes: s.modes.availableModes.map((m) => m.id), current: s.modes.currentModeId,
      updates: take().map((u) => u.sessionUpdate) });

    let r = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "say hello" }] });
    out({ step: "text", stopReason: r.stopReason, updates: summary(take()) });

    r = await conn.prompt({ sessionId: s.sessionId, prompt: [
      { type: "text", text: "summarise these" },
      { type: "resource", resource: { uri: `file://${ws}/notes.md`, mimeType: "text/markdown", text: "unsaved notes" } },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    ] });
    out({ step: "context", stopReason: r.stopReason, updates: summary(take()) });

    answers.push("proceed_once");
    r = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write the file" }] });
    const ups = take();
    const diff = ups.flatMap((u) => u.content ?? []).find((c) => c.type === "diff");
    out({ step: "write", stopReason: r.stopReason, updates: summary(ups), permissions: permissions.splice(0), writes: writes.splice(0), diff });

    answers.push("cancel");
    r = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "run a command" }] });
    out({ step: "shell", stopReason: r.stopReason, updates: summary(take()), permissions: permissions.splice(0) });

    // Cancel the turn while a permission request is pending.
    answers.push("cancel-turn");
    r = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "run another" }] });
    out({ step: "cancel", stopReason: r.stopReason, updates: summary(take()), permissions: permissions.splice(0) });
  }
} catch (e) {
  out({ step: "error", message: String(e?.message ?? e), data: e?.data });
} finally {
  agentProc.stdin.end();
  const code = await new Promise((res) => {
    const t = setTimeout(() => { agentProc.kill("SIGKILL"); res("killed"); }, 10000);
    agentProc.on("exit", (c) => { clearTimeout(t); res(c); });
  });
  out({ step: "exit", code });
}
