// A tiny MCP server for a Castor (or Gemini CLI) extension. It speaks MCP
// over stdio, one JSON-RPC message per line, with nothing but Node.js:
// no npm install is needed. It offers one tool, count_words, and one
// prompt, poem-writer (/poem-writer in a session). Replace them with your
// own; for a larger server the official SDK, @modelcontextprotocol/sdk,
// does this plumbing for you.
import { createInterface } from 'node:readline';

const serverInfo = { name: '%NAME%', version: '1.0.0' };

const tools = {
  count_words: {
    description: 'Counts the words and lines of a text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to count.' } },
      required: ['text'],
    },
    run({ text }) {
      const words = text.split(/\s+/).filter((w) => w !== '').length;
      const lines = text === '' ? 0 : text.split('\n').length;
      return { words, lines };
    },
  },
};

const prompts = {
  'poem-writer': {
    title: 'Poem Writer',
    description: 'Write a nice haiku',
    arguments: [
      { name: 'title', description: 'The title of the haiku', required: true },
      { name: 'mood', description: 'The mood of the haiku', required: false },
    ],
    messages({ title, mood }) {
      const withMood = mood ? ' with the mood ' + mood : '';
      return [{
        role: 'user',
        content: { type: 'text', text: 'Write a haiku' + withMood + ' called ' + title + '. A haiku has lines of 5, 7 and 5 syllables.' },
      }];
    },
  },
};

// Each method returns the result of a request or throws an error with a
// JSON-RPC code.
const methods = {
  initialize(params) {
    return {
      protocolVersion: params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {}, prompts: {} },
      serverInfo,
    };
  },
  ping() {
    return {};
  },
  'tools/list'() {
    return {
      tools: Object.entries(tools).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema })),
    };
  },
  'tools/call'(params) {
    const tool = tools[params?.name];
    if (!tool) throw rpcError(-32602, 'Unknown tool: ' + params?.name);
    try {
      const result = tool.run(params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (e) {
      // A failing tool is a result the model reads, not a protocol error.
      return { content: [{ type: 'text', text: String(e) }], isError: true };
    }
  },
  'prompts/list'() {
    return {
      prompts: Object.entries(prompts).map(([name, p]) => ({ name, title: p.title, description: p.description, arguments: p.arguments })),
    };
  },
  'prompts/get'(params) {
    const prompt = prompts[params?.name];
    if (!prompt) throw rpcError(-32602, 'Unknown prompt: ' + params?.name);
    for (const a of prompt.arguments) {
      if (a.required && !params.arguments?.[a.name]) throw rpcError(-32602, 'Missing argument: ' + a.name);
    }
    return { description: prompt.description, messages: prompt.messages(params.arguments ?? {}) };
  },
};

function rpcError(code, message) {
  return Object.assign(new Error(message), { code });
}

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
}

// stdout carries only protocol messages: log with console.error.
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (msg.id === undefined) return; // a notification, such as notifications/initialized
  const method = Object.hasOwn(methods, msg.method) ? methods[msg.method] : undefined;
  if (!method) {
    send({ id: msg.id, error: { code: -32601, message: 'Method not found: ' + msg.method } });
    return;
  }
  try {
    send({ id: msg.id, result: method(msg.params) });
  } catch (e) {
    send({ id: msg.id, error: { code: e.code ?? -32603, message: e.message } });
  }
});
