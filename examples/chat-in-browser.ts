/**
 * A chat in a web page with the AI SDK's `useChat`, unmodified, over a durable chat session: a
 * small Node server serves a React page (chat-in-browser/page.jsx, bundled with esbuild at start)
 * and `createChatHandler`'s routes under /api/chat. Answers stream in as the UI message stream; a
 * table booking waits for your Approve / Reject; a reload in the middle of an answer resumes it;
 * Stop ends the turn on the server and the next message is answered. The conversation is a durable
 * chat session per browser tab: it keeps its context and survives a worker restart.
 *
 *   npm run build && node examples/chat-in-browser.ts     # then open the printed URL; Ctrl-C stops
 *
 * PORT picks the port (default 8978; 0: any free one). `--self-test` (what CI runs) sends one
 * message through the AI SDK's own DefaultChatTransport and exits; test/integration/chat-in-browser.test.ts
 * drives the page in Chromium. The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when
 * OPENAI_API_KEY is set, otherwise a ScriptedModel (say "book" for the approval, "story" for a
 * long answer; anything else looks at the clock and echoes you). Everything else is real: the
 * embedded Temporal server, the worker, the chat session workflow, the HTTP streams.
 *
 * @ci-args --self-test
 */
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { build } from 'esbuild';
import { z } from 'zod';
import {
  AgentClient,
  BaseConnectorTool,
  createAgentWorker,
  createChatHandler,
  EmbeddedTemporalServer,
  InMemoryMemoryStore,
  type LanguageModel,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel, type ScriptedStep } from 'toolkit-agent/testing';

class ClockTool extends BaseConnectorTool {
  readonly name = 'clock';
  readonly description = 'The current date and time (UTC)';
  readonly parameters = z.object({});
  async run(): Promise<ToolOutput> {
    return { text: new Date().toISOString(), metadata: {} };
  }
}

class BookTableTool extends BaseConnectorTool {
  readonly name = 'book_table';
  readonly description = 'Books a table at the restaurant (a person approves each booking)';
  readonly parameters = z.object({ guests: z.number().int().min(1), time: z.string() });
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `Booked a table for ${String(args.guests)} at ${String(args.time)}.`, metadata: {} };
  }
}

type Request_ = Parameters<ScriptedModel['generate']>[0];
/** Writes `text` word by word, as a streaming model does. */
async function say(request: Request_, text: string, ms = 40): Promise<ScriptedStep> {
  for (const word of text.split(/(?<= )/)) {
    if (request.signal?.aborted) throw new Error('The model call was cancelled.');
    request.onTextDelta?.(word);
    await sleep(ms);
  }
  return { text };
}
const STORY = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(' ');

// Without a key: each step looks at the last message and answers as a real model would.
const scripted = async (request: Request_): Promise<ScriptedStep> => {
  const last = request.messages.at(-1)!;
  if (last.role === 'tool' && last.toolName === 'book_table') {
    return say(request, last.content.startsWith('Booked') ? 'Your table is booked.' : 'I did not book it.');
  }
  if (last.role === 'tool') {
    const said = request.messages.findLast((m) => m.role === 'user')?.content;
    return say(request, `You said: ${String(said)}`);
  }
  if (/book/i.test(last.content))
    return { toolCalls: [{ name: 'book_table', args: { guests: 2, time: '19:30' } }] };
  if (/story/i.test(last.content)) return say(request, STORY, 150);
  return { toolCalls: [{ name: 'clock', args: {} }] };
};
const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel(Array.from({ length: 200 }, () => scripted));

const temporal = await EmbeddedTemporalServer.start();
const taskQueue = 'chat-in-browser';
const worker = await createAgentWorker({
  temporal: { address: temporal.address },
  taskQueue,
  logLevel: 'WARN',
  memoryStore: new InMemoryMemoryStore(),
  agents: {
    assistant: {
      llm,
      tools: [new ClockTool(), new BookTableTool()],
      approval: { tools: ['book_table'] },
      systemPrompt: 'You are a friendly assistant of a restaurant in a web chat. Answer briefly.',
    },
  },
});
const serving = worker.run();
const agents = await AgentClient.connect({ address: temporal.address, taskQueue });

// POST /api/chat, GET /api/chat/<id>/stream (resume), POST /api/chat/<id>/stop.
const chat = createChatHandler({ client: agents, agent: 'assistant' });

const bundle = await build({
  entryPoints: [new URL('chat-in-browser/page.jsx', import.meta.url).pathname],
  bundle: true,
  write: false,
  format: 'esm',
  jsx: 'automatic',
  minify: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'error',
});
const PAGE_JS = bundle.outputFiles[0]!.text;
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>toolkit-agent chat</title>
<style>body{font:16px system-ui;max-width:40em;margin:2em auto} .tool{color:#888;font-size:13px}
.user{font-weight:600} p{margin:.4em 0}</style></head>
<body><h1>Chat</h1><div id="root"></div><script type="module" src="/page.js"></script></body></html>`;

/** A Node request as a web-standard Request (what createChatHandler takes). */
function toRequest(req: IncomingMessage): Request {
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req);
  return new Request(new URL(req.url ?? '/', 'http://localhost'), {
    method: req.method ?? 'GET',
    headers: Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])),
    ...(body ? { body, duplex: 'half' } : {}),
  });
}

const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path === '/')
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  if (path === '/page.js') {
    return void response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(PAGE_JS);
  }
  if (!path.startsWith('/api/chat')) return void response.writeHead(404).end();
  void chat(toRequest(request)).then((answer) => {
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void response.end();
    const body = Readable.fromWeb(answer.body);
    response.once('close', () => body.destroy()); // the page went away (a reload): stop reading for it
    body.pipe(response);
  });
});
const selfTest = process.argv.includes('--self-test');
server.listen(selfTest ? 0 : Number(process.env.PORT ?? 8978), '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
console.log(`Chat at ${url}`);

async function stop(): Promise<void> {
  server.closeAllConnections();
  server.close();
  await agents.close();
  // (Ctrl-C has the Temporal runtime shut the worker down already.)
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await serving;
  await temporal.close();
}

if (selfTest) {
  // Plays the page once: it loads, and one message goes through the AI SDK's own transport.
  try {
    const page = await (await fetch(url)).text();
    const script = await (await fetch(`${url}page.js`)).text();
    if (!page.includes('/page.js') || !script.includes('/api/chat'))
      throw new Error('The page is not served.');
    const transport = new DefaultChatTransport({ api: `${url}api/chat` });
    const stream = await transport.sendMessages({
      chatId: 'self-test',
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello there' }] }],
    });
    let answer: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream, terminateOnError: true })) answer = message;
    const parts = answer?.parts ?? [];
    console.log(parts.map((part) => part.type).join(' → '));
    const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    console.log(`Answer: ${text}`);
    if (!text) throw new Error('The answer did not come.');
  } finally {
    await stop();
  }
} else {
  console.log('Open it in a browser; Ctrl-C stops.');
  // `on`, not `once`: a listener of our own tells the agent we end the process ourselves (exit 0).
  let stopping: Promise<void> | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void (stopping ??= stop()));
}
