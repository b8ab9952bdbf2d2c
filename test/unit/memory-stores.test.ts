import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/common/messages.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import type { MemoryStore } from '../../src/memory/types.ts';
import { compactWithFrozenAttempt } from '../support/frozen-compaction.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function sqliteStore(): Promise<SqliteMemoryStore> {
  const dir = await mkdtemp(join(tmpdir(), 'memory-'));
  dirs.push(dir);
  return new SqliteMemoryStore({ path: join(dir, 'nested', 'memory.sqlite') });
}

const user: Message = { role: 'user', content: 'hi' };
const answer: Message = {
  role: 'assistant',
  content: 'hello',
  toolCalls: [{ id: 'c1', name: 'add', args: { a: 1 } }],
};
const result: Message = { role: 'tool', toolCallId: 'c1', toolName: 'add', content: '1' };

describe.each([
  ['InMemoryMemoryStore', async (): Promise<MemoryStore> => new InMemoryMemoryStore()],
  ['SqliteMemoryStore', sqliteStore],
])('%s', (_name, make) => {
  it('keeps messages in position order and reads the ones before a position', async () => {
    const store = await make();
    await store.append('c', 1, [answer, result]);
    await store.append('c', 0, [user]);
    expect(await store.read('c')).toEqual([user, answer, result]);
    expect(await store.read('c', { before: 2 })).toEqual([user, answer]);
    expect(await store.read('other')).toEqual([]);
    await store.close?.();
  });

  it('replaces a position written again, so a retried activity never duplicates a message', async () => {
    const store = await make();
    await store.append('c', 0, [user, answer]);
    await store.append('c', 1, [{ role: 'assistant', content: 'second attempt' }]);
    expect(await store.read('c')).toEqual([user, { role: 'assistant', content: 'second attempt' }]);
    await store.close?.();
  });

  it('refuses a write from an older attempt of the same writer than the one stored (a frozen attempt woke late)', async () => {
    const store = await make();
    const step = 'run-1/3';
    await store.append('c', 0, [user]);
    await store.append('c', 1, [{ role: 'assistant', content: 'retry' }], { writer: step, attempt: 2 });
    await store.append('c', 1, [{ role: 'assistant', content: 'frozen' }], { writer: step, attempt: 1 });
    expect(await store.read('c')).toEqual([user, { role: 'assistant', content: 'retry' }]);
    // The same attempt again, a later one, or another activity's write replace the position.
    await store.append('c', 1, [answer], { writer: step, attempt: 2 });
    expect((await store.read('c'))[1]).toEqual(answer);
    await store.append('c', 1, [{ role: 'assistant', content: 'third' }], { writer: step, attempt: 3 });
    await store.append('c', 1, [result], { writer: 'run-1/4', attempt: 1 });
    expect((await store.read('c'))[1]).toEqual(result);
    await store.close?.();
  });

  it("keeps the retry's context summary when a frozen compaction attempt wakes after it, and takes the next compaction's", async () => {
    const store = await make();
    expect(await compactWithFrozenAttempt(store, 'c')).toEqual({
      afterWake: 'summary of the retry',
      afterNext: 'summary of the next compaction',
      afterLateEarlier: 'summary of the next compaction',
    });
    await store.close?.();
  });
});

describe('SqliteMemoryStore', () => {
  it('adds the attempt columns to a file made by an earlier version, keeping its messages', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memory-old-'));
    dirs.push(dir);
    const path = join(dir, 'memory.sqlite');
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE messages (conversation TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (conversation, seq)) WITHOUT ROWID`);
    old.prepare('INSERT INTO messages VALUES (?, ?, ?)').run('c', 0, JSON.stringify(user));
    old.close();
    const store = new SqliteMemoryStore({ path });
    await store.append('c', 1, [answer], { writer: 'r/1', attempt: 2 });
    await store.append('c', 1, [result], { writer: 'r/1', attempt: 1 });
    expect(await store.read('c')).toEqual([user, answer]);
    await store.close();
  });

  it('is shared by two handles on one file, as two worker processes would share it', async () => {
    const first = await sqliteStore();
    const second = new SqliteMemoryStore({ path: first.path });
    await first.append('c', 0, [user]);
    await second.append('c', 1, [answer]);
    expect(await first.read('c')).toEqual([user, answer]);
    await first.close();
    await second.close();
  });
});
