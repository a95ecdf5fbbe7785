// Drives a Castor A2A server with @a2a-js/sdk 0.3.x, the client library
// Gemini CLI's clients use, and prints one JSON line per step.
// Usage: node --input-type=module < client.mjs  (args in INTEROP_* env)
import { A2AClient } from "@a2a-js/sdk/client";

const base = process.env.INTEROP_URL;
const ws = process.env.INTEROP_WORKSPACE;
const hook = process.env.INTEROP_WEBHOOK;
const ext = "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/v0/spec.md";
const out = (step, v) => console.log(JSON.stringify({ step, ...v }));
let n = 0;
const msg = (parts, extra = {}) => ({
  message: { kind: "message", role: "user", messageId: `interop-${++n}`, parts, ...extra },
});
const text = (t) => ({ kind: "text", text: t });
const data = (d) => ({ kind: "data", data: d });
const collect = async (gen) => {
  const evs = [];
  for await (const ev of gen) evs.push(ev);
  return evs;
};
const shape = (evs) =>
  evs.map((e) => {
    const k = e.metadata?.coderAgent?.kind ?? e.metadata?.[ext]?.kind ?? "";
    return `${e.kind}:${e.status?.state ?? ""}:${k}${e.final ? ":final" : ""}`;
  });
const callIdOf = (evs) => {
  for (const e of evs) {
    for (const p of e.status?.message?.parts ?? []) {
      if (p.kind === "data" && p.data?.request?.callId) return p.data.request.callId;
      if (p.kind === "data" && p.data?.tool_call_id) return p.data.tool_call_id;
    }
  }
  return "";
};

const client = await A2AClient.fromCardUrl(`${base}.well-known/agent-card.json`);
const settings = { coderAgent: { kind: "agent-settings", workspacePath: ws } };

// send (blocking) and get with historyLength
const sent = await client.sendMessage(msg([text("hello")], { metadata: settings }));
const taskId = sent.result?.id;
out("send", { kind: sent.result?.kind, state: sent.result?.status?.state, error: sent.error });
const got = await client.getTask({ id: taskId, historyLength: 1 });
out("get", { state: got.result?.status?.state, history: got.result?.history?.length });

// stream a follow-up on the same task
const streamed = await collect(client.sendMessageStream(msg([text("stream please")], { taskId })));
out("stream", { shape: shape(streamed) });

// write_file confirmation round trip in Gemini CLI's format
const w1 = await collect(client.sendMessageStream(msg([text("write it")], { metadata: settings })));
const wTask = w1.find((e) => e.kind === "task")?.id;
const w2 = await collect(
  client.sendMessageStream(msg([data({ callId: callIdOf(w1), outcome: "proceed_once" })], { taskId: wTask })),
);
out("confirm", { first: shape(w1), second: shape(w2) });

// the development-tool extension, activated by header
const extClient = await A2AClient.fromCardUrl(`${base}.well-known/agent-card.json`, {
  fetchImpl: (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("X-A2A-Extensions", ext);
    return fetch(url, { ...init, headers });
  },
});
const e1 = await collect(extClient.sendMessageStream(msg([text("write it")], { metadata: { [ext]: { workspace_path: ws } } })));
const eTask = e1.find((e) => e.kind === "task")?.id;
const e2 = await collect(
  extClient.sendMessageStream(
    msg([data({ tool_call_id: callIdOf(e1), selected_option_id: "proceed_once" })], { taskId: eTask }),
  ),
);
out("extension", { first: shape(e1), second: shape(e2) });

// push notification configs
const set = await client.setTaskPushNotificationConfig({
  taskId,
  pushNotificationConfig: { id: "hook", url: hook, token: "interop-token" },
});
const pget = await client.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: "hook" });
const plist = await client.listTaskPushNotificationConfig({ id: taskId });
out("push", { set: set.result?.pushNotificationConfig?.id, get: pget.result?.pushNotificationConfig?.url, list: plist.result?.length });
const pdel = await client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: "hook" });
out("push-delete", { error: pdel.error ?? null });

// resubscribe to a running task, then cancel it
const bg = await client.sendMessage({ ...msg([text("long job")], { metadata: settings }), configuration: { blocking: false } });
const bgId = bg.result?.id;
const resub = client.resubscribeTask({ id: bgId });
const firstEv = (await resub.next()).value;
const cancelled = await client.cancelTask({ id: bgId });
const restEvs = await collect(resub);
out("resubscribe", { first: firstEv?.kind, cancel: cancelled.result?.status?.state, last: shape(restEvs).at(-1) });

// errors
const unknown = await client.cancelTask({ id: "no-such-task" });
out("cancel-unknown", { code: unknown.error?.code });
