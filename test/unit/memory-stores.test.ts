import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/common/messages.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import type { MemoryStore } from '../../src/memory/types.ts';

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
});

describe('SqliteMemoryStore', () => {
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
