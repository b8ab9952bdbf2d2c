import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetMemory } from '../../src/agent-memory/forget.ts';
import { readWorkingMemory, writeWorkingMemory } from '../../src/agent-memory/working-memory.ts';
import { ConfigurationError } from '../../src/errors.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import { SqliteLongTermStore } from '../../src/long-term-memory/sqlite.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';

describe("forgetMemory: a user's deletion request, long-term and working memory", () => {
  let dir: string;
  let memory: LongTermMemory;
  let memoryStore: SqliteMemoryStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'forget-memory-'));
    memory = new LongTermMemory({ store: new SqliteLongTermStore({ path: join(dir, 'long-term.sqlite') }) });
    memoryStore = new SqliteMemoryStore({ path: join(dir, 'memory.sqlite') });
  });
  afterAll(async () => {
    await memory.close();
    await memoryStore.close?.();
    await rm(dir, { recursive: true, force: true });
  });

  /** Two sessions and a profile of `resource`, as an agent's runs of `tenant` keep them. */
  const keep = async (resource: string, tenant?: string) => {
    const scoped = tenant === undefined ? resource : `tenant:${tenant}/${resource}`;
    for (const sessionId of ['s1', 's2'])
      await memory.remember({
        resource: scoped,
        sessionId,
        at: 0,
        messages: [{ role: 'user', content: `My parrot Kiwi says hello in ${sessionId}` }],
      });
    await writeWorkingMemory(memoryStore, scoped, { pet: 'a parrot' });
    return scoped;
  };
  const recalled = (scoped: string) => memory.recall({ resource: scoped, query: 'parrot Kiwi', limit: 10 });

  it('forgets one session only, keeping the working memory', async () => {
    const scoped = await keep('ines', 'acme');
    const forgotten = await forgetMemory({
      memory,
      memoryStore,
      resource: 'ines',
      tenant: 'acme',
      sessionId: 's1',
    });
    expect(forgotten).toEqual({ messages: 1, workingMemory: false });
    expect((await recalled(scoped)).map((hit) => hit.sessionId)).toEqual(['s2']);
    expect(await readWorkingMemory(memoryStore, scoped)).toEqual({ pet: 'a parrot' });
  });

  it('forgets a whole resource and its working memory, in its tenant only', async () => {
    const scoped = await keep('jo', 'acme');
    const otherTenant = await keep('jo', 'globex');
    const untenanted = await keep('jo');
    expect(await forgetMemory({ memory, memoryStore, resource: 'jo', tenant: 'acme' })).toEqual({
      messages: 2,
      workingMemory: true,
    });
    expect(await recalled(scoped)).toEqual([]);
    expect(await readWorkingMemory(memoryStore, scoped)).toEqual({});
    for (const kept of [otherTenant, untenanted]) {
      expect(await recalled(kept)).toHaveLength(2);
      expect(await readWorkingMemory(memoryStore, kept)).toEqual({ pet: 'a parrot' });
    }
    // Asked again: nothing is left to forget.
    expect(await forgetMemory({ memory, memoryStore, resource: 'jo', tenant: 'acme' })).toEqual({
      messages: 0,
      workingMemory: false,
    });
  });

  it('refuses a missing resource, a missing memory, and a resource posing as a tenant', async () => {
    await expect(forgetMemory({ memory, resource: ' ' })).rejects.toThrow(
      /resource must be a non-empty string/,
    );
    await expect(forgetMemory({ memory: undefined as never, resource: 'jo' })).rejects.toThrow(
      /memory must be the agent's memory.store/,
    );
    await expect(forgetMemory({ memory, resource: 'tenant:acme/jo' })).rejects.toThrow(ConfigurationError);
  });
});
