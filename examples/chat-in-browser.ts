/**
 * A chat in a web page over Server-Sent Events: a small Node server serves one HTML page and, for
 * each message, the events of that chat turn as an SSE stream (`eventStreamResponse`), which the
 * page reads with the browser's `EventSource`: tool calls and live text appear as they happen. The
 * conversation is a durable chat session (one per page), so it keeps its context between messages
 * and survives a worker restart.
 *
 *   npm run build && node examples/chat-in-browser.ts     # then open the printed URL; Ctrl-C stops
 *
 * PORT picks the port (default 8978; 0: any free one). `--self-test` (what CI runs) plays the
 * browser once with fetch and exits; test/integration/chat-in-browser.test.ts drives the page in
 * Chromium. The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set,
 * otherwise a ScriptedModel that looks up the time and echoes you. Everything else is real: the
 * embedded Temporal server, the chat session workflow, the activities, the SSE stream.
 *
 * @ci-args --self-test
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { z } from 'zod';
import {
  Agent,
  BaseConnectorTool,
  eventStreamResponse,
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

// Without a key: each turn looks at the clock, then answers with what the user said (ten turns).
const scriptedTurn = (): ScriptedStep[] => [{ toolCalls: [{ name: 'clock', args: {} }] }];
const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel(
        Array.from({ length: 10 }).flatMap(() => [
          ...scriptedTurn(),
          (request) => {
            const said = request.messages.findLast((m) => m.role === 'user')?.content;
            return { text: `You said: ${String(said)}` };
          },
        ]),
      );

const agent = new Agent({
  llm,
  tools: [new ClockTool()],
  systemPrompt: 'You are a friendly assistant in a web chat. Answer briefly.',
});

// The page: one EventSource per message; `end` closes it (else the browser would reconnect).
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>toolkit-agent chat</title>
<style>body{font:16px system-ui;max-width:40em;margin:2em auto} .tool{color:#888;font-size:13px}
.you{font-weight:600} #log p{margin:.4em 0}</style></head>
<body><h1>Chat</h1><div id="log"></div>
<form id="form"><input id="message" autocomplete="off" size="50" autofocus> <button>Send</button></form>
<script>
const session = crypto.randomUUID();
const log = document.getElementById('log');
const line = (text, cls) => { const p = document.createElement('p'); p.textContent = text; p.className = cls; log.append(p); return p; };
document.getElementById('form').onsubmit = (submit) => {
  submit.preventDefault();
  const input = document.getElementById('message');
  line(input.value, 'you');
  const answer = line('…', 'answer');
  let text = '';
  const source = new EventSource('/chat?' + new URLSearchParams({ session, message: input.value }));
  input.value = '';
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === 'tool_called') log.insertBefore(line(event.payload.tool + '…', 'tool'), answer);
    if (event.type === 'text_delta') answer.textContent = text += event.payload.text;
    if (event.type === 'run_completed') answer.textContent = event.payload.output;
  };
  source.addEventListener('end', () => source.close());
  source.onerror = () => source.close(); // reconnecting would send the message again
};
</script></body></html>`;

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/') {
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  }
  const session = url.searchParams.get('session');
  const message = url.searchParams.get('message');
  if (url.pathname !== '/chat' || !session || !message) return void response.writeHead(404).end();
  // The turn's events as SSE; the session with this id is created on its first message.
  const chat = agent.chatSession({ sessionId: `web-${session}` });
  const sse = eventStreamResponse({ events: () => chat.stream(message) });
  response.writeHead(sse.status, Object.fromEntries(sse.headers));
  Readable.fromWeb(sse.body!).pipe(response);
});
const selfTest = process.argv.includes('--self-test');
server.listen(selfTest ? 0 : Number(process.env.PORT ?? 8978), '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
console.log(`Chat at ${url}`);

async function stop(): Promise<void> {
  server.closeAllConnections();
  server.close();
  await agent.close();
}

if (selfTest) {
  // Plays the browser once: the page, then one message's stream, read to its `end`.
  try {
    const page = await (await fetch(url)).text();
    if (!page.includes('new EventSource')) throw new Error('The page has no EventSource.');
    const stream = await (await fetch(`${url}chat?session=self-test&message=Hello%20there`)).text();
    const events = [...stream.matchAll(/^data: (\{"seq".+)$/gm)].map(
      (m) => JSON.parse(m[1]!) as { type: string; payload: { output?: unknown } },
    ); // (`event: end` carries `data: {}`)
    const done = events.find((event) => event.type === 'run_completed');
    console.log(events.map((event) => event.type).join(' → '));
    console.log(`Answer: ${String(done?.payload.output)}`);
    if (!done || !stream.includes('event: end')) throw new Error(`The stream did not complete:\n${stream}`);
  } finally {
    await stop();
  }
} else {
  console.log('Open it in a browser; Ctrl-C stops.');
  // `on`, not `once`: a listener of our own tells the agent we end the process ourselves (exit 0).
  let stopping: Promise<void> | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void (stopping ??= stop()));
}
