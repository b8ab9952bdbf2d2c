import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { PostgresMemoryStore } from '../../src/memory/postgres.ts';
import { compactWithFrozenAttempt } from '../support/frozen-compaction.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const url = inject('postgresUrl');
if (!url) console.warn(`Skipping the PostgreSQL tests: ${inject('postgresSkipped')}`);

describe.skipIf(!url)('PostgresMemoryStore on a real PostgreSQL server', () => {
  const processes: NodeProcess[] = [];
  const stores: PostgresMemoryStore[] = [];
  let connection: Connection | undefined;
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    for (const store of stores) await store.close();
    await connection?.close();
  });

  it('keeps positions in order, reads before a position, and replaces a position written again', async () => {
    const store = new PostgresMemoryStore({ connectionString: url, table: 'test_semantics' });
    stores.push(store);
    const id = randomUUID();
    await store.append(id, 1, [{ role: 'assistant', content: 'first try' }]);
    await store.append(id, 0, [{ role: 'user', content: 'hi' }]);
    await store.append(id, 1, [
      { role: 'assistant', content: 'retried', toolCalls: [{ id: 'c', name: 'add', args: { a: 1 } }] },
      { role: 'tool', toolCallId: 'c', toolName: 'add', content: '1' },
    ]);
    expect(await store.read(id)).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'retried', toolCalls: [{ id: 'c', name: 'add', args: { a: 1 } }] },
      { role: 'tool', toolCallId: 'c', toolName: 'add', content: '1' },
    ]);
    expect(await store.read(id, { before: 1 })).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('creates its table once when many stores start on it at the same moment', async () => {
    // Concurrent CREATE TABLE IF NOT EXISTS races in PostgreSQL: the losers see a duplicate table,
    // row type (42710) or catalog key, which each store must take as "made by another".
    for (let round = 0; round < 5; round++) {
      const table = `test_race_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
      const racing = Array.from(
        { length: 8 },
        () => new PostgresMemoryStore({ connectionString: url, table }),
      );
      stores.push(...racing);
      await Promise.all(
        racing.map((store, i) => store.append(`c${i}`, 0, [{ role: 'user', content: 'hi' }])),
      );
      expect(await racing[0]!.read('c7')).toEqual([{ role: 'user', content: 'hi' }]);
    }
  });

  it('refuses a write from an older attempt of the same writer, and adds the columns to an old table', async () => {
    const table = `test_attempts_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
    // A table as an earlier version made it, without the attempt columns.
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(
      `CREATE TABLE ${table} (conversation text NOT NULL, seq integer NOT NULL, body jsonb NOT NULL, PRIMARY KEY (conversation, seq))`,
    );
    await pool.query(`INSERT INTO ${table} VALUES ('c', 0, '{"role":"user","content":"hi"}')`);
    await pool.end();
    const store = new PostgresMemoryStore({ connectionString: url, table });
    stores.push(store);
    await store.append('c', 1, [{ role: 'assistant', content: 'retry' }], { writer: 'r/2', attempt: 2 });
    await store.append('c', 1, [{ role: 'assistant', content: 'frozen' }], { writer: 'r/2', attempt: 1 });
    expect(await store.read('c')).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'retry' },
    ]);
    await store.append('c', 1, [{ role: 'assistant', content: 'next step' }], { writer: 'r/3', attempt: 1 });
    expect((await store.read('c'))[1]).toEqual({ role: 'assistant', content: 'next step' });
  });

  it("keeps the retry's context summary when a frozen compaction attempt wakes after it, and takes the next compaction's", async () => {
    const store = new PostgresMemoryStore({ connectionString: url, table: 'test_summaries' });
    stores.push(store);
    expect(await compactWithFrozenAttempt(store, randomUUID())).toEqual({
      afterWake: 'summary of the retry',
      afterNext: 'summary of the next compaction',
      afterLateEarlier: 'summary of the next compaction',
    });
  });

  it('lets two worker processes serve one session alternately with the same history', async () => {
    const common = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `pg-${randomUUID()}`,
      PG_URL: url,
      MODE: 'chat-pg',
    };
    const worker = () => {
      const child = startNodeProcess('test/fixtures/worker-process.ts', common);
      processes.push(child);
      return child;
    };
    // Killed between turns: nothing is in flight, and its sticky queue hands the session back in a second.
    const stop = async (child: NodeProcess) => {
      child.child.kill('SIGKILL');
      await child.exited;
    };
    connection = await Connection.connect({ address: inject('temporalAddress') });
    const store = new PostgresMemoryStore({ connectionString: url });
    stores.push(store);
    const session = new AgentClient({
      client: new Client({ connection }),
      taskQueue: common.TASK_QUEUE,
    }).chatSession('shared', {
      memoryStore: store,
    });

    const a = worker();
    await a.waitForLine(/^READY$/);
    const first = await session.send('one');
    await stop(a);

    const b = worker();
    await b.waitForLine(/^READY$/);
    const second = await session.send('two');
    const seenByB = JSON.parse(
      (await b.waitForLine(/^MODEL_STEP 1 /)).replace(/^MODEL_STEP 1 /, ''),
    ) as Array<{ content: string }>;
    await stop(b);

    const c = worker();
    await c.waitForLine(/^READY$/);
    const third = await session.send('three');

    expect(first.output).toBe(`answer to "one" from pid ${a.child.pid}`);
    expect(second.output).toBe(`answer to "two" from pid ${b.child.pid}`);
    expect(third.output).toBe(`answer to "three" from pid ${c.child.pid}`);
    // The second process saw the first process's turn, read from the shared store.
    expect(seenByB.map((m) => m.content)).toEqual([
      'You are a helpful assistant.',
      'one',
      first.output,
      'two',
    ]);
    expect((await session.history()).map((m) => m.content)).toEqual([
      'one',
      first.output,
      'two',
      second.output,
      'three',
      third.output,
    ]);
    await stop(c);
  });
});
