// A client built with the ACP library Gemini CLI 0.61 uses
// (@agentclientprotocol/sdk 0.16.1) driving `castor --acp` through the
// unstable model API: the models of session/new and session/load, and
// session/set_model. Env: CASTOR_BIN, ACP_WORKSPACE, ACP_MODEL (the model to
// pick). Prints one JSON line per step on stdout: {"step": ..., ...}.
import { spawn } from "node:child_process";
import { Writable, Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const ws = process.env.ACP_WORKSPACE;
const agentProc = spawn(process.env.CASTOR_BIN, ["--acp"], { cwd: ws, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(agentProc.stdin), Readable.toWeb(agentProc.stdout));
const updates = [];
const client = {
  async requestPermission() { return { outcome: { outcome: "cancelled" } }; },
  async sessionUpdate(n) { updates.push(n.update); },
};
const conn = new acp.ClientSideConnection(() => client, stream);
const out = (o) => console.log(JSON.stringify(o));
const text = () => updates.splice(0).filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");

try {
  await conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const s = await conn.newSession({ cwd: ws, mcpServers: [] });
  out({ step: "new", models: s.models });
  const set = await conn.unstable_setSessionModel({ sessionId: s.sessionId, modelId: process.env.ACP_MODEL });
  out({ step: "set", result: set });
  const r = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "which model?" }] });
  out({ step: "prompt", stopReason: r.stopReason, text: text() });
  const l = await conn.loadSession({ sessionId: s.sessionId, cwd: ws, mcpServers: [] });
  out({ step: "load", models: l.models });
  try {
    await conn.unstable_setSessionModel({ sessionId: "nope", modelId: "x" });
    out({ step: "unknown", error: null });
  } catch (e) {
    out({ step: "unknown", code: e.code });
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
