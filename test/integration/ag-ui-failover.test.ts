import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import { AgentClient } from '../../src/client/agent-client.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const ANSWER = Array.from({ length: 20 }, (_, i) => `w${i + 1} `).join('');

describe('an AG-UI run while the worker is SIGKILLed mid-turn', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ag-ui-failover-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('completes the answer on the next worker, and the client shows it once', async () => {
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `ag-ui-failover-${randomUUID()}`,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, 'unused.log'),
      // The workers' live text goes to the workflow in batches: this process shares no channel with them.
      LIVE_CHANNEL: 'batches',
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'ui-chat-first' });
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const agents = new AgentClient({
      client: new Client({ connection }),
      taskQueue: env.TASK_QUEUE,
      liveChannel: false,
    });
    const server = await serveFetch(createAgUiHandler({ client: agents, agent: 'writer' }));
    try {
      const agent = new HttpAgent({ url: `${server.url}/ag-ui` });
      agent.addMessage({ id: 'u1', role: 'user', content: 'Write twenty words' });
      let second: NodeProcess | undefined;
      let written = '';
      const events: BaseEvent[] = [];
      await agent.runAgent(
        {},
        {
          onEvent: ({ event }) => void events.push(event),
          onTextMessageContentEvent: async ({ event }) => {
            written += event.delta;
            // The client has part of the answer: the worker dies under it, another one takes over.
            if (!second && written.includes('w3 ')) {
              first.child.kill('SIGKILL');
              await first.exited;
              second = startNodeProcess('test/fixtures/worker-process.ts', {
                ...env,
                MODE: 'ui-chat-second',
              });
              processes.push(second);
            }
          },
        },
      );
      expect(second).toBeDefined();
      const answers = agent.messages.filter((message) => message.role === 'assistant');
      expect(answers).toEqual([expect.objectContaining({ content: ANSWER })]);
      expect(written).toBe(ANSWER);
      expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    } finally {
      await server.close();
    }
  }, 90_000);
});
