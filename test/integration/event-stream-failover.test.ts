import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

describe('events() while the worker dies', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'event-failover-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks again when its query finds no worker, and delivers every event once, in order, to run_completed', async () => {
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `event-failover-${randomUUID()}`,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, 'unused.log'),
      // No channel reaches this process from the workers': their live text comes in batches.
      LIVE_CHANNEL: 'batches',
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'text-crash-first' });
    processes.push(first);
    await first.waitForLine(/^READY$/);
    // The stream's queries as the server answered them: the test starts the next worker only once
    // one of them has failed, so the stream must have asked again to reach the end.
    const failedQueries: unknown[] = [];
    let queryFailed!: () => void;
    const firstFailure = new Promise<void>((resolve) => (queryFailed = resolve));
    const client = new Client({
      connection,
      interceptors: {
        workflow: [
          {
            async query(input, next) {
              try {
                return await next(input);
              } catch (error) {
                failedQueries.push(error);
                queryFailed();
                throw error;
              }
            },
          },
        ],
      },
    });
    const handle = await new AgentClient({ client, taskQueue: env.TASK_QUEUE }).start(
      'durable',
      'Write until you are stopped',
    );

    const events: AgentEvent[] = [];
    const streamed = (async () => {
      for await (const event of handle.events()) {
        events.push(event);
        // The model is writing and the stream reads by query: the worker dies under it.
        if (event.type === 'text_delta' && first.child.exitCode === null) {
          first.child.kill('SIGKILL');
          await first.exited;
        }
      }
    })().then(
      () => undefined,
      (error: unknown) => error,
    );

    await firstFailure; // a query went to the dead worker's queues and no worker answered in time
    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'crash-second' });
    processes.push(second);

    expect(await streamed).toBeUndefined();
    expect(failedQueries.length).toBeGreaterThan(0);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);
    expect(events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { output: 'finished after the restart' },
    });
    expect((await handle.result()).output).toBe('finished after the restart');
    second.child.kill('SIGTERM');
    await second.exited;
  }, 120_000);
});
