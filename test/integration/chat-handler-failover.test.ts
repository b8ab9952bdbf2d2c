import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import { createChatHandler } from '../../src/ui-stream/chat-handler.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const pgUrl = inject('postgresUrl');
const ANSWER = Array.from({ length: 20 }, (_, i) => `w${i + 1} `).join('');

describe('useChat over createChatHandler while the worker is SIGKILLed mid-turn', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chat-failover-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function failover(live: 'batches' | 'postgres') {
    const notifyChannel = `chat_failover_${randomUUID().replaceAll('-', '')}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `chat-failover-${randomUUID()}`,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, 'unused.log'),
      // The workers' live text: in batches (no channel shared with this process), or through PostgreSQL.
      LIVE_CHANNEL: live,
      ...(live === 'postgres' ? { LIVE_PG_URL: pgUrl, LIVE_NOTIFY_CHANNEL: notifyChannel } : {}),
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'ui-chat-first' });
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const liveChannel =
      live === 'postgres'
        ? new PostgresLiveChannel({ connectionString: pgUrl, channel: notifyChannel })
        : false;
    const agents = new AgentClient({
      client: new Client({ connection }),
      taskQueue: env.TASK_QUEUE,
      liveChannel,
    });
    const server = await serveFetch(createChatHandler({ client: agents, agent: 'writer' }));
    try {
      const transport = new DefaultChatTransport({ api: `${server.url}/api/chat` });
      const stream = await transport.sendMessages({
        chatId: `failover-${randomUUID()}`,
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Write twenty words' }] }],
      });
      let second: NodeProcess | undefined;
      let message: UIMessage | undefined;
      const seen: string[] = [];
      for await (const read of readUIMessageStream({ stream, terminateOnError: true })) {
        message = read;
        const text = read.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        seen.push(text);
        // The page has part of the answer: the worker dies under it, another one takes over.
        if (!second && text.includes('w3 ')) {
          first.child.kill('SIGKILL');
          await first.exited;
          second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'ui-chat-second' });
          processes.push(second);
        }
      }
      expect(second).toBeDefined();
      expect(seen.some((text) => text.startsWith('w1 w2 w3 ') && text.length < ANSWER.length)).toBe(true);
      const texts = message!.parts.filter((part) => part.type === 'text');
      expect(texts).toHaveLength(1);
      expect(texts[0]).toMatchObject({ text: ANSWER });
      // Nothing else was left of the first attempt: one step, its text once.
      expect(message!.parts.map((part) => part.type)).toEqual(['step-start', 'text']);
    } finally {
      await server.close();
      if (liveChannel) await liveChannel.close();
    }
  }

  it('completes the answer on the next worker, and the page shows it once (text in batches)', async () => {
    await failover('batches');
  }, 90_000);

  it.skipIf(!pgUrl)(
    'completes the answer on the next worker, and the page shows it once (text through PostgresLiveChannel): the retried step’s text replaces the partial one',
    async () => {
      await failover('postgres');
    },
    90_000,
  );
});
