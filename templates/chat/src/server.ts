/**
 * `npm start`: serves the chat page (public/index.html) and, for each message, the events of that
 * chat turn as Server-Sent Events. Each page is a durable chat session that keeps its context.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { eventStreamResponse } from 'toolkit-agent';
import { agent } from './agent.ts';

const page = await readFile(new URL('../public/index.html', import.meta.url), 'utf8');

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/') {
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  }
  const session = url.searchParams.get('session');
  const message = url.searchParams.get('message');
  if (url.pathname !== '/chat' || !session || !message) return void response.writeHead(404).end();
  const chat = agent.chatSession({ sessionId: `web-${session}` });
  const sse = eventStreamResponse({ events: () => chat.stream(message) });
  response.writeHead(sse.status, Object.fromEntries(sse.headers));
  Readable.fromWeb(sse.body!).pipe(response);
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
await once(server, 'listening');
console.log(`Chat at http://127.0.0.1:${(server.address() as AddressInfo).port}/ (Ctrl-C stops)`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    server.close();
    void agent.close();
  });
}
