// Drives `castor mcp serve` with the official MCP client, as another agent
// would, and prints one JSON line per step for e2e/mcpserve to check.
// MCP_MODE=stdio starts $CASTOR_BIN mcp serve itself; MCP_MODE=http
// connects to $MCP_URL with $MCP_TOKEN (and first without it).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const out = (step, v) => console.log(JSON.stringify({ step, ...v }));

function newClient() {
  const client = new Client({ name: "castor-e2e", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    out("elicit", { message: req.params.message, choices: req.params.requestedSchema?.properties?.decision?.enum });
    return { action: "accept", content: { decision: "Allow once" } };
  });
  return client;
}

async function prompt(client, args) {
  const r = await client.callTool({ name: "prompt", arguments: args });
  return { isError: !!r.isError, text: r.content?.[0]?.text, structured: r.structuredContent };
}

async function main() {
  const mode = process.env.MCP_MODE;
  let transport;
  if (mode === "http") {
    // Without the token the server refuses to talk.
    try {
      const bare = new Client({ name: "castor-e2e", version: "1.0.0" });
      await bare.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL)));
      out("unauthenticated", { connected: true });
    } catch (e) {
      out("unauthenticated", { connected: false, error: String(e.message ?? e) });
    }
    transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
      requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
    });
  } else {
    transport = new StdioClientTransport({
      command: process.env.CASTOR_BIN,
      args: ["mcp", "serve"],
      cwd: process.env.MCP_WORKSPACE,
      env: process.env,
      stderr: "inherit",
    });
  }
  const client = newClient();
  await client.connect(transport);
  out("initialize", { server: client.getServerVersion()?.name });
  const tools = await client.listTools();
  out("tools", { names: tools.tools.map((t) => t.name).sort() });

  const first = await prompt(client, { prompt: "What does notes.txt say?", approval_mode: "yolo" });
  out("first", first);
  const second = await prompt(client, { prompt: "What did I ask?", session_id: first.structured?.session_id });
  out("second", second);
  if (mode !== "http") {
    const write = await prompt(client, { prompt: "Write out.txt" });
    out("write", write);
  }
  const list = await client.callTool({ name: "list_sessions", arguments: {} });
  out("list", { sessions: list.structuredContent?.sessions?.map((s) => s.session_id) });
  const read = await client.callTool({ name: "read_session", arguments: { session_id: first.structured?.session_id } });
  out("read", { messages: read.structuredContent?.messages });
  await client.close();
}

main().catch((e) => {
  out("error", { message: String(e?.stack ?? e) });
  process.exit(1);
});
