import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { exists } from '../../src/fs/probe.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import { createChatHandler } from '../../src/ui-stream/chat-handler.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const pgUrl = inject('postgresUrl');
const skipped = !(await exists(CHROMIUM))
  ? 'no Chromium (Debian: apt-get install chromium; .ci/run installs it)'
  : !pgUrl
    ? 'no PostgreSQL'
    : '';
if (skipped) console.warn(`Skipping useChat in Chromium with the worker in another process: ${skipped}.`);
const ANSWER = Array.from({ length: 20 }, (_, i) => `w${i + 1}`).join(' ');

/** The page of examples/chat-in-browser.ts (useChat, unmodified, resuming after a reload), bundled as it does. */
async function chatPage(): Promise<{ html: string; script: string }> {
  const bundle = await build({
    entryPoints: [new URL('../../examples/chat-in-browser/page.jsx', import.meta.url).pathname],
    bundle: true,
    write: false,
    format: 'esm',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  return {
    html: '<!doctype html><html><head><meta charset="utf-8"></head><body><div id="root"></div><script type="module" src="/page.js"></script></body></html>',
    script: bundle.outputFiles[0]!.text,
  };
}

/**
 * The production shape: the web server (this process: the page and `createChatHandler`) apart from
 * the worker (a child process), live text between them through PostgresLiveChannel.
 */
describe.skipIf(skipped)(
  'useChat in Chromium, the worker in another process, text through PostgreSQL',
  () => {
    let dir: string;
    let connection: Connection;
    const processes: NodeProcess[] = [];
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'chat-fleet-'));
      connection = await Connection.connect({ address: inject('temporalAddress') });
    });
    afterAll(async () => {
      for (const p of processes) p.child.kill('SIGKILL');
      await connection?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('a reload mid-answer resumes it live; a worker SIGKILLed mid-answer: the retried text replaces the partial one, shown once', async () => {
      const notifyChannel = `chat_fleet_${randomUUID().replaceAll('-', '')}`;
      const env = {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        WORKFLOW_BUNDLE: inject('workflowBundlePath'),
        TASK_QUEUE: `chat-fleet-${randomUUID()}`,
        MEMORY_DB: join(dir, 'memory.sqlite'),
        MARKER_FILE: join(dir, 'unused.log'),
        LIVE_CHANNEL: 'postgres',
        LIVE_PG_URL: pgUrl,
        LIVE_NOTIFY_CHANNEL: notifyChannel,
      };
      // Writes w1 … w8, one word every 150 ms, then hangs.
      const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'ui-chat-first' });
      processes.push(first);
      await first.waitForLine(/^READY$/);
      const liveChannel = new PostgresLiveChannel({ connectionString: pgUrl, channel: notifyChannel });
      const agents = new AgentClient({
        client: new Client({ connection }),
        taskQueue: env.TASK_QUEUE,
        liveChannel,
      });
      const chat = createChatHandler({ client: agents, agent: 'writer' });
      const page = await chatPage();
      const server = await serveFetch((request) => {
        const path = new URL(request.url).pathname;
        if (path === '/') return new Response(page.html, { headers: { 'content-type': 'text/html' } });
        if (path === '/page.js')
          return new Response(page.script, { headers: { 'content-type': 'text/javascript' } });
        return chat(request);
      });
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox'],
      });
      try {
        const tab = await browser.newPage();
        const failures: string[] = [];
        tab.on('pageerror', (error) => failures.push(error.message));
        await tab.goto(`${server.url}/`);
        await tab.fill('#message', 'Write twenty words');
        await tab.press('#message', 'Enter');
        const answer = tab.locator('.assistant .text');
        await answer.filter({ hasText: 'w3' }).waitFor({ timeout: 30_000 });

        // A reload mid-answer: the page asks for the turn in progress and goes on live from where it is.
        await tab.reload();
        await answer.filter({ hasText: 'w6' }).waitFor({ timeout: 30_000 });
        expect(await tab.locator('main[data-status="ready"]').count()).toBe(0); // still streaming

        // The worker dies mid-answer; another one retries the step and writes the whole answer.
        first.child.kill('SIGKILL');
        await first.exited;
        const second = startNodeProcess('test/fixtures/worker-process.ts', {
          ...env,
          MODE: 'ui-chat-second',
        });
        processes.push(second);
        await tab.locator('main[data-status="ready"]').waitFor({ timeout: 60_000 });
        const texts = (await answer.allTextContents()).map((text) => text.trim().replace(/\s+/g, ' '));
        // Once: the retried step's text replaced the partial one, nothing of the first attempt doubled.
        expect(texts).toEqual([ANSWER]);
        expect(failures).toEqual([]);
      } finally {
        await browser.close();
        await server.close();
        await agents.close();
        await liveChannel.close();
      }
    }, 150_000);
  },
);
