// A replica of the VS Code companion's server
// (google-gemini/gemini-cli packages/vscode-ide-companion/src/ide-server.ts),
// built on the official TypeScript MCP SDK and express, with the editor
// replaced by a control channel: the Go test writes commands as JSON lines
// on stdin and reads events as JSON lines on stdout.
//
// Commands: {"cmd":"context","params":IdeContext}, {"cmd":"accept",
// "filePath","content"}, {"cmd":"reject","filePath"}, {"cmd":"ping"},
// {"cmd":"stop"}.
// Events: {"event":"ready","port","portFile"}, {"event":"openDiff",
// "filePath","newContent"}, {"event":"closeDiff","filePath"}.
//
// Environment: TMPDIR (where gemini/ide/ goes), WORKSPACE (the workspace
// path). Modules resolve from this folder's node_modules (npm ci
// --ignore-scripts here installs the pinned package-lock.json).

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import express from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const emit = (event) => process.stdout.write(JSON.stringify(event) + '\n');
const authToken = randomUUID();
const transports = {};
const sessionsWithInitialNotification = new Set();
let ideContext = { workspaceState: { openFiles: [], isTrusted: true } };
const diffs = new Map(); // filePath → content shown
let port;

function sendAll(notification) {
  for (const transport of Object.values(transports)) {
    transport.send(notification);
  }
}

function createMcpServer() {
  const server = new McpServer(
    { name: 'gemini-cli-companion-mcp-server', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  server.registerTool(
    'openDiff',
    {
      description: '(IDE Tool) Open a diff view to create or modify a file. Returns a notification once the diff has been accepted or rejected.',
      inputSchema: { filePath: z.string(), newContent: z.string() },
    },
    async ({ filePath, newContent }) => {
      diffs.set(filePath, newContent);
      emit({ event: 'openDiff', filePath, newContent });
      return { content: [] };
    },
  );
  server.registerTool(
    'closeDiff',
    {
      description: '(IDE Tool) Close an open diff view for a specific file.',
      inputSchema: { filePath: z.string(), suppressNotification: z.boolean().optional() },
    },
    async ({ filePath }) => {
      const content = diffs.get(filePath);
      diffs.delete(filePath);
      emit({ event: 'closeDiff', filePath });
      return { content: [{ type: 'text', text: JSON.stringify({ content: content ?? undefined }) }] };
    },
  );
  return server;
}

const app = express();
app.use(express.json({ limit: '10mb' }));
app.use((req, res, next) => {
  if (req.headers.origin) {
    return res.status(403).json({ error: 'Request denied by CORS policy.' });
  }
  const host = req.headers.host || '';
  if (![`localhost:${port}`, `127.0.0.1:${port}`].includes(host)) {
    return res.status(403).json({ error: 'Invalid Host header' });
  }
  const parts = (req.headers.authorization || '').split(' ');
  if (parts.length !== 2 || parts[0] !== 'Bearer' || parts[1] !== authToken) {
    return res.status(401).send('Unauthorized');
  }
  next();
});

app.post('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  let transport;
  if (sessionId && transports[sessionId]) {
    transport = transports[sessionId];
  } else if (!sessionId && isInitializeRequest(req.body)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports[id] = transport;
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) {
        sessionsWithInitialNotification.delete(transport.sessionId);
        delete transports[transport.sessionId];
      }
    };
    // One McpServer per session: the SDK binds a server to one transport.
    await createMcpServer().connect(transport);
  } else {
    res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided for non-initialize request.' }, id: null });
    return;
  }
  await transport.handleRequest(req, res, req.body);
});

app.get('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  if (!sessionId || !transports[sessionId]) {
    res.status(400).send('Invalid or missing session ID');
    return;
  }
  const transport = transports[sessionId];
  // With SDK 1.23 (the companion's pin) handleRequest returned once the
  // stream was set up; later versions return when it ends. Wait for the
  // headers instead, which go out once the stream exists.
  transport.handleRequest(req, res);
  for (let i = 0; i < 5000 && !res.headersSent; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (!sessionsWithInitialNotification.has(sessionId)) {
    transport.send({ jsonrpc: '2.0', method: 'ide/contextUpdate', params: ideContext });
    sessionsWithInitialNotification.add(sessionId);
  }
});

let portFile;
const server = app.listen(0, '127.0.0.1', async () => {
  port = server.address().port;
  const dir = path.join(os.tmpdir(), 'gemini', 'ide');
  await fs.mkdir(dir, { recursive: true });
  portFile = path.join(dir, `gemini-ide-server-${process.ppid}-${port}.json`);
  await fs.writeFile(portFile, JSON.stringify({ port, workspacePath: process.env.WORKSPACE, authToken }));
  await fs.chmod(portFile, 0o600);
  emit({ event: 'ready', port, portFile });
});

async function stop() {
  server.closeAllConnections?.();
  server.close();
  await fs.unlink(portFile).catch(() => {});
  process.exit(0);
}

readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  const cmd = JSON.parse(line);
  switch (cmd.cmd) {
    case 'context':
      ideContext = cmd.params;
      sendAll({ jsonrpc: '2.0', method: 'ide/contextUpdate', params: ideContext });
      break;
    case 'accept':
      diffs.delete(cmd.filePath);
      sendAll({ jsonrpc: '2.0', method: 'ide/diffAccepted', params: { filePath: cmd.filePath, content: cmd.content } });
      break;
    case 'reject':
      diffs.delete(cmd.filePath);
      // The VS Code companion sends the content along, beyond the spec.
      sendAll({ jsonrpc: '2.0', method: 'ide/diffRejected', params: { filePath: cmd.filePath, content: 'ignored' } });
      break;
    case 'ping':
      // The keep-alive of ide-server.ts: a ping without an id.
      sendAll({ jsonrpc: '2.0', method: 'ping' });
      break;
    case 'stop':
      await stop();
      break;
  }
});
process.stdin.on('end', stop);
