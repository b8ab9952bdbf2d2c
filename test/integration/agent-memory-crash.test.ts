import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { EVENTS_QUERY, type AgentEvent } from '../../src/common/events.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import { SqliteLongTermStore } from '../../src/long-term-memory/sqlite.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

describe('a turn is remembered once, even when its worker dies between the answer and the memory write', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-crash-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers without waiting for the write, and a new worker writes the same ids again: one copy, one event', async () => {
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `memory-crash-${randomUUID()}`,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      LTM_DB: join(dir, 'long-term.sqlite'),
    };
    const first = startNodeProcess('test/fixtures/memory-worker.ts', { ...env, MODE: 'write-then-hang' });
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const memoryStore = new SqliteMemoryStore({ path: env.MEMORY_DB });
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue: env.TASK_QUEUE });
    const user = `erin-${randomUUID().slice(0, 8)}`;
    const session = agents.chatSession('keeper', { sessionId: `${user}.1`, memoryStore });

    // The answer comes back while the memory write hangs: it is off the answer's path.
    const answer = await session.send('My favourite colour is teal.');
    expect(answer.output).toBe('Noted: My favourite colour is teal.');
    const line = await first.waitForLine(/^REMEMBERED /);
    const firstIds = JSON.parse(line.replace(/^REMEMBERED /, '')) as string[];
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/memory-worker.ts', { ...env, MODE: 'normal' });
    processes.push(second);
    const handle = new Client({ connection }).workflow.getHandle(session.workflowId);
    const events = () => handle.query<AgentEvent[], [number]>(EVENTS_QUERY, 0);
    await expect
      .poll(async () => (await events()).filter((event) => event.type === 'memory_written').length, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(1);
    const written = (await events()).filter((event) => event.type === 'memory_written');
    expect(written).toHaveLength(1);
    expect(written[0]!.payload.message_ids).toEqual(firstIds);
    expect(firstIds).toEqual([
      `${user}.1/${String(written[0]!.payload.turn_id)}/1`,
      `${user}.1/${String(written[0]!.payload.turn_id)}/2`,
    ]);

    // One copy of each message in the store, though it was written twice.
    const memory = new LongTermMemory({ store: new SqliteLongTermStore({ path: env.LTM_DB }) });
    const hits = await memory.recall({ resource: user, query: 'favourite colour teal', limit: 20 });
    expect(hits.map((hit) => hit.messageId).sort()).toEqual([...firstIds].sort());
    expect(hits.map((hit) => hit.text).sort()).toEqual([
      'My favourite colour is teal.',
      'Noted: My favourite colour is teal.',
    ]);
    await memory.close();
    await memoryStore.close();
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
