// Drives a Castor A2A server over A2A 1.0 with @a2a-js/sdk 1.x (installed
// under the npm alias a2a-js-sdk-v1) the way a user of that client would,
// and prints one JSON line per step for TestInteropA2AJSv1 to check.
// Usage: node --input-type=module < client-v1.mjs  (args in INTEROP_* env)
import { Role, TaskState, taskStateToJSON } from "a2a-js-sdk-v1";
import { ClientFactory, ClientFactoryOptions, withA2AExtensions } from "a2a-js-sdk-v1/client";

const base = process.env.INTEROP_URL;
const ws = process.env.INTEROP_WORKSPACE;
const hook = process.env.INTEROP_WEBHOOK;
// The transport to prefer among the card's interfaces: JSONRPC (the
// card's first, so the factory's own choice) or HTTP+JSON.
const transport = process.env.INTEROP_TRANSPORT || "JSONRPC";
const ext = "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/v0/spec.md";
const out = (step, v) => console.log(JSON.stringify({ step, ...v }));
// step runs one step and turns a thrown client error into a line the Go
// test shows, so one failing call does not hide the steps after it.
const step = async (name, fn) => {
  try {
    out(name, await fn());
  } catch (e) {
    out(name, { threw: `${e?.name ?? "Error"}: ${e?.message ?? e}` });
  }
};

// Requests are written out whole, with every field the SDK's TypeScript
// types require, as a TypeScript user of the client has to.
let n = 0;
const msg = (parts, extra = {}) => ({
  messageId: `interop-v1-${++n}`,
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
});
const req = (fields) => ({ tenant: "", ...fields });
const text = (t) => ({ content: { $case: "text", value: t }, metadata: undefined, filename: "", mediaType: "" });
const data = (d) => ({ content: { $case: "data", value: d }, metadata: undefined, filename: "", mediaType: "" });
const send = (message, returnImmediately) =>
  req({
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: returnImmediately ?? false },
    metadata: undefined,
  });
const state = (s) => (s === undefined ? "" : taskStateToJSON(s));
const collect = async (gen) => {
  const evs = [];
  for await (const ev of gen) evs.push(ev);
  return evs;
};
// shape names each stream event as payload:state:kind, where kind is the
// Gemini CLI event kind from either metadata spelling.
const shape = (evs) =>
  evs.map(({ payload }) => {
    const v = payload?.value ?? {};
    const k = v.metadata?.coderAgent?.kind ?? v.metadata?.[ext]?.kind ?? "";
    return `${payload?.$case}:${state(v.status?.state)}:${k}`;
  });
const taskIdOf = (evs) => {
  for (const { payload } of evs) {
    if (payload?.$case === "task") return payload.value.id;
    if (payload?.value?.taskId) return payload.value.taskId;
  }
  return "";
};
const callIdOf = (evs) => {
  for (const { payload } of evs) {
    for (const p of payload?.value?.status?.message?.parts ?? []) {
      if (p.content?.$case !== "data") continue;
      const d = p.content.value ?? {};
      if (d.request?.callId) return d.request.callId;
      if (d.tool_call_id) return d.tool_call_id;
    }
  }
  return "";
};
const settings = { coderAgent: { kind: "agent-settings", workspacePath: ws } };

// Discovery: the factory reads the agent card and picks the interface of
// the preferred transport that speaks 1.0.
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
);
const client = await factory.createFromUrl(base);
const card = await client.getAgentCard();
out("card", {
  protocolVersion: client.protocolVersion,
  transport: client.transport.protocolName,
  bindings: card.supportedInterfaces.map((i) => `${i.protocolBinding}/${i.protocolVersion}`),
  streaming: card.capabilities?.streaming ?? false,
  push: card.capabilities?.pushNotifications ?? false,
  extension: (card.capabilities?.extensions ?? []).some((e) => e.uri === ext),
});

// Blocking send: the turn runs to its end before the answer comes back.
let taskId = "";
let contextId = "";
await step("send", async () => {
  const r = await client.sendMessage(send(msg([text("hello")], { metadata: settings })));
  taskId = r.id ?? "";
  contextId = r.contextId ?? "";
  return { kind: "messageId" in r ? "message" : "task", state: state(r.status?.state), history: r.history?.length };
});
await step("get", async () => {
  const t = await client.getTask(req({ id: taskId, historyLength: 1 }));
  return { state: state(t.status?.state), history: t.history.length, id: t.id === taskId };
});

// A follow-up on the same task, streamed.
await step("stream", async () => {
  const evs = await collect(client.sendMessageStream(send(msg([text("stream please")], { taskId }))));
  return { shape: shape(evs), same: taskIdOf(evs) === taskId };
});

// write_file confirmation in Gemini CLI's coderAgent format.
await step("confirm", async () => {
  const w1 = await collect(client.sendMessageStream(send(msg([text("write it")], { metadata: settings }))));
  const wTask = taskIdOf(w1);
  const w2 = await collect(
    client.sendMessageStream(send(msg([data({ callId: callIdOf(w1), outcome: "proceed_once" })], { taskId: wTask }))),
  );
  return { first: shape(w1), second: shape(w2) };
});

// The development-tool extension, activated with the A2A-Extensions header.
const extOpts = { serviceParameters: {} };
withA2AExtensions(ext)(extOpts.serviceParameters);
await step("extension", async () => {
  const e1 = await collect(
    client.sendMessageStream(send(msg([text("write it")], { metadata: { [ext]: { workspace_path: ws } } })), extOpts),
  );
  const eTask = taskIdOf(e1);
  const e2 = await collect(
    client.sendMessageStream(
      send(msg([data({ tool_call_id: callIdOf(e1), selected_option_id: "proceed_once" })], { taskId: eTask })),
      extOpts,
    ),
  );
  return { first: shape(e1), second: shape(e2) };
});

// ListTasks: every task so far, and the filter by context.
await step("list", async () => {
  const list = (fields) =>
    client.listTasks(req({ contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined, ...fields }));
  const all = await list({});
  const ctx = await list({ contextId });
  return { all: all.tasks.length, context: ctx.tasks.map((t) => t.id === taskId), total: all.totalSize };
});

// Push notification configs: create, get, list, delete.
await step("push", async () => {
  const set = await client.createTaskPushNotificationConfig(req({ taskId, id: "hook", url: hook, token: "interop-token", authentication: undefined }));
  const got = await client.getTaskPushNotificationConfig(req({ taskId, id: "hook" }));
  const list = await client.listTaskPushNotificationConfig(req({ taskId, pageSize: 0, pageToken: "" }));
  return { set: set.id, get: got.url === hook, token: got.token, list: list.configs.length };
});
await step("push-delete", async () => {
  await client.deleteTaskPushNotificationConfig(req({ taskId, id: "hook" }));
  const list = await client.listTaskPushNotificationConfig(req({ taskId, pageSize: 0, pageToken: "" }));
  return { list: list.configs.length };
});

// Non-blocking send, subscribe, drop the stream, subscribe again, set a
// webhook, then cancel: the second subscription sees the task end.
let bgId = "";
await step("subscribe", async () => {
  const bg = await client.sendMessage(send(msg([text("long job")], { metadata: settings }), true));
  bgId = bg.id;
  const first = client.resubscribeTask(req({ id: bgId }));
  const a = (await first.next()).value;
  await first.return();
  const again = client.resubscribeTask(req({ id: bgId }));
  const b = (await again.next()).value;
  // A webhook on the running task: the Go test waits for its canceled push.
  await client.createTaskPushNotificationConfig(
    req({ taskId: bgId, id: "bg-hook", url: hook, token: "bg-token", authentication: undefined }),
  );
  const cancelled = await client.cancelTask(req({ id: bgId, metadata: undefined }));
  const rest = await collect(again);
  const after = await client.getTask(req({ id: bgId }));
  return {
    sent: state(bg.status?.state),
    first: a?.payload?.$case,
    again: b?.payload?.$case,
    cancel: state(cancelled.status?.state),
    last: shape(rest).at(-1),
    after: state(after.status?.state),
  };
});

// Errors come back as the SDK's typed errors.
const errName = async (fn) => {
  try {
    await fn();
    return "none";
  } catch (e) {
    return e?.name ?? String(e);
  }
};
await step("errors", async () => ({
  get: await errName(() => client.getTask(req({ id: "no-such-task" }))),
  cancel: await errName(() => client.cancelTask(req({ id: "no-such-task", metadata: undefined }))),
  cancelDone: await errName(() => client.cancelTask(req({ id: bgId, metadata: undefined }))),
}));
