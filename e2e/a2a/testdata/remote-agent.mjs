// Calls a Castor A2A server as Gemini CLI 0.61's remote subagents do
// (a2a-client-manager.ts, remote-invocation.ts): @a2a-js/sdk 0.3.x,
// message/stream with one text part and no metadata or extension, the
// events joined into the text its model receives as A2AResultReassembler
// joins them (data parts as "Data: <JSON>"), the task and context ids
// carried to the next call. Prints one JSON line per call.
// Usage: node --input-type=module < remote-agent.mjs (REMOTE_URL set;
// REMOTE_TASK and REMOTE_CONTEXT continue a task an earlier run began)
import { A2AClient } from "@a2a-js/sdk/client";

const client = await A2AClient.fromCardUrl(`${process.env.REMOTE_URL}.well-known/agent-card.json`);
const partText = (p) =>
  p.kind === "text" ? p.text : p.kind === "data" ? `Data: ${JSON.stringify(p.data)}` : p.kind === "file" ? "File: [binary/unnamed]" : "";
let contextId = process.env.REMOTE_CONTEXT || undefined;
let taskId = process.env.REMOTE_TASK || undefined;
let n = 0;
for (const query of (process.env.REMOTE_QUERIES ?? "").split("\n")) {
  const log = [];
  let state = "";
  let error = "";
  try {
    const stream = client.sendMessageStream({
      message: { kind: "message", role: "user", messageId: `remote-${++n}`, parts: [{ kind: "text", text: query }], contextId, taskId },
    });
    for await (const ev of stream) {
      if (ev.contextId) contextId = ev.contextId;
      if (ev.kind === "task" || ev.kind === "status-update") {
        taskId = ev.kind === "task" ? ev.id : ev.taskId;
        state = ev.status?.state ?? state;
        const m = ev.status?.message;
        if (m && m.role !== "user") {
          const t = (m.parts ?? []).map(partText).filter(Boolean).join("");
          if (t && log.at(-1) !== t) log.push(t);
        }
      }
    }
  } catch (e) {
    error = String(e?.message ?? e);
  }
  console.log(JSON.stringify({ query, state, text: log.join(""), error, taskId, contextId }));
}
