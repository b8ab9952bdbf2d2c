import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { eventStreamResponse } from '../../src/client/event-stream-response.ts';
import type { AgentRunHandle } from '../../src/client/agent-client.ts';
import { exists } from '../../src/fs/probe.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = await exists(CHROMIUM);
if (!haveChromium) {
  console.warn(
    'Skipping the SSE browser test: no Chromium (Debian: apt-get install chromium; .ci/run installs it).',
  );
}

const PAGE = `<!doctype html><html><body><script>
window.received = [];
window.finished = false;
const source = new EventSource('/events');
source.onmessage = (message) => {
  window.received.push(JSON.parse(message.data));
  fetch('/seen?seq=' + message.lastEventId);
};
source.addEventListener('end', () => { source.close(); window.finished = true; });
</script></body></html>`;

/** Serves the page and the run's events with Node's http; the first event stream is cut after 3 events. */
function startSite(
  handle: AgentRunHandle,
): Promise<{ server: Server; url: string; lastEventIds: Array<string | undefined> }> {
  const lastEventIds: Array<string | undefined> = [];
  // The page reports each event it has dispatched, so the cut waits until the browser has them.
  let seen = 0;
  const seenWaiters: Array<() => void> = [];
  const browserHas = (seq: number) =>
    new Promise<void>((resolve) => {
      const check = () => (seen >= seq ? resolve() : seenWaiters.push(check));
      check();
    });
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith('/seen?')) {
      seen = Math.max(seen, Number(new URL(request.url, 'http://page').searchParams.get('seq')));
      for (const waiter of seenWaiters.splice(0)) waiter();
      response.writeHead(204).end();
      return;
    }
    if (request.url !== '/events') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    const lastEventId = request.headers['last-event-id'] as string | undefined;
    lastEventIds.push(lastEventId);
    const dropAfter = lastEventIds.length === 1 ? 3 : Infinity;
    const sse = eventStreamResponse(handle, { lastEventId });
    response.writeHead(sse.status, Object.fromEntries(sse.headers));
    void (async () => {
      const reader = (sse.body as ReadableStream<Uint8Array>).getReader();
      let sent = 0;
      let lastId = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await new Promise<void>((resolve) => response.write(value, () => resolve()));
        const ids = [
          ...Buffer.from(value)
            .toString()
            .matchAll(/^id: (\d+)$/gm),
        ].map((m) => Number(m[1]));
        sent += ids.length;
        lastId = ids.at(-1) ?? lastId;
        if (sent >= dropAfter) {
          // The connection drops mid-response (a proxy restart) once the browser has dispatched what
          // was sent (a cut right after the bytes left could lose them in the browser's network
          // stack under load, and it would come back from an earlier event): the browser reconnects.
          await browserHas(lastId);
          response.socket?.end();
          await reader.cancel();
          return;
        }
      }
      response.end();
    })();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lastEventIds }),
    ),
  );
}

describe.skipIf(!haveChromium)('run events over SSE in a real browser', () => {
  const workers: TestWorker[] = [];
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    for (const worker of workers) await worker.stop();
  });

  it('an EventSource reconnects after a dropped connection and ends with every event exactly once', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }], delayMs: 300 },
      { toolCalls: [{ name: 'add', args: { a: 2, b: 2 } }], delayMs: 300 },
      { toolCalls: [{ name: 'add', args: { a: 3, b: 3 } }], delayMs: 300 },
      { text: 'All added.', delayMs: 300 },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [new AddTool()] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add three times', { maxIterations: 4 });
    const site = await startSite(handle);
    servers.push(site.server);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(site.url);
      await page.waitForFunction(() => (globalThis as unknown as { finished: boolean }).finished, undefined, {
        timeout: 30_000,
      });
      const received = await page.evaluate(
        () => (globalThis as unknown as { received: Array<{ seq: number; type: string }> }).received,
      );
      const seqs = received.map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      expect(received.at(-1)?.type).toBe('run_completed');
      expect(received.filter((event) => event.type === 'tool_completed')).toHaveLength(3);
      // The browser came back once, saying where it stood.
      expect(site.lastEventIds).toEqual([undefined, '3']);
    } finally {
      await browser.close();
    }
    expect((await handle.result()).output).toBe('All added.');
  });
});
